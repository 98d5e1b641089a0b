#pragma once
// The model function of `csim fit` (trajectory_fit.h, "Each evaluation" and "Residuals"):
// at a parameter vector p, builds the scene, simulates every run (with sensitivities when
// the Jacobian is wanted) and stacks the weighted residuals q_sim (-) q_meas at the
// measurement times and their Jacobian de/dp.

#include <Eigen/Dense>

#include <string>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/fit_coordinates.h"
#include "engine/sim/fit_parameters.h"
#include "engine/sim/fit_runs.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/settings.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::sim {

/// Evaluates the residuals of all runs at parameter vectors p (n = params.size(), ordered
/// as params). Keeps the model of the last p's shared values, so that an evaluation at the
/// same shared values (every run of one evaluation; LM's Jacobian after an accepted trial)
/// builds no scene. The references must outlive the evaluator.
class FitEvaluator {
 public:
  FitEvaluator(const SceneFactory& factory, const TrajectoryFitOptions& options,
               const std::vector<FitParameter>& params, std::vector<FitRun> runs,
               const FitCoordinates& coordinates, ObservedCoordinates observed);

  /// m: measurement times of all runs x observed coordinates.
  int num_residuals() const;

  /// Run r's initial state at p (q0: nq, v0: nv); needs a successful Build.
  void InitialState(int r, const Eigen::VectorXd& p, Eigen::VectorXd* q0,
                    Eigen::VectorXd* v0) const;

  /// Builds the scene at p's shared values (the user's overrides, then PATH=p_j), unless
  /// the last build was at the same ones. Returns false with `reason` (if not null) when the
  /// factory refuses the values.
  bool Build(const Eigen::VectorXd& p, std::string* reason);

  /// Runs every run at p; fills e (m) and, with want_jacobian, de_dp (m x n) and the kink
  /// counts. Returns false with `reason` (if not null) when the scene does not load, a run
  /// fails or a value is not finite.
  bool Evaluate(const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
                Eigen::MatrixXd* de_dp, std::string* reason);

  /// At the last Jacobian evaluation: steps near non-smooth points and the smallest kink
  /// distance (1: none) over all runs (TrajectoryFitResult::kink_steps).
  int kink_steps() const { return kink_steps_; }
  double min_kink_distance() const { return min_kink_distance_; }
  /// At the last Jacobian evaluation, per parameter: for a material's friction, the lower
  /// bound its contacts' impulses put on it over the steps of every run's window (the rows
  /// after its first measurement time: SensitivityRow::friction_bound); -inf for the other
  /// parameters and a material whose contacts carried no normal impulse there.
  const std::vector<double>& friction_bounds() const { return friction_bound_; }

 private:
  // Simulates run r at p into `recorder`, with its sensitivity columns when want_jacobian.
  bool SimulateRun(int r, const Eigen::VectorXd& p, bool want_jacobian,
                   MemoryRecorder* recorder, std::string* reason) const;
  // Adds the residual block (and Jacobian block) of run r's sample i at rows `block` on.
  void AddSample(const FitRun& run, int i, const std::vector<Row>& rows, int k, double w,
                 const Eigen::VectorXd& p, int block, Eigen::VectorXd* e,
                 Eigen::MatrixXd* de_dp) const;
  // " (DATA FILE)" naming the run in messages when there are several, else "".
  std::string InRun(const FitRun& run) const;
  // Counts the run's steps near non-smooth points into the kink statistics.
  void CountKinks(const std::vector<Row>& rows);
  // Raises friction_bound_ by the run's rows in its window.
  void BoundFriction(const FitRun& run, const std::vector<Row>& rows);

  const SceneFactory& factory_;
  const TrajectoryFitOptions& options_;
  const std::vector<FitParameter>& params_;
  std::vector<FitRun> runs_;
  const FitCoordinates& coordinates_;
  ObservedCoordinates observed_;
  // The scene at the shared values built_shared_ (valid when built_).
  multibody::Model model_;
  Settings settings_;
  bool built_ = false;
  std::vector<double> built_shared_;
  int kink_steps_ = 0;
  double min_kink_distance_ = 1.0;
  std::vector<double> friction_bound_;
};

}  // namespace csim::sim
