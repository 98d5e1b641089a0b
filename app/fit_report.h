#pragma once
// The outputs of `csim fit` (docs/cli.md, "Options of `fit`"): the report printed on
// stdout and the file FIT.h5 (docs/output-format.md, "Fit files").

#include <string>
#include <vector>

#include "engine/sim/trajectory_fit.h"

namespace csim::app {

/// Prints the report of fit `r` of `scene` to `data` on stdout: the problem's size and
/// weighting (`weighted`: by options.sigma_*), the status, a table of the parameters, the
/// correlations, singular values and unidentifiable directions, the steps near non-smooth
/// points, parameters held by a bound or that no longer act and the fitted --set lines.
void PrintFitReport(const std::string& scene, const std::vector<sim::Measurement>& data,
                    const sim::TrajectoryFitOptions& options, bool weighted,
                    const sim::TrajectoryFitResult& r);

/// Writes fit `r` to `path` in the group /fit, with its request: the scene, the data
/// files, the observed joints and sigma {position [m], angle [rad]}. Throws IoError.
void WriteFitFile(const std::string& path, const std::string& scene,
                  const std::vector<std::string>& data, const std::vector<std::string>& observed,
                  const double sigma[2], const sim::TrajectoryFitResult& r);

}  // namespace csim::app
