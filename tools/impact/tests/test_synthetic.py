"""Tests of impact/synthetic.py, impact/compliant.py and scenes/ellipse_drop.yaml against
physics (docs/design/impact-synthetic.md): free flight is the analytic parabola, the
tuned dissipation gives the rebound ratio it was tuned to, friction-free impacts keep the
x momentum, the parabola fits recover the exact velocities within their noise-derived
standard deviations, back-propagated drops touch at the planned instant, the drops of a
batch do not interact, and the compliant identification recovers noise-free truths.

Needs the csim executable in $CSIM; skipped when it is unset.
    cd tools && CSIM=../build/app/csim /usr/bin/python3 -m pytest -q impact/tests/test_synthetic.py
"""
import math
import os
import subprocess

import h5py
import numpy as np
import pytest

from impact import compliant, synthetic as S

CSIM = os.environ.get("CSIM")
if not CSIM:
    pytest.skip("CSIM is not set (the csim executable)", allow_module_level=True)
if not os.access(CSIM, os.X_OK):
    pytest.fail(f"CSIM={CSIM} is not an executable", pytrace=False)

SCENE = os.path.join(S.REPO, "scenes", "ellipse_drop.yaml")
# The scene's drop: touches at 20 ms with velocity (0.5, -2.54, 0), angle 0.
T_TOUCH, V_TOUCH = 0.02, np.array([0.5, -2.54, 0.0])
TAU_D, D_HC = 5.3876e-5, 0.34581  # the scene's tuned dissipation


@pytest.fixture(scope="module")
def tuned_tau():
    return S.tune_dissipation("sap", csim=CSIM, rounds=3)[0]


def _run_scene(tmp_path, model):
    out = tmp_path / f"ellipse_drop_{model}.h5"
    subprocess.run([CSIM, "run", SCENE, "-o", str(out), "-q", "--no-progress",
                    "--contact-model", model], check=True)
    with h5py.File(out, "r") as f:
        assert f["status"].asstr()[()] == "completed"
        t, q, v = f["time"][:], f["state/q"][:], f["state/v"][:]
        count, offset = f["contacts/count"][:], f["contacts/offset"][:]
        force = f["contacts/force"][:]
    fz = np.array([force[o:o + c, 2].sum() for o, c in zip(offset, count)])
    return t, q, v, fz


@pytest.mark.parametrize("model", ["sap", "lagged", "similar"])
def test_ellipse_drop_scene(tmp_path, model):
    t, q, v, fz = _run_scene(tmp_path, model)
    g = S.GRAVITY
    q0, v0 = S.ballistic(S.touch_pose(0.0), V_TOUCH, -T_TOUCH)
    # Free flight before the touch: the analytic parabola (symplectic Euler trails it by
    # g t dt / 2 <= 1e-6 m), the velocity to round-off.
    pre = t < T_TOUCH - 1e-4
    np.testing.assert_allclose(q[pre, 1], q0[1] + v0[1] * t[pre] - g * t[pre] ** 2 / 2, atol=1.1e-6)
    np.testing.assert_allclose(v[pre, 1], v0[1] - g * t[pre], atol=1e-11)
    assert np.all(fz[pre] == 0)
    # The lowest point (z - b) reaches the ground at 20 ms, within a step.
    h = q[:, 1] - S.B
    k = int(np.flatnonzero(h <= 0)[0])
    t_cross = t[k - 1] + (t[k] - t[k - 1]) * h[k - 1] / (h[k - 1] - h[k])
    assert abs(t_cross - T_TOUCH) < 1e-5
    # One impact of about 0.6 ms (the linear oscillator's half period pi / omega_d is 0.608 ms).
    on = np.flatnonzero(fz > 0)
    assert np.all(np.diff(on) == 1)
    duration = t[on[-1]] - t[on[0] - 1]
    assert 0.55e-3 < duration < 0.7e-3
    # The rebound ratio the dissipation was tuned to, the velocity carried back to the touch.
    e = (v[-1, 1] + g * (t[-1] - T_TOUCH)) / -V_TOUCH[1]
    assert abs(e - S.REBOUND) < 5e-4
    # No friction, contact under the centre: x momentum kept, no spin.
    assert np.all(v[:, 0] == 0.5)
    assert np.all(v[:, 2] == 0.0)


def test_rebound_of_the_continuous_law():
    """SAP's contact force k (x + tau_d xdot)_+ rebounds exactly like a linear oscillator
    (the clamp acts where x + tau_d xdot = 0, both ends): tau_d = 2 zeta / sqrt(k / m) gives
    0.59. csim at dt approaches it from below as dt shrinks."""
    zeta = -math.log(S.REBOUND) / math.sqrt(math.pi ** 2 + math.log(S.REBOUND) ** 2)
    tau = 2 * zeta / math.sqrt(S.STIFFNESS / S.MASS)
    es = [S.rebound_ratios([S.Contact("sap", 0.0, tau)], dt=dt, csim=CSIM)[0]
          for dt in (1e-5, 5e-6, 2.5e-6)]
    assert es[0] < es[1] < es[2] < S.REBOUND
    assert S.REBOUND - es[2] < 0.015
    assert S.REBOUND - es[0] > 0.03  # why the set tunes tau_d at its own dt


def test_tuned_dissipation(tuned_tau):
    assert abs(tuned_tau - TAU_D) < 1e-3 * TAU_D
    e = S.rebound_ratios([S.Contact("sap", 0.0, tuned_tau)], csim=CSIM)[0]
    assert abs(e - S.REBOUND) < 1e-4


def test_back_propagation_lands_on_the_plane():
    rng = np.random.default_rng(5)
    touch = S.sample_touch_states(6, rng)
    T = 0.02
    q0 = np.array([S.ballistic(S.touch_pose(s[0]), s[1:], -T)[0] for s in touch])
    v0 = np.array([S.ballistic(S.touch_pose(s[0]), s[1:], -T)[1] for s in touch])
    contacts = [S.Contact("lagged", 0.2, D_HC)] * 6
    run = S.run_scene(S.scene_yaml(q0, v0, contacts, duration=0.0203), CSIM)
    h = S.lowest_height(run.q)  # (rows, n)
    for i in range(6):
        k = int(np.flatnonzero(h[:, i] <= 0)[0])
        t_cross = run.t[k - 1] + 1e-5 * h[k - 1, i] / (h[k - 1, i] - h[k, i])
        assert abs(t_cross - T) < 2e-6, i
        assert np.all(h[run.t < T - 1e-4, i] > 0)


def test_batch_drops_do_not_interact():
    rng = np.random.default_rng(7)
    n = 5
    touch = S.sample_touch_states(n, rng)
    T = 0.01
    states = [S.ballistic(S.touch_pose(s[0]), s[1:], -T) for s in touch]
    q0 = np.array([s[0] for s in states])
    v0 = np.array([s[1] for s in states])
    contacts = [S.Contact("sap", mu, TAU_D) for mu in (0.05, 0.1, 0.2, 0.3, 0.4)]
    batch = S.run_scene(S.scene_yaml(q0, v0, contacts, duration=0.02, every=10), CSIM)
    for i in (0, 3, 4):
        # Alone at its own place: the same bits.
        alone = S.run_scene(S.scene_yaml(q0[i:i + 1], v0[i:i + 1], contacts[i:i + 1],
                                         duration=0.02, every=10, slots=[i]), CSIM)
        assert np.array_equal(alone.q[:, 0], batch.q[:, i])
        assert np.array_equal(alone.v[:, 0], batch.v[:, i])
        # Alone and moved out of the plane: round-off of the offset only.
        moved = S.run_scene(S.scene_yaml(q0[i:i + 1], v0[i:i + 1], contacts[i:i + 1],
                                         duration=0.02, every=10), CSIM)
        np.testing.assert_allclose(moved.q[:, 0], batch.q[:, i], rtol=0, atol=1e-12)
        np.testing.assert_allclose(moved.v[:, 0], batch.v[:, i], rtol=0, atol=1e-12)


@pytest.fixture(scope="module")
def noisy_set(tuned_tau):
    return S.make_drops(n=60, seed=11, dissipation=tuned_tau, mu="random", csim=CSIM)


def test_parabola_fits_within_noise(noisy_set):
    drops = noisy_set.drops
    assert len(drops) >= 55
    z_i = np.array([(d.v_i - d.truth["v_i"]) / d.truth["sigma_i"] for d in drops])
    z_f = np.array([(d.v_f - d.truth["v_f"]) / d.truth["sigma_f"] for d in drops])
    for z in (z_i, z_f):
        rms = np.sqrt(np.mean(z ** 2, axis=0))
        assert np.all((rms > 0.7) & (rms < 1.35)), rms
        assert np.abs(z).max() < 4.5
    # The noise-derived standard deviations themselves: ~14 mm/s and ~0.34 rad/s.
    s = drops[0].truth["sigma_i"]
    assert 0.01 < s[0] < 0.02 and 0.25 < s[2] < 0.45
    # The estimated impact time is within 0.3 ms of the touch.
    dt_c = np.array([d.truth["t_c"] - d.truth["t_touch"] for d in drops])
    assert np.abs(dt_c).max() < 3e-4


def test_noise_free_set_is_exact_and_keeps_x_momentum(tuned_tau):
    data = S.make_drops(n=12, seed=3, dissipation=tuned_tau, mu=0.0, noise=False, csim=CSIM)
    assert len(data.drops) >= 9
    for d in data.drops:
        # The exact parabola is fitted exactly, up to the touch time the discrete
        # trajectory gives (a few microseconds: g * 4e-6 s in ydot).
        np.testing.assert_allclose(d.v_i, d.truth["v_i"], atol=1e-4)
        np.testing.assert_allclose(d.v_f, d.truth["v_f"], atol=1e-4)
        assert abs(d.truth["v_f"][0] - d.truth["v_i"][0]) < 1e-12  # mu = 0
        assert np.linalg.norm(d.J[0] - [1, 0, d.q_i[1]]) < 1e-3  # tangent row, r_y = -height


def test_identification_recovers_noise_free_truth(tuned_tau):
    data = S.make_drops(n=6, seed=4, dissipation=tuned_tau, mu=0.0, noise=False, csim=CSIM)
    fit = compliant.identify(data.drops, "sap", mu_grid=[0.0, 0.1, 0.2],
                             x_grid=compliant.prior_dissipation("sap") * np.array([0.5, 1.0, 2.0]),
                             refine=15, csim=CSIM)
    mu, tau = fit.batch
    assert mu < 2e-3
    assert abs(tau / tuned_tau - 1) < 5e-3
    assert np.all(fit.ended)
    assert np.max(fit.err_batch) < 2e-3
    # The truth's own parameters predict the truth, up to the start state the fits give
    # (the discrete flight trails the parabola by g t dt / 2, a few micrometres).
    assert np.max(fit.err_truth) < 1.5e-3


def test_compliant_prediction_at_truth_matches_noise_floor(noisy_set):
    """At the true parameters the same model predicts the measured v_f up to the noise of
    the two fits."""
    drops = noisy_set.drops[:20]
    mu = np.array([d.truth["mu"] for d in drops])
    tau = np.array([d.truth["dissipation_time"] for d in drops])
    p = compliant.predict(drops, "sap", mu, tau, csim=CSIM)
    assert np.all(p.ended)
    err = compliant.errors(drops, p.v)
    floor = np.array([np.linalg.norm(d.metric * np.hypot(d.truth["sigma_i"], d.truth["sigma_f"]))
                      for d in drops])
    assert np.mean(err) < 1.5 * np.mean(floor)
