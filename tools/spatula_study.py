#!/usr/bin/python3
"""The SAP paper's slip-control demo (sec. VI-D): a spatula held by its handle between two
soft pads gripping with a square wave (16 N for 4.5 s, 1 N for 1.5 s). Runs
  - scenes/spatula_slip_control.yaml (hydroelastic patches) and
    scenes/spatula_point_contact.yaml (point contact), 12 s each, default settings;
  - the patch scene for 6.5 s (a period and the catch after it) under each
    warm start (extrapolated, the default; extrapolated under SAP's acceptance rule,
    settings.solver.exact_guess_fraction 1; previous, the paper's) and relative_tolerance
    (1e-6, 1e-5, 1e-4): mean Newton iterations per step, the fraction of steps with none, the largest
    momentum error, the pitch at 6.5 s and the wall time per step.
Every case runs --repeat times, alternating; the wall time is each step's fastest.
Pitch: the handle axis' angle below the horizontal, atan2(-a_z, a_x) with a the handle
cylinder's axis in the world, as in tests/scenes/spatula_slip_control_test.cc.

Writes a figure (pitch, grip force, contact constraints and Newton iterations against
time), a CSV table (the sweep and a row per 12 s run) and a Markdown report: per-phase
figures of the patch scene, the free-pivot bound, the point contact's pitch against the
frictionless-pivot pendulum integrated here, and csim against the scene headers' and the
paper's figures, each target marked as holding or not. Mass properties come from the scene
file. Iterations and trajectories are deterministic; wall times are not.

Example (what results/spatula_slip_control.{png,csv,md} were made with; 1-2 min on 2 cores):
  tools/spatula_study.py --csim build/app/csim --csv results/spatula_slip_control.csv \\
      --markdown results/spatula_slip_control.md --plot results/spatula_slip_control.png
"""
import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time

import h5py
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import yaml  # noqa: E402

from study_common import HERE, add_csim_arguments, publish_markdown, write_csv  # noqa: E402

SCENES = os.path.join(HERE, "..", "scenes")
PATCH_SCENE = os.path.join(SCENES, "spatula_slip_control.yaml")
POINT_SCENE = os.path.join(SCENES, "spatula_point_contact.yaml")
SWEEP_DURATION = 6.5  # s: the first period and 0.5 s of the next firm phase
# (label, overrides): csim's default; the same under SAP's acceptance rule (a guess that
# meets the stopping criterion stands without a Newton step); the paper's warm start.
SAP_RULE = "extrapolated, SAP's acceptance"
WARM_STARTS = [("extrapolated", []), (SAP_RULE, ["settings.solver.exact_guess_fraction=1"]),
               ("previous", ["settings.solver.warm_start=previous"])]
TOLERANCES = [1e-6, 1e-5, 1e-4]
# The paper's sec. VI-D: constraints while slipping and in stiction, Newton iterations per
# step with its warm start.
PAPER = {"slipping": 60, "stiction": 160, "iterations": 0.62}
# The scene headers' targets (checked by tests/scenes/spatula_slip_control_test.cc).
FIRM_CREEP_DEG, SINK_PATCH_M, SINK_POINT_M, PENDULUM_DEG = 0.02, 5e-3, 1e-3, 0.2
STICTION_BAND, SLIPPING_BAND = (140, 200), (40, 100)
# This study's own bound on how far the solver settings may move the pitch at 6.5 s [deg].
SETTINGS_SPREAD_DEG = 0.01


def rpy_rotation(roll, pitch, yaw):
    """R = Rz(yaw) Ry(pitch) Rx(roll), the scene format's rpy."""
    cr, sr, cp, sp, cy, sy = np.cos(roll), np.sin(roll), np.cos(pitch), np.sin(pitch), np.cos(yaw), np.sin(yaw)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def quaternion_rotation(q):
    """(N, 4) quaternions w, x, y, z -> (N, 3, 3) rotation matrices."""
    w, x, y, z = q.T
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def spatula_model(scene_path):
    """The spatula's numbers from the scene: mass m [kg], gravity g [m/s^2], the handle's
    centre and axis in the body frame, the inertia I about the grasp axis (world y through
    the handle's centre) [kg m^2], the centre of mass from the grasp c_W [m] at the start,
    the grip's firm time and period [s], and the free-pivot bound [deg]."""
    with open(scene_path) as f:
        scene = yaml.safe_load(f)
    body = next(b for b in scene["bodies"] if b["name"] == "spatula")
    handle = next(g for g in body["geometry"] if g["shape"] == "cylinder")
    ixx, iyy, izz, ixy, ixz, iyz = body["inertia"]
    I_B = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    R = rpy_rotation(*body["pose"]["rpy"])
    p_handle = np.array(handle["pose"]["position"])
    c_W = R @ (np.array(body["com"]) - p_handle)
    m = body["mass"]
    wave = scene["signals"]["squeeze_left"]
    model = {"m": m, "g": -scene["settings"].get("gravity", [0, 0, -9.81])[2],
             "handle_centre": p_handle, "handle_axis": rpy_rotation(*handle["pose"]["rpy"])[:, 2],
             "I": (R @ I_B @ R.T)[1, 1] + m * (c_W[0] ** 2 + c_W[2] ** 2), "c": c_W,
             "firm": wave["period"] * wave["duty"], "period": wave["period"]}
    # The pitch a free pivot allows from rest in one soft phase [deg]: 0.5 m g c_x / I T^2.
    T = model["period"] - model["firm"]
    model["free_pivot"] = np.degrees(0.5 * m * model["g"] * c_W[0] / model["I"] * T * T)
    return model


def simulate(csim, scene, out, settings):
    subprocess.run([csim, "run", scene, "-o", out, "-q"] + [x for s in settings for x in ("--set", s)],
                   check=True)


def load(path, model):
    """The series the study uses, per row: time, pitch [deg], the handle centre's height,
    grip force, contacts, and the solver's statistics (row 0, the initial state, has no
    step: statistics are taken over rows 1..)."""
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["model/body_names"][:]]
        actuators = [n.decode() if isinstance(n, bytes) else n for n in f["model/actuator_names"][:]]
        b = names.index("spatula")
        R = quaternion_rotation(f["bodies/quaternion"][:, b, :])
        a = R @ model["handle_axis"]
        d = {"t": f["time"][:], "pitch": np.degrees(np.arctan2(-a[:, 2], a[:, 0])),
             "handle_z": (f["bodies/position"][:, b, :] + R @ model["handle_centre"])[:, 2],
             "grip": f["actuators/effort"][:, actuators.index("left")],
             "contacts": f["contacts/count"][:], "iterations": f["solver/iterations"][:],
             "momentum_error": f["solver/momentum_error"][:], "wall": f["solver/wall_time"][:],
             "version": f.attrs["csim_version"]}
    it = d["iterations"][1:]
    d.update(mean_iterations=it.mean(), zero_fraction=np.mean(it == 0),
             max_momentum_error=d["momentum_error"][1:].max())
    return d


def at(d, t):
    """Index of the row nearest time t."""
    return int(np.argmin(np.abs(d["t"] - t)))


def phases(d, model):
    """Per-phase figures of the patch scene: firm phases from 0.5 s in to their end, soft
    phases until 0.5 s into the next firm phase (or the run's end)."""
    rows, end = [], d["t"][-1]
    window = lambda t0, t1: (d["t"] >= t0 - 1e-9) & (d["t"] <= t1 + 1e-9)  # noqa: E731
    for start in np.arange(0.0, end - 1e-9, model["period"]):
        firm_end, soft_end = start + model["firm"], start + model["period"]
        held = window(start + 0.5, firm_end)
        p0 = d["pitch"][at(d, start + 0.5)]
        rows.append({"kind": "firm", "phase": f"firm {start:g}-{firm_end:g} s",
                     "pitch_change": d["pitch"][at(d, firm_end)] - p0,
                     "largest_change": np.abs(d["pitch"][held] - p0).max(),
                     "constraints": d["contacts"][held].mean()})
        if firm_end >= end - 1e-9:
            break
        caught = min(soft_end + 0.5, end)
        i0, i1 = at(d, firm_end), at(d, caught)
        slipping = window(firm_end + 0.3, soft_end)
        steps = np.diff(d["pitch"][i0:i1 + 1])
        rows.append({"kind": "soft", "phase": f"soft {firm_end:g}-{soft_end:g} s (to {caught:g} s)",
                     "advance": d["pitch"][i1] - d["pitch"][i0], "monotone": steps.min() > -1e-5,
                     "constraints": d["contacts"][slipping].mean(),
                     "sink_mm": 1e3 * (d["handle_z"][i0] - d["handle_z"][i1])})
    return rows


def pendulum(t, model, h=1e-4):
    """Rotation phi [deg] from the start of I phi'' = m g (c_x cos phi + c_z sin phi), from
    rest, classical Runge-Kutta with step h, at the times t."""
    k = model["m"] * model["g"] / model["I"]
    cx, cz = model["c"][0], model["c"][2]
    acc = lambda phi: k * (cx * np.cos(phi) + cz * np.sin(phi))  # noqa: E731
    phi, w, s, out = 0.0, 0.0, 0.0, np.empty_like(t)
    for i, ti in enumerate(t):
        while s < ti - 0.5 * h:
            k1p, k1w = w, acc(phi)
            k2p, k2w = w + 0.5 * h * k1w, acc(phi + 0.5 * h * k1p)
            k3p, k3w = w + 0.5 * h * k2w, acc(phi + 0.5 * h * k2p)
            k4p, k4w = w + h * k3w, acc(phi + h * k3p)
            phi += h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p)
            w += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w)
            s += h
        out[i] = np.degrees(phi)
    return out


def running_mean(x, n=100):
    return np.convolve(x, np.ones(n) / n, mode="valid")


def figure(patch, point, path):
    fig, ax = plt.subplots(4, 1, sharex=True, figsize=(9, 10), height_ratios=[3, 1.2, 1.5, 1.5])
    ax[0].plot(patch["t"], patch["pitch"], color="C0", label="patches")
    twin = ax[0].twinx()  # point contact swings to ~170 deg: its own scale keeps the patches' steps visible
    twin.plot(point["t"], point["pitch"], color="C3", ls="--", label="point contact")
    twin.set_ylabel("pitch, point contact [deg]", color="C3")
    ax[0].legend(handles=ax[0].lines + twin.lines, loc="upper left")
    ax[1].plot(patch["t"][1:], patch["grip"][1:], color="k")
    for d, name, c in [(patch, "patches", "C0"), (point, "point contact", "C3")]:
        ax[2].plot(d["t"], d["contacts"], color=c, label=name)
        ax[3].plot(d["t"][100:], running_mean(d["iterations"][1:]), color=c,
                   label=f"{name} (mean {d['mean_iterations']:.2f})")
    ax[2].legend(loc="center", bbox_to_anchor=(0.25, 0.5))
    ax[3].axhline(PAPER["iterations"], color="gray", ls=":", label=f"SAP paper ({PAPER['iterations']})")
    ax[3].set_ylim(0.5, 1.6 * max(running_mean(patch["iterations"][1:]).max(), 1.0))
    ax[3].legend(loc="upper left", ncol=3)
    ax[3].set_xlabel("t [s]")
    titles = ["(a) handle pitch below the horizontal", "(b) grip force (actuator 'left')",
              "(c) contact constraints per step", "(d) Newton iterations per step, running mean over 100 steps"]
    labels = ["pitch, patches [deg]", "grip [N]", "constraints", "iterations"]
    for a, title, label in zip(ax, titles, labels):
        a.set_title(title, loc="left", fontsize=10)
        a.set_ylabel(label, color="C0" if a is ax[0] else "k")
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def targets(patch, point, phase_rows, bound, deviation, sweep):
    """The scene headers' and the paper's targets: (what, csim's figures, holds)."""
    firm = [r for r in phase_rows if r["kind"] == "firm"]
    soft = [r for r in phase_rows if r["kind"] == "soft"]

    def each(rows, key, f, test):
        return ", ".join(format(r[key], f) for r in rows), all(test(r) for r in rows)

    at = {w: next(r for r in sweep if r["warm_start"] == w and r["relative_tolerance"] == 1e-6)
          for w in ("previous", SAP_RULE)}
    spread = np.ptp([r["pitch_end_deg"] for r in sweep])
    sink = 1e3 * (point["handle_z"][0] - point["handle_z"][-1])
    error = max(patch["max_momentum_error"], point["max_momentum_error"])
    (lo, hi), (slo, shi) = STICTION_BAND, SLIPPING_BAND
    return [
        ("every step certified (momentum error < 1e-6), both scenes, 12 s", f"{error:.2g}", error < 1e-6),
        (f"firm grip holds the pitch: largest change < {FIRM_CREEP_DEG} deg per firm phase",
         *each(firm, "largest_change", ".4f", lambda r: r["largest_change"] < FIRM_CREEP_DEG)),
        (f"soft grip: the pitch goes steadily down, by 0.5 deg to half the free pivot ({0.5 * bound:.2f} deg)",
         *each(soft, "advance", ".3f", lambda r: 0.5 < r["advance"] < 0.5 * bound and r["monotone"])),
        (f"stays in the grasp: sink < {1e3 * SINK_PATCH_M:g} mm per soft phase",
         *each(soft, "sink_mm", ".2f", lambda r: r["sink_mm"] < 1e3 * SINK_PATCH_M)),
        (f"about {PAPER['stiction']} constraints in stiction (paper; the test's band {lo}-{hi})",
         *each(firm, "constraints", ".1f", lambda r: lo < r["constraints"] < hi)),
        (f"about {PAPER['slipping']} constraints slipping (paper; the test's band {slo}-{shi})",
         *each(soft, "constraints", ".1f", lambda r: slo < r["constraints"] < shi)),
        (f"below 1 Newton iteration per step with the warm start, eps_r 1e-6 (the paper: "
         f"{PAPER['iterations']})", f"{at[SAP_RULE]['mean_iterations']:.3f} ({SAP_RULE}, {SWEEP_DURATION:g} s); "
         f"{patch['mean_iterations']:.3f} (extrapolated, 12 s), "
         f"{at['previous']['mean_iterations']:.3f} (previous, {SWEEP_DURATION:g} s)",
         min(patch["mean_iterations"], at[SAP_RULE]["mean_iterations"]) < 1),
        (f"the solver settings leave the pitch at {SWEEP_DURATION:g} s within {SETTINGS_SPREAD_DEG} deg "
         "(this study's bound)", f"spread {spread:.4f}", spread < SETTINGS_SPREAD_DEG),
        (f"point contact follows the free pendulum within {PENDULUM_DEG} deg", f"{deviation:.3f}",
         deviation < PENDULUM_DEG),
        ("point contact passes 170 deg by 12 s", f"{point['pitch'][-1]:.1f}", point["pitch"][-1] > 170),
        (f"point contact holds the weight: sink < {1e3 * SINK_POINT_M:g} mm", f"{sink:.3f}",
         sink < 1e3 * SINK_POINT_M)]


def report(command, patch, point, phase_rows, model, deviation, sweep, repeat, elapsed, load):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    bound = model["free_pivot"]
    L = ["# The spatula slip-control demo (SAP paper sec. VI-D)\n",
         f"Generated by `tools/spatula_study.py` on {datetime.date.today()} with csim {patch['version']}; "
         f"host {cpu}, {os.cpu_count()} cores, load average {load[0]:.1f} at the start and {load[1]:.1f} at "
         f"the end; the study took {elapsed:.0f} s. Command:\n", f"    {command}\n",
         "Scenes: `scenes/spatula_slip_control.yaml` (hydroelastic patches) and "
         "`scenes/spatula_point_contact.yaml` (point contact), dt = 1 ms, 12 s, default settings; grip "
         f"{patch['grip'].max():g} N for {model['firm']:g} s then {patch['grip'][1:].min():g} N, period "
         f"{model['period']:g} s. Pitch: the handle axis' angle below the horizontal ({patch['pitch'][0]:.3f} "
         "deg at the start). Figure: `results/spatula_slip_control.png`.\n",
         "## Patches, per phase\n",
         "Firm phases: the pitch change from 0.5 s in to the phase's end (net, and the largest |change| "
         "on the way), mean constraints over the same window. Soft phases: the pitch advance from the "
         "phase's start until 0.5 s into the next firm phase (or the run's end), whether it never goes "
         "back up, mean constraints from 0.3 s in to the phase's end, and the handle centre's sink over "
         "the advance.\n",
         "| phase | pitch change [deg] | largest change [deg] | advance [deg] | steadily down | "
         "mean constraints | sink [mm] |", "|---|---|---|---|---|---|---|"]
    for r in phase_rows:
        cell = lambda k, f: format(r[k], f) if k in r else ""  # noqa: E731
        down = ("yes" if r["monotone"] else "no") if "monotone" in r else ""
        L.append(f"| {r['phase']} | {cell('pitch_change', '.4f')} | {cell('largest_change', '.4f')} | "
                 f"{cell('advance', '.3f')} | {down} | {r['constraints']:.1f} | {cell('sink_mm', '.2f')} |")
    c = model["c"]
    L += ["", f"Free-pivot bound per soft phase: 0.5 m g c_x / I T^2 = {bound:.2f} deg (m = {model['m']} kg, "
          f"c = ({1e3 * c[0]:.2f}, {1e3 * c[2]:.2f}) mm from the grasp, I = {model['I']:.4f} kg m^2 about "
          f"the grasp axis, T = {model['period'] - model['firm']:g} s).\n", "## Point contact\n",
          f"The pitch reaches {point['pitch'][-1]:.1f} deg at {point['t'][-1]:g} s; its largest deviation from "
          "the frictionless-pivot pendulum I phi'' = m g (c_x cos phi + c_z sin phi) (from rest, RK4, h = 0.1 ms) "
          f"is {deviation:.3f} deg; {point['contacts'][1:].mean():.2f} constraints and "
          f"{point['mean_iterations']:.2f} Newton iterations per step.\n",
          "## Targets\n", "| target | csim | verdict |", "|---|---|---|"]
    L += [f"| {what} | {value} | {'holds' if ok else '**does not hold**'} |"
          for what, value, ok in targets(patch, point, phase_rows, bound, deviation, sweep)]
    return "\n".join(L + sweep_section(sweep, repeat))


def sweep_section(sweep, repeat):
    """The Markdown lines of the solver settings' table."""
    L = ["", f"## Solver settings (patches, {SWEEP_DURATION:g} s)\n",
         "Mean Newton iterations per step, the fraction of steps with none, the largest momentum error, "
         f"the pitch at {SWEEP_DURATION:g} s and the mean wall time per step (each step's fastest of {repeat} "
         "alternating runs; machine- and load-dependent).\n",
         "| warm start | eps_r | iterations/step | zero-iteration steps | max momentum error | "
         f"pitch at {SWEEP_DURATION:g} s [deg] | wall [ms/step] |", "|---|---|---|---|---|---|---|"]
    L += [f"| {r['warm_start']} | {r['relative_tolerance']:g} | {r['mean_iterations']:.3f} | "
          f"{r['zero_iteration_fraction']:.3f} | {r['max_momentum_error']:.2g} | {r['pitch_end_deg']:.4f} | "
          f"{r['wall_ms_per_step']:.3f} |" for r in sweep]
    below = [f"{r['warm_start']} at eps_r {r['relative_tolerance']:g} ({r['mean_iterations']:.2f})"
             for r in sweep if r["mean_iterations"] <= PAPER["iterations"]]
    zero = max(r["zero_iteration_fraction"] for r in sweep if r["warm_start"] == "extrapolated")
    L += ["", f"At or below the paper's {PAPER['iterations']} iterations per step: {', '.join(below) or 'none'}. "
          "By default the extrapolated warm start is refined by at least one Newton step unless it meets "
          "the stopping criterion to a fraction of the tolerance (`settings.solver.exact_guess_fraction`, "
          "1e-6), so that its error, which points the same way step after step, does not accumulate "
          f"(docs/design/warm-start-and-prediction.md §1.2): under it {100 * zero:.2f} % of the steps here "
          "take none. SAP's own rule (`exact_guess_fraction: 1`) accepts any guess that meets the "
          "criterion; the pitch column shows what that costs here.\n"]
    return L


def stats_row(run, scene, warm, tol, d):
    return {"run": run, "scene": scene, "duration": d["t"][-1], "warm_start": warm, "relative_tolerance": tol,
            "mean_iterations": d["mean_iterations"], "zero_iteration_fraction": d["zero_fraction"],
            "max_momentum_error": d["max_momentum_error"], "pitch_end_deg": d["pitch"][-1],
            "wall_ms_per_step": 1e3 * d["wall"][1:].mean(), "mean_constraints": d["contacts"][1:].mean()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_csim_arguments(parser)
    parser.add_argument("--csv")
    parser.add_argument("--markdown")
    parser.add_argument("--plot", metavar="PNG")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each case; wall time: each step's fastest")
    args = parser.parse_args()
    command = " ".join(["tools/spatula_study.py"] + sys.argv[1:])
    began, load_start = time.monotonic(), os.getloadavg()[0]
    model = spatula_model(PATCH_SCENE)
    # (run, scene, warm start, eps_r, overrides); the 12 s runs keep the defaults.
    cases = [("12 s", PATCH_SCENE, "extrapolated", 1e-6, []), ("12 s", POINT_SCENE, "extrapolated", 1e-6, [])]
    cases += [("sweep", PATCH_SCENE, w, tol, [f"settings.duration={SWEEP_DURATION}",
                                              f"settings.solver.relative_tolerance={tol}"] + more)
              for w, more in WARM_STARTS for tol in TOLERANCES]
    runs = [None] * len(cases)
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "run.h5")
        for k in range(args.repeat):  # alternating, so that a slow phase of the machine hits every case
            print(f"round {k + 1} of {args.repeat}", file=sys.stderr, flush=True)
            for i, (_, scene, _, _, overrides) in enumerate(cases):
                simulate(args.csim, scene, out, overrides + args.set)
                d = load(out, spatula_model(scene))
                if runs[i] is not None:
                    d["wall"] = np.minimum(d["wall"], runs[i]["wall"])
                runs[i] = d
    rows = [stats_row(run, os.path.basename(scene)[:-5], w, tol, d)
            for (run, scene, w, tol, _), d in zip(cases, runs)]
    patch, point, sweep = runs[0], runs[1], rows[2:]
    deviation = np.abs(point["pitch"] - (point["pitch"][0] + pendulum(point["t"], spatula_model(POINT_SCENE)))).max()
    if args.csv:
        write_csv(args.csv, sweep + rows[:2], ".6g")
    if args.plot:
        figure(patch, point, args.plot)
    publish_markdown(report(command, patch, point, phases(patch, model), model, deviation, sweep, args.repeat,
                            time.monotonic() - began, (load_start, os.getloadavg()[0])), args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
