#pragma once
// Steps an MJCF model (bench/mjcf_writer.h) in MuJoCo with mj_step and reports each
// step's time, Newton iterations and contacts. Compiled only when libmujoco-dev is found.

#include <functional>
#include <string>

#include "bench/step_series.h"

struct mjModel_;
struct mjData_;

namespace csim::bench {

class MujocoRunner {
 public:
  /// Compiles `mjcf` from memory (a MuJoCo VFS). Throws std::runtime_error with MuJoCo's
  /// message when it does not compile.
  explicit MujocoRunner(const std::string& mjcf);
  ~MujocoRunner();
  MujocoRunner(const MujocoRunner&) = delete;
  MujocoRunner& operator=(const MujocoRunner&) = delete;

  /// Sets the actuators' ctrl from the step's start time d->time (when `controls` is given,
  /// inside the timed part: csim's step samples its targets too), then one mj_step.
  /// Returns false when MuJoCo warned that its contact or constraint buffers overflowed or
  /// the state went bad (the step is then not comparable).
  using Controls = std::function<void(double t0, double* ctrl)>;
  bool Step(StepSample* sample, const Controls& controls = {});

  /// MuJoCo's version string.
  static std::string Version();

  /// The compiled model and its data (tests read the bodies' poses from them).
  const mjModel_* model() const { return m_; }
  const mjData_* data() const { return d_; }
  /// mj_forward: the poses and derived quantities of the current state, without stepping.
  void Forward();

 private:
  mjModel_* m_ = nullptr;
  mjData_* d_ = nullptr;
};

}  // namespace csim::bench
