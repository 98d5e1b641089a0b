#!/usr/bin/env bash
# Writes results/robots_bench.md: csim against MuJoCo 2.2.2 on the robot scenes (the speed
# part of issue "Robots I"), and what actuators cost a contact-free step of a 7-dof arm.
#   - scenes/pd_arm.yaml, and scenes/parallel_gripper.yaml when it exists, with csim and
#     MuJoCo stepping alternately in the same run (bench/mjcf_writer.h maps the PD servos,
#     force actuators and constraints; a scene it cannot express runs in csim alone, and
#     the report says why);
#   - bench/scenes/arm7.yaml (a bare 7-dof arm) and bench/scenes/arm7_actuated.yaml (the
#     same arm with 7 PD servos following a trajectory).
# Targets: csim's time per step at most MuJoCo's; the actuated arm's step at most 20 % over
# the bare arm's.
# Usage: tools/run_robots_bench.sh [repetitions, default 3]
#   BUILD_DIR (default: build) is configured and csim_bench built there (Release), unless
#   NO_BUILD=1 (then BUILD_DIR/bench/csim_bench is used as it is).
# Each repetition runs csim_bench three times on every scene: once with MuJoCo stepping
# alternately with csim (the like-for-like ratio; csim_bench allows no --repeat with
# MuJoCo), once csim alone with --repeat 3 (three runs per scene, each window keeping the
# fastest: the actuated/bare overhead), both with --no-stage-times (MuJoCo reads no clock
# either), and once csim alone with its stages timed, for the per-phase split only. The tables take, per scene
# and figure, the best (smallest time) over the repetitions, and the median in
# parentheses: wall times on a shared machine only ever get longer. Steps here take
# microseconds, so a preempted step weighs on a mean: the median step times are given too.
# Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/bench_report.sh  # the report's build, provenance and raw-output parts
reps="${1:-3}"
build_dir="${BUILD_DIR:-build}"
bench_build "$build_dir"
scenes=(scenes/pd_arm.yaml)
if [[ -f scenes/parallel_gripper.yaml ]]; then
  scenes+=(scenes/parallel_gripper.yaml)
else
  echo "scenes/parallel_gripper.yaml not found: skipped" >&2
fi
scenes+=(bench/scenes/arm7.yaml bench/scenes/arm7_actuated.yaml)
options=(--duration 4 --settled 1 --no-stage-times)
split_options=(--duration 4 --settled 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((r = 1; r <= reps; r++)); do
  echo "repetition $r of $reps" >&2
  "$build_dir/bench/csim_bench" --scene "${scenes[@]}" "${options[@]}" --csv "$work/r$r.csv" \
    > "$work/r$r.log"
  "$build_dir/bench/csim_bench" --scene "${scenes[@]}" "${options[@]}" --repeat 3 --no-mujoco \
    --csv "$work/c$r.csv" > "$work/c$r.log"
  "$build_dir/bench/csim_bench" --scene bench/scenes/arm7.yaml bench/scenes/arm7_actuated.yaml \
    "${split_options[@]}" --no-mujoco --csv "$work/s$r.csv" > "$work/s$r.log"
done
{
  echo "# csim_bench: robot scenes against MuJoCo, and the cost of actuators"
  echo
  bench_provenance "tools/run_robots_bench.sh $reps" "."
  bench_commands "$reps" \
    "$build_dir/bench/csim_bench --scene ${scenes[*]} ${options[*]} --csv FILE" \
    "$build_dir/bench/csim_bench --scene ${scenes[*]} ${options[*]} --repeat 3 --no-mujoco --csv FILE" \
    "$build_dir/bench/csim_bench --scene bench/scenes/arm7.yaml bench/scenes/arm7_actuated.yaml ${split_options[*]} --no-mujoco --csv FILE"
  echo
  if [[ ! -f scenes/parallel_gripper.yaml ]]; then
    echo "scenes/parallel_gripper.yaml did not exist when this ran: not measured."
    echo
  fi
  /usr/bin/python3 - "$work" "$reps" <<'PY'
import csv, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
def load(prefix):
    rows = {}  # scene -> CSV rows, one per repetition
    for r in range(1, reps + 1):
        with open(f"{work}/{prefix}{r}.csv") as f:
            for row in csv.DictReader(f):
                rows.setdefault(row["scene"], []).append(row)
    return rows
paired, alone, split = load("r"), load("c"), load("s")
rows = paired
# Why MuJoCo did not run a scene, from the first log ("MuJoCo: not run ...", in scene order).
skipped = [l.strip() for l in open(f"{work}/r1.log") if l.startswith("MuJoCo: not run")]
def num(x):
    try:
        v = float(x)
        return v if v == v else None
    except ValueError:
        return None
def values(scene, key, table):
    return [v for v in (num(x[key]) for x in (table or rows)[scene]) if v is not None]
def best(scene, key, table=None):
    vals = values(scene, key, table)
    return min(vals) if vals else None
def med(scene, key, table=None):
    vals = values(scene, key, table)
    return statistics.median(vals) if vals else None
def us(v):
    return "-" if v is None else f"{1e3 * v:.2f}"
def short(s):
    return s.split("/")[-1]
print("## csim against MuJoCo 2.2.2")
print()
print("Wall time per step [us] in the run where csim and MuJoCo step alternately, best of the")
print("repetitions (median of the repetitions in parentheses): the mean over all steps and the")
print("median step. MuJoCo / csim is the benchmark's ratio of the means over the steps both took")
print("(> 1: csim faster), and the same of the median steps; best of the repetitions (median).")
print()
print("| scene | dt [s] | steps | csim mean | MuJoCo mean | MuJoCo / csim (means) | csim median step | MuJoCo median step | MuJoCo / csim (median steps) | target: csim <= MuJoCo | csim Newton iterations |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
verdicts = []
for scene in rows:
    has = int(float(rows[scene][0]["mujoco_steps"] or 0)) > 0 and best(scene, "mujoco_over_csim") is not None
    if has:
        mean_ratios = [float(x["mujoco_over_csim"]) for x in rows[scene]]
        median_ratios = [float(x["mujoco_ms_median"]) / float(x["csim_ms_median"]) for x in rows[scene]]
        verdict = "holds" if statistics.median(median_ratios) >= 1 else "fails"
        r_mean = f"{max(mean_ratios):.2f} ({statistics.median(mean_ratios):.2f})"
        r_median = f"{max(median_ratios):.2f} ({statistics.median(median_ratios):.2f})"
    else:
        verdict, r_mean, r_median = "MuJoCo not run", "-", "-"
    verdicts.append((short(scene), verdict))
    print(f"| {short(scene)} | {rows[scene][0]['dt']} | {rows[scene][0]['steps']} "
          f"| {us(best(scene, 'csim_common_ms_mean' if has else 'csim_ms_mean'))} "
          f"({us(med(scene, 'csim_common_ms_mean' if has else 'csim_ms_mean'))}) "
          f"| {us(best(scene, 'mujoco_ms_mean'))} ({us(med(scene, 'mujoco_ms_mean'))}) | {r_mean} "
          f"| {us(best(scene, 'csim_ms_median'))} ({us(med(scene, 'csim_ms_median'))}) "
          f"| {us(best(scene, 'mujoco_ms_median'))} ({us(med(scene, 'mujoco_ms_median'))}) | {r_median} "
          f"| {verdict} | {med(scene, 'csim_iters_mean'):.2f} |")
print()
print("The verdict uses the ratio of the median steps (median over the repetitions): a step")
print("takes microseconds here, and a single preempted step of a few milliseconds on this shared")
print("machine moves a 4000-step mean by a microsecond (see the max in the raw output). ", end="")
if skipped:
    print("MuJoCo did not run:")
    print()
    for s in skipped:
        print(f"- {s}")
else:
    print("MuJoCo ran every scene.")
print()
# The CSV's scene column is the scene's name (its file's, without .yaml).
bare = next((s for s in alone if short(s).replace(".yaml", "") == "arm7"), None)
act = next((s for s in alone if short(s).replace(".yaml", "") == "arm7_actuated"), None)
if bare and act:
    print("## Actuators on a contact-free 7-dof arm")
    print()
    phases = [("free_motion_ms", "free motion"), ("build_ms", "problem build"),
              ("assembly_ms", "Newton assembly"), ("factorization_ms", "factorization"),
              ("line_search_ms", "line search"), ("solve_ms", "whole solve")]
    print("csim alone with its stages timed (the third command), mean time per step and its split")
    print("[us], best of the repetitions (the CSV's per-phase means over all steps; \"whole solve\"")
    print("includes assembly, factorization and line search, and the rest of the solver: gradient,")
    print("cost, stopping test, warm start). The clock reads of the timing are in these steps, not")
    print("in the others of this file.")
    print()
    print("| scene | step | " + " | ".join(p[1] for p in phases) + " | Newton iterations |")
    print("|---|---|" + "---|" * len(phases) + "---|")
    for s in (bare, act):
        print(f"| {short(s)} | {us(best(s, 'csim_ms_mean', split))} | " +
              " | ".join(us(best(s, k, split)) for k, _ in phases) +
              f" | {med(s, 'csim_iters_mean', split):.2f} |")
    over = [float(a["csim_ms_mean"]) / float(b["csim_ms_mean"]) - 1
            for a, b in zip(alone[act], alone[bare])]
    over_median = [float(a["csim_ms_median"]) / float(b["csim_ms_median"]) - 1
                   for a, b in zip(alone[act], alone[bare])]
    o_best, o_med = min(over), statistics.median(over)
    m_med = statistics.median(over_median)
    print()
    print("csim alone (--repeat 3, stages not timed); overhead = actuated / bare - 1 per")
    print("repetition:")
    print()
    print("| scene | median step (best run of 3), best (median) of the repetitions |")
    print("|---|---|")
    for s in (bare, act):
        print(f"| {short(s)} | {us(best(s, 'csim_ms_median', alone))} ({us(med(s, 'csim_ms_median', alone))}) |")
    print()
    print(f"Overhead of the 7 PD actuators, median steps: {100 * m_med:.1f} % (median of the "
          f"repetitions; per repetition: {', '.join(f'{100 * o:.1f} %' for o in over_median)}); "
          f"means: {100 * o_med:.1f} % (per repetition: {', '.join(f'{100 * o:.1f} %' for o in over)}). "
          f"Target <= 20 % (on the median steps): {'holds' if m_med <= 0.20 else 'fails'}.")
    verdicts.append(("actuated/bare overhead <= 20 %", "holds" if m_med <= 0.20 else "fails"))
    print()
    print("Where the difference comes from: the bare arm's step has no constraint, so after the")
    print("free motion the solver returns at once (v = v*); the actuated arm's step samples the")
    print("targets, computes each servo's clamped row (R, v_hat, bound) and, since the servos are")
    print("the step's only constraints, solves them directly without adding them to the SAP")
    print("problem: one small L D L^T factor of the clique's A plus the rows' diagonal, accepted")
    print("when every row stays on the piece of its clamp it was assumed on and SAP eq. 26 holds")
    print("(contact/pd_actuators.h, engine/solver/pd_rows_direct_solve.h), else the rows enter")
    print("the problem and the Newton solve runs. In the table above, that direct solve is in")
    print("\"whole solve\".")
    print("The phase means above are of all steps, preemptions included, and each")
    print("column's best may come from a different repetition: read them for their order of")
    print("magnitude; the median steps carry the verdict.")
    print()
    mb, ma = best(bare, "mujoco_ms_mean"), best(act, "mujoco_ms_mean")
    if mb is not None and ma is not None:
        print(f"MuJoCo on the same pair: {us(mb)} us bare, {us(ma)} us actuated "
              f"({100 * (ma / mb - 1):.1f} %).")
        print()
print("Targets: " + "; ".join(f"{s}: {v}" for s, v in verdicts) + ". (csim <= MuJoCo per scene;")
print("the issue states it for the robot scenes pd_arm and parallel_gripper, the arms are listed")
print("for reference.)")
PY
  echo
  echo "## Raw output (first repetition)"
  echo
  bench_raw_output "$work/r1.log"
  echo
  echo "csim alone, --repeat 3:"
  echo
  bench_raw_output "$work/c1.log"
} > results/robots_bench.md.new
bench_publish results/robots_bench.md
