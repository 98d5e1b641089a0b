#include "app/signals.h"

#include <signal.h>
#include <unistd.h>

#include <csignal>

#include "app/exit_codes.h"

namespace csim::app {
namespace {

// Only lock-free atomics and sig_atomic_t may be touched from a signal handler.
std::atomic<bool>* g_stop = nullptr;
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_hold_hard_exit = 0;  // HoldHardExit: a second signal waits
volatile std::sig_atomic_t g_held_signal = 0;     // the second signal that waits

void OnStopSignal(int signo) {
  if (g_signal != 0) {  // second signal: give up at once, unless held
    if (!g_hold_hard_exit) _exit(kExitSignalBase + signo);
    g_held_signal = signo;
    return;
  }
  g_signal = signo;
  if (g_stop != nullptr) g_stop->store(true);
}

}  // namespace

void InstallStopHandlers(std::atomic<bool>* stop) {
  static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is set from a handler");
  g_stop = stop;
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // system calls of the loop (HDF5 writes) are not cut short
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int ReceivedStopSignal() { return static_cast<int>(g_signal); }

void HoldHardExit() { g_hold_hard_exit = 1; }

void ReleaseHardExit() {
  g_hold_hard_exit = 0;
  // A signal held before the line above is seen here; one after it exits in the handler.
  if (g_held_signal != 0) _exit(kExitSignalBase + g_held_signal);
}

}  // namespace csim::app
