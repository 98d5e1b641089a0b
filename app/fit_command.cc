// `csim fit` (fit_command.h): the command line turned into a fit request, the measurements
// read (measurement_file.h), the fit run (engine/sim/trajectory_fit.h), its report printed
// and FIT.h5 written (fit_report.h), and the exit status.

#include "app/fit_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "app/exit_codes.h"
#include "app/fit_report.h"
#include "app/measurement_file.h"
#include "engine/common/comma_separated.h"
#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"
#include "engine/sim/sensitivity_paths.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::app {
namespace {

// Whether all of `text` is one finite number (strtod's syntax); an empty text is not.
bool ParseFiniteNumber(const std::string& text, double* x) {
  char* stop = nullptr;
  *x = std::strtod(text.c_str(), &stop);
  return stop != text.c_str() && *stop == '\0' && std::isfinite(*x);
}

// "T0:T1" with either side possibly empty.
void ParseWindow(const std::string& text, double* begin, double* end) {
  const size_t colon = text.find(':');
  auto bad = [&]() {
    throw InputError({"--window", 0, 0},
                     "'" + text + "': expected T0:T1 in seconds (either side may be empty)");
  };
  if (colon == std::string::npos) bad();
  auto number = [&](const std::string& s, double fallback) {
    if (s.empty()) return fallback;
    double x;
    if (!ParseFiniteNumber(s, &x)) bad();
    return x;
  };
  *begin = number(text.substr(0, colon), -INFINITY);
  *end = number(text.substr(colon + 1), INFINITY);
  if (!(*begin < *end)) bad();
}

// "POSITION,ANGLE" in m and rad, both positive.
void ParseSigma(const std::string& text, double* position, double* angle) {
  const size_t comma = text.find(',');
  auto bad = [&]() {
    throw InputError({"--sigma", 0, 0},
                     "'" + text + "': expected POSITION,ANGLE, the measurement noise in m and "
                     "rad, both positive (e.g. 1e-3,1e-2)");
  };
  if (comma == std::string::npos) bad();
  auto number = [&](const std::string& s) {
    double x;
    if (!ParseFiniteNumber(s, &x) || !(x > 0.0)) bad();
    return x;
  };
  *position = number(text.substr(0, comma));
  *angle = number(text.substr(comma + 1));
}

// "PATH=LO:HI" in the parameter's unit, either side possibly empty (open). The checks
// against the parameters (a --param path, LO < HI, LO >= 0, the start inside) are the
// fit's (trajectory_fit.h), so that every caller gets them.
sim::ParameterBound ParseBound(const std::string& text) {
  const size_t equals = text.find('=');
  const size_t colon = equals == std::string::npos ? equals : text.find(':', equals + 1);
  if (equals == 0 || colon == std::string::npos) {
    throw InputError({"--bound", 0, 0},
                     "'" + text + "': expected PATH=LO:HI in the parameter's unit (either "
                     "side may be empty, e.g. materials.box.friction=0.05:)");
  }
  sim::ParameterBound bound;
  bound.path = text.substr(0, equals);
  auto number = [&](const std::string& s, double fallback) {
    if (s.empty()) return fallback;
    double x;
    if (!ParseFiniteNumber(s, &x)) {
      throw InputError({"--bound", 0, 0},
                       "'" + text + "': '" + s + "' is not a finite number; expected "
                       "PATH=LO:HI (either side may be empty)");
    }
    return x;
  };
  bound.lo = number(text.substr(equals + 1, colon - equals - 1), bound.lo);
  bound.hi = number(text.substr(colon + 1), bound.hi);
  return bound;
}

// Comma-separated items of repeatable flag arguments; an empty item is an error at `flag`.
std::vector<std::string> SplitItems(const std::vector<std::string>& arguments,
                                    const std::string& flag) {
  return SplitCommaSeparated(arguments, [&](const std::string& argument) {
    throw InputError({flag, 0, 0}, "empty item in '" + argument + "'");
  });
}

// The fit request of the command line; refuses bad flag values and several data files
// starting from the scene's one state, before anything is read.
sim::TrajectoryFitOptions ToFitOptions(const FitOptions& options) {
  sim::TrajectoryFitOptions fit_options;
  fit_options.parameters = sim::SplitSensitivityPaths(options.params);
  fit_options.overrides = options.sets;
  for (const std::string& text : options.bounds) fit_options.bounds.push_back(ParseBound(text));
  fit_options.max_iterations = options.max_iterations;
  fit_options.fit_initial_state = options.fit_initial_state;
  fit_options.observe = SplitItems(options.observe, "--observe");
  if (!options.window.empty()) {
    ParseWindow(options.window, &fit_options.window_begin, &fit_options.window_end);
  }
  if (options.initial_state == "data") {
    fit_options.initial_state = sim::InitialState::kData;
  } else if (!options.initial_state.empty() && options.initial_state != "scene") {
    throw InputError({"--initial-state", 0, 0},
                     "'" + options.initial_state + "': expected scene or data");
  }
  if (!options.sigma.empty()) {
    ParseSigma(options.sigma, &fit_options.sigma_position, &fit_options.sigma_angle);
  }
  if (options.data.size() > 1 && fit_options.initial_state == sim::InitialState::kScene) {
    throw InputError({"--initial-state", 0, 0},
                     "several --data files (" + std::to_string(options.data.size()) +
                         ") with --initial-state scene would all start from the scene's one "
                         "initial state; give --initial-state data (each run starts at its "
                         "data's first sample in the window)");
  }
  return fit_options;
}

// The observed joints as FIT.h5 records them: --observe's, else every joint with
// coordinates.
std::vector<std::string> ObservedJoints(const multibody::Model& model,
                                        const std::vector<std::string>& observe) {
  if (!observe.empty()) return observe;
  std::vector<std::string> observed;
  for (const multibody::Joint& joint : model.joints)
    if (joint.v_start >= 0) observed.push_back(joint.name);
  return observed;
}

// kExitCompleted for a fit that converged to an estimate; else kExitSimFailed with the
// reason on stderr.
int ExitStatus(const sim::TrajectoryFitResult& r) {
  const bool converged = r.lm.status == fit::FitStatus::kConvergedStep ||
                         r.lm.status == fit::FitStatus::kConvergedGradient;
  if (!converged) {
    std::fprintf(stderr, "csim: error: the fit did not converge (%s)\n",
                 fit::FitStatusName(r.lm.status));
    return kExitSimFailed;
  }
  if (const int j = r.FirstNoLongerActing(); j >= 0) {
    std::fprintf(stderr,
                 "csim: error: the fit ended where '%s' no longer acts (%.6g): not an "
                 "estimate; start closer to plausible values or leave it out\n",
                 r.Label(j).c_str(), r.lm.p[j]);
    return kExitSimFailed;
  }
  return kExitCompleted;
}

}  // namespace

int FitCommand(const FitOptions& options) {
  const sim::TrajectoryFitOptions fit_options = ToFitOptions(options);

  // Load once first: a bad scene is reported before the measurements are read.
  const io::LoadedScene scene = io::LoadScene(options.scene, options.sets);
  std::vector<sim::Measurement> data;
  for (const std::string& path : options.data) {
    data.push_back(ToMeasurement(path, ReadMeasurement(path), scene.model, fit_options.observe));
  }
  const sim::SceneFactory factory = [&](const std::vector<std::string>& overrides,
                                        multibody::Model* model, sim::Settings* settings) {
    io::LoadedScene loaded = io::LoadScene(options.scene, overrides);
    *model = std::move(loaded.model);
    *settings = std::move(loaded.settings);
  };
  const sim::TrajectoryFitResult r = sim::FitTrajectory(factory, data, fit_options);

  PrintFitReport(options.scene, data, fit_options, !options.sigma.empty(), r);
  if (!options.output.empty()) {
    const double sigma[2] = {fit_options.sigma_position, fit_options.sigma_angle};
    WriteFitFile(options.output, options.scene, options.data,
                 ObservedJoints(scene.model, fit_options.observe), sigma, r);
  }
  return ExitStatus(r);
}

}  // namespace csim::app
