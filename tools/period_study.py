#!/usr/bin/python3
"""Oscillation period of one generalised coordinate, measured from runs of a scene at
several time steps and compared with an analytic period.

The period is the mean spacing of the upward crossings of q[coordinate] through `--centre`
(linear interpolation between recorded rows), over the whole run. One CSV row per time
step: dt, number of periods measured, measured period, analytic period, relative
difference. Deterministic (the runs are).

Example (what results/spring_cylinder_period.csv was made with; rolling, analytic
2 pi sqrt(1.5 m / k_s) with m = 0.5 kg, k_s = 100 N/m):
  tools/period_study.py scenes/spring_cylinder.yaml --coordinate 0 --duration 10 \
      --dt 0.02 0.005 0.001 --integrator midpoint --analytic 0.5441398092702653 \
      --label rolling --csv results/spring_cylinder_period.csv
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import study_common



def measure(t, x, centre):
    """Mean period from interpolated upward crossings of x through centre (nan if < 2)."""
    y = x - centre
    up = np.nonzero((y[:-1] < 0) & (y[1:] >= 0))[0]
    times = t[up] - y[up] * (t[up + 1] - t[up]) / (y[up + 1] - y[up])
    if len(times) < 2:
        return 0, float("nan")
    return len(times) - 1, float(np.mean(np.diff(times)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene")
    p.add_argument("--coordinate", type=int, default=0, help="index into q")
    p.add_argument("--centre", type=float, default=0.0, help="value the oscillation crosses")
    p.add_argument("--dt", type=float, nargs="+", required=True)
    p.add_argument("--duration", type=float)
    p.add_argument("--integrator", default="midpoint")
    p.add_argument("--analytic", type=float, required=True, help="expected period [s]")
    p.add_argument("--label", default="", help="first column of the CSV rows (e.g. the case)")
    p.add_argument("--append", action="store_true", help="append rows to an existing CSV")
    study_common.add_csim_arguments(p)
    p.add_argument("--csv", required=True)
    a = p.parse_args()
    extra = study_common.set_arguments(a)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.h5")
        for dt in a.dt:
            cmd = [a.csim, "run", a.scene, "-o", out, "--dt", repr(dt), "--integrator", a.integrator,
                   "--no-progress", "-q"] + (["--duration", repr(a.duration)] if a.duration else []) + extra
            subprocess.run(cmd, check=True)
            with h5py.File(out, "r") as f:
                n = len(f["/time"])
                t, x = f["/time"][:n], f["/state/q"][:n, a.coordinate]
            count, period = measure(t, x, a.centre)
            rows.append({"case": a.label, "scene": os.path.basename(a.scene), "integrator": a.integrator,
                         "dt": dt, "periods": count, "period": period, "analytic": a.analytic,
                         "relative_difference": period / a.analytic - 1.0})
    study_common.write_csv(a.csv, rows, ".8g", append=a.append)
    for r in rows:
        print(f"{r['case']:12s} dt {r['dt']:<8g} period {r['period']:.6f} s over {r['periods']} "
              f"(analytic {r['analytic']:.6f}, {100 * r['relative_difference']:+.3f} %)")


if __name__ == "__main__":
    sys.exit(main())
