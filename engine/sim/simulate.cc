#include "engine/sim/simulate.h"

namespace csim::sim {

// Temporary: replaced by the real loop in the next commit (kept so the tree links).
RunResult Simulate(const multibody::Model&, const Settings&, const RunInfo& info,
                   Recorder& recorder, const RunControl&) {
  recorder.Begin(info);
  RunResult result;
  result.status = RunStatus::kFailed;
  result.reason = "the run loop is not implemented yet";
  recorder.Finish(result.status, result.reason);
  return result;
}

}  // namespace csim::sim
