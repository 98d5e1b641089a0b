#pragma once
// The tangent coordinates of `csim fit` (trajectory_fit.h): what each of the model's nv
// tangent coordinates is (rotation or translation, where its q coordinate lives, which
// joint owns it), and which of them the residuals observe with what weight.

#include <Eigen/Dense>

#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::sim {

/// Per tangent coordinate of the model (each vector has nv entries).
struct FitCoordinates {
  /// Whether it is a rotation [rad] (weighted by sigma_angle) rather than a translation [m].
  std::vector<bool> rotation;
  /// Its q coordinate where q moves by plain addition there; -1 for a quaternion's rotation
  /// tangent, whose q[i] parameter is an offset rotation vector (fit_parameters.h).
  std::vector<int> q_index;
  /// The joint owning it (-1: none).
  std::vector<int> joint;
};

/// Describes every tangent coordinate of `model`.
FitCoordinates DescribeCoordinates(const multibody::Model& model);

/// The tangent coordinates that enter the residuals and their weights.
struct ObservedCoordinates {
  std::vector<bool> joint;   ///< (joints) whether the joint is observed
  std::vector<int> index;    ///< the observed tangent coordinates, ascending
  Eigen::VectorXd weight;    ///< (index.size()) 1/sigma_angle or 1/sigma_position
};

/// The joints of options.observe (every joint with coordinates when empty), their tangent
/// coordinates and weights; throws InputError at "--observe" for an unknown joint, one
/// without coordinates or one given twice.
ObservedCoordinates SelectObservedCoordinates(const multibody::Model& model,
                                              const FitCoordinates& coordinates,
                                              const TrajectoryFitOptions& options);

}  // namespace csim::sim
