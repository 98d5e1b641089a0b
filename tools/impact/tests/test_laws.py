"""Tests of the six impact laws (impact.laws) against independent formulations.

- Wang-Mason and Mirtich against the numerical Routh integrator (impact.routh);
- AP Newton against its LCP (complementarity residual, and an enumeration of all the
  LCP's complementary bases);
- Drumwright-Shell against a general-purpose constrained QP solver (scipy SLSQP);
- invariants and the coincidences between laws that follow from their definitions.
Cases are drawn from the ranges of the MIT ellipse drops (Fazeli et al. 2020 §3.1) with
a seeded generator. docs/design/impact-laws.md §5 lists what is checked and why.
"""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from impact import laws, routh
from impact.contact_space import ContactSpace, sticking_impulse

MASS, A_AXIS, B_AXIS = 0.0364, 0.035, 0.025
INERTIA = MASS * (A_AXIS**2 + B_AXIS**2) / 5
NAMES = list(laws.LAWS)


def _space(theta):
    return ContactSpace.for_ellipse(MASS, INERTIA, A_AXIS, B_AXIS, theta)


def _velocity(rng):
    return np.array([rng.uniform(0.14, 1.13), rng.uniform(-2.87, -2.21), rng.uniform(-14, 25)])


def _cases(seed, n, mu_range=(0.0, 0.4), e_range=(0.0, 1.0)):
    """n data-set-like cases: (W (n,2,2), vc (n,2), mu (n,), e (n,), spaces, v (n,3))."""
    rng = np.random.default_rng(seed)
    spaces = [_space(rng.uniform(-np.pi, np.pi)) for _ in range(n)]
    v = np.array([_velocity(rng) for _ in range(n)])
    W = np.array([s.W for s in spaces])
    vc = np.array([s.contact_velocity(u) for s, u in zip(spaces, v)])
    return W, vc, rng.uniform(*mu_range, n), rng.uniform(*e_range, n), spaces, v


def _general_cases(seed, n):
    """n cases with random SPD W (any coupling), random approach, mu below the Painleve limit."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        L = rng.normal(size=(2, 2))
        W = L @ L.T + 0.05 * np.eye(2)
        vc = np.array([rng.normal(), -abs(rng.normal()) - 0.01])
        mu = rng.uniform(0, 2)
        if mu * abs(W[0, 1]) < 0.95 * W[1, 1]:
            out.append((W, vc, mu, rng.uniform(0, 1)))
    return out


def _apply(law, W, vc, mu, e):
    return np.array([law(W[i], vc[i], mu[i], e[i]) for i in range(len(vc))])


# ---------------------------------------------------------------------------
# Routh's method: Wang-Mason (Poisson end) and Mirtich (energetic end)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name,end", [("wang_mason", "poisson"), ("mirtich", "energetic")])
def test_routh_laws_match_numerical_integration(name, end):
    W, vc, mu, e, _, _ = _cases(100, 300)
    ref = routh.integrate(W, vc, mu, e, end=end, steps=2000)
    P = _apply(laws.LAWS[name], W, vc, mu, e)
    # The integrator errs by O(mu h) in the step where the slip stops or reverses.
    err = np.abs(P - ref.P).max(axis=1)
    assert np.all(err <= ref.h), f"worst error {np.max(err / ref.h):.3g} steps"
    # The sample exercises every branch: sticking, reversal, and sliding throughout ...
    assert ref.stuck.sum() > 30 and ref.reversed.sum() > 10
    assert np.sum(~ref.stuck & ~ref.reversed) > 10
    # ... and the slip stops both in compression and in restitution (doc §3.4 cases C, R).
    stops_in_restitution = (ref.P_q < _slip_stop(W, vc, mu)) & (ref.stuck | ref.reversed)
    assert 3 <= stops_in_restitution.sum() < np.sum(ref.stuck | ref.reversed) - 3


def _slip_stop(W, vc, mu):
    """P_d: the normal impulse at which the initial slip would stop (inf if never)."""
    s = np.sign(vc[:, 0])
    a = W[:, 0, 1] - s * mu * W[:, 0, 0]
    return np.where(s * a < 0, -vc[:, 0] / np.where(a == 0, 1.0, a), np.inf)


@pytest.mark.parametrize("name,end", [("wang_mason", "poisson"), ("mirtich", "energetic")])
def test_routh_laws_match_integration_for_general_compliance(name, end):
    """Strongly coupled W (far outside the data set): stick from rest, large reversals."""
    cases = _general_cases(101, 200)
    W = np.array([c[0] for c in cases])
    vc = np.array([c[1] for c in cases])
    mu, e = np.array([c[2] for c in cases]), np.array([c[3] for c in cases])
    ref = routh.integrate(W, vc, mu, e, end=end, steps=1000)
    P = _apply(laws.LAWS[name], W, vc, mu, e)
    assert np.all(np.abs(P - ref.P).max(axis=1) <= 2 * ref.h)


def test_routh_integrator_converges_at_first_order():
    """Halving the step halves the error of the reversal cases (an O(h) scheme)."""
    W, vc, mu, e, _, _ = _cases(102, 300, mu_range=(0.0, 0.1))
    P = _apply(laws.mirtich, W, vc, mu, e)
    coarse = routh.integrate(W, vc, mu, e, end='energetic', steps=500)
    fine = routh.integrate(W, vc, mu, e, end='energetic', steps=1000)
    assert coarse.reversed.any()
    err_c = np.abs(P - coarse.P).max()
    err_f = np.abs(P - fine.P).max()
    assert 1.5 < err_c / err_f < 3.0


def test_routh_integrator_frictionless_is_exact():
    """mu = 0: P_n = -(1+e) v_n/W_nn for both ends, whatever the coupling."""
    W, vc, _, e, _, _ = _cases(103, 50)
    for end in ('poisson', 'energetic'):
        ref = routh.integrate(W, vc, 0.0, e, end=end, steps=100)
        np.testing.assert_allclose(ref.P[:, 1], -(1 + e) * vc[:, 1] / W[:, 1, 1], rtol=1e-10)
        np.testing.assert_allclose(ref.P[:, 0], 0.0, atol=1e-15)


# ---------------------------------------------------------------------------
# Anitescu-Potra Newton: the LCP
# ---------------------------------------------------------------------------

def _ap_lcp(W, vc, mu, e):
    """(M, q) of the AP Newton LCP in z = (P_n, beta_-, beta_+, lambda), D = [-t, t].

    w = M z + q: (v_n+ + e v_n-, lambda - v_t+, lambda + v_t+, mu P_n - beta_- - beta_+),
    with P_t = beta_+ - beta_-.
    """
    Wtt, Wtn, Wnn = W[0, 0], W[0, 1], W[1, 1]
    M = np.array([[Wnn, -Wtn, Wtn, 0.0],
                  [-Wtn, Wtt, -Wtt, 1.0],
                  [Wtn, -Wtt, Wtt, 1.0],
                  [mu, -1.0, -1.0, 0.0]])
    q = np.array([(1 + e) * vc[1], -vc[0], vc[0], 0.0])
    return M, q


def _lcp_solutions(M, q, tol=1e-10):
    """Every solution of 0 <= z _|_ Mz + q >= 0 found on a non-singular complementary basis."""
    sols = []
    for basis in itertools.product([False, True], repeat=4):
        idx = np.flatnonzero(basis)
        z = np.zeros(4)
        if idx.size:
            sub = M[np.ix_(idx, idx)]
            if abs(np.linalg.det(sub)) < 1e-14:
                continue
            z[idx] = np.linalg.solve(sub, -q[idx])
        w = M @ z + q
        scale = np.abs(q).max()
        if z.min() >= -tol * scale and w.min() >= -tol * scale:
            sols.append(z)
    return sols


def test_ap_newton_satisfies_its_lcp():
    W, vc, mu, e, _, _ = _cases(110, 300)
    for i in range(len(vc)):
        P = laws.ap_newton(W[i], vc[i], mu[i], e[i])
        vt_plus = vc[i, 0] + W[i, 0] @ P
        z = np.array([P[1], max(-P[0], 0.0), max(P[0], 0.0), abs(vt_plus)])
        M, q = _ap_lcp(W[i], vc[i], mu[i], e[i])
        w = M @ z + q
        z_scale, w_scale = np.abs(P).max(), np.abs(vc[i]).max()
        assert z.min() >= 0.0
        assert w.min() >= -1e-12 * max(w_scale, mu[i] * z_scale)
        assert np.abs(z * w).max() <= 1e-12 * z_scale * w_scale


def test_ap_newton_is_the_unique_lcp_solution():
    """Enumerating the 16 complementary bases finds one impulse, the closed form's."""
    cases = _general_cases(111, 150)
    W0, vc0, mu0, e0, _, _ = _cases(112, 150)
    cases += [(W0[i], vc0[i], mu0[i], e0[i]) for i in range(150)]
    for W, vc, mu, e in cases:
        sols = _lcp_solutions(*_ap_lcp(W, vc, mu, e))
        assert sols, "the LCP has a solution"
        P = laws.ap_newton(W, vc, mu, e)
        for z in sols:
            np.testing.assert_allclose([z[2] - z[1], z[0]], P, rtol=1e-9, atol=1e-12 * abs(P).max())


# ---------------------------------------------------------------------------
# Drumwright-Shell: maximum dissipation QP
# ---------------------------------------------------------------------------

def _qp_compression(W, vc, mu):
    """Brute-force argmin P.vc + 1/2 P.W.P s.t. v_n+ >= 0, |P_t| <= mu P_n.

    Every feasible P is P_n (tau, 1) with |tau| <= mu. On each such ray the energy is a
    convex parabola in P_n and v_n+ >= 0 a lower bound on P_n, so the best P_n per ray is
    explicit; tau is searched on a dense grid, then refined by a bounded scalar search.
    """
    def on_rays(tau):
        """Best P_n and energy on the rays P_n (tau, 1), tau an array."""
        dd = W[0, 0] * tau**2 + 2 * W[0, 1] * tau + W[1, 1]   # d^T W d
        lower = -vc[1] / (W[1, 0] * tau + W[1, 1])              # v_n+ = 0 (> 0: no Painleve)
        Pn = np.maximum(-(tau * vc[0] + vc[1]) / dd, lower)
        return Pn, Pn * (tau * vc[0] + vc[1]) + 0.5 * Pn * Pn * dd

    taus = np.linspace(-mu, mu, 2001)
    k = int(np.argmin(on_rays(taus)[1]))
    tau = taus[k]
    lo, hi = taus[max(k - 1, 0)], taus[min(k + 1, len(taus) - 1)]
    if hi > lo:
        t = minimize_scalar(lambda t: float(on_rays(np.array(t))[1]), bounds=(lo, hi),
                            method='bounded', options={'xatol': 1e-12 * mu}).x
        if on_rays(np.array(t))[1] < on_rays(np.array(tau))[1]:
            tau = t
    Pn, f = on_rays(np.array(tau))
    return np.array([tau * Pn, Pn]), float(f)


def test_drumwright_shell_compression_solves_the_dissipation_qp():
    cases = _general_cases(120, 100)
    W0, vc0, mu0, _, _, _ = _cases(121, 100)
    cases += [(W0[i], vc0[i], mu0[i], 0.0) for i in range(100)]
    for W, vc, mu, _ in cases:
        Pc = laws.drumwright_shell_compression(W, vc, mu)
        P_ref, f_ref = _qp_compression(W, vc, mu)
        f = Pc @ vc + 0.5 * Pc @ W @ Pc
        # Feasible, no worse than the brute-force optimum, and the same point (strict convexity).
        assert vc[1] + W[1] @ Pc >= -1e-12 * abs(vc[1])
        assert abs(Pc[0]) <= mu * Pc[1] * (1 + 1e-12)
        assert f <= f_ref + 1e-12 * abs(f_ref)
        np.testing.assert_allclose(Pc, P_ref, rtol=1e-6, atol=1e-8 * np.abs(P_ref).max())


def test_drumwright_shell_pushes_at_least_as_hard_as_ap_poisson():
    """The compression impulse is not complementary to v_n+, so P_n^DS >= P_n^AP(e=0)."""
    for W, vc, mu, e in _general_cases(122, 500):
        assert (laws.drumwright_shell(W, vc, mu, e)[1]
                >= laws.ap_poisson(W, vc, mu, e)[1] * (1 - 1e-12))


def test_drumwright_shell_equals_ap_poisson_when_the_centre_is_in_the_cone():
    W, vc, _, e, _, _ = _cases(123, 100)
    for i in range(len(vc)):
        P0 = -np.linalg.solve(W[i], vc[i])
        mu = min(abs(P0[0]) / P0[1] * 1.01, 0.9 * W[i, 1, 1] / abs(W[i, 0, 1]))
        if abs(P0[0]) > mu * P0[1]:
            continue
        np.testing.assert_allclose(laws.drumwright_shell(W[i], vc[i], mu, e[i]),
                                   laws.ap_poisson(W[i], vc[i], mu, e[i]), rtol=1e-12)


# ---------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_impulse_in_cone_and_pushing(name):
    W, vc, mu, e, _, _ = _cases(130, 300)
    P = _apply(laws.LAWS[name], W, vc, mu, e)
    assert np.all(P[:, 1] > 0)
    assert np.all(np.abs(P[:, 0]) <= mu * P[:, 1] * (1 + 1e-12))


@pytest.mark.parametrize("name", [n for n in NAMES if n != 'whittaker'])
def test_no_interpenetrating_post_impact_velocity(name):
    """v_n+ >= 0; in the data range and for any coupling (Whittaker: see below)."""
    W, vc, mu, e, _, _ = _cases(131, 300)
    general = _general_cases(132, 300)
    for Wi, vci, mui, ei in [(W[i], vc[i], mu[i], e[i]) for i in range(300)] + general:
        P = laws.LAWS[name](Wi, vci, mui, ei)
        assert vci[1] + Wi[1] @ P >= -1e-12 * abs(vci[1])


@pytest.mark.parametrize("name", ["wang_mason", "mirtich"])
def test_routh_laws_never_gain_energy(name):
    """Energy never gained for e <= 1, in the data range and for any coupling."""
    W, vc, mu, e, spaces, v = _cases(140, 300)
    for i in range(300):
        P = laws.LAWS[name](W[i], vc[i], mu[i], e[i])
        assert spaces[i].energy_change(v[i], P) <= 1e-12 * spaces[i].kinetic_energy(v[i])
    for Wi, vci, mui, ei in _general_cases(141, 500):
        P = laws.LAWS[name](Wi, vci, mui, ei)
        assert P @ vci + 0.5 * P @ Wi @ P <= 1e-12 * (vci @ np.linalg.solve(Wi, vci))


@pytest.mark.parametrize("name", [n for n in NAMES if n != 'whittaker'])
def test_plastic_impacts_never_gain_energy(name):
    """e = 0: every law except Whittaker dissipates, for any coupling."""
    W, vc, mu, _, spaces, v = _cases(142, 200)
    for i in range(200):
        P = laws.LAWS[name](W[i], vc[i], mu[i], 0.0)
        assert spaces[i].energy_change(v[i], P) <= 1e-12 * spaces[i].kinetic_energy(v[i])
    for Wi, vci, mui, _ in _general_cases(143, 300):
        P = laws.LAWS[name](Wi, vci, mui, 0.0)
        assert P @ vci + 0.5 * P @ Wi @ P <= 1e-12 * (vci @ np.linalg.solve(Wi, vci))


@pytest.mark.parametrize("name", [n for n in NAMES if n != 'drumwright_shell'])
def test_decoupled_contact_never_gains_energy(name):
    """W_tn = 0 (contact under the centre of mass): dissipative for e <= 1."""
    rng = np.random.default_rng(144)
    for _ in range(300):
        W = np.diag(rng.uniform(0.1, 3.0, 2))
        vc = np.array([rng.normal(), -abs(rng.normal()) - 0.01])
        mu, e = rng.uniform(0, 2), rng.uniform(0, 1)
        P = laws.LAWS[name](W, vc, mu, e)
        assert P @ vc + 0.5 * P @ W @ P <= 1e-12 * (vc @ np.linalg.solve(W, vc))


def test_newton_restitution_can_gain_energy_in_stick():
    """Counterexample to "no law gains energy for e <= 1": Newton's kinematic restitution with
    sticking (AP Newton, Whittaker) gains T+ - T- = v_t (2 W_tn v_n - W_nn v_t) / (2 det W)
    at e = 1, positive for a small slip with v_t W_tn v_n > 0 (cf. Stronge 1991)."""
    space = _space(0.6)
    W = space.W
    v_n = -2.5
    v_t = 0.5 * W[0, 1] * v_n / W[1, 1]             # half the slip that maximises the gain
    vc = np.array([v_t, v_n])
    gain = v_t * (2 * W[0, 1] * v_n - W[1, 1] * v_t) / (2 * np.linalg.det(W))
    assert gain > 0
    for name in ('ap_newton', 'whittaker'):
        P = laws.LAWS[name](W, vc, 0.4, 1.0)
        np.testing.assert_allclose(P, sticking_impulse(W, vc, 1.0))
        assert P @ vc + 0.5 * P @ W @ P == pytest.approx(gain, rel=1e-9)


def test_poisson_scaling_can_gain_energy_when_decoupled():
    """Drumwright-Shell's over-push (v_n > 0 after compression), scaled by 1 + e, can gain
    energy even for W_tn = 0: here T+ - T- > 0 at e = 1."""
    W = np.diag([0.25, 1.0])
    vc = np.array([3.0, -1.0])
    mu = 1.0
    # On the edge P_t = -mu P_n the energy is minimal at P_n = (mu v_t - v_n)/(W_nn + mu^2 W_tt)
    # = 3.2 > -v_n/W_nn = 1: the compression ends with v_n = 2.2 > 0.
    Pc = laws.drumwright_shell_compression(W, vc, mu)
    np.testing.assert_allclose(Pc, [-3.2, 3.2])
    P = laws.drumwright_shell(W, vc, mu, 1.0)
    assert P @ vc + 0.5 * P @ W @ P == pytest.approx(5.76)     # T_c = 18.5 in these units


def test_whittaker_can_interpenetrate():
    """Whittaker keeps P_n = P^N_n(e) when it clamps P_t, so v_n+ = -e v_n- + W_tn (P_t - P^N_t),
    which is negative for a clamped slide with small e: the law is not in the admissible set."""
    W, vc, mu, _, _, _ = _cases(150, 400)
    found = 0
    for i in range(len(vc)):
        e = 0.0
        P = laws.whittaker(W[i], vc[i], mu[i], e)
        PN = sticking_impulse(W[i], vc[i], e)
        vn_plus = vc[i, 1] + W[i, 1] @ P
        assert vn_plus == pytest.approx(-e * vc[i, 1] + W[i, 0, 1] * (P[0] - PN[0]), abs=1e-12)
        found += vn_plus < -1e-9
    assert found > 0


# ---------------------------------------------------------------------------
# Coincidences between laws
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_frictionless(name):
    """mu = 0: no tangential impulse; every law but Whittaker gives P_n = -(1+e) v_n/W_nn,
    Whittaker keeps the sticking impulse's P^N_n(e)."""
    W, vc, _, e, _, _ = _cases(160, 100)
    for i in range(len(vc)):
        P = laws.LAWS[name](W[i], vc[i], 0.0, e[i])
        assert P[0] == 0.0
        expected = (sticking_impulse(W[i], vc[i], e[i])[1] if name == 'whittaker'
                    else -(1 + e[i]) * vc[i, 1] / W[i, 1, 1])
        assert P[1] == pytest.approx(expected, rel=1e-12)


def test_contact_under_the_centre_of_mass():
    """r_x = 0 (W_tn = 0): v_n does not feel friction, so AP Newton = Wang-Mason = Mirtich."""
    rng = np.random.default_rng(161)
    for _ in range(200):
        space = _space(rng.choice([0.0, np.pi / 2, np.pi, -np.pi / 2]))
        vc = space.contact_velocity(_velocity(rng))
        mu, e = rng.uniform(0, 0.4), rng.uniform(0, 1)
        P = laws.ap_newton(space.W, vc, mu, e)
        np.testing.assert_allclose(laws.wang_mason(space.W, vc, mu, e), P, rtol=1e-9)
        np.testing.assert_allclose(laws.mirtich(space.W, vc, mu, e), P, rtol=1e-9)


def test_full_stick():
    """Enough friction: AP Newton = Whittaker = P^N(e), and v_c+ = (0, -e v_n-)."""
    W, vc, _, e, _, _ = _cases(162, 200)
    for i in range(len(vc)):
        PN = sticking_impulse(W[i], vc[i], e[i])
        mu = abs(PN[0]) / PN[1] * 1.001
        if mu * abs(W[i, 0, 1]) >= W[i, 1, 1]:
            continue
        for name in ('ap_newton', 'whittaker'):
            P = laws.LAWS[name](W[i], vc[i], mu, e[i])
            np.testing.assert_allclose(P, PN, rtol=1e-12)
            np.testing.assert_allclose(vc[i] + W[i] @ P, [0.0, -e[i] * vc[i, 1]], atol=1e-12)


def test_plastic_ap_poisson_is_ap_newton():
    W, vc, mu, _, _, _ = _cases(163, 200)
    for i in range(len(vc)):
        np.testing.assert_array_equal(laws.ap_poisson(W[i], vc[i], mu[i], 0.0),
                                      laws.ap_newton(W[i], vc[i], mu[i], 0.0))


def test_without_mode_change_newton_poisson_and_stronge_coincide():
    """Sliding throughout (judged by the integrator) or sticking from the start: AP Newton,
    Wang-Mason and Mirtich give the same impulse, and v_n+ = -e v_n-."""
    W, vc, mu, e, _, _ = _cases(164, 300)
    ref = routh.integrate(W, vc, mu, e, end='poisson', steps=200)
    sliding = np.flatnonzero(~ref.stuck & ~ref.reversed)
    assert sliding.size > 20
    rng = np.random.default_rng(165)
    at_rest = []
    for _ in range(50):                                   # v_t- = 0 and mu >= |mu_s|
        space = _space(rng.uniform(-np.pi, np.pi))
        at_rest.append((space.W, np.array([0.0, -2.5]), abs(space.stick_ratio()) + 0.01,
                        rng.uniform(0, 1)))
    cases = [(W[i], vc[i], mu[i], e[i]) for i in sliding] + at_rest
    for Wi, vci, mui, ei in cases:
        P = laws.ap_newton(Wi, vci, mui, ei)
        assert (vci + Wi @ P)[1] == pytest.approx(-ei * vci[1], rel=1e-12)
        np.testing.assert_allclose(laws.wang_mason(Wi, vci, mui, ei), P, rtol=1e-9)
        np.testing.assert_allclose(laws.mirtich(Wi, vci, mui, ei), P, rtol=1e-9)


# ---------------------------------------------------------------------------
# Interface
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_separating_contact_gets_no_impulse(name):
    W = _space(0.4).W
    for vc in ([0.3, 0.0], [0.3, 1.0], [-1.0, 0.2]):
        np.testing.assert_array_equal(laws.LAWS[name](W, np.array(vc), 0.3, 0.5), [0.0, 0.0])


@pytest.mark.parametrize("name", [n for n in NAMES if n != 'whittaker'])
def test_painleve_precondition_is_enforced(name):
    W = np.array([[1.0, 0.8], [0.8, 1.0]])          # W_nn/|W_tn| = 1.25
    with pytest.raises(ValueError, match="Painleve"):
        laws.LAWS[name](W, np.array([0.5, -1.0]), 1.3, 0.5)


def test_predict_returns_the_post_impact_body_velocity():
    rng = np.random.default_rng(170)
    space = _space(0.9)
    v = _velocity(rng)
    assert set(laws.LAWS) == set(laws.LAW_TITLES)
    for name in NAMES:
        v_plus = laws.predict(name, space, v, 0.2, 0.5)
        P = laws.LAWS[name](space.W, space.contact_velocity(v), 0.2, 0.5)
        np.testing.assert_allclose(v_plus, space.post_velocity(v, P))
    with pytest.raises(ValueError):
        laws.predict('newton', space, v, 0.2, 0.5)
