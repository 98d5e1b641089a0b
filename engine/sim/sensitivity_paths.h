#pragma once
// The parameter paths of `csim run --sensitivities PATH[,PATH...]` (cli.md,
// docs/design/sensitivities.md §9): each names one column of the forward sensitivities
// (integrator::TrajectorySensitivity), in the scene's own path syntax (`--set`):
//   materials.NAME.friction | materials.NAME.dissipation_time | materials.NAME.hunt_crossley
//   materials.NAME.stiffness              (finite: .inf has no derivative)
//   bodies.NAME.mass                      (a body given a mass, not a density: the
//                                          derivative of what `--set bodies.NAME.mass`
//                                          changes)
//   joints.NAME.q[i] | joints.NAME.v[i]   (initial state coordinate i of joint NAME; a free
//                                          body's joint is named after the body)
// A bad path is an InputError located at the flag ("--sensitivities: 'PATH' ...").

#include <string>
#include <vector>

#include "engine/integrator/trajectory_sensitivity.h"
#include "engine/multibody/model.h"

namespace csim::sim {

/// The column `path` names in `model`; throws InputError({"--sensitivities"}) saying what is
/// wrong and what is accepted.
integrator::SensitivityParameter ParseSensitivityPath(const multibody::Model& model,
                                                       const std::string& path);

/// Splits the flag's arguments at commas (repeatable flag) into paths, in order; an empty
/// path is an error.
std::vector<std::string> SplitSensitivityPaths(const std::vector<std::string>& arguments);

/// Every path parsed, in order; duplicates are an error.
std::vector<integrator::SensitivityParameter> ParseSensitivityPaths(
    const multibody::Model& model, const std::vector<std::string>& paths);

}  // namespace csim::sim
