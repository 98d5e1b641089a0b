#!/usr/bin/python3
"""Plots how csim's cost per step grows with the number of objects, from the CSVs that
tools/run_benchmarks.sh writes: the growth target of the speed issue at a glance.

Usage: tools/plot_growth.py [--growth results/growth.csv] [--density results/growth_density.csv]
           [--isolated results/growth_isolated.csv] [--mujoco results/benchmarks.csv]
           [-o results/growth.png]

One column per time step. Top row: time per step per object [us] (flat = linear growth);
the fitted exponent p of time per step ~ objects^p (40 objects and up, as in
tools/bench_targets.py) is in the legend. Bottom row: Newton work per object per step
(tree-iterations: each island's trees times its Newton iterations), the part of the growth
that comes from the scene asking more iterations per body. Series:
- the benchmark's scenes (four columns, so the columns grow taller with the count): all
  steps and the last second;
- ten per column (--density): the column height fixed, the piles merge;
- ten per column 2 m apart (--isolated): piles that never meet, csim's own scaling;
- MuJoCo 2.2.2 on the benchmark's scenes (--mujoco, the run that alternates both), all steps.
Every number is read from the CSVs; nothing is typed in.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_targets import exponent, load, no_wall_series  # noqa: E402

# Fits start here, as in bench_targets.py: below 40 objects a step is mostly fixed cost.
FIT_FROM = 40


def per_object(rows, column, scale=1e3):
    """(objects, scale * column / objects) for the rows that have the column (ms -> us by
    default)."""
    return [(int(r["objects"]), scale * r[column] / r["objects"]) for r in rows
            if r.get(column) is not None]


def fitted(rows, column):
    points = [(int(r["objects"]), r[column]) for r in rows
              if r.get(column) is not None and r["objects"] >= FIT_FROM]
    return exponent(points) if len(points) >= 2 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--growth", default="results/growth.csv")
    ap.add_argument("--density", default="results/growth_density.csv")
    ap.add_argument("--isolated", default="results/growth_isolated.csv")
    ap.add_argument("--mujoco", default="results/benchmarks.csv")
    ap.add_argument("-o", "--output", default="results/growth.png")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        sys.exit("plot_growth.py: matplotlib is missing (apt-get install python3-matplotlib)")

    sources = {"scene": load(a.growth)}
    for key, path in (("density", a.density), ("isolated", a.isolated), ("mujoco", a.mujoco)):
        if os.path.exists(path):
            sources[key] = load(path)
    dts = sorted({r["dt"] for r in sources["scene"] if int(r["walls"]) == 0}, reverse=True)
    if not dts:
        sys.exit(f"plot_growth.py: {a.growth} has no rows without walls")

    # (source, time column, label, style); work uses the matching work column.
    series = [("scene", "csim_ms_mean", "csim, benchmark scenes, all steps", "o-", "csim_work_mean"),
              ("scene", "csim_last_second_ms_mean", "csim, benchmark scenes, last second", "o--",
               "csim_last_second_work_mean"),
              ("density", "csim_ms_mean", "csim, ten per column, all steps", "s-", "csim_work_mean"),
              ("isolated", "csim_ms_mean", "csim, ten per column 2 m apart, all steps", "^-",
               "csim_work_mean"),
              ("mujoco", "mujoco_ms_mean", "MuJoCo 2.2.2, benchmark scenes, all steps", "x:", None)]
    fig, axes = plt.subplots(2, len(dts), figsize=(6.2 * len(dts), 8.5), squeeze=False)
    for j, dt in enumerate(dts):
        top, bottom = axes[0][j], axes[1][j]
        for source, column, label, style, work in series:
            if source not in sources:
                continue
            rows = no_wall_series(sources[source], dt)
            points = per_object(rows, column)
            if not points:
                continue
            n, us = zip(*points)
            top.plot(n, us, style, label=f"{label} (p = {fitted(rows, column):.2f})")
            if work is not None:
                work_points = per_object(rows, work, scale=1.0)
                if work_points:
                    wn, w = zip(*work_points)
                    bottom.plot(wn, w, style, label=f"{label} (p = {fitted(rows, work):.2f})")
        top.set_xscale("log")
        top.set_yscale("log")
        # Plain numbers on the log axis, not powers of ten.
        top.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        top.yaxis.set_minor_formatter(matplotlib.ticker.ScalarFormatter())
        top.set_title(f"no walls, dt = {dt:g} s: time per step per object")
        top.set_ylabel("us per object per step (flat = linear)")
        bottom.set_xscale("log")
        bottom.set_title(f"no walls, dt = {dt:g} s: Newton work per object")
        bottom.set_ylabel("tree-iterations per object per step")
        for ax in (top, bottom):
            ax.set_xlabel("objects")
            ax.legend(fontsize=7)
            ax.grid(True, which="both", lw=0.3)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
