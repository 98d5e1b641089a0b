#include "engine/sim/fit_runs.h"

#include <cmath>

#include "engine/common/input_error.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/fit_messages.h"

namespace csim::sim {
namespace {

// Whether a run's inputs depend on time, so that it cannot start at a data time t0 > 0 by
// shifting the clock.
bool TimeDependent(const multibody::Model& model) {
  if (model.signals.size() > 0 || !model.trajectories.empty() || !model.actuators.empty())
    return true;
  for (const multibody::Joint& joint : model.joints)
    if (joint.prescribed) return true;
  return false;
}

// Checks that `d` fits the scene: as many times as rows, rows of the scene's widths, only
// the scene's joints, every observed joint among them. Returns, per joint, whether the data
// gives its coordinates.
std::vector<bool> CheckMeasurement(const multibody::Model& model, const Measurement& d,
                                   const ObservedCoordinates& observed) {
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
    if (observed.joint[j] && !data_joint[j] && model.joints[j].v_start >= 0)
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
  }
  return data_joint;
}

// The indices of d's measurement times in the window (to 1e-12 s).
std::vector<int> SamplesInWindow(const Measurement& d, const TrajectoryFitOptions& options) {
  std::vector<int> samples;
  for (size_t i = 0; i < d.time.size(); ++i) {
    const double t = d.time[i];
    if (t >= options.window_begin - 1e-12 && t <= options.window_end + 1e-12)
      samples.push_back(static_cast<int>(i));
  }
  return samples;
}

// --initial-state data: the run starts at its first sample's time t0 (refused when the
// scene's inputs depend on time) from q_meas(t0) and the recorded v, or else the tangent
// difference of its first two samples over their time step, for the joints the data gives.
void StartFromData(const multibody::Model& model, const Measurement& d,
                   const std::vector<bool>& data_joint, FitRun* run) {
  const int first = run->samples.front();
  run->t0 = d.time[first];
  if (std::abs(run->t0) > 1e-12 && TimeDependent(model)) {
    throw InputError({"--initial-state", 0, 0},
                     "data: " + d.source + " starts at t0 = " + ShortNumber(run->t0) +
                         " s, and the scene has time-dependent inputs (signals, "
                         "trajectories, actuators or prescribed joints) that a run "
                         "started at t = 0 from that state would not follow; give a "
                         "window that starts at 0");
  }
  Eigen::VectorXd v_data(model.nv);
  if (!d.v.empty()) {
    v_data = d.v[first];
  } else {
    if (run->samples.size() < 2) {
      throw InputError({d.source, 0, 0},
                       "--initial-state data without recorded velocities needs two "
                       "measurement times in the window (v from the difference of the "
                       "first two); it has one");
    }
    const int second = run->samples[1];
    multibody::ConfigurationDifference(model, d.q[second], d.q[first], v_data);
    v_data /= d.time[second] - d.time[first];
  }
  for (const multibody::Joint& joint : model.joints) {
    const int j = model.FindJoint(joint.name);
    if (joint.v_start < 0 || !data_joint[j]) continue;
    run->q_ref.segment(joint.q_start, joint.nq) = d.q[first].segment(joint.q_start, joint.nq);
    run->v_ref.segment(joint.v_start, joint.nv) = v_data.segment(joint.v_start, joint.nv);
  }
  run->set_initial = true;
}

}  // namespace

FitRun SetUpRun(const multibody::Model& model, const Measurement& d,
                const TrajectoryFitOptions& options, const ObservedCoordinates& observed) {
  FitRun run;
  run.data = &d;
  const std::vector<bool> data_joint = CheckMeasurement(model, d, observed);
  run.samples = SamplesInWindow(d, options);
  if (run.samples.empty())
    throw InputError({d.source, 0, 0}, "no measurement time lies in the window");
  if (options.fit_initial_state && run.samples.size() < 2) {
    throw InputError({d.source, 0, 0},
                     "--fit-initial-state needs at least two measurement times in the "
                     "window (the initial velocity is seen only through the motion); it "
                     "has " + std::to_string(run.samples.size()));
  }
  run.q_ref = model.InitialQ();
  run.v_ref = model.InitialV();
  if (options.initial_state == InitialState::kData) StartFromData(model, d, data_joint, &run);
  run.end_time = d.time[run.samples.back()] - run.t0;
  if (!(run.end_time > 0.0)) {
    throw InputError({d.source, 0, 0},
                     "the window holds only its run's first instant: nothing to fit");
  }
  return run;
}

void AssignRunColumns(const multibody::Model& model, int num_shared,
                      const std::vector<FitParameter>& initial_state_templates,
                      std::vector<FitParameter>* params, std::vector<FitRun>* runs) {
  for (int r = 0; r < static_cast<int>(runs->size()); ++r) {
    FitRun& run = (*runs)[r];
    for (int j = 0; j < num_shared; ++j) {
      run.columns.push_back(j);
      run.paths.push_back((*params)[j].path);
    }
    for (FitParameter param : initial_state_templates) {
      param.run = r;
      run.columns.push_back(static_cast<int>(params->size()));
      run.paths.push_back(param.path);
      params->push_back(param);
      run.set_initial = true;
    }
    run.rotations = AddRotationOffsets(model, *params, r, &run.columns, &run.paths);
  }
}

}  // namespace csim::sim
