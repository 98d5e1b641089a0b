#!/usr/bin/python3
"""Evaluates a csim_bench CSV (results/benchmarks.csv) against the targets of the speed
issue and prints a Markdown section: every figure is read from the CSV, nothing typed in.

Usage: tools/bench_targets.py results/benchmarks.csv [--iterations results/iterations.csv]
           [--growth results/growth.csv] [--density results/growth_density.csv]
           [--isolated results/growth_isolated.csv] [--piles results/growth_piles.csv]
           > section.md
(tools/run_benchmarks.sh appends its output to results/benchmarks.md.)

- benchmarks.csv: csim_bench with MuJoCo alternating (the MuJoCo targets).
- --iterations (tools/iteration_study.py): the iteration target over several piles (seeds):
  one pile is chaotic, and its settled iteration count depends on how it came to rest.
- --growth: csim_bench --no-mujoco --repeat on the same scenes without walls: the growth
  target, measured without MuJoCo's steps in between (they evict csim's data from the
  caches, more so the larger the scene) and with the fastest of several runs per window.
- --density: the same with --per-column 10 (the column height, and the energy per object,
  fixed while the count grows): how the cost scales when the physics per object does not
  change; a diagnostic, not the target's scene.
- --isolated: the same with --per-column 10 --column-spacing 2: the columns so far apart
  that the collapsed piles never meet, so the work per object does not depend on the count
  at all (with 0.4 m, neighbouring piles merge into larger islands as the grid grows):
  csim's own scaling; a diagnostic, not the target's scene.
- --piles: csim_bench --no-mujoco --seed 1,2,... on the benchmark's scenes without walls:
  the growth target's exponent pile by pile, since one pile's exponent carries its luck.

Windows: "last second" is the speed issue's settled window; "last 5 s" (the benchmark's
--settled 5) is a stricter one, reported alongside.
"""
import argparse
import csv
import math


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k, v in r.items():
            try:
                r[k] = float(v) if v not in ("", None) else None
            except ValueError:
                pass
    return rows


# The columns that name a configuration of csim_bench; rows that agree on them differ only
# in the seed (the pile).
CONFIG_KEYS = ["objects", "walls", "dt", "columns", "column_spacing"]


def mean_over_seeds(rows):
    """One row per configuration: each numeric column averaged over the rows (piles) that
    differ only in the seed (None where some pile has no value), with `piles` their count,
    in the order of first appearance."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r.get(k) for k in CONFIG_KEYS), []).append(r)
    out = []
    for group in groups.values():
        mean = {"piles": len(group)}
        for k in group[0]:
            values = [r.get(k) for r in group]
            if all(isinstance(v, float) for v in values):
                mean[k] = sum(values) / len(values)
            else:
                mean[k] = values[0] if all(v == values[0] for v in values) else None
        out.append(mean)
    return out


def pile_exponents(rows, dt, key):
    """The fitted exponent of `key` ~ objects^p of each pile (seed) without walls at dt, 40
    objects and up, as {seed: p}."""
    by_seed = {}
    for r in fit_rows(no_wall_series(rows, dt)):
        if r.get(key) is not None and r.get("seed") is not None:
            by_seed.setdefault(int(r["seed"]), []).append((r["objects"], r[key]))
    return {s: exponent(points) for s, points in sorted(by_seed.items()) if len(points) >= 2}


def piles_section(rows, out):
    """The growth of the benchmark's scenes over several piles: each pile's own fitted
    exponents of the time and of the Newton work per step (all steps), their range, and the
    fit of the means over the piles."""
    dts = sorted({r["dt"] for r in rows if int(r["walls"]) == 0}, reverse=True)
    means = mean_over_seeds(rows)
    lines = []
    for dt in dts:
        time_p = pile_exponents(rows, dt, "csim_ms_mean")
        work_p = pile_exponents(rows, dt, "csim_work_mean")
        mean_rows = [r for r in fit_rows(no_wall_series(means, dt))
                     if r.get("csim_ms_mean") is not None and r.get("csim_work_mean") is not None]
        if len(time_p) < 2 or len(work_p) < 2 or len(mean_rows) < 2:
            continue  # one pile, or a CSV older than the work columns: nothing to compare
        mean_time = exponent([(r["objects"], r["csim_ms_mean"]) for r in mean_rows])
        mean_work = exponent([(r["objects"], r["csim_work_mean"]) for r in mean_rows])
        span = f"{int(mean_rows[0]['objects'])}-{int(mean_rows[-1]['objects'])}"
        lines.append(f"| {dt:g} | {span} | {len(time_p)} | "
                     + ", ".join(f"{p:.2f}" for p in time_p.values())
                     + f" | {min(time_p.values()):.2f}-{max(time_p.values()):.2f} | {mean_time:.2f} | "
                     + ", ".join(f"{p:.2f}" for p in work_p.values())
                     + f" | {mean_work:.2f} |")
    if not lines:
        return
    out.append("The growth over several piles (results/growth_piles.csv: the benchmark's scenes "
               "without walls, one csim run per pile and seed; a pile is chaotic, so one pile's "
               "exponent carries its own luck): each pile's fitted exponent of the time per step "
               "(all steps) and of its Newton work per step, their range, and the exponents of "
               "the means over the piles:")
    out.append("")
    out.append("| dt | objects | piles | time p of each pile (seeds in order) | range | time p of the "
               "mean | work p of each pile | work p of the mean |")
    out.append("|---|---|---|---|---|---|---|---|")
    out.extend(lines)
    out.append("")


def pick(rows, objects, walls, dt):
    for r in rows:
        if int(r["objects"]) == objects and int(r["walls"]) == walls and abs(r["dt"] - dt) < 1e-12:
            return r
    return None


def verdict(ok):
    return "met" if ok else "NOT met"


def name(r):
    cols = f" {int(r['columns'])}-columns" if r.get("columns") else ""
    return f"clutter-{int(r['objects'])} {'walls' if r['walls'] else 'no-walls'}{cols} dt={r['dt']:g}"


def exponent(points):
    """Least-squares slope of log(time) against log(objects): 1 is linear growth."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


# Growth counts as linear when the fitted exponent is at most this: the VM's run-to-run
# spread of a window mean is 10-20 %, a few percent after --repeat 5.
LINEAR_EXPONENT = 1.05
WINDOWS = [("all steps", "csim_ms_mean"), ("last 5 s", "csim_settled_ms_mean"),
           ("last second", "csim_last_second_ms_mean")]
# csim_bench's Newton work per step of each window (tree-iterations: each island's trees
# times its Newton iterations; CSV columns appended later, absent from older CSVs).
WORK = ["csim_work_mean", "csim_settled_work_mean", "csim_last_second_work_mean"]


# The fits start at this many objects: below it the fixed costs of a step weigh too much.
FIT_MIN_OBJECTS = 40


def fit_rows(series):
    """The rows of a series that enter the fits (FIT_MIN_OBJECTS objects and up)."""
    return [r for r in series if int(r["objects"]) >= FIT_MIN_OBJECTS]


def repeats(rows):
    """The --repeat of a csim_bench CSV (column csim_repeats), as text ("?" if absent)."""
    values = {int(r["csim_repeats"]) for r in rows if r.get("csim_repeats") is not None}
    return "/".join(str(v) for v in sorted(values)) if values else "?"


def no_wall_series(rows, dt):
    """The rows without walls at time step dt, by object count."""
    return sorted((r for r in rows if int(r["walls"]) == 0 and abs(r["dt"] - dt) < 1e-12),
                  key=lambda r: r["objects"])


def growth_section(rows, title, verdicts, out):
    dts = sorted({r["dt"] for r in rows if int(r["walls"]) == 0}, reverse=True)
    if not dts:
        return
    out.append(title)
    out.append("")
    out.append("| dt | objects | " + " | ".join(f"{w} ms/step | us/object | vs previous" for w, _ in WINDOWS)
               + " | contacts per object | size-weighted iterations all / last second |")
    out.append("|---|---|" + "---|---|---|" * len(WINDOWS) + "---|---|")
    fits = []
    for dt in dts:
        series = [r for r in no_wall_series(rows, dt) if r.get(WINDOWS[-1][1]) is not None]
        prev = None
        for r in series:
            n = int(r["objects"])
            cells = []
            for _, key in WINDOWS:
                t = r[key]
                ratio = f"{(t / n) / (prev[key] / prev['objects']):.2f}" if prev else "-"
                cells.append(f"{t:.3f} | {1e3 * t / n:.2f} | {ratio}")
            out.append(f"| {dt:g} | {n} | " + " | ".join(cells)
                       + f" | {r['csim_contacts_mean'] / n:.2f}"
                       + f" | {r['csim_island_iters_mean']:.2f} / {r['csim_last_second_island_iters_mean']:.2f} |")
            prev = r
        fit_points = fit_rows(series)
        if len(fit_points) >= 2:
            fits.append((dt, [(w, exponent([(r["objects"], r[key]) for r in fit_points]))
                              for w, key in WINDOWS],
                         f"{int(fit_points[0]['objects'])}-{int(fit_points[-1]['objects'])}"))
    out.append("")
    if fits:
        out.append("Fitted exponent p of time per step ~ objects^p (least squares on log-log, "
                   "40 objects and up; linear growth is p = 1"
                   + (f", counted as met for p <= {LINEAR_EXPONENT}" if verdicts else "") + "):")
        out.append("")
        out.append("| dt | objects | " + " | ".join(w for w, _ in WINDOWS) + (" | verdict |" if verdicts else " |"))
        out.append("|---|---|" + "---|" * len(WINDOWS) + ("---|" if verdicts else ""))
        for dt, values, span in fits:
            line = f"| {dt:g} | {span} | " + " | ".join(f"{p:.2f}" for _, p in values) + " |"
            if verdicts:
                met = [w for w, p in values if p <= LINEAR_EXPONENT]
                line += (" met in every window |" if len(met) == len(values) else
                         f" met: {', '.join(met)}; NOT met: "
                         f"{', '.join(w for w, p in values if p > LINEAR_EXPONENT)} |" if met else
                         " NOT met |")
            out.append(line)
        out.append("")
    work_section(rows, dts, out)
    work_kind_section(rows, dts, out)
    if verdicts:
        settled_section(rows, dts, fits, out)
        collision_pairs_section(rows, dts, out)


def work_section(rows, dts, out):
    """Fitted exponents of the Newton work per step and of the time per unit of work: whether
    the growth is in the work the scene asks for or in csim's cost per unit of work."""
    fits = []
    for dt, series in complete_series(rows, dts, [WORK[-1]]):
        work = [exponent([(r["objects"], r[w]) for r in series]) for w in WORK]
        per_work = [exponent([(r["objects"], r[key] / r[w]) for r in series])
                    for (_, key), w in zip(WINDOWS, WORK)]
        per_object = " / ".join(f"{r[WORK[0]] / r['objects']:.2f}" for r in series)
        fits.append((dt, f"{int(series[0]['objects'])}-{int(series[-1]['objects'])}", work,
                     per_work, per_object))
    if not fits:
        return
    out.append("Where the growth goes: csim's Newton work per step (tree-iterations: each "
               "island's bodies times its Newton iterations) ~ objects^p, and the time per unit "
               "of that work (time per step / work per step) ~ objects^p. Work growing faster "
               "than the objects means the scene asks more Newton iterations per body; time "
               "per unit of work falling means csim's cost per iteration grows no faster than "
               "the work (collision and free motion, which do not scale with the iterations, "
               "are included, so this is a crude split):")
    out.append("")
    out.append("| dt | objects | work per object, all steps | " +
               " | ".join(f"work {w}" for w, _ in WINDOWS) + " | " +
               " | ".join(f"time per work {w}" for w, _ in WINDOWS) + " |")
    out.append("|---|---|---|" + "---|" * (2 * len(WINDOWS)))
    for dt, span, work, per_work, per_object in fits:
        out.append(f"| {dt:g} | {span} | {per_object} | " + " | ".join(f"{p:.2f}" for p in work)
                   + " | " + " | ".join(f"{p:.2f}" for p in per_work) + " |")
    out.append("")


# csim_bench's Newton work per step by kind of update, all steps (tree-iterations; CSV
# columns appended later, absent from older CSVs): along a predicted direction, plain with
# an active-set change, plain on fixed pieces (solver::SapSolverStats).
WORK_KINDS = [("predicted", "csim_work_predicted_mean"),
              ("active-set change", "csim_work_active_set_mean"),
              ("smooth", "csim_work_smooth_mean")]


# The shares of the growth are printed only when the work per object grew by this much.
SHARE_MIN_GROWTH = 0.05


def work_kind_section(rows, dts, out):
    """The Newton work per object by kind of update, each kind's fitted exponent, and each
    kind's share of the growth of the work per object from the fewest objects to the most
    (when it grew by SHARE_MIN_GROWTH or more)."""
    tables = complete_series(rows, dts, [key for _, key in WORK_KINDS])
    if not tables:
        return
    out.append("Which Newton updates the work per object grows in (all steps, tree-iterations "
               "per object per step): along a predicted direction (the first of every island, "
               "and the repeats while the line search cuts them short), plain ones that change "
               "some contact's region (stiction, sliding, no contact: an active-set change), "
               "and plain ones that change none (Newton's convergence on fixed regions: the "
               "sliding contacts' curved cost, the last step to the tolerance). p: each kind's "
               "work per step ~ objects^p; share: each kind's part of the growth of the work "
               f"per object between the first and the last row (when it grew by "
               f"{100 * SHARE_MIN_GROWTH:.0f} % or more):")
    out.append("")
    out.append("| dt | objects | " + " | ".join(k for k, _ in WORK_KINDS) + " | total |")
    out.append("|---|---|" + "---|" * (len(WORK_KINDS) + 1))
    for dt, series in tables:
        for r in series:
            n = r["objects"]
            per = [r[key] / n for _, key in WORK_KINDS]
            out.append(f"| {dt:g} | {int(n)} | " + " | ".join(f"{w:.2f}" for w in per)
                       + f" | {sum(per):.2f} |")
        p = [exponent([(r["objects"], r[key]) for r in series]) for _, key in WORK_KINDS]
        total = exponent([(r["objects"], sum(r[key] for _, key in WORK_KINDS)) for r in series])
        out.append(f"| {dt:g} | p | " + " | ".join(f"{x:.2f}" for x in p) + f" | {total:.2f} |")
        first, last = series[0], series[-1]
        growth = [last[key] / last["objects"] - first[key] / first["objects"] for _, key in WORK_KINDS]
        first_total = sum(first[key] for _, key in WORK_KINDS) / first["objects"]
        # Shares of a growth within the run-to-run scatter would be noise.
        if sum(growth) > SHARE_MIN_GROWTH * first_total:
            out.append(f"| {dt:g} | share {int(first['objects'])}-{int(last['objects'])} | "
                       + " | ".join(f"{100 * g / sum(growth):.0f} %" for g in growth) + " | 100 % |")
    out.append("")


# The last 5 s split of csim_bench by phase (CSV columns; "rest" is the step time the
# phases do not cover: integration, recording of statistics, timers).
SETTLED_PHASES = [("free motion", "csim_settled_free_motion_ms"),
                  ("collision", "csim_settled_collision_ms"),
                  ("build", "csim_settled_build_ms"),
                  ("solve", "csim_settled_solve_ms")]


def complete_series(rows, dts, keys):
    """Per time step, the rows without walls that enter the fits and have every column in
    `keys` (older CSVs lack the newer ones), as (dt, rows) for the steps with two or more."""
    tables = []
    for dt in dts:
        series = [r for r in fit_rows(no_wall_series(rows, dt))
                  if all(r.get(k) is not None for k in keys)]
        if len(series) >= 2:
            tables.append((dt, series))
    return tables


def settled_section(rows, dts, fits, out):
    """Where the settled pile's own growth goes: its time per object by phase over the last
    5 s, and what the all-steps fit would be if the collapse cost nothing extra."""
    series_by_dt = complete_series(rows, dts, [k for _, k in SETTLED_PHASES])
    if not series_by_dt:
        return
    out.append("Where the settled pile's growth goes: time per object per step over the last 5 s "
               "(after the collapse) by phase, in microseconds, and each phase's fitted exponent "
               "p (time per step ~ objects^p). Solve is the SAP solve (assembly, factorization, "
               "line search and the rest of the Newton loop); rest is what the phases leave out "
               "(integration, statistics):")
    out.append("")
    names = [n for n, _ in SETTLED_PHASES] + ["rest", "total"]
    out.append("| dt | objects | " + " | ".join(names) + " |")
    out.append("|---|---|" + "---|" * len(names))

    def phases(r):
        values = [r[k] for _, k in SETTLED_PHASES]
        total = r["csim_settled_ms_mean"]
        return values + [total - sum(values), total]

    for dt, series in series_by_dt:
        for r in series:
            n = r["objects"]
            out.append(f"| {dt:g} | {int(n)} | " + " | ".join(f"{1e3 * t / n:.3f}" for t in phases(r)) + " |")
        fitted = [exponent([(r["objects"], phases(r)[i]) for r in series]) for i in range(len(names))]
        out.append(f"| {dt:g} | p | " + " | ".join(f"{p:.2f}" for p in fitted) + " |")
    out.append("")
    # The floor the solver cannot move: what the settled step spends outside the solve.
    for dt, series in series_by_dt:
        outside = exponent([(r["objects"], r["csim_settled_ms_mean"] - r["csim_settled_solve_ms"])
                            for r in series])
        span = f"{int(series[0]['objects'])}-{int(series[-1]['objects'])}"
        out.append(f"dt {dt:g}: outside the SAP solve (free motion, collision, build, rest) the "
                   f"settled step's time grows at p = {outside:.2f} ({span} objects), so a solve "
                   f"that cost nothing would leave the settled step's exponent at {outside:.2f}"
                   + (f", above the bar of {LINEAR_EXPONENT}: on these scenes the settled step "
                      "misses the target whatever the solver does (the collision query's share "
                      "grows with the pairs per object, next table)."
                      if outside > LINEAR_EXPONENT else "."))
        out.append("")
    for dt, values, span in fits:
        settled = dict(values).get("last 5 s")
        if settled is None:
            continue
        out.append(f"dt {dt:g}: if every step of the collapse cost no more than a settled step, at "
                   f"every size, the all-steps fit would be the last-5 s fit, p = {settled:.2f} "
                   f"({span} objects), against {dict(values)['all steps']:.2f} measured"
                   + (f": above the bar of {LINEAR_EXPONENT} even then, so the target needs the "
                      "settled pile's own cost per object to stop growing, not only a cheaper "
                      "collapse." if settled > LINEAR_EXPONENT else "."))
        out.append("")


# The collision query's pairs per step over the last 5 s (csim_bench, CSV columns).
SETTLED_PAIRS = [("narrow-phase pairs", "csim_settled_narrow_phase_pairs"),
                 ("touching pairs", "csim_settled_touching_pairs"),
                 ("pairs of two shapes with extended features", "csim_settled_feature_pairs")]


def collision_pairs_section(rows, dts, out):
    """Why the settled collision time per object grows: the pairs the narrow phase sees per
    object over the last 5 s, with the collision time per object next to them. Silent for
    CSVs written before csim_bench counted pairs."""
    keys = [k for _, k in SETTLED_PAIRS] + ["csim_settled_collision_ms"]
    tables = complete_series(rows, dts, keys)
    if not tables:
        return
    out.append("What the settled collision time per object grows with: the collision query's "
               "pairs per object per step over the last 5 s. Narrow-phase pairs are the broad "
               "phase's candidates; pairs of two shapes with extended features (box, mesh, "
               "cylinder, capsule) take the narrow phase's costly path (a deepest-point query, "
               "then, when they touch, clipping of the two support features); the collision "
               "time per object is in microseconds; p is each column's fitted exponent (per "
               "step ~ objects^p):")
    out.append("")
    names = [n for n, _ in SETTLED_PAIRS] + ["collision time"]
    out.append("| dt | objects | " + " | ".join(names) + " |")
    out.append("|---|---|" + "---|" * len(names))
    for dt, series in tables:
        for r in series:
            n = r["objects"]
            cells = [f"{r[k] / n:.3f}" for _, k in SETTLED_PAIRS]
            cells.append(f"{1e3 * r['csim_settled_collision_ms'] / n:.3f}")
            out.append(f"| {dt:g} | {int(n)} | " + " | ".join(cells) + " |")
        fitted = [exponent([(r["objects"], r[k]) for r in series]) for k in keys]
        out.append(f"| {dt:g} | p | " + " | ".join(f"{p:.2f}" for p in fitted) + " |")
    out.append("")


def mujoco_growth_section(rows, out):
    """The growth of both simulators' time per step without walls, over the steps both ran
    in the alternating run: the issue asks csim to keep scaling where MuJoCo does not."""
    dts = sorted({r["dt"] for r in rows if int(r["walls"]) == 0}, reverse=True)
    tables = []
    for dt in dts:
        series = [r for r in no_wall_series(rows, dt)
                  if r.get("mujoco_ms_mean") and r.get("csim_common_ms_mean")]
        points = fit_rows(series)
        if len(points) >= 2:
            tables.append((dt, series, points))
    if not tables:
        return
    out.append("MuJoCo's growth on the same scenes without walls (benchmarks.csv, the alternating "
               "run): mean time per step over the steps both simulators ran, per object, and "
               "the fitted exponent p (40 objects and up). The target asks csim for p <= 1; "
               "MuJoCo's p is what a user of MuJoCo 2.2.2 would see:")
    out.append("")
    out.append("| dt | objects | steps both ran | csim ms/step | us/object | MuJoCo ms/step | us/object | MuJoCo/csim |")
    out.append("|---|---|---|---|---|---|---|---|")
    fits = []
    for dt, series, points in tables:
        for r in series:
            n = int(r["objects"])
            c, m = r["csim_common_ms_mean"], r["mujoco_ms_mean"]
            out.append(f"| {dt:g} | {n} | {int(r['mujoco_steps'])} of {int(r['steps'])} | {c:.3f} | "
                       f"{1e3 * c / n:.2f} | {m:.3f} | {1e3 * m / n:.2f} | {m / c:.2f} |")
        span = f"{int(points[0]['objects'])}-{int(points[-1]['objects'])}"
        fits.append((dt, span, exponent([(r["objects"], r["csim_common_ms_mean"]) for r in points]),
                     exponent([(r["objects"], r["mujoco_ms_mean"]) for r in points])))
    out.append("")
    out.append("| dt | objects | csim p | MuJoCo p |")
    out.append("|---|---|---|---|")
    for dt, span, pc, pm in fits:
        out.append(f"| {dt:g} | {span} | {pc:.2f} | {pm:.2f} |")
    out.append("")


def accuracy_section(rows, out):
    """The accuracy the speed was measured at: csim's momentum error (SAP eq. 32) on every
    step of every configuration, against the tolerance eps_r that SAP eq. 26 bounds it by
    (the speed issue's "accuracy must not be traded"). Silent for CSVs written before
    csim_bench reported the error."""
    rows = [r for r in rows if r.get("csim_momentum_error_max") is not None]
    if not rows:
        return
    out.append("Accuracy of every step (the speed issue: \"the same stopping criterion, the same "
               "momentum error bound\"): csim's dimensionless momentum error (SAP eq. 32) of each "
               "step's solution, over all steps. A step is certified when every island met SAP "
               "eq. 26, which bounds the error by eps_r; a step some island of which stopped by "
               "the cost criterion (docs/design/sap-solver.md §2.2) has no such bound and is counted apart. "
               "MuJoCo's Newton solver stops on its own test (its tolerance on the scaled cost "
               "improvement or gradient) of a different contact model, so it has no counterpart "
               "here.")
    out.append("")
    out.append("| configuration | steps | max error | median error | eps_r | steps certified by SAP eq. 26 (max error) "
               "| steps stopped by the cost criterion (max error) | every step within eps_r |")
    out.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        steps, by_cost = int(r["steps"]), int(r["csim_cost_criterion_steps"])
        cost = f"{by_cost} ({r['csim_cost_criterion_momentum_error_max']:.2e})" if by_cost else "0"
        within = r["csim_momentum_error_max"] <= r["csim_eps_r"]
        out.append(f"| {name(r)} | {steps} | {r['csim_momentum_error_max']:.2e} "
                   f"| {r['csim_momentum_error_median']:.1e} | {r['csim_eps_r']:g} "
                   f"| {steps - by_cost} ({r['csim_certified_momentum_error_max']:.2e}) | {cost} "
                   f"| {'yes' if within else 'NO'} |")
    out.append("")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmarks")
    parser.add_argument("--iterations")
    parser.add_argument("--growth")
    parser.add_argument("--density")
    parser.add_argument("--isolated")
    parser.add_argument("--piles")
    args = parser.parse_args()
    rows = load(args.benchmarks)
    seeds = load(args.iterations) if args.iterations else []
    has_last = all(r.get("csim_last_second_iters_mean") is not None for r in rows)
    dts = sorted({r["dt"] for r in rows}, reverse=True)
    out = ["## Targets of the speed issue (generated by tools/bench_targets.py from the CSV)", ""]

    out.append("MuJoCo/csim is MuJoCo's mean time per step over csim's on the steps both ran "
               "(> 1: csim faster). Iterations: the step's Newton rounds (the island that "
               "took most); the target's settled window is the last second of the 10 s run, "
               "and the stricter last 5 s is reported too.")
    out.append("")
    out.append("| target | configuration | measured | verdict |")
    out.append("|---|---|---|---|")
    for dt in dts:
        r = pick(rows, 40, 1, dt)
        if r and r["mujoco_over_csim"]:
            goal = dt == 2e-3
            out.append(f"| csim at most MuJoCo's time per step{'' if goal else ' (not a target at this dt)'} "
                       f"| clutter-40 walls dt={dt:g} | MuJoCo/csim {r['mujoco_over_csim']:.2f} "
                       f"({r['mujoco_ms_mean']:.3f} vs {r['csim_common_ms_mean']:.3f} ms) "
                       f"| {verdict(r['mujoco_over_csim'] >= 1.0) if goal else '-'} |")
    for dt in dts:
        r = pick(rows, 160, 1, dt)
        if r and r["mujoco_over_csim"]:
            out.append(f"| at least 10x faster than MuJoCo | clutter-160 walls dt={dt:g} "
                       f"| MuJoCo/csim {r['mujoco_over_csim']:.1f} over {int(r['mujoco_steps'])} steps "
                       f"| {verdict(r['mujoco_over_csim'] >= 10.0)} |")
    goal = "mean Newton iterations < 3 overall, < 1.5 settled"
    for dt in dts:
        r = pick(rows, 40, 1, dt)
        if not r:
            continue
        o, s5 = r["csim_iters_mean"], r["csim_settled_iters_mean"]
        if has_last:
            s1 = r["csim_last_second_iters_mean"]
            out.append(f"| {goal} | clutter-40 walls dt={dt:g} | {o:.2f} / {s1:.2f} last second "
                       f"(last 5 s: {s5:.2f}; kinetic energy {r['csim_last_second_kinetic_energy_mean']:.2g} J) "
                       f"| {verdict(o < 3 and s1 < 1.5)}{'' if s5 < 1.5 else '; not on the last 5 s'} |")
        else:
            out.append(f"| {goal} | clutter-40 walls dt={dt:g} | {o:.2f} / {s5:.2f} (last 5 s) "
                       f"| {verdict(o < 3 and s5 < 1.5)} |")
    for dt in sorted({r["dt"] for r in seeds}, reverse=True):
        sel = [r for r in seeds if abs(r["dt"] - dt) < 1e-12 and int(r["variant"]) == 0]
        if not sel:
            continue
        o = sum(r["iterations_mean"] for r in sel) / len(sel)
        s5 = sum(r["settled_iterations_mean"] for r in sel) / len(sel)
        worst5 = max(r["settled_iterations_mean"] for r in sel)
        worst_o = max(r["iterations_mean"] for r in sel)
        where = f"clutter-{int(sel[0]['objects'])} walls dt={dt:g}, {len(sel)} piles (seeds; tools/iteration_study.py)"
        if sel[0].get("last_second_iterations_mean") is not None:
            s1 = sum(r["last_second_iterations_mean"] for r in sel) / len(sel)
            worst1 = max(r["last_second_iterations_mean"] for r in sel)
            every = worst_o < 3 and worst1 < 1.5
            out.append(f"| {goal} | {where} | mean {o:.2f} / {s1:.2f} last second (last 5 s: {s5:.2f}); "
                       f"worst pile {worst_o:.2f} overall, {worst1:.2f} last second, {worst5:.2f} last 5 s "
                       f"| {verdict(o < 3 and s1 < 1.5)} on average; "
                       f"{'met' if every else 'NOT met'} on every pile |")
        else:
            out.append(f"| {goal} | {where} | {o:.2f} / {s5:.2f} (last 5 s; worst pile {worst5:.2f}) "
                       f"| {verdict(o < 3 and s5 < 1.5)} on average |")
    out.append("")

    out.append("Newton iterations per step, every configuration: rounds until the last island "
               "converged (the step's count) / size-weighted island iterations (the work), all "
               "steps, last 5 s and last second; MuJoCo's for comparison.")
    out.append("")
    out.append("| configuration | csim rounds all / last 5 s / last second | csim size-weighted all / last 5 s | "
               "kinetic energy last second [J] | MuJoCo all / last second |")
    out.append("|---|---|---|---|---|")
    for r in rows:
        last = f"{r['csim_last_second_iters_mean']:.2f}" if has_last else "-"
        ke = r["csim_last_second_kinetic_energy_mean"] if has_last else r["csim_settled_kinetic_energy_mean"]
        mj = "-"
        if r.get("mujoco_iters_mean"):
            mj = f"{r['mujoco_iters_mean']:.2f}"
            if has_last and r.get("mujoco_last_second_iters_mean") is not None:
                mj += f" / {r['mujoco_last_second_iters_mean']:.2f}"
        out.append(f"| {name(r)} | {r['csim_iters_mean']:.2f} / {r['csim_settled_iters_mean']:.2f} / {last} "
                   f"| {r['csim_island_iters_mean']:.2f} / {r['csim_settled_island_iters_mean']:.2f} "
                   f"| {ke:.2g} | {mj} |")
    out.append("")

    accuracy_section(rows, out)

    target = ("time per step growing no faster than linearly with the number of objects "
              "without walls (time per object per step flat)")
    if args.growth:
        growth_rows = load(args.growth)
        growth_section(growth_rows,
                       f"Growth target: {target}. csim alone (csim_bench --no-mujoco "
                       f"--repeat {repeats(growth_rows)}, "
                       "results/growth.csv), the benchmark's scenes:", True, out)
    if has_last:
        growth_section([r for r in rows if int(r["walls"]) == 0],
                       "The same from the run with MuJoCo alternating (benchmarks.csv; MuJoCo's "
                       "steps in between evict csim's data from the caches):", not args.growth, out)
        mujoco_growth_section(rows, out)
    if args.piles:
        piles_section(load(args.piles), out)
    if args.density:
        growth_section(load(args.density),
                       "Diagnostic: the same objects stacked ten per column (csim_bench "
                       "--per-column 10, results/growth_density.csv), so that the column height "
                       "and the energy per object do not grow with the count:", False, out)
    if args.isolated:
        growth_section(load(args.isolated),
                       "Diagnostic: ten per column with the columns 2 m apart (csim_bench "
                       "--per-column 10 --column-spacing 2, results/growth_isolated.csv), so that "
                       "the collapsed piles never meet and the work per object does not depend on "
                       "the count: csim's own scaling:", False, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
