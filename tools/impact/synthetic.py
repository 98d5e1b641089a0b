"""Synthetic planar ellipse drops simulated by csim: ground truth for the impact lab.

docs/design/impact-synthetic.md explains the set; in short, each drop is the paper's PLA
ellipse (Fazeli et al. 2020, sec. 3: m = 36.4 g, semi-axes 35 x 25 mm) on its own `planar`
joint in the world x-z plane, released so that it touches the ground at a known state
drawn from the paper's measured ranges. csim simulates a whole batch in one run (every
drop on its own joint, 5 cm apart out of the plane, so that the drops are separate
islands), at a fine step, recording every 1/250 s: the samples a 250 Hz motion capture
would give. Noise is added, and the pre- and post-impact velocities are estimated as the
paper did, by parabola fits over the samples on each side of the impact, leaving out the
two samples on each side closest to it. The result is a list of `Drop`s whose `truth`
holds the contact parameters and the exact velocities.

Conventions (impact/drop.py): planar coordinates q = (x, y, theta) with y up (csim's world
z) and theta counter-clockwise (csim's angle about the joint axis, world -y); v = (xdot,
ydot, omega). Requires the csim executable: $CSIM, else build/app/csim of this repository.
"""
from __future__ import annotations

import math
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

import h5py
import numpy as np

from .contact_space import ContactSpace, lowest_point_offset
from .drop import Drop

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# The paper's ellipse (the MIT data set's README): semi-axes in the plane a, b, thickness
# half-width c (out of the plane; it never touches anything), mass, radius of gyration
# k_g = sqrt((a^2 + b^2) / 5) of a uniform ellipse, inertia m k_g^2 about the joint axis.
A, B, C = 0.035, 0.025, 0.010
MASS = 0.0364
K_G = math.sqrt((A * A + B * B) / 5.0)
INERTIA = MASS * K_G ** 2
GRAVITY = 9.81
RATE = 250.0  # Hz, the motion capture rate of the paper's data
# The measured pre-impact ranges (docs/design/impact-synthetic.md §1): angle at touch,
# velocities at touch.
RANGES = {"theta": (-math.pi, math.pi), "xdot": (0.14, 1.13), "ydot": (-2.87, -2.21),
          "omega": (-14.0, 25.0)}
# Measurement noise (an ASSUMPTION: the paper gives none; motion-capture grade).
SIGMA_POS = 2.0e-4   # m
SIGMA_THETA = 5.0e-3  # rad
# Contact parameters of the set: stiffness (ASSUMPTION), batch friction, target rebound
# ratio of a frictionless vertical drop with the contact under the centre of mass, and
# the vertical speed at which that ratio is tuned (the middle of the ydot range).
STIFFNESS = 1.0e6
MU_BATCH = 0.15
MU_RANGE = (0.05, 0.4)
REBOUND = 0.59
TUNE_SPEED = 2.54
DT = 1.0e-5
# The ground's friction: materials combine mu = 2 mu1 mu2 / (mu1 + mu2) (scene-format.md),
# so each drop's material gets object_friction(mu) to make the pair's coefficient mu.
GROUND_FRICTION = 1.0
SPACING = 0.05  # m between neighbouring drops, out of the plane (world y)
MODELS = ("sap", "lagged", "similar")


def dissipation_key(model: str) -> str:
    """The material key of the dissipation `model` reads (docs/scene-format.md): SAP's
    tau_d [s], the Hunt & Crossley d [s/m] of the others."""
    return "dissipation_time" if model == "sap" else "hunt_crossley"


def object_friction(mu: float) -> float:
    """The drop material's friction that, combined with the ground's GROUND_FRICTION,
    gives the pair coefficient mu (harmonic mean; needs mu < 2 GROUND_FRICTION)."""
    if not 0.0 <= mu < 2.0 * GROUND_FRICTION:
        raise ValueError(f"friction {mu} outside [0, {2 * GROUND_FRICTION})")
    return mu * GROUND_FRICTION / (2.0 * GROUND_FRICTION - mu)


def default_csim() -> str:
    return os.environ.get("CSIM") or os.path.join(REPO, "build", "app", "csim")


@dataclass
class Contact:
    """Contact parameters of one drop's pair: model (csim settings.contact_model), friction
    mu of the pair, stiffness k [N/m] of the pair (the ground is rigid), dissipation of the
    pair (tau_d [s] for sap, Hunt & Crossley d [s/m] otherwise)."""

    model: str
    mu: float
    dissipation: float
    k: float = STIFFNESS

    def material(self) -> dict:
        return {"stiffness": self.k, dissipation_key(self.model): self.dissipation,
                "friction": object_friction(self.mu)}

    def as_dict(self) -> dict:
        return {"model": self.model, "mu": self.mu, "k": self.k,
                dissipation_key(self.model): self.dissipation}


# ---------------------------------------------------------------------------------------
# Geometry and ballistic flight

def touch_height(theta) -> np.ndarray:
    """Height [m] of the centre above the ground when the ellipse at angle theta touches."""
    return -lowest_point_offset(A, B, theta)[1]


def lowest_height(q) -> np.ndarray:
    """Height [m] of the lowest point of the ellipse at planar pose(s) q (..., 3)."""
    q = np.asarray(q, dtype=float)
    return q[..., 1] - touch_height(q[..., 2])


def ballistic(q, v, t):
    """Pose and velocity after time t [s] (negative: before) of free flight from (q, v)."""
    q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
    a = np.array([0.0, -GRAVITY, 0.0])
    return q + v * t + 0.5 * a * t * t, v + a * t


def sample_touch_states(n: int, rng: np.random.Generator, ranges: dict = RANGES) -> np.ndarray:
    """(n, 4) states at touch: theta, xdot, ydot, omega, each uniform in `ranges`."""
    cols = [rng.uniform(*ranges[k], size=n) for k in ("theta", "xdot", "ydot", "omega")]
    return np.stack(cols, axis=1)


def touch_pose(theta: float, x: float = 0.0) -> np.ndarray:
    """Pose (x, y, theta) at which the ellipse's lowest point is on the plane."""
    return np.array([x, float(touch_height(theta)), theta])


# ---------------------------------------------------------------------------------------
# Scenes and runs

def scene_yaml(q0, v0, contacts: list[Contact], dt: float = DT, duration: float = 0.1,
               every: int = 1, name: str = "ellipse_drops", contacts_output: bool = False,
               slots=None, shared_material: bool = False) -> str:
    """A csim scene with one ellipse per row of q0 (n, 3) and v0 (n, 3), each on its own
    planar joint (world x-z plane), drop i SPACING * slots[i] out of the plane (slots
    default to 0..n-1), with its own material from contacts[i] (which must share one
    model). Drops never touch each other: each is an island of its own. shared_material:
    one material `m` for every drop (the contacts must then be equal), so that a fit of
    `materials.m.*` (csim fit) fits one set of parameters to the whole batch."""
    q0, v0 = np.atleast_2d(q0), np.atleast_2d(v0)
    n = len(q0)
    models = {c.model for c in contacts}
    if len(contacts) != n or len(models) != 1:
        raise ValueError("scene_yaml: one Contact per drop, all of one model")
    slots = range(n) if slots is None else slots
    if shared_material and any(c != contacts[0] for c in contacts):
        raise ValueError("scene_yaml: a shared material needs equal contacts")
    lines = [f"# {n} planar ellipse drops written by tools/impact/synthetic.py",
             "csim: 1", f"name: {name}", "settings:",
             f"  time_step: {dt!r}", f"  duration: {duration!r}",
             f"  contact_model: {models.pop()}",
             f"  output: {{every: {int(every)}, "
             f"contacts: {'true' if contacts_output else 'false'}}}",
             "materials:",
             f"  ground: {{stiffness: .inf, friction: {GROUND_FRICTION!r}}}"]
    for i, c in enumerate(contacts[:1] if shared_material else contacts):
        m = ", ".join(f"{k}: {v!r}" for k, v in c.material().items())
        lines.append(f"  m{'' if shared_material else i}: {{{m}}}")
    lines += ["world:", "  geometry:", "    - {shape: halfspace, material: ground}", "bodies:"]
    # Inertia about the body axes: the joint axis (body z) carries m k_g^2; the other two
    # are the solid ellipsoid's (they never act).
    ixx, iyy = MASS * (B * B + C * C) / 5, MASS * (A * A + C * C) / 5
    for i in range(n):
        lines.append(f"  - {{name: e{i}, mass: {MASS!r}, "
                     f"inertia: [{ixx!r}, {iyy!r}, {INERTIA!r}, 0, 0, 0], "
                     f"geometry: [{{shape: ellipsoid, radii: [{A!r}, {B!r}, {C!r}], "
                     f"material: m{'' if shared_material else i}}}]}}")
    lines.append("joints:")
    for i, s in zip(range(n), slots):
        q = ", ".join(repr(float(x)) for x in q0[i])
        v = ", ".join(repr(float(x)) for x in v0[i])
        lines.append(f"  - {{name: j{i}, type: planar, parent: world, child: e{i}, "
                     f"collide: true, pose: {{position: [0, {SPACING * s!r}, 0], "
                     f"rpy: [1.5707963267948966, 0, 0]}}, initial: {{q: [{q}], v: [{v}]}}}}")
    return "\n".join(lines) + "\n"


class CsimFailed(RuntimeError):
    pass


@dataclass
class Run:
    """A csim run of n drops: times t (rows,), planar q and v (rows, n, 3), status, the
    wall time of the csim process [s], and (with contacts_output) the per-row contact
    count of each drop (rows, n)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    status: str
    wall: float
    contact_count: np.ndarray | None = None


def run_scene(text: str, csim: str | None = None, workdir: str | None = None, extra=()) -> Run:
    """Runs csim (single-threaded) on scene text; returns the drops' planar states."""
    csim = csim or default_csim()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        scene = os.path.join(tmp, "drops.yaml")
        out = os.path.join(tmp, "drops.h5")
        with open(scene, "w") as f:
            f.write(text)
        began = time.monotonic()
        done = subprocess.run([csim, "run", scene, "-o", out, "-q", "--no-progress",
                               "--threads", "1", *extra], capture_output=True, text=True)
        wall = time.monotonic() - began
        if done.returncode not in (0, 3):
            raise CsimFailed(f"csim failed ({done.returncode}): {done.stderr.strip()}")
        with h5py.File(out, "r") as f:
            n = len(f["time"])
            t = f["time"][:n]
            qs = f["model/joint_q_start"][:]
            vs = f["model/joint_v_start"][:]
            q_all, v_all = f["state/q"][:n], f["state/v"][:n]
            status = f["status"].asstr()[()]
            counts = None
            if "contacts" in f:
                body_b = f["contacts/body_b"][:]
                offset, count = f["contacts/offset"][:n], f["contacts/count"][:n]
                nb = len(qs)
                counts = np.zeros((n, nb), dtype=int)
                for r in range(n):
                    for b_ in body_b[offset[r]:offset[r] + count[r]]:
                        if b_ >= 0:
                            counts[r, b_] += 1
    if status != "completed":
        raise CsimFailed(f"csim run {status}: {done.stderr.strip()}")
    q = np.stack([q_all[:, s:s + 3] for s in qs], axis=1)
    v = np.stack([v_all[:, s:s + 3] for s in vs], axis=1)
    return Run(t, q, v, status, wall, counts)


# ---------------------------------------------------------------------------------------
# Rebound ratio and the tuning of the dissipation

def rebound_ratios(contacts: list[Contact], speed: float = TUNE_SPEED, dt: float = DT,
                   xdot: float = 0.0, csim: str | None = None) -> np.ndarray:
    """Rebound ratio -ydot+ / ydot- of a frictionless-or-not vertical drop with the contact
    under the centre (theta = 0, omega = 0) touching at ydot = -speed, one drop per
    Contact, all in one run. The post-impact velocity is read 3 ms after touch (contact
    has ended) and carried back to the touch instant by gravity."""
    lead, after = 5.0e-4, 3.0e-3
    qt, vt = touch_pose(0.0), np.array([xdot, -speed, 0.0])
    q0, v0 = ballistic(qt, vt, -lead)
    n = len(contacts)
    text = scene_yaml(np.tile(q0, (n, 1)), np.tile(v0, (n, 1)), contacts, dt=dt,
                      duration=lead + after, every=int(round((lead + after) / dt)))
    run = run_scene(text, csim)
    vy = run.v[-1, :, 1] + GRAVITY * (run.t[-1] - lead)
    return vy / speed


def tune_dissipation(model: str, k: float = STIFFNESS, target: float = REBOUND,
                     speed: float = TUNE_SPEED, dt: float = DT, csim: str | None = None,
                     rounds: int = 4, per_round: int = 16) -> tuple[float, float]:
    """The dissipation (tau_d for sap, d for the Hunt & Crossley models) at which a
    frictionless vertical drop (contact under the centre) at `speed` rebounds at `target`.
    A bracketing search: each round simulates per_round candidates in one csim run and
    keeps the bracket around the target. Returns (dissipation, rebound ratio there)."""
    if model == "sap":
        zeta = -math.log(target) / math.sqrt(math.pi ** 2 + math.log(target) ** 2)
        guess = 2 * zeta / math.sqrt(k / MASS)  # exact for the continuous law (doc §2)
    else:
        guess = 1.0 / speed  # d v ~ 1 gives e ~ 0.6 (doc §2)
    lo, hi = guess / 3, guess * 3
    for _ in range(rounds):
        xs = np.linspace(lo, hi, per_round)
        es = rebound_ratios([Contact(model, 0.0, x, k) for x in xs], speed, dt, csim=csim)
        # e falls with dissipation; keep the bracket [x_j, x_j+1] with e_j >= target > e_j+1.
        above = np.flatnonzero(es >= target)
        if above.size == 0 or above[-1] == len(xs) - 1:
            raise RuntimeError(f"tune_dissipation: target {target} outside "
                               f"[{es.min()}, {es.max()}]")
        j = above[-1]
        lo, hi = xs[j], xs[j + 1]
        e_lo, e_hi = es[j], es[j + 1]
    x = lo + (hi - lo) * (e_lo - target) / (e_lo - e_hi)
    return float(x), float(rebound_ratios([Contact(model, 0.0, x, k)], speed, dt, csim=csim)[0])


# ---------------------------------------------------------------------------------------
# Parabola fits

@dataclass
class SideFit:
    """A least-squares polynomial fit of the samples on one side of the impact: coef
    (3, deg+1) per coordinate, highest power first, in time relative to t_ref; cov the
    (deg+1, deg+1) unscaled covariance (XtX)^-1 shared by the coordinates."""

    t_ref: float
    coef: np.ndarray
    cov: np.ndarray

    def q(self, t):
        return np.array([np.polyval(c, t - self.t_ref) for c in self.coef])

    def v(self, t):
        return np.array([np.polyval(np.polyder(c), t - self.t_ref) for c in self.coef])

    def v_sigma(self, t, sigma) -> np.ndarray:
        """Standard deviation of v(t) per coordinate from noise sigma (3,)."""
        deg = self.coef.shape[1] - 1
        s = t - self.t_ref
        g = np.array([(deg - p) * s ** (deg - p - 1) if p < deg else 0.0 for p in range(deg + 1)])
        return np.asarray(sigma) * math.sqrt(g @ self.cov @ g)


def fit_side(t, q, degree: int = 2) -> SideFit:
    """Fits every coordinate of q (m, 3) against t (m,) with a polynomial of `degree` (the
    paper's parabola: 2)."""
    t_ref = float(np.mean(t))
    X = np.vander(np.asarray(t) - t_ref, degree + 1)
    coef, *_ = np.linalg.lstsq(X, q, rcond=None)
    return SideFit(t_ref, coef.T, np.linalg.inv(X.T @ X))


def impact_time(fit: SideFit, t_guess: float) -> float:
    """Time at which the fitted trajectory's lowest point reaches the plane (Newton's
    method from t_guess on the lowest point's height)."""
    t = t_guess
    for _ in range(50):
        h = float(lowest_height(fit.q(t)))
        qd = fit.v(t)
        r_x = lowest_point_offset(A, B, fit.q(t)[2])[0]
        dh = qd[1] + qd[2] * r_x  # the lowest point's normal velocity (envelope rule)
        if dh == 0:
            break
        step = h / dh
        t -= step
        if abs(step) < 1e-12:
            break
    return t


@dataclass
class Estimate:
    """Velocities estimated from 250 Hz samples around one impact."""

    t_c: float          # estimated impact time [s]
    q_i: np.ndarray     # pose at t_c from the pre-impact fit
    v_i: np.ndarray     # pre-impact velocity at t_c
    v_f: np.ndarray     # post-impact velocity at t_c (the post fit carried back to t_c)
    sigma_i: np.ndarray  # noise-derived standard deviations of v_i, v_f
    sigma_f: np.ndarray
    pre: SideFit
    post: SideFit


def estimate(t, q, k_last: int, n_side: int = 16, exclude: int = 2, degree: int = 2,
             sigma=(SIGMA_POS, SIGMA_POS, SIGMA_THETA)) -> Estimate:
    """The paper's processing of one drop's samples t (m,), q (m, 3): k_last is the last
    sample before the impact; the `exclude` samples on each side closest to it are left
    out, the n_side before and after are fitted by polynomials of `degree`; the impact
    time is where the pre-impact fit's lowest point reaches the plane, and both fits'
    velocities are taken there."""
    i0, i1 = k_last - exclude + 1 - n_side, k_last - exclude + 1
    j0, j1 = k_last + 1 + exclude, k_last + 1 + exclude + n_side
    if i0 < 0 or j1 > len(t):
        raise ValueError("estimate: not enough samples on one side of the impact")
    pre = fit_side(t[i0:i1], q[i0:i1], degree)
    post = fit_side(t[j0:j1], q[j0:j1], degree)
    t_c = impact_time(pre, float(t[k_last]))
    return Estimate(t_c, pre.q(t_c), pre.v(t_c), post.v(t_c), pre.v_sigma(t_c, sigma),
                    post.v_sigma(t_c, sigma), pre, post)


# ---------------------------------------------------------------------------------------
# The synthetic set

@dataclass
class SyntheticSet:
    """What make_drops produced: the usable drops, and for every simulated drop the
    truth (states at touch, contacts, exact velocities), the samples and whether it was
    kept (a single impact, seen only between the excluded samples)."""

    drops: list
    contacts: list
    touch: np.ndarray        # (n, 4) theta, xdot, ydot, omega at touch
    t_touch: np.ndarray      # (n,) touch times [s] in the run
    t: np.ndarray            # (rows,) sample times [s]
    q_true: np.ndarray       # (rows, n, 3) noise-free samples
    v_true: np.ndarray       # (rows, n, 3)
    q_meas: np.ndarray       # (rows, n, 3) with noise
    v_f_true: np.ndarray     # (n, 3) exact post-impact velocity carried back to touch
    kept: np.ndarray         # (n,) bool
    estimates: list          # Estimate or None per drop
    settings: dict = field(default_factory=dict)
    wall: float = 0.0        # csim wall time [s]
    scene: str = ""          # the scene text csim ran


def make_drops(n: int = 20, seed: int = 0, model: str = "sap", mu="batch",
               k: float = STIFFNESS, dissipation: float | None = None, noise: bool = True,
               dt: float = DT, n_side: int = 16, exclude: int = 2, degree: int = 2,
               sigma_pos: float = SIGMA_POS, sigma_theta: float = SIGMA_THETA,
               ranges: dict = RANGES, csim: str | None = None, keep_all: bool = False,
               shared_material: bool = False, extra=()) -> SyntheticSet:
    """Simulates n drops in one csim run and returns them as measured.

    model       csim contact model of the ground truth (sap, lagged, similar, ...)
    mu          'batch' (MU_BATCH for every drop), 'random' (uniform in MU_RANGE per drop)
                or a number
    k           pair stiffness [N/m]
    dissipation tau_d [s] (sap) or d [s/m]; None: tuned (tune_dissipation) so that the
                frictionless vertical drop rebounds at REBOUND
    noise       add Gaussian noise sigma_pos to x, y and sigma_theta to theta
    n_side, exclude, degree   the fits (see estimate)
    keep_all    keep drops with more than one impact too (default: they are dropped, as
                the paper's processing rejects them; SyntheticSet.kept says which)
    shared_material  one material `m` for all drops (needs one mu: 'batch' or a number),
                the scene a batch fit by `csim fit --param materials.m.*` reads
    extra       more arguments of the drops' `csim run` (e.g. --set of the solver's
                tolerance; not of the dissipation's tuning runs)
    """
    rng = np.random.default_rng(seed)
    every = int(round(1.0 / (RATE * dt)))
    if abs(every * dt * RATE - 1.0) > 1e-9:
        raise ValueError("dt must divide the sample period 1/250 s")
    period = 1.0 / RATE
    touch = sample_touch_states(n, rng, ranges)
    if isinstance(mu, str):
        mus = (np.full(n, MU_BATCH) if mu == "batch" else rng.uniform(*MU_RANGE, size=n))
    else:
        mus = np.full(n, float(mu))
    if dissipation is None:
        dissipation = tune_dissipation(model, k, dt=dt, csim=csim)[0]
    contacts = [Contact(model, float(m_), float(dissipation), k) for m_ in mus]
    # Touch at T_i = (n_side + exclude + phase_i) periods: the sample phase is uniform.
    phase = rng.uniform(0.0, 1.0, size=n)
    t_touch = (n_side + exclude + phase) * period
    q0 = np.zeros((n, 3))
    v0 = np.zeros((n, 3))
    for i in range(n):
        qt = touch_pose(touch[i, 0])
        vt = np.array([touch[i, 1], touch[i, 2], touch[i, 3]])
        q0[i], v0[i] = ballistic(qt, vt, -t_touch[i])
    rows = n_side + exclude + 1 + exclude + n_side + 1
    duration = rows * period
    text = scene_yaml(q0, v0, contacts, dt=dt, duration=duration, every=every,
                      shared_material=shared_material)
    run = run_scene(text, csim, extra=extra)
    t, q, v = run.t, run.q, run.v
    noise_scale = np.array([sigma_pos, sigma_pos, sigma_theta]) if noise else np.zeros(3)
    q_meas = q + rng.normal(size=q.shape) * noise_scale
    # Free-flight intervals: the velocity changes by exactly -g dt per step in flight.
    dv = np.diff(v, axis=0)
    flight = np.all(np.abs(dv - np.array([0.0, -GRAVITY * period, 0.0])) < 1e-9, axis=2)
    drops, estimates, kept = [], [], np.zeros(n, dtype=bool)
    v_f_true = np.full((n, 3), np.nan)
    sigma = np.array([sigma_pos, sigma_pos, sigma_theta]) if noise else np.full(3, 1e-12)
    for i in range(n):
        k_last = int(np.searchsorted(t, t_touch[i]) - 1)
        # Contact may act only in the intervals the fits leave out:
        # [t_{k-exclude+1}, t_{k+exclude}].
        lo, hi = k_last - exclude + 1, k_last + exclude
        outside = np.ones(len(dv), dtype=bool)
        outside[lo:hi] = False
        single = bool(np.all(flight[outside, i]))
        after = hi  # first sample after the excluded window
        v_f_true[i] = v[after, i] + np.array([0.0, GRAVITY * (t[after] - t_touch[i]), 0.0])
        kept[i] = single
        if not (single or keep_all):
            estimates.append(None)
            continue
        est = estimate(t, q_meas[:, i], k_last, n_side, exclude, degree, sigma)
        estimates.append(est)
        v_i_true = np.array(touch[i, 1:])
        truth = dict(contacts[i].as_dict(), v_i=v_i_true, v_f=v_f_true[i].copy(),
                     q_i=touch_pose(touch[i, 0]), t_touch=float(t_touch[i]),
                     t_c=est.t_c, index=i, single_impact=single,
                     sigma_i=est.sigma_i, sigma_f=est.sigma_f)
        J = ContactSpace.for_ellipse(MASS, INERTIA, A, B, float(est.q_i[2])).J
        drops.append(Drop(MASS, INERTIA, J, est.v_i, est.v_f, est.q_i, truth))
    settings = dict(model=model, k=k, dissipation=float(dissipation), dt=dt, rate=RATE,
                    n_side=n_side, exclude=exclude, degree=degree, noise=noise,
                    sigma_pos=sigma_pos, sigma_theta=sigma_theta, seed=seed, mu=mu,
                    duration=duration)
    return SyntheticSet(drops, contacts, touch, t_touch, t, q, v, q_meas, v_f_true, kept,
                        estimates, settings, run.wall, text)
