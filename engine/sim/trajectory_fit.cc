#include "engine/sim/trajectory_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "engine/common/input_error.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/sensitivity_paths.h"
#include "engine/sim/simulate.h"

namespace csim::sim {
namespace {

using integrator::SensitivityParameter;

[[noreturn]] void Refuse(const std::string& message) {
  throw InputError({"--param", 0, 0}, message);
}

std::string Num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string Short(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

double StartValue(const multibody::Model& model, const SensitivityParameter& p) {
  const geometry::Material material =
      p.index >= 0 ? model.materials[p.index] : geometry::Material{};
  switch (p.contact) {
    case solver::ContactParameter::kMu: return material.friction;
    case solver::ContactParameter::kDissipationTime: return material.dissipation_time;
    case solver::ContactParameter::kHuntCrossley: return material.hunt_crossley;
    default: return std::nan("");
  }
}

// The rows' times and, per measurement time in the window, where it falls: row k and the
// weight w of row k + 1 (0 when it is row k's time).
struct Sample {
  int measurement = 0;
  int row = 0;
  double weight = 0.0;
};

class Evaluator {
 public:
  Evaluator(const SceneFactory& factory, const Measurement& data,
            const TrajectoryFitOptions& options, std::vector<int> samples, double end_time)
      : factory_(factory), data_(data), options_(options), samples_(std::move(samples)),
        end_time_(end_time) {}

  // Runs at p; fills e and (want_jacobian) de_dp. Returns false with `reason` when the
  // scene does not load or the run fails.
  bool Evaluate(const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
                Eigen::MatrixXd* de_dp, std::string* reason) {
    std::vector<std::string> overrides = options_.overrides;
    for (size_t j = 0; j < options_.parameters.size(); ++j) {
      overrides.push_back(options_.parameters[j] + "=" + Num(p[j]));
    }
    multibody::Model model;
    Settings settings;
    try {
      factory_(overrides, &model, &settings);
    } catch (const InputError& error) {
      if (reason) *reason = error.what();
      return false;
    }
    settings.output.every = 1;
    settings.duration = end_time_;
    settings.solver.relative_tolerance =
        std::min(settings.solver.relative_tolerance, options_.solver_relative_tolerance);
    settings.sensitivities = want_jacobian ? options_.parameters : std::vector<std::string>{};
    MemoryRecorder recorder;
    RunInfo info;
    info.model = &model;
    info.settings = &settings;
    const RunResult result = Simulate(model, settings, info, recorder, {});
    if (result.status != RunStatus::kCompleted) {
      if (reason) *reason = "the run failed: " + result.reason;
      return false;
    }
    const std::vector<Row>& rows = recorder.rows();
    const int nv = model.nv;
    const int n = static_cast<int>(options_.parameters.size());
    const int m = static_cast<int>(samples_.size()) * nv;
    e->resize(m);
    if (want_jacobian) de_dp->setZero(m, n);
    Eigen::VectorXd d0(nv), d1(nv);
    int block = 0;
    for (int i : samples_) {
      const double t = data_.time[i];
      // The last row at or before t (to 1e-9 s).
      auto it = std::upper_bound(rows.begin(), rows.end(), t + 1e-9,
                                 [](double x, const Row& r) { return x < r.time; });
      if (it == rows.begin()) {
        if (reason) *reason = "no simulated row at or before t = " + Short(t) + " s";
        return false;
      }
      const int k = static_cast<int>(it - rows.begin()) - 1;
      double w = 0.0;
      if (std::abs(rows[k].time - t) > 1e-9) {
        if (k + 1 >= static_cast<int>(rows.size())) {
          if (reason) *reason = "the run ends before t = " + Short(t) + " s";
          return false;
        }
        w = (t - rows[k].time) / (rows[k + 1].time - rows[k].time);
      }
      multibody::ConfigurationDifference(model, rows[k].q, data_.q[i], d0);
      e->segment(block, nv) = d0;
      if (w != 0.0) {
        multibody::ConfigurationDifference(model, rows[k + 1].q, data_.q[i], d1);
        e->segment(block, nv) = (1.0 - w) * d0 + w * d1;
      }
      if (want_jacobian) {
        de_dp->middleRows(block, nv) = rows[k].sensitivity.dq;
        if (w != 0.0) {
          de_dp->middleRows(block, nv) =
              (1.0 - w) * rows[k].sensitivity.dq + w * rows[k + 1].sensitivity.dq;
        }
      }
      block += nv;
    }
    if (want_jacobian) {
      kink_steps_ = 0;
      min_kink_distance_ = 1.0;
      for (const Row& r : rows) {
        if (r.sensitivity.one_sided > 0 || r.sensitivity.unmatched > 0 ||
            r.sensitivity.min_kink_distance < 1e-6) {
          ++kink_steps_;
        }
        min_kink_distance_ = std::min(min_kink_distance_, r.sensitivity.min_kink_distance);
      }
    }
    return e->allFinite() && (!want_jacobian || de_dp->allFinite());
  }

  int kink_steps() const { return kink_steps_; }
  double min_kink_distance() const { return min_kink_distance_; }

 private:
  const SceneFactory& factory_;
  const Measurement& data_;
  const TrajectoryFitOptions& options_;
  std::vector<int> samples_;
  double end_time_;
  int kink_steps_ = 0;
  double min_kink_distance_ = 1.0;
};

}  // namespace

std::vector<std::string> TrajectoryFitResult::SetLines() const {
  std::vector<std::string> lines;
  for (size_t j = 0; j < parameters.size(); ++j) {
    lines.push_back("--set " + parameters[j] + "=" + Num(lm.p[j]));
  }
  return lines;
}

TrajectoryFitResult FitTrajectory(const SceneFactory& factory, const Measurement& data,
                                  const TrajectoryFitOptions& options) {
  TrajectoryFitResult out;
  out.parameters = options.parameters;
  const int n = static_cast<int>(options.parameters.size());
  if (n == 0) Refuse("give at least one parameter to fit");
  std::set<std::string> unique(options.parameters.begin(), options.parameters.end());
  if (static_cast<int>(unique.size()) != n) Refuse("a parameter is given twice");

  // The scene at its own values (after --set): the paths, their kinds and the start.
  multibody::Model model;
  Settings settings;
  factory(options.overrides, &model, &settings);
  const std::vector<SensitivityParameter> parsed =
      ParseSensitivityPaths(model, options.parameters);
  out.start.resize(n);
  for (int j = 0; j < n; ++j) {
    const std::string& path = options.parameters[j];
    if (parsed[j].kind != SensitivityParameter::Kind::kMaterial) {
      Refuse("'" + path + "': only material parameters (materials.NAME.friction, "
             "dissipation_time, hunt_crossley) can be fitted so far; initial-state "
             "coordinates need a linear parameterisation (the fit works on ln p)");
    }
    out.start[j] = StartValue(model, parsed[j]);
    if (!(out.start[j] > 0.0) || !std::isfinite(out.start[j])) {
      Refuse("'" + path + "' starts at " + Short(out.start[j]) +
             ": the fit works on ln p and needs a positive finite start; give one with "
             "--set " + path + "=VALUE");
    }
  }

  // The measurement times in the window.
  if (data.time.size() != data.q.size()) Refuse("measurement: time and q differ in length");
  std::vector<int> samples;
  for (size_t i = 0; i < data.time.size(); ++i) {
    if (data.q[i].size() != model.nq) {
      throw InputError({data.source, 0, 0},
                       "has " + std::to_string(data.q[i].size()) +
                           " joint coordinates per row; the scene has " +
                           std::to_string(model.nq));
    }
    const double t = data.time[i];
    if (t >= options.window_begin - 1e-12 && t <= options.window_end + 1e-12) {
      samples.push_back(static_cast<int>(i));
    }
  }
  if (samples.empty()) {
    throw InputError({data.source, 0, 0}, "no measurement time lies in the window");
  }
  const double end_time = data.time[samples.back()];
  if (!(end_time > 0.0)) {
    throw InputError({data.source, 0, 0}, "the window holds only t = 0: nothing to fit");
  }
  out.num_samples = static_cast<int>(samples.size());
  out.num_residuals = out.num_samples * model.nv;

  Evaluator evaluator(factory, data, options, samples, end_time);

  // Identifiability at the start.
  Eigen::VectorXd e0;
  Eigen::MatrixXd j0;
  std::string reason;
  if (!evaluator.Evaluate(out.start, true, &e0, &j0, &reason)) {
    Refuse("the scene does not run at the starting values: " + reason);
  }
  const Eigen::MatrixXd jlog = fit::LogJacobian(j0, out.start);
  const double scale = std::sqrt(static_cast<double>(std::max<Eigen::Index>(1, jlog.rows())));
  for (int j = 0; j < n; ++j) {
    if (!(jlog.col(j).norm() > 1e-9 * scale)) {
      Refuse("'" + options.parameters[j] +
             "' is not identifiable from this data: the observed coordinates do not depend "
             "on it in the window (zero sensitivity; e.g. a material no contact uses, or "
             "friction while every contact sticks); leave it out or observe motion it "
             "changes");
    }
  }
  {
    const fit::FitStatistics s0 = fit::CalcFitStatistics(out.start, e0, j0);
    if (!s0.unidentifiable.empty()) {
      std::vector<std::string> names = options.parameters;
      Refuse("the parameters are not identifiable together from this data: the direction " +
             fit::DescribeDirection(s0.unidentifiable.front().log_direction, names) +
             " (in ln p) leaves the observed coordinates unchanged (singular value ratio " +
             Short(s0.unidentifiable.front().ratio) + "); fit fewer parameters");
    }
  }

  fit::LevenbergMarquardtOptions lm_options;
  lm_options.max_iterations = options.max_iterations;
  fit::ResidualFunction model_function = [&](const Eigen::VectorXd& p, bool want_jacobian,
                                             Eigen::VectorXd* e, Eigen::MatrixXd* de_dp) {
    return evaluator.Evaluate(p, want_jacobian, e, de_dp, nullptr);
  };
  out.lm = fit::LevenbergMarquardt(model_function, out.start, {}, lm_options);
  out.statistics = fit::CalcFitStatistics(out.lm);
  out.kink_steps = evaluator.kink_steps();
  out.min_kink_distance = evaluator.min_kink_distance();
  return out;
}

}  // namespace csim::sim
