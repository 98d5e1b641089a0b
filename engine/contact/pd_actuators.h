#pragma once
// The joint actuators in the step's convex problem, and what they delivered
// (docs/design/actuators-and-constraints.md §7).
//
// Per PD actuator, every step: its targets q_d, v_d and a signal feed-forward are sampled at
// the end of the step t0 + dt (the effort belongs to the end of the step, so a ramp target is
// tracked without a lag of v_d dt, §2.5), and one solver::SapPdConstraint is added on the
// coordinate's clique with q0, v0 and the scheme's theta_q, with the diagonal-of-A Delassus
// estimate w = 1/A_jj as the joint limits and friction. After the solve, the reported effort
// is gamma / dt. A force actuator is no constraint: its clamped feed-forward is an explicit
// force of the free motion (multibody/actuator_inputs.h), reported as it was applied, with
// NaN targets.

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/tree_topology.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver.h"

namespace csim::contact {

/// What every actuator of the model delivered over one step, in Model::actuators order.
struct ActuatorOutputs {
  Eigen::VectorXd effort;    ///< (na) impulse / dt [N m or N]
  Eigen::VectorXd q_target;  ///< (na) q_d of the step [rad or m]; NaN for force actuators
  Eigen::VectorXd v_target;  ///< (na) v_d of the step [rad/s or m/s]; NaN for force actuators
  std::vector<int8_t> saturated;  ///< (na) 1 where |effort| is at the effort limit
};

/// Sized for `model`, efforts 0, not saturated, targets those at time t [s] (the row of
/// the initial state).
ActuatorOutputs MakeActuatorOutputs(const multibody::Model& model, double t);

class PdActuators {
 public:
  PdActuators(const multibody::Model& model, const multibody::TreeTopology& topology);

  /// Adds one SapPdConstraint per PD actuator to `problem`, whose cliques (one per tree with
  /// velocities, in tree order) are already added, for the step from (t0 [s], q0, v0) of
  /// length dt [s] under the scheme's theta_q. Allocation free once warmed up.
  void Add(const multibody::Model& model, double t0, double dt, double theta_q,
           const Eigen::VectorXd& q0, const Eigen::VectorXd& v0, solver::ContactProblem* problem);

  /// Every actuator's outputs for the solve `result` of the problem the last Add filled
  /// (force actuators: their explicit effort at t0). Allocation free once *out is sized.
  void Report(const multibody::Model& model, const solver::ContactProblem& problem,
              const solver::SapSolverResult& result, double t0, double dt,
              ActuatorOutputs* out) const;

  bool empty() const { return tree_.empty(); }

 private:
  std::vector<int> tree_;        ///< per actuator: the clique of its coordinate
  std::vector<int> tree_dof_;    ///< per actuator: the coordinate's index inside the clique
  std::vector<int> constraint_;  ///< per actuator: its constraint in the last Add, -1 if none
  std::vector<double> q_target_, v_target_;  ///< per actuator: the targets of the last Add
  /// Per trajectory of the model: 1 when some PD actuator follows one of its columns.
  std::vector<char> trajectory_used_;
  /// Per trajectory: offset of its columns in trajectory_q_ and trajectory_v_.
  std::vector<int> trajectory_offset_;
  /// Every used trajectory's q and v at the end of the step, all its columns, sampled once
  /// per step by Trajectory::EvaluateAll (one time lookup for all its actuators, the same
  /// values as multibody::ActuatorTarget's per-column Evaluate).
  std::vector<double> trajectory_q_, trajectory_v_;
};

}  // namespace csim::contact
