#pragma once
// SIGINT / SIGTERM handling for `csim run`. The first signal only raises a stop flag: the
// run loop finishes its current step, the recorder marks the file `interrupted`, and csim
// exits with 128 + the signal number. A second signal ends the process at once (the SWMR
// file still opens, holding every flushed row), so a stuck run can always be stopped.

#include <atomic>

namespace csim::app {

/// Installs the handlers. `stop` must outlive the process's use of the handlers (pass a
/// static). Calling it again replaces the flag.
void InstallStopHandlers(std::atomic<bool>* stop);

/// The signal number that raised the stop flag, or 0 if none arrived.
int ReceivedStopSignal();

}  // namespace csim::app
