#include "engine/contact/pd_actuators.h"

#include <cmath>
#include <limits>

#include "engine/multibody/actuator_inputs.h"
#include "engine/solver/clamped_impulse_row.h"
#include "engine/solver/coordinate_constraint.h"
#include "engine/solver/sap_pd_constraint.h"

namespace csim::contact {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

ActuatorOutputs MakeActuatorOutputs(const multibody::Model& model, double t) {
  const int na = static_cast<int>(model.actuators.size());
  ActuatorOutputs out;
  out.effort.setZero(na);
  out.q_target.setConstant(na, kNaN);
  out.v_target.setConstant(na, kNaN);
  out.saturated.assign(na, 0);
  for (int i = 0; i < na; ++i) {
    const multibody::Actuator& a = model.actuators[i];
    if (a.pd) multibody::ActuatorTarget(model, a, t, &out.q_target[i], &out.v_target[i]);
  }
  return out;
}

PdActuators::PdActuators(const multibody::Model& model, const multibody::TreeTopology& topology) {
  for (const multibody::Actuator& a : model.actuators) {
    const int tree = topology.body_tree[a.joint];  // joint i is body i's inboard joint
    tree_.push_back(tree);
    tree_dof_.push_back(a.dof - topology.tree_v_start[tree]);
  }
  const int nt = static_cast<int>(model.trajectories.size());
  trajectory_used_.assign(nt, 0);
  trajectory_offset_.assign(nt, 0);
  for (const multibody::Actuator& a : model.actuators)
    if (a.pd && a.target >= 0) trajectory_used_[a.target] = 1;
  int columns = 0;
  for (int k = 0; k < nt; ++k) {
    trajectory_offset_[k] = columns;
    if (trajectory_used_[k]) columns += model.trajectories[k].table.num_columns();
  }
  trajectory_q_.assign(columns, kNaN);
  trajectory_v_.assign(columns, kNaN);
  constraint_.assign(tree_.size(), -1);
  q_target_.assign(tree_.size(), kNaN);
  v_target_.assign(tree_.size(), kNaN);
  row_.assign(tree_.size(), -1);
  for (size_t i = 0; i < tree_.size(); ++i)
    if (model.actuators[i].pd) row_[i] = num_pd_++;
  rows_.resize(num_pd_);
}

void PdActuators::SampleTrajectories(const multibody::Model& model, double t1) {
  for (size_t k = 0; k < trajectory_used_.size(); ++k)
    if (trajectory_used_[k])
      model.trajectories[k].table.EvaluateAll(t1, trajectory_q_.data() + trajectory_offset_[k],
                                              trajectory_v_.data() + trajectory_offset_[k],
                                              nullptr);
}

solver::SapPdParameters PdActuators::GainParameters(const multibody::Model& model, int i,
                                                    double theta_q) {
  const multibody::Actuator& a = model.actuators[i];
  solver::SapPdParameters p;
  p.kp = a.kp;
  p.kd = a.kd;
  p.theta_q = theta_q;
  return p;
}

solver::SapPdParameters PdActuators::StepParameters(const multibody::Model& model, int i,
                                                    double t1, double theta_q,
                                                    const Eigen::VectorXd& q0,
                                                    const Eigen::VectorXd& v0) {
  const multibody::Actuator& a = model.actuators[i];
  solver::SapPdParameters p = GainParameters(model, i, theta_q);
  p.effort_limit = a.effort_limit;
  p.q0 = q0[a.q_index];
  p.v0 = v0[a.dof];
  if (a.target < 0) {  // multibody::ActuatorTarget, from the step's samples
    p.q_target = a.q_hold;
    p.v_target = 0.0;
  } else {
    p.q_target = trajectory_q_[trajectory_offset_[a.target] + a.target_column];
    p.v_target = trajectory_v_[trajectory_offset_[a.target] + a.target_column];
  }
  p.feedforward = multibody::ActuatorFeedforward(model, a, t1);
  q_target_[i] = p.q_target;
  v_target_[i] = p.v_target;
  return p;
}

bool PdActuators::SolveDirectly(const multibody::Model& model, double t0, double dt,
                                double theta_q, const Eigen::VectorXd& q0,
                                const Eigen::VectorXd& v0, const solver::ContactProblem& problem,
                                const solver::SapSolverParameters& parameters,
                                const Eigen::VectorXd& v_guess, solver::SapSolverResult* result) {
  last_step_direct_ = false;
  if (!direct_solve_ || num_pd_ == 0) return false;
  const double t1 = t0 + dt;  // targets and signals at the end of the step (§2.5)
  SampleTrajectories(model, t1);
  if (dt != gain_terms_dt_ || theta_q != gain_terms_theta_q_) {
    gain_terms_.resize(tree_.size());  // once: the size never changes
    for (size_t i = 0; i < tree_.size(); ++i)
      if (row_[i] >= 0)
        gain_terms_[i] =
            solver::CalcPdRowGainTerms(GainParameters(model, static_cast<int>(i), theta_q), dt);
    gain_terms_dt_ = dt;
    gain_terms_theta_q_ = theta_q;
  }
  for (size_t i = 0; i < tree_.size(); ++i) {
    if (row_[i] < 0) continue;
    const int clique = tree_[i], coordinate = tree_dof_[i];
    if (!problem.has_A(clique)) return false;
    // The Delassus estimate AddCoordinateConstraint gives the row.
    const double w = solver::CoordinateDelassus(problem, clique, coordinate, 1);
    const solver::SapPdParameters p =
        StepParameters(model, static_cast<int>(i), t1, theta_q, q0, v0);
    const solver::PdRowCoefficients c = solver::CalcPdRow(p, dt, w, gain_terms_[i]);
    if (c.is_explicit) return false;
    rows_[row_[i]] = {clique, coordinate, c.v_hat, c.R, c.impulse_limit};
  }
  last_step_direct_ = solver::SolvePdRowsDirectly(problem, rows_.data(), num_pd_, parameters,
                                                  v_guess, &direct_, result);
  return last_step_direct_;
}

void PdActuators::Add(const multibody::Model& model, double t0, double dt, double theta_q,
                      const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                      solver::ContactProblem* problem) {
  last_step_direct_ = false;
  const double t1 = t0 + dt;  // targets and signals at the end of the step (§2.5)
  SampleTrajectories(model, t1);
  for (size_t i = 0; i < tree_.size(); ++i) {
    if (row_[i] < 0) continue;
    const solver::SapPdParameters p =
        StepParameters(model, static_cast<int>(i), t1, theta_q, q0, v0);
    constraint_[i] = problem->num_constraints();
    solver::AddPdActuator(problem, tree_[i], tree_dof_[i], p);
  }
}

void PdActuators::Report(const multibody::Model& model, const solver::ContactProblem& problem,
                         const solver::SapSolverResult& result, double t0, double dt,
                         ActuatorOutputs* out) const {
  for (size_t i = 0; i < tree_.size(); ++i) {
    const multibody::Actuator& a = model.actuators[i];
    if (!a.pd) {
      // The explicit effort the free motion applied (multibody::AddForceActuatorForces).
      const double u = multibody::ForceActuatorEffort(model, a, t0);
      out->effort[i] = u;
      out->q_target[i] = out->v_target[i] = kNaN;
      out->saturated[i] = std::abs(multibody::ActuatorFeedforward(model, a, t0)) >= a.effort_limit;
      continue;
    }
    out->q_target[i] = q_target_[i];
    out->v_target[i] = v_target_[i];
    // The generalized impulse of the row on its coordinate is +gamma (sap_pd_constraint.h).
    if (last_step_direct_) {
      const int r = row_[i];
      out->effort[i] = direct_.gamma[r] / dt;
      out->saturated[i] = direct_.piece[r] != static_cast<int>(solver::ClampedRowPiece::kInside);
      continue;
    }
    const int k = constraint_[i];
    const auto& pd = static_cast<const solver::SapPdConstraint&>(problem.constraint(k));
    out->effort[i] = result.gamma[problem.entry(k).row_offset] / dt;
    out->saturated[i] = pd.SaturatedAt(result.v[a.dof]) ? 1 : 0;
  }
}

}  // namespace csim::contact
