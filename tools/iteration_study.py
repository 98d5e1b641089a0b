#!/usr/bin/python3
"""Newton iterations per step on the SAP paper's clutter over several seeds, for csim's
defaults (extrapolated warm start and stiction prediction in up to 20 Newton directions,
also for the contacts a cut Newton step carries through or close past stiction), the
defaults without those learnt predictions (csim before 2026-11-24) and with the prediction in the first
direction only (csim before 2026-11-22), each of warm start and prediction alone, and plain
SAP (warm start v0, no prediction: the paper's algorithm): one run is one chaotic pile, whose
settled configuration (and with it the settled iteration count) varies with the seed, so a
claim about iterations needs more than one pile.

For each seed, time step and variant: tools/make_clutter.py writes the scene,
csim runs it (every step recorded) and the script reads /solver/iterations, /time and
/energy/kinetic. Prints a Markdown table (means over seeds) and writes one CSV row per run.

Example (results/iterations.md; about 3 minutes on 2 cores):
  tools/iteration_study.py --objects 40 --seeds 1 2 3 4 --dt 2e-3 1e-3 --duration 10 \
      --settled 5 --csv results/iterations.csv --markdown results/iterations.md
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from study_common import (add_csim_arguments, publish_markdown, require_csim, run_csim,
                          set_arguments, write_csv)

HERE = os.path.dirname(os.path.abspath(__file__))

# (label, settings.solver.warm_start, predict_stiction, prediction_iterations,
#  predict_crossings, defer_separated); the default first (tools/bench_targets.py reads
#  variant 0).
VARIANTS = [
    ("csim default: extrapolated warm start + stiction prediction (up to 20 directions, "
     "and contacts a cut step carries through or close past stiction), contacts apart at the "
     "warm start deferred", "extrapolated", "true", 20, "true", "true"),
    ("the default without deferred contacts (islands from every candidate)",
     "extrapolated", "true", 20, "true", "false"),
    ("the default without the predictions learnt within the solve",
     "extrapolated", "true", 20, "false", "true"),
    ("extrapolated warm start + stiction prediction in the first direction only",
     "extrapolated", "true", 1, "false", "true"),
    ("extrapolated warm start only", "extrapolated", "false", 20, "false", "true"),
    ("stiction prediction only (up to 20 directions)", "previous", "true", 20, "false", "true"),
    ("plain SAP: warm start v0, no prediction, islands from every candidate", "previous",
     "false", 20, "false", "false"),
]


def scene_path(args, workdir, seed, dt):
    return os.path.join(workdir, f"clutter_{args.objects}_{seed}_{dt:g}.yaml")


def make_scene(args, workdir, seed, dt):
    command = [sys.executable, os.path.join(HERE, "make_clutter.py"), "-n", str(args.objects),
               "--seed", str(seed), "--dt", repr(dt), "--duration", repr(args.duration),
               "-o", scene_path(args, workdir, seed, dt)]
    if args.no_walls:
        command.append("--no-walls")
    subprocess.run(command, check=True, capture_output=True)


def run_one(args, workdir, seed, dt, variant):
    label, warm_start, predict, prediction_iterations, crossings, defer = VARIANTS[variant]
    scene = scene_path(args, workdir, seed, dt)
    out = os.path.join(workdir, f"run_{seed}_{dt:g}_{variant}.h5")
    command = [args.csim, "run", scene, "-o", out, "-q", "--set", "settings.output.every=1",
               "--set", f"settings.solver.warm_start={warm_start}",
               "--set", f"settings.solver.predict_stiction={predict}",
               "--set", f"settings.solver.prediction_iterations={prediction_iterations}",
               "--set", f"settings.solver.predict_crossings={crossings}",
               "--set", f"settings.solver.defer_separated={defer}",
               *set_arguments(args)]
    run_csim(command)
    with h5py.File(out, "r") as f:
        iterations = f["solver/iterations"][:]
        t = f["time"][:]
        kinetic = f["energy/kinetic"][:]
    os.remove(out)
    settled = t > t[-1] - args.settled
    last_second = t > t[-1] - 1.0  # the speed issue's "settled last second"
    return {"objects": args.objects, "walls": 0 if args.no_walls else 1, "seed": seed, "dt": dt,
            "variant": variant, "warm_start": warm_start, "predict_stiction": predict,
            "prediction_iterations": prediction_iterations, "predict_crossings": crossings,
            "defer_separated": defer,
            "steps": int(len(t) - 1),
            "iterations_mean": float(iterations[1:].mean()),
            "settled_iterations_mean": float(iterations[settled].mean()),
            "iterations_max": int(iterations.max()),
            "settled_kinetic_energy_mean": float(kinetic[settled].mean()),
            "last_second_iterations_mean": float(iterations[last_second].mean())}


def markdown(rows, args, command):
    lines = [f"# Newton iterations per step, clutter-{args.objects} "
             f"{'without' if args.no_walls else 'with'} walls, seeds "
             f"{' '.join(str(s) for s in args.seeds)}", "",
             f"Generated by `{command}`; one row per time step and variant, means "
             f"over the seeds (per-seed values in brackets). Overall = every step of the "
             f"{args.duration:g} s run; settled = the last {args.settled:g} s; last second = "
             f"the speed issue's settled window. Iterations are the step's Newton rounds (the "
             f"island that took most).", "",
             "| dt | variant | overall | settled | last second | max | settled kinetic energy [J] |",
             "|---|---|---|---|---|---|---|"]
    for dt in args.dt:
        for variant, (label, *_) in enumerate(VARIANTS):
            sel = [r for r in rows if r["dt"] == dt and r["variant"] == variant]
            if not sel:
                continue
            o = [r["iterations_mean"] for r in sel]
            s = [r["settled_iterations_mean"] for r in sel]
            last = [r["last_second_iterations_mean"] for r in sel]
            lines.append(
                f"| {dt:g} | {label} "
                f"| {np.mean(o):.2f} [{' '.join(f'{x:.2f}' for x in o)}] "
                f"| {np.mean(s):.2f} [{' '.join(f'{x:.2f}' for x in s)}] "
                f"| {np.mean(last):.2f} [{' '.join(f'{x:.2f}' for x in last)}] "
                f"| {max(r['iterations_max'] for r in sel)} "
                f"| {np.mean([r['settled_kinetic_energy_mean'] for r in sel]):.2g} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=40)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--dt", type=float, nargs="+", default=[2e-3, 1e-3])
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--settled", type=float, default=5.0, help="last seconds = settled")
    parser.add_argument("--no-walls", action="store_true")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--markdown", help="also write the Markdown table here")
    add_csim_arguments(parser)
    args = parser.parse_args()
    require_csim(args, "iteration_study.py")
    command = "tools/iteration_study.py " + " ".join(sys.argv[1:])
    jobs = [(seed, dt, v) for dt in args.dt for v in range(len(VARIANTS)) for seed in args.seeds]
    with tempfile.TemporaryDirectory(prefix="csim_iterations_") as workdir:
        # Scenes first (one per seed and dt), so that parallel runs never race on them.
        for dt in args.dt:
            for seed in args.seeds:
                make_scene(args, workdir, seed, dt)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(lambda j: run_one(args, workdir, *j), jobs))
    rows.sort(key=lambda r: (-r["dt"], r["variant"], r["seed"]))
    write_csv(args.csv, rows, ".6g")
    text = markdown(rows, args, command)
    publish_markdown(text, args.markdown)


if __name__ == "__main__":
    main()
