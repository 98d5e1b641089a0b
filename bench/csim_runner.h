#pragma once
// Steps a loaded scene through csim's constrained step (integrator::StepWithContact), the
// same calls sim::Simulate makes, without a recorder and without contact reports, and
// returns each step's time and its split by stage.

#include <string>

#include "bench/step_series.h"
#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"

namespace csim::bench {

class CsimRunner {
 public:
  /// Keeps a reference to `scene`, which must outlive the runner. `threads`: the solver's
  /// (sap_solver.h; results do not depend on it). `stage_times`: time the step's stages
  /// (ContactStepWorkspace::SetStageTiming) for the samples' split.
  explicit CsimRunner(const io::LoadedScene& scene, int threads = 1, bool stage_times = true);

  /// Advances one step. Returns false (and sets error()) when the step failed.
  bool Step(StepSample* sample);

  const std::string& error() const { return error_; }
  const multibody::State& state() const { return state_; }
  /// The constrained step's workspace: the last step's contact problem and solve.
  const integrator::ContactStepWorkspace& workspace() const { return cws_; }
  /// One line stating the settings that matter for the comparison.
  std::string SettingsLine() const;

 private:
  const io::LoadedScene& scene_;
  integrator::ThetaParameters theta_;
  integrator::FreeMotionSettings free_motion_;
  contact::ContactParameters contact_;
  integrator::StepWorkspace ws_;
  integrator::ContactStepWorkspace cws_;
  multibody::Workspace energy_ws_;  // kinematics of the end state, for its kinetic energy
  multibody::State state_;
  long step_ = 0;
  std::string error_;
};

}  // namespace csim::bench
