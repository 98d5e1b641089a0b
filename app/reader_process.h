#pragma once
// The commands that read a user's output file (`info`, `export-html`) run in a child
// process. Why: libhdf5 1.10 trusts the lengths a file stores for its variable-length
// strings (the global heap), so one damaged byte can make H5Aread copy past its buffer and
// kill the process (SIGSEGV, or glibc's abort on the smashed heap); found by mutating
// output files, and no call of the library checks those lengths first. cli.md promises
// that csim never crashes: a reader that dies of a signal becomes exit status 4 with a
// message naming the file, like any other unreadable input.

#include <functional>
#include <string>

namespace csim::app {

/// Runs `command` (which reports its own errors and returns an exit status) in a forked
/// child and returns that status. If the child dies of a fault (SIGSEGV, SIGBUS, SIGABRT,
/// ...), prints an error naming `input_file` and returns 4; if it dies of a signal sent
/// from outside (SIGPIPE, SIGINT, SIGTERM, SIGKILL), csim ends by the same signal, as it did
/// before it read in a child. Without a process to spare (fork fails), runs `command` here.
int RunInReaderProcess(const std::string& input_file, const std::function<int()>& command);

}  // namespace csim::app
