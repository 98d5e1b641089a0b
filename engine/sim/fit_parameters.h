#pragma once
// The parameters of `csim fit` (trajectory_fit.h, "Parameters"): the --param paths (and
// --fit-initial-state's) parsed into shared log parameters and per-run initial-state
// linear ones, the shared ones' start values, and the rotation offsets by which an
// initial-state q[i] of a free or ball joint moves its initial orientation.

#include <Eigen/Dense>

#include <string>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/fit_coordinates.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::sim {

/// A fitted parameter.
struct FitParameter {
  std::string path;
  int run = -1;            ///< -1: shared (set by --set PATH=VALUE); else its run
  bool initial_q = false;  ///< joints.NAME.q[i]
  bool initial_v = false;  ///< joints.NAME.v[i]
  int coordinate = -1;     ///< the tangent coordinate of an initial-state parameter
};

/// The requested parameters, before they are given to the runs.
struct RequestedParameters {
  std::vector<FitParameter> shared;  ///< in --param order
  /// Templates of every run's initial-state parameters (run -1): the --param ones in order,
  /// then --fit-initial-state's that --param does not name (per joint: q[0..nv), v[0..nv)).
  std::vector<FitParameter> initial_state;
};

/// Parses options.parameters (and adds options.fit_initial_state's); a path
/// ParseSensitivityPath refuses is refused at "--param" with its message.
RequestedParameters ParseFitParameters(const multibody::Model& model,
                                       const TrajectoryFitOptions& options);

/// The scene's value of a shared (positive) parameter, read by its (accepted) path: a
/// material's friction, dissipation_time, hunt_crossley or stiffness, a body's mass. NaN
/// when the path names no value known here.
double SharedStartValue(const multibody::Model& model, const std::string& path);

/// The rotation offset delta of a free or ball joint's initial orientation (q0 = q_ref (+)
/// delta): its parameters' columns are the sensitivities to the three rotation tangents at
/// q0 times the rotation's Jacobian at delta, since Exp(delta + eps e_k) = Exp(J_l(delta)
/// eps e_k) Exp(delta) (free: Exp(delta) (x) q_ref, a left tangent) and
/// Exp(delta) Exp(J_r(delta) eps e_k) (ball: q_ref (x) Exp(delta), a right tangent).
struct RotationOffset {
  bool right = false;  ///< a ball joint
  int column[3];       ///< the run's sensitivity columns of the three tangents
  int param[3];        ///< the parameter of each offset component, -1 if not fitted
};

/// The rotation offsets of run `run`, whose sensitivity columns are `columns` (indices
/// into `params`) with their `paths`: one per free or ball joint with a fitted q[0..2]. A
/// tangent the run does not ask for yet is appended to `columns` (as -1: no parameter's
/// column) and `paths`, since the offset's columns need all three.
std::vector<RotationOffset> AddRotationOffsets(const multibody::Model& model,
                                               const std::vector<FitParameter>& params,
                                               int run, std::vector<int>* columns,
                                               std::vector<std::string>* paths);

/// J_l(d) = I + (1 - cos a)/a^2 [d]x + (a - sin a)/a^3 [d]x^2, a = |d|; J_r(d) = J_l(-d)
/// (`right`).
Eigen::Matrix3d RotationJacobian(const Eigen::Vector3d& d, bool right);

/// Turns the run's sensitivities S (nv x columns, to the unit tangents at q0) into ones to
/// its rotation offsets at p: the three tangent columns of each offset times its Jacobian.
void ApplyRotationOffsets(const std::vector<RotationOffset>& rotations,
                          const Eigen::VectorXd& p, Eigen::MatrixXd* S);

/// A run's initial state at p: q_ref moved by its rotation offsets (RetractConfiguration)
/// and its additive q[i], v_ref with its v[i]. `columns` are the run's sensitivity columns
/// (indices into `params` and p; the -1 of a rotation tangent that is no parameter is
/// skipped).
void InitialStateAt(const multibody::Model& model, const FitCoordinates& coordinates,
                    const std::vector<FitParameter>& params, const std::vector<int>& columns,
                    const Eigen::VectorXd& q_ref, const Eigen::VectorXd& v_ref,
                    const Eigen::VectorXd& p, Eigen::VectorXd* q0, Eigen::VectorXd* v0);

}  // namespace csim::sim
