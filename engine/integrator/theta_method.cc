#include "engine/integrator/theta_method.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "engine/common/check.h"
#include "engine/integrator/implicit_gyroscopic.h"
#include "engine/multibody/actuator_inputs.h"
#include "engine/multibody/crba.h"
#include "engine/multibody/external_loads.h"
#include "engine/multibody/joint_forces.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/position_update.h"
#include "engine/multibody/rnea.h"
#include "engine/solver/block_cholesky.h"
#include "engine/solver/dense_ldlt.h"

namespace csim::integrator {
namespace {

using multibody::Model;
using multibody::State;

// Whether the step carries explicit generalized forces in ws.k_loads: external loads or
// force actuators.
bool HasExplicitForces(const Model& model) {
  return !model.loads.empty() || multibody::HasForceActuators(model);
}

std::string FormatNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

// A 6 x 6 block of A (a free body, the tree of a clutter scene) is factorized and solved by
// the fixed-size kernels of the block Cholesky (solver::CholeskySix), at a fraction of the
// cost of Eigen's LLT (its generic unblocked loop and l1 norm); other dense blocks (a small
// tree: below ArticulatedByCost's sizes) by the L D L^T loops of solver/dense_ldlt.h.
bool IsSix(const StepWorkspace& ws, int k) { return ws.A.range(k).size == 6; }

// Solves A x = rhs in place, block by block; the articulated blocks by one pass over their
// bodies, at the kinematics of the last evaluation (still in ws.mb).
void SolveInPlace(const Model& model, StepWorkspace& ws, Eigen::VectorXd* rhs) {
  if (ws.any_articulated) ws.A_articulated.SolveInPlace(model, ws.mb, rhs);
  for (int k = 0; k < ws.A.num_blocks(); ++k) {
    const multibody::VelocityBlock& b = ws.A.range(k);
    if (ws.articulated[k]) continue;
    if (IsSix(ws, k)) {
      double* x = rhs->data() + b.start;
      solver::SolveLowerSix(ws.A_six[k].data(), x);
      solver::SolveLowerTransposedSix(ws.A_six[k].data(), x);
    } else {
      solver::DenseLdltSolveInPlace(ws.A_factor[k].data(), b.size, rhs->data() + b.start);
    }
  }
}

// m = M v - M v0 - dt k from the products M v (in ws.work) and M v0 (in ws.residual) and
// the k in ws, into ws.residual. Returns |D m| and sets *reference to |D M v| + |D M v0| +
// |D dt k|: the momenta set the scale, since round-off in m is relative to them, not to
// the (possibly tiny) change M (v - v0).
double ScaledMomentumResidual(double dt, StepWorkspace& ws, double* reference) {
  *reference = ws.work.cwiseProduct(ws.scale).norm();
  *reference += ws.residual.cwiseProduct(ws.scale).norm() + dt * ws.k.cwiseProduct(ws.scale).norm();
  ws.residual = ws.work - ws.residual - dt * ws.k;
  return ws.residual.cwiseProduct(ws.scale).norm();
}

// out = M x at the last evaluation: products with the formed blocks, and the recursion on
// the articulated ones, whose blocks of M are not formed during the iteration.
void MassMatrixTimes(const Model& model, const Eigen::VectorXd& x, StepWorkspace& ws,
                     Eigen::VectorXd* out) {
  if (!ws.any_articulated) {
    ws.mb.M.Multiply(x, *out);
    return;
  }
  ws.mb.M.Multiply(x, *out, /*skip=*/ws.articulated);
  ws.A_articulated.MultiplyMassMatrix(model, ws.mb, x, out);
}

// Evaluates M(q_theta), k(q_theta, v_theta) and m(v) for the candidate end velocity v;
// returns |D m| (see ScaledMomentumResidual for *reference). at_v0: v is s0.v (the first
// evaluation of a step), so M v0 is a copy of M v instead of a second product, the same
// bits.
double EvaluateResidual(const Model& model, const ThetaParameters& p, double dt,
                        const State& s0, const Eigen::VectorXd& v, bool at_v0,
                        StepWorkspace& ws, double* reference) {
  if (p.theta == 0.0) {
    // The dynamics at the step's start: no position update to evaluate them at.
    ws.q_theta = s0.q;
    ws.v_theta = s0.v;
  } else {
    ws.v_bar = p.theta_q * v + (1 - p.theta_q) * s0.v;
    multibody::IntegratePositions(model, s0.q, ws.v_bar, dt, p.theta, &ws.q_end);
    ws.q_theta = p.theta * ws.q_end + (1 - p.theta) * s0.q;
    ws.v_theta = p.theta * v + (1 - p.theta) * s0.v;
  }
  multibody::CalcKinematics(model, s0.t + p.theta * dt, ws.q_theta, ws.v_theta, ws.mb);
  // The articulated blocks of M are not formed here (FormArticulatedBlocks, once a step).
  multibody::CalcMassMatrix(model, ws.mb, ws.any_articulated ? &ws.dense_body : nullptr);
  multibody::CalcBiasForces(model, ws.mb);
  multibody::CalcJointSpringDamperForces(model, ws.q_theta, ws.v_theta, &ws.k);
  ws.k -= ws.mb.bias;
  if (HasExplicitForces(model)) ws.k += ws.k_loads;
  ws.mb.M.Diagonal(ws.scale);
  if (ws.any_articulated) ws.A_articulated.MassMatrixDiagonal(model, ws.mb, &ws.scale);
  ws.scale = ws.scale.cwiseSqrt().cwiseInverse();
  MassMatrixTimes(model, v, ws, &ws.work);
  if (at_v0) {
    ws.residual = ws.work;
  } else {
    MassMatrixTimes(model, s0.v, ws, &ws.residual);
  }
  return ScaledMomentumResidual(dt, ws, reference);
}

// Block k of A = M + c_K K + c_D D from M's block at the last evaluation and the diagonal
// terms of the last factorization (ws.A_diagonal_terms).
void FormBlockOfA(int k, StepWorkspace& ws) {
  const multibody::VelocityBlock& b = ws.A.range(k);
  auto A = ws.A.block(k);
  A = ws.mb.M.block(k);
  A.diagonal() += ws.A_diagonal_terms.segment(b.start, b.size);
}

// Block k of A (size 6) = M + c_K K + c_D D, into ws.A and its factor ws.A_six[k], with
// fixed-size copies: the entries are copied, and the diagonal summed entry by entry, exactly
// as by the dynamic expressions of FormBlockOfA, so the bits are the same, without the
// overhead of dynamic-size copies.
bool FactorSixBlock(int k, StepWorkspace& ws) {
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  const int start = ws.A.range(k).start;
  Matrix6& A_six = ws.A_six[k];
  A_six = Eigen::Map<const Matrix6>(ws.mb.M.block(k).data());
  A_six.diagonal() += ws.A_diagonal_terms.segment<6>(start);
  Eigen::Map<Matrix6>(ws.A.block(k).data()) = A_six;
  return solver::CholeskySix(A_six.data());
}

// A = M + dt^2 theta theta_q K + dt theta D (P-15, with theta_q once: docs/design/time-step.md
// §4.2), and its Cholesky factor; for the articulated blocks only the articulated inertias, at the
// kinematics of the last evaluation (their A is formed by FormArticulatedBlocks).
bool FactorLinearizedDynamics(const Model& model, const ThetaParameters& p, double dt,
                              StepWorkspace& ws) {
  const double c_K = dt * dt * p.theta * p.theta_q, c_D = dt * p.theta;
  ws.A_diagonal_terms = c_K * ws.K_diag + c_D * ws.D_diag;
  if (ws.any_articulated && !ws.A_articulated.Factor(model, ws.mb, ws.A_diagonal_terms))
    return false;
  for (int k = 0; k < ws.A.num_blocks(); ++k) {
    if (ws.articulated[k]) continue;  // FormArticulatedBlocks
    if (IsSix(ws, k)) {
      if (!FactorSixBlock(k, ws)) return false;
    } else {
      FormBlockOfA(k, ws);
      ws.A_factor[k] = ws.A.block(k);  // same size every step: no allocation
      if (!solver::DenseLdltInPlace(ws.A_factor[k].data(), ws.A.range(k).size))
        return false;
    }
  }
  return true;
}

StepStatus Failure(StepOutcome outcome, const std::string& what, double t) {
  return {outcome, what + " in the free-motion solve of the step starting at t = " + FormatNumber(t) + " s"};
}

// theta = 0: q_theta = q0 and v_theta = v0, so m(v) = M(q0) (v - v0) - dt k(q0, v0) is
// linear with Jacobian M(q0) = A and one Newton step is exact. Its residual after the step
// is evaluated from the same M and k (one product, no second dynamics pass). M v0 is still
// in ws.work from that evaluation (at v = v0; the factorization and the solve leave ws.work
// alone), so it is copied, not recomputed: the same bits, one product less.
StepStatus FinishExplicit(const Model& model, double dt, const State& s0, StepWorkspace& ws) {
  ws.residual = ws.work;
  MassMatrixTimes(model, ws.v_star, ws, &ws.work);
  double reference = 0.0;
  const double error = ScaledMomentumResidual(dt, ws, &reference);
  if (!std::isfinite(error) || !ws.v_star.allFinite())
    return Failure(StepOutcome::kNonFinite, "non-finite free-motion velocity", s0.t);
  ws.momentum_error = reference > 0 ? error / reference : 0.0;
  return {};
}

// Stage 1 up to the articulated blocks of M and A (CalcFreeMotion).
StepStatus SolveFreeMotion(const Model& model, const ThetaParameters& p,
                           const FreeMotionSettings& settings, double dt, const State& s0,
                           StepWorkspace& ws) {
  // ThetaParameters has no defaults: NaN here means a caller forgot to set them.
  CSIM_CHECK(p.theta >= 0.0 && p.theta <= 1.0 && p.theta_q >= 0.0 && p.theta_q <= 1.0);
  // The external loads and the force actuators, once a step at its start
  // (multibody/external_loads.h and multibody/actuator_inputs.h say why).
  if (HasExplicitForces(model)) {
    ws.k_loads.setZero(model.nv);
    if (!model.loads.empty()) {
      multibody::CalcKinematics(model, s0.t, s0.q, s0.v, ws.mb);
      multibody::CalcExternalLoadForces(model, ws.mb, s0.t, &ws.k_loads);
    }
    multibody::AddForceActuatorForces(model, s0.t, &ws.k_loads);
  }
  ws.v_star = s0.v;
  ws.iterations = 0;
  double smallest_error = std::numeric_limits<double>::infinity();
  int since_smallest = 0;  // iterations since the smallest residual so far
  for (;;) {
    double reference = 0.0;
    const double error =
        EvaluateResidual(model, p, dt, s0, ws.v_star, /*at_v0=*/ws.iterations == 0, ws, &reference);
    if (!std::isfinite(error) || !std::isfinite(reference))
      return Failure(StepOutcome::kNonFinite, "non-finite momentum residual", s0.t);
    if (!FactorLinearizedDynamics(model, p, dt, ws))
      return Failure(StepOutcome::kNonFinite, "the matrix A is not positive definite", s0.t);
    ws.momentum_error = reference > 0 ? error / reference : 0.0;
    if (p.theta == 0.0) {  // linear in v: one direct solve, no Newton iteration
      SolveInPlace(model, ws, &ws.residual);
      ws.v_star -= ws.residual;
      if (p.gyroscopic == Gyroscopic::kImplicit && !ws.implicit_gyroscopic_bodies.empty() &&
          !ApplyImplicitGyroscopic(model, ws.implicit_gyroscopic_bodies, ws.mb, dt, p.theta_q,
                                   s0.q, s0.v, &ws.v_star, &ws.k))
        return Failure(StepOutcome::kNotConverged,
                       "the implicit gyroscopic torque of a free body did not converge", s0.t);
      return FinishExplicit(model, dt, s0, ws);
    }
    if (error <= settings.relative_tolerance * reference + settings.absolute_tolerance) return {};
    const bool within_stall_bar =
        error <= settings.stalled_tolerance * reference + settings.absolute_tolerance;
    if (error < smallest_error) {
      smallest_error = error;
      since_smallest = 0;
    } else if (++since_smallest >= settings.stalled_iterations && within_stall_bar) {
      return {};  // at the round-off floor (FreeMotionSettings)
    }
    if (ws.iterations == settings.max_iterations) {
      // Contracting too slowly to reach the tolerance, but within the stall's bar: accepted
      // (FreeMotionSettings says why) rather than failing the run.
      if (within_stall_bar) return {};
      return Failure(StepOutcome::kNotConverged,
                     "Newton did not converge in " + std::to_string(settings.max_iterations) +
                         " iterations (scaled residual " + FormatNumber(ws.momentum_error) + ")",
                     s0.t);
    }
    SolveInPlace(model, ws, &ws.residual);
    ws.v_star -= ws.residual;
    ++ws.iterations;
  }
}

// TreeSolver::kAuto: the recursions from 25 velocities on, or from 15 for a tree with
// collision geometry. A dense step costs a Cholesky, about nv^3 / 3 multiply-adds, per
// evaluation of the dynamics, and forms the tree's blocks of M and A; the recursions cost a
// fixed amount per body and velocity and form no block at all. So the first threshold is
// their crossover on the free-motion stage (results/articulated_threshold.md,
// tools/run_free_motion_bench.sh), which, counted in velocities, is about the same for
// hinges and ball joints. A tree that can touch something also has its block of the
// contact solve's Newton matrix factored at every Newton iteration under theta = 0, by the
// same choice (contact::ArticulatedCliqueSolver), and with the recursions the solver's
// products with its contact Jacobians and with A cost O(bodies + contacts) instead of
// O(contacts nv) and O(nv^2) (solver/clique_solver.h); that moves the crossover down
// (results/floor_rope_tree_solver.md, tools/floor_rope_study.py). A free body keeps its
// 6 x 6 Cholesky.
bool ArticulatedByCost(int nv, bool can_touch) { return nv >= (can_touch ? 15 : 25); }

}  // namespace

StepWorkspace MakeStepWorkspace(const Model& model, TreeSolver tree_solver) {
  StepWorkspace ws;
  ws.mb = multibody::MakeWorkspace(model);
  multibody::CalcJointStiffnessDamping(model, &ws.K_diag, &ws.D_diag);
  const int nq = model.nq, nv = model.nv;
  ws.v_star.setZero(nv);
  ws.A = multibody::BlockDiagonalMatrix(multibody::MassMatrixBlocks(model));
  ws.A_factor.resize(ws.A.num_blocks());
  ws.A_six.resize(ws.A.num_blocks());
  // The block of each root (a root's velocities lie in one block: one per tree, or one for
  // all), and the bodies of each block.
  const int nb = model.num_bodies();
  std::vector<int> root(nb), root_block(nb, -1);
  std::vector<char> block_can_touch(ws.A.num_blocks(), 0);
  for (int b = 0; b < nb; ++b) {
    root[b] = model.parent[b] < 0 ? b : root[model.parent[b]];
    const multibody::Joint& joint = model.joints[b];
    if (joint.v_start >= 0) root_block[root[b]] = ws.A.block_of(joint.v_start);
  }
  for (int b = 0; b < nb; ++b) {
    const int k = root_block[root[b]];
    if (k < 0) continue;
    for (const geometry::Geometry& g : model.bodies[b].geometry) block_can_touch[k] |= g.collide;
  }
  ws.articulated.assign(ws.A.num_blocks(), false);
  for (int k = 0; k < ws.A.num_blocks(); ++k) {
    const int size = ws.A.range(k).size;
    ws.articulated[k] = tree_solver == TreeSolver::kArticulated ||
                        (tree_solver == TreeSolver::kAuto &&
                         ArticulatedByCost(size, block_can_touch[k]));
    ws.any_articulated = ws.any_articulated || ws.articulated[k];
    const bool dense = !IsSix(ws, k) && !ws.articulated[k];
    ws.A_factor[k].setZero(dense ? size : 0, dense ? size : 0);
  }
  ws.articulated_body.resize(nb);
  ws.dense_body.resize(nb);
  for (int b = 0; b < nb; ++b) {
    ws.articulated_body[b] = root_block[root[b]] >= 0 && ws.articulated[root_block[root[b]]];
    ws.dense_body[b] = !ws.articulated_body[b];
  }
  ws.A_articulated = multibody::ArticulatedBodySolver(model, ws.articulated_body);
  ws.implicit_gyroscopic_bodies = ImplicitGyroscopicBodies(model);
  ws.A_diagonal_terms.setZero(model.nv);
  ws.q_end.setZero(nq);
  ws.q_theta.setZero(nq);
  for (auto* x : {&ws.v_theta, &ws.v_bar, &ws.k, &ws.k_loads, &ws.residual, &ws.scale, &ws.work})
    x->setZero(nv);
  return ws;
}

StepStatus CalcFreeMotion(const Model& model, const ThetaParameters& p,
                          const FreeMotionSettings& settings, double dt, const State& s0,
                          StepWorkspace& ws, bool form_articulated_blocks) {
  const StepStatus status = SolveFreeMotion(model, p, settings, dt, s0, ws);
  if (status.ok() && form_articulated_blocks) FormArticulatedBlocks(model, ws.articulated_body, ws);
  return status;
}

// The articulated blocks of M and of A = M + c_K K + c_D D at the last evaluation, for the
// contact solve (the iteration did without them): one composite rigid-body pass a step
// instead of one an iteration.
void FormArticulatedBlocks(const Model& model, const std::vector<bool>& bodies,
                           StepWorkspace& ws) {
  if (!ws.any_articulated) return;
  ws.form_block.assign(ws.A.num_blocks(), 0);
  bool any = false;
  for (int b = 0; b < model.num_bodies(); ++b) {
    const int v_start = model.joints[b].v_start;
    if (!bodies[b] || !ws.articulated_body[b] || v_start < 0) continue;
    ws.form_block[ws.A.block_of(v_start)] = 1;
    any = true;
  }
  if (!any) return;
  multibody::CalcMassMatrix(model, ws.mb, &bodies);
  for (int k = 0; k < ws.A.num_blocks(); ++k)
    if (ws.form_block[k]) FormBlockOfA(k, ws);
}

void AdvancePositions(const Model& model, const ThetaParameters& p, double dt, const State& s0,
                      const Eigen::VectorXd& v, StepWorkspace& ws, Eigen::VectorXd* q) {
  ws.v_bar = p.theta_q * v + (1 - p.theta_q) * s0.v;
  multibody::IntegratePositions(model, s0.q, ws.v_bar, dt, p.theta, q);
}

StepStatus StepFreeMotion(const Model& model, const ThetaParameters& p,
                          const FreeMotionSettings& settings, double dt, State& state,
                          StepWorkspace& ws) {
  // Nothing reads A after a step without constraints: its articulated blocks stay unformed.
  StepStatus status = CalcFreeMotion(model, p, settings, dt, state, ws,
                                     /*form_articulated_blocks=*/false);
  if (!status.ok()) return status;
  AdvancePositions(model, p, dt, state, ws.v_star, ws, &ws.q_end);
  if (!ws.q_end.allFinite() || !ws.v_star.allFinite())
    return {StepOutcome::kNonFinite, "non-finite state after the step starting at t = " + FormatNumber(state.t) + " s"};
  state.q = ws.q_end;
  state.v = ws.v_star;
  state.t += dt;
  return {};
}

}  // namespace csim::integrator
