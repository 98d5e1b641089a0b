"""Tests of impact/bounds.py: eq. 7 (plain and weighted), the IRB bound, Fig. 8 errors,
Best Post Hoc. Oracles: exact point impulses, brute force over the admissible set."""
import numpy as np
import pytest

from impact import bounds
from impact.data import synthetic_ellipse_drops
from impact.drop import Drop
from impact.laws import LAWS


def _drops(law="ap_newton", n=5, seed=0, mu=0.2, e=0.5):
    return synthetic_ellipse_drops(n, law, mu, e, np.random.default_rng(seed))


def _with_impulse(d: Drop, P, extra=np.zeros(3)) -> Drop:
    """The drop with v_f = v_i + M^-1 J^T P + extra."""
    return Drop(d.mass, d.inertia, d.J, d.v_i, d.space().post_velocity(d.v_i, P) + extra, d.q_i)


@pytest.mark.parametrize("law", sorted(LAWS))
def test_point_impulse_is_exact_for_a_point_impulse(law):
    for d in _drops(law, n=4, seed=1):
        space = d.space()
        P = LAWS[law](space.W, space.contact_velocity(d.v_i), 0.2, 0.5)
        for weighted in (False, True):
            np.testing.assert_allclose(bounds.point_impulse(d, weighted), P, rtol=1e-12, atol=1e-15)
        assert bounds.point_impulse_misfit(d) < 1e-12
        # A law's impulse is admissible, so the IRB bound reproduces v_f exactly.
        irb = bounds.irb_bound(d)
        assert irb.error < 1e-10
        np.testing.assert_allclose(irb.P, P, rtol=1e-9, atol=1e-12)


def test_impulse_map_is_the_linear_map_of_eq7():
    d = _drops(n=1, seed=2)[0]
    d = _with_impulse(d, [0.003, 0.1], extra=np.array([0.01, -0.02, 0.7]))
    for weighted in (False, True):
        np.testing.assert_allclose(bounds.impulse_map(d, weighted) @ d.dv,
                                   bounds.point_impulse(d, weighted), rtol=1e-12)


def test_weighted_eq7_differs_from_plain_where_omega_matters():
    """A pure angular velocity change (e.g. a torsional patch impulse, which no point
    impulse produces) moves the plain eq. 7 impulse by about k_g times less than the
    weighted one: the plain fit nearly ignores omega."""
    d = _drops(n=1, seed=3)[0]
    space = d.space()
    P = LAWS["ap_newton"](space.W, space.contact_velocity(d.v_i), 0.2, 0.5)
    dw = np.array([0.0, 0.0, 5.0])  # rad/s, no point impulse explains it
    plain = bounds.point_impulse(_with_impulse(d, P, dw)) - P
    weighted = bounds.point_impulse(_with_impulse(d, P, dw), weighted=True) - P
    ratio = np.linalg.norm(plain) / np.linalg.norm(weighted)
    assert ratio < 0.1 and ratio > 0.0
    # Each minimises its own objective: the weighted one predicts v_f better in the Fig. 8 metric.
    dd = _with_impulse(d, P, dw)
    assert bounds.impulse_error(dd, P + weighted) < bounds.impulse_error(dd, P + plain)
    assert np.linalg.norm(P + weighted - P) > 1e-2 * np.linalg.norm(P)


def test_velocity_error_scales_omega_by_the_gyration_radius():
    d = _drops(n=1)[0]
    k_g = d.gyration_radius
    assert bounds.velocity_error(d, d.v_f + [0.0, 0.0, 2.0]) == pytest.approx(2.0 * k_g)
    assert bounds.velocity_error(d, d.v_f + [3.0, 4.0, 0.0]) == pytest.approx(5.0)


def _brute_force_irb(d: Drop, n=801):
    """min of the IRB cost over a fine grid of the admissible set (its bounding box)."""
    space = d.space()
    W, vc = space.W, space.contact_velocity(d.v_i)
    P0 = -np.linalg.solve(W, vc)                  # centre of the Energy Ellipse
    r2 = P0 @ W @ P0                              # (P - P0)^T W (P - P0) <= r2
    half = np.sqrt(r2 * np.diag(np.linalg.inv(W)))
    pt, pn = np.meshgrid(np.linspace(P0[0] - half[0], P0[0] + half[0], n),
                         np.linspace(max(P0[1] - half[1], 0.0), P0[1] + half[1], n))
    P = np.stack([pt.ravel(), pn.ravel()], axis=1)
    dT = P @ vc + 0.5 * np.einsum("ij,jk,ik->i", P, W, P)
    vn = vc[1] + P @ W[1]
    ok = (dT <= 0) & (vn >= 0) & (P[:, 1] >= 0)
    v_plus = d.v_i + P[ok] @ (d.J.T / np.array([d.mass, d.mass, d.inertia])[:, None]).T
    err = np.linalg.norm((v_plus - d.v_f) * d.metric, axis=1)
    step = np.array([2 * half[0], 2 * half[1]]) / (n - 1)
    return err.min(), step


@pytest.mark.parametrize("case", ["free", "energy gain", "penetration", "pulling", "noise"])
def test_irb_bound_matches_brute_force(case):
    rng = np.random.default_rng(7)
    seen = set()
    for d in _drops(n=4, seed=11):
        space = d.space()
        W, vc = space.W, space.contact_velocity(d.v_i)
        P = LAWS["ap_newton"](W, vc, 0.3, 0.5)
        target = {"free": P,
                  "energy gain": P * [1.0, 1.6],        # like e > 1
                  "penetration": P * [1.0, 0.3],        # v_n+ < 0
                  "pulling": np.array([P[0], -0.2 * P[1]]),
                  "noise": P}[case]
        extra = rng.normal(0, [0.3, 0.3, 15.0]) if case == "noise" else rng.normal(0, [0.01, 0.01, 0.5])
        dd = _with_impulse(d, target, extra)
        irb = bounds.irb_bound(dd)
        assert space.is_admissible(vc, irb.P, tol=1e-9)
        best_grid, step = _brute_force_irb(dd)
        # Exact optimum: never worse than any admissible grid point, and the grid (whose
        # spacing bounds how far its best point can be from the optimum) comes close.
        assert irb.error <= best_grid + 1e-12
        lipschitz = np.linalg.norm(dd.metric[:, None] * dd.J.T / np.array(
            [dd.mass, dd.mass, dd.inertia])[:, None], 2)
        assert best_grid - irb.error <= lipschitz * np.linalg.norm(step)
        seen.add(irb.active)
    if case == "free":
        assert seen == {"free"}
    if case == "energy gain":
        assert "energy" in seen
    if case == "penetration":
        assert "compression" in seen


def test_best_post_hoc_picks_the_generating_law():
    drops = _drops("whittaker", n=6, seed=5, mu=0.1, e=0.4)
    params = {name: (0.1, 0.4) for name in LAWS}
    errors = bounds.law_errors(drops, params)
    best, names = bounds.best_post_hoc(errors)
    np.testing.assert_array_equal(best, np.min(np.vstack(list(errors.values())), axis=0))
    assert np.all(best < 1e-12)
    assert np.all(errors["whittaker"] < 1e-12)
    # The IRB bound is never worse than the best law (it searches a superset).
    irb = np.array([bounds.irb_bound(d).error for d in drops])
    assert np.all(irb <= best + 1e-12)
