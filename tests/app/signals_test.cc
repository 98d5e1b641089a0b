// app/signals.h in forked children (its handlers and flags are process-wide): a second
// SIGINT / SIGTERM ends csim at once, unless held while the output has no durable row,
// and then it ends csim when released.

#include "app/signals.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <functional>

#include <catch2/catch.hpp>

namespace csim::app {
namespace {

struct ChildOutcome {
  char reached = 0;  ///< what the child wrote to the pipe before its end, 0 if nothing
  int exit_status = -1;
};

// Runs `body` in a child with the stop handlers installed; `body` may write one byte to
// the pipe's end it is given to say how far it got.
ChildOutcome InChild(const std::function<void(int)>& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    static std::atomic<bool> stop{false};
    InstallStopHandlers(&stop);
    body(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  ChildOutcome outcome;
  if (read(fds[0], &outcome.reached, 1) != 1) outcome.reached = 0;
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  if (WIFEXITED(status)) outcome.exit_status = WEXITSTATUS(status);
  return outcome;
}

void Say(int fd, char c) { CHECK(write(fd, &c, 1) == 1); }

TEST_CASE("a second stop signal ends csim at once with 128 + N", "[signals]") {
  const ChildOutcome o = InChild([](int fd) {
    raise(SIGTERM);  // stops the run at its next step: the child goes on
    Say(fd, 'a');
    raise(SIGTERM);  // ends it here
    Say(fd, 'b');
  });
  CHECK(o.reached == 'a');
  CHECK(o.exit_status == 128 + SIGTERM);
}

TEST_CASE("a second stop signal held until the first row is durable ends csim on release",
          "[signals]") {
  const ChildOutcome o = InChild([](int fd) {
    HoldHardExit();
    raise(SIGINT);
    raise(SIGINT);  // held: the file would have no row yet
    Say(fd, ReceivedStopSignal() == SIGINT ? 'h' : '?');
    ReleaseHardExit();  // ends it here, with 130
    Say(fd, 'x');
  });
  CHECK(o.reached == 'h');
  CHECK(o.exit_status == 128 + SIGINT);
}

TEST_CASE("releasing with nothing held goes on, and a later second signal still ends csim",
          "[signals]") {
  const ChildOutcome o = InChild([](int fd) {
    HoldHardExit();
    raise(SIGINT);  // the first signal is never held: it only stops the run
    ReleaseHardExit();
    ReleaseHardExit();  // idempotent
    raise(SIGINT);
    Say(fd, 'x');
  });
  CHECK(o.reached == 0);
  CHECK(o.exit_status == 128 + SIGINT);
}

}  // namespace
}  // namespace csim::app
