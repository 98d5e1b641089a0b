#include "engine/sim/trajectory_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "engine/common/input_error.h"
#include "engine/math/rotation.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/sensitivity_paths.h"
#include "engine/sim/simulate.h"

namespace csim::sim {
namespace {

using integrator::SensitivityParameter;

// Whether column j of the fit Jacobian (de/d eta) is numerically zero: its norm at most
// 1e-9 sqrt(m), a residual change below 1e-9 per coordinate for a unit change of eta.
bool ColumnVanishes(const Eigen::MatrixXd& jfit, int j) {
  const double scale = std::sqrt(static_cast<double>(std::max<Eigen::Index>(1, jfit.rows())));
  return !(jfit.col(j).norm() > 1e-9 * scale);
}

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

// The path's pieces split at dots ("materials", "steel", "friction").
std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos
                                                                : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// The scene's value of a shared (positive) parameter, read by its path: a material's
// friction, dissipation_time, hunt_crossley or stiffness, a body's mass. NaN when the path
// names no value known here.
double StartValue(const multibody::Model& model, const std::string& path,
                  const SensitivityParameter& p) {
  const std::vector<std::string> parts = SplitPath(path);
  if (parts.size() != 3) return std::nan("");
  if (parts[0] == "materials") {
    const geometry::Material material =
        p.index >= 0 && p.index < static_cast<int>(model.materials.size())
            ? model.materials[p.index]
            : geometry::Material{};
    if (parts[2] == "friction") return material.friction;
    if (parts[2] == "dissipation_time") return material.dissipation_time;
    if (parts[2] == "hunt_crossley") return material.hunt_crossley;
    if (parts[2] == "stiffness") return material.stiffness;
  }
  if (parts[0] == "bodies" && parts[2] == "mass") {
    const int body = model.FindBody(parts[1]);
    if (body >= 0) return model.bodies[body].mass;
  }
  return std::nan("");
}

bool IsInitialState(const SensitivityParameter& p) {
  return p.kind == SensitivityParameter::Kind::kInitialPosition ||
         p.kind == SensitivityParameter::Kind::kInitialVelocity;
}

// Per tangent coordinate of the model (nv): whether it is a rotation (weighted by
// sigma_angle) and where its q coordinate is when q moves by plain addition there (-1: a
// quaternion's rotation tangent, whose q[i] parameter is an offset rotation vector).
struct Coordinates {
  std::vector<bool> rotation;
  std::vector<int> q_index;
  std::vector<int> joint;  // the joint owning it
};

Coordinates DescribeCoordinates(const multibody::Model& model) {
  Coordinates c;
  c.rotation.assign(model.nv, false);
  c.q_index.assign(model.nv, -1);
  c.joint.assign(model.nv, -1);
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const multibody::Joint& joint = model.joints[j];
    if (joint.v_start < 0) continue;
    for (int k = 0; k < joint.nv; ++k) {
      const int i = joint.v_start + k;
      c.joint[i] = static_cast<int>(j);
      switch (joint.type) {
        case multibody::JointType::kRevolute:
          c.rotation[i] = true;
          c.q_index[i] = joint.q_start + k;
          break;
        case multibody::JointType::kPrismatic:
          c.q_index[i] = joint.q_start + k;
          break;
        case multibody::JointType::kPlanar:  // x, y, angle
          c.rotation[i] = k == 2;
          c.q_index[i] = joint.q_start + k;
          break;
        case multibody::JointType::kBall:
          c.rotation[i] = true;
          break;
        case multibody::JointType::kFree:  // q [quaternion; position], v [angular; linear]
          c.rotation[i] = k < 3;
          if (k >= 3) c.q_index[i] = joint.q_start + k + 1;
          break;
        default:
          break;
      }
    }
  }
  return c;
}

// Whether a run's inputs depend on time, so that it cannot start at a data time t0 > 0 by
// shifting the clock.
bool TimeDependent(const multibody::Model& model) {
  if (model.signals.size() > 0 || !model.trajectories.empty() || !model.actuators.empty())
    return true;
  for (const multibody::Joint& joint : model.joints)
    if (joint.prescribed) return true;
  return false;
}

// A fitted parameter.
struct Param {
  std::string path;
  int run = -1;             // -1: shared (set by --set PATH=VALUE)
  bool initial_q = false;   // joints.NAME.q[i]
  bool initial_v = false;   // joints.NAME.v[i]
  int coordinate = -1;      // the tangent coordinate of an initial-state parameter
};

// The rotation offset delta of a free or ball joint's initial orientation (q0 = q_ref (+)
// delta): its parameters' columns are the sensitivities to the three rotation tangents at
// q0 times the rotation's Jacobian at delta, since Exp(delta + eps e_k) = Exp(J_l(delta) eps
// e_k) Exp(delta) (free: Exp(delta) (x) q_ref, a left tangent) and
// Exp(delta) Exp(J_r(delta) eps e_k) (ball: q_ref (x) Exp(delta), a right tangent).
struct RotationOffset {
  bool right = false;   // a ball joint
  int column[3];        // the sensitivity columns of the three tangents
  int param[3];         // the parameter of each offset component, -1 if not fitted
};

// J_l(d) = I + (1 - cos a)/a^2 [d]x + (a - sin a)/a^3 [d]x^2, a = |d|; J_r(d) = J_l(-d).
Eigen::Matrix3d RotationJacobian(const Eigen::Vector3d& d, bool right) {
  const Eigen::Matrix3d K = math::Skew(right ? Eigen::Vector3d(-d) : d);
  const double a = d.norm();
  if (a < 1e-8) return Eigen::Matrix3d::Identity() + 0.5 * K + K * K / 6.0;
  return Eigen::Matrix3d::Identity() + (1.0 - std::cos(a)) / (a * a) * K +
         (a - std::sin(a)) / (a * a * a) * K * K;
}

// A run: one measurement, its samples, where it starts, which columns it asks for.
struct Run {
  const Measurement* data = nullptr;
  std::vector<int> samples;  // indices into data->time in the window
  double t0 = 0.0;           // the data time at the run's t = 0
  double end_time = 0.0;     // the run's duration [s]
  Eigen::VectorXd q_ref, v_ref;  // its initial state before its parameters
  bool set_initial = false;      // whether the run's initial state is written into the model
  // Its sensitivity columns: the shared parameters, its own, then any rotation tangents a
  // rotation offset needs besides (-1 in `columns`), with their paths.
  std::vector<int> columns;
  std::vector<std::string> paths;
  std::vector<RotationOffset> rotations;
};

class Evaluator {
 public:
  Evaluator(const SceneFactory& factory, const TrajectoryFitOptions& options,
            const std::vector<Param>& params, std::vector<Run> runs, const Coordinates& coords,
            std::vector<int> observed, Eigen::VectorXd weight)
      : factory_(factory), options_(options), params_(params), runs_(std::move(runs)),
        coords_(coords), observed_(std::move(observed)), weight_(std::move(weight)) {}

  int num_residuals() const {
    int samples = 0;
    for (const Run& run : runs_) samples += static_cast<int>(run.samples.size());
    return samples * static_cast<int>(observed_.size());
  }

  // Run r's initial state at p.
  void InitialState(int r, const Eigen::VectorXd& p, Eigen::VectorXd* q0,
                    Eigen::VectorXd* v0) const {
    const Run& run = runs_[r];
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(run.v_ref.size());
    for (int j : run.columns) {
      const Param& param = params_[j];
      if (param.initial_q && coords_.q_index[param.coordinate] < 0)
        delta[param.coordinate] = p[j];
    }
    *q0 = run.q_ref;
    if (!delta.isZero(0.0)) {
      q0->resize(run.q_ref.size());
      multibody::RetractConfiguration(model_, run.q_ref, delta, q0);
    }
    *v0 = run.v_ref;
    for (int j : run.columns) {
      const Param& param = params_[j];
      if (param.initial_q && coords_.q_index[param.coordinate] >= 0)
        (*q0)[coords_.q_index[param.coordinate]] = p[j];
      if (param.initial_v) (*v0)[param.coordinate] = p[j];
    }
  }

  // Builds the scene at p's shared values, unless the last build was at the same ones.
  bool Build(const Eigen::VectorXd& p, std::string* reason) {
    std::vector<double> shared;
    for (size_t j = 0; j < params_.size(); ++j)
      if (params_[j].run < 0) shared.push_back(p[j]);
    if (built_ && shared == built_shared_) return true;
    built_ = false;
    std::vector<std::string> overrides = options_.overrides;
    for (size_t j = 0; j < params_.size(); ++j)
      if (params_[j].run < 0) overrides.push_back(params_[j].path + "=" + Num(p[j]));
    try {
      factory_(overrides, &model_, &settings_);
    } catch (const InputError& error) {
      if (reason) *reason = error.what();
      return false;
    }
    settings_.output.every = 1;
    settings_.solver.relative_tolerance =
        std::min(settings_.solver.relative_tolerance, options_.solver_relative_tolerance);
    built_shared_ = shared;
    built_ = true;
    return true;
  }

  // Runs every run at p; fills e and (want_jacobian) de_dp. Returns false with `reason` when
  // the scene does not load or a run fails.
  bool Evaluate(const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
                Eigen::MatrixXd* de_dp, std::string* reason) {
    if (!Build(p, reason)) return false;
    const int n = static_cast<int>(params_.size());
    const int no = static_cast<int>(observed_.size());
    e->resize(num_residuals());
    if (want_jacobian) {
      de_dp->setZero(num_residuals(), n);
      kink_steps_ = 0;
      min_kink_distance_ = 1.0;
    }
    int block = 0;
    for (int r = 0; r < static_cast<int>(runs_.size()); ++r) {
      const Run& run = runs_[r];
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
      settings.sensitivities = want_jacobian ? run.paths : std::vector<std::string>{};
      MemoryRecorder recorder;
      RunInfo info;
      info.model = &model;
      info.settings = &settings;
      const RunResult result = Simulate(model, settings, info, recorder, {});
      const std::string which =
          runs_.size() > 1 ? " (" + run.data->source + ")" : std::string();
      if (result.status != RunStatus::kCompleted) {
        if (reason) *reason = "the run" + which + " failed: " + result.reason;
        return false;
      }
      const std::vector<Row>& rows = recorder.rows();
      const int nv = model.nv;
      Eigen::VectorXd d0(nv), d1(nv);
      Eigen::MatrixXd S;
      for (int i : run.samples) {
        const double t = run.data->time[i] - run.t0;
        // The last row at or before t (to 1e-9 s).
        auto it = std::upper_bound(rows.begin(), rows.end(), t + 1e-9,
                                   [](double x, const Row& row) { return x < row.time; });
        if (it == rows.begin()) {
          if (reason) *reason = "no simulated row at or before t = " + Short(t) + " s" + which;
          return false;
        }
        const int k = static_cast<int>(it - rows.begin()) - 1;
        double w = 0.0;
        if (std::abs(rows[k].time - t) > 1e-9) {
          if (k + 1 >= static_cast<int>(rows.size())) {
            if (reason) *reason = "the run ends before t = " + Short(t) + " s" + which;
            return false;
          }
          w = (t - rows[k].time) / (rows[k + 1].time - rows[k].time);
        }
        multibody::ConfigurationDifference(model, rows[k].q, run.data->q[i], d0);
        if (w != 0.0) {
          multibody::ConfigurationDifference(model, rows[k + 1].q, run.data->q[i], d1);
          d0 = (1.0 - w) * d0 + w * d1;
        }
        for (int o = 0; o < no; ++o) (*e)[block + o] = weight_[o] * d0[observed_[o]];
        if (want_jacobian) {
          S = rows[k].sensitivity.dq;
          if (w != 0.0) S = (1.0 - w) * S + w * rows[k + 1].sensitivity.dq;
          for (const RotationOffset& rot : run.rotations) {
            // The offset's columns through the rotation's Jacobian (the tangent columns
            // themselves are not parameters' columns any more).
            Eigen::Vector3d delta = Eigen::Vector3d::Zero();
            for (int a = 0; a < 3; ++a)
              if (rot.param[a] >= 0) delta[a] = p[rot.param[a]];
            const Eigen::Matrix3d J = RotationJacobian(delta, rot.right);
            Eigen::MatrixXd tangent(nv, 3);
            for (int a = 0; a < 3; ++a) tangent.col(a) = S.col(rot.column[a]);
            const Eigen::MatrixXd offset = tangent * J;
            for (int a = 0; a < 3; ++a)
              if (rot.param[a] >= 0) S.col(rot.column[a]) = offset.col(a);
          }
          for (size_t c = 0; c < run.columns.size(); ++c) {
            if (run.columns[c] < 0) continue;
            for (int o = 0; o < no; ++o)
              (*de_dp)(block + o, run.columns[c]) =
                  weight_[o] * S(observed_[o], static_cast<int>(c));
          }
        }
        block += no;
      }
      if (want_jacobian) {
        for (const Row& row : rows) {
          if (row.sensitivity.one_sided > 0 || row.sensitivity.unmatched > 0 ||
              row.sensitivity.min_kink_distance < 1e-6) {
            ++kink_steps_;
          }
          min_kink_distance_ = std::min(min_kink_distance_, row.sensitivity.min_kink_distance);
        }
      }
    }
    return e->allFinite() && (!want_jacobian || de_dp->allFinite());
  }

  int kink_steps() const { return kink_steps_; }
  double min_kink_distance() const { return min_kink_distance_; }

 private:
  const SceneFactory& factory_;
  const TrajectoryFitOptions& options_;
  const std::vector<Param>& params_;
  std::vector<Run> runs_;
  const Coordinates& coords_;
  std::vector<int> observed_;
  Eigen::VectorXd weight_;
  multibody::Model model_;
  Settings settings_;
  bool built_ = false;
  std::vector<double> built_shared_;
  int kink_steps_ = 0;
  double min_kink_distance_ = 1.0;
};

}  // namespace

std::string TrajectoryFitResult::Label(int j) const {
  if (run[j] < 0 || num_runs <= 1) return parameters[j];
  return parameters[j] + " (data " + std::to_string(run[j]) + ")";
}

std::vector<std::string> TrajectoryFitResult::SetLines() const {
  std::vector<std::string> lines;
  for (size_t j = 0; j < parameters.size(); ++j) {
    if (run[j] < 0) lines.push_back("--set " + parameters[j] + "=" + Num(lm.p[j]));
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
  TrajectoryFitResult out;
  const int num_runs = static_cast<int>(data.size());
  if (num_runs == 0) throw InputError({"--data", 0, 0}, "give at least one measurement file");
  if (num_runs > 1 && options.initial_state == InitialState::kScene) {
    throw InputError({"--initial-state", 0, 0},
                     "several --data files with --initial-state scene would all start from "
                     "the scene's one initial state; give --initial-state data (each run "
                     "starts at its data's first sample in the window)");
  }
  if (options.parameters.empty() && !options.fit_initial_state)
    Refuse("give at least one parameter to fit");
  {
    std::set<std::string> unique(options.parameters.begin(), options.parameters.end());
    if (unique.size() != options.parameters.size()) Refuse("a parameter is given twice");
  }
  if (!(options.sigma_position > 0.0) || !(options.sigma_angle > 0.0) ||
      !std::isfinite(options.sigma_position) || !std::isfinite(options.sigma_angle)) {
    throw InputError({"--sigma", 0, 0}, "both sigmas must be positive and finite");
  }

  // The scene at its own values (after --set): the paths, their kinds and the start.
  multibody::Model model;
  Settings settings;
  factory(options.overrides, &model, &settings);
  const Coordinates coords = DescribeCoordinates(model);

  // Observed tangent coordinates and their weights.
  std::vector<int> observed;
  std::vector<bool> joint_observed(model.joints.size(), options.observe.empty());
  for (const std::string& name : options.observe) {
    const int j = model.FindJoint(name);
    if (j < 0)
      throw InputError({"--observe", 0, 0}, "'" + name + "' names no joint of the scene (a "
                                            "free body's joint is named after the body)");
    if (model.joints[j].v_start < 0)
      throw InputError({"--observe", 0, 0}, "'" + name + "' is a joint without coordinates "
                                            "(fixed or prescribed): nothing to observe");
    if (joint_observed[j]) throw InputError({"--observe", 0, 0}, "'" + name + "' is given twice");
    joint_observed[j] = true;
  }
  for (int i = 0; i < model.nv; ++i)
    if (coords.joint[i] >= 0 && joint_observed[coords.joint[i]]) observed.push_back(i);
  Eigen::VectorXd weight(observed.size());
  for (size_t o = 0; o < observed.size(); ++o)
    weight[o] = 1.0 / (coords.rotation[observed[o]] ? options.sigma_angle
                                                     : options.sigma_position);

  // The parameters: shared ones first, then per run its initial-state ones.
  std::vector<Param> params;
  std::vector<Param> per_run;  // initial-state templates (run filled per run)
  for (const std::string& path : options.parameters) {
    SensitivityParameter parsed;
    try {
      parsed = ParseSensitivityPath(model, path);
    } catch (const InputError& error) {
      Refuse(error.message());
    }
    Param param;
    param.path = path;
    if (IsInitialState(parsed)) {
      param.initial_q = parsed.kind == SensitivityParameter::Kind::kInitialPosition;
      param.initial_v = !param.initial_q;
      param.coordinate = parsed.index;
      per_run.push_back(param);
    } else {
      params.push_back(param);
    }
  }
  const int num_shared = static_cast<int>(params.size());
  if (options.fit_initial_state) {
    for (const multibody::Joint& joint : model.joints) {
      if (joint.v_start < 0) continue;
      for (const char* which : {"q", "v"}) {
        for (int k = 0; k < joint.nv; ++k) {
          Param param;
          param.path = "joints." + joint.name + "." + which + "[" + std::to_string(k) + "]";
          param.initial_q = which[0] == 'q';
          param.initial_v = !param.initial_q;
          param.coordinate = joint.v_start + k;
          bool given = false;
          for (const Param& p : per_run) given = given || p.path == param.path;
          if (!given) per_run.push_back(param);
        }
      }
    }
  }

  // The runs: samples in the window, where each starts.
  std::vector<Run> runs(num_runs);
  const Eigen::VectorXd scene_q = model.InitialQ(), scene_v = model.InitialV();
  for (int r = 0; r < num_runs; ++r) {
    const Measurement& d = data[r];
    Run& run = runs[r];
    run.data = &d;
    if (d.time.size() != d.q.size())
      throw InputError({d.source, 0, 0}, "time and q differ in length");
    if (!d.v.empty() && d.v.size() != d.q.size())
      throw InputError({d.source, 0, 0}, "time and v differ in length");
    std::vector<bool> data_joint(model.joints.size(), d.joints.empty());
    for (const std::string& name : d.joints) {
      const int j = model.FindJoint(name);
      if (j < 0) throw InputError({d.source, 0, 0}, "names no joint '" + name + "' of the scene");
      data_joint[j] = true;
    }
    for (size_t j = 0; j < model.joints.size(); ++j) {
      if (joint_observed[j] && !data_joint[j] && model.joints[j].v_start >= 0)
        throw InputError({"--observe", 0, 0}, "joint '" + model.joints[j].name +
                                                  "' is observed but " + d.source +
                                                  " gives no coordinates for it");
    }
    for (size_t i = 0; i < d.time.size(); ++i) {
      if (d.q[i].size() != model.nq) {
        throw InputError({d.source, 0, 0},
                         "has " + std::to_string(d.q[i].size()) +
                             " joint coordinates per row; the scene has " +
                             std::to_string(model.nq));
      }
      if (!d.v.empty() && d.v[i].size() != model.nv) {
        throw InputError({d.source, 0, 0},
                         "has " + std::to_string(d.v[i].size()) +
                             " velocity coordinates per row; the scene has " +
                             std::to_string(model.nv));
      }
      const double t = d.time[i];
      if (t >= options.window_begin - 1e-12 && t <= options.window_end + 1e-12)
        run.samples.push_back(static_cast<int>(i));
    }
    if (run.samples.empty())
      throw InputError({d.source, 0, 0}, "no measurement time lies in the window");
    const int first = run.samples.front();
    if (options.fit_initial_state && run.samples.size() < 2) {
      throw InputError({d.source, 0, 0},
                       "--fit-initial-state needs at least two measurement times in the "
                       "window (the initial velocity is seen only through the motion); it "
                       "has " + std::to_string(run.samples.size()));
    }
    run.q_ref = scene_q;
    run.v_ref = scene_v;
    if (options.initial_state == InitialState::kData) {
      run.t0 = d.time[first];
      if (std::abs(run.t0) > 1e-12 && TimeDependent(model)) {
        throw InputError({"--initial-state", 0, 0},
                         "data: " + d.source + " starts at t0 = " + Short(run.t0) +
                             " s, and the scene has time-dependent inputs (signals, "
                             "trajectories, actuators or prescribed joints) that a run "
                             "started at t = 0 from that state would not follow; give a "
                             "window that starts at 0");
      }
      Eigen::VectorXd v_data(model.nv);
      if (!d.v.empty()) {
        v_data = d.v[first];
      } else {
        if (run.samples.size() < 2) {
          throw InputError({d.source, 0, 0},
                           "--initial-state data without recorded velocities needs two "
                           "measurement times in the window (v from the difference of the "
                           "first two); it has one");
        }
        const int second = run.samples[1];
        multibody::ConfigurationDifference(model, d.q[second], d.q[first], v_data);
        v_data /= d.time[second] - d.time[first];
      }
      for (const multibody::Joint& joint : model.joints) {
        const int j = model.FindJoint(joint.name);
        if (joint.v_start < 0 || !data_joint[j]) continue;
        run.q_ref.segment(joint.q_start, joint.nq) = d.q[first].segment(joint.q_start, joint.nq);
        run.v_ref.segment(joint.v_start, joint.nv) = v_data.segment(joint.v_start, joint.nv);
      }
      run.set_initial = true;
    }
    run.end_time = d.time[run.samples.back()] - run.t0;
    if (!(run.end_time > 0.0)) {
      throw InputError({d.source, 0, 0},
                       "the window holds only its run's first instant: nothing to fit");
    }
  }

  // Every run's own initial-state parameters, after the shared ones.
  for (int r = 0; r < num_runs; ++r) {
    Run& run = runs[r];
    for (int j = 0; j < num_shared; ++j) {
      run.columns.push_back(j);
      run.paths.push_back(params[j].path);
    }
    for (Param param : per_run) {
      param.run = r;
      run.columns.push_back(static_cast<int>(params.size()));
      run.paths.push_back(param.path);
      params.push_back(param);
      run.set_initial = true;
    }
    // Rotation offsets: the columns of all three tangents of their joint.
    for (const multibody::Joint& joint : model.joints) {
      const bool ball = joint.type == multibody::JointType::kBall;
      if (joint.v_start < 0 || (!ball && joint.type != multibody::JointType::kFree)) continue;
      RotationOffset rot;
      rot.right = ball;
      bool any = false;
      for (int a = 0; a < 3; ++a) {
        rot.param[a] = rot.column[a] = -1;
        for (size_t c = 0; c < run.columns.size(); ++c) {
          const Param& param = params[run.columns[c]];
          if (param.run == r && param.initial_q && param.coordinate == joint.v_start + a) {
            rot.param[a] = run.columns[c];
            rot.column[a] = static_cast<int>(c);
            any = true;
          }
        }
      }
      if (!any) continue;
      for (int a = 0; a < 3; ++a) {
        if (rot.column[a] >= 0) continue;
        rot.column[a] = static_cast<int>(run.columns.size());
        run.columns.push_back(-1);
        run.paths.push_back("joints." + joint.name + ".q[" + std::to_string(a) + "]");
      }
      run.rotations.push_back(rot);
    }
  }
  const int n = static_cast<int>(params.size());

  // The start and the scales.
  out.num_runs = num_runs;
  out.start.resize(n);
  for (int j = 0; j < n; ++j) {
    const Param& param = params[j];
    out.parameters.push_back(param.path);
    out.run.push_back(param.run);
    if (param.run >= 0) {
      out.scale.push_back(fit::ParameterScale::kLinear);
      const Run& run = runs[param.run];
      if (param.initial_v) {
        out.start[j] = run.v_ref[param.coordinate];
      } else {
        const int qi = coords.q_index[param.coordinate];
        out.start[j] = qi >= 0 ? run.q_ref[qi] : 0.0;
      }
      continue;
    }
    out.scale.push_back(fit::ParameterScale::kLog);
    out.start[j] = StartValue(model, param.path, ParseSensitivityPath(model, param.path));
    if (!(out.start[j] > 0.0) || !std::isfinite(out.start[j])) {
      Refuse("'" + param.path + "' starts at " + Short(out.start[j]) +
             ": a material or body parameter is fitted in ln p and needs a positive finite "
             "start; give one with --set " + param.path + "=VALUE");
    }
  }
  for (const Run& run : runs) {
    out.run_samples.push_back(static_cast<int>(run.samples.size()));
    out.run_t0.push_back(run.t0);
    out.num_samples += static_cast<int>(run.samples.size());
  }
  out.observed_coordinates = static_cast<int>(observed.size());
  out.num_residuals = out.num_samples * out.observed_coordinates;
  if (out.num_residuals <= n) {
    Refuse(std::to_string(n) + " parameters and only " + std::to_string(out.num_residuals) +
           " residuals (" + std::to_string(out.num_samples) + " measurement times x " +
           std::to_string(out.observed_coordinates) +
           " observed coordinates): give more data or fit fewer parameters");
  }

  Evaluator evaluator(factory, options, params, runs, coords, observed, weight);
  {
    std::string reason;
    if (!evaluator.Build(out.start, &reason))
      Refuse("the scene does not load at the starting values: " + reason);
  }
  for (int r = 0; r < num_runs; ++r) {
    Eigen::VectorXd q0, v0;
    evaluator.InitialState(r, out.start, &q0, &v0);
    out.initial_q_start.push_back(q0);
    out.initial_v_start.push_back(v0);
  }

  // Identifiability at the start.
  Eigen::VectorXd e0;
  Eigen::MatrixXd j0;
  std::string reason;
  if (!evaluator.Evaluate(out.start, true, &e0, &j0, &reason)) {
    Refuse("the scene does not run at the starting values: " + reason);
  }
  const Eigen::MatrixXd jfit = fit::FitJacobian(j0, out.start, out.scale);
  for (int j = 0; j < n; ++j) {
    if (ColumnVanishes(jfit, j)) {
      Refuse("'" + out.Label(j) +
             "' is not identifiable from this data: the observed coordinates do not depend "
             "on it in the window (zero sensitivity; e.g. a material no contact uses, "
             "friction while every contact sticks, an unobserved joint); leave it out or "
             "observe motion it changes");
    }
  }
  {
    const fit::FitStatistics s0 =
        fit::CalcFitStatistics(out.start, e0, j0, {}, {}, out.scale);
    if (!s0.unidentifiable.empty()) {
      std::vector<std::string> names;
      for (int j = 0; j < n; ++j) names.push_back(out.Label(j));
      Refuse("the parameters are not identifiable together from this data: the direction " +
             fit::DescribeDirection(s0.unidentifiable.front().log_direction, names) +
             " (in ln p of material parameters, p of initial-state ones) leaves the observed "
             "coordinates unchanged (singular value ratio " +
             Short(s0.unidentifiable.front().ratio) + "); fit fewer parameters");
    }
  }

  fit::LevenbergMarquardtOptions lm_options;
  lm_options.max_iterations = options.max_iterations;
  fit::ParameterBounds space;
  space.scale = out.scale;
  fit::ResidualFunction model_function = [&](const Eigen::VectorXd& p, bool want_jacobian,
                                             Eigen::VectorXd* e, Eigen::MatrixXd* de_dp) {
    return evaluator.Evaluate(p, want_jacobian, e, de_dp, nullptr);
  };
  out.lm = fit::LevenbergMarquardt(model_function, out.start, space, lm_options);
  out.statistics = fit::CalcFitStatistics(out.lm);
  if (out.lm.de_dp.cols() == n) {
    const Eigen::MatrixXd jend = fit::FitJacobian(out.lm.de_dp, out.lm.p, out.scale);
    for (int j = 0; j < n; ++j)
      if (ColumnVanishes(jend, j)) out.vanished.push_back(j);
  }
  out.kink_steps = evaluator.kink_steps();
  out.min_kink_distance = evaluator.min_kink_distance();
  for (int r = 0; r < num_runs; ++r) {
    Eigen::VectorXd q0, v0;
    evaluator.InitialState(r, out.lm.p, &q0, &v0);
    out.initial_q.push_back(q0);
    out.initial_v.push_back(v0);
  }
  return out;
}

}  // namespace csim::sim
