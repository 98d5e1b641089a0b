#pragma once
// The subcommands of the csim executable (docs/cli.md). main.cc only parses the command
// line into these option structs; each command returns an exit status (app/exit_codes.h)
// and reports its own errors, so every path out of csim maps to a documented status.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/sim/simulate.h"

namespace csim::app {

enum class ProgressMode { kAuto, kOn, kOff };

/// Options of `csim run` (and of the `csim SCENE.yaml` shorthand).
struct RunOptions {
  std::string scene;                  ///< scene file path
  std::vector<std::string> sets;      ///< --set PATH=VALUE, in command-line order
  // Shorthand options; empty when not given. Each becomes a --set after `sets`.
  std::string output;                 ///< -o: settings.output.file
  std::string time_step;              ///< --dt: settings.time_step [s]
  std::string duration;               ///< --duration: settings.duration [s]
  std::string integrator;             ///< --integrator: settings.integrator (YAML, so a map works)
  std::string contact_model;          ///< --contact-model: settings.contact_model
  /// The options given on the command line, by long name ("--dt"): a shorthand given with
  /// an empty value (`--dt ''`) is rejected rather than read as "not given".
  std::vector<std::string> given;
  int threads = sim::Settings{}.threads;  ///< --threads; not a scene key
  /// --trace-solver STEP[,STEP...] as given (repeatable); not a scene key
  std::vector<std::string> trace_solver;
  /// `--sensitivities PATH[,PATH...]` as given (repeatable).
  std::vector<std::string> sensitivities;
  bool quiet = false;                 ///< -q: errors only, no summary line
  ProgressMode progress = ProgressMode::kAuto;
};

/// The override list a run records: the user's --set arguments in order, then one
/// `settings.KEY=VALUE` per shorthand option given (-o, --dt, --duration, --integrator,
/// --contact-model), so that the shorthand wins and is recorded in /scene/overrides too.
std::vector<std::string> BuildOverrides(const RunOptions& options);

/// Quotes `text` as a YAML double-quoted scalar, so a file name is read as a string.
std::string YamlQuote(const std::string& text);

/// The steps `--trace-solver` names (each argument a comma-separated list of integers),
/// ascending and without repeats, for a run of `steps` steps; throws InputError (located at
/// `--trace-solver`) for a STEP that is not an integer in [1, steps].
std::vector<int64_t> ParseTraceSteps(const std::vector<std::string>& arguments, int64_t steps);

/// The end-of-run line of docs/cli.md: status, steps, simulated time, wall time,
/// real-time factor, mean and max Newton iterations, max momentum error, output file.
std::string FormatSummary(const sim::RunResult& result, const std::string& output_file);

/// `csim run`: load and validate (exit 1 before any file is created), open the output
/// (exit 4), simulate with SIGINT/SIGTERM handling, print the summary. Returns the status.
int RunCommand(const RunOptions& options);

/// `csim check`: load and validate, print bodies, joints and coordinates to stdout; with
/// `expand`, print instead the scene with its `models:` expanded, as plain csim YAML.
int CheckCommand(const std::string& scene, const std::vector<std::string>& sets, bool expand);

/// `csim info`: summarise an output file on stdout.
int InfoCommand(const std::string& h5_path);

/// `csim --version`: version, git commit and dependency versions on stdout.
int VersionCommand();

/// Calls `command` and turns an escaping exception into a message on stderr and a
/// status: InputError -> 1 (its what() verbatim, `FILE:LINE:COL: message`), IoError -> 4,
/// anything else -> 3 (after an "internal error" message; csim never dies uncaught).
int ReportErrors(const std::function<int()>& command);

}  // namespace csim::app
