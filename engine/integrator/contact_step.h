#pragma once
// One full time step with constraints (docs/design/time-step.md §5, Algorithm 1 of the SAP paper):
//   1. free motion v* and the SPD matrix A (theta_method.h);
//   2. contacts, joint limits and joint friction at q0, assembled into a convex problem
//      around v*
//      (contact/contact_problem_builder.h), and the PD actuators (contact/pd_actuators.h);
//   3. v = argmin of the SAP cost (solver/sap_solver.h), from the warm start
//      (velocity_warm_start.h);
//   4. q = q0 + dt N(q_theta) v_theta_q.
// Without any constraint step 3 returns v = v* at no cost.

#include <vector>

#include "engine/common/step_status.h"
#include "engine/contact/contact_parameters.h"
#include "engine/contact/contact_problem_builder.h"
#include "engine/integrator/step_stats.h"
#include "engine/integrator/theta_method.h"
#include "engine/integrator/velocity_warm_start.h"
#include "engine/contact/pd_actuators.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver.h"

namespace csim::integrator {

/// Scratch of the constrained step; built once per model.
struct ContactStepWorkspace {
  explicit ContactStepWorkspace(const multibody::Model& model);
  /// Times the step's stages, the collision query and the Newton phases into `stats` and the
  /// solve's statistics (the benchmark's split); off by default, when those times stay 0.
  void SetStageTiming(bool on);
  contact::ContactProblemBuilder builder;
  solver::ContactProblem problem;
  solver::SapSolver solver;
  solver::SapSolverResult result;
  multibody::Workspace kinematics0;            ///< kinematics at the start of the step when
                                               ///< theta != 0 (else the free motion's)
  std::vector<contact::ContactReport> contacts;///< contacts of the last step (if reported)
  Eigen::VectorXd constraint_impulse;          ///< holonomic constraints' impulses of the
                                               ///< last step, one per row [N s or N m s]
                                               ///< (HolonomicConstraintBuilder::Report)
  Eigen::VectorXd joint_friction;              ///< (nv) joint friction effort of the last step
                                               ///< [N or N m], 0 without friction
  contact::PdActuators actuators;              ///< the PD actuators' constraints
  contact::ActuatorOutputs actuator_outputs;   ///< what each actuator delivered in the last step
  StepStats stats;
  VelocityWarmStart warm_start;        ///< the solve's guess, carried between steps
  std::vector<bool> bodies_needing_A;  ///< per body: the build reads its block of A
  bool time_stages = false;            ///< see SetStageTiming
};

/// Advances `state` by dt with contact and joint limits. On failure the state is left
/// unchanged and the status says why. `report_contacts` fills cws.contacts (for a step
/// that will be recorded). Allocation free once warmed up (small problems).
StepStatus StepWithContact(const multibody::Model& model, const ThetaParameters& params,
                           const FreeMotionSettings& free_motion,
                           const contact::ContactParameters& contact_parameters, double dt,
                           bool report_contacts, multibody::State& state, StepWorkspace& ws,
                           ContactStepWorkspace& cws);

/// Stages 1 and 2 of StepWithContact alone: v* and A into ws, and the step's problem into
/// cws.problem (contacts, limits, joint friction, holonomic constraints and, when the model
/// has them, the PD actuators' constraints, always as constraints: the servos-only direct
/// solve of stage 3 reaches the same optimum), from `state` (left unchanged). For the
/// sensitivities' assemblies at perturbed states (trajectory_sensitivity.h); the problem's
/// matrix-free cliques read ws, which must stay untouched while the problem is used.
/// Allocation free once warmed up, as the step.
StepStatus BuildStepProblem(const multibody::Model& model, const ThetaParameters& params,
                            const FreeMotionSettings& free_motion,
                            const contact::ContactParameters& contact_parameters, double dt,
                            const multibody::State& state, StepWorkspace& ws,
                            ContactStepWorkspace& cws);

/// The kinematics at the step's start that the step's problem was built at (BuildStepProblem,
/// StepWithContact), for readers of that problem: the free motion's own (ws.mb) under
/// theta = 0, where they are evaluated at q0, else cws.kinematics0.
const multibody::Workspace& ProblemKinematics(const ThetaParameters& params,
                                              const StepWorkspace& ws,
                                              const ContactStepWorkspace& cws);

}  // namespace csim::integrator
