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

void ReadCsv(const std::string& path, std::vector<double>* time,
             std::vector<std::vector<double>>* q) {
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
    if (values.empty()) continue;  // blank, comment or header
    if (!s.eof()) {
      if (time->empty()) continue;  // a header line that starts with a number
      throw InputError({path, line_number, 0}, "expected numbers: t, q_0, ..., q_{nq-1}");
    }
    if (width == 0) width = values.size();
    if (values.size() != width || width < 2) {
      throw InputError({path, line_number, 0},
                       "has " + std::to_string(values.size()) + " values; the first row " +
                           std::to_string(width) + " (t and at least one coordinate)");
    }
    time->push_back(values[0]);
    q->emplace_back(values.begin() + 1, values.end());
  }
}

void ReadHdf5(const std::string& path, std::vector<double>* time,
              std::vector<std::vector<double>>* q) {
  io::Hdf5File file = io::Hdf5File::Open(path, io::Hdf5File::Mode::kReadOnly);
  if (!file.Exists("time") || !file.Exists("state/q")) {
    throw InputError({path, 0, 0}, "not a csim output: /time or /state/q is missing");
  }
  *time = file.OpenDataset("time").ReadDoubles();
  const io::Hdf5Dataset qd = file.OpenDataset("state/q");
  const std::vector<double> flat = qd.ReadDoubles();
  const size_t nq = qd.row_size();
  const size_t rows = std::min<size_t>(time->size(), qd.rows());
  time->resize(rows);
  for (size_t i = 0; i < rows; ++i) {
    q->emplace_back(flat.begin() + i * nq, flat.begin() + (i + 1) * nq);
  }
}

void WriteDoubles(io::Hdf5Group& group, const std::string& name, const double* data,
                  size_t rows, const std::vector<hsize_t>& row_shape) {
  io::Hdf5Dataset d = group.CreateExtendible(name, io::Hdf5Type::kFloat64, row_shape,
                                             std::max<hsize_t>(1, rows), 0);
  d.AppendRows(data, rows);
}

void WriteFitFile(const std::string& path, const std::string& scene,
                  const std::string& data, const sim::TrajectoryFitResult& r) {
  const int n = static_cast<int>(r.parameters.size());
  io::Hdf5File file = io::Hdf5File::Create(path);
  {
    io::Hdf5Group g = file.CreateGroup("fit");
    g.CreateString("scene", scene);
    g.CreateString("data", data);
    g.CreateString("status", fit::FitStatusName(r.lm.status));
    g.CreateStringList("parameters", r.parameters);
    std::vector<std::string> verdicts;
    for (fit::ParameterVerdict v : r.statistics.verdict) {
      verdicts.push_back(fit::ParameterVerdictName(v));
    }
    g.CreateStringList("verdicts", verdicts);
    g.CreateStringList("set", r.SetLines());
    WriteDoubles(g, "start", r.start.data(), n, {});
    WriteDoubles(g, "values", r.lm.p.data(), n, {});
    WriteDoubles(g, "standard_errors", r.statistics.standard_error_p.data(), n, {});
    // Row-major n x n (symmetric anyway).
    const Eigen::MatrixXd corr = r.statistics.correlation.transpose();
    WriteDoubles(g, "correlations", corr.data(), n, {hsize_t(n)});
    WriteDoubles(g, "singular_values", r.statistics.singular_values.data(),
                 r.statistics.singular_values.size(), {});
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

void ReadMeasurement(const std::string& path, std::vector<double>* time,
                     std::vector<std::vector<double>>* q) {
  time->clear();
  q->clear();
  if (EndsWith(path, ".csv") || EndsWith(path, ".CSV")) {
    ReadCsv(path, time, q);
  } else {
    ReadHdf5(path, time, q);
  }
  if (time->empty()) throw InputError({path, 0, 0}, "holds no rows");
  for (size_t i = 1; i < time->size(); ++i) {
    if (!((*time)[i] > (*time)[i - 1])) {
      throw InputError({path, 0, 0}, "times are not increasing (row " + std::to_string(i) + ")");
    }
  }
}

int FitCommand(const FitOptions& options) {
  if (options.fit_initial_state) {
    throw InputError({"--fit-initial-state", 0, 0},
                     "not supported yet: initial-state coordinates need a linear "
                     "parameterisation, and the fit works on ln p");
  }
  if (options.data.size() != 1) {
    throw InputError({"--data", 0, 0},
                     "give exactly one measurement file (ensemble fits over several are "
                     "not supported yet)");
  }
  sim::TrajectoryFitOptions fit_options;
  fit_options.parameters = sim::SplitSensitivityPaths(options.params);
  fit_options.overrides = options.sets;
  fit_options.max_iterations = options.max_iterations;
  if (!options.window.empty()) {
    ParseWindow(options.window, &fit_options.window_begin, &fit_options.window_end);
  }

  // Load once first: a bad scene is reported before the measurement is read.
  (void)io::LoadScene(options.scene, options.sets);
  sim::Measurement data;
  data.source = options.data[0];
  {
    std::vector<std::vector<double>> rows;
    ReadMeasurement(options.data[0], &data.time, &rows);
    for (const std::vector<double>& row : rows) {
      data.q.emplace_back(Eigen::Map<const Eigen::VectorXd>(row.data(), row.size()));
    }
  }
  const sim::SceneFactory factory = [&](const std::vector<std::string>& overrides,
                                        multibody::Model* model, sim::Settings* settings) {
    io::LoadedScene scene = io::LoadScene(options.scene, overrides);
    *model = std::move(scene.model);
    *settings = std::move(scene.settings);
  };
  const sim::TrajectoryFitResult r = sim::FitTrajectory(factory, data, fit_options);

  const int n = static_cast<int>(r.parameters.size());
  const fit::FitStatistics& s = r.statistics;
  std::printf("fit of %s to %s: %d parameter%s, %d samples, %d residuals (q (-) q_meas: "
              "m and rad, unweighted)\n",
              options.scene.c_str(), data.source.c_str(), n, n == 1 ? "" : "s",
              r.num_samples, r.num_residuals);
  std::printf("status: %s after %d iterations (%d runs, %d with sensitivities); cost %.6g, "
              "rms residual %.6g\n",
              fit::FitStatusName(r.lm.status), r.lm.iterations, r.lm.evaluations,
              r.lm.jacobian_evaluations, r.lm.cost,
              r.num_residuals > 0 ? std::sqrt(2.0 * r.lm.cost / r.num_residuals) : 0.0);
  std::printf("%-40s %-24s %-12s %-12s %-12s %s\n", "parameter", "value", "std. error",
              "relative", "start", "verdict");
  for (int j = 0; j < n; ++j) {
    std::printf("%-40s %-24.17g %-12.4g %-12.4g %-12.6g %s\n", r.parameters[j].c_str(),
                r.lm.p[j], s.standard_error_p[j], s.standard_error_eta[j], r.start[j],
                fit::ParameterVerdictName(s.verdict[j]));
  }
  if (n > 1) {
    std::printf("correlations:\n");
    for (int i = 0; i < n; ++i) {
      std::printf("  %-40s", r.parameters[i].c_str());
      for (int j = 0; j < n; ++j) std::printf(" %7.4f", s.correlation(i, j));
      std::printf("\n");
    }
  }
  std::printf("singular values of the scaled Jacobian:");
  for (Eigen::Index k = 0; k < s.singular_values.size(); ++k) {
    std::printf(" %.4g", s.singular_values[k]);
  }
  std::printf("\n");
  if (s.unidentifiable.empty()) {
    std::printf("unidentifiable directions: none\n");
  } else {
    for (const fit::UnidentifiableDirection& d : s.unidentifiable) {
      std::printf("unidentifiable direction (ratio %.3g): %s\n", d.ratio,
                  fit::DescribeDirection(d.log_direction, r.parameters).c_str());
    }
  }
  std::printf("steps near non-smooth points: %d (smallest kink distance %.3g)\n",
              r.kink_steps, r.min_kink_distance);
  std::printf("fitted values:\n");
  for (const std::string& line : r.SetLines()) std::printf("  %s\n", line.c_str());
  std::fflush(stdout);

  if (!options.output.empty()) WriteFitFile(options.output, options.scene, data.source, r);

  const bool converged = r.lm.status == fit::FitStatus::kConvergedStep ||
                         r.lm.status == fit::FitStatus::kConvergedGradient;
  if (!converged) {
    std::fprintf(stderr, "csim: error: the fit did not converge (%s)\n",
                 fit::FitStatusName(r.lm.status));
    return kExitSimFailed;
  }
  return kExitCompleted;
}

}  // namespace csim::app
