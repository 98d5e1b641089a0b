#include "app/fit_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app/exit_codes.h"
#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "engine/io/hdf5_file.h"
#include "engine/io/scene_loader.h"
#include "engine/sim/sensitivity_paths.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::app {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
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
    char* stop = nullptr;
    const double x = std::strtod(s.c_str(), &stop);
    if (stop == s.c_str() || *stop != '\0' || !std::isfinite(x)) bad();
    return x;
  };
  *begin = number(text.substr(0, colon), -INFINITY);
  *end = number(text.substr(colon + 1), INFINITY);
  if (!(*begin < *end)) bad();
}

void ReadCsv(const std::string& path, MeasurementFile* out) {
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot open");
  std::string line;
  int line_number = 0;
  size_t width = 0;
  while (std::getline(in, line)) {
    ++line_number;
    for (char& c : line) {
      if (c == ',' || c == ';' || c == '\t' || c == '\r') c = ' ';
    }
    std::istringstream s(line);
    std::vector<double> values;
    double x;
    while (s >> x) values.push_back(x);
    if (values.empty()) {
      // Blank, a comment or a header; after the first row of numbers only blanks and
      // comments may follow.
      const size_t first = line.find_first_not_of(' ');
      if (out->time.empty() || first == std::string::npos || line[first] == '#') continue;
      throw InputError({path, line_number, 0},
                       "expected a row of numbers: t, then the coordinates");
    }
    if (!s.eof()) {
      if (out->time.empty()) continue;  // a header line that starts with a number
      throw InputError({path, line_number, 0},
                       "expected a row of numbers: t, then the coordinates (a value is not a "
                       "number)");
    }
    for (double value : values) {
      if (!std::isfinite(value))
        throw InputError({path, line_number, 0}, "holds a value that is not finite");
    }
    if (width == 0) width = values.size();
    if (values.size() != width || width < 2) {
      throw InputError({path, line_number, 0},
                       "has " + std::to_string(values.size()) + " values; the first row " +
                           std::to_string(width) + " (t and at least one coordinate)");
    }
    if (!out->time.empty() && !(values[0] > out->time.back())) {
      throw InputError({path, line_number, 0},
                       "time " + std::to_string(values[0]) + " does not increase (the row " +
                           "before is at " + std::to_string(out->time.back()) + ")");
    }
    out->time.push_back(values[0]);
    out->q.emplace_back(values.begin() + 1, values.end());
    out->lines.push_back(line_number);
  }
}

void ReadHdf5(const std::string& path, MeasurementFile* out) {
  io::Hdf5File file = io::Hdf5File::Open(path, io::Hdf5File::Mode::kReadOnly);
  if (!file.Exists("time") || !file.Exists("state/q")) {
    throw InputError({path, 0, 0}, "not a csim output: /time or /state/q is missing");
  }
  out->time = file.OpenDataset("time").ReadDoubles();
  const io::Hdf5Dataset qd = file.OpenDataset("state/q");
  const std::vector<double> flat = qd.ReadDoubles();
  const size_t nq = qd.row_size();
  size_t rows = std::min<size_t>(out->time.size(), qd.rows());
  std::vector<double> vflat;
  size_t nv = 0;
  if (file.Exists("state/v")) {
    const io::Hdf5Dataset vd = file.OpenDataset("state/v");
    vflat = vd.ReadDoubles();
    nv = vd.row_size();
    rows = std::min<size_t>(rows, vd.rows());
  }
  out->time.resize(rows);
  for (size_t i = 0; i < rows; ++i) {
    out->q.emplace_back(flat.begin() + i * nq, flat.begin() + (i + 1) * nq);
    if (nv > 0) out->v.emplace_back(vflat.begin() + i * nv, vflat.begin() + (i + 1) * nv);
  }
}

// Comma-separated items of repeatable flag arguments; an empty item is an error at `flag`.
std::vector<std::string> SplitItems(const std::vector<std::string>& arguments,
                                    const std::string& flag) {
  std::vector<std::string> out;
  for (const std::string& argument : arguments) {
    size_t start = 0;
    for (;;) {
      const size_t comma = argument.find(',', start);
      std::string item =
          argument.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (item.empty()) throw InputError({flag, 0, 0}, "empty item in '" + argument + "'");
      out.push_back(std::move(item));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
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
    char* stop = nullptr;
    const double x = std::strtod(s.c_str(), &stop);
    if (s.empty() || stop == s.c_str() || *stop != '\0' || !std::isfinite(x) || !(x > 0.0))
      bad();
    return x;
  };
  *position = number(text.substr(0, comma));
  *angle = number(text.substr(comma + 1));
}

// The file's rows in the scene's layout. A row holds t and either all nq coordinates or,
// with --observe, only the observed joints' coordinates (each joint's nq in --observe
// order); then the other joints' entries are the scene's initial coordinates, which enter
// no residual.
sim::Measurement ToMeasurement(const std::string& path, const MeasurementFile& file,
                               const multibody::Model& model,
                               const std::vector<std::string>& observe) {
  sim::Measurement m;
  m.source = path;
  m.time = file.time;
  const int width = static_cast<int>(file.q.front().size());
  int observed_nq = 0;
  std::vector<int> observed_joints;
  for (const std::string& name : observe) {
    const int j = model.FindJoint(name);
    if (j < 0) {
      throw InputError({"--observe", 0, 0}, "'" + name + "' names no joint of the scene (a "
                                            "free body's joint is named after the body)");
    }
    observed_joints.push_back(j);
    observed_nq += model.joints[j].q_start >= 0 ? model.joints[j].nq : 0;
  }
  const bool partial = !file.lines.empty() && width != model.nq && !observe.empty() &&
                       width == observed_nq;
  if (!file.lines.empty() && width != model.nq && !partial) {
    std::string expected = "t and the scene's " + std::to_string(model.nq) +
                           " joint coordinates q_0 ... q_" + std::to_string(model.nq - 1);
    if (!observe.empty()) {
      expected += ", or t and the observed joints' " + std::to_string(observed_nq) +
                  " coordinates in --observe order";
    }
    throw InputError({path, file.lines.front(), 0},
                     "has " + std::to_string(width) + " coordinates after t; expected " +
                         expected);
  }
  const Eigen::VectorXd scene_q = model.InitialQ();
  for (const std::vector<double>& row : file.q) {
    if (!partial) {
      m.q.emplace_back(Eigen::Map<const Eigen::VectorXd>(row.data(), row.size()));
      continue;
    }
    Eigen::VectorXd q = scene_q;
    int column = 0;
    for (int j : observed_joints) {
      const multibody::Joint& joint = model.joints[j];
      if (joint.q_start < 0) continue;
      q.segment(joint.q_start, joint.nq) =
          Eigen::Map<const Eigen::VectorXd>(row.data() + column, joint.nq);
      column += joint.nq;
    }
    m.q.push_back(q);
  }
  if (partial) m.joints = observe;
  for (const std::vector<double>& row : file.v)
    m.v.emplace_back(Eigen::Map<const Eigen::VectorXd>(row.data(), row.size()));
  return m;
}

void WriteDoubles(io::Hdf5Group& group, const std::string& name, const double* data,
                  size_t rows, const std::vector<hsize_t>& row_shape) {
  io::Hdf5Dataset d = group.CreateExtendible(name, io::Hdf5Type::kFloat64, row_shape,
                                             std::max<hsize_t>(1, rows), 0);
  d.AppendRows(data, rows);
}

void WriteFitFile(const std::string& path, const std::string& scene,
                  const std::vector<std::string>& data, const std::vector<std::string>& observed,
                  const double sigma[2], const sim::TrajectoryFitResult& r) {
  const int n = static_cast<int>(r.parameters.size());
  const int d = r.num_runs;
  io::Hdf5File file = io::Hdf5File::Create(path);
  {
    io::Hdf5Group g = file.CreateGroup("fit");
    g.CreateString("scene", scene);
    g.CreateStringList("data", data);
    g.CreateString("status", fit::FitStatusName(r.lm.status));
    g.CreateStringList("parameters", r.parameters);
    g.CreateIntList("parameter_data", std::vector<int32_t>(r.run.begin(), r.run.end()));
    std::vector<std::string> scales;
    for (fit::ParameterScale scale : r.scale)
      scales.push_back(scale == fit::ParameterScale::kLog ? "log" : "linear");
    g.CreateStringList("scales", scales);
    std::vector<std::string> verdicts;
    for (fit::ParameterVerdict v : r.statistics.verdict) {
      verdicts.push_back(fit::ParameterVerdictName(v));
    }
    for (const int j : r.vanished) verdicts[j] = "no longer acts";
    g.CreateStringList("verdicts", verdicts);
    g.CreateStringList("set", r.SetLines());
    g.CreateStringList("observed", observed);
    WriteDoubles(g, "sigma", sigma, 2, {});
    WriteDoubles(g, "start", r.start.data(), n, {});
    WriteDoubles(g, "values", r.lm.p.data(), n, {});
    WriteDoubles(g, "standard_errors", r.statistics.standard_error_p.data(), n, {});
    // Row-major n x n (symmetric anyway).
    const Eigen::MatrixXd corr = r.statistics.correlation.transpose();
    WriteDoubles(g, "correlations", corr.data(), n, {hsize_t(n)});
    WriteDoubles(g, "singular_values", r.statistics.singular_values.data(),
                 r.statistics.singular_values.size(), {});
    // Per data file: the data time of the run's start and its initial state, at the start
    // and at the fitted values (row-major d x nq, d x nv).
    WriteDoubles(g, "initial_time", r.run_t0.data(), d, {});
    auto rows = [&](const std::vector<Eigen::VectorXd>& x, const std::string& name) {
      const hsize_t width = x.empty() ? 0 : static_cast<hsize_t>(x.front().size());
      std::vector<double> flat;
      for (const Eigen::VectorXd& row : x) flat.insert(flat.end(), row.data(), row.data() + row.size());
      WriteDoubles(g, name, flat.data(), x.size(), {width});
    };
    rows(r.initial_q_start, "initial_q_start");
    rows(r.initial_v_start, "initial_v_start");
    rows(r.initial_q, "initial_q");
    rows(r.initial_v, "initial_v");
    std::vector<double> history;
    for (const fit::LevenbergMarquardtIteration& it : r.lm.history) {
      history.insert(history.end(), {it.cost, it.trial_cost, it.lambda, it.rho,
                                     it.step_norm, it.accepted ? 1.0 : 0.0});
    }
    WriteDoubles(g, "history", history.data(), r.lm.history.size(), {6});
    const double scalars[] = {r.lm.cost, static_cast<double>(r.lm.iterations),
                              static_cast<double>(r.num_residuals),
                              static_cast<double>(r.kink_steps), r.min_kink_distance};
    WriteDoubles(g, "summary", scalars, 5, {});
  }
  file.Close();
}

}  // namespace

MeasurementFile ReadMeasurement(const std::string& path) {
  MeasurementFile out;
  if (EndsWith(path, ".csv") || EndsWith(path, ".CSV")) {
    ReadCsv(path, &out);
  } else {
    ReadHdf5(path, &out);
  }
  if (out.time.empty()) throw InputError({path, 0, 0}, "holds no rows");
  for (size_t i = 1; i < out.time.size(); ++i) {
    if (!(out.time[i] > out.time[i - 1])) {
      throw InputError({path, 0, 0}, "times are not increasing (row " + std::to_string(i) + ")");
    }
  }
  return out;
}

int FitCommand(const FitOptions& options) {
  sim::TrajectoryFitOptions fit_options;
  fit_options.parameters = sim::SplitSensitivityPaths(options.params);
  fit_options.overrides = options.sets;
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
  const bool weighted = !options.sigma.empty();
  if (weighted) {
    ParseSigma(options.sigma, &fit_options.sigma_position, &fit_options.sigma_angle);
  }
  if (options.data.size() > 1 && fit_options.initial_state == sim::InitialState::kScene) {
    throw InputError({"--initial-state", 0, 0},
                     "several --data files (" + std::to_string(options.data.size()) +
                         ") with --initial-state scene would all start from the scene's one "
                         "initial state; give --initial-state data (each run starts at its "
                         "data's first sample in the window)");
  }

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

  const int n = static_cast<int>(r.parameters.size());
  const fit::FitStatistics& s = r.statistics;
  std::string sources;
  for (const sim::Measurement& m : data) sources += (sources.empty() ? "" : ", ") + m.source;
  char weighting[128];
  if (weighted) {
    std::snprintf(weighting, sizeof weighting, "weighted by 1/sigma, sigma %.3g m, %.3g rad",
                  fit_options.sigma_position, fit_options.sigma_angle);
  } else {
    std::snprintf(weighting, sizeof weighting, "m and rad, unweighted");
  }
  std::printf("fit of %s to %s: %d parameter%s, %d run%s, %d samples, %d residuals "
              "(q (-) q_meas of %d observed coordinates: %s)\n",
              options.scene.c_str(), sources.c_str(), n, n == 1 ? "" : "s", r.num_runs,
              r.num_runs == 1 ? "" : "s", r.num_samples, r.num_residuals,
              r.observed_coordinates, weighting);
  std::printf("status: %s after %d iterations (%d runs, %d with sensitivities); cost %.6g, "
              "rms residual %.6g, s^2 %.6g\n",
              fit::FitStatusName(r.lm.status), r.lm.iterations, r.lm.evaluations,
              r.lm.jacobian_evaluations, r.lm.cost,
              r.num_residuals > 0 ? std::sqrt(2.0 * r.lm.cost / r.num_residuals) : 0.0, s.s2);
  std::printf("%-44s %-24s %-12s %-12s %-12s %s\n", "parameter", "value", "std. error",
              "relative", "start", "verdict");
  for (int j = 0; j < n; ++j) {
    // The relative standard error of a log parameter; a linear one (an initial position or
    // velocity, often near 0) has none.
    char relative[32] = "-";
    if (r.scale[j] == fit::ParameterScale::kLog)
      std::snprintf(relative, sizeof relative, "%.4g", s.standard_error_eta[j]);
    std::printf("%-44s %-24.17g %-12.4g %-12s %-12.6g %s\n", r.Label(j).c_str(), r.lm.p[j],
                s.standard_error_p[j], relative, r.start[j],
                fit::ParameterVerdictName(s.verdict[j]));
  }
  if (n > 1 && n <= 12) {
    std::printf("correlations:\n");
    for (int i = 0; i < n; ++i) {
      std::printf("  %-44s", r.Label(i).c_str());
      for (int j = 0; j < n; ++j) std::printf(" %7.4f", s.correlation(i, j));
      std::printf("\n");
    }
  } else if (n > 12) {
    std::printf("correlations: %d x %d, in FIT.h5 (/fit/correlations)\n", n, n);
  }
  std::printf("singular values of the scaled Jacobian:");
  for (Eigen::Index k = 0; k < s.singular_values.size(); ++k) {
    std::printf(" %.4g", s.singular_values[k]);
  }
  std::printf("\n");
  std::vector<std::string> labels;
  for (int j = 0; j < n; ++j) labels.push_back(r.Label(j));
  if (s.unidentifiable.empty()) {
    std::printf("unidentifiable directions: none\n");
  } else {
    for (const fit::UnidentifiableDirection& d : s.unidentifiable) {
      std::printf("unidentifiable direction (ratio %.3g): %s\n", d.ratio,
                  fit::DescribeDirection(d.log_direction, labels).c_str());
    }
  }
  std::printf("steps near non-smooth points: %d (smallest kink distance %.3g)\n",
              r.kink_steps, r.min_kink_distance);
  for (const int j : r.vanished) {
    std::printf("no longer acts: %s = %.6g (its sensitivity vanished there: a minimum on the "
                "boundary of the parameter space, not an estimate)\n",
                r.Label(j).c_str(), r.lm.p[j]);
  }
  const std::vector<std::string> set_lines = r.SetLines();
  if (!set_lines.empty()) {
    std::printf("fitted values:\n");
    for (const std::string& line : set_lines) std::printf("  %s\n", line.c_str());
  }
  std::fflush(stdout);

  if (!options.output.empty()) {
    const double sigma[2] = {fit_options.sigma_position, fit_options.sigma_angle};
    std::vector<std::string> observed = fit_options.observe;
    if (observed.empty()) {
      for (const multibody::Joint& joint : scene.model.joints)
        if (joint.v_start >= 0) observed.push_back(joint.name);
    }
    WriteFitFile(options.output, options.scene, options.data, observed, sigma, r);
  }

  const bool converged = r.lm.status == fit::FitStatus::kConvergedStep ||
                         r.lm.status == fit::FitStatus::kConvergedGradient;
  if (!converged) {
    std::fprintf(stderr, "csim: error: the fit did not converge (%s)\n",
                 fit::FitStatusName(r.lm.status));
    return kExitSimFailed;
  }
  if (!r.vanished.empty()) {
    std::fprintf(stderr,
                 "csim: error: the fit ended where '%s' no longer acts (%.6g): not an "
                 "estimate; start closer to plausible values or leave it out\n",
                 r.Label(r.vanished.front()).c_str(), r.lm.p[r.vanished.front()]);
    return kExitSimFailed;
  }
  return kExitCompleted;
}

}  // namespace csim::app
