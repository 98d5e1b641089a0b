#!/usr/bin/env bash
# Writes results/fetch_bench.md: csim against MuJoCo 2.2.2 on scenes/fetch_pick_place.yaml
# (the Fetch robot imported from Debian's MJCF, its convex collision meshes, point contact)
# in the same run: csim_bench --scene writes csim's expanded scene as MJCF
# (bench/mjcf_writer.h: meshes as MuJoCo mesh assets, limits, springs, armature, damping,
# the PD servos, the collision filter as excludes) and steps both alternately, same dt,
# MuJoCo with its Newton solver and elliptic cones.
# Target (the issue): csim's time per step at most MuJoCo's, with csim's momentum error
# certified every step (SAP eq. 26 met by every island of every step).
# Usage: tools/run_fetch_bench.sh [repetitions, default 3]
#   BUILD_DIR (default: build) is configured and csim_bench built there (Release), unless
#   NO_BUILD=1 (then BUILD_DIR/bench/csim_bench is used as it is). The Fetch model comes
#   from tools/fetch-models.sh (BUILD_DIR/models), run here first.
# Each repetition runs csim_bench twice: with MuJoCo stepping alternately (stages not timed:
# MuJoCo reads no clock either), the like-for-like comparison, and csim alone with its
# stages timed, for the split of csim's step. The table takes, per figure, the best
# (smallest time) over the repetitions and the median in parentheses. When perf is
# installed, a last csim-alone run is sampled by `perf record` for the functions that
# dominate. Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/bench_report.sh  # the report's build, provenance and raw-output parts
reps="${1:-3}"
build_dir="${BUILD_DIR:-build}"
bench_build "$build_dir"
tools/fetch-models.sh "$build_dir/models" >/dev/null
scene=scenes/fetch_pick_place.yaml
options=(--duration 7.5 --settled 1 --no-stage-times)
split_options=(--duration 7.5 --settled 1 --no-mujoco)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((r = 1; r <= reps; r++)); do
  echo "repetition $r of $reps" >&2
  "$build_dir/bench/csim_bench" --scene "$scene" "${options[@]}" --csv "$work/r$r.csv" \
    > "$work/r$r.log" 2> "$work/r$r.err"
  "$build_dir/bench/csim_bench" --scene "$scene" "${split_options[@]}" --csv "$work/s$r.csv" \
    > "$work/s$r.log" 2> "$work/s$r.err"
done
have_perf=""
if command -v perf >/dev/null 2>&1 &&
   perf record -q -F 4000 --call-graph dwarf,16384 -o "$work/perf.data" \
     "$build_dir/bench/csim_bench" --scene "$scene" "${split_options[@]}" --no-stage-times \
     > /dev/null 2> "$work/perf.err"; then
  perf report -i "$work/perf.data" --children --stdio 2>/dev/null |
    grep -E '^ +[0-9.]+% +[0-9.]+%' > "$work/perf.txt" || true
  have_perf=1
fi
{
  echo "# csim_bench: the Fetch pick-and-place against MuJoCo 2.2.2"
  echo
  bench_provenance "tools/run_fetch_bench.sh $reps" ""
  echo "(shared with other jobs: the times scatter from run to run)."
  bench_commands "$reps" \
    "$build_dir/bench/csim_bench --scene $scene ${options[*]} --csv FILE" \
    "$build_dir/bench/csim_bench --scene $scene ${split_options[*]} --csv FILE"
  echo
  /usr/bin/python3 - "$work" "$reps" <<'PY'
import csv, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
def load(prefix):
    rows = []
    for r in range(1, reps + 1):
        with open(f"{work}/{prefix}{r}.csv") as f:
            rows += list(csv.DictReader(f))
    return rows
paired, split = load("r"), load("s")
def vals(rows, key):
    out = []
    for x in rows:
        try:
            v = float(x[key])
        except ValueError:
            continue
        if v == v:
            out.append(v)
    return out
def bm(rows, key, scale=1e3, fmt="{:.1f}", best=min):
    v = vals(rows, key)
    if not v:
        return "-"
    return f"{fmt.format(scale * best(v))} ({fmt.format(scale * statistics.median(v))})"
first = paired[0]
if int(float(first["mujoco_steps"] or 0)) == 0:
    print("MuJoCo did not run on this scene (see the raw output below for why).")
    print()
print("## Time per step")
print()
print("Wall time per step [us] in the runs where csim and MuJoCo step alternately, best of the")
print("repetitions (median of the repetitions in parentheses). MuJoCo / csim > 1 means csim is")
print("faster; the ratio of the means is the benchmark's (over the steps both took).")
print()
print("| | csim | MuJoCo 2.2.2 |")
print("|---|---|---|")
print(f"| steps (dt [s]) | {first['steps']} ({first['dt']}) | {first['mujoco_steps']} ({first['dt']}) |")
print(f"| mean step, all | {bm(paired, 'csim_common_ms_mean')} | {bm(paired, 'mujoco_ms_mean')} |")
print(f"| median step, all | {bm(paired, 'csim_ms_median')} | {bm(paired, 'mujoco_ms_median')} |")
print(f"| mean step, last second (the arm retreats; the box at rest) | {bm(paired, 'csim_settled_ms_mean')} | {bm(paired, 'mujoco_settled_ms_mean')} |")
print(f"| Newton iterations per step, all / last second | {bm(paired, 'csim_iters_mean', 1, '{:.2f}', statistics.median)} / {bm(paired, 'csim_settled_iters_mean', 1, '{:.2f}', statistics.median)} | {bm(paired, 'mujoco_iters_mean', 1, '{:.2f}', statistics.median)} / {bm(paired, 'mujoco_settled_iters_mean', 1, '{:.2f}', statistics.median)} |")
print(f"| largest Newton iterations in a step | {first['csim_iters_max']} | - |")
print(f"| contacts per step (csim: contact and limit constraints) | {float(first['csim_contacts_mean']):.1f} | {float(first['mujoco_contacts_mean']):.1f} |")
ratio_means = vals(paired, "mujoco_over_csim")
ratio_medians = [float(x["mujoco_ms_median"]) / float(x["csim_ms_median"]) for x in paired
                 if x["mujoco_ms_median"] not in ("", "nan")]
if ratio_means:
    print(f"| **MuJoCo / csim**, means (medians) | **{max(ratio_means):.2f}** ({statistics.median(ratio_means):.2f}) best (median) of the repetitions | |")
    print(f"| **MuJoCo / csim**, median steps | **{max(ratio_medians):.2f}** ({statistics.median(ratio_medians):.2f}) | |")
print()
print("## csim's accuracy")
print()
cost_steps = max(int(float(x["csim_cost_criterion_steps"])) for x in paired)
print(f"Momentum error (SAP eq. 32, dimensionless) over all {first['steps']} steps: largest "
      f"{max(vals(paired, 'csim_momentum_error_max')):.3g}, median "
      f"{statistics.median(vals(paired, 'csim_momentum_error_median')):.3g}; eps_r = "
      f"{first['csim_eps_r']}. Steps some island of which stopped by the cost criterion instead of "
      f"SAP eq. 26 (no certified bound): {cost_steps}"
      + (" -- every step certified." if cost_steps == 0 else "."))
print()
print("## Where csim's step goes")
print()
print("csim alone with its stages timed (the second command), mean per step [us], best")
print("(median) of the repetitions; the clock reads add about 0.1 us to each step:")
print()
phases = [("csim_ms_mean", "step"), ("free_motion_ms", "free motion"), ("collision_ms", "collision query"),
          ("build_ms", "problem build"), ("assembly_ms", "Newton assembly"),
          ("factorization_ms", "factorization"), ("line_search_ms", "line search"), ("solve_ms", "whole solve")]
print("| window | " + " | ".join(p[1] for p in phases) + " |")
print("|---|" + "---|" * len(phases))
print("| all steps | " + " | ".join(bm(split, k) for k, _ in phases) + " |")
print("| last second | " + " | ".join(bm(split, k) for k, _ in
      [("csim_settled_ms_mean", ""), ("csim_settled_free_motion_ms", ""), ("csim_settled_collision_ms", ""),
       ("csim_settled_build_ms", "")]) + " | | | | " + bm(split, "csim_settled_solve_ms") + " |")
coll = statistics.median(vals(split, "collision_ms")) / statistics.median(vals(split, "csim_ms_mean"))
print()
print(f"The collision query is {100 * coll:.0f} % of csim's step (medians), with only "
      f"{float(split[0]['csim_settled_narrow_phase_pairs']):.1f} pairs per step reaching the narrow "
      "phase in the last second.")
PY
  echo
  if [[ -n "$have_perf" ]]; then
    echo "### Profile"
    echo
    echo "\`perf record --call-graph dwarf\` of one csim-alone run (stages not timed). The process"
    echo "also loads the scene (the model's meshes, their hulls), so the figures are the"
    echo "share of the samples inside integrator::StepWithContact (inclusive: a function with"
    echo "what it calls; self: in the function itself):"
    echo
    /usr/bin/python3 - "$work/perf.txt" <<'PY'
import re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*([0-9.]+)%\s+([0-9.]+)%\s+\S+\s+\S+\s+\[.\]\s+(.*)", line)
    if m:
        rows.append((float(m.group(1)), float(m.group(2)), m.group(3).strip()))
def find(name):
    return next((r for r in rows if re.search(name, r[2])), None)
step = find(r"integrator::StepWithContact$")
if step is None:
    print("(no samples in StepWithContact: perf could not unwind)")
    sys.exit()
print("| function | inclusive | self | what it is |")
print("|---|---|---|---|")
for name, label, what in [
        (r"CollisionWorld::UpdatePoses$", "geometry::CollisionWorld::UpdatePoses", "moves every geometry's bounding box"),
        (r"ContactShape::CalcWorldBounds$", "geometry::ContactShape::CalcWorldBounds", "a mesh's box: every vertex transformed"),
        (r"CollisionWorld::FindContacts$", "geometry::CollisionWorld::FindContacts", "broad and narrow phase"),
        (r"geometry::CalcGjkDistance$", "geometry::CalcGjkDistance", "GJK of the narrow phase"),
        (r"ContactShape::SupportLocal$", "geometry::ContactShape::SupportLocal", "a mesh's support point: every vertex scanned"),
        (r"SapSolver::Solve$", "solver::SapSolver::Solve", "the contact solve"),
        (r"integrator::CalcFreeMotion$", "free motion", "v* and the tree factorizations")]:
    r = find(name)
    if r:
        print(f"| {label} | {100 * r[0] / step[0]:.0f} % | {100 * r[1] / step[0]:.0f} % | {what} |")
PY
    echo
  fi
  echo "## Raw output (first repetition)"
  echo
  bench_raw_output "$work/r1.log"
  echo
  echo "csim alone, stages timed:"
  echo
  bench_raw_output "$work/s1.log"
} > results/fetch_bench.md.new
bench_publish results/fetch_bench.md
