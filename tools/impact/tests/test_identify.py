"""Tests of impact/identify.py: recovery of known (mu, e) (paper eqs. 8-9), mu_s, the
uncertainty estimates, the predictive range (Tab. 2) and the ensemble study (Fig. 7b)."""
import numpy as np
import pytest

from impact import identify
from impact.contact_space import sticking_impulse
from impact.data import synthetic_ellipse_drops
from impact.drop import Drop
from impact.laws import LAWS

E_TRUE = 0.6
SAT_LAWS = ("ap_newton", "ap_poisson", "drumwright_shell", "whittaker")  # stuck = saturated


def _geometry(n, seed):
    """n ellipse drops (only their geometry and v_i are used)."""
    return synthetic_ellipse_drops(n, "ap_newton", 0.2, 0.5, np.random.default_rng(seed))


def _drop_from_law(d: Drop, law, mu, e, sigma_v=None, rng=None) -> Drop:
    """d with v_f produced by law(mu, e), optionally with noise on v_i and v_f."""
    space = d.space()
    v_f = space.post_velocity(d.v_i, LAWS[law](space.W, space.contact_velocity(d.v_i), mu, e))
    v_i = d.v_i
    if sigma_v is not None:
        v_i = v_i + rng.normal(0.0, sigma_v)
        v_f = v_f + rng.normal(0.0, sigma_v)
    return Drop(d.mass, d.inertia, d.J, v_i, v_f, d.q_i, {"mu": mu, "e": e})


def _mu_s(d: Drop, law, e):
    space = d.space()
    return identify.stick_limit(law, space.W, space.contact_velocity(d.v_i), e)


def test_stick_limit_of_ap_newton_and_whittaker_is_the_cone_ratio_of_the_sticking_impulse():
    """Both stick iff |P^N_t| <= mu P^N_n, so mu_s = |P^N_t(e)| / P^N_n(e) exactly."""
    for d in _geometry(5, 1):
        space = d.space()
        vc = space.contact_velocity(d.v_i)
        for e in (0.0, 0.6, 1.0):
            PN = sticking_impulse(space.W, vc, e)
            for law in ("ap_newton", "whittaker"):
                assert _mu_s(d, law, e) == pytest.approx(abs(PN[0]) / PN[1], rel=1e-8)
        # AP Poisson sticks when its compression phase (AP Newton at e = 0) does.
        assert _mu_s(d, "ap_poisson", 0.7) == pytest.approx(_mu_s(d, "ap_newton", 0.0), rel=1e-9)


@pytest.mark.parametrize("law", sorted(LAWS))
def test_recovers_parameters_of_sliding_drops_exactly(law):
    for d in _geometry(4, 2):
        mu_true = 0.5 * _mu_s(d, law, E_TRUE)   # below mu_s: the drop slides
        fit = identify.fit_drop(_drop_from_law(d, law, mu_true, E_TRUE), law)
        assert not fit.mu_lower_bound
        assert fit.mu == pytest.approx(mu_true, abs=1e-7)
        assert fit.e == pytest.approx(E_TRUE, abs=1e-7)
        assert fit.relative_residual < 1e-9
        assert identify.in_range(fit)


@pytest.mark.parametrize("law", sorted(LAWS))
def test_sticking_drops_bound_mu_from_below(law):
    for d in _geometry(4, 3):
        mu_s = _mu_s(d, law, E_TRUE)
        mu_true = min(mu_s + 0.1, 0.5 * (mu_s + identify.mu_cap(d.space().W)))
        if mu_true <= mu_s * 1.01:
            continue  # no room above mu_s for this drop
        fit = identify.fit_drop(_drop_from_law(d, law, mu_true, E_TRUE), law)
        assert fit.mu <= mu_true + 1e-9          # a lower bound only
        if law in SAT_LAWS:
            # The stuck impulse no longer depends on mu: the fit ends at mu_s, flagged,
            # and e is still identified.
            assert fit.mu_lower_bound
            assert fit.mu == pytest.approx(mu_s, abs=1e-7)
            assert fit.e == pytest.approx(E_TRUE, abs=1e-7)


@pytest.mark.parametrize("law", ["ap_newton", "wang_mason"])
def test_noisy_fits_lie_within_the_reported_uncertainty(law):
    """Over many seeds the delta-method sigma describes the scatter: |z| < 3 for most fits
    and mean z^2 near 1."""
    sigma_v = np.array([0.004, 0.004, 0.2])    # m/s, m/s, rad/s
    z = []
    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        d = _geometry(1, 100 + seed)[0]
        mu_true = 0.5 * _mu_s(d, law, E_TRUE)
        noisy = _drop_from_law(d, law, mu_true, E_TRUE, sigma_v, rng)
        fit = identify.fit_drop(noisy, law, sigma_v=sigma_v)
        assert not fit.mu_lower_bound and np.all(np.isfinite(fit.std))
        z.append([(fit.mu - mu_true) / fit.std[0], (fit.e - E_TRUE) / fit.std[1]])
    z = np.array(z)
    assert np.mean(np.abs(z) < 3.0, axis=0).min() >= 0.9
    assert np.all((np.mean(z ** 2, axis=0) > 0.4) & (np.mean(z ** 2, axis=0) < 2.0))
    assert np.abs(z).max() > 0.1  # the noise did move the fits


def test_batch_fit_recovers_parameters_and_gauss_newton_std_covers_the_error():
    base = _geometry(30, 4)
    clean = [_drop_from_law(d, "ap_newton", 0.15, 0.55) for d in base]
    fit = identify.fit_batch(clean, "ap_newton")
    assert fit.mu == pytest.approx(0.15, abs=1e-7) and fit.e == pytest.approx(0.55, abs=1e-7)
    rng = np.random.default_rng(5)
    sigma_v = np.array([0.01, 0.01, 0.5])
    noisy = [_drop_from_law(d, "ap_newton", 0.15, 0.55, sigma_v, rng) for d in base]
    fit = identify.fit_batch(noisy, "ap_newton")
    assert fit.method == "gauss-newton" and np.all(np.isfinite(fit.std))
    assert abs(fit.mu - 0.15) < 3 * fit.std[0] and abs(fit.e - 0.55) < 3 * fit.std[1]
    boot = identify.bootstrap_batch(noisy[:12], "ap_newton", n_boot=8,
                                    rng=np.random.default_rng(0))
    assert boot.method == "bootstrap" and np.all(boot.std > 0)


def test_predictive_range_excludes_friction_overshoot():
    """AP Newton's friction never overshoots the line of sticking: its final slip is zero or
    opposes the sticking impulse P^N_t (docs/design/impact-identification.md §11). A drop
    with more tangential impulse than sticking needs lies outside its range; one the law
    produced, inside (paper Tab. 2)."""
    fits_in, fits_out = [], []
    for d in _geometry(4, 6):
        space = d.space()
        vc = space.contact_velocity(d.v_i)
        fits_in.append(identify.fit_drop(_drop_from_law(d, "ap_newton", 0.1, 0.5), "ap_newton"))
        target = sticking_impulse(space.W, vc, 0.5) * [1.5, 1.0]
        back = Drop(d.mass, d.inertia, d.J, d.v_i, space.post_velocity(d.v_i, target))
        fits_out.append(identify.fit_drop(back, "ap_newton"))
    assert identify.range_fraction(fits_in) == 1.0
    assert identify.range_fraction(fits_out) == 0.0


def test_ensemble_convergence_rows():
    rng = np.random.default_rng(8)
    sigma_v = np.array([0.02, 0.02, 1.0])
    drops = [_drop_from_law(d, "whittaker", 0.12, 0.5, sigma_v, rng) for d in _geometry(24, 9)]
    rows = identify.ensemble_convergence(drops, "whittaker", ks=(4, 20), n_sets=4,
                                         rng=np.random.default_rng(1))
    assert [r["k"] for r in rows] == [4, 20]
    assert all(r["mu"].shape == (4,) and np.isfinite(r["e_std"]) for r in rows)
    # More drops, less spread (paper Fig. 7b).
    assert rows[1]["e_std"] < rows[0]["e_std"]


def test_figures_and_tables_from_fits(tmp_path):
    """analysis_plots turns fits into Figs. 7, 8, 10 and Tabs. 1, 2 (smoke test)."""
    from impact import analysis_plots, bounds
    drops = [_drop_from_law(d, "ap_newton", 0.15, 0.5, np.array([0.01, 0.01, 0.5]),
                            np.random.default_rng(2)) for d in _geometry(8, 10)]
    batch = {law: identify.fit_batch(drops, law) for law in ("ap_newton", "whittaker")}
    errors = bounds.law_errors(drops, {k: (b.mu, b.e) for k, b in batch.items()})
    rows = analysis_plots.table1(batch, errors)
    assert sum(r["best_pct"] for r in rows) == pytest.approx(100.0)
    md, path_csv = analysis_plots.write_table(rows, tmp_path / "table1")
    assert md.read_text().count("\n") == 2 + len(rows) and path_csv.exists()
    fits = identify.fit_drops(drops, "ap_newton")
    analysis_plots.write_table(analysis_plots.table2({"ap_newton": identify.range_fraction(fits)}),
                               tmp_path / "table2")
    errors["irb"] = [bounds.irb_bound(d).error for d in drops]
    for fig in (analysis_plots.plot_cost_landscape(drops, "ap_newton", n=9, fit=batch["ap_newton"]),
                analysis_plots.plot_error_densities(errors),
                analysis_plots.plot_drop_parameters(fits)):
        fig.savefig(tmp_path / "fig.png")
