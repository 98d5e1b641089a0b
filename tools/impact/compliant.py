"""csim's compliant contact models as impact laws: identify (mu, dissipation) through csim
runs and predict each drop's post-impact velocity (docs/design/impact-synthetic.md §5).

The rigid laws of Fazeli et al. (2020) map (v_i, mu, e) to v_f algebraically. A compliant
model instead integrates the contact through the impact: csim's `sap` (Kelvin-Voigt k, tau_d),
`lagged` and `similar` (Hunt & Crossley k, d), each with Coulomb friction mu. Here every
drop is simulated by csim from its measured pre-impact pose and velocity (Drop.q_i, v_i at
the estimated impact time), all drops of a batch in one run, each on its own joint with its
own material (so one run can give every drop different parameters). The prediction is the
velocity once the contact is over, carried back to the impact time by gravity: exactly the
quantity the post-impact parabola fit estimates (the ballistic velocity at the impact
time), without the fit's noise.

Identification: a grid over (mu, dissipation) at fixed stiffness, one csim run per grid
point simulating every drop, gives every drop's error at every point; the per-drop best and
the batch best (lowest mean error) come from the same runs. Each is then refined by a
compass search (again one run per trial point, all drops at once; per-drop searches move
every drop's own point in the same run). Stiffness stays fixed: for a linear contact the
rebound depends on tau_d sqrt(k) only, and 250 Hz data cannot see the contact's duration.

Error metric: bounds.velocity_error, ||K^1/2 (v_pred - v_f)||, K = diag(1, 1, k_g^2).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from . import synthetic
from .bounds import velocity_error
from .synthetic import GRAVITY, Contact, ballistic, run_scene, scene_yaml

# Time simulated before the estimated impact time (the pose is carried back ballistically)
# and after it: the paper leaves out 2 samples (8 ms at 250 Hz) after the impact, so a
# contact that is still going on (or happens again) within 8 ms is part of the impact.
LEAD = 5.0e-4
AFTER = 8.0e-3
RECORD = 1.0e-4        # s between recorded rows
FLIGHT_CHECK = 1.0e-3  # the last 1 ms must be free flight
MU_BOUNDS = (0.0, 0.6)
# The refinement stops when its steps are below these: friction, and ln(dissipation).
MU_TOL, LOG_X_TOL = 1.0e-3, 2.0e-3


@dataclass
class Prediction:
    """Predicted post-impact velocities (n, 3) of a batch, and per drop whether the contact
    had ended (free flight over the last FLIGHT_CHECK) when it was read."""

    v: np.ndarray
    ended: np.ndarray
    wall: float


def predict(drops, model: str, mu, dissipation, k: float = synthetic.STIFFNESS,
            dt: float = synthetic.DT, csim: str | None = None) -> Prediction:
    """Post-impact velocities of `drops` under csim's `model` with friction mu and
    dissipation (tau_d [s] for sap, d [s/m] otherwise), each a number or one value per drop,
    at pair stiffness k; one csim run. Each drop starts LEAD before its impact time from the
    pose touching the ground at its measured angle q_i[2] and its measured velocity v_i,
    carried back ballistically. The body is synthetic.py's ellipse (the paper's; its
    inertia within 5 %, since recorded data may state k_g rounded)."""
    n = len(drops)
    mus = np.broadcast_to(np.asarray(mu, dtype=float), (n,))
    xs = np.broadcast_to(np.asarray(dissipation, dtype=float), (n,))
    q0 = np.zeros((n, 3))
    v0 = np.zeros((n, 3))
    for i, d in enumerate(drops):
        if d.q_i is None:
            raise ValueError("compliant.predict needs the pose at impact (Drop.q_i)")
        if abs(d.mass / synthetic.MASS - 1) > 1e-3 or abs(d.inertia / synthetic.INERTIA - 1) > 0.05:
            raise ValueError("compliant.predict simulates the ellipse of synthetic.py only")
        # Touching at the measured angle: only theta (and x) of q_i are used, so that a
        # pose whose height carries an offset (as in recorded data) still touches.
        touch = synthetic.touch_pose(float(d.q_i[2]), float(d.q_i[0]))
        q0[i], v0[i] = ballistic(touch, d.v_i, -LEAD)
    contacts = [Contact(model, float(m), float(x), k) for m, x in zip(mus, xs)]
    every = max(1, int(round(RECORD / dt)))
    steps = int(math.ceil((LEAD + AFTER) / (every * dt))) * every
    run = run_scene(scene_yaml(q0, v0, contacts, dt=dt, duration=steps * dt, every=every,
                               name="compliant_predict"), csim)
    t, v = run.t, run.v
    v_end = v[-1] + np.array([0.0, GRAVITY * (t[-1] - LEAD), 0.0])
    m = max(1, int(round(FLIGHT_CHECK / (every * dt))))
    dv = np.diff(v[-m - 1:], axis=0)
    g_step = np.array([0.0, -GRAVITY * every * dt, 0.0])
    ended = np.all(np.abs(dv - g_step) < 1e-9, axis=(0, 2))
    return Prediction(v_end, ended, run.wall)


def errors(drops, v_pred) -> np.ndarray:
    """(n,) velocity_error of each drop's prediction [m/s]."""
    return np.array([velocity_error(d, vp) for d, vp in zip(drops, v_pred)])


@dataclass
class ModelFit:
    """Identification and prediction of one compliant model on a batch of drops.

    batch      (mu, dissipation) with the lowest mean error over the batch
    per_drop   (n, 2) each drop's own best (mu, dissipation)
    err_batch  (n,) errors at the batch parameters [m/s]
    err_drop   (n,) errors at each drop's own parameters [m/s]
    err_truth  (n,) errors at the true parameters (synthetic drops of this model), or None
    grid_mu, grid_x, grid_err   the grid and every drop's error there (n_mu, n_x, n)
    runs, wall  csim runs made and their total wall time [s]
    ended      (n,) whether the contact had ended at the batch parameters
    """

    model: str
    k: float
    batch: tuple
    per_drop: np.ndarray
    err_batch: np.ndarray
    err_drop: np.ndarray
    err_truth: np.ndarray | None
    grid_mu: np.ndarray
    grid_x: np.ndarray
    grid_err: np.ndarray
    runs: int
    wall: float
    ended: np.ndarray
    dissipation_name: str = "tau_d"
    settings: dict = field(default_factory=dict)

    def summary(self) -> dict:
        """One row of a table: the model, batch parameters, and error statistics [m/s]."""
        row = {"model": self.model, "k": self.k, "mu_batch": self.batch[0],
               f"{self.dissipation_name}_batch": self.batch[1],
               "err_batch_mean": float(np.mean(self.err_batch)),
               "err_batch_median": float(np.median(self.err_batch)),
               "err_drop_mean": float(np.mean(self.err_drop)),
               "err_drop_median": float(np.median(self.err_drop)),
               "runs": self.runs, "wall_s": self.wall}
        if self.err_truth is not None:
            row["err_truth_mean"] = float(np.mean(self.err_truth))
        return row


def prior_dissipation(model: str, k: float = synthetic.STIFFNESS, e: float = 0.6,
                      speed: float = synthetic.TUNE_SPEED, mass: float = synthetic.MASS) -> float:
    """A starting value of the dissipation for a rebound ratio e, from the continuous laws
    alone (no csim run, no drop): SAP's Kelvin-Voigt contact rebounds at
    exp(-zeta pi / sqrt(1 - zeta^2)), zeta = tau_d sqrt(k / m) / 2, exactly (doc §2); a
    linear Hunt & Crossley contact at about 0.6 for d v = 1 (doc §2), so d = 1 / speed."""
    if model == "sap":
        zeta = -math.log(e) / math.sqrt(math.pi ** 2 + math.log(e) ** 2)
        return 2.0 * zeta / math.sqrt(k / mass)
    return 1.0 / speed


class _Evaluator:
    """Counts csim runs; evaluates per-drop parameters into per-drop errors."""

    def __init__(self, drops, model, k, dt, csim):
        self.drops, self.model, self.k, self.dt, self.csim = drops, model, k, dt, csim
        self.runs, self.wall = 0, 0.0

    def __call__(self, mu, x):
        p = predict(self.drops, self.model, mu, x, self.k, self.dt, self.csim)
        self.runs += 1
        self.wall += p.wall
        return errors(self.drops, p.v), p


def _compass(evaluate, start, err0, steps, bounds, iterations, shared):
    """Compass search in (mu, ln x) for every row of start (m, 2) at once, one csim run per
    trial direction. shared: one point for all drops (rows of start = 1, objective the
    mean error); else one point per drop (its own error). Returns (points, errors per
    drop at the points, objective per point)."""
    pts = np.array(start, dtype=float)
    err = np.array(err0, dtype=float)

    def objective(e):
        return np.array([e.mean()]) if shared else e

    best = objective(err)
    step = np.tile(np.asarray(steps, dtype=float), (len(pts), 1))
    lo, hi = np.array([bounds[0][0], bounds[1][0]]), np.array([bounds[0][1], bounds[1][1]])
    tol = np.array([MU_TOL, LOG_X_TOL])
    for _ in range(iterations):
        if np.all(step < tol):
            break
        improved = np.zeros(len(pts), dtype=bool)
        for axis in (0, 1):
            for sign in (1.0, -1.0):
                trial = pts.copy()
                trial[:, axis] = np.clip(trial[:, axis] + sign * step[:, axis], lo[axis], hi[axis])
                if np.all(trial == pts):
                    continue
                mu = trial[:, 0] if not shared else trial[0, 0]
                x = np.exp(trial[:, 1]) if not shared else math.exp(trial[0, 1])
                e, _ = evaluate(mu, x)
                f = objective(e)
                better = f < best
                pts[better] = trial[better]
                best[better] = f[better]
                if shared:
                    if better[0]:
                        err = e
                else:
                    err[better] = e[better]
                improved |= better
        step[~improved] *= 0.5
    return pts, err, best


def identify(drops, model: str, k: float = synthetic.STIFFNESS, dt: float = synthetic.DT,
             mu_grid=None, x_grid=None, refine: int = 30, truth: bool = True,
             csim: str | None = None) -> ModelFit:
    """Identifies (mu, dissipation) of csim's `model` on `drops` (see the module doc).

    mu_grid   friction values (default 0 to 0.4 by 0.05)
    x_grid    dissipation values, tau_d [s] or d [s/m] (default 9 log-spaced over a
              factor 16 around prior_dissipation, which knows nothing of the drops)
    refine    at most this many compass-search iterations after the grid (0: grid
              only); it stops when its steps fall below MU_TOL and LOG_X_TOL
    truth     also report the errors at the drops' true parameters (Drop.truth), when
              the drops were simulated with this model
    """
    began = time.monotonic()
    ev = _Evaluator(drops, model, k, dt, csim)
    if mu_grid is None:
        mu_grid = np.linspace(0.0, 0.4, 9)
    if x_grid is None:
        x_grid = prior_dissipation(model, k) * np.logspace(-0.6, 0.6, 9)
    mu_grid, x_grid = np.asarray(mu_grid, float), np.asarray(x_grid, float)
    n = len(drops)
    grid = np.zeros((len(mu_grid), len(x_grid), n))
    for a, mu in enumerate(mu_grid):
        for b, x in enumerate(x_grid):
            grid[a, b], _ = ev(mu, x)
    # Batch best and per-drop best on the grid (the same runs).
    mean = grid.mean(axis=2)
    a, b = np.unravel_index(np.argmin(mean), mean.shape)
    batch = np.array([[mu_grid[a], math.log(x_grid[b])]])
    err_batch = grid[a, b].copy()
    flat = grid.reshape(-1, n)
    best = np.argmin(flat, axis=0)
    ia, ib = np.unravel_index(best, mean.shape)
    per_drop = np.stack([mu_grid[ia], np.log(x_grid[ib])], axis=1)
    err_drop = flat[best, np.arange(n)].copy()
    x_log = np.log(x_grid)
    # The grid's best lies within half a spacing of the optimum (when the grid resolves
    # the valley): the search starts with half-spacings.
    steps = (0.5 * (mu_grid[1] - mu_grid[0]) if len(mu_grid) > 1 else 0.025,
             0.5 * (x_log[1] - x_log[0]) if len(x_grid) > 1 else 0.15)
    bounds = (MU_BOUNDS, (x_log[0] - 2.0, x_log[-1] + 2.0))
    if refine:
        batch, err_batch, _ = _compass(ev, batch, err_batch, steps, bounds, refine, shared=True)
        # A drop's own search starts from the refined batch point when that is better than
        # its grid best, so that its own error is never above its batch error.
        start = err_batch < err_drop
        per_drop[start], err_drop[start] = batch[0], err_batch[start]
        per_drop, err_drop, _ = _compass(ev, per_drop, err_drop, steps, bounds, refine,
                                         shared=False)
    final = predict(drops, model, batch[0, 0], math.exp(batch[0, 1]), k, dt, csim)
    ev.runs += 1
    ev.wall += final.wall
    err_truth = None
    key = synthetic.dissipation_key(model)
    if truth and all(d.truth and d.truth.get("model") == model for d in drops):
        e, _ = ev(np.array([d.truth["mu"] for d in drops]),
                  np.array([d.truth[key] for d in drops]))
        err_truth = e
    fit = ModelFit(model, k, (float(batch[0, 0]), float(math.exp(batch[0, 1]))),
                   np.stack([per_drop[:, 0], np.exp(per_drop[:, 1])], axis=1),
                   errors(drops, final.v), err_drop, err_truth, mu_grid, x_grid, grid,
                   ev.runs, ev.wall, final.ended,
                   "tau_d" if model == "sap" else "d",
                   dict(dt=dt, refine=refine, wall_total=time.monotonic() - began))
    return fit


@dataclass
class Study:
    """The comparison on one synthetic set: the set, and one ModelFit per compliant model."""

    data: synthetic.SyntheticSet
    fits: dict
    wall: float

    def table(self) -> list:
        """Rows for printing: one per model (ModelFit.summary)."""
        return [f.summary() for f in self.fits.values()]


def study(n: int = 40, seed: int = 0, truth_model: str = "sap", mu="batch", noise: bool = True,
          models=synthetic.MODELS, quick: bool = False, csim: str | None = None, **kw) -> Study:
    """Simulates a synthetic set (synthetic.make_drops) and identifies every compliant
    model on it. quick: 8 drops, a 5 x 5 grid and at most 8 refinement iterations
    (about 12 s for the three models); the default (40 drops, 9 x 9 grid, at most 30
    iterations, about 250 csim runs per model) takes 20-30 s per model."""
    began = time.monotonic()
    if quick:
        n = min(n, 8)
    data = synthetic.make_drops(n=n, seed=seed, model=truth_model, mu=mu, noise=noise, csim=csim)
    fits = {}
    for model in models:
        opts = dict(csim=csim)
        if quick:
            opts.update(mu_grid=np.linspace(0.0, 0.4, 5), refine=8,
                        x_grid=prior_dissipation(model) * np.logspace(-0.6, 0.6, 5))
        opts.update(kw)
        fits[model] = identify(data.drops, model, **opts)
    return Study(data, fits, time.monotonic() - began)


def rigid_law_table(drops, laws=None) -> list:
    """The six rigid laws on the same drops, scored like the compliant models: per law the
    batch fit (identify.fit_batch, paper §3.2.1) and per-drop fits (identify.fit_drop,
    eqs. 8-9), and the errors of their predictions; plus the IRB bound (the best any rigid
    point impulse can do). Rows as ModelFit.summary's (dissipation column: e)."""
    from . import identify
    from .bounds import irb_bound
    from .laws import LAWS, predict as law_predict
    rows = []
    for law in (laws or sorted(LAWS)):
        began = time.monotonic()
        b = identify.fit_batch(drops, law)
        err_b = np.array([velocity_error(d, law_predict(law, d.space(), d.v_i, b.mu, b.e))
                          for d in drops])
        err_d = []
        for d in drops:
            f = identify.fit_drop(d, law)
            err_d.append(velocity_error(d, law_predict(law, d.space(), d.v_i, f.mu, f.e)))
        err_d = np.array(err_d)
        rows.append({"model": law, "mu_batch": b.mu, "e_batch": b.e,
                     "err_batch_mean": float(err_b.mean()),
                     "err_batch_median": float(np.median(err_b)),
                     "err_drop_mean": float(err_d.mean()),
                     "err_drop_median": float(np.median(err_d)),
                     "wall_s": time.monotonic() - began})
    irb = np.array([irb_bound(d).error for d in drops])
    rows.append({"model": "irb_bound", "err_drop_mean": float(irb.mean()),
                 "err_drop_median": float(np.median(irb))})
    return rows


def noise_floor(drops) -> np.ndarray:
    """(n,) the error a perfect model would make on synthetic drops: the K-norm of the
    noise-derived standard deviations of v_i and v_f together (Drop.truth sigma_i,
    sigma_f), an order of magnitude, not a bound."""
    return np.array([np.linalg.norm(d.metric * np.hypot(d.truth["sigma_i"], d.truth["sigma_f"]))
                     for d in drops])


def format_table(rows, columns=None) -> str:
    """A plain-text table of rows (dicts) for the command line; numbers with 4 digits."""
    columns = columns or list(dict.fromkeys(k for r in rows for k in r))
    cells = [[(f"{r[c]:.4g}" if isinstance(r.get(c), float) else str(r.get(c, "")))
              for c in columns] for r in rows]
    widths = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(columns)]
    line = lambda xs: "  ".join(x.rjust(w) for x, w in zip(xs, widths))
    return "\n".join([line(columns)] + [line(x) for x in cells])
