#!/usr/bin/python3
"""The cost of forward sensitivities against a plain run: writes results/sensitivity_cost.md
and results/sensitivity_cost.csv.

1. build/bench/csim_sensitivity_bench (bench/README.md) on the bouncing balls, the
   spring-cylinder and clutter-40 with n_p = 0 (plain), 1, 2, 4 and 8 columns: time per
   step, ratio to plain, the time inside TrajectorySensitivity::Advance, the share of steps
   that took the pairwise rule (no whole assembly) and the general rule's 2 m assemblies a
   step (docs/design/sensitivities.md §6.2-§6.3); and the same scenes and columns as whole
   `csim run` processes (loading and HDF5 output included).
2. `csim fit` of two parameters on a 1 s drop (scenes/falling_sphere.yaml): the data made by
   `csim run` at the true values, the fit started off them; wall time, iterations, runs.
3. With --profile (default when `perf` is on the PATH): `perf record` of the bench on
   clutter-40, the bouncing balls and the spring-cylinder with 4 columns, the samples inside
   Advance split by what they do: the pairwise rule's parts (the pairs' narrow phases, the
   contacts' partials and chain rule, the free bodies' partials), the general rule's perturbed assemblies by
   stage, the H factorization and solves, the contact parameter derivatives, the position
   derivatives.

Run from anywhere, with a Release build of csim_sensitivity_bench and csim:
    /usr/bin/python3 tools/sensitivity_cost.py [--build build] [--no-profile] [--quick]
--quick runs the bench's smoke configuration and a short fit (a check of the script, not
figures), written to build/sensitivity_cost_quick.md unless --output says otherwise.
"""

import argparse
import collections
import csv
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_RATIO = 2.0  # the target: at most 2x a plain run for up to 4 parameters
TARGET_COLUMNS = 4


def shown(cmd, tmp=None):
    """A command as the results file shows it: paths relative to the repository, the
    temporary folder as $TMP, arguments quoted for a shell."""
    out = []
    for c in cmd:
        if tmp and c.startswith(tmp):
            out.append("$TMP" + c[len(tmp):])
        else:
            out.append(shlex.quote(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c))
    return " ".join(out)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def machine_note():
    model = "unknown CPU"
    try:
        for line in run(["lscpu"]).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    cpus = run(["nproc"]).stdout.strip()
    return model, cpus


def build_type(build):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "?"


def commit():
    try:
        head = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip()
        # results/ is left out: the bench writes its CSV there before this is asked.
        dirty = run(["git", "--no-optional-locks", "-C", ROOT, "status", "--porcelain",
                     "--untracked-files=no", "--", ".", ":(exclude)results"]).stdout
        return head + (" with uncommitted changes" if dirty.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# --- 1. the bench ---------------------------------------------------------------------------

def run_bench(bench, csv_path, quick):
    cmd = [bench, "--csv", csv_path] + (["--quick"] if quick else [])
    out = run(cmd).stdout
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    return cmd, out, rows


def bench_tables(rows):
    lines = []
    verdicts = []
    scenes = []
    for r in rows:
        if r["scene"] not in scenes:
            scenes.append(r["scene"])
    for scene in scenes:
        rs = [r for r in rows if r["scene"] == scene]
        plain = next(r for r in rs if int(r["n_p"]) == 0)
        lines.append(f"### {scene}\n")
        lines.append(
            f"{plain['steps']} steps of {plain['dt']} s, {plain['rounds']} rounds; one assembly "
            f"(BuildStepProblem at a step's start state) {float(plain['assembly_us']):.2f} us, "
            f"{float(plain['assembly_us']) / float(plain['us_per_step']):.2f} of a plain step.\n")
        lines.append("| n_p | columns added | time per step [us] | ratio to plain | median round "
                     "[us] | in Advance [us] | Advance per column [us] | pairwise steps | "
                     "columns with a direction per step | flagged per step | est. assemblies "
                     "[us] | rest of Advance [us] |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        previous = []
        for r in rs:
            n_p = int(r["n_p"])
            cols = r["columns"].split() if r["columns"] else []
            added = [c for c in cols if c not in previous]
            previous = cols
            if n_p == 0:
                lines.append(f"| 0 (plain) | - | {float(r['us_per_step']):.2f} | 1.00 | "
                             f"{float(r['median_us_per_step']):.2f} | - | - | - | - | - | - "
                             "| - |")
                continue
            advance = float(r["advance_us"])
            assemblies = float(r["est_assemblies_us"])
            lines.append(
                f"| {n_p} | {', '.join('`' + c + '`' for c in added)} | "
                f"{float(r['us_per_step']):.2f} | {float(r['ratio']):.2f} | "
                f"{float(r['median_us_per_step']):.2f} | {advance:.2f} | {advance / n_p:.2f} | "
                f"{100 * float(r['pairwise_share']):.0f} % | "
                f"{float(r['columns_with_direction']):.2f} | {float(r['columns_flagged']):.3f} | "
                f"{assemblies:.2f} | {advance - assemblies:.2f} |")
        within = [r for r in rs if 0 < int(r["n_p"]) <= TARGET_COLUMNS]
        worst = max(within, key=lambda r: float(r["ratio"])) if within else None
        if worst is not None:
            met = float(worst["ratio"]) <= TARGET_RATIO
            verdicts.append(
                f"| {scene} | {float(worst['ratio']):.2f} (n_p = {worst['n_p']}) | "
                f"{'met' if met else 'not met'} |")
        lines.append("")
    return lines, verdicts


# --- 1b. whole csim runs ---------------------------------------------------------------------

def run_cli(csim, rows, tmp, repeats, quick):
    """Wall time of whole `csim run` processes (loading, stepping, HDF5 output) per scene and
    n_p, the bench's columns, fastest of `repeats` alternating rounds."""
    out = collections.OrderedDict()
    commands = []
    for r in rows:
        scene = os.path.join(ROOT, "scenes", r["scene"] + ".yaml")
        cmd = [csim, "run", scene, "-o", os.path.join(tmp, "run.h5"), "-q"]
        if quick:
            cmd += ["--set", "settings.duration=0.3"]
        if r["columns"]:
            cmd += ["--sensitivities", ",".join(r["columns"].split())]
        out.setdefault(r["scene"], collections.OrderedDict())[int(r["n_p"])] = (cmd, [])
    for _ in range(repeats):
        for scene, runs in out.items():
            for n_p, (cmd, walls) in runs.items():
                t0 = time.perf_counter()
                run(cmd)
                walls.append(time.perf_counter() - t0)
    for scene, runs in out.items():
        for n_p, (cmd, walls) in runs.items():
            if n_p == max(runs):
                commands.append(shown(cmd, tmp))
    return out, commands


def cli_table(out, repeats):
    n_ps = sorted({n for runs in out.values() for n in runs})
    lines = ["| scene | " + " | ".join("plain [s]" if n == 0 else f"n_p = {n} [s] (ratio)"
                                      for n in n_ps) + " |",
             "|---|" + "---|" * len(n_ps)]
    for scene, runs in out.items():
        plain = min(runs[0][1])
        cells = []
        for n in n_ps:
            if n not in runs:
                cells.append("-")
                continue
            t = min(runs[n][1])
            cells.append(f"{t:.3f}" if n == 0 else f"{t:.3f} ({t / plain:.2f})")
        lines.append(f"| {scene} | " + " | ".join(cells) + " |")
    return lines


# --- 2. the fit -----------------------------------------------------------------------------

FITS = [
    # (label, scene overrides shared by data and fit, parameters, start values off the truth)
    ("SAP, mu and tau_d of the ground",
     ["settings.contact_model=sap"],
     ["materials.ground.friction", "materials.ground.dissipation_time"],
     ["materials.ground.friction=0.3", "materials.ground.dissipation_time=0.003"]),
    ("SAP at dt = 1e-4 s (10 000 steps), mu and tau_d of the ground",
     ["settings.contact_model=sap", "settings.time_step=1e-4"],
     ["materials.ground.friction", "materials.ground.dissipation_time"],
     ["materials.ground.friction=0.3", "materials.ground.dissipation_time=0.003"]),
    ("lagged (the scene's model), mu and Hunt & Crossley d of the ground",
     [],
     ["materials.ground.friction", "materials.ground.hunt_crossley"],
     ["materials.ground.friction=0.3", "materials.ground.hunt_crossley=300"]),
]


def sets(values):
    out = []
    for v in values:
        out += ["--set", v]
    return out


def run_fits(csim, tmp, duration, repeats):
    scene = os.path.join(ROOT, "scenes", "falling_sphere.yaml")
    rows = []
    commands = []
    for label, shared, params, start in FITS:
        data = os.path.join(tmp, f"drop_{len(rows)}.h5")
        make = [csim, "run", scene, "-o", data, "-q", "--set",
                f"settings.duration={duration}"] + sets(shared)
        run(make)
        fit = [csim, "fit", scene, "--data", data]
        for p in params:
            fit += ["--param", p]
        fit += sets(shared + start)
        walls = []
        out = ""
        for _ in range(repeats):
            t0 = time.perf_counter()
            proc = subprocess.run(fit, text=True, capture_output=True)
            walls.append(time.perf_counter() - t0)
            out = proc.stdout
        status = re.search(r"^status: (.*?) after", out, re.M)
        m = re.search(r"after (\d+) iterations \((\d+) runs?, (\d+) with sensitivities\)", out)
        values = {}
        for p in params:
            v = re.search(r"^  --set " + re.escape(p) + r"=(\S+)$", out, re.M)
            values[p] = v.group(1) if v else "?"
        truth = {}
        for p in params:
            field = p.split(".")[-1]
            with open(scene) as f:
                t = re.search(r"ground: \{[^}]*\b" + field + r": ([^,}]+)", f.read())
            truth[p] = t.group(1).strip() if t else "?"
        rows.append({
            "label": label, "wall": min(walls), "median": statistics.median(walls),
            "status": status.group(1) if status else f"exit {proc.returncode}",
            "iterations": m.group(1) if m else "?", "runs": m.group(2) if m else "?",
            "sens_runs": m.group(3) if m else "?", "values": values, "truth": truth,
            "exit": proc.returncode})
        commands.append(shown(make, tmp))
        commands.append(shown(fit, tmp))
    return rows, commands


def fit_table(rows, duration, repeats):
    lines = [f"| fit ({duration} s drop) | wall time [s] (best of {repeats}) | median [s] | "
             "status | iterations | runs (with sensitivities) | fitted (truth) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        fitted = "; ".join(f"`{p.split('.', 1)[1]}` {r['values'][p]} ({r['truth'][p]})"
                           for p in r["values"])
        lines.append(f"| {r['label']} | {r['wall']:.3f} | {r['median']:.3f} | {r['status']} | "
                     f"{r['iterations']} | {r['runs']} ({r['sens_runs']}) | {fitted} |")
    return lines


# --- 3. the profile -------------------------------------------------------------------------

# Where a sample inside TrajectorySensitivity::Advance goes, from its call stack (root to
# leaf, the frames below Advance). The engine's Release build has no frame pointers: perf
# unwinds with DWARF (.eh_frame), and inlined functions count towards their caller (the
# column loop, ForEachColumn and its lambdas, is inlined into Advance on one thread; its
# frames and the thread pool's are skipped where they show).
DIFFERENCE_FRAMES = ("DifferenceAssembly", "DifferenceMass", "AssembleAt", "AssembleWith")
LOOP_FRAMES = ("ForEachColumn", "lambda", "ThreadPool", "std::function", "std::_Function")


def assembly_stage(frames):
    """The stage of BuildStepProblem a sample is in (frames below BuildStepProblem)."""
    joined = " ".join(frames)
    if frames and ("FreeMotion" in frames[0] or "CalcFreeMotion" in joined):
        return "free motion: M, v*, A and its factor"
    if "CollisionWorld" in joined or "geometry::" in joined:
        return "collision: broad and narrow phase"
    if "::Prepare" in joined:
        return "constraint Prepare (R, v_hat)"
    if "Delassus" in joined or (frames and frames[-1].endswith("FinishEntry")):
        return "Delassus estimates (FinishEntry)"
    return "problem build: cliques, frames, Jacobians, entries"


def classify(frames):
    """(part, detail) of one sample; frames root to leaf below Advance."""
    while frames and any(x in frames[0] for x in LOOP_FRAMES):
        frames = frames[1:]
    joined = " ".join(frames)
    top = frames[0] if frames else ""
    # The pairwise rule (docs/design/sensitivities.md §6.3), under DifferenceAssembly.
    i = next((k for k, f in enumerate(frames)
              if f.endswith("PairwiseContactDerivatives::PerturbedPoints")), None)
    if i is not None:
        return "pairwise contacts: narrow phase", ""
    if "PairwiseContactDerivatives::" in joined:  # the chain rule; Linearize; Prepare
        if "PairwiseContactDerivatives::Prepare" in joined:
            return "pairwise contacts: constraints and rest", "the step's pairs (Prepare)"
        if "PairwiseContactDerivatives::Linearize" in joined:
            return ("pairwise contacts: constraints and rest",
                    "the contacts' partials, once a step (Linearize)")
        return ("pairwise contacts: constraints and rest",
                "the chain rule per contact and column, the points' differences")
    if "FreeBodyPartials" in joined or "FixedAxisPartials" in joined:
        return "free-motion partials", ""
    # The general rule (§6.2): whole assemblies at x0 +- h D.
    if "BuildStepProblem" in joined:
        i = next(k for k, f in enumerate(frames) if f.endswith("BuildStepProblem"))
        part = "nominal re-assembly" if "AssembleNominal" in top else "perturbed assemblies"
        return part, assembly_stage(frames[i + 1:])
    if "AssembleNominal" in top:
        return "nominal: J v, r(v), pieces", ""
    if any(d in top for d in DIFFERENCE_FRAMES):
        if not any(f.endswith(("AssembleAt", "AssembleWith")) for f in frames):
            # DifferenceAssembly's own work, under either rule: the column's step, norms and
            # quotients.
            return "the differences' own arithmetic (steps, norms, quotients)", ""
        if "CalcOptimalityResidual" in joined:
            return "perturbed: r(v) and matching", "residual r(v)"
        if ("ContactParameterDerivatives" in joined or "CalcContactPiece" in joined
                or "dynamic_cast" in joined):
            return "perturbed: r(v) and matching", "pieces at the fixed v"
        return "perturbed: r(v) and matching", "perturbed state, matching"
    if "CalcOptimalityResidual" in top:  # r at the nominal problem (the general rule)
        return "nominal: J v, r(v), pieces", ""
    if "SolveRightHandSides" in joined or "StepSensitivitySolver" in joined:
        return "H factorization and solves", ""
    if any(x in joined for x in ("ContactDerivatives", "ContactParameterDirection",
                                 "CalcJTransposeTimesColumns", "CalcJTransposeTimes",
                                 "MaterialScale")):
        return "contact parameter derivatives (dgamma/dp, J^T)", ""
    if "PositionDerivatives" in joined or "IntegratePositionsDerivative" in joined:
        return "position derivatives", ""
    if "InspectContacts" in joined or "FrictionBounds" in joined:
        return "InspectContacts / FrictionBounds", ""
    return "Advance itself (copies, column arithmetic)", ""


def profile(bench, scene, columns, tmp, quick, min_time):
    """min_time: the bench's --min-time, so that a scene whose two rounds are short gets
    enough samples."""
    data = os.path.join(tmp, "perf.data")
    cmd = ["perf", "record", "-F", "1999", "--call-graph", "dwarf,16384", "-o", data, "--",
           bench, "--scene", scene, "--columns", str(columns), "--repeat", "2", "--min-time",
           f"{min_time:g}"] + (["--duration", "0.3"] if quick else [])
    run(cmd)
    script = run(["perf", "script", "-i", data, "-F", "ip,sym", "--no-inline"]).stdout
    os.remove(data)
    parts = collections.Counter()
    details = collections.Counter()
    total = 0
    for sample in script.split("\n\n"):
        frames = []
        for line in sample.strip().splitlines():
            fields = line.split(None, 1)
            if len(fields) == 2:
                frames.append(fields[1])
        frames.reverse()  # root to leaf
        total += 1
        k = next((k for k, f in enumerate(frames) if f.endswith("TrajectorySensitivity::Advance")),
                 None)
        if k is None:
            continue
        part, detail = classify(frames[k + 1:])
        parts[part] += 1
        details[(part, detail)] += 1
    return cmd, total, parts, details


PROFILE_ORDER = [
    # the pairwise rule (docs/design/sensitivities.md §6.3)
    "pairwise contacts: narrow phase", "pairwise contacts: constraints and rest",
    "free-motion partials",
    # the general rule (§6.2)
    "nominal re-assembly", "perturbed assemblies", "perturbed: r(v) and matching",
    # both
    "the differences' own arithmetic (steps, norms, quotients)",
    "nominal: J v, r(v), pieces", "H factorization and solves",
    "contact parameter derivatives (dgamma/dp, J^T)", "position derivatives",
    "InspectContacts / FrictionBounds", "Advance itself (copies, column arithmetic)"]


def profile_table(label, total, parts, details, row):
    """row: the unprofiled bench run's CSV row of the same scene and n_p."""
    inside = sum(parts.values())
    advance_us = float(row["advance_us"])
    us = lambda n: advance_us * n / inside if inside else float("nan")
    d = 2 if advance_us < 10 else 1  # decimals of us: a microsecond scene's parts need two
    direction = float(row["columns_with_direction"])
    flagged = float(row["columns_flagged"])
    pairwise = float(row["pairwise_share"])
    assembly_us = float(row["assembly_us"])
    perturbed = parts["perturbed assemblies"]
    pairs = (parts["pairwise contacts: narrow phase"]
             + parts["pairwise contacts: constraints and rest"] + parts["free-motion partials"])
    text = (f"{inside} of {total} samples inside Advance; us per step at the unprofiled run's "
            f"{advance_us:.{d}f} us of Advance per step. {100 * pairwise:.0f} % of the steps took "
            f"the pairwise rule; {direction:.2f} columns a step had a state direction, "
            f"{flagged:.2f} were left one-sided or unmatched.")
    if pairs:
        text += (f" The pairwise rule (the differenced pairs' narrow phases at x0 +- h D, the "
                 f"contacts' partials and chain rule, the free-motion partials): "
                 f"{us(pairs):.{d}f} us a step, "
                 f"{us(pairs) / direction if direction else float('nan'):.{d}f} us per column "
                 f"with a direction, against {2 * assembly_us:.{d}f} us for the general rule's "
                 "two assemblies.")
    if perturbed:
        # The probe times one assembly alone: the perturbed assemblies' time over it is the
        # number a step makes (retries included), against 2 m on the general-rule steps.
        made = us(perturbed) / assembly_us
        text += (f" The general rule's perturbed assemblies: {us(perturbed):.{d}f} us a step, "
                 f"{made:.1f} assemblies at the probe's {assembly_us:.2f} us each, against "
                 f"2 m (1 - the pairwise share) = {2 * direction * (1 - pairwise):.1f} "
                 "without retries (retries at a smaller h and the one-sided columns' extra "
                 "assemblies add to it).")
    nominal = parts["nominal re-assembly"]
    # The nominal problem is the step's own (SolvedStep); Advance rebuilds it only after a
    # step whose actuators were solved directly (its v_c is not of the problem's rows).
    text += (f" The nominal problem is the step's own (SolvedStep), rebuilt on some steps: "
             f"{us(nominal):.{d}f} us a step." if nominal else
             " The nominal problem is the step's own (SolvedStep): no samples re-assemble it.")
    lines = [f"#### {label}\n", text + "\n",
             "| part of Advance | share of Advance | us per step |", "|---|---|---|"]
    for part in PROFILE_ORDER + [p for p in parts if p not in PROFILE_ORDER]:
        n = parts.get(part, 0)
        if n == 0:
            continue
        lines.append(f"| {part} | {100 * n / inside:.1f} % | {us(n):.{d}f} |")
        subs = sorted(((detail, c) for (p, detail), c in details.items()
                       if p == part and detail), key=lambda x: -x[1])
        for detail, c in subs:
            lines.append(f"| &nbsp;&nbsp; {detail} | {100 * c / inside:.1f} % | "
                         f"{us(c):.{d}f} |")
    lines.append("")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--output", help="default results/sensitivity_cost.md "
                    "(--quick: build/sensitivity_cost_quick.md)")
    ap.add_argument("--quick", action="store_true", help="smoke configuration (not figures)")
    ap.add_argument("--profile", dest="profile", action="store_true", default=None)
    ap.add_argument("--no-profile", dest="profile", action="store_false")
    args = ap.parse_args()
    if args.output is None:
        args.output = (os.path.join(args.build, "sensitivity_cost_quick.md") if args.quick else
                       os.path.join(ROOT, "results", "sensitivity_cost.md"))
    bench = os.path.join(args.build, "bench", "csim_sensitivity_bench")
    csim = os.path.join(args.build, "app", "csim")
    for exe in (bench, csim):
        if not os.access(exe, os.X_OK):
            sys.exit(f"{exe} not built (cmake --build build --target csim_sensitivity_bench csim)")
    do_profile = shutil.which("perf") is not None if args.profile is None else args.profile
    csv_path = os.path.splitext(args.output)[0] + ".csv"
    model, cpus = machine_note()
    load = os.getloadavg()[0]  # the machine's load when the run started (1-minute average)
    invoked = "/usr/bin/python3 tools/sensitivity_cost.py " + " ".join(sys.argv[1:])

    with tempfile.TemporaryDirectory(prefix="csim_sensitivity_cost_") as tmp:
        bench_cmd, _, rows = run_bench(bench, csv_path, args.quick)
        duration, repeats = (0.3, 1) if args.quick else (1.0, 5)
        cli, cli_cmds = run_cli(csim, rows, tmp, 1 if args.quick else 3, args.quick)
        fits, fit_cmds = run_fits(csim, tmp, duration, repeats)
        profiles = []
        if do_profile:
            by_key = {(r["scene"], int(r["n_p"])): r for r in rows}
            # Rounds for 3 s (0.5 with --quick) at least: two rounds of the spring-cylinder
            # take milliseconds, and Advance is a small share of the others' since the
            # pairwise rule.
            min_time = 0.5 if args.quick else 3.0
            for name in ("clutter_40", "bouncing_balls", "spring_cylinder"):
                scene = os.path.join(ROOT, "scenes", name + ".yaml")
                cmd, total, parts, details = profile(bench, scene, TARGET_COLUMNS, tmp,
                                                      args.quick, min_time)
                profiles.append((name, cmd, total, parts, details,
                                 by_key[(name, TARGET_COLUMNS)]))

    rel = lambda c: os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
    tables, verdicts = bench_tables(rows)
    out = [
        "# Cost of forward sensitivities against a plain run",
        "",
        f"Made by `{invoked.strip()}` (commit {commit()}, {build_type(args.build)} build) on "
        f"{model}, {cpus} CPUs, load average {load:.2f} at the start; each configuration "
        "reports its fastest round (load only adds time). Bench: `" + shown(bench_cmd) + "` "
        "(bench/README.md); the CSV is `" + rel(csv_path) + "`.",
        "",
        "Each configuration is the step loop of `csim run` without its output (StepWithContact, "
        "then TrajectorySensitivity::Advance after each step, timed apart), over the scene's "
        "whole duration. n_p = k uses the first k of the scene's eight columns. Material "
        "columns have no state direction until their first contact moves the state; "
        "initial-state columns have one from the first step. *Columns with a direction per "
        "step*: the mean number m of columns whose state direction is nonzero at the step's "
        "start, the columns whose differences cost anything. Advance differences the step's "
        "problem at x0 +- h D by one of two rules (docs/design/sensitivities.md §6.2-§6.3), "
        "the nominal problem being the step's own (SolvedStep), not rebuilt. *Pairwise "
        "steps*: the share of steps that took the pairwise rule (every body with velocities a "
        "lone free body under theta = 0 (the bouncing balls, clutter-40) or a fixed-axis body "
        "(the spring-cylinder's planar joint, any theta), point contacts only), "
        "which makes no whole assembly: each column's free-motion part in closed form, its "
        "contact part contact by contact by the chain rule (each contact's partials once a "
        "step, the points of each pair with an impulse by central differences of its narrow "
        "phase at x0 +- h D). "
        "Every other step takes the general rule: 2 m assemblies (BuildStepProblem), more when "
        "a perturbed assembly "
        "changes the contact set or a contact's piece at the fixed v (its SAP region, its "
        "Hunt & Crossley clamp) and the difference is retried at a smaller h (at the decade "
        "the changed contacts' kink distances predict, none when even h/1000 cannot keep "
        "them); *flagged*: columns left one-sided or unmatched, under either rule. *Est. "
        "assemblies*: 2 m on each general-rule step times one assembly as the probe run "
        "times it, per step of the run (2 m x one assembly x (1 - the pairwise share)); "
        "*rest of Advance*: Advance minus that: the factorization of H and the solves, the "
        "contact parameter derivatives, the position derivatives, the retries and, on "
        "pairwise steps, the whole of the rule.",
        "",
        f"Target (the issue): at most {TARGET_RATIO:g}x a plain run's time for up to "
        f"{TARGET_COLUMNS} parameters.",
        "",
        "| scene | largest ratio, n_p <= 4 | target |",
        "|---|---|---|",
    ] + verdicts + [""] + tables
    out += ["## Whole `csim run` processes", "",
            "The same scenes and columns as whole `csim run` commands (loading, stepping and "
            "the HDF5 output, whose cost both sides share; the scene's own output settings), "
            f"wall time, fastest of {1 if args.quick else 3} alternating rounds; e.g. "
            "(n_p = 8, $TMP a temporary folder):", ""]
    out += ["    " + c for c in cli_cmds] + [""] + cli_table(cli, 1 if args.quick else 3) + [""]
    out += ["## A fit of two parameters on a 1 s drop", "",
            "`scenes/falling_sphere.yaml` run for the drop with the true values as the data, "
            "then `csim fit` from values off the truth (the start values below); each fit's "
            "runs are `settings.output.every=1` with sensitivities for the Jacobian "
            "(docs/cli.md). Wall time of the whole `csim fit` process. Commands:", ""]
    out += ["    " + c for c in fit_cmds] + [""] + fit_table(fits, duration, repeats) + [""]
    if profiles:
        out += ["## Where the time of Advance goes (perf)", "",
                "`perf record` of the bench at n_p = 4 (DWARF call graphs; the Release build "
                "has no frame pointers, so inlined functions count towards their caller), the "
                "samples whose stack passes through TrajectorySensitivity::Advance split by "
                "their frames below it (tools/sensitivity_cost.py `classify`); us per step "
                "are the shares times the unprofiled run's Advance per step. The three scenes "
                "take the pairwise rule (its rows: the pairs' narrow phase, their constraints "
                "and the rest of the pairwise differences, the free-motion partials); a step "
                "off it would show the general rule's rows (the perturbed assemblies by stage, "
                "their residuals and matching).", ""]
        for name, cmd, total, parts, details, row in profiles:
            out += ["`" + shown(cmd, tmp) + "`", ""]
            out += profile_table(name + f", n_p = {TARGET_COLUMNS}", total, parts, details, row)
    with open(args.output, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
    print(f"wrote {rel(args.output)} and {rel(csv_path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
