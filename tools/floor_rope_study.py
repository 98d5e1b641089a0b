#!/usr/bin/python3
"""Ropes dropped onto the floor (tools/make_floor_rope.py): Newton iterations, time per step
and outcome of each rope under csim's defaults and under two variants that undo one of the
defaults at a time:
  - `diagonal estimate`: settings.delassus_estimate = diagonal, Drake's diag(A)^-1 recipe
    for every contact's Delassus estimate instead of the exact per-tree blocks;
  - `dense tree solver`: settings.tree_solver = dense, the dense Cholesky of each tree's
    block of A and of the Newton matrix instead of the articulated-body recursions.
Every run records every step (no contact data), so the means are over all the steps it
took.

For each rope and variant: the outcome (completed, or failed at time t with csim's reason),
steps, mean and largest Newton iterations per step, wall time per step (/solver/wall_time
over the steps; with --repeat N, each step's fastest of N runs), the largest momentum
error, and, on the steps both runs completed, the variant's Newton iterations and wall time
over the default's.

With --baseline-csim PATH, another executable (a build of an older commit) runs first as
the variant `baseline`, with its own defaults, and the others are measured against it: the
speed of a change, on the same ropes in the same session, alternating with --repeat.

With --compare SETTING=V1,V2,..., the variants are instead the values of one scene
setting, the others at their defaults, the first value the base: the integrators
(results/floor_rope_integrators.md: the implicit schemes on ropes hitting the floor) or the
tree solvers (results/floor_rope_tree_solver.md: where the recursions start to pay in
contact, for the cost rule of integrator::TreeSolver::kAuto).

Examples (what results/floor_rope.md, results/floor_rope_speedup.md (/tmp/base: a build
of commit 6b5b8de), results/floor_rope_integrators.md and results/floor_rope_tree_solver.md,
with their .csv files, were made with):
  tools/floor_rope_study.py --csim build/app/csim --links 10,20,50,100 --repeat 3 \\
      --csv results/floor_rope.csv --markdown results/floor_rope.md
  tools/floor_rope_study.py --csim build/app/csim --baseline-csim /tmp/base/build/app/csim \\
      --links 20,50,100 --compare settings.tree_solver=auto --repeat 5 \\
      --csv results/floor_rope_speedup.csv --markdown results/floor_rope_speedup.md
  tools/floor_rope_study.py --csim build/app/csim --links 10,20,30,50,70,100 \\
      --joints revolute --duration 1 \\
      --compare settings.integrator=symplectic_euler,midpoint,implicit_euler \\
      --csv results/floor_rope_integrators.csv --markdown results/floor_rope_integrators.md
  tools/floor_rope_study.py --csim build/app/csim --links 10,12,14,16,18,20,30,40,50,60 \\
      --joints revolute --compare settings.tree_solver=dense,articulated --repeat 5 \\
      --csv results/floor_rope_tree_solver.csv --markdown results/floor_rope_tree_solver.md
  tools/floor_rope_study.py --csim build/app/csim --links 3,4,5,6,7,8,10,12,15 --joints ball \\
      --compare settings.tree_solver=dense,articulated --repeat 5 \\
      --csv results/floor_rope_tree_solver.csv --markdown results/floor_rope_tree_solver.md \\
      --append
"""
import argparse
import datetime
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import study_common

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = {
    "default": [],
    "diagonal estimate": ["--set", "settings.delassus_estimate=diagonal"],
    "dense tree solver": ["--set", "settings.tree_solver=dense"],
}


def run(csim, scene, out, variant, extra):
    proc = subprocess.run([csim, "run", scene, "-o", out, "--no-progress", "-q"] + variant + extra,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 3):
        sys.stderr.write(proc.stderr)
        raise subprocess.CalledProcessError(proc.returncode, proc.args)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("csim: error")]
    with h5py.File(out, "r") as f:
        n = len(f["/time"])
        iterations = f["/solver/iterations"][1:n]  # row 0 is the initial state
        wall = f["/solver/wall_time"][1:n]
        error = f["/solver/momentum_error"][1:n]
        status = f["/status"].asstr()[()]
        t_end = float(f["/time"][n - 1])
        energy = f["/energy/kinetic"][:n] + f["/energy/potential"][:n]
    reason = errors[0].split("simulation failed: ", 1)[-1] if errors and status != "completed" else ""
    return {"status": status, "t_end": t_end, "steps": len(iterations),
            "iterations": iterations, "wall": wall, "momentum_error": error, "reason": reason,
            "energy": energy}


def write_table(f, rows):
    """The Markdown table of `rows` (see the docstring for the columns)."""
    f.write("| joints | links | variant | outcome | steps | iterations mean (max) | "
            "ms/step | max momentum error | energy max / initial | energy last / initial "
            "| iterations vs default | time vs default |\n")
    f.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        outcome = ("completed" if r["status"] == "completed"
                   else f"{r['status']} at {r['t_end']:.3f} s: {r['reason']}")
        f.write(f"| {r['joint']} | {r['links']} | {r['variant']} | {outcome} | "
                f"{r['steps']} | {r['mean_iterations']:.2f} ({r['max_iterations']}) | "
                f"{r['ms_per_step']:.3f} | {r['max_momentum_error']:.2g} | "
                f"{r['energy_max_over_initial']:.4g} | "
                f"{r['energy_final_over_initial']:.4g} | "
                f"{r['iterations_vs_default']:.2f} | {r['time_vs_default']:.2f} |\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    study_common.add_csim_arguments(p)
    p.add_argument("--links", default="10,20,50,100")
    p.add_argument("--joints", default="revolute,ball")
    p.add_argument("--duration", type=float, default=2.0)
    p.add_argument("--csv")
    p.add_argument("--markdown")
    p.add_argument("--compare", metavar="SETTING=V1,V2,...",
                   help="compare these values of one scene setting (the first is the base) "
                        "instead of the default's variants")
    p.add_argument("--baseline-csim", metavar="PATH",
                   help="another csim executable (an older build) run with the default settings "
                        "as a first variant, `baseline`, which the others are measured against")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs of each variant, in turn; each step's time is its fastest over "
                        "them (the timing noise of a shared machine)")
    p.add_argument("--append", action="store_true",
                   help="add the rows to the CSV and the Markdown table instead of replacing them")
    a = p.parse_args()
    variants = VARIANTS
    if a.compare:
        setting, values = a.compare.split("=", 1)
        variants = {v: ["--set", f"{setting}={v}"] for v in values.split(",")}
    # Which executable runs each variant: a.csim, but for the baseline's own row.
    csim_of = {name: a.csim for name in variants}
    if a.baseline_csim:
        variants = {"baseline": [], **variants}
        csim_of["baseline"] = a.baseline_csim
    base_name = next(iter(variants))
    extra = study_common.set_arguments(a)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for joint in a.joints.split(","):
            for n in [int(x) for x in a.links.split(",")]:
                scene = os.path.join(tmp, f"rope_{joint}_{n}.yaml")
                subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_floor_rope.py"),
                                "-n", str(n), "--joint", joint, "--duration", repr(a.duration),
                                "-o", scene], check=True)
                result = {}
                # The variants in turn, a.repeat times; each step's wall time is its fastest
                # over the repeats (the runs are deterministic: the same steps every time).
                for rep in range(a.repeat):
                    for i, (name, args) in enumerate(variants.items()):
                        r = run(csim_of[name], scene, os.path.join(tmp, f"run{i}.h5"), args,
                                extra)
                        if name in result:
                            result[name]["wall"] = np.minimum(result[name]["wall"], r["wall"])
                        else:
                            result[name] = r
                base = result[base_name]
                for name, r in result.items():
                    both = min(r["steps"], base["steps"])
                    base_iterations = float(np.sum(base["iterations"][:both]))
                    rows.append({
                        "joint": joint, "links": n, "variant": name, "status": r["status"],
                        "t_end": r["t_end"], "steps": r["steps"],
                        "mean_iterations": float(np.mean(r["iterations"])),
                        "max_iterations": int(np.max(r["iterations"])),
                        "ms_per_step": 1e3 * float(np.mean(r["wall"])),
                        "max_momentum_error": float(np.max(r["momentum_error"])),
                        "common_steps": both,
                        "iterations_vs_default":
                            float(np.sum(r["iterations"][:both])) / base_iterations
                            if base_iterations > 0 else float("nan"),
                        "time_vs_default": float(np.sum(r["wall"][:both]) /
                                                 np.sum(base["wall"][:both])),
                        "energy_max_over_initial": float(np.max(r["energy"]) / r["energy"][0]),
                        "energy_final_over_initial": float(r["energy"][-1] / r["energy"][0]),
                        "reason": r["reason"],
                    })
                    print(f"{joint} {n} {name}: {r['status']} at {r['t_end']:.3f} s, iterations "
                          f"{rows[-1]['mean_iterations']:.2f} (max {rows[-1]['max_iterations']}), "
                          f"{rows[-1]['ms_per_step']:.3f} ms/step", flush=True)
    if a.csv:
        study_common.write_csv(a.csv, rows, ".4g", append=a.append)
    if a.markdown and a.append:
        with open(a.markdown, "a") as f:
            f.write("\nAppended by: " + " ".join(["tools/floor_rope_study.py"] + sys.argv[1:])
                    + "\n\n")
            write_table(f, rows)
    elif a.markdown:
        with open(a.markdown, "w") as f:
            if a.compare:
                f.write(f"# Ropes dropped onto the floor: {a.compare.split('=')[0]}\n\n")
            else:
                f.write("# Ropes dropped onto the floor: csim's defaults against Drake's Delassus "
                        "estimate and against dense tree factorizations\n\n")
            commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                                    capture_output=True, text=True).stdout.strip() or "unknown"
            f.write(f"Generated by `tools/floor_rope_study.py` on {datetime.date.today()}, commit "
                    f"{commit} (its docstring says what each column is), single thread, with:\n\n"
                    "    " + " ".join(["tools/floor_rope_study.py"] + sys.argv[1:]) + "\n\n")
            if a.baseline_csim:
                version = subprocess.run([a.baseline_csim, "--version"], capture_output=True,
                                         text=True).stdout.splitlines()
                f.write(f"`baseline`: {a.baseline_csim}, {version[0] if version else 'unknown'}, "
                        "with its default settings; the other rows are measured against it.\n\n")
            if a.compare:
                f.write("Scenes from `tools/make_floor_rope.py` (dt 1e-3, "
                        f"{a.duration:g} s), csim's default settings but for "
                        f"{a.compare.split('=')[0]}, one row per value. Energy: the largest and "
                        "the last total energy over the initial one (the rope falls onto the "
                        "floor, which can only take energy away). Iterations: Newton iterations "
                        "of the step (of the contact solve when there is contact). 'vs default': "
                        f"over `{base_name}`, on the steps both completed.\n\n")
            else:
                f.write("Scenes from `tools/make_floor_rope.py` (symplectic Euler, dt 1e-3, "
                        f"{a.duration:g} s). `default`: csim's settings; `diagonal estimate`: "
                        "settings.delassus_estimate = diagonal (Drake's recipe); `dense tree "
                        "solver`: settings.tree_solver = dense. Iterations: Newton iterations of "
                        "the contact solve per step. The last two columns: the variant over the "
                        "default on the steps both completed (> 1: the default is better).\n\n")
            write_table(f, rows)


if __name__ == "__main__":
    main()
