"""Identification of a law's (mu, e) from measured impulses (paper eqs. 7-9, §3.2).

docs/design/impact-identification.md §5-§8 has the reasoning; in short:

- Target: the measured impulse P_IRB of each drop (bounds.point_impulse, paper eq. 7).
- Per-drop fit (eqs. 8-9): (mu*, e*) = argmin ||P_IRB - Model(mu, e)||, 0 <= mu <= mu_s(e),
  0 <= e <= 1. mu_s(e) is the smallest mu at which the law sticks for that drop (its
  post-impact slip is zero, or its impulse no longer changes with mu), found by bisection.
  The box [0, mu_cap] x [0, 1] is searched with the law evaluated at min(mu, mu_s(e)),
  which is the constraint of eq. 9 extended flat; a fit that ends at mu_s reports mu as a
  lower bound only (`mu_lower_bound`: mu is unobservable for that drop).
- Batch fit: one (mu, e) for many drops, the sum over drops of the squared eq. 8 residual.
- Search: a coarse grid (the laws are piecewise smooth, so a local method alone can stop at
  a kink or in a flat region), then a bounded trust-region least-squares refinement
  (scipy least_squares, 'trf') from the best grid points.
- Uncertainty: per drop, the delta method through the fit (needs a velocity noise level,
  since two residuals leave no degree of freedom for estimating one); per batch, the
  Gauss-Newton covariance s^2 (J^T J)^-1 with the residual variance, or a bootstrap over drops.

Why squared costs: the per-drop minimiser is the same as with the norm of eq. 8, and for
the batch the sum of squares is the Gaussian maximum-likelihood cost whose Gauss-Newton
covariance has its textbook meaning; a sum of norms (the paper's literal "sum of costs")
is robust to outliers but has no such covariance.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import least_squares

from .bounds import impulse_map, point_impulse
from .drop import Drop
from .laws import LAWS

MU_MAX = 1.0          # default upper end of the mu search [-]
_GRID_MU = 21         # coarse grid, mu direction
_GRID_E = 11          # coarse grid, e direction
_N_STARTS = 2         # local refinements from the best grid points
_STICK_RTOL = 1e-11   # |v_t+| or |P(mu) - P(cap)| relative to |v_c-| or |P(cap)|; roundoff is ~1e-15
_MU_XTOL = 1e-12      # bisection tolerance on mu_s


# --------------------------------------------------------------------------- mu_s ----

def _law(name: str):
    """LAWS[name], returning None where the law is undefined (it raises ValueError there:
    Whittaker's pulling sticking impulse, the Painleve limit). Such (mu, e) lie outside the
    law's range; the fit treats them as a large residual."""
    law = LAWS[name]

    def safe(W, vc, mu, e):
        try:
            return law(W, vc, mu, e)
        except ValueError:
            return None
    return safe


def _gap(P_target, P) -> np.ndarray:
    """Residual P_target - P; a large constant where the law is undefined (P is None)."""
    if P is None:
        return np.full(2, 10.0 * np.linalg.norm(P_target) + 1e-3)
    return P_target - P


def mu_cap(W: np.ndarray, mu_max: float = MU_MAX) -> float:
    """Largest mu searched for one drop: mu_max, kept below the Painleve limit W_nn/|W_tn|.

    Every law needs W_nn - sigma mu W_tn > 0 for both slip directions (the normal velocity
    must grow with the normal impulse while sliding); above that limit they are not unique.
    """
    if W[0, 1] == 0.0:
        return mu_max
    return min(mu_max, 0.999 * W[1, 1] / abs(W[0, 1]))


def _sticks(law, W, vc, mu, e, P_cap) -> bool:
    """The law sticks at mu: zero post-impact slip, or an impulse that no longer moves with mu.

    The second test is what makes eq. 9 meaningful for the Poisson-type laws, whose final
    slip is not zero even when the compression ends stuck.
    """
    P = law(W, vc, mu, e)
    if P is None or P_cap is None:
        return False
    vt_plus = vc[0] + W[0] @ P
    return (abs(vt_plus) <= _STICK_RTOL * np.linalg.norm(vc)
            or np.linalg.norm(P - P_cap) <= _STICK_RTOL * max(np.linalg.norm(P_cap), 1e-300))


def stick_limit(name: str, W: np.ndarray, vc: np.ndarray, e: float,
                mu_max: float = MU_MAX, hi: float | None = None) -> float:
    """mu_s(e): the smallest mu at which law `name` sticks for this drop (paper §3).

    W (2, 2) contact compliance [1/kg], vc (2,) pre-impact contact velocity [m/s], e in
    [0, 1]. Returns mu_cap(W) when the law does not stick below it. `hi`: a mu known to
    stick (skips the scan). Sticking is monotone in mu for the six laws (friction only
    becomes less limiting as mu grows); the coarse scan guards against a small bracket.
    """
    law = _law(name)
    cap = mu_cap(W, mu_max)
    P_cap = law(W, vc, cap, e)
    if P_cap is None:
        return cap  # undefined at this e for every mu: no stick limit to speak of
    if hi is None:
        grid = np.linspace(0.0, cap, 17)
        flags = [_sticks(law, W, vc, m, e, P_cap) for m in grid[:-1]]
        if flags[0]:
            return 0.0
        last_slide = max(i for i, f in enumerate(flags) if not f)
        lo, hi = grid[last_slide], grid[last_slide + 1]
    else:
        lo = 0.0
        if _sticks(law, W, vc, 0.0, e, P_cap):
            return 0.0
    while hi - lo > _MU_XTOL * max(cap, 1.0):
        mid = 0.5 * (lo + hi)
        if _sticks(law, W, vc, mid, e, P_cap):
            hi = mid
        else:
            lo = mid
    return hi


class _ClampedLaw:
    """Model(min(mu, mu_s(e)), e) for one drop: the eq. 9 constraint extended flat.

    Caches mu_s by e, since finite-difference steps in mu reuse it.
    """

    def __init__(self, name: str, W: np.ndarray, vc: np.ndarray, mu_max: float):
        self.name, self.W, self.vc, self.mu_max = name, W, vc, mu_max
        self.law = _law(name)
        self.cap = mu_cap(W, mu_max)
        self._mu_s = {}

    def mu_s(self, e: float, hi: float | None = None) -> float:
        if e not in self._mu_s:
            self._mu_s[e] = stick_limit(self.name, self.W, self.vc, e, self.mu_max, hi)
        return self._mu_s[e]

    def __call__(self, mu: float, e: float) -> np.ndarray:
        mu = min(mu, self.cap)
        P = self.law(self.W, self.vc, mu, e)
        if e in self._mu_s:
            return P if mu <= self._mu_s[e] else self.law(self.W, self.vc, self._mu_s[e], e)
        P_cap = self.law(self.W, self.vc, self.cap, e)
        if not _sticks(self.law, self.W, self.vc, mu, e, P_cap):
            return P  # below mu_s: the constraint is inactive, no bisection needed
        return self.law(self.W, self.vc, self.mu_s(e, hi=mu), e)


# ------------------------------------------------------------------- results ----

@dataclass
class DropFit:
    """Per-drop fit of one law (paper eqs. 8-9).

    mu, e            identified parameters [-]; mu is a lower bound when mu_lower_bound
    mu_s             stick limit mu_s(e*) [-] (the eq. 9 bound at the fitted e)
    mu_lower_bound   the optimum sits at mu_s: any mu >= mu_s fits as well ("mu unobservable")
    residual         ||P_IRB - Model(mu, e)|| [N s]: the distance of P_IRB from the law's range
    P_irb            (2,) target impulse [N s]
    std              (2,) 1-sigma of (mu, e) by the delta method, nan when not computed
                     (no noise level given) or undefined (mu as a lower bound)
    """

    law: str
    mu: float
    e: float
    mu_s: float
    mu_lower_bound: bool
    residual: float
    P_irb: np.ndarray
    std: np.ndarray = field(default_factory=lambda: np.full(2, np.nan))

    @property
    def relative_residual(self) -> float:
        """residual / ||P_IRB|| [-]."""
        return float(self.residual / max(np.linalg.norm(self.P_irb), 1e-300))


@dataclass
class BatchFit:
    """Batch (ensemble) fit of one law (paper §3.2.1).

    mu, e     identified parameters [-]
    rss       sum over drops of ||P_IRB - Model(mu, e)||^2 [N^2 s^2]
    n         number of drops
    std       (2,) 1-sigma of (mu, e); inf along a direction the data do not determine
    method    how std was obtained: 'gauss-newton' or 'bootstrap'
    """

    law: str
    mu: float
    e: float
    rss: float
    n: int
    std: np.ndarray
    method: str = "gauss-newton"


# ----------------------------------------------------------------- per drop ----

def fit_drop(drop: Drop, law: str, *, weighted: bool = False, mu_max: float = MU_MAX,
             sigma_v: np.ndarray | None = None) -> DropFit:
    """Fit (mu, e) of `law` to one drop (paper eqs. 8-9).

    weighted: target impulse from the gyration-weighted eq. 7 instead of eq. 7 as written.
    sigma_v:  (3,) standard deviation of each measured velocity component (xdot [m/s],
              ydot [m/s], omega [rad/s]), the same for v_i and v_f, independent; when given,
              `std` is filled by the delta method (uncertainty_drop).
    """
    space = drop.space()
    W, vc = space.W, space.contact_velocity(drop.v_i)
    P_irb = point_impulse(drop, weighted)
    model = _ClampedLaw(law, W, vc, mu_max)
    resid = lambda x: _gap(P_irb, model(x[0], x[1]))
    # Grid in mu proportional to mu_s(e): the slide region can be a small sliver of
    # [0, mu_cap], and a grid point above mu_s only repeats the one at mu_s.
    mu, e = _minimise(resid, model.cap, lambda e: model.mu_s(e) * np.linspace(0.0, 1.0, _GRID_MU))
    mu_s = model.mu_s(e)
    at_bound = mu >= mu_s * (1.0 - 1e-7) - 1e-12
    mu = min(mu, mu_s)
    fit = DropFit(law, mu, e, mu_s, at_bound,
                  float(np.linalg.norm(resid((mu, e)))), P_irb)
    if sigma_v is not None:
        fit.std = uncertainty_drop(drop, fit, sigma_v, weighted)
    return fit


def fit_drops(drops: list[Drop], law: str, **kw) -> list[DropFit]:
    """fit_drop for every drop (paper Fig. 10)."""
    return [fit_drop(d, law, **kw) for d in drops]


def uncertainty_drop(drop: Drop, fit: DropFit, sigma_v, weighted: bool = False) -> np.ndarray:
    """(2,) 1-sigma of a per-drop fit by the delta method [-].

    The residual r = L (v_f - v_i) - Model(mu, e; v_i) vanishes (or is stationary) at the
    fit; to first order the noise of v_i and v_f moves it by G_f dv_f + G_i dv_i with
    G_f = L, G_i = -L - dModel/dv_i, so Cov(r) = sum G Sigma G^T and the parameters move by
    Cov(mu, e) = (J_th^T Cov(r)^-1 J_th)^-1, J_th = dModel/d(mu, e) (generalised least
    squares). Derivatives by central differences. For a lower-bound mu only e is reported.
    Assumes the noise keeps the drop in the same regime (slide or stick) of the law.
    """
    law = LAWS[fit.law]
    L = impulse_map(drop, weighted)
    Sigma = np.diag(np.asarray(sigma_v, float) ** 2)

    def model(mu, e, v_i):
        return law(drop.space().W, drop.J @ v_i, mu, e)

    J_th = _central_jacobian(lambda x: model(x[0], x[1], drop.v_i), [fit.mu, fit.e], 1e-6)
    dP_dvi = _central_jacobian(lambda v: model(fit.mu, fit.e, v), drop.v_i,
                               1e-6 * max(np.linalg.norm(drop.v_i), 1.0))
    G_i = -L - dP_dvi
    C = L @ Sigma @ L.T + G_i @ Sigma @ G_i.T
    Ci = np.linalg.inv(C)
    if fit.mu_lower_bound:
        j = J_th[:, 1]
        return np.array([np.nan, 1.0 / np.sqrt(j @ Ci @ j)])
    cov = np.linalg.inv(J_th.T @ Ci @ J_th)
    return np.sqrt(np.diag(cov))


# -------------------------------------------------------------------- batch ----

def fit_batch(drops: list[Drop], law: str, *, weighted: bool = False,
              mu_max: float = MU_MAX) -> BatchFit:
    """One (mu, e) for all drops: argmin sum_d ||P_IRB,d - Model_d(mu, e)||^2 (paper §3.2.1).

    mu in [0, mu_max] (kept below each drop's Painleve limit), e in [0, 1]; the law is
    evaluated as is (the per-drop mu_s bound of eq. 9 has no meaning for a shared mu).
    std: Gauss-Newton, s^2 (J^T J)^-1 with s^2 = rss / (2n - 2).
    """
    resid = _batch_residual(drops, law, weighted, mu_max)
    mu, e = _minimise(resid, mu_max)
    r = resid((mu, e))
    rss = float(r @ r)
    Jr = _central_jacobian(resid, [mu, e], 1e-6, lo=[0.0, 0.0], hi=[mu_max, 1.0])
    dof = max(r.size - 2, 1)
    return BatchFit(law, mu, e, rss, len(drops), _gn_std(Jr, rss / dof))


def bootstrap_batch(drops: list[Drop], law: str, n_boot: int = 50,
                    rng: np.random.Generator | None = None, **kw) -> BatchFit:
    """Batch fit with its std from a bootstrap over drops (resampled with replacement)."""
    rng = np.random.default_rng(0) if rng is None else rng
    fit = fit_batch(drops, law, **kw)
    samples = [fit_batch([drops[i] for i in rng.integers(0, len(drops), len(drops))], law, **kw)
               for _ in range(n_boot)]
    std = np.std([[s.mu, s.e] for s in samples], axis=0, ddof=1)
    return BatchFit(law, fit.mu, fit.e, fit.rss, fit.n, std, "bootstrap")


def ensemble_convergence(drops: list[Drop], law: str, ks, n_sets: int = 20,
                         rng: np.random.Generator | None = None, **kw) -> list[dict]:
    """Batch fits over random subsets of size k without replacement (paper Fig. 7b).

    Returns one dict per k: {'k', 'mu_mean', 'mu_std', 'e_mean', 'e_std', 'mu', 'e'} where
    'mu', 'e' are the (n_sets,) fitted values.
    """
    rng = np.random.default_rng(0) if rng is None else rng
    rows = []
    for k in ks:
        fits = [fit_batch([drops[i] for i in rng.choice(len(drops), k, replace=False)], law, **kw)
                for _ in range(n_sets)]
        mu = np.array([f.mu for f in fits])
        e = np.array([f.e for f in fits])
        rows.append({"k": int(k), "mu_mean": mu.mean(), "mu_std": mu.std(ddof=1),
                     "e_mean": e.mean(), "e_std": e.std(ddof=1), "mu": mu, "e": e})
    return rows


def cost_grid(drops: list[Drop], law: str, mus, es, *, weighted: bool = False) -> np.ndarray:
    """(len(mus), len(es)) batch cost sum_d ||P_IRB,d - Model_d(mu, e)||^2 [N^2 s^2] (paper
    Fig. 7a); for a single drop, pass [drop]. Undefined law values count as a large cost."""
    resid = _batch_residual(drops, law, weighted, max(np.max(mus), 1e-12))
    return np.array([[float(np.sum(resid((m, e)) ** 2)) for e in es] for m in mus])


# ---------------------------------------------------------- predictive range ----

RANGE_RTOL = 1e-4
"""A drop lies in a law's predictive range when its per-drop fit residual is at most
RANGE_RTOL ||P_IRB||. The fit residual is the distance from P_IRB to the range (the image
of the eq. 9 box), known to the refinement's tolerance (about 1e-8 relative); 1e-4 is far
above that and far below the percent-level noise of measured impulses, so the test reads
"inside the range" rather than "inside up to noise" (docs/design/impact-identification.md §8)."""


def in_range(fit: DropFit, rtol: float = RANGE_RTOL) -> bool:
    """P_IRB of this drop lies in the law's predictive range (paper Tab. 2)."""
    return fit.relative_residual <= rtol


def range_fraction(fits: list[DropFit], rtol: float = RANGE_RTOL) -> float:
    """Fraction of drops inside the law's predictive range (paper Tab. 2)."""
    return float(np.mean([in_range(f, rtol) for f in fits])) if fits else float("nan")


# ---------------------------------------------------------------- internals ----

def _batch_residual(drops, law_name, weighted, mu_max):
    law = _law(law_name)
    data = []
    for d in drops:
        s = d.space()
        data.append((s.W, s.contact_velocity(d.v_i), point_impulse(d, weighted),
                     mu_cap(s.W, mu_max)))

    def resid(x):
        return np.concatenate([_gap(P, law(W, vc, min(x[0], cap), x[1]))
                               for W, vc, P, cap in data])
    return resid


def _minimise(resid, mu_hi: float, mu_grid=None) -> tuple[float, float]:
    """argmin ||resid(mu, e)||^2 over [0, mu_hi] x [0, 1]: grid, then bounded refinement.

    mu_grid(e): the grid's mu values in the column e (default: uniform on [0, mu_hi]).
    """
    es = np.linspace(0.0, 1.0, _GRID_E)
    if mu_grid is None:
        mu_grid = lambda e: np.linspace(0.0, mu_hi, _GRID_MU)
    mus = np.array([mu_grid(e) for e in es]).T          # (n_mu, n_e)
    cost = np.array([[np.sum(resid((mus[i, j], es[j])) ** 2) for j in range(es.size)]
                     for i in range(mus.shape[0])])
    scale = max(np.sqrt(cost.max()), 1e-300)
    best = None
    for flat in np.argsort(cost, axis=None)[:_N_STARTS]:
        i, j = np.unravel_index(flat, cost.shape)
        sol = least_squares(lambda x: resid(x) / scale, [mus[i, j], es[j]],
                            bounds=([0.0, 0.0], [mu_hi, 1.0]), method="trf",
                            x_scale=[max(mu_hi, 1e-3), 1.0], diff_step=1e-7,
                            ftol=1e-15, xtol=1e-15, gtol=1e-15, max_nfev=200)
        if best is None or sol.cost < best.cost:
            best = sol
    if best.cost * 2 > cost.min() / scale ** 2:  # refinement never beats the grid
        i, j = np.unravel_index(np.argmin(cost), cost.shape)
        return float(mus[i, j]), float(es[j])
    return float(best.x[0]), float(best.x[1])


def _central_jacobian(f, x, h, lo=None, hi=None) -> np.ndarray:
    """Central-difference Jacobian of f at x (one-sided at a bound)."""
    x = np.asarray(x, float)
    cols = []
    for k in range(x.size):
        a, b = x.copy(), x.copy()
        a[k] -= h
        b[k] += h
        if lo is not None and a[k] < lo[k]:
            a[k] = x[k]
        if hi is not None and b[k] > hi[k]:
            b[k] = x[k]
        cols.append((np.asarray(f(b)) - np.asarray(f(a))) / (b[k] - a[k]))
    return np.column_stack(cols)


def _gn_std(Jr: np.ndarray, s2: float) -> np.ndarray:
    """(2,) sqrt(diag(s^2 (J^T J)^-1)); inf for a parameter along a direction J^T J does not see."""
    w, V = np.linalg.eigh(Jr.T @ Jr)
    seen = w > 1e-12 * max(w.max(), 1e-300)
    cov = (V[:, seen] / w[seen]) @ V[:, seen].T * s2
    std = np.sqrt(np.diag(cov))
    blind = np.any(np.abs(V[:, ~seen]) > 1e-6, axis=1)  # touches an unseen direction
    std[blind] = np.inf
    return std
