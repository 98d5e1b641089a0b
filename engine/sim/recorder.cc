#include "engine/sim/recorder.h"

namespace csim::sim {

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kRunning: return "running";
    case RunStatus::kCompleted: return "completed";
    case RunStatus::kInterrupted: return "interrupted";
    case RunStatus::kFailed: return "failed";
  }
  return "unknown";
}

}  // namespace csim::sim
