"""Readers and writers of planar impact data (docs/design/impact-identification.md §9-§10).

Two layouts:

- The public MIT planar-impact data set (an ellipse dropped on a plate; paper §3.1). csim
  reads its layout but never contains or downloads the data (it has no licence). Its
  angle convention is not documented, so read_mit rebuilds the contact Jacobian from the
  ellipse geometry under each candidate convention and keeps the one under which a single
  point impulse explains the measured velocity change (§9.2); it refuses a file that no
  convention explains. write_mit writes the same layout from Drops (tests, round trips).
- A plain CSV layout for any planar impact data, one drop a row (§10).

Also a generator of synthetic ellipse drops whose post-impact velocity is produced by one
of the six laws, with optional velocity noise: the known-truth input of the tests.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.io

from .bounds import point_impulse, point_impulse_misfit
from .contact_space import ContactSpace, contact_jacobian, lowest_point_offset
from .drop import Drop
from .laws import LAWS

# The MIT ellipse (data set README): PLA, 36.4 g, axes 70 x 50 mm.
MIT_MASS = 0.0364   # [kg]
MIT_A = 0.035       # semi-axis along the body x axis [m]
MIT_B = 0.025       # semi-axis along the body y axis [m]
MIT_FILE = "data_ellipse.mat"
MIT_COMPANIONS = ("p_models.mat", "p_true_data.mat", "v_models.mat", "w_true_data.mat")
CONVENTION_RTOL = 0.05  # a drop is "explained" when its relative point-impulse misfit is below


def ellipse_gyration_radius(a: float = MIT_A, b: float = MIT_B) -> float:
    """k_g = sqrt((a^2 + b^2) / 5) [m] of a uniform elliptical plate."""
    return float(np.sqrt((a * a + b * b) / 5.0))


def ellipse_jacobian(a: float, b: float, theta: float) -> np.ndarray:
    """(2, 3) contact Jacobian [tangent; normal] of an ellipse resting on y = 0."""
    return contact_jacobian(*lowest_point_offset(a, b, theta))


# ------------------------------------------------------------------ MIT layout ----

@dataclass(frozen=True)
class Convention:
    """How a file's angle and angular velocity map to csim's (counter-clockwise) ones.

    theta_csim = theta_sign * theta_file, omega_csim = omega_sign * omega_file.
    """

    name: str
    theta_sign: int
    omega_sign: int


CONVENTIONS = (
    Convention("csim (theta and omega counter-clockwise)", 1, 1),
    Convention("clockwise theta and omega", -1, -1),
    Convention("clockwise theta only", -1, 1),
    Convention("clockwise omega only", 1, -1),
)


@dataclass
class ConventionReport:
    """What read_mit found about the file's conventions.

    file            the file read
    chosen          the Convention used to build the Drops
    median_misfit   {convention name: median relative point-impulse misfit over drops}
    explained       {convention name: fraction of drops with misfit <= rtol}
    rtol            the misfit below which a drop counts as explained
    stored_rows     how the stored rows n, d compare with the rebuilt ones (text)
    ambiguous       another convention explains the data as well (e.g. frictionless drops)
    companions      companion files present (read by nothing: stored predictions are not trusted)
    """

    file: str
    chosen: Convention
    median_misfit: dict
    explained: dict
    rtol: float
    stored_rows: str
    ambiguous: bool = False
    companions: list = field(default_factory=list)

    def summary(self) -> str:
        """A few lines for a log or a study report."""
        lines = [f"{self.file}: convention '{self.chosen.name}'"
                 + (" (ambiguous)" if self.ambiguous else "")]
        for name, med in self.median_misfit.items():
            lines.append(f"  {name}: median misfit {med:.2%}, "
                         f"explained {self.explained[name]:.1%}")
        lines.append(f"  stored rows: {self.stored_rows}")
        return "\n".join(lines)


def read_mit(folder, *, mass: float = MIT_MASS, a: float = MIT_A, b: float = MIT_B,
             rtol: float = CONVENTION_RTOL) -> tuple[list[Drop], ConventionReport]:
    """Read the MIT planar-impact layout in `folder` into Drops, checking its conventions.

    data_ellipse.mat holds a struct `data` with states_i, states_f (N, 6: x, y, theta,
    xdot, ydot, thetadot, SI) and the stored Jacobian rows n, d (N, 3). J is rebuilt from
    (a, b, theta) (the stored rows are only compared). Raises ValueError naming the file
    when the layout is wrong or when under no candidate convention the median drop is
    explained by a single point impulse to within rtol.
    """
    path = Path(folder) / MIT_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found (expected the MIT planar-impact layout)")
    states_i, states_f, n_rows, d_rows = _load_mit_arrays(path)
    inertia = mass * ellipse_gyration_radius(a, b) ** 2
    misfits, explained, built = {}, {}, {}
    for conv in CONVENTIONS:
        drops = _drops_from_states(states_i, states_f, conv, mass, inertia, a, b)
        m = np.array([point_impulse_misfit(d) for d in drops])
        misfits[conv.name], explained[conv.name] = float(np.median(m)), float(np.mean(m <= rtol))
        built[conv.name] = drops
    ranked = sorted(CONVENTIONS, key=lambda c: misfits[c.name])
    best = ranked[0]
    if misfits[best.name] > rtol:
        raise ValueError(
            f"{path}: no angle convention explains the velocity changes by a single point "
            f"impulse (best: '{best.name}', median relative misfit "
            f"{misfits[best.name]:.1%} > {rtol:.0%}); wrong layout, units or geometry (a, b)?")
    ambiguous = misfits[ranked[1].name] <= max(rtol, 2.0 * misfits[best.name])
    drops = built[best.name]
    report = ConventionReport(
        str(path), best, misfits, explained, rtol,
        _compare_rows(drops, n_rows, d_rows, best), ambiguous,
        [c for c in MIT_COMPANIONS if (Path(folder) / c).is_file()])
    return drops, report


def write_mit(folder, drops: list[Drop], *, theta_sign: int = 1, omega_sign: int = 1,
              tangent_sign: int = 1, normal_sign: int = 1) -> Path:
    """Write Drops in the MIT layout: data_ellipse.mat and p_true_data.mat.

    Every drop needs q_i. The signs say how the file's conventions differ from csim's:
    theta_file = theta_sign * theta, omega_file = omega_sign * omega; the stored rows are
    tangent_sign * t and normal_sign * n, expressed in the file's velocity coordinates.
    p_true_data holds the eq. 7 impulse with the stored tangent sign. Returns the folder.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if any(d.q_i is None for d in drops):
        raise ValueError("write_mit: every drop needs its pose q_i")
    S = np.array([1.0, 1.0, omega_sign])       # v_file = S v (sign flips are involutions)
    Q = np.array([1.0, 1.0, theta_sign])
    states_i = np.array([np.r_[Q * d.q_i, S * d.v_i] for d in drops])
    states_f = np.array([np.r_[Q * d.q_i, S * d.v_f] for d in drops])
    n_rows = np.array([normal_sign * d.J[1] * S for d in drops])
    d_rows = np.array([tangent_sign * d.J[0] * S for d in drops])
    p_true = np.array([point_impulse(d) * [tangent_sign, normal_sign] for d in drops])
    scipy.io.savemat(folder / MIT_FILE, {"data": {"states_i": states_i, "states_f": states_f,
                                                  "n": n_rows, "d": d_rows}})
    scipy.io.savemat(folder / "p_true_data.mat", {"p_true_data": p_true})
    return folder


def _load_mit_arrays(path: Path):
    """(states_i, states_f, n, d) from data_ellipse.mat; n, d may be None."""
    try:
        mat = scipy.io.loadmat(path, squeeze_me=True, struct_as_record=False)
    except Exception as exc:  # scipy raises several types for a non-MAT file
        raise ValueError(f"{path}: not a readable MAT file ({exc})") from exc
    if "data" not in mat:
        raise ValueError(f"{path}: no struct 'data' (found {sorted(k for k in mat if not k.startswith('__'))})")
    data = mat["data"]

    def get(name, required=True):
        if not hasattr(data, name):
            if required:
                raise ValueError(f"{path}: struct 'data' has no field '{name}'")
            return None
        arr = np.atleast_2d(np.asarray(getattr(data, name), dtype=float))
        return arr

    states_i, states_f = get("states_i"), get("states_f")
    for name, arr in (("states_i", states_i), ("states_f", states_f)):
        if arr.ndim != 2 or arr.shape[1] != 6:
            raise ValueError(f"{path}: data.{name} must be N x 6, got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{path}: data.{name} has non-finite entries")
    if states_i.shape != states_f.shape:
        raise ValueError(f"{path}: data.states_i {states_i.shape} and data.states_f "
                         f"{states_f.shape} differ in shape")
    n_rows, d_rows = get("n", False), get("d", False)
    for name, arr in (("n", n_rows), ("d", d_rows)):
        if arr is not None and arr.shape != (states_i.shape[0], 3):
            raise ValueError(f"{path}: data.{name} must be {states_i.shape[0]} x 3, got {arr.shape}")
    return states_i, states_f, n_rows, d_rows


def _drops_from_states(states_i, states_f, conv: Convention, mass, inertia, a, b) -> list[Drop]:
    S = np.array([1.0, 1.0, conv.omega_sign])
    Q = np.array([1.0, 1.0, conv.theta_sign])
    drops = []
    for si, sf in zip(states_i, states_f):
        q = Q * si[:3]
        drops.append(Drop(mass, inertia, ellipse_jacobian(a, b, q[2]), S * si[3:], S * sf[3:], q))
    return drops


def _compare_rows(drops, n_rows, d_rows, conv: Convention) -> str:
    """Compare the stored rows with the rebuilt ones (in the file's velocity coordinates)."""
    if n_rows is None or d_rows is None:
        return "not stored"
    S = np.array([1.0, 1.0, conv.omega_sign])
    words = []
    for label, stored, k in (("normal", n_rows, 1), ("tangent", d_rows, 0)):
        rebuilt = np.array([d.J[k] * S for d in drops])
        scale = np.linalg.norm(rebuilt, axis=1)
        same = np.median(np.linalg.norm(stored - rebuilt, axis=1) / scale)
        flip = np.median(np.linalg.norm(stored + rebuilt, axis=1) / scale)
        if min(same, flip) > 0.01:
            words.append(f"{label} row differs from the rebuilt one (median {min(same, flip):.1%})")
        else:
            words.append(f"{label} row {'matches' if same <= flip else 'has the opposite sign'}")
    return "; ".join(words)


# ---------------------------------------------------------------------- CSV ----

CSV_VELOCITY = ("vx_i", "vy_i", "w_i", "vx_f", "vy_f", "w_f")
CSV_JACOBIAN = ("t0", "t1", "t2", "n0", "n1", "n2")
CSV_OFFSET = ("r_x", "r_y")
CSV_POSE = ("x", "y", "theta")
CSV_DOC = """\
CSV layout of planar impact data (docs/design/impact-identification.md §10): one drop a row,
a header row naming the columns in any order, '#' comment lines and blank lines ignored, SI.
  mass, inertia                      kg, kg m^2 about the centre of mass
  t0, t1, t2, n0, n1, n2             Jacobian rows [tangent; normal] in (xdot, ydot, omega)
    or r_x, r_y                      contact point from the centre of mass [m]; ground
                                     normal +y, tangent +x (rows [1, 0, -r_y], [0, 1, r_x])
  vx_i, vy_i, w_i, vx_f, vy_f, w_f   pre- and post-impact velocity [m/s, m/s, rad/s]
  x, y, theta                        optional pose at impact [m, m, rad]
  truth_<name>                       optional known parameter of a synthetic drop
"""


def write_csv(path, drops: list[Drop]) -> None:
    """Write Drops in the CSV layout (Jacobian rows; pose when every drop has one)."""
    with_pose = all(d.q_i is not None for d in drops)
    truth_keys = sorted({k for d in drops for k in (d.truth or {})})
    header = ["mass", "inertia", *CSV_JACOBIAN, *CSV_VELOCITY]
    header += list(CSV_POSE) if with_pose else []
    header += [f"truth_{k}" for k in truth_keys]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for d in drops:
            row = [d.mass, d.inertia, *d.J.ravel(), *d.v_i, *d.v_f]
            row += list(d.q_i) if with_pose else []
            row += [(d.truth or {}).get(k, "") for k in truth_keys]
            w.writerow([_fmt(x) for x in row])


def read_csv(path) -> list[Drop]:
    """Read the CSV layout (CSV_DOC). Errors are reported as 'FILE:LINE:COL: field: message'."""
    path = str(path)
    drops = []
    with open(path, newline="") as fh:
        header, cols = None, None
        for lineno, row in enumerate(csv.reader(fh), start=1):
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            if header is None:
                header = [h.strip() for h in row]
                cols = _check_header(path, lineno, header)
                continue
            drops.append(_drop_from_row(path, lineno, header, cols, row))
    if header is None:
        raise ValueError(f"{path}:1:1: no header row")
    return drops


def _check_header(path, lineno, header) -> dict:
    def err(col, msg):
        return ValueError(f"{path}:{lineno}:{col}: {msg}")
    known = {"mass", "inertia", *CSV_JACOBIAN, *CSV_OFFSET, *CSV_VELOCITY, *CSV_POSE}
    cols = {}
    for i, name in enumerate(header):
        if name in cols:
            raise err(i + 1, f"{name}: column named twice")
        if name not in known and not name.startswith("truth_"):
            raise err(i + 1, f"{name}: unknown column (see the CSV layout)")
        cols[name] = i
    has_j = [c for c in CSV_JACOBIAN if c in cols]
    has_r = [c for c in CSV_OFFSET if c in cols]
    if has_j and has_r:
        raise err(cols[has_r[0]] + 1, "give the Jacobian rows or r_x, r_y, not both")
    need = ["mass", "inertia", *CSV_VELOCITY, *(CSV_JACOBIAN if has_j or not has_r else CSV_OFFSET)]
    missing = [c for c in need if c not in cols]
    pose = [c for c in CSV_POSE if c in cols]
    if pose and len(pose) != 3:
        missing += [c for c in CSV_POSE if c not in cols]
    if missing:
        raise err(1, f"missing column(s) {', '.join(missing)}")
    return cols


def _drop_from_row(path, lineno, header, cols, row) -> Drop:
    def num(name):
        col = cols[name]
        text = row[col].strip() if col < len(row) else ""
        try:
            x = float(text)
        except ValueError:
            raise ValueError(f"{path}:{lineno}:{col + 1}: {name}: not a number: '{text}'") from None
        if not np.isfinite(x):
            raise ValueError(f"{path}:{lineno}:{col + 1}: {name}: not finite: '{text}'")
        return x

    if len(row) > len(header):
        raise ValueError(f"{path}:{lineno}:{len(header) + 1}: more fields than the header names")
    for name in ("mass", "inertia"):
        if num(name) <= 0.0:
            raise ValueError(f"{path}:{lineno}:{cols[name] + 1}: {name}: must be positive")
    if "r_x" in cols:
        J = contact_jacobian(num("r_x"), num("r_y"))
    else:
        J = np.array([num(c) for c in CSV_JACOBIAN]).reshape(2, 3)
    v = [num(c) for c in CSV_VELOCITY]
    q = np.array([num(c) for c in CSV_POSE]) if "x" in cols else None
    truth = {}
    for name, col in cols.items():
        if name.startswith("truth_") and col < len(row) and row[col].strip():
            text = row[col].strip()
            try:
                truth[name[6:]] = float(text)
            except ValueError:
                truth[name[6:]] = text
    return Drop(num("mass"), num("inertia"), J, v[:3], v[3:], q, truth or None)


def _fmt(x) -> str:
    return repr(float(x)) if isinstance(x, (float, int, np.floating, np.integer)) else str(x)


# ----------------------------------------------------------------- synthetic ----

def synthetic_ellipse_drops(n: int, law: str, mu: float, e: float,
                            rng: np.random.Generator, *, sigma_v=None,
                            mass: float = MIT_MASS, a: float = MIT_A, b: float = MIT_B) -> list[Drop]:
    """n ellipse drops whose v_f is law(mu, e) applied to v_i, with the MIT set's ranges.

    theta ~ U(-pi, pi) rad, xdot ~ U(0.14, 1.13) m/s, ydot ~ U(-2.87, -2.21) m/s,
    omega ~ U(-14, 25) rad/s (the ranges of the MIT set). sigma_v: (3,) std of white noise
    added to v_i and v_f after the law is applied (measurement noise). The pose puts the
    lowest point on y = 0 at x = 0. truth = {'law', 'mu', 'e'}.
    """
    inertia = mass * ellipse_gyration_radius(a, b) ** 2
    drops = []
    while len(drops) < n:
        theta = rng.uniform(-np.pi, np.pi)
        v_i = np.array([rng.uniform(0.14, 1.13), rng.uniform(-2.87, -2.21), rng.uniform(-14, 25)])
        r_x, r_y = lowest_point_offset(a, b, theta)
        space = ContactSpace(mass, inertia, contact_jacobian(r_x, r_y))
        vc = space.contact_velocity(v_i)
        if vc[1] >= 0.0:
            continue  # the contact point separates: no impact
        v_f = space.post_velocity(v_i, LAWS[law](space.W, vc, mu, e))
        if sigma_v is not None:
            v_i = v_i + rng.normal(0.0, sigma_v)
            v_f = v_f + rng.normal(0.0, sigma_v)
        drops.append(Drop(mass, inertia, space.J, v_i, v_f, np.array([0.0, -r_y, theta]),
                          {"law": law, "mu": mu, "e": e}))
    return drops
