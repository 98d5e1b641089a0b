"""The `Run` reader: one csim output file (docs/output-format.md) as named numpy arrays.

Example:
    >>> import csimpy
    >>> run = csimpy.open("spring_cylinder.h5")      # doctest: +SKIP
    >>> run.time[-1], run.q[-1, 0], run.energy[-1]    # doctest: +SKIP
    >>> run.body("cylinder").position[:, 2]           # doctest: +SKIP
    >>> run.contact_frame().groupby("row").force_z.sum()   # doctest: +SKIP
    >>> run.surfaces("world", "box").force[:, 2]      # doctest: +SKIP

Every array is sliced to the complete rows (`len(/time)`, the writer flushes `/time`
last), so a file that is still being written reads consistently; `refresh()` picks up
the rows flushed since the last look.
"""
import builtins
import ctypes
import functools
import os
import re
import subprocess

import h5py
import numpy as np

# Per-row series: attribute name -> dataset path.
_SERIES = {
    "time": "time",
    "step": "step",
    "q": "state/q",
    "v": "state/v",
    "kinetic": "energy/kinetic",
    "potential": "energy/potential",
    "iterations": "solver/iterations",
    "momentum_error": "solver/momentum_error",
    "cost": "solver/cost",
    "wall_time": "solver/wall_time",
    "condition_number": "solver/condition_number",  # settings.output.condition_number only
    "contact_count": "contacts/count",
    "contact_offset": "contacts/offset",
    # models with hydroelastic geometry only (`surfaces` reads them by body pair):
    "surface_count": "hydroelastic/count",
    "surface_offset": "hydroelastic/offset",
    "friction_effort": "joints/friction_effort",  # models with joint friction only
    "constraint_impulse": "constraints/impulse",  # models with constraints only
    # models with actuators only, (n, na) in /model/actuator_names order:
    "actuator_effort": "actuators/effort",
    "actuator_q_target": "actuators/q_target",
    "actuator_v_target": "actuators/v_target",
    "actuator_saturated": "actuators/saturated",
}
_BODY_SERIES = ("position", "quaternion", "linear_velocity", "angular_velocity")
_CONTACT_SERIES = ("body_a", "body_b", "point", "normal", "signed_distance", "force", "slip_speed")
# Written only with some settings (settings.output.condition_number): read where present.
_OPTIONAL_CONTACT_SERIES = ("stiction_tolerance", "region", "kink_distance")
# What writes each optional contact series.
_OPTIONAL_CONTACT_SOURCE = {"stiction_tolerance": "the scene did not set "
                            "output.condition_number: true",
                            "region": "the run had no --sensitivities",
                            "kink_distance": "the run had no --sensitivities"}
# /solver_trace's flat per-iteration datasets (csim run --trace-solver).
_TRACE_SERIES = ("iteration", "cost", "gradient_norm", "momentum_error", "alpha", "merged")

# Metadata reads in SWMR mode retry a failed checksum (it may be a torn read of metadata
# the writer is rewriting), sleeping twice as long after each failure: HDF5's default of
# 100 attempts never gives up on a corrupt file. 31 give up after ~1 s, as csim's reader.
_SWMR_READ_ATTEMPTS = 31


@functools.lru_cache(maxsize=None)
def _hdf5_library():
    """The HDF5 library h5py runs on (ctypes handle), or None if it cannot be found; looked
    up once per process, not at every open."""
    try:
        with builtins.open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libhdf5" in line and "/" in line}
    except OSError:
        return None
    for path in sorted(paths):
        if "hl" not in os.path.basename(path):
            return ctypes.CDLL(path)
    return None


def _open_swmr(path):
    """`path` opened read-only in SWMR mode, metadata reads capped at _SWMR_READ_ATTEMPTS.
    h5py does not expose H5Pset_metadata_read_attempts, so it is called through ctypes
    on h5py's own HDF5 (without the cap if that library cannot be found)."""
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_libver_bounds(h5py.h5f.LIBVER_LATEST, h5py.h5f.LIBVER_LATEST)
    library = _hdf5_library()
    if library is not None:
        set_attempts = library.H5Pset_metadata_read_attempts
        set_attempts.argtypes = [ctypes.c_int64, ctypes.c_uint]
        set_attempts(fapl.id, _SWMR_READ_ATTEMPTS)
    flags = h5py.h5f.ACC_RDONLY | h5py.h5f.ACC_SWMR_READ
    return h5py.File(h5py.h5f.open(os.fsencode(path), flags, fapl=fapl))


def _text(value):
    """A string from an HDF5 string value (variable-length str, or fixed-length bytes)."""
    if isinstance(value, bytes):
        return value.split(b"\0", 1)[0].decode("utf-8").strip()
    if isinstance(value, np.ndarray):
        return _text(value[()])
    return str(value).split("\0", 1)[0].strip()


def _strings(ds):
    return [_text(x) for x in ds[()]]


class BodyTrack:
    """One body's recorded motion: `position` (n, 3), `quaternion` (n, 4, w x y z),
    `linear_velocity` and `angular_velocity` (n, 3), all world frame, and `time` (n,)."""

    def __init__(self, name, time, **series):
        self.name = name
        self.time = time
        for key in _BODY_SERIES:
            setattr(self, key, series[key])

    def __repr__(self):
        return f"BodyTrack({self.name!r}, {len(self.time)} rows)"


class SurfaceTrack:
    """The hydroelastic contact between two bodies over the recorded rows, all (n, ...) and
    world frame: `area` [m^2] (0 in rows without contact), `centroid` [m] (area centroid;
    NaN without contact), `force` [N] on the second body of the pair as asked, `moment`
    [N m] on it about the centroid, `count` (polygons, i.e. contacts) and `surface_count`
    (contact surfaces: more than one when a body has several hydroelastic geometries,
    which are then combined), and `time` (n,)."""

    def __init__(self, name_a, name_b, time, **series):
        self.name_a, self.name_b, self.time = name_a, name_b, time
        for key, value in series.items():
            setattr(self, key, value)

    def __repr__(self):
        return f"SurfaceTrack({self.name_a!r}, {self.name_b!r}, {len(self.time)} rows)"


class Run:
    """An open csim output file. Use `csimpy.open(path)`; close with `close()` or `with`.

    Arrays (complete rows only): time, step, q, v, kinetic, potential, energy,
    iterations, momentum_error, cost, wall_time, condition_number (with
    settings.output.condition_number), contact_count, contact_offset,
    friction_effort (models with joint friction), constraint_impulse (models with
    constraints; one constraint's columns by name with `constraint(name)`), actuator_effort,
    actuator_q_target, actuator_v_target, actuator_saturated (models with actuators;
    `actuator(name)` picks one), surface_count, surface_offset (models with hydroelastic
    geometry; `surfaces(a, b)` and `surface_polygons(row, a, b)` read them by body pair).
    Newton histories of the steps traced with `csim run --trace-solver`: traced_steps,
    `solver_trace(step)`, `solver_trace_frame()`. Forward sensitivities (csim run
    --sensitivities): has_sensitivity, `sensitivity()`.
    Model: body_names, joint_names, joint_types, nq, nv, constraint_names, constraint_types,
    actuator_names. Settings: attrs (root
    attributes), time_step, integrator, contact_model, gyroscopic, scene_name, status.
    """

    def __init__(self, path, swmr=True):
        self.path = str(path)
        self._file = None
        if swmr:
            try:
                self._file = _open_swmr(self.path)
            except OSError:
                self._file = None  # not an SWMR-capable file: open it plainly below
        if self._file is None:
            try:
                self._file = h5py.File(self.path, "r")
            except OSError as error:  # h5py's message does not name the file
                raise OSError(f"{self.path}: {error}") from error
        self.swmr = bool(getattr(self._file, "swmr_mode", False))
        try:
            self._read_layout()
        except BaseException:
            self.close()  # no open file left behind by a constructor that raises
            raise

    def _read_layout(self):
        f = self._file
        if f.attrs.get("format") is not None and _text(f.attrs["format"]) != "csim":
            raise ValueError(f"{self.path}: not a csim output file (format {f.attrs['format']!r})")
        if "time" not in f or "state/q" not in f:
            raise ValueError(f"{self.path}: not a csim output file (no /time or /state/q)")
        version = f.attrs.get("format_version")
        if version is not None and int(version) != 1:
            raise ValueError(f"{self.path}: output format version {int(version)}; this csimpy "
                             "reads version 1")
        self.body_names = _strings(f["model/body_names"]) if "model/body_names" in f else []
        self.joint_names = _strings(f["model/joint_names"]) if "model/joint_names" in f else []
        self.joint_types = _strings(f["model/joint_types"]) if "model/joint_types" in f else []
        self.nq = int(f["model/nq"][()]) if "model/nq" in f else f["state/q"].shape[1]
        self.nv = int(f["model/nv"][()]) if "model/nv" in f else f["state/v"].shape[1]
        self._q_start = f["model/joint_q_start"][()] if "model/joint_q_start" in f else None
        self._v_start = f["model/joint_v_start"][()] if "model/joint_v_start" in f else None
        has_constraints = "model/constraint_names" in f
        self.constraint_names = _strings(f["model/constraint_names"]) if has_constraints else []
        self.constraint_types = _strings(f["model/constraint_types"]) if has_constraints else []
        self._constraint_first = f["model/constraint_first_row"][()] if has_constraints else None
        self._constraint_count = f["model/constraint_row_count"][()] if has_constraints else None
        self.actuator_names = (_strings(f["model/actuator_names"])
                               if "model/actuator_names" in f else [])
        self.has_contacts = "contacts/count" in f
        self._n = int(f["time"].shape[0])
        self._cache = {}

    # ------------------------------------------------------------------ file handling
    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __len__(self):
        return self.n

    def __repr__(self):
        return (f"<csimpy.Run {self.path!r} scene={self.scene_name!r} status={self.status!r} "
                f"rows={self.n} t_end={self.time[-1] if self.n else None}>")

    @property
    def file(self):
        """The underlying h5py.File, for anything this class does not wrap."""
        return self._file

    def refresh(self):
        """See the rows written since the file was opened (or last refreshed). Returns
        the number of complete rows. Safe on a finished file."""
        f = self._file
        if self.swmr:
            # /time first, then the rest: the writer flushes /time last, so every other
            # dataset already holds at least the rows that /time counts now.
            f["time"].refresh()
            n = int(f["time"].shape[0])

            def visit(_, obj):
                if isinstance(obj, h5py.Dataset) and obj.name != "/time":
                    obj.refresh()
            f.visititems(visit)
        else:
            n = int(f["time"].shape[0])
        self._n = n
        self._cache.clear()
        return n

    # ------------------------------------------------------------------ attributes
    @property
    def attrs(self):
        """Root attributes as a plain dict (strings decoded)."""
        return {k: (_text(v) if isinstance(v, (bytes, str)) else
                    (v.item() if isinstance(v, np.generic) else v))
                for k, v in self._file.attrs.items()}

    def _attr(self, key, default=None):
        v = self._file.attrs.get(key)
        if v is None:
            return default
        return _text(v) if isinstance(v, (bytes, str)) else (v.item() if isinstance(v, np.generic) else v)

    @property
    def status(self):
        """`running`, `completed`, `interrupted` or `failed` (read afresh each time)."""
        ds = self._file["status"]
        if self.swmr:
            try:
                ds.refresh()
            except Exception:  # scalar datasets may not refresh on every HDF5 build
                pass
        return _text(ds[()])

    scene_name = property(lambda self: self._attr("scene_name"))
    scene_file = property(lambda self: self._attr("scene_file"))
    time_step = property(lambda self: self._attr("time_step"))
    duration = property(lambda self: self._attr("duration"))
    integrator = property(lambda self: self._attr("integrator"))
    contact_model = property(lambda self: self._attr("contact_model"))
    # `implicit` or `explicit` (settings.gyroscopic); files written before 2026-11-23 lack
    # the attribute, and their runs took the gyroscopic torque explicitly.
    gyroscopic = property(lambda self: self._attr("gyroscopic", "explicit"))
    failure_reason = property(lambda self: self._attr("failure_reason"))

    @property
    def scene_yaml(self):
        return _text(self._file["scene/yaml"][()])

    @property
    def overrides(self):
        return _strings(self._file["scene/overrides"]) if "scene/overrides" in self._file else []

    # ------------------------------------------------------------------ per-row series
    @property
    def n(self):
        """Number of complete rows (the length of /time at open or the last refresh)."""
        return self._n

    def _series(self, key):
        if key not in self._cache:
            path = _SERIES[key]
            if path not in self._file:
                raise KeyError(f"{self.path}: no /{path} in this file")
            rows = self._file[path][: self.n]
            if len(rows) < self.n:  # /time is flushed last: a shorter series is damage
                raise ValueError(f"{self.path}: /{path} has {len(rows)} rows, fewer than the "
                                 f"{self.n} of /time (a damaged file)")
            self._cache[key] = rows
        return self._cache[key]

    def __getattr__(self, key):
        if key in _SERIES:
            return self._series(key)
        raise AttributeError(key)

    @property
    def energy(self):
        """Total energy kinetic + potential (J) per row."""
        return self.kinetic + self.potential

    def row_at(self, t):
        """Index of the recorded row nearest to time t."""
        return int(np.argmin(np.abs(self.time - t)))

    # ------------------------------------------------------------------ bodies and joints
    def _body_index(self, name):
        try:
            return self.body_names.index(name)
        except ValueError:
            raise KeyError(f"no body {name!r}; bodies: {', '.join(self.body_names)}") from None

    def body(self, name):
        """BodyTrack of one body by name: position, quaternion, velocities over time."""
        i = self._body_index(name)
        key = ("body", i)
        if key not in self._cache:
            n = self.n
            self._cache[key] = BodyTrack(
                name, self.time,
                **{s: self._file["bodies/" + s][:n, i] for s in _BODY_SERIES})
        return self._cache[key]

    @property
    def bodies(self):
        """Dict name -> BodyTrack of every body."""
        return {name: self.body(name) for name in self.body_names}

    def _joint_slice(self, name, starts, total):
        try:
            j = self.joint_names.index(name)
        except ValueError:
            raise KeyError(f"no joint {name!r}; joints: {', '.join(self.joint_names)}") from None
        s = int(starts[j])
        if s < 0:
            return slice(0, 0)  # prescribed joint: no coordinates of its own
        later = [int(x) for x in starts if int(x) > s]
        return slice(s, min(later) if later else total)

    def joint_q(self, name):
        """Columns of q that belong to one joint, (n, nq_joint)."""
        return self.q[:, self._joint_slice(name, self._q_start, self.nq)]

    def joint_v(self, name):
        """Columns of v that belong to one joint, (n, nv_joint)."""
        return self.v[:, self._joint_slice(name, self._v_start, self.nv)]

    def constraint(self, name):
        """Impulse columns of one holonomic constraint, (n, rows) [N s or N m s] (output-format.md
        /constraints/impulse: coupler and distance 1 row, ball 3, weld 6)."""
        try:
            k = self.constraint_names.index(name)
        except ValueError:
            raise KeyError(f"no constraint {name!r}; constraints: "
                           f"{', '.join(self.constraint_names)}") from None
        first = int(self._constraint_first[k])
        return self.constraint_impulse[:, first:first + int(self._constraint_count[k])]

    # ------------------------------------------------------------------ actuators
    def actuator(self, name):
        """One actuator's recorded series by name, a dict of (n,) arrays: effort [N m or N],
        q_target, v_target (NaN for a force actuator) and saturated (0 or 1)."""
        try:
            i = self.actuator_names.index(name)
        except ValueError:
            raise KeyError(f"no actuator {name!r}; actuators: "
                           f"{', '.join(self.actuator_names) or 'none'}") from None
        return {key: getattr(self, "actuator_" + key)[:, i]
                for key in ("effort", "q_target", "v_target", "saturated")}

    # ------------------------------------------------------------------ contacts
    def _require_contacts(self):
        if not self.has_contacts:
            raise KeyError(f"{self.path}: no /contacts (the scene set output.contacts: false)")

    @property
    def n_contacts(self):
        """Number of complete flat contact rows (those referenced by complete steps)."""
        if not self.has_contacts or self.n == 0:
            return 0
        return int(self.contact_offset[-1] + self.contact_count[-1])

    def _contact_series(self):
        """The flat contact datasets of this file: the standard ones and the optional ones
        it holds (stiction_tolerance with settings.output.condition_number)."""
        return _CONTACT_SERIES + tuple(
            name for name in _OPTIONAL_CONTACT_SERIES if "contacts/" + name in self._file)

    def contact_array(self, name):
        """One flat contact dataset (body_a, body_b, point, normal, signed_distance, force,
        slip_speed, and stiction_tolerance [m/s] with settings.output.condition_number,
        region (0 none, 1 stiction, 2 sliding) and kink_distance with csim run
        --sensitivities) over all complete rows, shape (M, ...)."""
        self._require_contacts()
        if name not in self._contact_series():
            if name in _OPTIONAL_CONTACT_SERIES:
                raise KeyError(f"{self.path}: no /contacts/{name} "
                               f"({_OPTIONAL_CONTACT_SOURCE[name]})")
            raise KeyError(f"no contact series {name!r}; one of {', '.join(_CONTACT_SERIES)}")
        key = ("contacts", name)
        if key not in self._cache:
            self._cache[key] = self._file["contacts/" + name][: self.n_contacts]
        return self._cache[key]

    def contacts_at(self, row):
        """Contacts of one row as a dict of arrays (keys: body_a, body_b, point, normal,
        signed_distance, force, slip_speed, and stiction_tolerance where recorded), each with
        `count[row]` entries."""
        self._require_contacts()
        row = range(self.n)[row]  # negative indices, bounds check
        a = int(self.contact_offset[row])
        b = a + int(self.contact_count[row])
        return {name: self.contact_array(name)[a:b] for name in self._contact_series()}

    def iter_contacts(self):
        """Yields (row, time, contacts dict) for every row (rows without contacts too)."""
        for i in builtins.range(self.n):
            yield i, self.time[i], self.contacts_at(i)

    def contact_row_index(self):
        """For each flat contact, the row it belongs to, (M,)."""
        self._require_contacts()
        return np.repeat(np.arange(self.n), self.contact_count)

    def contact_frame(self):
        """All contacts as one pandas DataFrame, a line per contact: row, time, step,
        body_a, body_b (indices, -1 = world), name_a, name_b, point_{x,y,z},
        normal_{x,y,z}, signed_distance, force_{x,y,z}, force_normal (component along
        the normal, > 0 pushes b away from a), force_tangential (magnitude), slip_speed."""
        import pandas as pd
        rows = self.contact_row_index()
        names = np.array(["world"] + list(self.body_names), dtype=object)
        point, normal, force = (self.contact_array(k) for k in ("point", "normal", "force"))
        fn = np.einsum("ij,ij->i", force, normal) if len(force) else np.zeros(0)
        ft = np.linalg.norm(force - fn[:, None] * normal, axis=1) if len(force) else np.zeros(0)
        a, b = self.contact_array("body_a"), self.contact_array("body_b")
        data = {"row": rows, "time": self.time[rows], "step": self.step[rows],
                "body_a": a, "body_b": b, "name_a": names[a + 1], "name_b": names[b + 1]}
        for key, arr in (("point", point), ("normal", normal)):
            for k, axis in enumerate("xyz"):
                data[f"{key}_{axis}"] = arr[:, k]
        data["signed_distance"] = self.contact_array("signed_distance")
        for k, axis in enumerate("xyz"):
            data[f"force_{axis}"] = force[:, k]
        data["force_normal"] = fn
        data["force_tangential"] = ft
        data["slip_speed"] = self.contact_array("slip_speed")
        if "stiction_tolerance" in self._contact_series():
            data["stiction_tolerance"] = self.contact_array("stiction_tolerance")
        return pd.DataFrame(data)

    def contact_force_total(self):
        """Sum of the contact forces of each row (force on side b), (n, 3)."""
        self._require_contacts()
        out = np.zeros((self.n, 3))
        if self.n_contacts:
            np.add.at(out, self.contact_row_index(), self.contact_array("force"))
        return out

    def contact_force_normal_total(self):
        """Sum over each row's contacts of the normal force component (N), (n,)."""
        self._require_contacts()
        out = np.zeros(self.n)
        if self.n_contacts:
            fn = np.einsum("ij,ij->i", self.contact_array("force"), self.contact_array("normal"))
            np.add.at(out, self.contact_row_index(), fn)
        return out

    # ------------------------------------------------------------------ Newton's history
    @property
    def has_solver_trace(self):
        """Whether the run traced some step (`csim run --trace-solver`: /solver_trace)."""
        return "solver_trace/count" in self._file

    def _trace(self, name):
        """One /solver_trace dataset over the complete traced steps (`count` is written
        last, so its length counts them) or their iterations, as of the open or the last
        refresh()."""
        f = self._file
        steps = int(f["solver_trace/count"].shape[0])
        if name in ("step", "offset", "count"):
            return f["solver_trace/" + name][:steps]
        count, offset = f["solver_trace/count"][:steps], f["solver_trace/offset"][:steps]
        entries = int(offset[-1] + count[-1]) if steps else 0
        return f["solver_trace/" + name][:entries]

    @property
    def traced_steps(self):
        """The steps traced with `csim run --trace-solver`, ascending (int64); empty when
        none was. Step s produced the row whose `step` is s."""
        if not self.has_solver_trace:
            return np.zeros(0, dtype=np.int64)
        return self._trace("step")

    def solver_trace(self, step):
        """Newton's history of traced step `step` (docs/output-format.md, "Solver
        diagnostics"): a dict of arrays with one entry per Newton iteration, 0 (the initial
        guess) to the step's iterations: iteration, cost [J], gradient_norm [sqrt(J)],
        momentum_error, alpha (the line search's step from that iteration, NaN at the last),
        merged (1 where deferred contacts joined islands: the cost may rise only there).
        All empty for a step without a Newton solve."""
        steps = self.traced_steps
        k = np.flatnonzero(steps == int(step))
        if not len(k):
            raise KeyError(f"{self.path}: step {step} was not traced (traced: "
                           f"{', '.join(str(s) for s in steps) or 'none'}; csim run "
                           "--trace-solver STEP)")
        first = int(self._trace("offset")[k[0]])
        end = first + int(self._trace("count")[k[0]])
        return {name: self._trace(name)[first:end] for name in _TRACE_SERIES}

    def solver_trace_frame(self):
        """Every traced step's Newton history as one pandas DataFrame, a line per iteration:
        step, iteration, cost, gradient_norm, momentum_error, alpha, merged."""
        import pandas as pd
        steps = self.traced_steps
        count = self._trace("count") if len(steps) else np.zeros(0, dtype=np.int32)
        data = {"step": np.repeat(steps, count)}
        for name in _TRACE_SERIES:
            data[name] = self._trace(name) if len(steps) else np.zeros(0)
        return pd.DataFrame(data)

    # ------------------------------------------------------------------ sensitivities
    @property
    def has_sensitivity(self):
        """Whether the run recorded forward sensitivities (csim run --sensitivities)."""
        return "sensitivity/parameters" in self._file

    def sensitivity(self):
        """The forward sensitivities (docs/output-format.md, "Extension: sensitivities"): a
        dict with parameters (np paths, column order), dq (N, nv, np; dq/dp in the
        velocity-space tangent at q, not in /state/q's coordinates), dv (N, nv, np), and the
        per-row flags one_sided, unmatched, approximate_geometry, min_kink_distance,
        near_kink (N,). Complete rows only."""
        if not self.has_sensitivity:
            raise KeyError(f"{self.path}: no /sensitivity in this file (csim run "
                           "--sensitivities PATH)")
        group = self._file["sensitivity"]
        out = {"parameters": _strings(group["parameters"])}
        for name in ("dq", "dv", "one_sided", "unmatched", "approximate_geometry",
                     "min_kink_distance", "near_kink"):
            out[name] = group[name][: self.n]
        return out

    # ------------------------------------------------------------------ hydroelastic surfaces
    @property
    def has_surfaces(self):
        """Whether the file has /hydroelastic (contacts recorded, hydroelastic geometry)."""
        return "hydroelastic/count" in self._file

    @property
    def has_surface_polygons(self):
        """Whether the file holds the surfaces' polygons (output.contact_surfaces)."""
        return "hydroelastic/vertex_position" in self._file

    def _body_id(self, body):
        """Body index of a name or an index; the world is -1 (or "world", unless a body has
        that name)."""
        if isinstance(body, (int, np.integer)) and not isinstance(body, bool):
            if not -1 <= int(body) < len(self.body_names):
                raise KeyError(f"no body {int(body)}: indices run from -1 (the world) to "
                               f"{len(self.body_names) - 1}")
            return int(body)
        if body in self.body_names:
            return self.body_names.index(body)
        if body == "world":
            return -1
        raise KeyError(f"no body {body!r}; bodies: world, {', '.join(self.body_names)}")

    def _body_name(self, b):
        return "world" if b < 0 else self.body_names[b]

    @property
    def n_surfaces(self):
        """Number of complete flat surface entries (those of complete rows)."""
        if not self.has_surfaces or self.n == 0:
            return 0
        return int(self.surface_offset[-1] + self.surface_count[-1])

    def _surface(self, name):
        """One flat per-surface dataset of /hydroelastic over the complete rows, (S, ...)."""
        key = ("hydroelastic", name)
        if key not in self._cache:
            self._cache[key] = self._file["hydroelastic/" + name][: self.n_surfaces]
        return self._cache[key]

    def _require_surfaces(self):
        if not self.has_surfaces:
            raise KeyError(f"{self.path}: no /hydroelastic (no hydroelastic geometry, or "
                           "output.contacts: false)")

    def _pair_surfaces(self, body_a, body_b):
        """Indices of the flat surfaces between the two bodies and, for each, +1 when the
        file's pair is (a, b) and -1 when it is (b, a)."""
        a, b = self._body_id(body_a), self._body_id(body_b)
        fa, fb = self._surface("body_a"), self._surface("body_b")
        forward, backward = (fa == a) & (fb == b), (fa == b) & (fb == a)
        index = np.flatnonzero(forward | backward)
        return a, b, index, np.where(forward[index], 1.0, -1.0)

    def surfaces(self, body_a, body_b):
        """The hydroelastic contact of two bodies (names or indices; the world is "world"
        or -1) over the rows, as a SurfaceTrack: area, centroid, and the force and moment
        on `body_b` (whichever order the file holds the pair in), count of polygons."""
        self._require_surfaces()
        a, b, index, sign = self._pair_surfaces(body_a, body_b)
        n = self.n
        row = np.repeat(np.arange(n), self.surface_count)[index]
        area_i, centroid_i = self._surface("area")[index], self._surface("centroid")[index]
        force_i = sign[:, None] * self._surface("force")[index]
        area, count, surfaces = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n, np.int64)
        weighted, force, moment = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3))
        np.add.at(area, row, area_i)
        np.add.at(weighted, row, area_i[:, None] * centroid_i)
        np.add.at(force, row, force_i)
        np.add.at(count, row, self._surface("contact_count")[index])
        np.add.at(surfaces, row, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            centroid = np.where(area[:, None] > 0, weighted / area[:, None], np.nan)
        # Each surface's moment about its own centroid, moved to the row's combined one.
        lever = centroid_i - centroid[row]
        np.add.at(moment, row, sign[:, None] * self._surface("moment")[index] +
                  np.cross(lever, force_i))
        return SurfaceTrack(self._body_name(a), self._body_name(b), self.time, area=area,
                            centroid=centroid, force=force, moment=moment, count=count,
                            surface_count=surfaces)

    def surface_polygons(self, row, body_a, body_b):
        """The polygons of the two bodies' contact surfaces in one row (an index as in
        contacts_at; `row_at(t)` finds one by time), recorded with output.contact_surfaces:
        a list with a dict per polygon: vertices (k, 3) [m] counter-clockwise about
        `normal`, pressure (k,) [Pa] at the vertices, and its contact's point (the
        polygon's centroid) [m], unit normal pointing from body_a into body_b, and force
        on body_b [N]. Empty when the bodies do not touch in that row."""
        self._require_surfaces()
        if not self.has_surface_polygons:
            raise KeyError(f"{self.path}: no polygons in /hydroelastic (the scene did not set "
                           "output.contact_surfaces: true)")
        row = range(self.n)[row]  # negative indices, bounds check
        _, _, index, sign = self._pair_surfaces(body_a, body_b)
        first = int(self.surface_offset[row])
        mine = (index >= first) & (index < first + int(self.surface_count[row]))
        polygons = []
        for s, flip in zip(index[mine], sign[mine]):
            polygons += self._polygons_of_surface(int(s), flip)
        return polygons

    def _polygons_of_surface(self, s, flip):
        """The polygons of flat surface s, as seen from its pair flipped (flip -1) or not."""
        f = self._file
        polygon = int(f["hydroelastic/first_polygon"][s])
        contact = int(self._surface("first_contact")[s])
        out = []
        for j in range(int(self._surface("contact_count")[s])):
            start = int(f["hydroelastic/polygon_vertex_offset"][polygon + j])
            end = start + int(f["hydroelastic/polygon_vertex_count"][polygon + j])
            vertices = f["hydroelastic/vertex_position"][start:end]
            pressure = f["hydroelastic/vertex_pressure"][start:end]
            if flip < 0:  # counter-clockwise about the flipped normal
                vertices, pressure = vertices[::-1], pressure[::-1]
            out.append({"vertices": vertices, "pressure": pressure,
                        "point": f["contacts/point"][contact + j],
                        "normal": flip * f["contacts/normal"][contact + j],
                        "force": flip * f["contacts/force"][contact + j]})
        return out

    # ------------------------------------------------------------------ tables and scalars
    def frame(self):
        """Per-row scalars as a pandas DataFrame indexed by time: step, kinetic,
        potential, energy, iterations, momentum_error, cost, wall_time, contacts."""
        import pandas as pd
        data = {"step": self.step, "kinetic": self.kinetic, "potential": self.potential,
                "energy": self.energy, "iterations": self.iterations,
                "momentum_error": self.momentum_error, "cost": self.cost,
                "wall_time": self.wall_time}
        if self.has_contacts:
            data["contacts"] = self.contact_count
        return pd.DataFrame(data, index=pd.Index(self.time, name="time"))

    def value(self, expr, row=-1):
        """One number of one row, by a short expression (used by the sweep tool):
        `time`, `energy`, `kinetic`, `potential`, `iterations`, `momentum_error`, `q[i]`,
        `v[i]`, `bodies.NAME.position[k]` (also quaternion, linear_velocity,
        angular_velocity; `[k]` may be `.x`, `.y`, `.z`), `joints.NAME.q[k]`,
        `joints.NAME.v[k]`, `contacts` (count of the row)."""
        if self.n == 0:
            raise IndexError(f"{self.path}: no rows yet (the run is starting or was killed "
                             "before its first row)")
        m = re.fullmatch(r"(q|v)\[(\d+)\]", expr)
        if m:
            return float(getattr(self, m.group(1))[row, int(m.group(2))])
        m = re.fullmatch(r"bodies\.(.+)\.(position|quaternion|linear_velocity|angular_velocity)"
                         r"(?:\[(\d+)\]|\.([xyzw]))", expr)
        if m:
            series = getattr(self.body(m.group(1)), m.group(2))
            if m.group(3) is not None:
                k = int(m.group(3))
            elif m.group(2) == "quaternion":
                k = "wxyz".index(m.group(4))
            else:
                k = "xyz".index(m.group(4))
            return float(series[row, k])
        m = re.fullmatch(r"joints\.(.+)\.(q|v)\[(\d+)\]", expr)
        if m:
            cols = self.joint_q(m.group(1)) if m.group(2) == "q" else self.joint_v(m.group(1))
            return float(cols[row, int(m.group(3))])
        if expr == "contacts":
            return float(self.contact_count[row])
        if expr in ("time", "energy", "kinetic", "potential", "iterations", "momentum_error",
                    "cost", "wall_time", "step"):
            return float(getattr(self, expr)[row])
        raise ValueError(f"cannot read {expr!r}: use time, energy, q[i], v[i], "
                         "bodies.NAME.position[k], joints.NAME.q[k], ...")

    def summary(self):
        """Scalars of the run (what the sweep tool collects): see `summarise`."""
        return summarise(self)

    # ------------------------------------------------------------------ plots
    def plot_energy(self, ax=None, relative=False, save=None):
        """Kinetic, potential and total energy over time (or E/E0 with relative=True)."""
        from . import plots
        return plots.energy(self, ax=ax, relative=relative, save=save)

    def plot_contact_forces(self, ax=None, save=None):
        """Per-row total normal and tangential contact force, and the contact count."""
        from . import plots
        return plots.contact_forces(self, ax=ax, save=save)

    def plot_iterations(self, ax=None, save=None):
        """Newton iterations per step."""
        from . import plots
        return plots.iterations(self, ax=ax, save=save)

    def plot_momentum_error(self, ax=None, save=None):
        """Dimensionless momentum error per step (log scale)."""
        from . import plots
        return plots.momentum_error(self, ax=ax, save=save)

    def plot_overview(self, save=None):
        """The four figures above in one 2x2 figure."""
        from . import plots
        return plots.overview(self, save=save)


def open(path, swmr=True):  # noqa: A001  (csimpy.open mirrors builtins.open on purpose)
    """Open a csim output file, finished or still being written. Returns a `Run`."""
    return Run(path, swmr=swmr)


def default_csim():
    """The csim executable: $CSIM, else build/app/csim of the repository holding this
    package (tools/python/csimpy -> ../../../build/app/csim)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get("CSIM") or os.path.normpath(
        os.path.join(here, "..", "..", "..", "build", "app", "csim"))


def simulate(scene, output, *args, csim=None):
    """Run `csim run SCENE -o OUTPUT ARGS...` (quiet, no progress line) and open the result.
    Extra arguments are converted with str(), e.g.
    `simulate("scenes/pendulum.yaml", "p.h5", "--dt", 1e-3, "--integrator", "midpoint")`.
    A run that fails numerically (exit 3) still opens (its status says `failed`); invalid
    input or an I/O error raises subprocess.CalledProcessError with csim's message."""
    cmd = [csim or default_csim(), "run", str(scene), "-o", str(output), "-q", "--no-progress",
           *[str(a) for a in args]]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        raise subprocess.CalledProcessError(proc.returncode, cmd, proc.stdout, proc.stderr)
    return Run(output)


def summarise(run):
    """Scalars of a run as a dict: status, failure_reason, rows, steps, t_end,
    step_wall_time_s (sum of /solver/wall_time), mean_iterations and max_iterations
    (over the rows that took a step, i.e. all but row 0), max_momentum_error,
    energy_initial, energy_final, energy_rel_change ((E_end - E0) / |E0|, nan when E0 is
    0), energy_rel_band (max - min of E over |E0|), mean_contacts, max_contacts."""
    n = run.n
    out = {"status": run.status, "failure_reason": run.failure_reason or "",
           "rows": n, "steps": int(run.step[-1]) if n else 0,
           "t_end": float(run.time[-1]) if n else float("nan")}
    stepped = slice(1, None) if n > 1 else slice(0, None)
    if n:
        it = run.iterations[stepped]
        out.update(step_wall_time_s=float(np.sum(run.wall_time)),
                   mean_iterations=float(np.mean(it)), max_iterations=int(np.max(it)),
                   max_momentum_error=float(np.max(run.momentum_error[stepped])))
        e = run.energy
        e0 = float(e[0])
        scale = abs(e0) if e0 != 0 else float("nan")
        out.update(energy_initial=e0, energy_final=float(e[-1]),
                   energy_rel_change=(float(e[-1]) - e0) / scale,
                   energy_rel_band=float(np.max(e) - np.min(e)) / scale)
        if run.has_contacts:
            out.update(mean_contacts=float(np.mean(run.contact_count)),
                       max_contacts=int(np.max(run.contact_count)))
    return out
