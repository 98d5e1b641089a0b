#include "app/reader_process.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/exit_codes.h"
#include "engine/common/sanitizers.h"

#if CSIM_ADDRESS_SANITIZER
// From <sanitizer/common_interface_defs.h>, which Debian's GCC does not ship (its libasan
// exports the function).
extern "C" void __sanitizer_set_death_callback(void (*callback)(void));
#endif

namespace csim::app {

namespace {

// The signals of a fault in the reading code itself (a wild write, glibc's abort on a
// smashed heap), as opposed to those sent from outside.
bool IsCrash(int signal_number) {
  return signal_number == SIGSEGV || signal_number == SIGBUS || signal_number == SIGABRT ||
         signal_number == SIGFPE || signal_number == SIGILL || signal_number == SIGTRAP ||
         signal_number == SIGSYS;
}

#if CSIM_ADDRESS_SANITIZER
void Abort() { std::abort(); }
#endif

[[noreturn]] void RunChild(const std::function<int()>& command, pid_t parent) {
  // A reader outliving a killed csim would go on writing to the caller's terminal or
  // files: end with the parent (and check it did not end before the request).
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) std::_Exit(kExitSignalBase + SIGTERM);
  // A damaged input is reported below, not with a core file left in the user's directory.
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
#if CSIM_ADDRESS_SANITIZER
  // Under the sanitizers a wild read of libhdf5's (a length taken from a damaged file) is
  // caught before it faults, and the sanitizer ends the process with its report and exit
  // status 1, which the parent would pass on as invalid input. Ending by SIGABRT after
  // the report makes it the crash it is without them, reported below as an I/O error.
  __sanitizer_set_death_callback(Abort);
#endif
  int status = kExitSimFailed;
  try {
    status = command();
  } catch (...) {
    std::fprintf(stderr, "csim: internal error: unknown exception\n");
  }
  std::fflush(nullptr);
  std::_Exit(status);  // no exit handlers: they belong to the parent's libraries
}

}  // namespace

int RunInReaderProcess(const std::string& input_file, const std::function<int()>& command) {
  std::fflush(nullptr);  // what is buffered now is printed once, not by both processes
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) return command();
  if (child == 0) RunChild(command, parent);

  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "csim: error: lost the process reading '%s': %s\n",
                   input_file.c_str(), std::strerror(errno));
      return kExitIoError;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  const int signal_number = WTERMSIG(status);
  if (!IsCrash(signal_number)) {
    // Not the reader's fault (SIGPIPE from `csim info F | head`, SIGINT, SIGTERM, SIGKILL):
    // end the way csim ended before it read in a child, by the same signal.
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
    return kExitSignalBase + signal_number;  // a signal that does not end the process
  }
  std::fprintf(stderr,
               "csim: error: '%s': reading it crashed the reader (%s): the file is most "
               "likely damaged (libhdf5 does not check every length a file stores)\n",
               input_file.c_str(), strsignal(signal_number));
  return kExitIoError;
}

}  // namespace csim::app
