#!/usr/bin/python3
"""Convergence study: run a scene at a ladder of time steps with several integrators,
compare the generalised positions with a reference run, fit the observed order.

The error of a run is the paper's e_q: the RMS over the recorded times of |q - q_ref|
(2-norm over coordinates), with the reference sampled at the same times (its time step
must divide every step of the ladder); `--coordinates` restricts the norm to some
entries of q (e.g. `--coordinates 0` for the spring-cylinder's x). Writes one CSV row per
(integrator, dt) and, when matplotlib is available, a log-log plot with reference slopes 1 and 2.

`--contact-models M...` runs the ladder once per contact model (csim --contact-model),
against one reference run with `--reference-contact-model` (default: the scene's); the
CSV then gains a contact_model column. Example of the irrotational-contact-fields paper's
sec. IX-B (results/falling_sphere_convergence.csv: Lagged as the reference, the only
consistent model; SAP's error plateaus):
  tools/convergence_study.py scenes/falling_sphere.yaml --integrators symplectic_euler \
      --contact-models lagged similar sap --reference-contact-model lagged \
      --dt 1e-2 5e-3 2e-3 1e-3 4e-4 2e-4 --reference-dt 4e-5 --reference-integrator \
      symplectic_euler --coordinates 4 6 --csv results/falling_sphere_convergence.csv \
      --plot results/falling_sphere_convergence.png

Example (what results/pendulum_convergence.csv was made with):
  tools/convergence_study.py scenes/pendulum.yaml --duration 2 \
      --dt 0.01 0.005 0.0025 0.00125 \
      --integrators explicit_euler symplectic_euler implicit_euler midpoint \
      --reference-dt 1e-5 --csv results/pendulum_convergence.csv \
      --plot results/pendulum_convergence.png
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

import study_common



def run(csim, scene, out, dt, integrator, duration, extra):
    cmd = [csim, "run", scene, "-o", out, "--dt", repr(dt), "--integrator", integrator,
           "--no-progress", "-q"] + (["--duration", repr(duration)] if duration else []) + extra
    subprocess.run(cmd, check=True)
    with h5py.File(out, "r") as f:
        return f["/time"][:], f["/state/q"][:]


def sample(t_ref, q_ref, t):
    """Rows of the reference at the times t (which must be reference times)."""
    idx = np.searchsorted(t_ref, t - 1e-12)
    if np.any(np.abs(t_ref[idx] - t) > 1e-9):
        sys.exit("the reference time step must divide every time step of the ladder")
    return q_ref[idx]


def fit_order(dts, errors):
    slope, _ = np.polyfit(np.log(dts), np.log(errors), 1)
    return slope


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene")
    p.add_argument("--dt", type=float, nargs="+", required=True)
    p.add_argument("--integrators", nargs="+", default=["symplectic_euler", "midpoint"])
    p.add_argument("--duration", type=float)
    p.add_argument("--reference-dt", type=float, required=True)
    p.add_argument("--reference-integrator", default="midpoint")
    p.add_argument("--contact-models", nargs="+", choices=study_common.CONTACT_MODELS,
                   help="run the ladder once per contact model (default: the scene's)")
    p.add_argument("--reference-contact-model", choices=study_common.CONTACT_MODELS,
                   help="contact model of the reference run (default: the scene's)")
    study_common.add_csim_arguments(p)
    p.add_argument("--coordinates", type=int, nargs="+",
                   help="indices into q that enter e_q (default: all of q)")
    p.add_argument("--csv", required=True)
    p.add_argument("--plot")
    a = p.parse_args()
    extra = study_common.set_arguments(a)

    def model_arguments(model):
        return ["--contact-model", model] if model else []

    models = a.contact_models or [None]
    with tempfile.TemporaryDirectory() as tmp:
        t_ref, q_ref = run(a.csim, a.scene, os.path.join(tmp, "ref.h5"), a.reference_dt,
                           a.reference_integrator, a.duration,
                           extra + model_arguments(a.reference_contact_model))
        cols = a.coordinates if a.coordinates else list(range(q_ref.shape[1]))
        q_ref = q_ref[:, cols]
        rows = []
        for model in models:
            for integrator in a.integrators:
                for dt in a.dt:
                    t, q = run(a.csim, a.scene, os.path.join(tmp, "run.h5"), dt, integrator,
                               a.duration, extra + model_arguments(model))
                    q = q[:, cols]
                    err = np.linalg.norm(q - sample(t_ref, q_ref, t), axis=1)
                    row = {"integrator": integrator, "dt": dt, "e_q": math.sqrt(np.mean(err ** 2))}
                    if model:
                        row = {"contact_model": model, **row}
                    rows.append(row)
    # One series per integrator, or per (contact model, integrator) with --contact-models.
    def series(r):
        return f"{r['contact_model']} / {r['integrator']}" if "contact_model" in r else r["integrator"]

    orders = {}
    for name in dict.fromkeys(series(r) for r in rows):
        sub = [r for r in rows if series(r) == name]
        orders[name] = fit_order([r["dt"] for r in sub], [r["e_q"] for r in sub])
        for i, r in enumerate(sub):
            r["fitted_order"] = orders[name]
            # slope between this dt and the previous (larger) one of the ladder: shows
            # where the asymptotic regime starts when the fit over all dt is blurred
            r["local_order"] = (fit_order([sub[i - 1]["dt"], r["dt"]], [sub[i - 1]["e_q"], r["e_q"]])
                                if i > 0 else "")
    os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
    fieldnames = (["contact_model"] if a.contact_models else []) + \
        ["integrator", "dt", "e_q", "fitted_order", "local_order"]
    study_common.write_csv(a.csv, rows, ".6g", fieldnames=fieldnames)
    for name, order in orders.items():
        print(f"{name:18s} observed order {order:.3f}")
    if a.plot:
        plot(rows, orders, a.plot, os.path.basename(a.scene), series)


def plot(rows, orders, path, title, series):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no plot written", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, order in orders.items():
        sub = [r for r in rows if series(r) == name]
        ax.loglog([r["dt"] for r in sub], [r["e_q"] for r in sub], "o-",
                  label=f"{name} (order {order:.2f})")
    dts = np.array(sorted({r["dt"] for r in rows}))
    e0 = max(r["e_q"] for r in rows)
    for k, style in ((1, "k--"), (2, "k:")):
        ax.loglog(dts, e0 * (dts / dts[-1]) ** k, style, lw=0.8, label=f"slope {k}")
    ax.set_xlabel("time step dt [s]")
    ax.set_ylabel("e_q (RMS position error)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
