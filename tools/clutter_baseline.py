#!/usr/bin/python3
"""Clutter timing baseline: run the clutter scenes (SAP paper sec. VI-C) and summarise
the cost per time step from the recorded /solver/wall_time, /solver/iterations and
/contacts/count (every step is recorded: output.every = 1 is forced).

Per scene one CSV row: steps, time per step (mean and median over all steps, mean over
the settled phase = the last `--settled` seconds), mean Newton iterations (all steps and
settled), mean contacts per step (all and settled), real-time factor (simulated time /
sum of the step wall times) and the process's elapsed wall time. The row 0 (t = 0, no
step taken) is excluded. This is a measured baseline for later speed work, not a target;
timings depend on the machine (recorded in the `host` column) and its load: `--repeat R`
runs each scene R times (the runs are deterministic, so the steps are the same) and keeps
each step's smallest wall time, which filters out most interference from other processes.

Example (what results/clutter_baseline.csv was made with):
  tools/clutter_baseline.py scenes/clutter_40.yaml scenes/clutter_40_no_walls.yaml \\
      --dt 2e-3 --duration 2 --settled 0.5 --repeat 3 --csv results/clutter_baseline.csv
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

import study_common


def run(csim, scene, out, dt, duration, threads, extra):
    cmd = [csim, "run", scene, "-o", out, "--dt", repr(dt), "--duration", repr(duration),
           "--threads", str(threads), "--set", "settings.output.every=1", "--no-progress", "-q"] + extra
    start = time.perf_counter()
    proc = subprocess.run(cmd)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 3):
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    with h5py.File(out, "r") as f:
        n = len(f["/time"])
        data = {"t": f["/time"][:n], "wall": f["/solver/wall_time"][:n],
                "iters": f["/solver/iterations"][:n], "status": f["/status"].asstr()[()]}
        data["contacts"] = f["/contacts/count"][:n] if "/contacts/count" in f else np.zeros(n, int)
    return data, elapsed


def summarise(scene, d, elapsed, dt, settled, threads, repeat):
    t, wall, iters, contacts = (d[k][1:] for k in ("t", "wall", "iters", "contacts"))
    last = t >= t[-1] - settled + 0.5 * dt
    return {
        "scene": os.path.basename(scene), "status": d["status"], "dt": dt, "steps": len(t),
        "simulated_s": float(t[-1]), "threads": threads, "repeat": repeat,
        "step_ms_mean": 1e3 * wall.mean(), "step_ms_median": 1e3 * float(np.median(wall)),
        "step_ms_settled": 1e3 * wall[last].mean(), "step_ms_max": 1e3 * wall.max(),
        "newton_mean": iters.mean(), "newton_settled": iters[last].mean(), "newton_max": int(iters.max()),
        "contacts_mean": contacts.mean(), "contacts_settled": contacts[last].mean(),
        "real_time_factor": float(t[-1]) / wall.sum(), "process_s": elapsed, "host": study_common.cpu_model(),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenes", nargs="+")
    p.add_argument("--dt", type=float, default=2e-3)
    p.add_argument("--duration", type=float, default=2.0)
    p.add_argument("--settled", type=float, default=0.5, help="seconds at the end counted as settled")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=1, help="runs per scene; per-step minimum wall time")
    study_common.add_csim_arguments(p)
    p.add_argument("--csv", required=True)
    a = p.parse_args()
    extra = study_common.set_arguments(a)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scene in a.scenes:
            d, elapsed = run(a.csim, scene, os.path.join(tmp, "run.h5"), a.dt, a.duration, a.threads, extra)
            for _ in range(a.repeat - 1):
                again, e = run(a.csim, scene, os.path.join(tmp, "run.h5"), a.dt, a.duration, a.threads, extra)
                if not np.array_equal(again["iters"], d["iters"]):
                    sys.exit(f"{scene}: repeated runs differ (Newton iterations): not deterministic")
                d["wall"] = np.minimum(d["wall"], again["wall"])
                elapsed = min(elapsed, e)
            rows.append(summarise(scene, d, elapsed, a.dt, a.settled, a.threads, a.repeat))
    study_common.write_csv(a.csv, rows, ".4g")
    for r in rows:
        print(f"{r['scene']} ({r['status']}, {r['steps']} steps of {r['dt']:g} s): step "
              f"{r['step_ms_mean']:.3f} ms mean, {r['step_ms_median']:.3f} ms median, "
              f"{r['step_ms_settled']:.3f} ms settled; Newton {r['newton_mean']:.2f} mean, "
              f"{r['newton_settled']:.2f} settled; contacts {r['contacts_mean']:.1f} mean, "
              f"{r['contacts_settled']:.1f} settled; real-time factor {r['real_time_factor']:.3f} "
              f"(process {r['process_s']:.2f} s)")


if __name__ == "__main__":
    sys.exit(main())
