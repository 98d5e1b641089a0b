#!/usr/bin/python3
"""Energy behaviour of the theta-method schemes on a conservative scene (the SAP paper's
Fig. 5 experiment): runs the scene with each integrator and reports, relative to the
initial energy E0, the band of E/E0 over the first and the last `--window` seconds and the
final value. Implicit Euler decays, symplectic Euler oscillates in a band that does not
drift, the midpoint rule conserves energy, explicit Euler gains energy.

A run that fails (csim exit status 3, e.g. explicit Euler blowing up) is kept up to its
last recorded row; its `status` is printed. `--integrators` picks the schemes, `--set` is
forwarded to csim, `--yscale`/`--ylim` shape the plot.

Example (what results/spring_mass_energy.csv was made with):
  tools/energy_study.py scenes/spring_mass.yaml --dt 0.01 --duration 20 --window 1 \
      --csv results/spring_mass_energy.csv --plot results/spring_mass_energy.png
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import study_common

SCHEMES = ["explicit_euler", "symplectic_euler", "implicit_euler", "midpoint"]


def energy(csim, scene, out, dt, duration, integrator, extra=()):
    """Time and total energy of one run; a failed run (exit 3) keeps its recorded rows."""
    proc = subprocess.run([csim, "run", scene, "-o", out, "--dt", repr(dt), "--duration", repr(duration),
                           "--integrator", integrator, "--no-progress", "-q"] + list(extra))
    if proc.returncode not in (0, 3):
        raise subprocess.CalledProcessError(proc.returncode, proc.args)
    with h5py.File(out, "r") as f:
        n = len(f["/time"])
        status = f["/status"].asstr()[()]
        return f["/time"][:n], f["/energy/kinetic"][:n] + f["/energy/potential"][:n], status


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene")
    p.add_argument("--dt", type=float, required=True)
    p.add_argument("--duration", type=float, required=True)
    p.add_argument("--window", type=float, default=1.0, help="seconds at the start and the end")
    p.add_argument("--integrators", nargs="+", default=SCHEMES, choices=SCHEMES)
    study_common.add_csim_arguments(p)
    p.add_argument("--csv", required=True)
    p.add_argument("--plot")
    p.add_argument("--yscale", choices=["log", "linear"], default="log", help="of the plot")
    p.add_argument("--ylim", type=float, nargs=2, help="E/E0 range of the plot")
    a = p.parse_args()
    extra = study_common.set_arguments(a)
    rows, series = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for scheme in a.integrators:
            t, E, status = energy(a.csim, a.scene, os.path.join(tmp, "run.h5"), a.dt, a.duration, scheme, extra)
            if status != "completed":
                print(f"{scheme}: run {status} at t = {t[-1]:g} s", file=sys.stderr)
            r = E / E[0]
            first, last = r[t <= a.window], r[t >= t[-1] - a.window]
            rows.append({"integrator": scheme, "dt": a.dt, "first_min": first.min(), "first_max": first.max(),
                         "last_min": last.min(), "last_max": last.max(), "final": r[-1]})
            series[scheme] = (t, r)
    study_common.write_csv(a.csv, rows, ".10g")
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
        ax.set_yscale(a.yscale)
        if a.ylim:
            ax.set_ylim(*a.ylim)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("E / E0")
        ax.set_title(f"{os.path.basename(a.scene)}, dt = {a.dt} s")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
