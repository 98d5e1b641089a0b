#!/usr/bin/python3
"""`csim fit` on synthetic data with known contact parameters.

1. The impact lab's synthetic ellipse drops (tools/impact/synthetic.py,
   docs/design/impact-synthetic.md), one batch scene with one shared material, made by
   SAP (truth: friction, dissipation_time) and by Lagged (friction, hunt_crossley), fitted
   by `csim fit` from a start 30 % off the truth over the window around the impacts,
   noise-free and with the set's motion-capture noise; against the six rigid laws
   identified (tools/impact/identify.py) on the same drops; every fit then predicts the
   post-impact velocities of held-out drops.
2. A sliding box (scenes/sliding_box.yaml), a ball released with spin that slides then
   rolls (a scene of this script), the bouncing balls (scenes/bouncing_balls.yaml) and the
   falling sphere (scenes/falling_sphere.yaml): data by `csim run` at known parameters,
   noise added, `csim fit`; and the requests `csim fit` refuses (what is unidentifiable).

Writes OUT/fit_synthetic.md and OUT/fit_synthetic.csv (one row per fit).

    tools/fit_synthetic_study.py                      # results/, a few minutes
    tools/fit_synthetic_study.py --quick --out /tmp/fit   # a smoke run
Needs the csim executable: --csim, else $CSIM, else build/app/csim.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import h5py
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from impact import cli, synthetic as S  # noqa: E402
from impact.contact_space import ContactSpace  # noqa: E402
from impact.drop import Drop  # noqa: E402
from impact.laws import LAW_TITLES, LAWS  # noqa: E402

REPO = HERE.parent
SCENES = REPO / "scenes"
TIGHT = ("--set", "settings.solver.relative_tolerance=1e-12")  # what csim fit runs at
OFF_UP, OFF_DOWN = 1.3, 0.7      # the start: friction 30 % high, dissipation 30 % low
SIGMA = 1.0e-3                   # part 2 noise, m on positions and rad on rotations
ROBUST_SMALL = 4                 # drops per batch of the robustness check's small batches
CSIM = None                      # set by main / tests (csim_path())


def csim_path() -> str:
    return CSIM or os.environ.get("CSIM") or str(REPO / "build" / "app" / "csim")


# ------------------------------------------------------------------ csim runs ----

@dataclass
class Fit:
    """One `csim fit`: rc 0 converged, 3 not converged, 1 refused (message)."""

    params: list
    truth: np.ndarray
    start: np.ndarray
    rc: int
    message: str = ""
    status: str = ""
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    se: np.ndarray = field(default_factory=lambda: np.zeros(0))
    verdicts: list = field(default_factory=list)
    iterations: int = 0
    runs: int = 0
    residuals: int = 0
    wall: float = 0.0
    se_known: np.ndarray | None = None   # standard errors from the known noise (drops)
    cost: float = math.nan
    max_step: float = math.nan           # largest accepted ||delta ln p||
    accepted: int = 0                    # accepted trial steps
    flat_trials: int = 0                 # trials that left the cost unchanged (rho = 0)

    @property
    def rel_err(self) -> np.ndarray:
        return (self.values - self.truth) / self.truth

    @property
    def z(self) -> np.ndarray:
        return (self.values - self.truth) / self.se

    def set_args(self) -> list:
        return [a for p, v in zip(self.params, self.values) for a in ("--set", f"{p}={v!r}")]


def run_fit(scene, data, params, truth, start, window=None, extra=(), out=None) -> Fit:
    """`csim fit SCENE --data DATA --param ... --set p=start ... [--window W] -o out`."""
    cmd = [csim_path(), "fit", str(scene), "--data", str(data)]
    for p, s in zip(params, start):
        cmd += ["--param", p, "--set", f"{p}={s!r}"]
    if window:
        cmd += ["--window", window]
    cmd += list(extra)
    out = str(out or Path(data).with_suffix(".fit.h5"))
    if os.path.exists(out):
        os.remove(out)
    cmd += ["-o", out]
    began = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - began
    f = Fit(list(params), np.asarray(truth, float), np.asarray(start, float), done.returncode,
            wall=wall)
    if done.returncode not in (0, 3):
        f.message = done.stderr.strip()
        return f
    m = re.search(r"after (\d+) iterations \((\d+) runs", done.stdout)
    if m:
        f.iterations, f.runs = int(m.group(1)), int(m.group(2))
    with h5py.File(out, "r") as h:
        g = h["fit"]
        f.status = g["status"].asstr()[()]
        f.values = g["values"][:]
        f.se = g["standard_errors"][:]
        f.verdicts = list(g["verdicts"].asstr()[:])
        f.residuals = int(g["summary"][2])
        f.cost = float(g["summary"][0])
        hist = g["history"][:]
        acc = hist[hist[:, 5] == 1, 4] if len(hist) else np.zeros(0)
        f.max_step = float(acc.max()) if len(acc) else 0.0
        f.accepted = int(len(acc))
        f.flat_trials = int(np.sum(hist[:, 3] == 0)) if len(hist) else 0
    return f


def run_csim(scene, out, extra=()) -> None:
    done = subprocess.run([csim_path(), "run", str(scene), "-o", str(out), "-q", "--no-progress",
                           "--threads", "1", *TIGHT, *extra], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"csim run {scene} failed: {done.stderr.strip()}")


def write_csv_data(path, t, q) -> None:
    """The CSV `csim fit --data` reads: rows t, q_0 .. q_{nq-1}."""
    np.savetxt(path, np.column_stack([t, np.reshape(q, (len(t), -1))]), delimiter=",",
               fmt="%.17g", header="t, q_0 ... q_{nq-1}")


# ------------------------------------------------------------------- noise ----

def quat_mul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2],
                    axis=1)


def noisy_free_bodies(q, q_start, sigma, rng) -> np.ndarray:
    """q (rows, nq) of free bodies ([w x y z] quaternion, then position, from each
    q_start) with white noise: positions + N(0, sigma^2) m, orientations rotated by
    Exp(delta), delta ~ N(0, sigma^2 I) rad (so q_meas (-) q is white with sigma in
    every tangent coordinate)."""
    q = np.array(q, float)
    for s in q_start:
        d = rng.normal(size=(len(q), 3)) * sigma
        ang = np.linalg.norm(d, axis=1)
        axis = d / np.where(ang > 0, ang, 1.0)[:, None]
        e = np.column_stack([np.cos(ang / 2), axis * np.sin(ang / 2)[:, None]])
        q[:, s:s + 4] = quat_mul(q[:, s:s + 4], e)
        q[:, s + 4:s + 7] += rng.normal(size=(len(q), 3)) * sigma
    return q


# ------------------------------------------------------------- 1. the drops ----

def pair_mu(material_friction):
    """The pair coefficient of a drop's material against the ground (harmonic mean)."""
    g = S.GROUND_FRICTION
    return 2 * material_friction * g / (material_friction + g)


def drops_window(sset) -> str:
    """From half a sample period before the sample preceding the first touch's excluded
    samples, to the end: the impacts and the flight after them."""
    k = math.floor(sset.t_touch.min() * S.RATE) - sset.settings["exclude"]
    return f"{(k - 0.5) / S.RATE:.6f}:"


def known_noise_se(scene, fit: Fit, data_t, window_t0, sigma_tangent, tmp) -> np.ndarray:
    """Standard errors of the unweighted fit under the known noise (sandwich
    (J^T J)^-1 J^T Sigma J (J^T J)^-1 in ln p), J from a `csim run --sensitivities` at the
    fitted point, whose output rows are the measurement times."""
    out = Path(tmp) / "sens.h5"
    run_csim(scene, out, ["--sensitivities", ",".join(fit.params), *fit.set_args()])
    with h5py.File(out, "r") as h:
        t, dq = h["time"][:], h["sensitivity/dq"][:]
    rows = [int(np.argmin(np.abs(t - x))) for x in data_t if x >= window_t0]
    J = dq[rows] * fit.values                       # (m, nv, np): d e / d ln p
    J = J.reshape(-1, len(fit.params))
    w = np.tile(sigma_tangent, len(rows)) ** 2
    A = np.linalg.inv(J.T @ J)
    cov = A @ (J.T * w) @ J @ A
    return fit.values * np.sqrt(np.diag(cov))


def truth_drops(sset) -> list:
    """The kept drops with their exact pre- and post-impact velocities (the truth)."""
    out = []
    for i in np.flatnonzero(sset.kept):
        theta = float(sset.touch[i, 0])
        J = ContactSpace.for_ellipse(S.MASS, S.INERTIA, S.A, S.B, theta).J
        out.append(Drop(S.MASS, S.INERTIA, J, sset.touch[i, 1:], sset.v_f_true[i],
                        S.touch_pose(theta)))
    return out


def csim_post_velocities(sset, set_args, tmp) -> np.ndarray:
    """Post-impact velocities (kept drops) of the set's scene rerun with `set_args`,
    read as make_drops reads the truth."""
    scene = Path(tmp) / "predict.yaml"
    scene.write_text(sset.scene)
    out = Path(tmp) / "predict.h5"
    run_csim(scene, out, set_args)
    with h5py.File(out, "r") as h:
        t, v_all = h["time"][:], h["state/v"][:]
    ex = sset.settings["exclude"]
    vf = []
    for i in np.flatnonzero(sset.kept):
        after = int(np.searchsorted(t, sset.t_touch[i]) - 1) + ex
        vf.append(v_all[after, 3 * i:3 * i + 3]
                  + np.array([0.0, S.GRAVITY * (t[after] - sset.t_touch[i]), 0.0]))
    return np.array(vf)


def mean_error(drops, v_pred) -> float:
    return float(np.mean([np.linalg.norm(d.metric * (v - d.v_f)) for d, v in zip(drops, v_pred)]))


class DropsFit:
    """A batch of synthetic drops (truth `model`, one shared material) ready for
    `csim fit`: the noise-free and the noisy set (same drops), the scene, the parameters
    (material friction and dissipation), truth, start and window."""

    def __init__(self, model, n, seed, tmp, dissipation=None):
        self.tmp, self.model = Path(tmp), model
        diss = dissipation or S.tune_dissipation(model, csim=csim_path())[0]
        self.key = S.dissipation_key(model)
        self.kw = dict(model=model, mu="batch", dissipation=diss, shared_material=True,
                       csim=csim_path(), extra=TIGHT)
        self.clean = S.make_drops(n, seed, noise=False, **self.kw)
        self.noisy = S.make_drops(n, seed, noise=True, **self.kw)
        assert np.array_equal(self.clean.q_true, self.noisy.q_true)
        self.scene = self.tmp / f"drops_{model}.yaml"
        self.scene.write_text(self.clean.scene)
        self.params = ["materials.m.friction", f"materials.m.{self.key}"]
        self.truth = np.array([S.object_friction(S.MU_BATCH), diss])
        self.start = self.truth * np.array([OFF_UP, OFF_DOWN])
        self.window = drops_window(self.clean)
        self.sigma = np.tile([S.SIGMA_POS, S.SIGMA_POS, S.SIGMA_THETA], n)

    def fit(self, q, name, known=False) -> Fit:
        """csim fit to samples q (rows, n, 3); known: also the known-noise s.e."""
        data = self.tmp / f"{self.model}_{name}.csv"
        write_csv_data(data, self.clean.t, q.reshape(len(self.clean.t), -1))
        f = run_fit(self.scene, data, self.params, self.truth, self.start, self.window)
        if known and f.rc in (0, 3):
            f.se_known = known_noise_se(self.scene, f, self.clean.t,
                                        float(self.window.rstrip(":")), self.sigma, self.tmp)
        return f


def drops_case(model, n_train, n_test, seed, reps, tmp, log=print) -> dict:
    """SAP or Lagged drops: csim fit (noise-free, the set's noisy one, `reps` more noise
    draws), the six laws on the same drops, predictions on held-out drops."""
    tmp = Path(tmp)
    df = DropsFit(model, n_train, seed, tmp)
    clean, noisy, key, params, truth, start = (df.clean, df.noisy, df.key, df.params, df.truth,
                                               df.start)
    window, fit_q = df.window, df.fit
    test = S.make_drops(n_test, seed + 1000, noise=False, **df.kw)
    out = dict(model=model, key=key, truth=truth, start=start, window=window,
               n_train=n_train, n_test=n_test, kept_train=int(clean.kept.sum()),
               kept_test=int(test.kept.sum()), clean_set=clean, test_set=test)
    out["clean"] = fit_q(clean.q_true, "clean")
    log(f"  {model}: noise-free fit {out['clean'].wall:.1f} s, rel. err. "
        f"{np.abs(out['clean'].rel_err).max():.1e}")
    out["noisy"] = fit_q(noisy.q_meas, "noisy", known=True)
    rng = np.random.default_rng(seed + 77)
    scale = np.array([S.SIGMA_POS, S.SIGMA_POS, S.SIGMA_THETA])
    out["reps"] = [fit_q(clean.q_true + rng.normal(size=clean.q_true.shape) * scale, f"rep{r}",
                         known=True) for r in range(reps)]
    log(f"  {model}: {1 + reps} noisy fits done")
    # The six laws on the same (kept) drops, estimated by the paper's parabola fits.
    out["laws_clean"] = cli.fit_laws(clean.drops, list(LAWS), per_drop=False).batch
    out["laws_noisy"] = cli.fit_laws(noisy.drops, list(LAWS), per_drop=False).batch
    # Held-out drops, from their exact pre-impact state.
    held = truth_drops(test)
    pred = {}
    for lab, laws in (("noise-free", out["laws_clean"]), ("noisy", out["laws_noisy"])):
        for law, b in laws.items():
            pred[(law, lab)] = float(np.mean([cli.law_error(d, law, b.mu, b.e) for d in held]))
    for lab, f in (("noise-free", out["clean"]), ("noisy", out["noisy"])):
        pred[("csim", lab)] = mean_error(held, csim_post_velocities(test, f.set_args(), tmp))
    start_args = [a for p, v in zip(params, start) for a in ("--set", f"{p}={v!r}")]
    pred[("csim", "start")] = mean_error(held, csim_post_velocities(test, start_args, tmp))
    out["pred"] = pred
    log(f"  {model}: laws and held-out predictions done")
    return out


def robustness(model, n, seeds, dissipation, tmp) -> list:
    """Noise-free fits of `n`-drop batches (one per seed) from the same 30 % off start:
    how each ends."""
    out = []
    for seed in seeds:
        df = DropsFit(model, n, seed, tmp, dissipation=dissipation)
        f = df.fit(df.clean.q_true, f"robust{n}_{seed}")
        if f.rc not in (0, 3):
            kind = "refused"
        elif np.all(np.abs(f.rel_err) < 1e-6):
            kind = "truth"
        elif f.values[1] < 1e-6 * f.truth[1]:
            kind = "dissipation to 0"
        else:
            kind = "stalled"
        out.append(dict(model=model, n=n, seed=seed, kind=kind, fit=f))
    return out


def span(xs, d=4) -> str:
    """'a to b' of the smallest and largest of xs, or 'a' when they print alike."""
    lo, hi = g(min(xs), d), g(max(xs), d)
    return lo if lo == hi else f"{lo} to {hi}"


def log_fall(f: Fit) -> float:
    """How far the dissipation's ln p fell from the start to the fitted value."""
    return float(math.log(f.start[1] / f.values[1])) if f.values[1] > 0 else math.inf


def robustness_md(rob) -> list:
    L = []
    to_zero = [r for r in rob if r["kind"] == "dissipation to 0"]
    for (model, n) in dict.fromkeys((r["model"], r["n"]) for r in rob):
        rs = [r for r in rob if r["model"] == model and r["n"] == n]
        ok = sum(r["kind"] == "truth" for r in rs)
        bad = []
        for r in rs:
            f = r["fit"]
            if r["kind"] == "dissipation to 0":
                bad.append(f"seed {r['seed']}: dissipation to {g(f.values[1], 2)} in "
                           f"{f.accepted} accepted steps (ln p down by "
                           f"{g(log_fall(f), 3)}), friction {g(f.rel_err[0], 2)} off, cost "
                           f"{g(f.cost, 3)}, `{f.status}`, verdicts {'/'.join(f.verdicts)}, "
                           f"the dissipation's s.e. {g(f.se[1] / f.values[1], 2)} times its "
                           f"value")
            elif r["kind"] != "truth":
                bad.append(f"seed {r['seed']}: `{f.status}` at cost {g(f.cost, 2)} (0 at the "
                           f"truth), relative errors {g(f.rel_err[0], 2)}, {g(f.rel_err[1], 2)}")
        L.append(f"- `{model}`, {n} drops: {ok} of {len(rs)} batches recovered to 1e-6"
                 + ("; " + "; ".join(bad) if bad else "") + ".")
    if to_zero:
        per_step = [log_fall(r["fit"]) / max(r["fit"].accepted, 1) for r in to_zero]
        flagged = sum("no longer acts" in r["fit"].verdicts for r in to_zero)
        exit3 = sum(r["fit"].rc == 3 for r in to_zero)
        flat = [r["fit"].flat_trials for r in to_zero]
        rse = [r["fit"].se[1] / r["fit"].values[1] for r in to_zero]
        cost = [r["fit"].cost for r in to_zero]
        L += ["", f"Where the dissipation ends near 0 ({len(to_zero)} batches), no step took it "
              f"there at once: the trust region on log parameters moves ln p by at most ln 10 "
              f"= 2.303 a trial (docs/design/sensitivities.md, \"The step\"), and ln p fell by "
              f"{span(per_step, 3)} per accepted step on average: "
              f"down a plateau in factor-of-10 steps. The fits end there at a cost of "
              f"{span(cost, 3)} (0 at the truth), after {span(flat)} trials that left the cost "
              f"unchanged to the last bit (rho = 0): the dissipation no longer acts on these "
              f"drops, and the boundary p -> 0 is a local minimum, not the truth (its standard "
              f"error is {span(rse, 2)} times its value). `csim fit` says so: the verdict "
              f"`no longer acts` in {flagged} and exit status 3 in {exit3} of the "
              f"{len(to_zero)} (docs/cli.md)."]
    return L


# --------------------------------------------------------- 2. other scenes ----

BALL_R, BALL_M, BALL_K = 0.025, 0.5, 1.0e4
BALL_MU, BALL_D = 0.4, 1.0


def ball_scene(path) -> None:
    """A rubber-like ball (Lagged, k = 1e4 N/m, d = 1 s/m, mu = 0.4 against a rigid
    ground of the same friction) released 1 cm above the ground spinning at 60 rad/s: it
    lands sliding, bounces a few times and slides until it rolls."""
    Path(path).write_text(f"""# written by tools/fit_synthetic_study.py
csim: 1
name: spinning_ball
settings:
  time_step: 1.0e-3
  duration: 0.5
  contact_model: lagged
materials:
  ground: {{stiffness: .inf, friction: {BALL_MU}}}
  ball: {{stiffness: {BALL_K}, hunt_crossley: {BALL_D}, friction: {BALL_MU}}}
world:
  geometry:
    - {{shape: halfspace, material: ground}}
bodies:
  - name: ball
    mass: {BALL_M}
    geometry: [{{shape: sphere, radius: {BALL_R}, material: ball}}]
    pose: {{position: [0, 0, {BALL_R + 0.01}]}}
    velocity: {{angular: [0, 60.0, 0]}}
""")


def rolling_args() -> list:
    """The ball on the ground at its static overlap, rolling at 0.44 m/s: the contact
    point (the middle of the overlap) at rest."""
    delta = BALL_M * 9.81 / BALL_K
    v = 0.44
    w = v / (BALL_R - delta / 2)
    return ["--set", f"bodies.ball.pose.position=[0,0,{BALL_R - delta!r}]",
            "--set", f"bodies.ball.velocity.linear=[{v},0,0]",
            "--set", f"bodies.ball.velocity.angular=[0,{w!r},0]"]


@dataclass
class Case:
    name: str
    scene: Path
    params: list
    truth: list
    run_extra: tuple = ()     # csim run arguments that make the data
    window: str | None = None
    note: str = ""


def part2_cases(tmp) -> list:
    ball = Path(tmp) / "spinning_ball.yaml"
    ball_scene(ball)
    return [
        Case("sliding box (SAP)", SCENES / "sliding_box.yaml", ["materials.default.friction"],
             [0.5], ("--set", "settings.duration=0.15"),
             note="slides throughout 0.15 s, 16 samples"),
        Case("spinning ball (Lagged)", ball, ["materials.ball.friction",
                                              "materials.ball.hunt_crossley"],
             [BALL_MU, BALL_D], note="lands spinning, bounces, slides, rolls; 501 samples"),
        Case("bouncing balls (Lagged)", SCENES / "bouncing_balls.yaml",
             ["materials.lively.hunt_crossley", "materials.dead.hunt_crossley"], [0.1, 1.0],
             ("--set", "settings.duration=1.0", "--set", "settings.output.every=50"),
             note="1 s at 200 Hz, 201 samples"),
        Case("falling sphere (Lagged)", SCENES / "falling_sphere.yaml",
             ["materials.ground.friction"], [0.5], ("--set", "settings.duration=0.2"),
             note="0.2 s, 101 samples: lands sliding at 2 m/s, rolls from 0.12 s"),
        Case("falling sphere (Lagged), with d", SCENES / "falling_sphere.yaml",
             ["materials.ground.friction", "materials.ground.hunt_crossley"], [0.5, 500.0],
             ("--set", "settings.duration=0.2"),
             note="the same data, friction and the ground's hunt_crossley together"),
    ]


def part2_case(case: Case, reps, seed, tmp, noisy=True) -> dict:
    tmp = Path(tmp)
    stem = re.sub(r"\W+", "_", case.name).strip("_")
    data = tmp / f"{stem}.h5"
    run_csim(case.scene, data, case.run_extra)
    with h5py.File(data, "r") as h:
        t, q = h["time"][:], h["state/q"][:]
        types = [x.decode() if isinstance(x, bytes) else x for x in h["model/joint_types"][:]]
        q_start = [s for s, ty in zip(h["model/joint_q_start"][:], types) if ty == "free"]
    truth = np.array(case.truth, float)
    start = truth * np.array([OFF_UP if p.endswith("friction") else OFF_DOWN
                              for p in case.params])
    out = dict(case=case, samples=len(t))
    out["clean"] = run_fit(case.scene, data, case.params, truth, start, case.window)
    out["reps"] = []
    if noisy:
        rng = np.random.default_rng(seed)
        for r in range(reps):
            csvp = tmp / f"{stem}_noisy{r}.csv"
            write_csv_data(csvp, t, noisy_free_bodies(q, q_start, SIGMA, rng))
            out["reps"].append(run_fit(case.scene, csvp, case.params, truth, start, case.window))
    return out


def refusals(tmp) -> list:
    """Requests `csim fit` refuses before its first iteration: (what, command, message)."""
    tmp = Path(tmp)
    ball = tmp / "spinning_ball.yaml"
    if not ball.exists():
        ball_scene(ball)
    roll = tmp / "rolling_ball.h5"
    run_csim(ball, roll, rolling_args())
    spin = tmp / "spinning_ball_data.h5"
    run_csim(ball, spin)
    balls = tmp / "balls.h5"
    run_csim(SCENES / "bouncing_balls.yaml", balls,
             ("--set", "settings.duration=1.0", "--set", "settings.output.every=50"))
    box = tmp / "box.h5"
    run_csim(SCENES / "sliding_box.yaml", box, ("--set", "settings.duration=0.15"))
    rest = ["--set", "bodies.box.velocity.linear=[0,0,0]"]
    items = [
        ("friction of the ball that only rolls (started rolling)", ball, roll,
         ["--param", "materials.ball.friction", "--set", "materials.ball.friction=0.52",
          *rolling_args()]),
        ("friction of the box at rest", SCENES / "sliding_box.yaml", box,
         ["--param", "materials.default.friction", *rest]),
        ("friction of the bouncing balls (they fall straight)", SCENES / "bouncing_balls.yaml",
         balls, ["--param", "materials.lively.friction", "--set", "materials.lively.friction=0.5",
                 "--set", "materials.floor.friction=0.5"]),
        ("the friction of both materials of the spinning ball's pair", ball, spin,
         ["--param", "materials.ball.friction", "--param", "materials.ground.friction",
          "--set", "materials.ball.friction=0.52"]),
        ("hunt_crossley of the elastic ball (truth 0)", SCENES / "bouncing_balls.yaml", balls,
         ["--param", "materials.elastic.hunt_crossley"]),
        ("the stiffness of the rigid floor (.inf)", SCENES / "bouncing_balls.yaml", balls,
         ["--param", "materials.floor.stiffness"]),
    ]
    out = []
    for what, scene, data, args in items:
        cmd = [csim_path(), "fit", str(scene), "--data", str(data), *args]
        done = subprocess.run(cmd, capture_output=True, text=True)
        shown = " ".join(["csim fit", os.path.relpath(scene, REPO) if str(scene).startswith(
            str(REPO)) else Path(scene).name, "--data", Path(data).name, *args])
        out.append(dict(what=what, command=shown, rc=done.returncode,
                        message=(done.stderr.strip() or done.stdout.strip().splitlines()[1])))
    return out


# -------------------------------------------------------------- markdown ----

def g(x, d=4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    if isinstance(x, (int, np.integer)):
        return str(x)
    x = float(x)
    if x == 0:
        return "0"
    if math.isinf(x):
        return "inf"
    a = abs(x)
    if 1e-3 <= a < 1e5:
        return f"{x:.{d}g}"
    return f"{x:.{max(d - 2, 1)}e}"


def table(heads, rows) -> list:
    return (["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
            + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def short(p) -> str:
    return p.replace("materials.", "")


def fit_rows(label, f: Fit, known=False, z=True) -> list:
    """Table rows of a fit; z (truth's distance in s.e.) only for noisy data."""
    rows = []
    for j, p in enumerate(f.params):
        r = [label if j == 0 else "", f"`{short(p)}`", g(f.truth[j], 6), g(f.start[j], 4),
             g(f.values[j], 8), g(f.se[j], 3)]
        if known:
            r.append(g(f.se_known[j], 3) if f.se_known is not None else "")
        r += [g(f.rel_err[j], 2), g(f.z[j], 2) if z else ""]
        if known:
            r.append(g((f.values[j] - f.truth[j]) / f.se_known[j], 2)
                     if f.se_known is not None and z else "")
        r += [f.status if j == 0 else "", f.iterations if j == 0 else "",
              f.runs if j == 0 else "", f"{f.wall:.2f}" if j == 0 else ""]
        rows.append(r)
    return rows


def coverage(fits, attr="se") -> tuple[int, int, float]:
    """(fits whose truth is within 3 standard errors in every parameter, fits, rms z)."""
    zs = []
    for f in fits:
        se = getattr(f, attr)
        zs.append((f.values - f.truth) / se)
    zs = np.array(zs)
    return int(np.sum(np.all(np.abs(zs) <= 3, axis=1))), len(fits), float(np.sqrt(np.mean(zs ** 2)))


def drops_md(d) -> list:
    model, key = d["model"], d["key"]
    cs = d["clean_set"]
    L = [f"### Truth `{model}`: friction and `{key}`", "",
         f"{d['n_train']} drops ({d['kept_train']} with a single impact) in one scene, seed "
         f"{cs.settings['seed']}; window `--window {d['window']}` (the impacts and the flight "
         f"after them; the touches lie in [{cs.t_touch.min():.4f}, {cs.t_touch.max():.4f}] s), "
         f"{d['clean'].residuals} residuals. Material `m`: friction {g(d['truth'][0], 6)} "
         f"(pair mu {S.MU_BATCH} against the ground's 1.0), `{key}` {g(d['truth'][1], 6)} "
         f"(tuned: rebound {S.REBOUND} of the frictionless central drop at {S.TUNE_SPEED} m/s), "
         f"stiffness {S.STIFFNESS:g} N/m fixed.", ""]
    heads = ["data", "parameter", "truth", "start", "fitted", "s.e. (csim)", "s.e. (known noise)",
             "rel. error", "z (csim)", "z (known)", "status", "iterations", "runs", "wall [s]"]
    rows = (fit_rows("noise-free", d["clean"], known=True, z=False)
            + fit_rows("noisy", d["noisy"], known=True))
    L += table(heads, rows) + [""]
    c1 = coverage(d["reps"])
    c2 = coverage(d["reps"], "se_known")
    med_iter = int(np.median([f.iterations for f in d["reps"]]))
    mean_wall = float(np.mean([f.wall for f in d["reps"]]))
    L += [f"Over {c1[1]} more noise draws on the same drops: truth within 3 s.e. in every "
          f"parameter in {c1[0]} of {c1[1]} fits with csim's s.e. (rms z {c1[2]:.2f}), "
          f"{c2[0]} of {c2[1]} with the known-noise s.e. (rms z {c2[2]:.2f}); median "
          f"{med_iter} iterations, {mean_wall:.1f} s a fit. csim's s.e. is "
          f"{ratio_se(d):.2f} times the known-noise one (median over the draws, both "
          f"parameters); 1/sqrt(3) = {1 / math.sqrt(3):.3f} is the ratio when the theta "
          f"residuals carry all the information, since the pooled variance is then "
          f"(2 sigma_pos^2 + sigma_theta^2) / 3, about sigma_theta^2 / 3 (sigma_theta is "
          f"{S.SIGMA_THETA / S.SIGMA_POS:.0f} times sigma_pos).", ""]
    # laws
    pm = pair_mu(d["clean"].values[0])
    pmn = pair_mu(d["noisy"].values[0])
    L += [f"Identified on the same drops, against the truth (mu {S.MU_BATCH}, rebound ratio "
          f"{S.REBOUND}), and the mean error ||K^1/2 (v_pred - v_f)|| [m/s] of the post-impact "
          f"velocity each predicts for {d['kept_test']} held-out single-impact drops (seed "
          f"{d['test_set'].settings['seed']}) from their exact pre-impact state:", ""]
    heads = ["model", "mu (noise-free)", "e (noise-free)", "mu (noisy)", "s.e.", "e (noisy)",
             "s.e.", "held-out error, noise-free fit", "held-out error, noisy fit"]
    p = d["pred"]
    rows = [[f"`csim fit` ({model})", g(pm), "", g(pmn),
             g(pair_mu_se(d["noisy"]), 2), "", "", g(p[("csim", "noise-free")], 3),
             g(p[("csim", "noisy")], 3)]]
    for law in LAWS:
        bc, bn = d["laws_clean"][law], d["laws_noisy"][law]
        rows.append([LAW_TITLES[law], g(bc.mu), g(bc.e), g(bn.mu), g(bn.std[0], 2), g(bn.e),
                     g(bn.std[1], 2), g(p[(law, "noise-free")], 3), g(p[(law, "noisy")], 3)])
    L += table(heads, rows)
    L += ["", f"`csim` at the start (30 % off): held-out error {g(p[('csim', 'start')], 3)} m/s; "
          f"at the truth it is 0 (the held-out truth is that run).", ""]
    return L


def ratio_se(d) -> float:
    return float(np.median([f.se / f.se_known for f in [d["noisy"], *d["reps"]]]))


def pair_mu_se(f: Fit) -> float:
    """Delta-method s.e. of the pair mu from the material friction's."""
    m, g_ = f.values[0], S.GROUND_FRICTION
    return float(2 * g_ * g_ / (m + g_) ** 2 * f.se[0])


def part2_md(results) -> list:
    heads = ["case", "parameter", "truth", "start", "fitted", "s.e. (csim)", "rel. error",
             "z", "status", "iterations", "runs", "wall [s]"]
    rows = []
    for r in results:
        c = r["case"]
        rows += fit_rows(f"{c.name}, noise-free", r["clean"],
                         z=c.name.endswith("with d"))
        if r["reps"]:
            rows += fit_rows(f"{c.name}, noisy", r["reps"][0])
    L = table(heads, rows) + [""]
    for r in results:
        c = r["case"]
        line = f"- {c.name}: {c.note}."
        if r["reps"]:
            cv = coverage(r["reps"])
            line += (f" Noisy ({len(r['reps'])} draws): truth within 3 s.e. in every parameter "
                     f"in {cv[0]} of {cv[1]} fits, rms z {cv[2]:.2f}.")
        f = r["clean"]
        if "unidentifiable" in " ".join(f.verdicts):
            line += (f" Noise-free verdicts: {', '.join(f.verdicts)}.")
        L.append(line)
    return L


def markdown(out: Path, cmd, drops, rob, p2, refused, args, wall) -> None:
    L = ["# `csim fit` on synthetic data with known parameters", "",
         f"Generated by `{cmd}` ({wall:.0f} s of wall time on this machine, one csim at a "
         f"time). `csim fit` (docs/cli.md, \"fit\"; docs/design/sensitivities.md, \"csim fit\") "
         f"fits material parameters by Levenberg-Marquardt on ln p with forward sensitivities; "
         f"its residuals are q_sim (-) q_meas, unweighted, its standard errors first-order from "
         f"the pooled residual variance. Every start is 30 % off the truth (friction x "
         f"{OFF_UP}, dissipation x {OFF_DOWN}); data are `csim run`s at the truth with "
         f"`solver.relative_tolerance` 1e-12 (what `csim fit` runs at). z = (fitted - truth) / "
         f"s.e. Rows of every fit: `fit_synthetic.csv`.", "",
         "## 1. The impact lab's ellipse drops", "",
         "The paper's ellipse (Fazeli et al. 2020) dropped on a rigid ground, each drop on its "
         "own planar joint, all in one scene (`tools/impact/synthetic.py`, "
         "docs/design/impact-synthetic.md) with one shared material `m`, recorded at 250 Hz "
         "(1/250 s samples of a dt = 1e-5 s run). Noise model (an ASSUMPTION, the lab's: the "
         f"paper gives none): white Gaussian noise of {S.SIGMA_POS:g} m on x and y and "
         f"{S.SIGMA_THETA:g} rad on theta added to the recorded q. `csim fit` weighs m and rad "
         "alike, so its pooled s.e. assumes one noise level for both; *known noise* is the "
         "same unweighted fit's s.e. from the true noise levels (sandwich (J^T J)^-1 J^T Sigma "
         "J (J^T J)^-1, J from `csim run --sensitivities` at the fitted point). The six laws "
         "are identified as the lab does (`identify.fit_batch`, eq. 7 impulses, velocities "
         "from the paper's parabola fits, 16 samples a side leaving out two); their e is a "
         "coefficient of restitution, compared with the rebound ratio the set's dissipation "
         "was tuned to, which is a property of one drop configuration, not a law parameter "
         "of the compliant truth.", ""]
    for d in drops:
        L += drops_md(d)
    L += ["### From 30 % off: how often the truth is found", "",
          "Noise-free fits of other random batches (seeds 0, 1, ...; the same start, window "
          "rule and truths as above). The cost is not convex in ln p and has kinks where a "
          "contact crosses a region boundary (stick and slip; `csim fit` reports such steps "
          "as near non-smooth points); Levenberg-Marquardt is local.", ""]
    L += robustness_md(rob) + [""]
    L += ["## 2. Sliding box, spinning ball, bouncing balls, falling sphere", "",
          f"Data: `csim run` of the scene at the truth; noisy: white noise of {SIGMA:g} m on "
          f"every position and a rotation Exp(delta), delta ~ N(0, ({SIGMA:g} rad)^2 I), on "
          f"every orientation (one level for m and rad, as `csim fit`'s pooled s.e. assumes), "
          f"written as CSV. The spinning ball is a scene of this script (a 0.5 kg ball of "
          f"radius {BALL_R} m, k {BALL_K:g} N/m, d {BALL_D} s/m, mu {BALL_MU} against a rigid "
          f"ground of the same friction, released 1 cm up with 60 rad/s of spin; the pair "
          f"takes the ball's k and d); the others are the repository's scenes.", ""]
    L += part2_md(p2) + [""]
    fs = [r for r in p2 if r["case"].name.endswith("with d")]
    fo = [r for r in p2 if r["case"].name == "falling sphere (Lagged)"]
    if fs and fo:
        f, f1 = fs[0]["clean"], fo[0]["clean"]
        L += [f"The falling sphere's `hunt_crossley` is barely seen at the scene's step, "
              f"likely because k = 1e7 N/m on 0.5 kg is omega dt = "
              f"{math.sqrt(1e7 / 0.5) * 2e-3:.1f}: the implicit step does not resolve the "
              f"contact's oscillation and the landing does not bounce. `csim fit` does not "
              f"refuse it (its column is not zero at the start), and on noise-free data from "
              f"({g(f.start[0])}, {g(f.start[1])}) it ends `{f.status}` after {f.iterations} "
              f"iterations with d = {g(f.values[1])} and friction {g(f.rel_err[0], 2)} "
              f"relative off (verdicts: {', '.join(f.verdicts)}), where friction alone is "
              f"recovered to {g(abs(f1.rel_err[0]), 2)}: a parameter the data barely sees "
              f"spoils the one it does.",
              ""]
    L += ["### Refused: what the data cannot identify", "",
          "`csim fit` refuses these before its first iteration (exit 1); the message is "
          "csim's.", ""]
    for r in refused:
        L += [f"- {r['what']}: `{r['command']}` (exit {r['rc']})", "",
              "  > " + r["message"].replace("\n", " "), ""]
    L += ["## What is an assumption", "",
          "- The noise: white, Gaussian, independent per sample and coordinate, at the levels "
          "above; no outliers, no bias, no timing jitter. The drops' initial states are known "
          "exactly to the fit: only contact parameters are fitted. `csim fit --fit-initial-state` "
          "would estimate each run's initial q and v, but here it would add six sensitivity "
          "columns per drop (three q and three v of its planar joint), so the study gives the "
          "fit the drops' exact initial states instead. That favours `csim fit` over the "
          "laws, whose identification starts from noisy velocity estimates.",
          "- The model is right: data and fit use the same contact model, stiffness, step and "
          "geometry. Stiffness is not fitted here (`materials.NAME.stiffness` is a parameter "
          "`csim fit` accepts; this study holds it at the truth).",
          "- Held-out errors are against the exact post-impact velocities from the exact "
          "pre-impact states; they measure the identified parameters and the law's form, not "
          "the velocity estimation.", ""]
    (out / "fit_synthetic.md").write_text("\n".join(L))


def csv_rows(drops, p2) -> list:
    rows = []

    def add(section, label, f: Fit):
        for j, p in enumerate(f.params):
            rows.append(dict(section=section, data=label, parameter=p, truth=f.truth[j],
                             start=f.start[j], fitted=f.values[j], se=f.se[j],
                             se_known="" if f.se_known is None else f.se_known[j],
                             rel_error=f.rel_err[j], status=f.status, iterations=f.iterations,
                             runs=f.runs, wall_s=round(f.wall, 3)))
    for d in drops:
        add(f"drops {d['model']}", "noise-free", d["clean"])
        add(f"drops {d['model']}", "noisy", d["noisy"])
        for k, f in enumerate(d["reps"]):
            add(f"drops {d['model']}", f"noisy draw {k + 1}", f)
    for r in p2:
        add(r["case"].name, "noise-free", r["clean"])
        for k, f in enumerate(r["reps"]):
            add(r["case"].name, f"noisy draw {k}", f)
    return rows


def main(argv=None) -> int:
    global CSIM
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=str(REPO / "results"), help="output folder")
    p.add_argument("--drops", type=int, default=20, help="drops per fit set (default 20)")
    p.add_argument("--reps", type=int, default=10, help="extra noise draws per case (default 10)")
    p.add_argument("--quick", action="store_true", help="6 drops, 2 draws (a smoke run)")
    p.add_argument("--csim", default=None, help="csim executable (default $CSIM or build/app/csim)")
    args = p.parse_args(argv)
    CSIM = args.csim
    if not os.access(csim_path(), os.X_OK):
        print(f"fit_synthetic_study: error: no csim executable at {csim_path()}", file=sys.stderr)
        return 1
    n = 6 if args.quick else args.drops
    reps = 2 if args.quick else args.reps
    rob_seeds = 2 if args.quick else 8
    began = time.monotonic()
    log = lambda s: print(f"[{time.monotonic() - began:5.0f} s] {s}", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fit_synthetic.") as tmp:
        drops, rob = [], []
        for model, seed in (("sap", 0), ("lagged", 1)):
            log(f"drops, truth {model}")
            drops.append(drops_case(model, n, n, seed, reps, tmp, log))
        for d in drops:
            for nr in (ROBUST_SMALL, n):
                rob += robustness(d["model"], nr, range(rob_seeds), d["truth"][1], tmp)
            log(f"  {d['model']}: robustness done")
        p2 = []
        for k, case in enumerate(part2_cases(tmp)):
            log(case.name)
            p2.append(part2_case(case, 2 * reps, 100 + k, tmp,
                                 noisy=not case.name.endswith("with d")))
        log("refusals")
        refused = refusals(tmp)
    cmd = "tools/fit_synthetic_study.py" + (" " + " ".join(argv if argv is not None
                                                            else sys.argv[1:])).rstrip()
    markdown(out, cmd.strip(), drops, rob, p2, refused, args, time.monotonic() - began)
    rows = csv_rows(drops, p2)
    with open(out / "fit_synthetic.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    log(f"wrote {out}/fit_synthetic.md and fit_synthetic.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
