#pragma once
// Exit statuses of the csim executable (docs/cli.md "Exit status"). Scripts and batch
// systems branch on these, so they are part of the command-line contract.

namespace csim::app {

inline constexpr int kExitCompleted = 0;     ///< the command did what was asked
inline constexpr int kExitInvalidInput = 1;  ///< bad scene, override or option value
inline constexpr int kExitUsage = 2;         ///< bad command line (unknown option, missing argument)
inline constexpr int kExitSimFailed = 3;     ///< non-finite state or no convergence
inline constexpr int kExitIoError = 4;       ///< cannot read an input or write the output
/// 128 + signal number, the shell's convention: 130 for SIGINT, 143 for SIGTERM.
inline constexpr int kExitSignalBase = 128;

}  // namespace csim::app
