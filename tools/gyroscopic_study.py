#!/usr/bin/python3
"""Torque-free spinning bodies under csim's integrators: what the gyroscopic torque's
treatment (settings.gyroscopic, engine/integrator/implicit_gyroscopic.h) does to the
invariants. Each body floats in zero gravity with an explicit inertia (so the invariants
are computed from the scene's own numbers) and is run under
  - symplectic_euler with gyroscopic: implicit (csim's default),
  - symplectic_euler with gyroscopic: explicit (the SAP paper's scheme, csim before
    2026-11-23),
  - midpoint,
  - implicit_euler (the theta-method's M(q1) (v - v0) = dt k(q1, v1), docs/design/time-step.md §2: in
    world-frame angular velocities it does not dissipate the energy of free rotation).
Reported per run: outcome, the largest relative change of the kinetic energy and of the
magnitude of the angular momentum about the centre of mass (|R I R^T w|, world frame) over
the run, and the final kinetic energy over the initial one.

Bodies:
  brick:   the inertias of scenes/spinning_brick.yaml (a 0.3 x 0.2 x 0.1 m box of 1 kg),
           spinning at 10 rad/s about its intermediate axis (it flips over), 6 s;
  rod:     a rope link (0.1 kg, axial inertia 5e-6 kg m^2, transverse 8.7e-5) spinning at
           100 rad/s about its axis with a 3 rad/s tumble, 2 s;
  rod, off-centre origin: the same with the body origin 5 cm from the centre of mass along
           the axis (a link's frame at its joint): the state carries the origin's velocity,
           which the explicit step moves with a centripetal term at the start of the step.

With --cost N, also the price: N bricks (the brick's inertia, random tumbling rates up to
20 rad/s, no contact, zero gravity) for 3000 steps under symplectic Euler with each
treatment, csim's user CPU time, fastest of 5 runs (machine-dependent).

Example (what results/gyroscopic.md and results/gyroscopic.csv were made with):
  tools/gyroscopic_study.py --csim build/app/csim --csv results/gyroscopic.csv \\
      --markdown results/gyroscopic.md --cost 1000
"""
import argparse
import datetime
import os
import random
import resource
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from study_common import add_csim_arguments, set_arguments, write_csv

DT = 1e-3

# name, mass [kg], inertia [ixx, iyy, izz], com [m], angular velocity [rad/s], duration [s]
BRICK_INERTIA = [(0.2**2 + 0.1**2) / 12, (0.3**2 + 0.1**2) / 12, (0.3**2 + 0.2**2) / 12]
BODIES = [
    ("brick", 1.0, BRICK_INERTIA, [0, 0, 0], [0.01, 10.0, 0.0], 6.0),
    ("rod", 0.1, [8.7e-5, 8.7e-5, 5e-6], [0, 0, 0], [3.0, 0.0, 100.0], 2.0),
    ("rod, off-centre origin", 0.1, [8.7e-5, 8.7e-5, 5e-6], [0, 0, -0.05], [3.0, 0.0, 100.0], 2.0),
]
VARIANTS = [
    ("symplectic_euler, gyroscopic implicit", ["--set", "settings.integrator=symplectic_euler",
                                               "--set", "settings.gyroscopic=implicit"]),
    ("symplectic_euler, gyroscopic explicit", ["--set", "settings.integrator=symplectic_euler",
                                               "--set", "settings.gyroscopic=explicit"]),
    ("midpoint", ["--set", "settings.integrator=midpoint"]),
    ("implicit_euler", ["--set", "settings.integrator=implicit_euler"]),
]


def scene(mass, inertia, com, w, duration):
    ixx, iyy, izz = inertia
    return (f"csim: 1\nname: spinner\n"
            f"settings: {{time_step: {DT}, duration: {duration}, gravity: [0, 0, 0], "
            f"output: {{contacts: false}}}}\n"
            f"bodies:\n  - {{name: b, mass: {mass}, com: {list(com)}, "
            f"inertia: [{ixx!r}, {iyy!r}, {izz!r}, 0, 0, 0], pose: {{position: [0, 0, 1]}}, "
            f"velocity: {{linear: [0, 0, 0], angular: {list(w)}}}}}\n")


def bricks_scene(n):
    """n free bricks tumbling in zero gravity, 3000 steps, recording every 1000th."""
    rng = random.Random(1)
    ixx, iyy, izz = BRICK_INERTIA
    lines = ["csim: 1", "name: tumbling_bricks",
             f"settings: {{time_step: {DT}, duration: {3000 * DT}, gravity: [0, 0, 0], "
             "output: {every: 1000, contacts: false}}", "bodies:"]
    for i in range(n):
        w = [round(rng.uniform(-20, 20), 3) for _ in range(3)]
        lines.append(f"  - {{name: b{i}, mass: 1.0, inertia: [{ixx!r}, {iyy!r}, {izz!r}, 0, 0, 0], "
                     f"pose: {{position: [{i % 32}, {i // 32}, 0]}}, "
                     f"velocity: {{linear: [0, 0, 0], angular: {w}}}}}")
    return "\n".join(lines) + "\n"


def cpu_seconds(command):
    """User CPU time of one run of command (a child process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run(command, check=True, capture_output=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def rotation(qw):
    w, x, y, z = qw.T
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def invariants(path, inertia):
    """Largest relative changes of the kinetic energy and of |L| over the recorded rows, the
    final energy over the initial one, and the number of rows."""
    with h5py.File(path, "r") as f:
        kinetic = f["energy/kinetic"][:]
        R = rotation(f["bodies/quaternion"][:, 0, :])
        w = f["bodies/angular_velocity"][:, 0, :]
    L = np.einsum("nij,j,nkj,nk->ni", R, np.asarray(inertia), R, w)
    L_norm = np.linalg.norm(L, axis=1)
    finite = np.isfinite(kinetic) & np.isfinite(L_norm)
    e = np.abs(kinetic[finite] / kinetic[0] - 1).max()
    m = np.abs(L_norm[finite] / L_norm[0] - 1).max()
    return e, m, kinetic[finite][-1] / kinetic[0], len(kinetic)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_csim_arguments(parser)
    parser.add_argument("--csv")
    parser.add_argument("--markdown")
    parser.add_argument("--cost", type=int, default=0, metavar="N",
                        help="also time N tumbling bricks under each treatment")
    args = parser.parse_args()
    rows = []
    cost = {}
    with tempfile.TemporaryDirectory() as work:
        for name, mass, inertia, com, w, duration in BODIES:
            scene_path = os.path.join(work, "spinner.yaml")
            with open(scene_path, "w") as f:
                f.write(scene(mass, inertia, com, w, duration))
            for variant, options in VARIANTS:
                out = os.path.join(work, "run.h5")
                run = subprocess.run([args.csim, scene_path, "-o", out, "-q"] + options + set_arguments(args),
                                     capture_output=True, text=True)
                e, m, ratio, n = invariants(out, inertia)
                reason = (run.stderr.strip().splitlines() or [f"exit status {run.returncode}"])[-1]
                outcome = "completed" if run.returncode == 0 else \
                    f"failed at t = {(n - 1) * DT:.3f} s ({reason})"
                rows.append({"body": name, "variant": variant, "duration": duration, "outcome": outcome,
                             "energy_drift": e, "momentum_drift": m, "energy_ratio": ratio})
                print(f"{name:24s} {variant:40s} {outcome:10s} energy {e:9.2e} |L| {m:9.2e} "
                      f"E/E0 {ratio:9.3g}", flush=True)
        if args.cost:
            scene_path = os.path.join(work, "bricks.yaml")
            with open(scene_path, "w") as f:
                f.write(bricks_scene(args.cost))
            out = os.path.join(work, "bricks.h5")
            for _ in range(5):  # alternating, so a slow phase of the machine hits both
                for treatment in ["explicit", "implicit"]:
                    t = cpu_seconds([args.csim, scene_path, "-o", out, "-q",
                                     "--set", f"settings.gyroscopic={treatment}"])
                    cost[treatment] = min(cost.get(treatment, t), t)
            print(f"{args.cost} tumbling bricks, 3000 steps: explicit {cost['explicit']:.2f} s, "
                  f"implicit {cost['implicit']:.2f} s of CPU", flush=True)
    if args.csv:
        write_csv(args.csv, rows, ".3g")
    if args.markdown:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
        with open(args.markdown, "w") as f:
            f.write("# Torque-free spinning bodies: the gyroscopic torque's treatment\n\n")
            f.write(f"Generated by `tools/gyroscopic_study.py` on {datetime.date.today()}, commit {commit}.\n")
            f.write("Command:\n\n    tools/gyroscopic_study.py --csim build/app/csim "
                    "--csv results/gyroscopic.csv --markdown results/gyroscopic.md"
                    + (f" --cost {args.cost}" if args.cost else "") + "\n\n")
            f.write(f"Zero gravity, dt = {DT}, no contact. Drifts are the largest relative changes over "
                    "the run (of the kinetic energy, and of |L| about the centre of mass); E/E0 is the "
                    "final kinetic energy over the initial one. The bodies are described in the "
                    "script's docstring.\n\n")
            f.write("| body | scheme | outcome | energy drift | \\|L\\| drift | E/E0 |\n|---|---|---|---|---|---|\n")
            for r in rows:
                f.write(f"| {r['body']} ({r['duration']:g} s) | {r['variant']} | {r['outcome']} | "
                        f"{r['energy_drift']:.2g} | {r['momentum_drift']:.2g} | {r['energy_ratio']:.3g} |\n")
            if cost:
                n = args.cost
                f.write(f"\nCost: {n} bricks tumbling at up to 20 rad/s (no contact, zero gravity), "
                        f"3000 steps under symplectic Euler, csim's user CPU time, fastest of 5 "
                        f"alternating runs (machine-dependent):\n\n"
                        f"| gyroscopic | CPU [s] | per brick and step [us] |\n|---|---|---|\n")
                for treatment in ["explicit", "implicit"]:
                    f.write(f"| {treatment} | {cost[treatment]:.2f} | "
                            f"{cost[treatment] / (3000 * n) * 1e6:.3f} |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
