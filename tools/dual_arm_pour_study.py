#!/usr/bin/python3
"""The dual-arm pour (scenes/dual_arm_pour.yaml): two Fetch arms, a mug of 16 marbles poured
into a bowl. Runs the scene as it is (dt = 1 ms, one solver thread, every 10th step
recorded) --repeat times pinned to one CPU, times each whole command (loading the two
robots' meshes, stepping, writing the HDF5 file, whose writer thread shares that CPU) and
reads csim's own summary line (the stepping alone); then runs it once more recording every
step, reads that output (the runs are deterministic) and reports:
  - the marbles: how many end in the bowl (and how far from climbing out), where the others
    are, when they leave the mug (and at what tilt), the lowest any gets relative to the
    table top, and the deepest any sinks into another body (contact phi0);
  - the solver: steps, Newton iterations, the largest momentum error against the stopping
    tolerance (every step certified or not);
  - the grasp: the mug's slip relative to the pourer's right pad from lift-off to the end
    (along the pad's face, across it, and turned), and the pads' patches (polygons, force);
  - the bowl: how far it moves and tilts once the holder has closed its fingers on its fin;
  - the servos: each arm's closest approach to an effort limit, saturated rows, the largest
    tracking lag of an arm joint;
  - the run time: simulated time over wall time (the real-time factor), whole command and
    stepping alone, and over the command's CPU time (user and system: what it takes of one
    core, whatever else the machine runs).
The scene's design dimensions used below (the bowl's inner wall, the mug's inside, the
marble radius, the table top) are those its header states.

Example (what results/dual_arm_pour.md was made with; under a minute):
  tools/dual_arm_pour_study.py --csim build/app/csim --markdown results/dual_arm_pour.md
"""
import argparse
import datetime
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
import yaml

from study_common import HERE, add_csim_arguments, cpu_model, publish_markdown, set_arguments

SCENE = os.path.join(HERE, "..", "scenes", "dual_arm_pour.yaml")
MARBLE_RADIUS = 0.008                  # m
TABLE_TOP = 0.4                        # m
TABLE_X, TABLE_Y = (0.5, 1.0), (-0.5, 0.5)
# The bowl, in its body frame: the bottom's top face, the wall's inner bottom radius and lean,
# the rim's height.
BOWL_FLOOR, BOWL_R0, BOWL_LEAN, BOWL_RIM = 0.008, 0.07, np.radians(25.0), 0.0669
# The mug's inside, in its body frame: the foot's top face, the wall's inner radius, the rim.
MUG_FLOOR, MUG_R_IN, MUG_RIM = 0.008, 0.034, 0.095
EVERY_STEP = "settings.output.every=1"  # the scene records every 10th step
HOLDER_CLOSED = 3.3                    # s: the holder's fingers at their squeeze target
GRAVITY = 9.81                         # m/s^2
# A marble resting on the bowl's bottom must lift its centre this far to reach the rim's top.
CLIMB = BOWL_RIM - (BOWL_FLOOR + MARBLE_RADIUS)
# The scene header's bounds (checked by tests/scenes/dual_arm_pour_test.cc).
MIN_IN_BOWL, SLIP_BOUND, TURN_BOUND_DEG, KE_BOUND = 14, 1e-3, 0.1, 0.1
BOWL_SHIFT_BOUND, BOWL_TILT_BOUND_DEG, SINK_BOUND, TABLE_SINK = 0.5e-3, 0.5, 0.5e-3, 1e-4


def quaternion_matrix(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def angle_of(R):
    """The rotation angle of R [rad]."""
    return np.arccos(np.clip((np.trace(R) - 1) / 2, -1.0, 1.0))


def names_of(dataset):
    return [s.decode() if isinstance(s, bytes) else s for s in dataset[:]]


def child_cpu_time():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_csim(args, out, extra=()):
    """Runs the scene once, pinned to CPU args.cpu (with its HDF5 writer thread), with the
    --set overrides `extra`; returns the whole command's wall time and CPU time (user and
    system) [s], and csim's summary line."""
    cmd = [args.csim, "run", args.scene, "-o", out, "--no-progress"] + set_arguments(args)
    cmd += [x for s in extra for x in ("--set", s)]
    start, cpu_start = time.perf_counter(), child_cpu_time()
    done = subprocess.run(cmd, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.sched_setaffinity(0, {args.cpu}))
    wall, cpu = time.perf_counter() - start, child_cpu_time() - cpu_start
    if done.returncode != 0:
        sys.exit("csim failed (%d):\n%s" % (done.returncode, done.stderr))
    summary = [line for line in done.stderr.splitlines() if "completed:" in line]
    return wall, cpu, summary[-1] if summary else ""


def in_bowl(p_B):
    """Whether a marble centre p_B (bowl frame) lies inside the bowl."""
    r = np.hypot(p_B[0], p_B[1])
    return (BOWL_FLOOR < p_B[2] < BOWL_RIM + MARBLE_RADIUS and
            r < BOWL_R0 + (p_B[2] - BOWL_FLOOR) * np.tan(BOWL_LEAN))


def in_mug(p_M):
    r = np.hypot(p_M[0], p_M[1])
    return MUG_FLOOR < p_M[2] < MUG_RIM and r < MUG_R_IN


def analyse(path):
    f = h5py.File(path, "r")
    n = len(f["/time"])
    t = f["/time"][:n]
    names = names_of(f["/model/body_names"])
    P = f["/bodies/position"][:n]
    Q = f["/bodies/quaternion"][:n]
    V = f["/bodies/linear_velocity"][:n]
    W = f["/bodies/angular_velocity"][:n]
    body = {name: i for i, name in enumerate(names)}
    mug, bowl, pad = body["mug"], body["bowl"], body["pourer_pad_r"]
    marbles = [i for i, name in enumerate(names) if name.startswith("marble")]

    def R(i, b):
        """Rotation of body b at row i."""
        return quaternion_matrix(Q[i, b])

    r = {"steps": n - 1, "duration": t[-1], "marbles": len(marbles)}

    # The solver.
    iterations = f["/solver/iterations"][1:n]
    error = f["/solver/momentum_error"][1:n]
    r["iterations_mean"], r["iterations_max"] = iterations.mean(), int(iterations.max())
    r["error_max"] = error.max()
    # The stopping tolerance eps_r the run used (settings.solver.relative_tolerance, 1e-6 unless
    # the scene or an override sets it).
    settings = yaml.safe_load(f["/scene/yaml"][()]).get("settings", {})
    r["tolerance"] = float(settings.get("solver", {}).get("relative_tolerance", 1e-6))
    r["uncertified"] = int((error >= r["tolerance"]).sum())

    # The marbles at the end, and where each leaves the mug.
    last = n - 1
    R_WB_end = R(last, bowl)
    r["in_bowl"] = 0
    r["elsewhere"] = []
    r["ke_ratio"] = r["speed"] = 0.0
    for m in marbles:
        p_B = R_WB_end.T @ (P[last, m] - P[last, bowl])
        if in_bowl(p_B):
            r["in_bowl"] += 1
            # Kinetic energy per unit mass (a solid sphere: I = 2/5 m r^2) over what the climb
            # to the rim takes, g CLIMB.
            v, w = np.linalg.norm(V[last, m]), np.linalg.norm(W[last, m])
            ke = 0.5 * v * v + 0.2 * MARBLE_RADIUS ** 2 * w * w
            r["ke_ratio"] = max(r["ke_ratio"], ke / (GRAVITY * CLIMB))
            r["speed"] = max(r["speed"], v)
        else:
            p_M = R(last, mug).T @ (P[last, m] - P[last, mug])
            where = "in the mug" if in_mug(p_M) else (
                "on the table" if abs(P[last, m, 2] - TABLE_TOP - MARBLE_RADIUS) < 1e-3 else
                "at z = %.3f m" % P[last, m, 2])
            r["elsewhere"].append("%s %s" % (names[m], where))
    lift = int(np.argmax(P[:, mug, 2] > P[0, mug, 2] + 1e-3))
    r["lift_off"] = t[lift]
    leave_t, leave_tilt = [], []
    for m in marbles:
        for i in range(lift, n):
            if not in_mug(R(i, mug).T @ (P[i, m] - P[i, mug])):
                leave_t.append(t[i])
                leave_tilt.append(np.degrees(np.arccos(np.clip(R(i, mug)[2, 2], -1, 1))))
                break
    r["left_mug"] = len(leave_t)
    if leave_t:
        r["leave_t"] = (min(leave_t), max(leave_t))
        r["leave_tilt"] = (min(leave_tilt), max(leave_tilt))
    r["tilt_end"] = np.degrees(np.arccos(np.clip(R(last, mug)[2, 2], -1, 1)))
    # The lowest marble bottom over the table, relative to its top.
    xy = P[:, marbles, :2]
    over = ((xy[..., 0] > TABLE_X[0]) & (xy[..., 0] < TABLE_X[1]) &
            (xy[..., 1] > TABLE_Y[0]) & (xy[..., 1] < TABLE_Y[1]))
    r["lowest"] = (P[:, marbles, 2][over] - MARBLE_RADIUS - TABLE_TOP).min()
    # The deepest any marble sinks into another body: contact phi0 at the start of a step.
    a = f["/contacts/body_a"][:]
    b = f["/contacts/body_b"][:]
    phi = f["/contacts/signed_distance"][:]
    is_marble = np.isin(a, marbles) | np.isin(b, marbles)
    r["deepest"] = -phi[is_marble].min() if is_marble.any() else 0.0

    # The grasp: the mug in the right pad's frame, from lift-off to the end.
    p0 = R(lift, pad).T @ (P[lift, mug] - P[lift, pad])
    R0 = R(lift, pad).T @ R(lift, mug)
    along = across = turn = 0.0
    for i in range(lift, n):
        d = R(i, pad).T @ (P[i, mug] - P[i, pad]) - p0
        along = max(along, np.hypot(d[0], d[2]))   # in the pad's face (its x, z)
        across = max(across, abs(d[1]))            # along the pad's normal (its y)
        turn = max(turn, angle_of(R0.T @ R(i, pad).T @ R(i, mug)))
    r["slip_along"], r["slip_across"], r["slip_turn_deg"] = along, across, np.degrees(turn)
    # The pads' patches while carried.
    s_a = f["/hydroelastic/body_a"][:]
    s_b = f["/hydroelastic/body_b"][:]
    s_n = f["/hydroelastic/contact_count"][:]
    s_f = f["/hydroelastic/force"][:]
    s_off = f["/hydroelastic/offset"][:n]
    s_cnt = f["/hydroelastic/count"][:n]
    polygons, normal_force = [], []
    for i in range(lift, n):
        for s in range(s_off[i], s_off[i] + s_cnt[i]):
            if {s_a[s], s_b[s]} == {mug, pad}:
                polygons.append(s_n[s])
                n_W = R(i, pad)[:, 1]
                normal_force.append(abs(s_f[s] @ n_W))
    r["patch_polygons"] = (np.mean(polygons), min(polygons), max(polygons))
    r["patch_force"] = (np.mean(normal_force), min(normal_force), max(normal_force))

    # The bowl, once held.
    held = int(round(HOLDER_CLOSED / (t[1] - t[0])))
    r["bowl_grasp_shift"] = np.linalg.norm(P[held, bowl] - P[0, bowl])
    r["bowl_shift"] = np.linalg.norm(P[held:, bowl] - P[held, bowl], axis=1).max()
    R_held = R(held, bowl)
    r["bowl_tilt_deg"] = np.degrees(max(angle_of(R_held.T @ R(i, bowl)) for i in range(held, n)))

    # The servos.
    actuators = names_of(f["/model/actuator_names"])
    effort = np.abs(f["/actuators/effort"][:n])
    limit = f["/model/actuator_effort_limit"][:]
    r["saturated_rows"] = int(f["/actuators/saturated"][:n].sum())
    share = effort.max(axis=0) / limit
    r["closest"] = {}
    for robot in ("pourer_", "holder_"):
        j = max((k for k, name in enumerate(actuators) if name.startswith(robot)),
                key=lambda k: share[k])
        r["closest"][robot] = (actuators[j], effort[:, j].max(), limit[j])
    q = f["/state/q"][:n]
    q_target = f["/actuators/q_target"][:n]
    q_index = f["/model/joint_q_start"][:][f["/model/actuator_joint"][:]]
    arm = [k for k, name in enumerate(actuators) if "finger" not in name]
    r["lag"] = max(np.abs(q[:, q_index[k]] - q_target[:, k]).max() for k in arm)
    return r


def markdown(args, r, timed, timed_every_step, loads, took):
    host = "%s, %d cores" % (cpu_model(), os.cpu_count())
    walls = [w for w, _, _ in timed]
    cpus = [c for _, c, _ in timed]
    stepping = [float(re.search(r"in ([0-9.]+) s wall", s).group(1)) for _, _, s in timed]
    sim = r["duration"]
    lines = []
    add = lines.append
    add("# The dual-arm pour (scenes/dual_arm_pour.yaml)\n")
    add("Generated by `tools/dual_arm_pour_study.py` on %s with %s; host %s, load average %.1f at "
        "the start and %.1f at the end; the study took %.0f s. Command:\n" % (
            datetime.date.today().isoformat(), args.version, host, loads[0], loads[1], took))
    add("    " + " ".join(["tools/dual_arm_pour_study.py"] + args.argv) + "\n")
    add("Each timed run: `%s run %s -o OUT.h5 --no-progress` (dt = 1 ms, symplectic Euler, %.0f s, "
        "one solver thread; the scene records every 10th step), %d times, pinned to one CPU "
        "with its HDF5 writer thread (`sched_setaffinity`, CPU %d). The figures after the run "
        "times come from one more run with `--set %s`, which records every step; the runs are "
        "deterministic, only their wall times differ.\n" % (
            os.path.relpath(args.csim), os.path.relpath(args.scene), sim, len(walls), args.cpu,
            EVERY_STEP))
    add("## Run time on one core\n")
    add("| | wall time [s] (best / median) | real-time factor (best / median) |")
    add("|---|---|---|")
    add("| whole command (loading both robots' meshes, stepping, writing the HDF5 file) "
        "| %.2f / %.2f | %.2f / %.2f |" % (
            min(walls), np.median(walls), sim / min(walls), sim / np.median(walls)))
    add("| stepping alone (csim's summary line) | %.2f / %.2f | %.2f / %.2f |" % (
        min(stepping), np.median(stepping), sim / min(stepping), sim / np.median(stepping)))
    add("| whole command, CPU time (user and system) | %.2f / %.2f | %.2f / %.2f |" % (
        min(cpus), np.median(cpus), sim / min(cpus), sim / np.median(cpus)))
    wall_all, cpu_all, _ = timed_every_step
    add("| whole command recording every step (`--set %s`), one run | %.2f | %.2f |\n" % (
        EVERY_STEP, wall_all, sim / wall_all))
    add("The machine is shared, so wall times scatter from run to run with the other jobs' "
        "load; the CPU time is what the command takes of its core. csim's summary line of the "
        "first timed run:\n")
    add("    " + timed[0][2].strip() + "\n")
    add("## Solver\n")
    add("%d steps; Newton iterations per step %.2f on average, at most %d; largest momentum "
        "error %.2e against the tolerance %.0e: %s.\n" % (
            r["steps"], r["iterations_mean"], r["iterations_max"], r["error_max"], r["tolerance"],
            "every step certified" if r["uncertified"] == 0 else
            "%d steps above it" % r["uncertified"]))
    add("## Marbles\n")
    elsewhere = "; ".join(r["elsewhere"]) if r["elsewhere"] else "none"
    add("- In the bowl at the end: **%d of %d**; elsewhere: %s. They still roll about its bottom "
        "(at most %.3f m/s), each with at most %.2f %% of the kinetic energy it would need to lift "
        "its centre the %.1f cm to the rim." % (r["in_bowl"], r["marbles"], elsewhere, r["speed"],
                                               100 * r["ke_ratio"], 100 * CLIMB))
    if r["left_mug"]:
        add("- They leave the mug between t = %.2f and %.2f s, at tilts of %.0f to %.0f deg (the "
            "mug is tilted %.0f deg at the end); %d of %d leave it." % (
                r["leave_t"][0], r["leave_t"][1], r["leave_tilt"][0], r["leave_tilt"][1],
                r["tilt_end"], r["left_mug"], r["marbles"]))
    add("- The lowest any marble's bottom gets over the table: %+.2e m from the table top; the "
        "deepest any sinks into another body (contact phi0): %.2e m.\n" % (
            r["lowest"], r["deepest"]))
    add("## Grasp and bowl\n")
    add("- The mug leaves the table at t = %.3f s. From then to the end it moves relative to the "
        "pourer's right pad by at most %.3f mm along the pad's face, %.3f mm along its normal, "
        "and turns by at most %.4f deg." % (
            r["lift_off"], r["slip_along"] * 1e3, r["slip_across"] * 1e3, r["slip_turn_deg"]))
    add("- Each pad's patch on the mug: %.1f polygons on average (%d to %d), pressing with "
        "%.1f N (%.1f to %.1f N)." % (r["patch_polygons"] + r["patch_force"]))
    add("- The bowl is pushed %.3f mm as the holder's fingers close on its fin; from t = %.1f s "
        "on it moves at most %.3f mm and turns at most %.4f deg.\n" % (
            r["bowl_grasp_shift"] * 1e3, HOLDER_CLOSED, r["bowl_shift"] * 1e3, r["bowl_tilt_deg"]))
    add("## Servos\n")
    for robot, (name, e, limit) in r["closest"].items():
        add("- %s arm: closest to its limit `%s`, %.1f of %.0f." % (robot[:-1], name, e, limit))
    add("- Saturated actuator rows: %d; the largest arm tracking lag %.2f mrad.\n" % (
        r["saturated_rows"], r["lag"] * 1e3))
    add("## The scene header's bounds\n")
    add("| bound | measured | verdict |")
    add("|---|---|---|")
    rows = [
        ("at least %d marbles end in the bowl" % MIN_IN_BOWL, "%d" % r["in_bowl"],
         r["in_bowl"] >= MIN_IN_BOWL),
        ("marbles in the bowl keep < %.0f %% of the energy to climb out" % (100 * KE_BOUND),
         "%.2f %%" % (100 * r["ke_ratio"]), r["ke_ratio"] < KE_BOUND),
        ("every step certified", "%.2e" % r["error_max"], r["uncertified"] == 0),
        ("mug slip along the pad < %.0f mm" % (SLIP_BOUND * 1e3),
         "%.3f mm" % (r["slip_along"] * 1e3), r["slip_along"] < SLIP_BOUND),
        ("mug turn in the pads < %.1f deg" % TURN_BOUND_DEG, "%.4f deg" % r["slip_turn_deg"],
         r["slip_turn_deg"] < TURN_BOUND_DEG),
        ("bowl moves < %.1f mm once held" % (BOWL_SHIFT_BOUND * 1e3),
         "%.3f mm" % (r["bowl_shift"] * 1e3), r["bowl_shift"] < BOWL_SHIFT_BOUND),
        ("bowl turns < %.1f deg once held" % BOWL_TILT_BOUND_DEG, "%.4f deg" % r["bowl_tilt_deg"],
         r["bowl_tilt_deg"] < BOWL_TILT_BOUND_DEG),
        ("no marble sinks %.1f mm into anything" % (SINK_BOUND * 1e3),
         "%.3f mm" % (r["deepest"] * 1e3), r["deepest"] < SINK_BOUND),
        ("no marble below the table top (%.1f mm of contact overlap allowed)" % (TABLE_SINK * 1e3),
         "%+.2e m" % r["lowest"], r["lowest"] > -TABLE_SINK),
        ("no servo saturates", "%d rows" % r["saturated_rows"], r["saturated_rows"] == 0),
        ("faster than real time (whole command, median)", "%.2f" % (sim / np.median(walls)),
         sim / np.median(walls) > 1.0),
    ]
    for bound, measured, ok in rows:
        add("| %s | %s | %s |" % (bound, measured, "holds" if ok else "fails"))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_csim_arguments(parser)
    parser.add_argument("--scene", default=SCENE)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the scene as it is")
    parser.add_argument("--cpu", type=int, default=0, help="the one CPU the runs are pinned to")
    parser.add_argument("--markdown", help="write the report here")
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    args.version = subprocess.run([args.csim, "--version"], stdout=subprocess.PIPE,
                                  text=True).stdout.splitlines()[0].strip()
    started = time.perf_counter()
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as folder:
        timed = [run_csim(args, os.path.join(folder, "run%d.h5" % k)) for k in range(args.repeat)]
        # The figures come from a run that records every step (it is timed too).
        every_step = os.path.join(folder, "every_step.h5")
        timed_every_step = run_csim(args, every_step, [EVERY_STEP])
        result = analyse(every_step)
    loads.append(os.getloadavg()[0])
    publish_markdown(markdown(args, result, timed, timed_every_step, loads,
                              time.perf_counter() - started), args.markdown)


if __name__ == "__main__":
    main()
