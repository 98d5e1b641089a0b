#!/usr/bin/python3
"""SAP against a general-purpose conic solver on the same contact problems (SAP paper sec.
VI-A and VI-C1, Figs. 12-13, where SAP is compared with Gurobi and a geodesic IPM).

For each clutter configuration (tools/make_clutter.py, objects x walls), csim steps the
scene and `build/bench/csim_export_problems` writes every N-th step's contact problem with
SAP's solution, Newton iterations, momentum error and wall time (bench/problem_export.h).
This script gives each problem, as the conic program of SAP eq. 19, to CVXOPT's
interior-point solver `coneqp` (Debian's python3-cvxopt), and compares per problem:
wall time (speed-up = CVXOPT's time / SAP's), the momentum error e_m (SAP eq. 32) and the
complementarity-slackness error e_cs (SAP eq. 33) of both solutions, and how far the two
solutions are apart. docs/design/conic_comparison.md derives the program and says why it
is SAP's problem.

tools/conic_program.py builds that program (SAP eq. 19 in CVXOPT's form, x = (v, sigma))
and the KKT solver the study passes coneqp by default, which keeps the problem's sparsity
(A + J' X J, the pattern of SAP's Newton matrix, factorized by CHOLMOD); CVXOPT's own dense
one ('chol') runs on the small configurations only.

Clocks: SAP's is the step's own SapSolver::Solve inside the simulation (from the step's warm
start), measured in C++ by the step's stage clock; the file also has the fastest of
--repeat re-solves of the same problem. CVXOPT's is time.perf_counter() around the coneqp
call: the interior-point iterations with every KKT factorization and solve, CVXOPT's
argument checks and initial point included; building P, q, G, h and the KKT solver's
index structures (done once per problem, in numpy) is not, as Gurobi's Runtime that the
paper used leaves out its setup.

Example (results/conic_solver.md; a few minutes on 2 cores):
  tools/conic_solver_study.py --objects 10 20 40 80 160 --duration 4 --every 20 \\
      --csv results/conic_solver.csv --markdown results/conic_solver.md \\
      --plot results/conic_solver.png
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

# One thread for CVXOPT's BLAS and CHOLMOD, as SAP runs on one (set before numpy loads it).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from conic_program import ConicForm, Problem, read_problems, solve_cvxopt  # noqa: E402
from study_common import cpu_model, publish_markdown, write_csv  # noqa: E402

DEFAULT_EXPORTER = os.path.join(HERE, "..", "build", "bench", "csim_export_problems")


# ---------------------------------------------------------------------------------------
# Metrics (SAP eqs. 32 and 33), the same for both solvers' (v, gamma)

def momentum_error(pr, v, gamma):
    """SAP eq. 32: |D grad| / max(|D p|, |D j_c|), D = diag(A)^-1/2, grad = A(v - v*) - J'gamma,
    over the participating velocities (engine/solver/sap_stopping_criteria.h)."""
    D = 1.0 / np.sqrt(np.diag(pr.A))
    p = pr.A @ v
    j_c = pr.JT(gamma)
    grad = p - pr.A @ pr.v_star - j_c
    den = max(np.linalg.norm(D * p), np.linalg.norm(D * j_c))
    return np.linalg.norm(D * grad) / den if den > 0 else 0.0


def sap_distance_bound(pr):
    """|grad|_A^-1 at SAP's (v, gamma): SAP's cost is strongly convex with modulus A, so its
    v lies within this distance of the exact minimizer in the A norm [sqrt(J)]."""
    grad = pr.A @ (pr.v_sap - pr.v_star) - pr.JT(pr.gamma_sap)
    total = 0.0
    for s0, block in pr.A_blocks:
        g = grad[s0:s0 + len(block)]
        total += g @ np.linalg.solve(block, g)
    return math.sqrt(max(total, 0.0))


def cost(pr, v, gamma):
    """ell_p of SAP eq. 19 at (v, sigma = gamma) [J]."""
    dv = v - pr.v_star
    return 0.5 * dv @ pr.A @ dv + 0.5 * np.sum(pr.R * gamma * gamma)


def complementarity_error(pr, v, gamma):
    """SAP eq. 33: mean over contacts of |g_i . gamma_i|, g_i = v_c,i + v_b - v_hat_i + R_i
    gamma_i, over ell_p (docs/math.md sec. 5)."""
    g = pr.J(v) + pr.bias - pr.v_hat + pr.R * gamma
    ell = cost(pr, v, gamma)
    return np.mean(np.abs(np.sum(g * gamma, axis=1))) / ell if ell > 0 else 0.0


# ---------------------------------------------------------------------------------------
# The study

def export(exporter, objects, walls, args, path):
    """Runs csim_export_problems for one configuration; returns its summary line."""
    cmd = [exporter, "-n", str(objects), "--walls", "with" if walls else "without",
           "--dt", format(args.dt, "g"), "--duration", format(args.duration, "g"),
           "--every", str(args.every), "--skip", format(args.skip, "g"),
           "--runs", str(args.runs), "--repeat", "1", "--seed", str(args.seed), "-o", path]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


def compare(p, objects, walls, tolerance, kkt, repeat=1):
    """One problem: CVXOPT's solve (fastest of `repeat`) and both solutions' metrics, as a
    CSV row."""
    pr = Problem(p)
    form = ConicForm(pr)
    c = solve_cvxopt(form, tolerance, kkt, repeat=repeat)
    gamma = pr.gamma_sap
    dv = c["v"] - pr.v_sap
    # SAP eq. 33 divides by the cost, which is zero when no contact carries an impulse (all
    # of them apart: v = v*); it is undefined there and left out (NaN) for both solvers.
    loaded = bool(np.any(gamma != 0.0))
    bound = math.sqrt(2 * c["gap"]) + sap_distance_bound(pr) if c["gap"] > 0 else math.nan
    scale_v = math.sqrt(max(pr.v_sap @ pr.A @ pr.v_sap, 1e-300))
    return {
        "objects": objects, "walls": "with" if walls else "without", "kkt": kkt,
        "step": int(p["step"]), "time": float(p["time"]), "velocities": pr.n,
        "contacts": pr.m, "islands": int(p["sap_islands"]),
        "sap_iterations": int(p["sap_iterations"]),
        "sap_island_iterations": float(p["sap_island_iterations"]),
        "sap_relative_tolerance": float(p["relative_tolerance"]),
        "sap_seconds": float(p["sap_solve_seconds"]),
        "sap_resolve_seconds": float(p["sap_resolve_seconds"]),
        "sap_momentum_error": momentum_error(pr, pr.v_sap, gamma),
        "sap_momentum_error_reported": float(p["sap_momentum_error"]),
        "sap_complementarity": complementarity_error(pr, pr.v_sap, gamma) if loaded else math.nan,
        "cvxopt_status": c["status"], "cvxopt_iterations": int(c["iterations"]),
        "cvxopt_seconds": c["seconds"], "cvxopt_kkt_seconds": c["kkt_seconds"],
        "cvxopt_cholmod_seconds": c["cholmod_seconds"],
        "cvxopt_momentum_error": momentum_error(pr, c["v"], c["sigma"]),
        "cvxopt_momentum_error_z": momentum_error(pr, c["v"], c["gamma_z"]),
        "cvxopt_complementarity": (complementarity_error(pr, c["v"], c["sigma"]) if loaded
                                   else math.nan),
        "speedup": c["seconds"] / float(p["sap_solve_seconds"]),
        "max_velocity_difference": float(np.max(np.abs(dv))),
        "relative_difference": math.sqrt(max(dv @ pr.A @ dv, 0.0)) / scale_v,
        # |dv|_A over the distance the two solvers' own accuracies allow: sqrt(2 gap) for
        # CVXOPT's (its duality gap [J]) plus |grad|_A^-1 for SAP's
        # (docs/design/conic_comparison.md §5); <= 1 when the solutions agree as they must.
        "cvxopt_gap": c["gap"],
        "difference_over_bound": math.sqrt(max(dv @ pr.A @ dv, 0.0)) / bound,
    }


def run_configuration(args, objects, walls, workdir, log=print):
    """Exports one configuration's problems and compares every one (and, for small piles,
    CVXOPT's own dense KKT solver too). Returns the CSV rows."""
    path = os.path.join(workdir, f"clutter-{objects}-{'walls' if walls else 'no-walls'}.h5")
    summary = export(args.exporter, objects, walls, args, path)
    problems = read_problems(path, args.max_problems)
    rows = []
    for p in problems:
        rows.append(compare(p, objects, walls, args.tolerance, "sparse", args.cvxopt_repeat))
        if objects <= args.dense_up_to:
            rows.append(compare(p, objects, walls, args.tolerance, "dense", args.cvxopt_repeat))
    for r in rows:
        r["tolerance"] = args.tolerance
        r["duration"] = args.duration
    log(f"clutter-{objects} {'walls' if walls else 'no walls'}: {len(problems)} problems "
        f"({summary})")
    return rows


def tolerance_sweep(args, workdir, log=print):
    """CVXOPT at each --sweep-tolerances on the --sweep-objects pile with walls (its first
    --sweep-problems problems from the settled half of the run): time against accuracy."""
    path = os.path.join(workdir, f"clutter-{args.sweep_objects}-walls.h5")
    if not os.path.exists(path):
        export(args.exporter, args.sweep_objects, True, args, path)
    problems = read_problems(path)
    problems = [p for p in problems if p["time"] >= args.duration / 2][:args.sweep_problems]
    rows = []
    for tol in args.sweep_tolerances:
        for p in problems:
            r = compare(p, args.sweep_objects, True, tol, "sparse", args.cvxopt_repeat)
            r["tolerance"] = tol
            r["duration"] = args.duration
            rows.append(r)
    log(f"tolerance sweep: clutter-{args.sweep_objects} walls, {len(problems)} problems x "
        f"{len(args.sweep_tolerances)} tolerances")
    return rows


# ---------------------------------------------------------------------------------------
# Summaries, report and figure

def ratio_of_means(rows, keep):
    """CVXOPT's mean time over SAP's on the rows `keep` selects (nan if none)."""
    g = [r for r in rows if keep(r)]
    if not g:
        return math.nan
    return sum(r["cvxopt_seconds"] for r in g) / sum(r["sap_seconds"] for r in g)


def summarize(rows):
    """Per (walls, objects, kkt, tolerance): the figures of the report's tables."""
    groups = {}
    for r in rows:
        groups.setdefault((r["walls"], r["objects"], r["kkt"], r["tolerance"]), []).append(r)
    out = []
    for (walls, objects, kkt, tol), g in sorted(groups.items()):
        ok = [r for r in g if r["cvxopt_status"] == "optimal"]
        g_all, g = g, ok  # the figures below are over the problems CVXOPT solved
        if not g:
            out.append({"walls": walls, "objects": objects, "kkt": kkt, "tolerance": tol,
                        "problems": len(g_all), "cvxopt_optimal": 0})
            continue
        col = lambda k: np.array([r[k] for r in g], dtype=float)  # noqa: E731
        sap, cvx = col("sap_seconds"), col("cvxopt_seconds")
        out.append({
            "walls": walls, "objects": objects, "kkt": kkt, "tolerance": tol,
            "problems": len(g_all), "cvxopt_optimal": len(ok),
            "contacts_mean": col("contacts").mean(), "velocities_mean": col("velocities").mean(),
            "sap_ms_median": 1e3 * np.median(sap), "sap_ms_mean": 1e3 * sap.mean(),
            "sap_resolve_ms_mean": 1e3 * col("sap_resolve_seconds").mean(),
            "sap_iterations_mean": col("sap_iterations").mean(),
            "sap_work_mean": col("sap_island_iterations").mean(),
            "cvxopt_ms_median": 1e3 * np.median(cvx), "cvxopt_ms_mean": 1e3 * cvx.mean(),
            "cvxopt_kkt_share": np.nansum(col("cvxopt_kkt_seconds")) / cvx.sum(),
            "cvxopt_iterations_mean": col("cvxopt_iterations").mean(),
            "speedup_mean": cvx.mean() / sap.mean(),
            "speedup_median": float(np.median(cvx / sap)),
            "speedup_kkt": np.nansum(col("cvxopt_kkt_seconds")) / sap.sum(),
            "speedup_cholmod": np.nansum(col("cvxopt_cholmod_seconds")) / sap.sum(),
            # by phase: the first second (the piles collapse) and the run's second half
            "speedup_transient": ratio_of_means(g, lambda r: r["time"] < 1.0),
            "speedup_settled": ratio_of_means(g, lambda r: r["time"] >= r["duration"] / 2),
            # KKT factorizations (coneqp: one per iteration and one for its initial point)
            # over SAP's, both of the whole problem's Newton-type matrix.
            "factorization_ratio": (col("cvxopt_iterations") + 1).sum() /
                                   max(col("sap_island_iterations").sum(), 1e-300),
            "sap_em_mean": col("sap_momentum_error").mean(),
            "sap_em_max": col("sap_momentum_error").max(),
            "cvxopt_em_mean": col("cvxopt_momentum_error").mean(),
            "cvxopt_em_max": col("cvxopt_momentum_error").max(),
            "cvxopt_em_z_max": col("cvxopt_momentum_error_z").max(),
            "sap_ecs_mean": np.nanmean(col("sap_complementarity")),
            "sap_ecs_max": np.nanmax(col("sap_complementarity")),
            "cvxopt_ecs_mean": np.nanmean(col("cvxopt_complementarity")),
            "cvxopt_ecs_max": np.nanmax(col("cvxopt_complementarity")),
            "unloaded": int(np.isnan(col("sap_complementarity")).sum()),
            "difference_median": float(np.median(col("relative_difference"))),
            "difference_max": col("relative_difference").max(),
            "max_velocity_difference": col("max_velocity_difference").max(),
            "bound_ratio_max": np.nanmax(col("difference_over_bound")),
        })
    return out


# The SAP paper's sec. VI-C1 (Fig. 12) in its own words; its figures' data are not
# available, so the report compares with these statements.
PAPER = ("SAP paper sec. VI-C1, Fig. 12 (SAP against Gurobi, speed-up = Gurobi's time / "
         "SAP's): below about 40 bodies SAP is faster by up to 25x with walls and up to 50x "
         "without; beyond 80 bodies Gurobi is faster than SAP with walls, while SAP stays about "
         "10x faster without walls. Fig. 13: SAP's momentum error stays below its eps_r; the "
         "interior-point solvers meet complementarity to their tolerances, and Gurobi has the "
         "largest momentum error.")


def fmt(x, spec=".3g"):
    return format(x, spec) if np.isfinite(x) else "-"


def markdown(rows, summary, args, command, elapsed, notes):
    main = [s for s in summary if s["kkt"] == "sparse" and s["tolerance"] == args.tolerance]
    dense = [s for s in summary if s["kkt"] == "dense"]
    sweep = [s for s in summary if s["tolerance"] != args.tolerance]
    L = ["# SAP against a general-purpose conic solver (CVXOPT) on the clutter's contact problems",
         "",
         f"Generated by `{command}` on {time.strftime('%Y-%m-%d', time.gmtime())} in "
         f"{elapsed:.0f} s; host: {cpu_model()}, one thread for both solvers; CVXOPT "
         f"{cvxopt_version()}, numpy {np.__version__}. Times depend on the machine and its load.",
         "",
         "The SAP paper (sec. VI-A, VI-C1, Figs. 12-13) gives the primal problem SAP solves "
         "(its eq. 19) to Gurobi and to a geodesic interior-point method and compares wall "
         "times and accuracy. Here the same problems go to CVXOPT's interior-point solver "
         "`coneqp` (Debian's python3-cvxopt): for each clutter configuration "
         f"(`tools/make_clutter.py -n N [--no-walls] --dt {args.dt:g}`, seed {args.seed}), "
         f"csim simulates {args.duration:g} s and `build/bench/csim_export_problems` writes the "
         f"contact problem of every {args.every}-th step (from t = {args.skip:g} s; steps "
         "without contact have no problem) with SAP's solution, iterations, momentum error and "
         "wall time; each is then solved by CVXOPT as the conic program of eq. 19 "
         "([docs/design/conic_comparison.md](../docs/design/conic_comparison.md) derives it "
         "and shows it is SAP's problem; `csim_bench_tests` and "
         "`tools/python/tests/test_conic_solver_study.py` check that SAP's solution is a KKT "
         "point of it).",
         "",
         "**Clocks.** SAP: the step's own `SapSolver::Solve` inside the simulation, from the "
         "step's warm start (islands, assembly, factorizations, line searches, stopping tests; "
         "not the collision query or the problem build), by the step's stage clock "
         "(`std::chrono::steady_clock`), single thread; the fastest of the same step in "
         f"{args.runs} identical simulations (`csim_export_problems --runs`), which damps the "
         "machine's spread (a step the scheduler interrupts). CVXOPT: `time.perf_counter()` "
         "around the `coneqp` call, the fastest of "
         f"{args.cvxopt_repeat} identical solves: its initial point, every iteration with its "
         "KKT factorization and solves, its Python-level vector algebra; building P, q, G, h "
         "and the KKT solver's index arrays (numpy, once per problem) is outside it, as "
         "Gurobi's Runtime that the paper used leaves out its setup. CVXOPT starts cold "
         "every time (an interior-point method has no use for the previous step's solution); SAP "
         "warm-starts, as in the paper. CVXOPT is an interpreted (Python) interior-point "
         "method over BLAS and CHOLMOD, so its time is far above what a compiled one would "
         "take: the tables also give its time inside the KKT solver and inside CHOLMOD alone, "
         "and the ratio of factorizations of the whole-problem Newton-type matrix (CVXOPT's "
         "iterations + 1 against SAP's island iterations weighted by island size), which "
         "does not depend on the language.",
         "",
         f"**Tolerances.** SAP: csim's default eps_r = {rows[0]['sap_relative_tolerance']:g} "
         "on the momentum error (SAP eq. 26). CVXOPT: `feastol` = `reltol` = "
         f"{args.tolerance:g} (its residuals relative to the data and its relative duality "
         "gap; `abstol` 1e-12 J so that the relative gap decides). The KKT systems are "
         "solved by a sparse KKT solver passed to `coneqp` (per-contact elimination, CHOLMOD "
         "on A + J'XJ, the pattern of SAP's Newton matrix; the script's docstring); CVXOPT's "
         "own KKT solvers are dense for second-order cones"
         + (f" and are measured on the piles of at most {args.dense_up_to} objects."
            if dense else "."),
         "", "## Wall time per problem and speed-up (Fig. 12)", "",
         "Speed-up = CVXOPT's time / SAP's (mean over mean; the median of the per-problem "
         "ratios beside it; then over the problems of the first second, where the piles "
         "collapse, and of the run's second half). KKT-only: CVXOPT's time inside its KKT "
         "solver (numpy and CHOLMOD) over SAP's; CHOLMOD-only: its time in CHOLMOD's "
         "analysis, factorizations and solves alone over SAP's, a floor for any "
         "interior-point code that takes CVXOPT's iterations with CHOLMOD. Factorizations: "
         "CVXOPT's over SAP's. SAP's Newton rounds are the island that took most, its work "
         "the island iterations weighted by the island's share of the velocities "
         "(whole-problem factorizations).", "",
         "| walls | objects | problems | contacts | SAP ms median / mean | SAP Newton rounds / work | "
         "CVXOPT ms median / mean | CVXOPT iterations | speed-up mean (median) | first second / "
         "second half | KKT-only | CHOLMOD-only | factorizations CVXOPT / SAP |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in main:
        L.append(f"| {s['walls']} | {s['objects']} | {s['problems']} | {s['contacts_mean']:.0f} | "
                 f"{s['sap_ms_median']:.3f} / {s['sap_ms_mean']:.3f} | "
                 f"{s['sap_iterations_mean']:.2f} / {s['sap_work_mean']:.2f} | "
                 f"{s['cvxopt_ms_median']:.1f} / {s['cvxopt_ms_mean']:.1f} | "
                 f"{s['cvxopt_iterations_mean']:.1f} | "
                 f"{s['speedup_mean']:.0f} ({s['speedup_median']:.0f}) | "
                 f"{fmt(s['speedup_transient'], '.0f')} / {fmt(s['speedup_settled'], '.0f')} | "
                 f"{s['speedup_kkt']:.0f} | {s['speedup_cholmod']:.0f} | "
                 f"{s['factorization_ratio']:.1f} |")
    failed = sum(s["problems"] - s["cvxopt_optimal"] for s in main)
    L += ["", f"CVXOPT reported `optimal` on {sum(s['cvxopt_optimal'] for s in main)} of "
          f"{sum(s['problems'] for s in main)} problems" +
          (f"; the {failed} others (statuses in the CSV) are left out of every figure." if failed
           else "."),
          "", "## Accuracy (Fig. 13)", "",
          "e_m: SAP eq. 32 (momentum error), e_cs: SAP eq. 33 (mean |g_i . gamma_i| over the "
          "cost), both computed by this script from each solver's (v, gamma) with the same "
          "code; e_cs is undefined, and left out, where no contact carries an impulse (all "
          "contacts still apart: the cost is zero); for CVXOPT gamma is its primal sigma "
          "(its multiplier S'z instead gives e_m within CVXOPT's feastol: largest below). "
          "Difference: |v_CVXOPT - v_SAP|_A / |v_SAP|_A (in the settled piles |v_SAP|_A is "
          "small, which inflates it). Last column: "
          "|v_CVXOPT - v_SAP|_A over the distance both solvers' accuracies allow, "
          "sqrt(2 gap) + |grad_SAP|_A^-1: a feasible point with duality gap g lies within "
          "sqrt(2 g) of the optimum in the A norm, SAP's v within the A^-1 norm of its "
          "momentum residual (docs/design/conic_comparison.md §5); at most 1 when the two "
          "solve the same problem.", "",
          "| walls | objects | SAP e_m mean / max | CVXOPT e_m mean / max | SAP e_cs mean / max | "
          "CVXOPT e_cs mean / max | difference median / max | max abs dv [m/s, rad/s] | "
          "difference / allowed max |",
          "|---|---|---|---|---|---|---|---|---|"]
    for s in main:
        L.append(f"| {s['walls']} | {s['objects']} | {s['sap_em_mean']:.1e} / {s['sap_em_max']:.1e} | "
                 f"{s['cvxopt_em_mean']:.1e} / {s['cvxopt_em_max']:.1e} | "
                 f"{s['sap_ecs_mean']:.1e} / {s['sap_ecs_max']:.1e} | "
                 f"{s['cvxopt_ecs_mean']:.1e} / {s['cvxopt_ecs_max']:.1e} | "
                 f"{s['difference_median']:.1e} / {s['difference_max']:.1e} | "
                 f"{s['max_velocity_difference']:.1e} | {s['bound_ratio_max']:.2f} |")
    unloaded = sum(s["unloaded"] for s in main)
    L += ["", f"Largest CVXOPT e_m with gamma = S'z: "
          f"{max(s['cvxopt_em_z_max'] for s in main):.1e}" +
          (f"; e_cs left out on {unloaded} problems without a loaded contact." if unloaded
           else ".")]
    if dense:
        L += ["", "## CVXOPT with its own (dense) KKT solver", "",
              "The same problems with `coneqp`'s default KKT solver (`chol`: dense Cholesky "
              "of order n + 3m).", "",
              "| walls | objects | problems | CVXOPT ms median / mean | iterations | speed-up mean "
              "(median) | time / the sparse KKT solver's |", "|---|---|---|---|---|---|---|"]
        by = {(s["walls"], s["objects"]): s for s in main}
        for s in dense:
            sp = by[(s["walls"], s["objects"])]
            L.append(f"| {s['walls']} | {s['objects']} | {s['problems']} | "
                     f"{s['cvxopt_ms_median']:.1f} / {s['cvxopt_ms_mean']:.1f} | "
                     f"{s['cvxopt_iterations_mean']:.1f} | {s['speedup_mean']:.0f} "
                     f"({s['speedup_median']:.0f}) | "
                     f"{s['cvxopt_ms_mean'] / sp['cvxopt_ms_mean']:.2f} |")
    if sweep:
        L += ["", "## CVXOPT's tolerance against its accuracy and time", "",
              f"clutter-{args.sweep_objects} with walls, {sweep[0]['problems']} problems of the "
              f"run's second half (t >= {args.duration / 2:g} s), sparse KKT solver; the main "
              f"tables' tolerance {args.tolerance:g} for reference.", "",
              "| tolerance | solved | CVXOPT ms mean | iterations | e_cs mean / max | difference "
              "median / max | difference / allowed max | speed-up mean |",
              "|---|---|---|---|---|---|---|---|"]
        ref = [s for s in main if s["walls"] == "with" and s["objects"] == args.sweep_objects]
        for s in sorted(sweep, key=lambda s: -s["tolerance"]):
            if s["cvxopt_optimal"] == 0:
                L.append(f"| {s['tolerance']:g} | 0 of {s['problems']} | - | - | - | - | - | - |")
                continue
            L.append(f"| {s['tolerance']:g} | {s['cvxopt_optimal']} of {s['problems']} | "
                     f"{s['cvxopt_ms_mean']:.1f} | "
                     f"{s['cvxopt_iterations_mean']:.1f} | {s['cvxopt_ecs_mean']:.1e} / "
                     f"{s['cvxopt_ecs_max']:.1e} | {s['difference_median']:.1e} / "
                     f"{s['difference_max']:.1e} | {s['bound_ratio_max']:.2f} | "
                     f"{s['speedup_mean']:.0f} |")
        errors = sorted({r["cvxopt_status"] for r in rows
                         if r["tolerance"] != args.tolerance and r["cvxopt_status"] != "optimal"})
        if ref:
            L.append(f"| {args.tolerance:g} (every problem of the run) | "
                     f"{ref[0]['cvxopt_optimal']} of {ref[0]['problems']} | "
                     f"{ref[0]['cvxopt_ms_mean']:.1f} "
                     f"| {ref[0]['cvxopt_iterations_mean']:.1f} | {ref[0]['cvxopt_ecs_mean']:.1e} / "
                     f"{ref[0]['cvxopt_ecs_max']:.1e} | {ref[0]['difference_median']:.1e} / "
                     f"{ref[0]['difference_max']:.1e} | {ref[0]['bound_ratio_max']:.2f} | "
                     f"{ref[0]['speedup_mean']:.0f} |")
        if errors:
            L += ["", "Unsolved problems ended with: " + "; ".join(f"`{e}`" for e in errors) +
                  " (CVXOPT raises `math domain error` when round-off takes an iterate out of "
                  "its cone: the tolerance is below what its arithmetic reaches on that "
                  "problem)."]
    L += ["", "## Against the paper", "", PAPER, ""] + notes + [
          "", "Figure: `results/conic_solver.png` (speed-up by object count with and without "
          "walls, wall time per problem, and the errors of Fig. 13); every problem's row: "
          "`results/conic_solver.csv`.", ""]
    return "\n".join(L)


def departures(summary, args):
    """The report's comparison with the paper, from the measured figures."""
    main = {(s["walls"], s["objects"]): s for s in summary
            if s["kkt"] == "sparse" and s["tolerance"] == args.tolerance}
    objs = sorted({o for _, o in main})
    big, small = objs[-1], [o for o in objs if o <= 40]
    out = []

    def span(v):
        lo, hi = f"{min(v):.0f}", f"{max(v):.0f}"
        return lo if lo == hi else f"{lo}-{hi}"

    def ratio_range(walls, objects, paper):
        v = [main[(walls, o)]["speedup_mean"] / paper for o in objects if (walls, o) in main]
        return span(v) if v else "-"

    def rng(walls, objects, key):
        v = [main[(walls, o)][key] for o in objects if (walls, o) in main]
        return span(v) if v else "-"
    out.append(
        f"- **Speed-up, small piles (<= 40 objects).** Measured {rng('with', small, 'speedup_mean')}x "
        f"with walls and {rng('without', small, 'speedup_mean')}x without, against the paper's "
        f"up to 25x and 50x over Gurobi: {ratio_range('with', small, 25)} and "
        f"{ratio_range('without', small, 50)} times the paper's figures. CVXOPT runs its "
        "interior-point iterations in Python while Gurobi is compiled; the measures that do "
        f"not depend on the language are smaller: CHOLMOD's time alone "
        f"{rng('with', small, 'speedup_cholmod')}x and {rng('without', small, 'speedup_cholmod')}x, "
        f"factorizations {rng('with', small, 'factorization_ratio')}x and "
        f"{rng('without', small, 'factorization_ratio')}x (the interior-point method takes "
        "a dozen iterations from a cold start where SAP's warm start needs one or two).")
    w, nw = main.get(("with", big)), main.get(("without", big))
    if w and nw:
        out.append(
            f"- **Large piles ({big} objects).** With walls SAP is {w['speedup_mean']:.0f}x "
            f"faster (CHOLMOD alone {w['speedup_cholmod']:.0f}x, {w['factorization_ratio']:.1f}x "
            f"fewer factorizations); without walls {nw['speedup_mean']:.0f}x "
            f"({nw['speedup_cholmod']:.0f}x, {nw['factorization_ratio']:.1f}x). The paper found "
            "Gurobi faster than SAP with walls beyond 80 bodies and SAP about 10x faster "
            "without; csim does not reproduce that crossover against CVXOPT by any of these "
            f"measures. On the walled pile SAP needs {w['sap_work_mean']:.1f} whole-problem "
            f"factorizations per problem (warm start, active-set prediction and islands, "
            f"docs/design/warm-start-and-prediction.md) against CVXOPT's "
            f"{w['cvxopt_iterations_mean'] + 1:.0f}; an interior-point code would overtake "
            f"csim's SAP on these problems only by factorizing the pile's matrix more than "
            f"{w['factorization_ratio']:.1f}x faster than csim's block Cholesky, which is itself "
            "several times faster than CHOLMOD on them (results/factorization.md). The study "
            "cannot tell how fast Gurobi's factorization is; the ratio is what a faster one "
            "would have to beat.")
    phases = [s for s in main.values() if np.isfinite(s["speedup_transient"])
              and np.isfinite(s["speedup_settled"])]
    if phases:
        gain = [s["speedup_settled"] / s["speedup_transient"] for s in phases]
        out.append(
            "- **Collapse against rest.** Speed-up over the run's second half divided by that "
            f"over its first second: {min(gain):.1f}-{max(gain):.1f} across the configurations"
            + (" (larger at rest in every one): SAP's warm start needs few Newton iterations "
               "once the piles settle, while the interior-point method takes its dozen "
               "iterations in every phase, as the paper reports for Gurobi (sec. VI-C, Fig. 9)."
               if min(gain) > 1 else "."))
    sap_em = max(s["sap_em_max"] for s in main.values())
    cvx_ecs = max(s["cvxopt_ecs_max"] for s in main.values())
    cvx_em = max(s["cvxopt_em_max"] for s in main.values())
    sap_ecs = max(s["sap_ecs_max"] for s in main.values())
    out.append(
        f"- **Accuracy (Fig. 13).** As in the paper, SAP's momentum error stays below its "
        f"eps_r (largest {sap_em:.1e}) and its complementarity error is round-off (largest "
        f"{sap_ecs:.1e}): SAP's projection satisfies eq. 33 exactly. The interior-point "
        f"method is the mirror image: its momentum error is round-off (largest {cvx_em:.1e}: "
        "the balance of momentum is a linear equation, which an interior-point method meets "
        "exactly once it takes full steps) and its complementarity error is what its "
        f"tolerance leaves (mean {np.mean([s['cvxopt_ecs_mean'] for s in main.values()]):.1e}, "
        f"largest {cvx_ecs:.1e}; eq. 33 divides by the cost ell_p, while CVXOPT's relative "
        "gap divides by its objective, which is ell_p minus the constant 1/2 v*'Av* and can be "
        "much larger). The paper's Gurobi had the largest momentum error of the three "
        "solvers; CVXOPT does not share that trait.")
    return out


def cvxopt_version():
    import cvxopt
    return cvxopt.__version__


def plot(summary, args, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    main = [s for s in summary if s["kkt"] == "sparse" and s["tolerance"] == args.tolerance]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.4))
    colors = {"with": "C0", "without": "C1"}
    for walls in ("with", "without"):
        g = sorted([s for s in main if s["walls"] == walls], key=lambda s: s["objects"])
        if not g:
            continue
        n = [s["objects"] for s in g]
        c = colors[walls]
        label = "walls" if walls == "with" else "no walls"
        ax[0].plot(n, [s["speedup_mean"] for s in g], "o-", color=c, label=f"{label}: wall time")
        ax[0].plot(n, [s["speedup_kkt"] for s in g], "s--", color=c, label=f"{label}: KKT time only")
        ax[0].plot(n, [s["speedup_cholmod"] for s in g], "d-.", color=c,
                   label=f"{label}: CHOLMOD time only")
        ax[0].plot(n, [s["factorization_ratio"] for s in g], "^:", color=c,
                   label=f"{label}: factorizations")
        ax[1].plot(n, [s["sap_ms_mean"] for s in g], "o-", color=c, label=f"SAP, {label}")
        ax[1].plot(n, [s["cvxopt_ms_mean"] for s in g], "s--", color=c, label=f"CVXOPT, {label}")
        floor = 1e-18
        ax[2].plot(n, [max(s["sap_em_mean"], floor) for s in g], "o-", color=c,
                   label=f"SAP e_m, {label}")
        ax[2].plot(n, [max(s["cvxopt_em_mean"], floor) for s in g], "s-", color=c, alpha=0.5,
                   label=f"CVXOPT e_m, {label}")
        ax[2].plot(n, [max(s["sap_ecs_mean"], floor) for s in g], "o:", color=c,
                   label=f"SAP e_cs, {label}")
        ax[2].plot(n, [max(s["cvxopt_ecs_mean"], floor) for s in g], "s:", color=c, alpha=0.5,
                   label=f"CVXOPT e_cs, {label}")
    ax[0].axhline(1.0, color="k", lw=0.8)
    # The paper's statements against Gurobi (sec. VI-C1): up to 25x (walls) and 50x (no
    # walls) below about 40 bodies; beyond 80, Gurobi faster with walls, SAP ~10x without.
    for y, x0, x1, c in ((25, 10, 40, "C0"), (50, 10, 40, "C1"), (1, 80, 160, "C0"),
                         (10, 80, 160, "C1")):
        ax[0].plot([x0, x1], [y, y], color=c, lw=6, alpha=0.25, solid_capstyle="butt")
    ax[0].plot([], [], color="gray", lw=6, alpha=0.25, label="paper vs Gurobi (its text)")
    ax[0].set(xscale="log", yscale="log", xlabel="objects", ylabel="CVXOPT / SAP",
              title="speed-up of SAP over CVXOPT (cf. Fig. 12)")
    ax[1].set(xscale="log", yscale="log", xlabel="objects", ylabel="ms per problem (mean)",
              title="wall time per contact problem")
    ax[2].axhline(args.tolerance, color="k", lw=0.8, ls="--")
    ax[2].set(xscale="log", yscale="log", xlabel="objects", ylabel="mean error",
              title="errors: e_m (eq. 32), e_cs (eq. 33)")
    for a in ax:
        a.grid(True, which="both", alpha=0.3)
        a.set_xticks(sorted({s["objects"] for s in main}))
        a.set_xticklabels([str(o) for o in sorted({s["objects"] for s in main})])
    ax[0].set_ylim(0.5, 3e4)  # room for the legend above the curves
    ax[0].legend(fontsize=6, ncol=3, loc="upper center")
    ax[1].legend(fontsize=7)
    ax[2].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exporter", default=DEFAULT_EXPORTER)
    parser.add_argument("--objects", type=int, nargs="+", default=[10, 20, 40, 80, 160])
    parser.add_argument("--walls", choices=["with", "without", "both"], default="both")
    parser.add_argument("--dt", type=float, default=2e-3)
    parser.add_argument("--duration", type=float, default=4.0, help="simulated time [s]")
    parser.add_argument("--skip", type=float, default=0.0, help="no problem before [s]")
    parser.add_argument("--every", type=int, default=20, help="a problem every N steps")
    parser.add_argument("--max-problems", type=int, default=None,
                        help="at most this many problems per configuration, evenly spread")
    parser.add_argument("--runs", type=int, default=3,
                        help="simulations in the exporter; each step's fastest SAP solve is kept")
    parser.add_argument("--cvxopt-repeat", type=int, default=2,
                        help="CVXOPT solves per problem; the fastest is kept")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tolerance", type=float, default=1e-6,
                        help="CVXOPT's feastol and reltol")
    parser.add_argument("--dense-up-to", type=int, default=20,
                        help="also CVXOPT's dense KKT solver on piles of at most this many "
                             "objects (0: never)")
    parser.add_argument("--sweep-tolerances", type=float, nargs="*", default=[1e-4, 1e-8, 1e-10])
    parser.add_argument("--sweep-objects", type=int, default=40)
    parser.add_argument("--sweep-problems", type=int, default=20)
    parser.add_argument("--work", default=None, help="keep the exported files here")
    parser.add_argument("--csv")
    parser.add_argument("--markdown")
    parser.add_argument("--plot")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    command = "tools/conic_solver_study.py " + " ".join(
        a if " " not in a else repr(a) for a in (argv if argv is not None else sys.argv[1:]))
    workdir = args.work or tempfile.mkdtemp(prefix="csim-conic-")
    os.makedirs(workdir, exist_ok=True)
    walls = {"with": [True], "without": [False], "both": [True, False]}[args.walls]
    rows = []
    for w in walls:
        for n in args.objects:
            rows += run_configuration(args, n, w, workdir)
    if args.sweep_tolerances:
        rows += tolerance_sweep(args, workdir)
    summary = summarize(rows)
    elapsed = time.perf_counter() - started
    if args.csv:
        write_csv(args.csv, rows, ".6g")
    if args.plot:
        plot(summary, args, args.plot)
    publish_markdown(markdown(rows, summary, args, command, elapsed, departures(summary, args)),
                     args.markdown)
    return rows, summary


if __name__ == "__main__":
    main()
