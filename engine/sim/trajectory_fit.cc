// The driver of `csim fit` (trajectory_fit.h): a short list of steps over the pieces in
//   fit_coordinates.h  what each tangent coordinate is; the observed ones and their weights
//   fit_parameters.h   the parameters, their start values, the rotation offsets
//   fit_runs.h         one run per measurement: samples, initial state, columns
//   fit_evaluator.h    residuals and Jacobian at p (scene built, runs simulated)
// Everything the request can get wrong is refused before the first iteration.

#include "engine/sim/trajectory_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "engine/common/input_error.h"
#include "engine/sim/fit_coordinates.h"
#include "engine/sim/fit_evaluator.h"
#include "engine/sim/fit_messages.h"
#include "engine/sim/fit_parameters.h"
#include "engine/sim/fit_runs.h"

namespace csim::sim {
namespace {

// Whether column j of the fit Jacobian (de/d eta) is numerically zero: its norm at most
// 1e-9 sqrt(m), a residual change below 1e-9 per coordinate for a unit change of eta.
bool ColumnVanishes(const Eigen::MatrixXd& jfit, int j) {
  const double scale = std::sqrt(static_cast<double>(std::max<Eigen::Index>(1, jfit.rows())));
  return !(jfit.col(j).norm() > 1e-9 * scale);
}

// The largest |gamma_t| / gamma_n that is still rounding: no friction coefficient is that
// small, so a bound at or below it says only that the contacts carried no friction impulse.
constexpr double kNoFrictionImpulse = 1e-9;

// What the refusal of parameter `path` adds when it is a material's friction that its
// contacts bound from below (FitEvaluator::friction_bounds: finite), else "".
std::string FrictionBoundNote(const std::string& path, double bound) {
  if (!std::isfinite(bound)) return "";
  // A ratio at rounding level (contacts that press without any tangential impulse) bounds
  // nothing: "friction >= 3e-15" would read as a finding.
  if (!(bound > kNoFrictionImpulse)) {
    return "; its contacts carry no friction impulse in the window (|gamma_t| / gamma_n at "
           "most " + ShortNumber(kNoFrictionImpulse) + "), so the data does not bound it "
           "from below either";
  }
  return "; the data bounds it from below: its material's contacts in the window need " +
         path + " >= " + ShortNumber(bound) +
         " to hold their impulses (the largest |gamma_t| / gamma_n at the starting values, "
         "through the pair's friction 2 mu_a mu_b / (mu_a + mu_b) with the other material's "
         "at its value)";
}

// Refuses what is wrong with the request itself, before the scene is loaded: no data,
// several runs from the scene's one state, no parameter or a repeated one, bad sigmas.
void CheckRequest(const std::vector<Measurement>& data, const TrajectoryFitOptions& options) {
  if (data.empty()) throw InputError({"--data", 0, 0}, "give at least one measurement file");
  if (data.size() > 1 && options.initial_state == InitialState::kScene) {
    throw InputError({"--initial-state", 0, 0},
                     "several --data files with --initial-state scene would all start from "
                     "the scene's one initial state; give --initial-state data (each run "
                     "starts at its data's first sample in the window)");
  }
  if (options.parameters.empty() && !options.fit_initial_state)
    RefuseParameter("give at least one parameter to fit");
  const std::set<std::string> unique(options.parameters.begin(), options.parameters.end());
  if (unique.size() != options.parameters.size()) RefuseParameter("a parameter is given twice");
  if (!(options.sigma_position > 0.0) || !(options.sigma_angle > 0.0) ||
      !std::isfinite(options.sigma_position) || !std::isfinite(options.sigma_angle)) {
    throw InputError({"--sigma", 0, 0}, "both sigmas must be positive and finite");
  }
}

// Records the parameters in `out` (paths, runs, scales) with their start values: a shared
// one the scene's value (refused unless positive and finite: it is fitted in ln p), an
// initial-state one its run's reference coordinate (0 for a rotation offset).
void DescribeParameters(const multibody::Model& model, const FitCoordinates& coordinates,
                        const std::vector<FitParameter>& params,
                        const std::vector<FitRun>& runs, TrajectoryFitResult* out) {
  const int n = static_cast<int>(params.size());
  out->start.resize(n);
  for (int j = 0; j < n; ++j) {
    const FitParameter& param = params[j];
    out->parameters.push_back(param.path);
    out->run.push_back(param.run);
    if (param.run >= 0) {
      out->scale.push_back(fit::ParameterScale::kLinear);
      const FitRun& run = runs[param.run];
      if (param.initial_v) {
        out->start[j] = run.v_ref[param.coordinate];
      } else {
        const int qi = coordinates.q_index[param.coordinate];
        out->start[j] = qi >= 0 ? run.q_ref[qi] : 0.0;
      }
      continue;
    }
    out->scale.push_back(fit::ParameterScale::kLog);
    out->start[j] = SharedStartValue(model, param.path);
    if (!(out->start[j] > 0.0) || !std::isfinite(out->start[j])) {
      RefuseParameter("'" + param.path + "' starts at " + ShortNumber(out->start[j]) +
                      ": a material or body parameter is fitted in ln p and needs a positive "
                      "finite start; give one with --set " + param.path + "=VALUE");
    }
  }
}

// Refuses the fit at "--bound" (exit 1 in the app): the bounds are what is wrong.
[[noreturn]] void RefuseBound(const std::string& message) {
  throw InputError({"--bound", 0, 0}, message);
}

// "[lo, hi]" with an open side written as "(-inf" or "inf)".
std::string BoundsText(double lo, double hi) {
  return (std::isfinite(lo) ? "[" + ShortNumber(lo) : std::string("(-inf")) + ", " +
         (std::isfinite(hi) ? ShortNumber(hi) + "]" : std::string("inf)"));
}

// Refuses a bound on a path that is no shared --param path (an initial-state one included:
// those stay unbounded), a path bounded twice, lo >= hi (or NaN) and a negative lo (a
// shared parameter is fitted in ln p: positive).
void CheckBounds(const std::vector<std::string>& parameters,
                 const std::vector<FitParameter>& shared,
                 const std::vector<ParameterBound>& bounds) {
  std::set<std::string> seen;
  for (const ParameterBound& b : bounds) {
    const std::string name = "'" + b.path + "'";
    bool is_shared = false;
    for (const FitParameter& param : shared) is_shared = is_shared || param.path == b.path;
    if (!is_shared) {
      const bool given =
          std::find(parameters.begin(), parameters.end(), b.path) != parameters.end();
      RefuseBound(name + (given ? " is an initial-state parameter: bounds apply to the "
                                  "fitted material and body parameters only"
                                : " is not among the --param paths: a bound applies to a "
                                  "fitted material or body parameter; give --param " +
                                      b.path + " too or leave the bound out"));
    }
    if (!seen.insert(b.path).second)
      RefuseBound(name + " is bounded twice: give one --bound per parameter");
    if (!(b.lo < b.hi)) {
      RefuseBound(name + ": the lower bound " + ShortNumber(b.lo) +
                  " is not below the upper bound " + ShortNumber(b.hi));
    }
    if (std::isfinite(b.lo) && b.lo < 0.0) {  // -inf: no lower bound
      RefuseBound(name + ": the lower bound " + ShortNumber(b.lo) +
                  " is negative; a material or body parameter is positive (fitted in ln p): "
                  "give a lower bound >= 0, or none");
    }
  }
}

// Records every parameter's bounds in `out` (open: -inf, +inf) and refuses a start outside
// them: the start (the scene's value after --set) and the bounds are both the user's, and
// which of them is wrong is theirs to say, so it is not clamped.
void ApplyBounds(const std::vector<ParameterBound>& bounds, TrajectoryFitResult* out) {
  const int n = static_cast<int>(out->parameters.size());
  out->lower_bound.assign(n, -std::numeric_limits<double>::infinity());
  out->upper_bound.assign(n, std::numeric_limits<double>::infinity());
  for (const ParameterBound& b : bounds) {
    for (int j = 0; j < n; ++j) {
      if (out->run[j] >= 0 || out->parameters[j] != b.path) continue;
      out->lower_bound[j] = b.lo;
      out->upper_bound[j] = b.hi;
      if (!(b.lo <= out->start[j] && out->start[j] <= b.hi)) {
        RefuseBound("'" + b.path + "' starts at " + ShortNumber(out->start[j]) +
                    " (the scene's value after --set), outside its bounds " +
                    BoundsText(b.lo, b.hi) + ": the start contradicts the bounds; give a "
                    "start inside them with --set " + b.path + "=VALUE or change the bound");
      }
    }
  }
}

// Records the sizes of the problem in `out`; refuses one with no more residuals than
// parameters.
void CountResiduals(const std::vector<FitRun>& runs, const ObservedCoordinates& observed,
                    TrajectoryFitResult* out) {
  for (const FitRun& run : runs) {
    out->run_samples.push_back(static_cast<int>(run.samples.size()));
    out->run_t0.push_back(run.t0);
    out->num_samples += static_cast<int>(run.samples.size());
  }
  out->observed_coordinates = static_cast<int>(observed.index.size());
  out->num_residuals = out->num_samples * out->observed_coordinates;
  const int n = static_cast<int>(out->parameters.size());
  if (out->num_residuals <= n) {
    RefuseParameter(std::to_string(n) + " parameters and only " +
                    std::to_string(out->num_residuals) + " residuals (" +
                    std::to_string(out->num_samples) + " measurement times x " +
                    std::to_string(out->observed_coordinates) +
                    " observed coordinates): give more data or fit fewer parameters");
  }
}

// Every run's initial state at p.
void RecordInitialStates(const FitEvaluator& evaluator, int num_runs, const Eigen::VectorXd& p,
                         std::vector<Eigen::VectorXd>* q, std::vector<Eigen::VectorXd>* v) {
  for (int r = 0; r < num_runs; ++r) {
    Eigen::VectorXd q0, v0;
    evaluator.InitialState(r, p, &q0, &v0);
    q->push_back(q0);
    v->push_back(v0);
  }
}

// Refuses, before any iteration, a start where the scene does not run, a parameter the
// observed coordinates do not depend on, or a combination of parameters they do not: LM
// would wander along such a direction and report an estimate that is none.
void CheckIdentifiable(FitEvaluator* evaluator, const TrajectoryFitResult& out) {
  const int n = static_cast<int>(out.parameters.size());
  Eigen::VectorXd e0;
  Eigen::MatrixXd j0;
  std::string reason;
  if (!evaluator->Evaluate(out.start, true, &e0, &j0, &reason))
    RefuseParameter("the scene does not run at the starting values: " + reason);
  const Eigen::MatrixXd jfit = fit::FitJacobian(j0, out.start, out.scale);
  for (int j = 0; j < n; ++j) {
    if (ColumnVanishes(jfit, j)) {
      RefuseParameter(
          "'" + out.Label(j) +
          "' is not identifiable from this data: the observed coordinates do not depend "
          "on it in the window (zero sensitivity; e.g. a material no contact uses, "
          "friction while every contact sticks, an unobserved joint); leave it out or "
          "observe motion it changes" +
          FrictionBoundNote(out.parameters[j], evaluator->friction_bounds()[j]));
    }
  }
  const fit::FitStatistics s0 = fit::CalcFitStatistics(out.start, e0, j0, {}, {}, out.scale);
  if (!s0.unidentifiable.empty()) {
    RefuseParameter(
        "the parameters are not identifiable together from this data: the direction " +
        fit::DescribeDirection(s0.unidentifiable.front().log_direction, out.Labels()) +
        " (in ln p of material parameters, p of initial-state ones) leaves the observed "
        "coordinates unchanged (singular value ratio " +
        ShortNumber(s0.unidentifiable.front().ratio) + "); fit fewer parameters");
  }
}

// Levenberg-Marquardt from the start, and the statistics at its end.
void Minimize(FitEvaluator* evaluator, const TrajectoryFitOptions& options,
              TrajectoryFitResult* out) {
  fit::LevenbergMarquardtOptions lm_options;
  lm_options.max_iterations = options.max_iterations;
  fit::ParameterBounds space;
  space.scale = out->scale;
  space.lo = out->lower_bound;
  space.hi = out->upper_bound;
  // The core's open lower side of a log parameter is 0 (it refuses a negative one).
  for (size_t j = 0; j < space.lo.size(); ++j)
    if (out->scale[j] == fit::ParameterScale::kLog) space.lo[j] = std::max(space.lo[j], 0.0);
  fit::ResidualFunction model_function = [&](const Eigen::VectorXd& p, bool want_jacobian,
                                             Eigen::VectorXd* e, Eigen::MatrixXd* de_dp) {
    return evaluator->Evaluate(p, want_jacobian, e, de_dp, nullptr);
  };
  out->lm = fit::LevenbergMarquardt(model_function, out->start, space, lm_options);
  out->statistics = fit::CalcFitStatistics(out->lm);
}

// Marks the parameters whose column vanished at the end by the start's rule: LM drove them
// where they no longer act (ParameterVerdict::kNoLongerActs).
void MarkVanishedAtEnd(TrajectoryFitResult* out) {
  const int n = static_cast<int>(out->parameters.size());
  if (out->lm.de_dp.cols() != n) return;
  const Eigen::MatrixXd jend = fit::FitJacobian(out->lm.de_dp, out->lm.p, out->scale);
  for (int j = 0; j < n; ++j)
    if (ColumnVanishes(jend, j)) out->statistics.verdict[j] = fit::ParameterVerdict::kNoLongerActs;
}

}  // namespace

int TrajectoryFitResult::FirstNoLongerActing() const {
  for (size_t j = 0; j < statistics.verdict.size(); ++j)
    if (statistics.verdict[j] == fit::ParameterVerdict::kNoLongerActs) return static_cast<int>(j);
  return -1;
}

std::string TrajectoryFitResult::Label(int j) const {
  if (run[j] < 0 || num_runs <= 1) return parameters[j];
  return parameters[j] + " (data " + std::to_string(run[j]) + ")";
}

std::vector<std::string> TrajectoryFitResult::Labels() const {
  std::vector<std::string> labels;
  for (int j = 0; j < static_cast<int>(parameters.size()); ++j) labels.push_back(Label(j));
  return labels;
}

std::vector<std::string> TrajectoryFitResult::SetLines() const {
  std::vector<std::string> lines;
  for (size_t j = 0; j < parameters.size(); ++j) {
    if (run[j] < 0) lines.push_back("--set " + parameters[j] + "=" + ExactNumber(lm.p[j]));
  }
  return lines;
}

TrajectoryFitResult FitTrajectory(const SceneFactory& factory, const Measurement& data,
                                  const TrajectoryFitOptions& options) {
  return FitTrajectory(factory, std::vector<Measurement>{data}, options);
}

TrajectoryFitResult FitTrajectory(const SceneFactory& factory,
                                  const std::vector<Measurement>& data,
                                  const TrajectoryFitOptions& options) {
  CheckRequest(data, options);
  const int num_runs = static_cast<int>(data.size());

  // The scene at its own values (after --set): the paths, their kinds and the start.
  multibody::Model model;
  Settings settings;
  factory(options.overrides, &model, &settings);
  const FitCoordinates coordinates = DescribeCoordinates(model);
  const ObservedCoordinates observed = SelectObservedCoordinates(model, coordinates, options);

  // The parameters (shared ones first, then per run its initial-state ones) and the runs.
  const RequestedParameters requested = ParseFitParameters(model, options);
  CheckBounds(options.parameters, requested.shared, options.bounds);
  std::vector<FitParameter> params = requested.shared;
  std::vector<FitRun> runs;
  for (const Measurement& d : data) runs.push_back(SetUpRun(model, d, options, observed));
  AssignRunColumns(model, static_cast<int>(requested.shared.size()), requested.initial_state,
                   &params, &runs);

  TrajectoryFitResult out;
  out.num_runs = num_runs;
  DescribeParameters(model, coordinates, params, runs, &out);
  ApplyBounds(options.bounds, &out);
  CountResiduals(runs, observed, &out);

  FitEvaluator evaluator(factory, options, params, runs, coordinates, observed);
  std::string reason;
  if (!evaluator.Build(out.start, &reason))
    RefuseParameter("the scene does not load at the starting values: " + reason);
  RecordInitialStates(evaluator, num_runs, out.start, &out.initial_q_start,
                      &out.initial_v_start);
  CheckIdentifiable(&evaluator, out);

  Minimize(&evaluator, options, &out);
  MarkVanishedAtEnd(&out);
  out.kink_steps = evaluator.kink_steps();
  out.min_kink_distance = evaluator.min_kink_distance();
  RecordInitialStates(evaluator, num_runs, out.lm.p, &out.initial_q, &out.initial_v);
  return out;
}

}  // namespace csim::sim
