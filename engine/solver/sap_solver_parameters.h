#pragma once
// Parameters of the SAP solver (math.md §4), a plain struct whose defaults equal the scene
// format's `settings.solver.*` (scene-format.md) and Drake's values for everything the
// scene format does not expose (style.md habit 10).

#include <limits>

namespace csim::solver {

enum class SapLineSearch {
  kExact,         ///< safeguarded Newton on d ell / d alpha (rtsafe, math.md §4.4)
  kBacktracking,  ///< Armijo backtracking (math.md §4.5)
};

/// Exact line search (math.md §4.4).
struct ExactLineSearchParameters {
  double alpha_max = 1.5;        ///< largest step tried [1]
  double f_tolerance = 1.0e-8;   ///< on |d ell/d alpha| / |d ell/d alpha (0)| [1]
  double x_tolerance = 1.0e-8;   ///< relative to the initial guess alpha_g [1]
  int max_iterations = 100;      ///< root-finder evaluations before failure
};

/// Backtracking line search (math.md §4.5; Drake's and the paper's defaults).
struct BacktrackingLineSearchParameters {
  double rho = 0.8;              ///< step reduction factor in (0, 1)
  double armijo_c = 1.0e-4;      ///< Armijo sufficient-decrease constant
  double alpha_max = 1.25;       ///< first trial = 1/rho, so the second trial is alpha = 1
  int max_iterations = 40;       ///< trials before failure
};

struct SapSolverParameters {
  // --- settings.solver.* of the scene format ---
  double relative_tolerance = 1.0e-6;   ///< eps_r of SAP eq. 26 [1]
  double absolute_tolerance = 1.0e-14;  ///< eps_a of SAP eq. 26 [sqrt(J)]
  int max_iterations = 100;             ///< Newton iterations before kNotConverged
  SapLineSearch line_search = SapLineSearch::kExact;

  // --- model defaults of the scene format (settings.near_rigid_threshold,
  // settings.stiction_sigma). The solver itself does not read them: problem builders copy
  // them into each SapFrictionConeParameters. Kept here so the defaults live in one place.
  double near_rigid_threshold = 1.0;  ///< beta [1]
  double stiction_sigma = 1.0e-3;     ///< sigma [1]

  // --- Drake values not exposed by the scene format ---
  /// Cost-stagnation criterion (math.md §4.3): stop when |ell^{m+1} - ell^m| <
  /// cost_absolute_tolerance + cost_relative_tolerance * (|ell^{m+1}| + |ell^m|)/2 and the
  /// last step alpha > 0.5.
  double cost_absolute_tolerance = 1.0e-30;  ///< [J]
  double cost_relative_tolerance = 1.0e-15;  ///< [1]
  /// Slop of the monotonic-decrease check and of the backtracking flatness test (math.md
  /// §4.3, §4.5), relative to max(1, |ell|) [1].
  double relative_slop = 1000.0 * std::numeric_limits<double>::epsilon();
  ExactLineSearchParameters exact;
  BacktrackingLineSearchParameters backtracking;
  /// Newton systems with at most this many participating velocities are factorized with a
  /// dense Cholesky; larger ones with the block-sparse Cholesky on the clique graph
  /// (block_cholesky.h). Both are allocation-free once warmed up. Default 0: always the
  /// block path, which measured as fast as the dense one on the smallest clutter scene
  /// (10 bodies, 60 velocities) and 15x faster on clutter-40 (csim_bench); the dense
  /// path is kept as the reference the tests compare against.
  int dense_threshold = 0;
  /// Warm start of the active set (sap_solver.h): the first prediction_iterations Newton
  /// directions of each island use the regions the constraints predict from the previous
  /// step. Only the path to the solution changes (same cost, same stopping criterion); false
  /// gives plain SAP.
  bool predict_regions = true;
  /// How many of an island's first Newton directions may use the predicted regions (>= 1):
  /// the first always, each later one only while the previous predicted step was cut short
  /// by the line search (alpha < prediction_repeat_alpha), and never for a constraint whose
  /// predicted model has contradicted itself in this solve (Constraint::PredictionHoldsAt).
  /// Why more than the first: when the line search cuts the first step short (a collapsing
  /// pile: alpha 0.3-0.5), the predicted contacts keep part of their slip, the true sliding
  /// model takes over and plain Newton rediscovers their stiction a few contacts per
  /// iteration. Why stop after a (nearly) full step, and drop contradicted contacts: a
  /// slightly wrong model converges only linearly where plain Newton converges
  /// quadratically (a settled pile with a creeping contact took 3 predicted steps of alpha
  /// 0.99 every time step instead of 1-2). Measured over 12 piles each (csim_bench, 40
  /// objects 10 s, 80 and 160 objects during the collapse; Newton work per step against
  /// the first direction only): clutter-40 walls -10 % (dt 2e-3) and -7 % (1e-3), clutter-80
  /// walls -15 %, clutter-160 without walls -13 %, and the settled iterations of the worst
  /// clutter-40 pile 2.17 -> 1.34 over the last second. The collapse alone gains more without
  /// the two safeguards (-18 to -22 %), but then settled piles can pay 3 iterations a step.
  /// Why 20 (was 8): with the two safeguards the cap rarely binds; over the same 12 piles
  /// (paired by seed, Newton work against 8) 12 directions gave -3.6 % +- 1.9 % on
  /// clutter-160 without walls and -3.8 % +- 1.1 % on clutter-80 with walls, 20 gave -5.5 %
  /// +- 2.1 % and -4.5 % +- 1.7 %, and 40 or 100 the same as 20 (within 1 %); clutter-40 with
  /// walls moved by 0.3 % or less at both time steps, the last second included.
  /// The rest of the solve is SAP's Newton method, so convergence does not depend on the
  /// predictions.
  int prediction_iterations = 20;
  double prediction_repeat_alpha = 0.9;  ///< [1], see prediction_iterations
  /// With predict_regions, predictions learnt within the solve too: after a step the line
  /// search cut short (alpha < prediction_repeat_alpha), a constraint whose full step
  /// passed through the region it would predict (Constraint::StepCrossesPredictedRegion:
  /// a sliding contact carried through stiction, or close past it) is predicted there in
  /// the next directions, within the same prediction_iterations and until its model
  /// contradicts itself; a later crossing makes a contradicted prediction count again. Why: in
  /// a collapsing pile the contacts that come to rest during the step were sliding at the
  /// guess, so the previous step cannot predict them; the Newton model of sliding has no
  /// curvature along the slip, its step overshoots through stiction, and the line search
  /// stops it there, a few contacts per iteration (a 71-body island of clutter-160 took 10
  /// such steps of alpha 0.02-0.45 while its stuck contacts went from 48 to 85). Measured on
  /// the same contact problems (csim_bench --compare, results/paired_solver_options.md at
  /// 2b16bc1, 10 s): without it, 14 % more Newton work and 11 % more solve time on
  /// clutter-160 without walls, 31 % and 26 % with walls, 2-3 % at 40 and 80 objects, 4 %
  /// on a hinged floor rope. The near misses and the re-learnt refuted predictions, against
  /// crossings through stiction only with refutation for good (a scratch build comparing
  /// the two rules on the same problems, 10 s at dt 2e-3): 7 % less work and solve time on
  /// clutter-160 without walls, 18 % and 16 % less with walls, 5-6 % on the 20-link rope,
  /// 11-12 % on a 50-link one, 0-2 % at 40 and 80 objects, 2 % at 160 objects at dt 1e-3.
  bool predict_crossings = true;
  /// Warm start from v0 + (v0 - v_-1) instead of v0 (integrator/contact_step.h; the solver
  /// itself takes whatever guess it is given).
  bool extrapolate_warm_start = true;
  /// Newton iterations an island takes before the optimality test may stop it. 0 (SAP): an
  /// optimal guess is returned as is. The extrapolated warm start sets 1: a guess that
  /// merely meets eps_r is accepted with an error up to the tolerance, every step, in the
  /// same direction on smooth motion, and that bias accumulated to an e_q floor of 2.2e-4
  /// on the rolling spring-cylinder (5 s); one Newton step from such a good guess is exact
  /// to round-off on a quadratic piece and removes it.
  int min_iterations = 0;
  /// A guess whose scaled gradient is at most this fraction of the island's tolerance
  /// (SAP eq. 26 with eps_a and eps_r both scaled by it) is exact for all purposes and
  /// stands without the min_iterations refining step. Why: many islands of a settled pile
  /// (bodies resting on the floor, stacks that do not move) are warm-started at their
  /// solution to round-off, and the refining step, a whole Newton iteration, changed
  /// nothing there. Measured on the same contact problems (csim_bench --compare, dt 2e-3,
  /// 10 s; results/paired_solver_options.md at 2aff41a): refining every guess (0) costs 48,
  /// 33 and 13 % more Newton work and 35, 22 and 9 % more solve time on the clutter without
  /// walls at 40, 80 and 160 objects, 3 % and 3 % on clutter-40 with walls, for solutions
  /// that differ by at most 3.0e-13 m/s. Why 1e-6:
  /// the differences stay at round-off; 1e-4 saves another 10 % and 5 % of the work but
  /// moves v by up to 1.5e-9 m/s, and 1e-8 loses nearly all of the gain (work 1.12 and
  /// 1.03 times 1e-6's). 0: every guess is refined; 1: SAP's rule.
  double exact_guess_fraction = 1.0e-6;
  /// Islands from the contacts that can touch (sap_solver.h, "Deferred contacts"): a contact
  /// between two cliques that is apart at the guess, with separated_margin to spare in its
  /// normal velocity, does not join their islands; after the islands converged, the
  /// deferred contacts in contact at the solution join theirs and those islands are solved
  /// again from there, until none is. Same stopping criterion, same solution. Why: in a
  /// collapsing pile, candidates a millimetre apart chain piles into islands twice the
  /// size of the ones their touching contacts make (clutter-160 without walls, size-weighted
  /// island size 39 -> 21 cliques), and a big island iterates until its worst part is
  /// done. Measured on the same contact problems (results/paired_solver_options.md at
  /// 2b16bc1, 10 s): without it 8, 12 and 10 % more Newton work and 3, 4 and 2 % more
  /// solve time on clutter 40, 80 and 160 without walls, 6 % and 2 % on clutter-40 with
  /// walls; on clutter-160 with walls (one big island either way) 4 % less work and 7 %
  /// less time: a merged island is solved again, and a merge redoes the analysis of the
  /// Newton system's sparsity.
  bool defer_separated = true;
  /// [m/s] see defer_separated. Chosen on clutter-160 without walls (dt 2e-3, 4 s,
  /// csim_bench --compare against no deferral, the margin read from the environment in a
  /// scratch build): 0.01, 0.05 and 0.2 saved 12, 13 and 10 % of the solve time; 0 (any
  /// contact apart) cost 2 % more, as the contacts that close during the solve force merges.
  double separated_margin = 0.05;
};

}  // namespace csim::solver
