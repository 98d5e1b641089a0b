#include "engine/integrator/contact_step.h"

#include <string>

#include "engine/multibody/kinematics.h"

namespace csim::integrator {
namespace {

// With theta = 0 the free motion evaluates its dynamics once, exactly at the step's start
// (q_theta = q0, v_theta = v0): its M and kinematics are those the contact problem is built
// at, which lets the build reuse them and the trees' recursions (StepInputs).
bool FreeMotionAtStepStart(const ThetaParameters& params) { return params.theta == 0.0; }

// Stage 1: v*, A and its factor, and of the articulated blocks of A only those the contact
// problem reads (with FreeMotionAtStepStart, those of lone free bodies: every other
// articulated tree is a matrix-free clique).
StepStatus FreeMotion(const multibody::Model& model, const ThetaParameters& params,
                      const FreeMotionSettings& free_motion, double dt,
                      const multibody::State& state, StepWorkspace& ws,
                      ContactStepWorkspace& cws) {
  const StepStatus status =
      CalcFreeMotion(model, params, free_motion, dt, state, ws, /*form_articulated_blocks=*/false);
  if (!status.ok()) return status;
  cws.builder.BodiesNeedingA(ws.articulated_body, FreeMotionAtStepStart(params),
                             &cws.bodies_needing_A);
  FormArticulatedBlocks(model, cws.bodies_needing_A, ws);
  return status;
}

// What the problem build reads: the step's start (t0, q0, v0), its kinematics (the free
// motion's when FreeMotionAtStepStart, else evaluated here), v* and A.
contact::StepInputs ProblemInputs(const multibody::Model& model, const ThetaParameters& params,
                                  double dt, const multibody::State& state,
                                  const StepWorkspace& ws, ContactStepWorkspace& cws) {
  const bool A_at_kinematics = FreeMotionAtStepStart(params);
  if (!A_at_kinematics)
    multibody::CalcKinematics(model, state.t, state.q, state.v, cws.kinematics0);
  const multibody::Workspace* kinematics0 = &ProblemKinematics(params, ws, cws);
  return {dt,       kinematics0,          &state.q,
          &state.v, &ws.v_star,           &ws.A,
          &ws.A_diagonal_terms, &ws.articulated_body, A_at_kinematics, &ws.A_factor};
}

// The failed solve's status, with when it happened and, where one helps, what to try.
StepStatus DescribeSolveFailure(StepStatus status, double t0,
                                const solver::SapSolverResult& result,
                                const contact::ContactParameters& contact_parameters) {
  status.reason = "contact solve of the step starting at t = " + std::to_string(t0) +
                  " s: " + status.reason;
  // The unregularized Hunt & Crossley models are the ill-conditioned ones in violent
  // impacts (their friction's stiffness mu n0 / v_s grows with the impact impulse, [ICF]
  // sec. VIII): a stiff pile can need more Newton iterations than the default allows
  // (results/contact_models_bench.md).
  if (result.stats.termination == solver::SapTermination::kMaxIterations &&
      (contact_parameters.contact_model == contact::ContactModel::kLagged ||
       contact_parameters.contact_model == contact::ContactModel::kSimilar)) {
    status.reason +=
        " (the lagged and similar contact models can need more Newton iterations in violent "
        "impacts: try contact_model lagged_regularized, or raise solver.max_iterations)";
  }
  return status;
}

// Stage 4: q = q0 + dt N(q_theta) v_theta_q, then the new state, unless it is not finite.
StepStatus AdvanceState(const multibody::Model& model, const ThetaParameters& params, double dt,
                        const Eigen::VectorXd& v, multibody::State& state, StepWorkspace& ws,
                        VelocityWarmStart& warm_start) {
  AdvancePositions(model, params, dt, state, v, ws, &ws.q_end);
  if (!ws.q_end.allFinite() || !v.allFinite())
    return {StepOutcome::kNonFinite,
            "non-finite state after the step starting at t = " + std::to_string(state.t) + " s"};
  warm_start.Remember(state.v);
  state.q = ws.q_end;
  state.v = v;
  state.t += dt;
  return {};
}

}  // namespace

ContactStepWorkspace::ContactStepWorkspace(const multibody::Model& model)
    : builder(model),
      kinematics0(multibody::MakeWorkspace(model)),
      joint_friction(Eigen::VectorXd::Zero(model.nv)),
      actuators(model, builder.topology()),
      actuator_outputs(contact::MakeActuatorOutputs(model, 0.0)),
      warm_start(model.nv) {}

void ContactStepWorkspace::SetStageTiming(bool on) {
  time_stages = on;
  builder.set_time_collision(on);
  solver.set_time_phases(on);
}

const multibody::Workspace& ProblemKinematics(const ThetaParameters& params,
                                              const StepWorkspace& ws,
                                              const ContactStepWorkspace& cws) {
  return FreeMotionAtStepStart(params) ? ws.mb : cws.kinematics0;
}

StepStatus BuildStepProblem(const multibody::Model& model, const ThetaParameters& params,
                            const FreeMotionSettings& free_motion,
                            const contact::ContactParameters& contact_parameters, double dt,
                            const multibody::State& state, StepWorkspace& ws,
                            ContactStepWorkspace& cws) {
  const StepStatus status = FreeMotion(model, params, free_motion, dt, state, ws, cws);
  if (!status.ok()) return status;
  cws.builder.Build(model, contact_parameters, ProblemInputs(model, params, dt, state, ws, cws),
                    &cws.problem);
  if (!model.actuators.empty())
    cws.actuators.Add(model, state.t, dt, params.theta_q, state.q, state.v, &cws.problem);
  return status;
}

StepStatus StepWithContact(const multibody::Model& model, const ThetaParameters& params,
                           const FreeMotionSettings& free_motion,
                           const contact::ContactParameters& contact_parameters, double dt,
                           bool report_contacts, multibody::State& state, StepWorkspace& ws,
                           ContactStepWorkspace& cws) {
  StepStageClock clock(cws.time_stages);
  // 1. Free motion.
  StepStatus status = FreeMotion(model, params, free_motion, dt, state, ws, cws);
  if (!status.ok()) return status;
  clock.FreeMotionDone();

  // 2. Collision and the contact problem at q0, with the PD actuators' constraints
  // (contact/pd_actuators.h) unless they are the step's only ones: those are first tried by
  // their direct solve in stage 3.
  cws.builder.Build(model, contact_parameters, ProblemInputs(model, params, dt, state, ws, cws),
                    &cws.problem);
  const bool servos_only = !model.actuators.empty() && cws.problem.num_constraints() == 0;
  if (!model.actuators.empty() && !servos_only)
    cws.actuators.Add(model, state.t, dt, params.theta_q, state.q, state.v, &cws.problem);
  clock.BuildDone();

  // 3. The contact solve, and what the next step and the output keep of it.
  const bool extrapolate =
      cws.solver.parameters().warm_start == solver::WarmStart::kExtrapolated;
  const Eigen::VectorXd& guess = cws.warm_start.Guess(state.v, extrapolate);
  const bool direct =
      servos_only && cws.actuators.SolveDirectly(model, state.t, dt, params.theta_q, state.q,
                                                 state.v, cws.problem, cws.solver.parameters(),
                                                 guess, &cws.result);
  if (direct) {
    status = cws.result.status;
  } else {
    if (servos_only)
      cws.actuators.Add(model, state.t, dt, params.theta_q, state.q, state.v, &cws.problem);
    status = cws.solver.Solve(cws.problem, guess, &cws.result);
  }
  clock.SolveDone(cws.builder, &cws.stats);
  cws.warm_start.Forget();  // until this step succeeds
  if (!status.ok()) return DescribeSolveFailure(status, state.t, cws.result, contact_parameters);

  cws.builder.RememberStiction(cws.problem, cws.result);  // the next step's predictions
  RecordSolveStats(ws, direct ? cws.actuators.num_pd_rows() : cws.problem.num_constraints(),
                   cws.result.stats, &cws.stats);
  if (report_contacts) cws.builder.Report(cws.problem, cws.result, dt, &cws.contacts);
  if (cws.builder.has_joint_friction())
    cws.builder.ReportJointFriction(cws.problem, cws.result, dt, &cws.joint_friction);
  if (cws.builder.has_holonomic())
    cws.builder.ReportHolonomic(cws.problem, cws.result, &cws.constraint_impulse);
  if (!model.actuators.empty())
    cws.actuators.Report(model, cws.problem, cws.result, state.t, dt, &cws.actuator_outputs);

  // 4. Positions, and the new state.
  return AdvanceState(model, params, dt, cws.result.v, state, ws, cws.warm_start);
}

}  // namespace csim::integrator
