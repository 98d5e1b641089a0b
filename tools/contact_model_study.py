#!/usr/bin/python3
"""The four contact models on the clutter of the irrotational-contact-fields paper (Castro,
Han, Masterjohn, sec. IX-A): 40 spheres and boxes dropped in four columns into a box,
k = 1e7 N/m (steel), Hunt & Crossley d = 10 s/m, SAP's tau_d = 1e-4 s, v_s = 1e-4 m/s,
sigma = 1e-3, mu = 1, 3 s. The paper reports (its Figs. 14-17), for SAP, Lagged,
regularized Lagged and Similar:
  - Lagged and Similar take more Newton iterations than SAP during the initial impacts,
    SAP more than they once the pile has settled;
  - the regularized stiction tolerance (its eq. 44) brings Lagged's iterations down in the
    impacts;
  - as the time step shrinks, Lagged's and Similar's iterations fall while SAP's stay
    about constant, and at small steps Lagged with and without regularization coincide;
  - the steady penetration of the pile is tiny (tenths of microns for near-rigid SAP).
This script measures the same quantities with csim, so the claims can be checked here,
with csim's default solver and with the paper's plain algorithm (SOLVERS below).

For each model, time step and seed: tools/make_clutter.py writes the scene (its container
is csim's usual 40 cm high box, the paper's is 80 cm; nothing leaves either), csim runs it
recording every step, and the script reads /solver/iterations, /solver/momentum_error,
/time and /contacts/signed_distance. Transient = the first `--transient` seconds (the
paper: the collision phase is over at about 2 s); settled = the last `--settled` seconds
(the paper's penetration window: 1.25 s). Writes a CSV row per run, a Markdown table
(means over the seeds) and a figure: iterations against time at one time step (the
paper's Fig. 14, left) and mean iterations against the time step (Fig. 16, left).

A failed run (csim's exit status 3: a step did not converge) stops the study with csim's
message; tools/stiffness_study.py, which expects failures, reports them instead.

Example (results/contact_models.md; about 1.5 minutes on 2 cores):
  tools/contact_model_study.py --seeds 1 2 3 --dt 5e-3 2e-3 1e-3 5e-4 \\
      --csv results/contact_models.csv --markdown results/contact_models.md \\
      --figure results/contact_models.png
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from study_common import (CONTACT_MODELS, add_csim_arguments, publish_markdown, require_csim,
                          run_csim, set_arguments, write_csv)

HERE = os.path.dirname(os.path.abspath(__file__))

MODELS = CONTACT_MODELS
# csim's default solver (extrapolated warm start; SAP also predicts stiction) and the plain
# algorithm the paper ran (warm start from the previous velocity, no prediction).
SOLVERS = {"default": [],
           "plain": ["--set", "settings.solver.warm_start=previous",
                     "--set", "settings.solver.predict_stiction=false"]}
# The paper's sec. IX-A parameters; v_s = 1e-4 m/s and sigma = 1e-3 are csim's defaults.
STIFFNESS, DISSIPATION_TIME, HUNT_CROSSLEY = 1.0e7, 1.0e-4, 10.0


def scene_path(workdir, model, seed, dt, stiffness=STIFFNESS):
    return os.path.join(workdir, f"clutter_{model}_{seed}_{dt:g}_{stiffness:g}.yaml")


def make_scene(args, workdir, model, seed, dt, stiffness=STIFFNESS):
    """The paper's clutter (tools/make_clutter.py) for one model, seed, dt and stiffness."""
    command = [sys.executable, os.path.join(HERE, "make_clutter.py"), "-n", str(args.objects),
               "--seed", str(seed), "--dt", repr(dt), "--duration", repr(args.duration),
               "--stiffness", repr(stiffness), "--dissipation-time", repr(DISSIPATION_TIME),
               "--hunt-crossley", repr(HUNT_CROSSLEY), "--contact-model", model,
               "-o", scene_path(workdir, model, seed, dt, stiffness)]
    subprocess.run(command, check=True, capture_output=True)


def penetration(f, rows):
    """Mean and median overlap -phi0 [m] over the overlapping contacts of the given rows (the
    median is the typical resting contact; the mean also feels a few deep impacts)."""
    count, offset = f["contacts/count"][:], f["contacts/offset"][:]
    phi = f["contacts/signed_distance"][:]
    picked = [phi[offset[i]:offset[i] + count[i]] for i in np.flatnonzero(rows)]
    phi = np.concatenate(picked) if picked else np.zeros(0)
    overlap = -phi[phi < 0]
    return (float(overlap.mean()), float(np.median(overlap))) if overlap.size else (0.0, 0.0)


def run_one(args, workdir, solver, model, seed, dt, stiffness=STIFFNESS):
    """Runs one scene of make_scene with `solver` (SOLVERS) and returns its figures; raises
    study_common.CsimFailed, with csim's message and exit status, when the run fails."""
    out = os.path.join(workdir, f"run_{solver}_{model}_{seed}_{dt:g}_{stiffness:g}.h5")
    command = [args.csim, "run", scene_path(workdir, model, seed, dt, stiffness), "-o", out, "-q",
               "--set", "settings.output.every=1", *SOLVERS[solver], *set_arguments(args)]
    run_csim(command)
    with h5py.File(out, "r") as f:
        t = f["time"][:]
        iterations = f["solver/iterations"][:]
        error = f["solver/momentum_error"][:]
        wall = f["solver/wall_time"][:]
        settled = t > t[-1] - args.settled
        overlap_mean, overlap_median = penetration(f, settled)
    os.remove(out)
    steps = slice(1, None)  # row 0 is the initial state, not a step
    transient = (t > 0) & (t <= args.transient)
    # Iterations against time for the figure: means over bins of 0.05 s.
    bins = np.floor(t[steps] / 0.05).astype(int)
    binned = np.bincount(bins, weights=iterations[steps]) / np.maximum(np.bincount(bins), 1)
    return {"solver": solver, "model": model, "seed": seed, "dt": dt, "stiffness": stiffness,
            "steps": int(len(t) - 1),
            "iterations_mean": float(iterations[steps].mean()),
            "transient_iterations_mean": float(iterations[transient].mean()),
            "settled_iterations_mean": float(iterations[settled].mean()),
            "iterations_max": int(iterations.max()),
            "momentum_error_max": float(error[steps].max()),
            "wall_ms_per_step": float(1e3 * wall[steps].mean()),
            "settled_penetration_mean": overlap_mean,
            "settled_penetration_median": overlap_median,
            "_binned": binned}


def markdown(rows, args, command):
    lines = [f"# Contact models on the clutter of the irrotational-contact-fields paper "
             f"(sec. IX-A), seeds {' '.join(str(s) for s in args.seeds)}", "",
             f"Generated by `{command}`. {args.objects} objects, k = {STIFFNESS:g} N/m, "
             f"d = {HUNT_CROSSLEY:g} s/m, tau_d = {DISSIPATION_TIME:g} s, v_s = 1e-4 m/s, "
             f"sigma = 1e-3, mu = 1, {args.duration:g} s. Means over the seeds (per-seed "
             f"values in brackets). Iterations are the step's Newton rounds (the island that "
             f"took most); transient = the first {args.transient:g} s, settled = the last "
             f"{args.settled:g} s. Every step is certified by the same stopping criterion "
             f"(eps_r = 1e-6 unless --set says otherwise): the maximum momentum error is "
             f"the largest over all steps of all seeds. Penetration: mean overlap of the "
             f"overlapping contacts over the settled window. ms/step: csim's own step timer "
             f"with {args.jobs} run(s) in parallel (indicative only). Two solvers: csim's "
             f"default (the velocity extrapolated from the last two steps as the warm start; "
             f"SAP also predicts which contacts stick), and plain, the paper's algorithm "
             f"(warm start from the previous velocity, no prediction).", ""]
    for solver in args.solvers:
        lines += [f"## Solver: {solver}", "",
                  "| dt | model | iterations overall | transient | settled | max "
                  "| max momentum error | settled penetration [m] | ms/step |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for dt in args.dt:
            for model in args.models:
                sel = [r for r in rows
                       if r["solver"] == solver and r["dt"] == dt and r["model"] == model]
                if not sel:
                    continue

                def cell(key):
                    xs = [r[key] for r in sel]
                    return f"{np.mean(xs):.2f} [{' '.join(f'{x:.2f}' for x in xs)}]"

                lines.append(
                    f"| {dt:g} | {model} | {cell('iterations_mean')} "
                    f"| {cell('transient_iterations_mean')} | {cell('settled_iterations_mean')} "
                    f"| {max(r['iterations_max'] for r in sel)} "
                    f"| {max(r['momentum_error_max'] for r in sel):.2g} "
                    f"| {np.mean([r['settled_penetration_mean'] for r in sel]):.2g} "
                    f"| {np.mean([r['wall_ms_per_step'] for r in sel]):.3f} |")
        lines += ["", *claims([r for r in rows if r["solver"] == solver], args), ""]
    return "\n".join(lines)


def claims(rows, args):
    """The paper's observations (see the top of this file), each checked per time step on
    the seed means: a table of verdicts computed here, so no number is typed by hand."""
    def mean(model, dt, key):
        xs = [r[key] for r in rows if r["model"] == model and r["dt"] == dt]
        return float(np.mean(xs)) if xs else float("nan")

    have = set(args.models)
    checks = []  # (claim, [(dt, holds, detail)])
    if {"sap", "lagged", "similar"} <= have:
        checks.append(("transient: Lagged and Similar take more iterations than SAP", [
            (dt, mean("lagged", dt, k) > mean("sap", dt, k) and mean("similar", dt, k) > mean("sap", dt, k),
             f"{mean('sap', dt, k):.2f} / {mean('lagged', dt, k):.2f} / {mean('similar', dt, k):.2f}")
            for dt in args.dt for k in ["transient_iterations_mean"]]))
        checks.append(("settled: SAP takes more iterations than Lagged and Similar", [
            (dt, mean("sap", dt, k) > mean("lagged", dt, k) and mean("sap", dt, k) > mean("similar", dt, k),
             f"{mean('sap', dt, k):.2f} / {mean('lagged', dt, k):.2f} / {mean('similar', dt, k):.2f}")
            for dt in args.dt for k in ["settled_iterations_mean"]]))
    if {"lagged", "lagged_regularized"} <= have:
        checks.append(("transient: the regularized tolerance cuts Lagged's iterations", [
            (dt, mean("lagged_regularized", dt, k) < mean("lagged", dt, k),
             f"{mean('lagged', dt, k):.2f} -> {mean('lagged_regularized', dt, k):.2f}")
            for dt in args.dt for k in ["transient_iterations_mean"]]))
    lines = ["Observations of the paper (sec. IX-A), checked on these runs (seed means; "
             "iterations in the order of the claim's models):", "",
             "| observation | " + " | ".join(f"dt = {dt:g}" for dt in args.dt) + " |",
             "|---|" + "---|" * len(args.dt)]
    for claim, per_dt in checks:
        lines.append(f"| {claim} | " + " | ".join(
            f"{'yes' if ok else 'no'} ({detail})" for _, ok, detail in per_dt) + " |")
    # Trend with the time step: the ratio of the mean iterations at the largest step to
    # those at the smallest (> 1: fewer iterations at small steps).
    big, small = max(args.dt), min(args.dt)
    if big != small:
        lines += ["", f"Mean iterations over all steps at dt = {big:g} over those at dt = "
                  f"{small:g} (the paper: Lagged's and Similar's fall as dt shrinks, SAP's stay "
                  f"about constant): " + ", ".join(
                      f"{m} {mean(m, big, 'iterations_mean') / mean(m, small, 'iterations_mean'):.2f}"
                      for m in args.models) + "."]
    return lines


def figure(rows, args, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n_solvers = len(args.solvers)
    fig, axes = plt.subplots(n_solvers, 2, figsize=(11, 3.8 * n_solvers), squeeze=False)
    dt0 = args.figure_dt
    for (left, right), solver in zip(axes, args.solvers):
        mine = [r for r in rows if r["solver"] == solver]
        for model in args.models:
            sel = [r for r in mine if r["model"] == model and r["dt"] == dt0]
            if sel:
                n = min(len(r["_binned"]) for r in sel)
                mean = np.mean([r["_binned"][:n] for r in sel], axis=0)
                left.plot(0.05 * (np.arange(n) + 0.5), mean, label=model)
            means = [np.mean([r["iterations_mean"] for r in mine
                              if r["model"] == model and r["dt"] == dt]) for dt in args.dt]
            right.plot(args.dt, means, "o-", label=model)
        left.set(xlabel="time [s]", ylabel="Newton iterations per step (0.05 s bins)",
                 title=f"{solver} solver, dt = {dt0:g} s, mean over seeds")
        right.set(xlabel="time step [s]", ylabel="mean Newton iterations per step",
                  xscale="log", title=f"{solver} solver, mean over all steps and seeds")
        for ax in (left, right):
            ax.grid(True, alpha=0.3)
            ax.legend()
    fig.suptitle("csim, clutter of the irrotational-contact-fields paper (sec. IX-A)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=40)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--dt", type=float, nargs="+", default=[5e-3, 2e-3, 1e-3, 5e-4])
    parser.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    parser.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=list(SOLVERS))
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--transient", type=float, default=2.0, help="first seconds = transient")
    parser.add_argument("--settled", type=float, default=1.25, help="last seconds = settled")
    parser.add_argument("--figure-dt", type=float, default=2e-3,
                        help="time step of the iterations-against-time panel")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--markdown", help="also write the Markdown table here")
    parser.add_argument("--figure", help="also write the figure (PNG) here")
    add_csim_arguments(parser)
    args = parser.parse_args()
    require_csim(args, "contact_model_study.py")
    if args.figure and args.figure_dt not in args.dt:
        sys.exit("contact_model_study.py: --figure-dt must be one of --dt")
    command = "tools/contact_model_study.py " + " ".join(sys.argv[1:])
    scenes = [(m, s, dt) for dt in args.dt for m in args.models for s in args.seeds]
    jobs = [(solver, *scene) for solver in args.solvers for scene in scenes]
    with tempfile.TemporaryDirectory(prefix="csim_contact_models_") as workdir:
        for model, seed, dt in scenes:  # scenes first, so parallel runs never race on them
            make_scene(args, workdir, model, seed, dt)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(lambda j: run_one(args, workdir, *j), jobs))
    write_csv(args.csv, [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows],
              ".6g")
    text = markdown(rows, args, command)
    if args.figure:
        figure(rows, args, args.figure)
    publish_markdown(text, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
