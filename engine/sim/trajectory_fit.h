#pragma once
// The fitting driver of `csim fit` (docs/cli.md, docs/design/sensitivities.md "csim fit"):
// material parameters of a scene fitted to measured joint coordinates by Levenberg-Marquardt
// (engine/fit) with the Jacobian from the run's forward sensitivities (Settings::
// sensitivities).
//
// Each evaluation at parameters p builds the scene anew through the caller's SceneFactory
// with the overrides
//   user --set ..., settings.output.every=1, settings.duration=T (the last measurement
//   time used), settings.solver.relative_tolerance=1e-12, PATH_j=p_j (%.17g)
// and runs Simulate into a MemoryRecorder with sensitivities for the paths. Residuals, one
// block of nv per measurement time t_i in the window:
//   e_i = q_sim(t_i) (-) q_meas(t_i)   (ConfigurationDifference: the tangent at q_meas,
//                                       so rotations are handled; a free body's block is
//                                       [rotation vector in rad; position in m])
// unweighted: positions in m, angles in rad, every coordinate and time alike (noise-free
// or equally noisy data; a weighting is for later). A measurement time that is not a
// simulated row time (to 1e-9 s) takes the linear blend of the residuals and sensitivities
// of the two rows around it. The Jacobian de_i/dp = dq/dp (tangent at q_sim, Row::
// sensitivity.dq): the Gauss-Newton approximation that drops the d(-)/dq_sim correction,
// exact at zero residual (second order in the residual otherwise).
//
// Parameters: materials.NAME.friction | dissipation_time | hunt_crossley only (positive: the
// LM core works on ln p). Initial-state paths (joints.NAME.q[i] | v[i]) need a linear
// parameterisation the core does not have yet and are refused; so is a parameter starting
// at 0 (say dissipation_time 0: give a positive start with --set).
//
// Identifiability is checked at the start, before any iteration: a parameter whose column
// of de/d ln p is (numerically) zero, or a direction of the column-scaled Jacobian with a
// singular value below 1e-6 of the largest (fit_statistics.h), is refused with an
// InputError located at "--param" naming the parameter or the combination.

#include <Eigen/Dense>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/fit/fit_statistics.h"
#include "engine/fit/levenberg_marquardt.h"
#include "engine/multibody/model.h"
#include "engine/sim/settings.h"

namespace csim::sim {

/// Measured joint coordinates (a csim output's /time and /state/q).
struct Measurement {
  std::string source;              ///< file name, for messages
  std::vector<double> time;        ///< (N) ascending [s]
  std::vector<Eigen::VectorXd> q;  ///< (N) each nq, the scene's coordinate layout
};

struct TrajectoryFitOptions {
  std::vector<std::string> parameters;  ///< --param paths, in order
  std::vector<std::string> overrides;   ///< the user's --set arguments, applied first
  double window_begin = -std::numeric_limits<double>::infinity();  ///< [s]
  double window_end = std::numeric_limits<double>::infinity();     ///< [s]
  int max_iterations = 50;
  double solver_relative_tolerance = 1e-12;
};

/// Builds the model and settings of the scene with these --set overrides; throws
/// InputError for an invalid value.
using SceneFactory = std::function<void(const std::vector<std::string>& overrides,
                                        multibody::Model* model, Settings* settings)>;

struct TrajectoryFitResult {
  std::vector<std::string> parameters;  ///< (n) the paths
  Eigen::VectorXd start;                ///< (n) starting values (the scene's, after --set)
  int num_samples = 0;                  ///< measurement times in the window
  int num_residuals = 0;                ///< m = num_samples * nv
  fit::LevenbergMarquardtResult lm;
  fit::FitStatistics statistics;
  /// At the last Jacobian evaluation (the final point): steps near non-smooth points (a
  /// column differenced one-sided or straddling a change of contact set, or a kink distance
  /// below 1e-6: /sensitivity/near_kink), and the smallest kink distance (1: none).
  int kink_steps = 0;
  double min_kink_distance = 1.0;
  /// "--set PATH=VALUE" lines of the fitted values.
  std::vector<std::string> SetLines() const;
};

/// Fits; throws InputError for a refused request (a bad or unsupported path, an
/// unidentifiable parameter, a measurement that does not fit the scene, a scene that does
/// not run at the start). A fit that ends without converging is not an error: see lm.status.
TrajectoryFitResult FitTrajectory(const SceneFactory& factory, const Measurement& data,
                                  const TrajectoryFitOptions& options);

}  // namespace csim::sim
