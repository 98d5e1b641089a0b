#pragma once
// One full time step with constraints (math.md 1.6, Algorithm 1 of the SAP paper):
//   1. free motion v* and the SPD matrix A (theta_method.h);
//   2. contacts and joint limits at q0, assembled into a convex problem around v*
//      (contact/contact_problem_builder.h);
//   3. v = argmin of the SAP cost (solver/sap_solver.h), warm-started from the velocity
//      extrapolated from the last two steps, v0 + (v0 - v_-1), or from v0 (see below);
//   4. q = q0 + dt N(q_theta) v_theta_q.
// Without any constraint step 3 returns v = v* at no cost.
// Warm start (SapSolverParameters::warm_start): a pile that creeps or keeps
// rolling changes its velocity steadily, so the linear extrapolation starts Newton closer
// than v0 does; on clutter-40 (6 seeds, 10 s) it cut the mean Newton iterations per step
// from 3.11 to 2.84 at dt = 2e-3 and from 2.74 to 2.34 at dt = 1e-3 (tools/iteration_study.py).
// Any warm start leaves SAP's solution and stopping criterion unchanged. The first step, and
// the first after a failed one, start from v0. An extrapolated guess is refined by at
// least one Newton step (SapSolverParameters::min_iterations() = 1): accepting it as soon as
// it met eps_r biased smooth motion by up to the tolerance every step (an e_q floor of
// 2.2e-4 on the rolling spring-cylinder), while one step from it is exact to round-off on a
// quadratic piece. A guess already exact to a millionth of the tolerance (the islands of a
// resting pile) is not refined (SapSolverParameters::exact_guess_fraction).

#include <vector>

#include "engine/common/step_status.h"
#include "engine/contact/contact_parameters.h"
#include "engine/contact/contact_problem_builder.h"
#include "engine/integrator/theta_method.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver.h"

namespace csim::integrator {

/// Statistics of one step (flow to /solver/*). With constraints they are the SAP solve's;
/// without, the free-motion solve's.
struct StepStats {
  int iterations = 0;            ///< Newton iterations
  double momentum_error = 0.0;   ///< SAP eq. 32, or the free-motion residual
  double cost = 0.0;             ///< [J] SAP cost at the solution (0 without constraints)
  int free_motion_iterations = 0;///< Newton iterations of the free-motion stage
  int num_constraints = 0;       ///< contacts and active limits
  // Wall time of the stages of the last step [s] (steady clock; a few tens of ns each).
  double free_motion_seconds = 0.0;  ///< CalcFreeMotion: v*, A and its factor
  double collision_seconds = 0.0;    ///< broad and narrow phase (part of the problem build)
  double build_seconds = 0.0;        ///< kinematics at q0 and problem build, collision excluded
  double solve_seconds = 0.0;        ///< SAP solve (its own split is in result.stats)
  geometry::CollisionCounts collision_pairs;  ///< what the collision query's time went to
};

/// Scratch of the constrained step; built once per model.
struct ContactStepWorkspace {
  explicit ContactStepWorkspace(const multibody::Model& model);
  contact::ContactProblemBuilder builder;
  solver::ContactProblem problem;
  solver::SapSolver solver;
  solver::SapSolverResult result;
  multibody::Workspace kinematics0;            ///< kinematics at the start of the step when
                                               ///< theta != 0 (else the free motion's)
  std::vector<contact::ContactReport> contacts;///< contacts of the last step (if reported)
  StepStats stats;
  Eigen::VectorXd v_previous;  ///< v0 of the last successful step (nv), for the warm start
  bool has_previous = false;   ///< v_previous is valid
  Eigen::VectorXd v_guess;     ///< (nv) the warm start of the current solve
  std::vector<bool> bodies_needing_A;  ///< per body: the build reads its block of A
};

/// Advances `state` by dt with contact and joint limits. On failure the state is left
/// unchanged and the status says why. `report_contacts` fills cws.contacts (for a step
/// that will be recorded). Allocation free once warmed up (small problems).
StepStatus StepWithContact(const multibody::Model& model, const ThetaParameters& params,
                           const FreeMotionSettings& free_motion,
                           const contact::ContactParameters& contact_parameters, double dt,
                           bool report_contacts, multibody::State& state, StepWorkspace& ws,
                           ContactStepWorkspace& cws);

}  // namespace csim::integrator
