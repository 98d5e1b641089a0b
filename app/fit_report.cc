#include "app/fit_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/io/hdf5_file.h"

namespace csim::app {
namespace {

// One dataset of `rows` rows of shape row_shape (a scalar per row when empty).
void WriteDoubles(io::Hdf5Group& group, const std::string& name, const double* data,
                  size_t rows, const std::vector<hsize_t>& row_shape) {
  io::Hdf5Dataset d = group.CreateExtendible(name, io::Hdf5Type::kFloat64, row_shape,
                                             std::max<hsize_t>(1, rows), 0);
  d.AppendRows(data, rows);
}

// Each row of x (all of one width) as a row of dataset `name`.
void WriteVectorRows(io::Hdf5Group& group, const std::string& name,
                     const std::vector<Eigen::VectorXd>& x) {
  const hsize_t width = x.empty() ? 0 : static_cast<hsize_t>(x.front().size());
  std::vector<double> flat;
  for (const Eigen::VectorXd& row : x) flat.insert(flat.end(), row.data(), row.data() + row.size());
  WriteDoubles(group, name, flat.data(), x.size(), {width});
}

// Per parameter: "log" or "linear".
std::vector<std::string> ScaleNames(const sim::TrajectoryFitResult& r) {
  std::vector<std::string> scales;
  for (fit::ParameterScale scale : r.scale)
    scales.push_back(scale == fit::ParameterScale::kLog ? "log" : "linear");
  return scales;
}

// Per parameter: its verdict's name.
std::vector<std::string> VerdictNames(const sim::TrajectoryFitResult& r) {
  std::vector<std::string> verdicts;
  for (fit::ParameterVerdict v : r.statistics.verdict) {
    verdicts.push_back(fit::ParameterVerdictName(v));
  }
  return verdicts;
}

// What was asked (scene, data, parameters and their bounds, observed joints, sigmas) and
// the verdicts.
void WriteRequestAndVerdicts(io::Hdf5Group& g, const std::string& scene,
                             const std::vector<std::string>& data,
                             const std::vector<std::string>& observed, const double sigma[2],
                             const sim::TrajectoryFitResult& r) {
  g.CreateString("scene", scene);
  g.CreateStringList("data", data);
  g.CreateString("status", fit::FitStatusName(r.lm.status));
  g.CreateStringList("parameters", r.parameters);
  g.CreateIntList("parameter_data", std::vector<int32_t>(r.run.begin(), r.run.end()));
  g.CreateStringList("scales", ScaleNames(r));
  g.CreateStringList("verdicts", VerdictNames(r));
  // Per parameter, -inf / +inf where open (also for a result without recorded bounds).
  const size_t n = r.parameters.size();
  std::vector<double> lo(n, -INFINITY), hi(n, INFINITY);
  if (r.lower_bound.size() == n) lo = r.lower_bound;
  if (r.upper_bound.size() == n) hi = r.upper_bound;
  WriteDoubles(g, "lower_bound", lo.data(), n, {});
  WriteDoubles(g, "upper_bound", hi.data(), n, {});
  g.CreateStringList("set", r.SetLines());
  g.CreateStringList("observed", observed);
  WriteDoubles(g, "sigma", sigma, 2, {});
}

// The start, the fitted values and their statistics.
void WriteEstimates(io::Hdf5Group& g, const sim::TrajectoryFitResult& r) {
  const int n = static_cast<int>(r.parameters.size());
  WriteDoubles(g, "start", r.start.data(), n, {});
  WriteDoubles(g, "values", r.lm.p.data(), n, {});
  WriteDoubles(g, "standard_errors", r.statistics.standard_error_p.data(), n, {});
  // Row-major n x n (symmetric anyway).
  const Eigen::MatrixXd corr = r.statistics.correlation.transpose();
  WriteDoubles(g, "correlations", corr.data(), n, {hsize_t(n)});
  WriteDoubles(g, "singular_values", r.statistics.singular_values.data(),
               r.statistics.singular_values.size(), {});
}

// Per data file: the data time of the run's start and its initial state, at the start and
// at the fitted values (row-major d x nq, d x nv).
void WriteInitialStates(io::Hdf5Group& g, const sim::TrajectoryFitResult& r) {
  WriteDoubles(g, "initial_time", r.run_t0.data(), r.num_runs, {});
  WriteVectorRows(g, "initial_q_start", r.initial_q_start);
  WriteVectorRows(g, "initial_v_start", r.initial_v_start);
  WriteVectorRows(g, "initial_q", r.initial_q);
  WriteVectorRows(g, "initial_v", r.initial_v);
}

// LM's iterations (cost, trial cost, lambda, rho, step norm, accepted) and its summary.
void WriteHistory(io::Hdf5Group& g, const sim::TrajectoryFitResult& r) {
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

// The fit's size and weighting, then how LM ended.
void PrintProblemAndStatus(const std::string& scene, const std::vector<sim::Measurement>& data,
                           const sim::TrajectoryFitOptions& options, bool weighted,
                           const sim::TrajectoryFitResult& r) {
  const int n = static_cast<int>(r.parameters.size());
  std::string sources;
  for (const sim::Measurement& m : data) sources += (sources.empty() ? "" : ", ") + m.source;
  char weighting[128];
  if (weighted) {
    std::snprintf(weighting, sizeof weighting, "weighted by 1/sigma, sigma %.3g m, %.3g rad",
                  options.sigma_position, options.sigma_angle);
  } else {
    std::snprintf(weighting, sizeof weighting, "m and rad, unweighted");
  }
  std::printf("fit of %s to %s: %d parameter%s, %d run%s, %d samples, %d residuals "
              "(q (-) q_meas of %d observed coordinates: %s)\n",
              scene.c_str(), sources.c_str(), n, n == 1 ? "" : "s", r.num_runs,
              r.num_runs == 1 ? "" : "s", r.num_samples, r.num_residuals,
              r.observed_coordinates, weighting);
  std::printf("status: %s after %d iterations (%d runs, %d with sensitivities); cost %.6g, "
              "rms residual %.6g, s^2 %.6g\n",
              fit::FitStatusName(r.lm.status), r.lm.iterations, r.lm.evaluations,
              r.lm.jacobian_evaluations, r.lm.cost,
              r.num_residuals > 0 ? std::sqrt(2.0 * r.lm.cost / r.num_residuals) : 0.0,
              r.statistics.s2);
}

// Whether parameter j, held by a bound, is held by its upper one.
bool IsAtUpper(const sim::TrajectoryFitResult& r, int j) {
  return j < static_cast<int>(r.lm.bound_state.size()) &&
         r.lm.bound_state[j] == fit::BoundState::kAtUpper;
}

// One line per parameter: value, standard error, relative standard error, start, verdict.
void PrintParameterTable(const sim::TrajectoryFitResult& r) {
  const fit::FitStatistics& s = r.statistics;
  std::printf("%-44s %-24s %-12s %-12s %-12s %s\n", "parameter", "value", "std. error",
              "relative", "start", "verdict");
  for (int j = 0; j < static_cast<int>(r.parameters.size()); ++j) {
    // A parameter held by a bound is fixed there, not estimated: no standard error.
    const bool held = s.verdict[j] == fit::ParameterVerdict::kAtBound;
    char error[32] = "-";
    if (!held) std::snprintf(error, sizeof error, "%.4g", s.standard_error_p[j]);
    // The relative standard error of a log parameter; a linear one (an initial position or
    // velocity, often near 0) has none.
    char relative[32] = "-";
    if (!held && r.scale[j] == fit::ParameterScale::kLog)
      std::snprintf(relative, sizeof relative, "%.4g", s.standard_error_eta[j]);
    std::printf("%-44s %-24.17g %-12s %-12s %-12.6g %s%s\n", r.Label(j).c_str(), r.lm.p[j],
                error, relative, r.start[j], fit::ParameterVerdictName(s.verdict[j]),
                held ? (IsAtUpper(r, j) ? " (upper)" : " (lower)") : "");
  }
}

// The correlation matrix, when it fits on a screen (2 to 12 parameters).
void PrintCorrelations(const sim::TrajectoryFitResult& r) {
  const int n = static_cast<int>(r.parameters.size());
  if (n > 1 && n <= 12) {
    std::printf("correlations:\n");
    for (int i = 0; i < n; ++i) {
      std::printf("  %-44s", r.Label(i).c_str());
      for (int j = 0; j < n; ++j) std::printf(" %7.4f", r.statistics.correlation(i, j));
      std::printf("\n");
    }
  } else if (n > 12) {
    std::printf("correlations: %d x %d, in FIT.h5 (/fit/correlations)\n", n, n);
  }
}

// What the data tells apart at the end: the singular values, the unidentifiable
// directions, and how many steps were near non-smooth points (where the Jacobian is least
// trustworthy).
void PrintIdentifiability(const sim::TrajectoryFitResult& r) {
  const fit::FitStatistics& s = r.statistics;
  std::printf("singular values of the scaled Jacobian:");
  for (Eigen::Index k = 0; k < s.singular_values.size(); ++k) {
    std::printf(" %.4g", s.singular_values[k]);
  }
  std::printf(s.singular_values.size() == 0 ? " none (every parameter held by a bound)\n"
                                            : "\n");
  if (s.unidentifiable.empty()) {
    std::printf("unidentifiable directions: none\n");
  } else {
    const std::vector<std::string> labels = r.Labels();
    for (const fit::UnidentifiableDirection& d : s.unidentifiable) {
      std::printf("unidentifiable direction (ratio %.3g): %s\n", d.ratio,
                  fit::DescribeDirection(d.log_direction, labels).c_str());
    }
  }
  std::printf("steps near non-smooth points: %d (smallest kink distance %.3g)\n",
              r.kink_steps, r.min_kink_distance);
}

// Parameters held by a bound or that no longer act, then the fitted shared values as --set
// lines.
void PrintFittedValues(const sim::TrajectoryFitResult& r) {
  for (int j = 0; j < static_cast<int>(r.statistics.verdict.size()); ++j) {
    if (r.statistics.verdict[j] != fit::ParameterVerdict::kAtBound) continue;
    std::printf("at a bound: %s = %.6g, its %s bound (the data pulls it beyond: held there, "
                "not estimated, no standard error)\n",
                r.Label(j).c_str(), r.lm.p[j], IsAtUpper(r, j) ? "upper" : "lower");
  }
  for (int j = 0; j < static_cast<int>(r.statistics.verdict.size()); ++j) {
    if (r.statistics.verdict[j] != fit::ParameterVerdict::kNoLongerActs) continue;
    std::printf("no longer acts: %s = %.6g (its sensitivity vanished there: a minimum on the "
                "boundary of the parameter space, not an estimate)\n",
                r.Label(j).c_str(), r.lm.p[j]);
  }
  const std::vector<std::string> set_lines = r.SetLines();
  if (!set_lines.empty()) {
    std::printf("fitted values:\n");
    for (const std::string& line : set_lines) std::printf("  %s\n", line.c_str());
  }
}

}  // namespace

void PrintFitReport(const std::string& scene, const std::vector<sim::Measurement>& data,
                    const sim::TrajectoryFitOptions& options, bool weighted,
                    const sim::TrajectoryFitResult& r) {
  PrintProblemAndStatus(scene, data, options, weighted, r);
  PrintParameterTable(r);
  PrintCorrelations(r);
  PrintIdentifiability(r);
  PrintFittedValues(r);
  std::fflush(stdout);
}

void WriteFitFile(const std::string& path, const std::string& scene,
                  const std::vector<std::string>& data, const std::vector<std::string>& observed,
                  const double sigma[2], const sim::TrajectoryFitResult& r) {
  io::Hdf5File file = io::Hdf5File::Create(path);
  {
    io::Hdf5Group g = file.CreateGroup("fit");
    WriteRequestAndVerdicts(g, scene, data, observed, sigma, r);
    WriteEstimates(g, r);
    WriteInitialStates(g, r);
    WriteHistory(g, r);
  }
  file.Close();
}

}  // namespace csim::app
