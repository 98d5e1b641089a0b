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

/// From HoldHardExit until ReleaseHardExit a second signal does not end csim at once but
/// when released. Why: between the output file's creation and the flush of its first row
/// (the initial state, tens of milliseconds), ending at once left a file with no row at
/// all, which check_output.py rejects (found by tools/fuzz_inputs.py). Nothing in that
/// window can get stuck in a Newton iteration, so the wait is short. Release is idempotent.
void HoldHardExit();
void ReleaseHardExit();

}  // namespace csim::app
