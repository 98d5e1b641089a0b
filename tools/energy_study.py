#!/usr/bin/python3
"""Energy behaviour of the theta-method schemes on a conservative scene (the SAP paper's
Fig. 5 experiment): runs the scene with each integrator and reports, relative to the
initial energy E0, the band of E/E0 over the first and the last `--window` seconds and the
final value. Implicit Euler decays, symplectic Euler oscillates in a band that does not
drift, the midpoint rule conserves energy, explicit Euler gains energy.

Example (what results/spring_mass_energy.csv was made with):
  tools/energy_study.py scenes/spring_mass.yaml --dt 0.01 --duration 20 --window 1 \
      --csv results/spring_mass_energy.csv --plot results/spring_mass_energy.png
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSIM = os.path.join(HERE, "..", "build", "app", "csim")
SCHEMES = ["explicit_euler", "symplectic_euler", "implicit_euler", "midpoint"]


def energy(csim, scene, out, dt, duration, integrator):
    subprocess.run([csim, "run", scene, "-o", out, "--dt", repr(dt), "--duration", repr(duration),
                    "--integrator", integrator, "--no-progress", "-q"], check=True)
    with h5py.File(out, "r") as f:
        return f["/time"][:], f["/energy/kinetic"][:] + f["/energy/potential"][:]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene")
    p.add_argument("--dt", type=float, required=True)
    p.add_argument("--duration", type=float, required=True)
    p.add_argument("--window", type=float, default=1.0, help="seconds at the start and the end")
    p.add_argument("--csim", default=DEFAULT_CSIM)
    p.add_argument("--csv", required=True)
    p.add_argument("--plot")
    a = p.parse_args()
    rows, series = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for scheme in SCHEMES:
            t, E = energy(a.csim, a.scene, os.path.join(tmp, "run.h5"), a.dt, a.duration, scheme)
            r = E / E[0]
            first, last = r[t <= a.window], r[t >= t[-1] - a.window]
            rows.append({"integrator": scheme, "dt": a.dt, "first_min": first.min(), "first_max": first.max(),
                         "last_min": last.min(), "last_max": last.max(), "final": r[-1]})
            series[scheme] = (t, r)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.10g}" if isinstance(v, float) else v) for k, v in row.items()})
    for row in rows:
        print(f"{row['integrator']:18s} E/E0 first [{row['first_min']:.6f}, {row['first_max']:.6f}]"
              f"  last [{row['last_min']:.6f}, {row['last_max']:.6f}]  final {row['final']:.6g}")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for scheme, (t, r) in series.items():
            ax.plot(t, r, label=scheme, lw=1)
        ax.set_yscale("log")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("E / E0")
        ax.set_title(f"{os.path.basename(a.scene)}, dt = {a.dt} s")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
