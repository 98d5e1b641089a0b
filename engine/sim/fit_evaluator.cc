#include "engine/sim/fit_evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "engine/common/input_error.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/fit_messages.h"
#include "engine/sim/simulate.h"

namespace csim::sim {
namespace {

// Where a measurement time t (of the run's clock) falls among the simulated rows: the last
// row k at or before t (to 1e-9 s), and the weight w of row k + 1 in the linear blend of the
// two (0: t is row k's time).
struct SampleRows {
  int k = 0;
  double w = 0.0;
};

// Finds t's rows; false with `reason` (if not null) when the run has no row at or before t
// or ends before it. `which` names the run in messages.
bool LocateSample(const std::vector<Row>& rows, double t, const std::string& which,
                  SampleRows* at, std::string* reason) {
  auto it = std::upper_bound(rows.begin(), rows.end(), t + 1e-9,
                             [](double x, const Row& row) { return x < row.time; });
  if (it == rows.begin()) {
    if (reason) *reason = "no simulated row at or before t = " + ShortNumber(t) + " s" + which;
    return false;
  }
  at->k = static_cast<int>(it - rows.begin()) - 1;
  at->w = 0.0;
  if (std::abs(rows[at->k].time - t) > 1e-9) {
    if (at->k + 1 >= static_cast<int>(rows.size())) {
      if (reason) *reason = "the run ends before t = " + ShortNumber(t) + " s" + which;
      return false;
    }
    at->w = (t - rows[at->k].time) / (rows[at->k + 1].time - rows[at->k].time);
  }
  return true;
}

// Whether a step's sensitivities are near a non-smooth point: a column differenced one-sided
// or straddling a change of contact set, or a kink distance below 1e-6.
bool NearKink(const Row& row) {
  return row.sensitivity.one_sided > 0 || row.sensitivity.unmatched > 0 ||
         row.sensitivity.min_kink_distance < 1e-6;
}

}  // namespace

FitEvaluator::FitEvaluator(const SceneFactory& factory, const TrajectoryFitOptions& options,
                           const std::vector<FitParameter>& params, std::vector<FitRun> runs,
                           const FitCoordinates& coordinates, ObservedCoordinates observed)
    : factory_(factory), options_(options), params_(params), runs_(std::move(runs)),
      coordinates_(coordinates), observed_(std::move(observed)) {}

int FitEvaluator::num_residuals() const {
  int samples = 0;
  for (const FitRun& run : runs_) samples += static_cast<int>(run.samples.size());
  return samples * static_cast<int>(observed_.index.size());
}

void FitEvaluator::InitialState(int r, const Eigen::VectorXd& p, Eigen::VectorXd* q0,
                                Eigen::VectorXd* v0) const {
  const FitRun& run = runs_[r];
  InitialStateAt(model_, coordinates_, params_, run.columns, run.q_ref, run.v_ref, p, q0, v0);
}

bool FitEvaluator::Build(const Eigen::VectorXd& p, std::string* reason) {
  std::vector<double> shared;
  for (size_t j = 0; j < params_.size(); ++j)
    if (params_[j].run < 0) shared.push_back(p[j]);
  if (built_ && shared == built_shared_) return true;
  built_ = false;
  std::vector<std::string> overrides = options_.overrides;
  for (size_t j = 0; j < params_.size(); ++j)
    if (params_[j].run < 0) overrides.push_back(params_[j].path + "=" + ExactNumber(p[j]));
  try {
    factory_(overrides, &model_, &settings_);
  } catch (const InputError& error) {
    if (reason) *reason = error.what();
    return false;
  }
  // Every step recorded, so that measurement times fall between rows one step apart; the
  // derivatives are only as accurate as the solve.
  settings_.output.every = 1;
  settings_.solver.relative_tolerance =
      std::min(settings_.solver.relative_tolerance, options_.solver_relative_tolerance);
  built_shared_ = shared;
  built_ = true;
  return true;
}

bool FitEvaluator::SimulateRun(int r, const Eigen::VectorXd& p, bool want_jacobian,
                               MemoryRecorder* recorder, std::string* reason) const {
  const FitRun& run = runs_[r];
  // The run's initial state goes on a copy of the model, not through --set: the parameters
  // are single tangent coordinates, the scene's state whole poses and vectors.
  multibody::Model model = model_;
  if (run.set_initial) {
    Eigen::VectorXd q0, v0;
    InitialState(r, p, &q0, &v0);
    for (multibody::Joint& joint : model.joints) {
      if (joint.q_start < 0 || joint.v_start < 0) continue;
      joint.q_initial = q0.segment(joint.q_start, joint.nq);
      joint.v_initial = v0.segment(joint.v_start, joint.nv);
    }
  }
  Settings settings = settings_;
  settings.duration = run.end_time;
  // Only the run's own columns: the Jacobian is block sparse across runs.
  settings.sensitivities = want_jacobian ? run.paths : std::vector<std::string>{};
  RunInfo info;
  info.model = &model;
  info.settings = &settings;
  const RunResult result = Simulate(model, settings, info, *recorder, {});
  if (result.status != RunStatus::kCompleted) {
    if (reason) *reason = "the run" + InRun(run) + " failed: " + result.reason;
    return false;
  }
  return true;
}

void FitEvaluator::AddSample(const FitRun& run, int i, const std::vector<Row>& rows, int k,
                             double w, const Eigen::VectorXd& p, int block, Eigen::VectorXd* e,
                             Eigen::MatrixXd* de_dp) const {
  const std::vector<int>& observed = observed_.index;
  const Eigen::VectorXd& weight = observed_.weight;
  const int no = static_cast<int>(observed.size());
  // e_i = W (q_sim (-) q_meas)[observed], blended between the rows around t_i.
  Eigen::VectorXd d0(model_.nv), d1(model_.nv);
  multibody::ConfigurationDifference(model_, rows[k].q, run.data->q[i], d0);
  if (w != 0.0) {
    multibody::ConfigurationDifference(model_, rows[k + 1].q, run.data->q[i], d1);
    d0 = (1.0 - w) * d0 + w * d1;
  }
  for (int o = 0; o < no; ++o) (*e)[block + o] = weight[o] * d0[observed[o]];
  if (de_dp == nullptr) return;
  // de_i/dp = W dq/dp (Gauss-Newton: the derivative of (-) in q_sim is dropped), blended
  // likewise, with the rotation offsets' columns through their Jacobians.
  Eigen::MatrixXd S = rows[k].sensitivity.dq;
  if (w != 0.0) S = (1.0 - w) * S + w * rows[k + 1].sensitivity.dq;
  ApplyRotationOffsets(run.rotations, p, &S);
  for (size_t c = 0; c < run.columns.size(); ++c) {
    if (run.columns[c] < 0) continue;
    for (int o = 0; o < no; ++o)
      (*de_dp)(block + o, run.columns[c]) = weight[o] * S(observed[o], static_cast<int>(c));
  }
}

std::string FitEvaluator::InRun(const FitRun& run) const {
  return runs_.size() > 1 ? " (" + run.data->source + ")" : std::string();
}

void FitEvaluator::CountKinks(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    if (NearKink(row)) ++kink_steps_;
    min_kink_distance_ = std::min(min_kink_distance_, row.sensitivity.min_kink_distance);
  }
}

void FitEvaluator::BoundFriction(const FitRun& run, const std::vector<Row>& rows) {
  // A row's bound covers the step that ended at it: the steps after the window's first
  // measurement time (the run ends at its last).
  const double begin = run.data->time[run.samples.front()] - run.t0;
  for (const Row& row : rows) {
    const Eigen::VectorXd& bound = row.sensitivity.friction_bound;
    if (row.time <= begin + 1e-9 || bound.size() != static_cast<Eigen::Index>(run.columns.size()))
      continue;
    for (size_t c = 0; c < run.columns.size(); ++c) {
      const int j = run.columns[c];
      if (j >= 0) friction_bound_[j] = std::max(friction_bound_[j], bound[static_cast<int>(c)]);
    }
  }
}

bool FitEvaluator::Evaluate(const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
                            Eigen::MatrixXd* de_dp, std::string* reason) {
  if (!Build(p, reason)) return false;
  const int n = static_cast<int>(params_.size());
  const int no = static_cast<int>(observed_.index.size());
  e->resize(num_residuals());
  if (want_jacobian) {
    de_dp->setZero(num_residuals(), n);
    kink_steps_ = 0;
    min_kink_distance_ = 1.0;
    friction_bound_.assign(n, -std::numeric_limits<double>::infinity());
  }
  int block = 0;  // the first residual of the next sample: runs' blocks are stacked
  for (int r = 0; r < static_cast<int>(runs_.size()); ++r) {
    const FitRun& run = runs_[r];
    MemoryRecorder recorder;
    if (!SimulateRun(r, p, want_jacobian, &recorder, reason)) return false;
    const std::vector<Row>& rows = recorder.rows();
    const std::string which = InRun(run);
    for (int i : run.samples) {
      SampleRows at;
      if (!LocateSample(rows, run.data->time[i] - run.t0, which, &at, reason)) return false;
      AddSample(run, i, rows, at.k, at.w, p, block, e, want_jacobian ? de_dp : nullptr);
      block += no;
    }
    if (want_jacobian) {
      CountKinks(rows);
      BoundFriction(run, rows);
    }
  }
  return e->allFinite() && (!want_jacobian || de_dp->allFinite());
}

}  // namespace csim::sim
