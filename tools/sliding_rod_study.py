#!/usr/bin/python3
"""The sliding rod of the irrotational-contact-fields paper (Castro, Han, Masterjohn, sec.
IX-C, its Figs. 8-12) with csim's lagged, similar and sap contact models.

scenes/sliding_rod.yaml: a 0.3 kg rod, 0.5 m long, stands on one end at 30 degrees and
slides at U0 = 10 m/s towards it, mu = 2.3, k = 1e7 N/m; friction turns it into the ground
until the contact jams and the rod jumps. Two cases: no dissipation, and d = 0.2 s/m
(Hunt & Crossley, Lagged and Similar) with tau_d = 4e-6 s (SAP). For each case:

  - a reference at a very small step (--reference-dt, every model; the Lagged one is the
    reference of the convergence study, as in the paper): contact force and contact
    velocity against time, with a close-up at the jam (the paper's Figs. 8-11);
  - the ladder of the paper, dt = 6.4e-4, 1.6e-4, 4e-5, 1e-5 s (--dt), continued to
    smaller steps (--extra-dt), for each model: e_q against the Lagged reference and the
    fitted orders (its Fig. 12);
  - a sweep of larger steps (--sweep-dt) over --sweep-duration: when each model jams, or
    that it misses the jam (the paper: Lagged misses it above about 1e-3 s).

The rod starts at each model's consistent gap (see START below) and the same contact
margin is used by every model at a given dt; the runs with the rod touching (the gap
Lagged needs) are repeated for Similar and SAP to show what that start does to them.

e_q is the paper's RMS position error over [0, T] (T = --duration), with the rod's planar
coordinates q = (x, z, a theta): the centre's position and the angle times the half-length
a = 0.25 m (how far the angle moves the rod's ends), so that e_q is in metres. Each run is
interpolated linearly between its steps onto the reference's recorded times (--reference-
every steps apart) and the integral is taken by the trapezoid rule.

Events of a run, from its rows: the jam is the first row with a normal force whose contact
slips slower than --jam-slip; the lift-off the first row after it without contact force;
the rod "catches" the impact when it jams and then lifts off within the run. The peak is
the largest normal force.

Writes --csv (one row per run: kind reference / ladder / sweep / touching, case, model,
dt, the start and its gap [m], the events [s] and peak force [N], the share of loaded
steps that start above the ground, v_z [m/s] and omega [rad/s] at the end, e_q [m]
against Lagged's and against the model's own reference, csim's process wall time [s] and
mean step time [us]), --markdown (the tables, the paper's claims checked, the departures),
and the figures --force-plot, --velocity-plot, --convergence-plot. Runs one csim at a
time (-j for more).

Example (results/sliding_rod.*; about 1.5 minutes):
  tools/sliding_rod_study.py --csv results/sliding_rod.csv --markdown results/sliding_rod.md \\
      --force-plot results/sliding_rod_force.png \\
      --velocity-plot results/sliding_rod_velocity.png \\
      --convergence-plot results/sliding_rod_convergence.png
"""
import argparse
import concurrent.futures
import math
import os
import sys
import tempfile
import time

import h5py
import numpy as np

from study_common import (add_csim_arguments, publish_markdown, require_csim, run_csim,
                          set_arguments, write_csv)

HERE = os.path.dirname(os.path.abspath(__file__))
SCENE = os.path.join(HERE, "..", "scenes", "sliding_rod.yaml")

# The scene's rod (scenes/sliding_rod.yaml): half-length a (centre to the lower cap's
# centre), cap radius r, initial slide speed U0, friction mu, stiffness k, the height of
# the centre with the cap touching, and the stiction tolerance v_s.
HALF, RADIUS, U0, MU, STIFFNESS, Z_TOUCH, V_S = 0.25, 0.005, 10.0, 2.3, 1.0e7, 0.13, 1.0e-4
MODELS = ["lagged", "similar", "sap"]
# The paper's two cases: Hunt & Crossley d [s/m] and SAP's tau_d [s].
CASES = {"none": {"d": 0.0, "tau_d": 0.0}, "dissipation": {"d": 0.2, "tau_d": 4.0e-6}}
CASE_TITLE = {"none": "no dissipation", "dissipation": "d = 0.2 s/m, tau_d = 4e-6 s"}
COLOURS = {"lagged": "C0", "similar": "C1", "sap": "C2"}


def gliding_gap(model, dt, tau_d):
    """START: the gap [m] at which `model` glides while the contact slides at U0, mu (dt +
    tau_d) U0 for SAP and mu dt U0 for Similar ([ICF] eq. 41), 0 for Lagged, which does not
    glide. Started there, the model's contact pushes with zero force at t = 0, as Lagged's
    does touching; started touching, Similar and SAP see the gap as an overlap."""
    if model == "sap":
        return MU * (dt + tau_d) * U0
    if model == "similar":
        return MU * dt * U0
    return 0.0


def margin(dt, tau_d):
    """Contact margin of every model at this dt: twice SAP's gliding gap (the largest), at
    least csim's default 1e-3 m, so that the ground is in every step's problem."""
    return max(1.0e-3, 2 * MU * (dt + tau_d) * U0)


def simulate(args, workdir, model, case, dt, duration, every=1, start="consistent"):
    """Runs the scene once; returns its series (see read_run) and the run's settings."""
    tau_d, d = CASES[case]["tau_d"], CASES[case]["d"]
    gap = gliding_gap(model, dt, tau_d) if start == "consistent" else 0.0
    out = os.path.join(workdir, f"{model}_{case}_{dt:g}_{duration:g}_{start}.h5")
    command = [args.csim, "run", SCENE, "-o", out, "-q", "--no-progress",
               "--dt", repr(dt), "--duration", repr(duration), "--contact-model", model,
               "--set", f"settings.output.every={every}",
               "--set", f"settings.contact_margin={margin(dt, tau_d)!r}",
               "--set", f"bodies.rod.pose.position=[0, 0, {Z_TOUCH + gap!r}]"]
    for material in ("ground", "rod"):
        command += ["--set", f"materials.{material}.hunt_crossley={d!r}",
                    "--set", f"materials.{material}.dissipation_time={tau_d!r}"]
    command += set_arguments(args)
    began = time.monotonic()
    run_csim(command)
    wall = time.monotonic() - began
    run = read_run(out)
    os.remove(out)
    run.update(model=model, case=case, dt=dt, duration=duration, start=start, gap=gap,
               wall_s=wall, steps=int(round(duration / dt)))
    return run


def read_run(path):
    """The rod's planar motion and its contact: time t, centre x, z, pitch theta (about +y;
    120 degrees at the start), velocities vx, vz, w (about +y), the lower cap's lowest
    point's velocity, normal vn and tangential vt (along x), the summed contact force fn
    (normal) and ft (along x), the largest recorded slip speed and the contact's phi0 at
    the start of the step (NaN without contact)."""
    with h5py.File(path, "r") as f:
        n = len(f["time"])
        t = f["time"][:n]
        p = f["bodies/position"][:n, 0, :]
        quat = f["bodies/quaternion"][:n, 0, :]
        v = f["bodies/linear_velocity"][:n, 0, :]
        w = f["bodies/angular_velocity"][:n, 0, 1]
        count, offset = f["contacts/count"][:n], f["contacts/offset"][:n]
        force = f["contacts/force"][:]
        slip = f["contacts/slip_speed"][:]
        distance = f["contacts/signed_distance"][:]
        step_wall = f["solver/wall_time"][1:n]
        status = f["status"][()]
    status = status.decode() if isinstance(status, bytes) else str(status)
    # Each contact's row (a row's contacts are consecutive from its offset).
    end = offset[n - 1] + count[n - 1] if n else 0
    row_of = np.repeat(np.arange(n), count)
    force, slip, distance = force[offset[0]:end], slip[offset[0]:end], distance[offset[0]:end]
    fn = np.bincount(row_of, weights=force[:, 2], minlength=n)
    ft = np.bincount(row_of, weights=force[:, 0], minlength=n)
    slip_max, phi0 = np.full(n, -np.inf), np.full(n, np.inf)
    np.maximum.at(slip_max, row_of, slip)
    np.minimum.at(phi0, row_of, distance)
    slip_max[count == 0] = phi0[count == 0] = np.nan
    theta = 2 * np.arctan2(quat[:, 2], quat[:, 0])
    # Lowest point of the lower cap: centre + a (sin theta, 0, cos theta) - r z; its
    # velocity v + w y x (that offset).
    rx, rz = HALF * np.sin(theta), HALF * np.cos(theta) - RADIUS
    return {"status": status, "t": t, "x": p[:, 0], "z": p[:, 2], "theta": theta,
            "vx": v[:, 0], "vz": v[:, 2], "w": w, "vt": v[:, 0] + w * rz, "vn": v[:, 2] - w * rx,
            "fn": fn, "ft": ft, "slip": slip_max, "phi0": phi0,
            "step_us": 1e6 * float(step_wall.mean()) if len(step_wall) else math.nan}


def events(run, jam_slip):
    """Jam, lift-off and peak of a run (see the top of this file); NaN where none."""
    t, fn, slip = run["t"], run["fn"], run["slip"]
    jammed = np.flatnonzero((fn > 0) & (slip < jam_slip))
    t_jam = t_lift = math.nan
    if jammed.size:
        t_jam = float(t[jammed[0]])
        off = np.flatnonzero((t > t_jam) & (fn == 0))
        if off.size:
            t_lift = float(t[off[0]])
    peak = int(np.argmax(fn))
    released = np.flatnonzero((t > t[peak]) & (fn == 0))
    # Steps that push while their contact starts above the ground (phi0 > 0), up to the jam:
    # Lagged's friction, mu times the normal impulse of the start-of-step overlap, is zero
    # in them.
    loaded = (fn > 0) & (t < (t_jam if not math.isnan(t_jam) else np.inf))
    unfrictioned = float(np.mean(run["phi0"][loaded] > 0)) if loaded.any() else math.nan
    return {"caught": bool(not math.isnan(t_lift)), "t_jam": t_jam, "t_lift": t_lift,
            "stick": t_lift - t_jam, "t_peak": float(t[peak]), "f_peak": float(fn[peak]),
            "t_release": float(t[released[0]]) if released.size else math.nan,
            "loaded_above_ground": unfrictioned,
            "vz_end": float(run["vz"][-1]), "w_end": float(run["w"][-1])}


def coordinates(run):
    return np.stack([run["x"], run["z"], HALF * run["theta"]], axis=1)


def position_error(run, reference):
    """e_q [m] of `run` against `reference` over the reference's recorded times."""
    t_ref = reference["t"]
    q_ref = coordinates(reference)
    q = np.stack([np.interp(t_ref, run["t"], c) for c in coordinates(run).T], axis=1)
    e2 = np.sum((q - q_ref) ** 2, axis=1)
    return math.sqrt(np.trapz(e2, t_ref) / (t_ref[-1] - t_ref[0]))


def fit_order(dts, errors):
    return float(np.polyfit(np.log(dts), np.log(errors), 1)[0])


def run_all(args, workdir):
    """Every run of the study: (kind, run) pairs, kind in reference, ladder, sweep,
    touching."""
    jobs = []
    every_ref = max(1, int(round(args.reference_every / args.reference_dt)))
    for case in CASES:
        for model in MODELS:
            jobs.append(("reference", model, case, args.reference_dt, args.duration, every_ref,
                         "consistent"))
            for dt in args.dt + args.extra_dt:
                every = max(1, int(round(args.reference_every / dt)))
                jobs.append(("ladder", model, case, dt, args.duration, every, "consistent"))
            for dt in args.sweep_dt:
                jobs.append(("sweep", model, case, dt, args.sweep_duration, 1, "consistent"))
            if model != "lagged":
                for dt in [args.reference_dt] + args.dt:
                    every = max(1, int(round(args.reference_every / dt)))
                    jobs.append(("touching", model, case, dt, args.duration, every, "touching"))

    def one(job):
        kind, model, case, dt, duration, every, start = job
        run = simulate(args, workdir, model, case, dt, duration, every, start)
        run["kind"] = kind
        if kind == "sweep":  # keep only what the tables need
            for key in ("x", "z", "theta", "vx", "vn", "vt", "ft"):
                run.pop(key)
        return run

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        return list(pool.map(one, jobs))


def analyse(runs, args):
    """The CSV rows, with each run's events and, for the ladder, e_q and local orders."""
    refs = {(r["case"], r["model"]): r for r in runs if r["kind"] == "reference"}
    rows = []
    for r in runs:
        ev = events(r, args.jam_slip)
        row = {"kind": r["kind"], "case": r["case"], "contact_model": r["model"], "dt": r["dt"],
               "duration": r["duration"], "start": r["start"], "initial_gap": r["gap"],
               "status": r["status"], "caught": ev["caught"], "t_jam": ev["t_jam"],
               "stick": ev["stick"], "t_lift": ev["t_lift"], "t_peak": ev["t_peak"],
               "f_peak": ev["f_peak"], "t_release": ev["t_release"],
               "loaded_above_ground": ev["loaded_above_ground"],
               "vz_end": ev["vz_end"], "w_end": ev["w_end"],
               "e_q": math.nan, "local_order": math.nan, "e_q_own": math.nan,
               "wall_s": r["wall_s"],
               "step_us": r["step_us"]}
        if r["kind"] in ("ladder", "touching"):
            row["e_q"] = position_error(r, refs[(r["case"], "lagged")])
        if r["kind"] == "ladder":
            row["e_q_own"] = position_error(r, refs[(r["case"], r["model"])])
        rows.append(row)
    for case in CASES:
        for model in MODELS:
            ladder = sorted((row for row in rows if row["kind"] == "ladder" and row["case"] == case
                             and row["contact_model"] == model), key=lambda row: -row["dt"])
            for prev, row in zip(ladder, ladder[1:]):
                row["local_order"] = fit_order([prev["dt"], row["dt"]], [prev["e_q"], row["e_q"]])
    return rows


def select(rows, **keys):
    return [r for r in rows if all(r[k] == v for k, v in keys.items())]


def one(rows, **keys):
    found = select(rows, **keys)
    return found[0] if found else None


def jam_run(rows, case, model, dt):
    """The run that says whether (model, case) jams at dt: the sweep's (the longer run)
    where there is one, else the ladder's."""
    return (one(rows, kind="sweep", case=case, contact_model=model, dt=dt) or
            one(rows, kind="ladder", case=case, contact_model=model, dt=dt))


def jam_dts(rows):
    """The steps of the jam table: the sweep's, and the ladder's down to 1e-6 s."""
    return sorted({r["dt"] for r in rows if r["kind"] == "sweep" or
                   (r["kind"] == "ladder" and r["dt"] >= 1e-6)}, reverse=True)


def ms(x):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{1e3 * x:.3f}"


def markdown(rows, args, command, total_wall):
    ref_dt = args.reference_dt
    lines = [
        "# Sliding rod (irrotational-contact-fields paper, sec. IX-C, Figs. 7-12)", "",
        f"Generated by `{command}` ({total_wall:.0f} s of wall time on this machine, one csim "
        f"at a time). Scene: `scenes/sliding_rod.yaml`, a 0.3 kg rod of 0.5 m (a capsule of "
        f"radius 5 mm with its cap centres 0.5 m apart, the inertia of a solid 1 cm "
        f"cylinder), standing on its lower cap at 30 degrees and sliding towards it at U0 = "
        f"{U0:g} m/s, mu = {MU:g}, k = {STIFFNESS:g} N/m, v_s = 1e-4 m/s, sigma = 1e-3, "
        f"symplectic Euler. Cases: no dissipation, and d = 0.2 s/m (Lagged, Similar) with "
        f"tau_d = 4e-6 s (SAP).", "",
        "Initial condition: the rod starts at each model's gliding gap mu (dt + tau_d) U0 "
        "(SAP), mu dt U0 (Similar), 0 (Lagged, touching), so that no model pushes at t = 0; "
        "every model at a given dt uses the same contact margin, max(1e-3 m, 2 mu (dt + "
        "tau_d) U0). The section *Touching start* shows why.", "",
        f"Reference: each model at dt = {ref_dt:g} s over {args.duration:g} s "
        f"({int(round(args.duration / ref_dt))} steps, recorded every "
        f"{args.reference_every:g} s), ten times below the paper's 1e-7 s; the Lagged "
        f"one is the reference of e_q, as in the paper. It costs "
        + ", ".join(f"{r['step_us']:.1f}" for r in select(rows, kind="reference"))
        + " us per step (csim's step timer, recorded steps only; the six reference runs in "
        "the order of the table below; machine-dependent); the paper's 1e-7 s is in the ladder below, so its distance from this "
        "reference is measured.", ""]

    # Reference events.
    lines += ["## Impact at the reference step (the paper's Figs. 8-11)", "",
              "Jam: the contact first sticks (slip below "
              f"{args.jam_slip:g} m/s under load); stick: from the jam to lift-off (no contact "
              "force); peak: the largest normal force; shift: the jam against Lagged's in the "
              "same case.", "",
              "| case | model | jam [ms] | shift [ms] | stick [ms] | lift-off [ms] | peak force [N] "
              "at [ms] | after: v_z [m/s], omega [rad/s] |", "|---|---|---|---|---|---|---|---|"]
    for case in CASES:
        lag = one(rows, kind="reference", case=case, contact_model="lagged")
        for model in MODELS:
            r = one(rows, kind="reference", case=case, contact_model=model)
            lines.append(f"| {CASE_TITLE[case]} | {model} | {ms(r['t_jam'])} | "
                         f"{ms(r['t_jam'] - lag['t_jam'])} | {ms(r['stick'])} | "
                         f"{ms(r['t_lift'])} | {r['f_peak']:.0f} at {ms(r['t_peak'])} | "
                         f"{r['vz_end']:.3f}, {r['w_end']:.3f} |")
    lines.append("")

    # Sweep: jam against dt.
    lines += ["## When the rod jams, against the time step", "",
              f"Jam time [ms] of each run; *missed*: no jam followed by lift-off within the "
              f"run ({args.sweep_duration:g} s for the steps of the sweep, "
              f"{args.duration:g} s for the smaller steps of the ladder). Reference jam: "
              + ", ".join(f"{CASE_TITLE[c]} "
                          f"{ms(one(rows, kind='reference', case=c, contact_model='lagged')['t_jam'])} ms"
                          for c in CASES)
              + ". Last column: the share of Lagged's loaded steps before its jam (or in the "
              "whole run) whose contact starts above the ground, phi0 > 0, where its friction, "
              "mu times the normal impulse of the start-of-step overlap, is zero (no "
              "dissipation).", "",
              "| dt [s] | " + " | ".join(f"{m}, {c}" for c in CASES for m in MODELS)
              + " | Lagged: loaded steps without friction |",
              "|---|" + "---|" * (len(CASES) * len(MODELS) + 1)]
    for dt in jam_dts(rows):
        cells = []
        for case in CASES:
            for model in MODELS:
                r = jam_run(rows, case, model, dt)
                cells.append("-" if r is None else (ms(r["t_jam"]) if r["caught"] else "missed"))
        share = jam_run(rows, "none", "lagged", dt)["loaded_above_ground"]
        lines.append(f"| {dt:g} | " + " | ".join(cells) + f" | {100 * share:.1f} % |")
    lines.append("")

    # Convergence.
    paper = sorted(args.dt, reverse=True)
    lines += ["## Convergence of the positions (the paper's Fig. 12)", "",
              f"e_q [m] against the Lagged reference (q = (x, z, a theta), a = {HALF:g} m, "
              f"T = {args.duration:g} s) and the local order from the step before. The "
              f"paper's ladder is {', '.join(f'{dt:g}' for dt in paper)} s; "
              f"{', '.join(f'{dt:g}' for dt in sorted(args.extra_dt, reverse=True))} s "
              f"continue it.", "",
              "| dt [s] | " + " | ".join(f"{m}, {c}" for c in CASES for m in MODELS) + " |",
              "|---|" + "---|" * (len(CASES) * len(MODELS))]
    ladder_dts = sorted({r["dt"] for r in select(rows, kind="ladder")}, reverse=True)
    for dt in ladder_dts:
        cells = []
        for case in CASES:
            for model in MODELS:
                r = one(rows, kind="ladder", case=case, contact_model=model, dt=dt)
                order = "" if math.isnan(r["local_order"]) else f" ({r['local_order']:.2f})"
                cells.append(f"{r['e_q']:.3g}{order}")
        lines.append(f"| {dt:g} | " + " | ".join(cells) + " |")
    lines += ["", "Fitted orders (least squares of log e_q on log dt); the last column takes "
              "e_q against the model's own run at the reference step instead of Lagged's, "
              "i.e. the convergence of each model to its own dt -> 0 limit:", "",
              "| case | model | paper's ladder | its two smallest steps | continued: steps "
              f"<= {args.fit_below:g} s | the same, against its own reference |",
              "|---|---|---|---|---|---|"]
    orders = {}
    for case in CASES:
        for model in MODELS:
            lad = select(rows, kind="ladder", case=case, contact_model=model)
            on = [r for r in lad if r["dt"] in args.dt]
            small = sorted(on, key=lambda r: r["dt"])[:2]
            fine = [r for r in lad if r["dt"] <= args.fit_below]
            o = [fit_order([r["dt"] for r in s], [r[key] for r in s]) if len(s) > 1 else math.nan
                 for s, key in ((on, "e_q"), (small, "e_q"), (fine, "e_q"), (fine, "e_q_own"))]
            orders[(case, model)] = o
            lines.append(f"| {CASE_TITLE[case]} | {model} | " + " | ".join(f"{x:.2f}" for x in o)
                         + " |")
    lines.append("")

    # Touching start.
    lines += ["## Touching start", "",
              "Similar and SAP started touching, as Lagged is: the gap at which they glide "
              "is then an overlap, k mu (dt + tau_d) U0 pushes at once (tau_d mu U0 k = "
              f"{CASES['dissipation']['tau_d'] * MU * U0 * STIFFNESS:.0f} N from SAP's "
              "tau_d alone, at any dt) and throws the rod up before it can turn into the "
              "ground. Lift-off [ms] (the first row without contact force after the largest "
              "one), jam [ms], and e_q [m] against the Lagged reference:", "",
              "| case | model | dt [s] | peak force [N] at [ms] | lift-off [ms] | jam [ms] | e_q [m] |",
              "|---|---|---|---|---|---|---|"]
    for case in CASES:
        for model in ("similar", "sap"):
            for r in sorted(select(rows, kind="touching", case=case, contact_model=model),
                            key=lambda r: -r["dt"]):
                lines.append(f"| {CASE_TITLE[case]} | {model} | {r['dt']:g} | {r['f_peak']:.0f} at "
                             f"{ms(r['t_peak'])} | {ms(r['t_release'])} | {ms(r['t_jam'])} | "
                             f"{r['e_q']:.3g} |")
    lines.append("")
    lines += claims(rows, args, orders)
    lines += departures(rows, args, orders)
    return "\n".join(lines) + "\n"


def departures(rows, args, orders):
    """Where csim's runs depart from the paper's, by how much and why."""
    def ref(case, model):
        return one(rows, kind="reference", case=case, contact_model=model)

    touching = {(r["case"], r["contact_model"], r["dt"]): r for r in select(rows, kind="touching")}
    sap_tau = touching[("dissipation", "sap", args.reference_dt)]
    sim_10 = touching.get(("none", "similar", 1e-5))
    lagged = {dt: jam_run(rows, "none", "lagged", dt) for dt in jam_dts(rows)}
    missed = sorted(dt for dt, r in lagged.items() if not r["caught"])
    coarse = [lagged[dt]["loaded_above_ground"] for dt in lagged if dt >= 3e-4]
    late = [lagged[dt]["t_jam"] / ref("none", "lagged")["t_jam"] for dt in lagged
            if dt >= 3e-4 and lagged[dt]["caught"]]
    fine = [lagged[dt]["loaded_above_ground"] for dt in lagged if dt <= 2.5e-4]
    smallest = min(select(rows, kind="ladder", case="dissipation", contact_model="sap"),
                   key=lambda r: r["dt"])
    smallest_similar = min(select(rows, kind="ladder", case="dissipation", contact_model="similar"),
                           key=lambda r: r["dt"])
    out = ["## Departures from the paper", "",
           "1. **Initial gap of Similar and SAP.** The paper does not give its initial gap. "
           "Started touching, as Lagged must be, Similar and SAP throw the rod up at once "
           "(*Touching start*): "
           + (f"at dt = 1e-5 s Similar pushes with {sim_10['f_peak']:.0f} N in its first "
              f"step and the rod is off the ground at {ms(sim_10['t_release'])} ms, " if sim_10 else "")
           + f"and SAP with tau_d = 4e-6 s does so at every dt (at {args.reference_dt:g} s: "
           f"{sap_tau['f_peak']:.0f} N, off at {ms(sap_tau['t_release'])} ms), which would "
           "contradict the paper's SAP, whose impact only comes later. Started at their "
           "gliding gap, the consistent initial condition of the SAP notes "
           "(scenes/sliding_box.yaml), both slide, jam and jump as the paper describes.",
           f"2. **Where Lagged misses the jam.** csim's Lagged misses it from dt = "
           f"{missed[0] if missed else float('nan'):g} s on, the paper's from about 1e-3 s; "
           + (f"from 3.2e-4 s on it jams at least {min(late):.1f} times later than the "
              f"reference, if at all (*When the rod jams*). " if late else "")
           + 
           "The cause in csim: over a step the rod's end moves on an arc about the centre, "
           "which the contact's first-order prediction of the overlap, phi0 + dt v_n, "
           "misses by about (1/2) omega^2 a |cos theta| dt^2 upwards (2e-7 m at dt = 1e-3 s "
           "and omega = 1.7 rad/s), more than the overlap that carries a few newtons (1e-7 m per "
           "N). The step pushes on the overlap it predicts, but the next starts with the end "
           "above the ground, where Lagged's friction, mu times the normal impulse of the "
           "start-of-step overlap, is zero: "
           + (f"{100 * min(coarse):.0f}-{100 * max(coarse):.0f} % of its loaded steps at "
              f"dt >= 3.2e-4 s carry no friction, " if coarse else "")
           + (f"at most {100 * max(fine):.1f} % at dt <= 2.5e-4 s. " if fine else "")
           + "Without the friction that turns it into the ground, the rod slides on and hops. "
           "Where that threshold lies depends on how a contact a hair above the ground at a "
           "step's start is treated (csim keeps it in the step within its contact margin); "
           "the paper gives no more than 'about 1e-3 s'.",
           f"3. **Convergence orders.** Over the paper's ladder the fitted orders are below one "
           f"(no dissipation: Lagged {orders[('none', 'lagged')][0]:.2f}, Similar "
           f"{orders[('none', 'similar')][0]:.2f}, SAP {orders[('none', 'sap')][0]:.2f}): at "
           f"its larger steps the impact comes tens of milliseconds late or not at all, and "
           f"the error saturates near the size of the jump. Continued below 1e-5 s the orders "
           f"approach one (last table of *Convergence*); the paper reports first order at its "
           f"smallest steps.",
           f"4. **With dissipation Similar and SAP converge to limits of their own**, not to "
           f"the Lagged reference: their e_q against it levels off (at the smallest step, "
           f"{smallest_similar['dt']:g} s: Similar {smallest_similar['e_q']:.3g} m, SAP "
           f"{smallest['e_q']:.3g} m; fitted orders {orders[('dissipation', 'similar')][2]:.2f} "
           f"and {orders[('dissipation', 'sap')][2]:.2f} at small dt), since as dt -> 0 their "
           f"jam stays {ms(ref('dissipation', 'similar')['t_jam'] - ref('dissipation', 'lagged')['t_jam'])}"
           f" ms and +{ms(ref('dissipation', 'sap')['t_jam'] - ref('dissipation', 'lagged')['t_jam'])}"
           f" ms from Lagged's: Similar stiffens while it slides, k (1 + mu d |v_t|), and SAP "
           f"glides at mu tau_d |v_t| (the paper's Table I and eq. 41), neither of which "
           f"vanishes with dt. Against their own runs at the reference step they converge at "
           f"orders {orders[('dissipation', 'similar')][3]:.2f} and "
           f"{orders[('dissipation', 'sap')][3]:.2f}. The paper does not quantify this; of "
           f"its Fig. 12 with dissipation it says the curves 'depart as the prediction of the "
           f"point of impact changes', and it calls both models inconsistent (sec. VII-D).",
           "5. **Model details.** The rod is a free body in 3-D whose motion stays in the x-z "
           "plane (the paper's case is planar), its contact a capsule's cap (scene header: "
           "why not a cylinder), its friction lever 5 mm longer than a line rod's; k, mu, d, "
           "tau_d, v_s and sigma are the paper's. The reference step is 1e-8 s, ten times "
           "below the paper's; the paper's 1e-7 s is a row of the convergence table.", ""]
    return out


def claims(rows, args, orders):
    """The paper's statements, each checked on these runs."""
    def ref(case, model):
        return one(rows, kind="reference", case=case, contact_model=model)

    out = ["## The paper's observations, checked", "",
           "| the paper | csim | holds |", "|---|---|---|"]
    jams = [ref("none", m)["t_jam"] for m in MODELS]
    spread = max(jams) - min(jams)
    out.append(f"| without dissipation all three models agree, the impact nearly at the same "
               f"time | jams at {', '.join(ms(j) for j in jams)} ms (lagged, similar, sap): "
               f"{1e3 * spread:.3f} ms apart, {100 * spread / jams[0]:.2f} % | "
               f"{'yes' if spread < 0.01 * jams[0] else 'no'} |")
    stick = ref("none", "lagged")["stick"]
    out.append(f"| the contact sticks for about 0.2 ms at the jam | Lagged: {ms(stick)} ms | "
               f"{'yes' if 0.1e-3 < stick < 0.4e-3 else 'no'} |")
    shift = ref("dissipation", "lagged")["t_jam"] - ref("none", "lagged")["t_jam"]
    out.append(f"| dissipation has very little effect on Lagged's impact time | "
               f"{1e3 * shift:+.3f} ms | {'yes' if abs(shift) < 0.01 * jams[0] else 'no'} |")
    s_sim = ref("dissipation", "similar")["t_jam"] - ref("dissipation", "lagged")["t_jam"]
    s_sap = ref("dissipation", "sap")["t_jam"] - ref("dissipation", "lagged")["t_jam"]
    out.append(f"| with dissipation Similar's impact comes earlier, SAP's later, shifts of the "
               f"same order | Similar {1e3 * s_sim:+.3f} ms, SAP {1e3 * s_sap:+.3f} ms | "
               f"{'yes' if s_sim < 0 < s_sap and 0.1 < abs(s_sap / s_sim) < 10 else 'no'} |")
    lagged = {dt: jam_run(rows, "none", "lagged", dt) for dt in jam_dts(rows)}
    missed = sorted(dt for dt, r in lagged.items() if not r["caught"])
    caught = sorted(dt for dt, r in lagged.items() if r["caught"])
    ref_jam = ref("none", "lagged")["t_jam"]
    if missed:
        below = [dt for dt in caught if dt < missed[0]]
        last = lagged[max(below)] if below else None
        out.append(f"| Lagged misses the impact above dt ~ 1e-3 s | it misses the jam at every "
                   f"step from {missed[0]:g} s on ({', '.join(f'{d:g}' for d in missed)} s)"
                   + (f"; at {last['dt']:g} s it jams at {ms(last['t_jam'])} ms, "
                      f"{last['t_jam'] / ref_jam:.1f} times the reference's"
                      if last else "") + " | "
                   f"{'yes' if all(d >= missed[0] for d in missed) else 'no'}, from "
                   f"{missed[0]:g} s instead of ~1e-3 s |")
    else:
        out.append("| Lagged misses the impact above dt ~ 1e-3 s | it catches it at every step "
                   "run | no |")
    big = max(args.dt)
    e = {m: one(rows, kind="ladder", case="none", contact_model=m, dt=big)["e_q"] for m in MODELS}
    none_within = not any(one(rows, kind="ladder", case="none", contact_model=m, dt=big)["caught"]
                          for m in MODELS)
    out.append(f"| Lagged has the largest error at the largest step | e_q at {big:g} s: "
               + ", ".join(f"{m} {e[m]:.3g} m" for m in MODELS) + " | "
               f"{'yes' if e['lagged'] >= max(e.values()) else 'no'}"
               + (f", by {100 * (e['lagged'] / max(e['similar'], e['sap']) - 1):.0f} %: within "
                  f"T = {args.duration:g} s none of the three jams at this step"
                  if none_within else "") + " |")
    sim_sap = [abs(one(rows, kind="ladder", case="none", contact_model="similar", dt=dt)["e_q"] /
                   one(rows, kind="ladder", case="none", contact_model="sap", dt=dt)["e_q"] - 1)
               for dt in args.dt]
    out.append(f"| Similar and SAP are nearly indistinguishable without dissipation | e_q "
               f"differ by at most {100 * max(sim_sap):.2g} % on the ladder | "
               f"{'yes' if max(sim_sap) < 0.05 else 'no'} |")
    for case in CASES:
        fine = {m: orders[(case, m)][2] for m in MODELS}
        own = {m: orders[(case, m)][3] for m in MODELS}
        out.append(f"| first-order convergence at small dt ({CASE_TITLE[case]}) | fitted orders "
                   f"on steps <= {args.fit_below:g} s against Lagged's reference: "
                   + ", ".join(f"{m} {fine[m]:.2f}" for m in MODELS)
                   + "; against the model's own: "
                   + ", ".join(f"{m} {own[m]:.2f}" for m in MODELS) + " | "
                   + ", ".join(f"{m} {'yes' if 0.8 < fine[m] < 1.25 else 'no'}" for m in MODELS)
                   + (" (to its own limit: " + ", ".join(
                       f"{m} {'yes' if 0.8 < own[m] < 1.25 else 'no'}" for m in MODELS if m != "lagged")
                      + ")" if any(not 0.8 < fine[m] < 1.25 for m in MODELS) else "")
                   + " |")
    out.append("")
    return out


def plots(runs, rows, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    refs = {(r["case"], r["model"]): r for r in runs if r["kind"] == "reference"}

    def window(case):
        jams = [one(rows, kind="reference", case=case, contact_model=m)["t_jam"] for m in MODELS]
        return min(jams) - 0.6e-3, max(jams) + 0.5e-3

    for path, keys, labels, unit in (
            (args.force_plot, ("fn", "ft"), ("normal", "friction"), "contact force [N]"),
            (args.velocity_plot, ("vn", "vt"), ("normal", "tangential"), "contact velocity [m/s]")):
        if not path:
            continue
        fig, axes = plt.subplots(len(CASES), 2, figsize=(12, 4.2 * len(CASES)), squeeze=False)
        for (whole, close), case in zip(axes, CASES):
            lo, hi = window(case)
            for model in MODELS:
                r = refs[(case, model)]
                for key, label, style in zip(keys, labels, ("-", "--")):
                    whole.plot(1e3 * r["t"], r[key], style, color=COLOURS[model], lw=0.8,
                               label=f"{model}, {label}")
                    near = (r["t"] >= lo) & (r["t"] <= hi)
                    close.plot(1e3 * r["t"][near], r[key][near], style, color=COLOURS[model],
                               lw=1.0, label=f"{model}, {label}")
            whole.axvspan(1e3 * lo, 1e3 * hi, color="0.9")
            whole.set(xlabel="time [ms]", ylabel=unit,
                      title=f"{CASE_TITLE[case]}, dt = {args.reference_dt:g} s")
            close.set(xlabel="time [ms]", ylabel=unit, title="close-up at the jam")
            for ax in (whole, close):
                ax.grid(True, alpha=0.3)
            close.legend(fontsize=7)
        fig.suptitle("csim, sliding rod (irrotational-contact-fields paper, sec. IX-C): "
                     + ("contact force on the rod" if keys[0] == "fn" else
                        "velocity of the rod's contact point (tangential: along x)"))
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)

    if args.convergence_plot:
        fig, axes = plt.subplots(1, len(CASES) + 1, figsize=(16, 4.6))
        for ax, case in zip(axes, CASES):
            for model in MODELS:
                lad = sorted(select(rows, kind="ladder", case=case, contact_model=model),
                             key=lambda r: r["dt"])
                ax.loglog([r["dt"] for r in lad], [r["e_q"] for r in lad], "o-",
                          color=COLOURS[model], label=model)
                on = [r for r in lad if r["dt"] in args.dt]
                ax.loglog([r["dt"] for r in on], [r["e_q"] for r in on], "o", ms=9, mfc="none",
                          color=COLOURS[model])
            dts = np.array(sorted({r["dt"] for r in select(rows, kind="ladder")}))
            e_small = one(rows, kind="ladder", case=case, contact_model="lagged", dt=dts[0])["e_q"]
            ax.loglog(dts, e_small * dts / dts[0], "k--", lw=0.8, label="slope 1")
            ax.set(xlabel="time step dt [s]", ylabel="e_q [m]",
                   title=f"{CASE_TITLE[case]} (circled: the paper's ladder)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        ax = axes[-1]
        for case, marker in zip(CASES, ("o", "s")):
            ref_jam = one(rows, kind="reference", case=case, contact_model="lagged")["t_jam"]
            for model in MODELS:
                sel = [jam_run(rows, case, model, dt) for dt in sorted(jam_dts(rows))]
                ax.semilogx([r["dt"] for r in sel],
                            [1e3 * r["t_jam"] if r["caught"] else np.nan for r in sel],
                            marker + ("-" if case == "none" else ":"), color=COLOURS[model],
                            ms=4, label=f"{model}, {CASE_TITLE[case]}")
                missed = [r["dt"] for r in sel if not r["caught"]]
                ax.semilogx(missed, [1e3 * args.sweep_duration] * len(missed), "x",
                            color=COLOURS[model])
            ax.axhline(1e3 * ref_jam, color="k", lw=0.6, ls="--" if case == "none" else ":")
        ax.set(xlabel="time step dt [s]", ylabel="jam time [ms]  (x: missed)",
               title="when the rod jams", ylim=(0, 1e3 * args.sweep_duration * 1.05))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
        fig.suptitle("csim, sliding rod: position error against the Lagged reference "
                     f"(dt = {args.reference_dt:g} s), and the jam against dt")
        fig.tight_layout()
        fig.savefig(args.convergence_plot, dpi=110)
        plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=0.032,
                        help="T [s] of e_q and of the reference runs")
    parser.add_argument("--reference-dt", type=float, default=1e-8)
    parser.add_argument("--reference-every", type=float, default=1e-6,
                        help="recording interval [s] of the reference and ladder runs")
    parser.add_argument("--dt", type=float, nargs="+", default=[6.4e-4, 1.6e-4, 4e-5, 1e-5],
                        help="the paper's ladder")
    parser.add_argument("--extra-dt", type=float, nargs="*", default=[2.5e-6, 6.25e-7, 1e-7],
                        help="steps continuing the ladder (1e-7: the paper's reference step)")
    parser.add_argument("--fit-below", type=float, default=1e-5,
                        help="the 'small dt' fitted order uses the steps at or below this")
    parser.add_argument("--sweep-dt", type=float, nargs="*",
                        default=[2.56e-3, 2e-3, 1.28e-3, 1e-3, 8e-4, 6.4e-4, 5e-4, 4e-4, 3.2e-4,
                                 2.5e-4, 2e-4, 1.6e-4, 1e-4],
                        help="larger steps: does each model still jam?")
    parser.add_argument("--sweep-duration", type=float, default=0.192)
    parser.add_argument("--jam-slip", type=float, default=0.05,
                        help="slip speed [m/s] below which a loaded contact counts as stuck")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--markdown")
    parser.add_argument("--force-plot")
    parser.add_argument("--velocity-plot")
    parser.add_argument("--convergence-plot")
    add_csim_arguments(parser)
    args = parser.parse_args()
    require_csim(args, "sliding_rod_study.py")
    command = "tools/sliding_rod_study.py " + " ".join(sys.argv[1:])
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="csim_sliding_rod_") as workdir:
        runs = run_all(args, workdir)
    rows = analyse(runs, args)
    total = time.monotonic() - began
    write_csv(args.csv, rows, ".6g")
    text = markdown(rows, args, command, total)
    plots(runs, rows, args)
    publish_markdown(text, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
