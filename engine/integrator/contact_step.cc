#include "engine/integrator/contact_step.h"

#include <chrono>
#include <string>

#include "engine/multibody/kinematics.h"

namespace csim::integrator {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace

ContactStepWorkspace::ContactStepWorkspace(const multibody::Model& model)
    : builder(model),
      kinematics0(multibody::MakeWorkspace(model)),
      v_previous(Eigen::VectorXd::Zero(model.nv)),
      v_guess(Eigen::VectorXd::Zero(model.nv)) {}

StepStatus StepWithContact(const multibody::Model& model, const ThetaParameters& params,
                           const FreeMotionSettings& free_motion,
                           const contact::ContactParameters& contact_parameters, double dt,
                           bool report_contacts, multibody::State& state, StepWorkspace& ws,
                           ContactStepWorkspace& cws) {
  StepStats& s = cws.stats;
  const Clock::time_point t0 = Clock::now();
  StepStatus status =
      CalcFreeMotion(model, params, free_motion, dt, state, ws, /*form_articulated_blocks=*/false);
  if (!status.ok()) return status;
  // With theta = 0 the free motion's M is at the kinematics the contact problem is built at
  // (see below), which lets the build use the trees' recursions (StepInputs).
  const bool A_at_kinematics = params.theta == 0.0;
  // Only the articulated blocks of A the contact problem reads (with A_at_kinematics, those
  // of lone free bodies: every other articulated tree is a matrix-free clique).
  cws.builder.BodiesNeedingA(ws.articulated_body, A_at_kinematics, &cws.bodies_needing_A);
  FormArticulatedBlocks(model, cws.bodies_needing_A, ws);
  const Clock::time_point t1 = Clock::now();
  // The contact problem is built at (t0, q0, v0). With theta = 0 the free motion evaluated
  // its dynamics exactly there (q_theta = q0, v_theta = v0, once), so its kinematics are
  // reused: a second CalcKinematics was 2.3 % of a clutter-40 run.
  const multibody::Workspace* kinematics0 = &ws.mb;
  if (!A_at_kinematics) {
    multibody::CalcKinematics(model, state.t, state.q, state.v, cws.kinematics0);
    kinematics0 = &cws.kinematics0;
  }
  const contact::StepInputs in{dt,    kinematics0,         &state.q,
                               &state.v, &ws.v_star,       &ws.A,
                               &ws.A_diagonal_terms, &ws.articulated_body, A_at_kinematics};
  cws.builder.Build(model, contact_parameters, in, &cws.problem);
  const Clock::time_point t2 = Clock::now();
  if (cws.has_previous && cws.solver.parameters().warm_start == solver::WarmStart::kExtrapolated) {
    cws.v_guess = 2.0 * state.v - cws.v_previous;  // v0 + (v0 - v_-1)
  } else {
    cws.v_guess = state.v;
  }
  status = cws.solver.Solve(cws.problem, cws.v_guess, &cws.result);
  s.free_motion_seconds = SecondsBetween(t0, t1);
  s.collision_seconds = cws.builder.collision_seconds();
  s.collision_pairs = cws.builder.collision_counts();
  s.build_seconds = SecondsBetween(t1, t2) - s.collision_seconds;
  s.solve_seconds = SecondsBetween(t2, Clock::now());
  cws.has_previous = false;  // until this step succeeds
  if (!status.ok()) {
    status.reason = "contact solve of the step starting at t = " + std::to_string(state.t) +
                    " s: " + status.reason;
    // The unregularized Hunt & Crossley models are the ill-conditioned ones in violent
    // impacts (their friction's stiffness mu n0 / v_s grows with the impact impulse, [ICF]
    // sec. VIII): on the clutter of 160 objects with walls (k = 1e8 N/m, d = 10 s/m, dt 2e-3)
    // lagged fails at t = 0.79 s with the default 100 (results/contact_models_bench.md) and
    // needs up to 219 with solver.max_iterations = 400.
    if (cws.result.stats.termination == solver::SapTermination::kMaxIterations &&
        (contact_parameters.contact_model == contact::ContactModel::kLagged ||
         contact_parameters.contact_model == contact::ContactModel::kSimilar)) {
      status.reason +=
          " (the lagged and similar contact models can need more Newton iterations in violent "
          "impacts: try contact_model lagged_regularized, or raise solver.max_iterations)";
    }
    return status;
  }
  cws.builder.RememberStiction(cws.problem, cws.result);  // next step's active-set warm start
  s.free_motion_iterations = ws.iterations;
  s.num_constraints = cws.problem.num_constraints();
  const bool constrained = s.num_constraints > 0;
  s.iterations = constrained ? cws.result.stats.iterations : ws.iterations;
  s.momentum_error = constrained ? cws.result.stats.momentum_error : ws.momentum_error;
  s.cost = constrained ? cws.result.stats.cost : 0.0;
  if (report_contacts) cws.builder.Report(cws.problem, cws.result, dt, &cws.contacts);

  AdvancePositions(model, params, dt, state, cws.result.v, ws, &ws.q_end);
  if (!ws.q_end.allFinite() || !cws.result.v.allFinite())
    return {StepOutcome::kNonFinite,
            "non-finite state after the step starting at t = " + std::to_string(state.t) + " s"};
  cws.v_previous = state.v;
  cws.has_previous = true;
  state.q = ws.q_end;
  state.v = cws.result.v;
  state.t += dt;
  return {};
}

}  // namespace csim::integrator
