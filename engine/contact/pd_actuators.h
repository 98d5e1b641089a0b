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
// A step whose only constraints are the servos (no contact, limit, friction or holonomic row)
// is first tried by SolveDirectly, which hands the rows to solver::SolvePdRowsDirectly without
// adding them to the problem; Add and the Newton solve follow only when that is not accepted.

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/tree_topology.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/pd_rows_direct_solve.h"
#include "engine/solver/sap_pd_constraint.h"
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

  /// Solves the step of `problem`, which must hold no constraint, with the PD actuators' rows
  /// by solver::SolvePdRowsDirectly (the arguments as Add's, `parameters` and v_guess as the
  /// SAP solver's). Returns false, `result` unspecified, when the direct solve is off
  /// (set_direct_solve), some servo is explicit (c = 0) or on a clique without a stored A,
  /// or the solve is not accepted; the caller then Adds the rows and runs the Newton solve.
  /// Allocation free once warmed up.
  bool SolveDirectly(const multibody::Model& model, double t0, double dt, double theta_q,
                     const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                     const solver::ContactProblem& problem,
                     const solver::SapSolverParameters& parameters,
                     const Eigen::VectorXd& v_guess, solver::SapSolverResult* result);
  /// Whether SolveDirectly is tried (default true; off: always the Newton solve, for tests
  /// that compare the two).
  void set_direct_solve(bool on) { direct_solve_ = on; }
  /// Whether the last step was solved by SolveDirectly (its rows are then not in the problem).
  bool last_step_direct() const { return last_step_direct_; }
  /// The number of PD rows a step has (the PD actuators).
  int num_pd_rows() const { return num_pd_; }

  /// Every actuator's outputs for the solve `result` of the last step: SolveDirectly's, or of
  /// the problem the last Add filled (force actuators: their explicit effort at t0).
  /// Allocation free once *out is sized.
  void Report(const multibody::Model& model, const solver::ContactProblem& problem,
              const solver::SapSolverResult& result, double t0, double dt,
              ActuatorOutputs* out) const;

  bool empty() const { return tree_.empty(); }

 private:
  // Samples the used trajectories at t1 [s] (the end of the step) into trajectory_q_|v_.
  void SampleTrajectories(const multibody::Model& model, double t1);
  // Actuator i's (a PD one) gains and theta_q, the rest of its parameters left default.
  static solver::SapPdParameters GainParameters(const multibody::Model& model, int i,
                                                double theta_q);
  // Actuator i's (a PD one) constraint parameters for the step, from the samples at t1.
  solver::SapPdParameters StepParameters(const multibody::Model& model, int i, double t1,
                                         double theta_q, const Eigen::VectorXd& q0,
                                         const Eigen::VectorXd& v0);

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
  int num_pd_ = 0;                 ///< PD actuators
  bool direct_solve_ = true;       ///< see set_direct_solve
  bool last_step_direct_ = false;  ///< see last_step_direct
  std::vector<solver::PdRow> rows_;  ///< SolveDirectly's rows, one per PD actuator in order
  std::vector<int> row_;             ///< per actuator: its row in rows_, -1 for force ones
  /// Per PD actuator: its row's gain terms (solver::CalcPdRowGainTerms) for the step
  /// gain_terms_dt_ [s] and gain_terms_theta_q_, made again only when those change.
  std::vector<solver::PdRowGainTerms> gain_terms_;
  double gain_terms_dt_ = 0.0, gain_terms_theta_q_ = -1.0;
  solver::PdRowsDirectScratch direct_;  ///< SolveDirectly's scratch and its rows' impulses
};

}  // namespace csim::contact
