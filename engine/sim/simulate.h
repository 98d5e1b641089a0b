#pragma once
// The run loop: steps a model from its initial state to settings.duration, recording rows
// through a Recorder. Numerical failure, or a step that runs out of memory, ends the run with
// status kFailed and a reason; a stop request (SIGINT/SIGTERM) finishes the current step (or
// abandons a contact solve still iterating) and ends with kInterrupted.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "engine/contact/contact_parameters.h"
#include "engine/multibody/model.h"
#include "engine/sim/recorder.h"
#include "engine/sim/settings.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::sim {

/// Progress reported to the caller (for the progress line), at most a few times a second.
struct Progress {
  int64_t step = 0, total_steps = 0;
  double time = 0.0;        ///< simulated [s]
  double wall_time = 0.0;   ///< elapsed [s]
};

struct RunControl {
  /// When it becomes true the loop finishes the current step and returns kInterrupted.
  const std::atomic<bool>* stop_requested = nullptr;
  /// Called from the loop thread every ~0.2 s of wall time; may be empty.
  std::function<void(const Progress&)> on_progress;
  /// Called once the initial state's row has been recorded (the recorder makes the first
  /// row durable at once), before the first step; may be empty.
  std::function<void()> on_first_row;
};

/// What the end-of-run summary line (cli.md) reports.
struct RunResult {
  RunStatus status = RunStatus::kCompleted;
  std::string reason;                ///< why it failed or was interrupted
  int64_t steps = 0;                 ///< steps taken
  double sim_time = 0.0;             ///< simulated time reached [s]
  double wall_time = 0.0;            ///< [s]
  double mean_iterations = 0.0;      ///< Newton iterations per step
  int max_iterations = 0;
  double max_momentum_error = 0.0;
};

/// The steps a run takes: enough to cover settings.duration, ceil(duration / time_step),
/// so the run ends at duration or less than one step past it (at least one step).
int64_t StepCount(const Settings& settings);

/// The contact parameters Simulate uses for `settings` (the solver's are settings.solver).
contact::ContactParameters ContactParametersFor(const Settings& settings);

/// Runs the whole simulation. Calls recorder.Begin(info), Record for step 0 and every
/// settings.output.every-th step and the last one, and Finish.
RunResult Simulate(const multibody::Model& model, const Settings& settings, const RunInfo& info,
                   Recorder& recorder, const RunControl& control);

}  // namespace csim::sim
