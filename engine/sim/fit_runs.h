#pragma once
// The runs of `csim fit` (trajectory_fit.h, "Runs"): one per measurement, with its
// measurement times in the window, the state it starts from and the sensitivity columns it
// asks for.

#include <Eigen/Dense>

#include <string>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/fit_coordinates.h"
#include "engine/sim/fit_parameters.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::sim {

/// A run: one measurement, its samples, where it starts, which columns it asks for.
struct FitRun {
  const Measurement* data = nullptr;
  std::vector<int> samples;      ///< indices into data->time in the window
  double t0 = 0.0;               ///< the data time at the run's t = 0 [s]
  double end_time = 0.0;         ///< the run's duration [s]
  Eigen::VectorXd q_ref, v_ref;  ///< (nq), (nv) its initial state before its parameters
  bool set_initial = false;      ///< whether its initial state is written into the model
  /// Its sensitivity columns: indices of the shared parameters, then of its own, then -1
  /// for any rotation tangent a rotation offset needs besides; `paths` has their paths.
  std::vector<int> columns;
  std::vector<std::string> paths;
  std::vector<RotationOffset> rotations;
};

/// The run of measurement `data`: checks that it fits the scene (lengths, widths, the
/// observed joints given), selects its samples in the window and sets where it starts
/// (options.initial_state). Throws InputError naming the data file (or the flag) for a
/// measurement that does not fit or a window that leaves nothing to fit.
FitRun SetUpRun(const multibody::Model& model, const Measurement& data,
                const TrajectoryFitOptions& options, const ObservedCoordinates& observed);

/// Gives every run its columns: the shared parameters (params[0..num_shared)), then its own
/// copy of each initial-state template, appended to `params` with its run, then the tangents
/// its rotation offsets need.
void AssignRunColumns(const multibody::Model& model, int num_shared,
                      const std::vector<FitParameter>& initial_state_templates,
                      std::vector<FitParameter>* params, std::vector<FitRun>* runs);

}  // namespace csim::sim
