// csim: the command-line front end (docs/cli.md). This file only parses the command line
// and dispatches; the commands live in app/commands.cc.
//
// `csim SCENE.yaml` is the same as `csim run SCENE.yaml`: when the first positional
// argument is not a subcommand but names a YAML or existing file, "run" is inserted in
// front of the arguments. (A CLI11 positional on the main app would compete with the
// subcommand names, and a typo such as `csim rnu x.yaml` must stay a usage error.)

#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/commands.h"
#include "app/exit_codes.h"
#include "app/export_html.h"
#include "app/fit_command.h"
#include "app/reader_process.h"
#include "engine/io/hdf5_file.h"

namespace {

using csim::app::RunOptions;

const char* const kSubcommands[] = {"run", "check", "info", "export-html", "fit"};

bool IsSubcommand(const std::string& word) {
  for (const char* name : kSubcommands) {
    if (word == name) return true;
  }
  return false;
}

bool LooksLikeScene(const std::string& word) {
  auto ends_with = [&word](const std::string& tail) {
    return word.size() >= tail.size() && word.compare(word.size() - tail.size(), tail.size(), tail) == 0;
  };
  struct stat st;
  return ends_with(".yaml") || ends_with(".yml") || (stat(word.c_str(), &st) == 0 && S_ISREG(st.st_mode));
}

// The arguments after the program name, with "run" inserted for the `csim SCENE.yaml` form.
std::vector<std::string> Arguments(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& a : args) {
    if (a.empty() || a[0] == '-') continue;
    if (!IsSubcommand(a) && LooksLikeScene(a)) args.insert(args.begin(), "run");
    break;
  }
  return args;
}

void SetUpLogging(bool quiet, bool verbose) {
  // Logs go to stderr; stdout carries only results (info, check, --version).
  auto logger = spdlog::stderr_color_mt("csim");
  logger->set_pattern("csim: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(verbose ? spdlog::level::debug
                            : quiet ? spdlog::level::err : spdlog::level::info);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug etc. overrides the flags
}

void AddRunOptions(CLI::App& run, RunOptions& o, int& progress_flag) {
  run.add_option("scene", o.scene, "scene file (YAML, docs/scene-format.md)")->required();
  run.add_option("-o,--output", o.output, "output file (default: settings.output.file)");
  run.add_option("--dt", o.time_step, "time step [s] (settings.time_step)");
  run.add_option("--duration", o.duration, "simulated time [s] (settings.duration)");
  run.add_option("--integrator", o.integrator,
                 "explicit_euler, symplectic_euler, implicit_euler, midpoint or "
                 "'{theta: T, theta_q: TQ}' (settings.integrator)");
  run.add_option("--contact-model", o.contact_model,
                 "sap, lagged, lagged_regularized or similar (settings.contact_model)");
  run.add_option("--set", o.sets,
                 "PATH=VALUE: override any scene value, VALUE parsed as YAML (repeatable)")
      ->allow_extra_args(false);
  run.add_flag("--progress,!--no-progress", progress_flag,
               "progress line on stderr (default: on when stderr is a terminal)");
  run.add_option("--threads", o.threads,
                 "worker threads (default: " + std::to_string(o.threads) + ")");
  run.add_option("--trace-solver", o.trace_solver,
                 "STEP[,STEP...]: record every Newton iteration of these steps' contact "
                 "solves in /solver_trace (step 1 ends at t = dt; repeatable)")
      ->allow_extra_args(false);
  run.add_option("--sensitivities", o.sensitivities,
                 "PATH[,PATH...]: forward sensitivities of q and v with respect to these "
                 "parameters (materials.NAME.friction|dissipation_time|hunt_crossley, "
                 "joints.NAME.q[i]|v[i]) in /sensitivity (repeatable)")
      ->allow_extra_args(false);
}

int Dispatch(int argc, char** argv) {
  CLI::App app{"csim: a multibody simulator for robotics research (docs/cli.md)", "csim"};
  app.fallthrough();  // global flags such as -q may follow the subcommand
  app.require_subcommand(0, 1);
  app.footer(
      "`csim SCENE.yaml [options]` is `csim run SCENE.yaml [options]`.\n"
      "Exit status: 0 completed, 1 invalid input, 2 usage error, 3 simulation failed,\n"
      "4 I/O error, 130/143 interrupted by SIGINT/SIGTERM (the output is kept).");
  bool version = false, quiet = false, verbose = false;
  app.add_flag("--version", version, "print version, git commit and dependency versions");
  app.add_flag("-q,--quiet", quiet, "errors only");
  app.add_flag("-v,--verbose", verbose, "debug log");

  RunOptions run_options;
  int progress_flag = 0;
  CLI::App* run = app.add_subcommand("run", "simulate a scene and write an HDF5 file "
                                            "(`csim SCENE.yaml` means the same)");
  AddRunOptions(*run, run_options, progress_flag);

  std::string check_scene;
  std::vector<std::string> check_sets;
  CLI::App* check = app.add_subcommand("check", "validate a scene and print its bodies, "
                                                "joints and coordinates; writes nothing");
  check->add_option("scene", check_scene, "scene file (YAML)")->required();
  check->add_option("--set", check_sets, "PATH=VALUE override (repeatable)")
      ->allow_extra_args(false);
  bool check_expand = false;
  check->add_flag("--expand", check_expand,
                  "print the scene with its models: expanded, as plain csim YAML, instead");

  std::string info_file;
  CLI::App* info = app.add_subcommand("info", "summarise an output file");
  info->add_option("run", info_file, "output file (HDF5)")->required();

  csim::app::ExportHtmlOptions html_options;
  CLI::App* html = app.add_subcommand(
      "export-html",
      "one self-contained page (three.js inlined, opens from file://) that replays a run: "
      "3D view of every body's geometry, play/pause, time slider, contact forces");
  html->add_option("run", html_options.input, "output file of a run (HDF5)")->required();
  html->add_option("-o,--output", html_options.output, "page to write (default: RUN.html)");
  html->add_option("--max-frames", html_options.budget.max_frames,
                   "frames kept at most, evenly spaced rows, first and last always "
                   "(default: " + std::to_string(html_options.budget.max_frames) +
                       "); fewer when poses and contacts would exceed ~4 MB, "
                   "so a page stays under ~5 MB with three.js (~0.9 MB); at most 256 "
                   "contacts per frame; meshes are written once")
      ->check(CLI::Range(int64_t{2}, int64_t{1000000}));

  csim::app::FitOptions fit_options;
  CLI::App* fit = app.add_subcommand(
      "fit", "fit material parameters (and initial states) of a scene to measured joint "
             "coordinates (Levenberg-Marquardt, Jacobian from forward sensitivities)");
  fit->add_option("scene", fit_options.scene, "scene file (YAML)")->required();
  fit->add_option("--data", fit_options.data,
                  "MEAS: a csim output file (/time, /state/q) or a CSV of t, q_0, ...; "
                  "repeatable: several files make one ensemble fit with shared materials")
      ->required()
      ->allow_extra_args(false);
  fit->add_option("--param", fit_options.params,
                  "PATH[,PATH...]: any path of run --sensitivities: materials.NAME.friction|"
                  "dissipation_time|hunt_crossley|stiffness or bodies.NAME.mass (shared, "
                  "fitted in ln p) or joints.NAME.q[i]|v[i] (each run's initial state, "
                  "fitted linearly), starting from the scene's or data's value (repeatable)")
      ->allow_extra_args(false);
  fit->add_option("--set", fit_options.sets,
                  "PATH=VALUE override, applied before the parameters (repeatable); "
                  "sets a parameter's starting value")
      ->allow_extra_args(false);
  fit->add_option("--bound", fit_options.bounds,
                  "PATH=LO:HI: keep the --param PATH (a material or body parameter) within "
                  "[LO, HI] in its unit; either side may be empty (repeatable; default "
                  "unbounded)")
      ->allow_extra_args(false);
  fit->add_option("--window", fit_options.window,
                  "T0:T1: fit the measurement times in [T0, T1] s only (either side may "
                  "be empty)");
  fit->add_option("--initial-state", fit_options.initial_state,
                  "scene|data: each run starts from the scene's initial state (default "
                  "with one --data) or its data's first sample in the window (needed with "
                  "several --data)");
  fit->add_flag("--fit-initial-state", fit_options.fit_initial_state,
                "fit every run's initial q (tangent) and v of every joint coordinate too "
                "(nuisance parameters, per data file)");
  fit->add_option("--observe", fit_options.observe,
                  "JOINT[,JOINT...]: only these joints' coordinates enter the residuals "
                  "(repeatable; default all)")
      ->allow_extra_args(false);
  fit->add_option("--sigma", fit_options.sigma,
                  "POSITION,ANGLE: measurement noise in m and rad; residuals are weighted "
                  "by 1/sigma (default: unweighted)");
  fit->add_option("--max-iterations", fit_options.max_iterations,
                  "trial steps at most (default: 50)")
      ->check(CLI::Range(1, 100000));
  fit->add_option("-o,--output", fit_options.output,
                  "FIT.h5: the fit's values, standard errors, correlations, singular "
                  "values and history in /fit (docs/output-format.md)");

  std::vector<std::string> args = Arguments(argc, argv);
  std::vector<char*> cargs{argv[0]};
  for (std::string& a : args) cargs.push_back(a.data());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every other CLI11 error (codes 105, 106, ...) is a usage error.
    return app.exit(e) == 0 ? csim::app::kExitCompleted : csim::app::kExitUsage;
  }

  SetUpLogging(quiet, verbose);
  using csim::app::ReportErrors;
  if (version) return ReportErrors(csim::app::VersionCommand);
  if (run->parsed()) {
    run_options.quiet = quiet;
    for (const CLI::Option* option : run->get_options()) {
      if (option->count() > 0) run_options.given.push_back(option->get_name());
    }
    run_options.progress = progress_flag > 0   ? csim::app::ProgressMode::kOn
                           : progress_flag < 0 ? csim::app::ProgressMode::kOff
                                               : csim::app::ProgressMode::kAuto;
    return ReportErrors([&] { return csim::app::RunCommand(run_options); });
  }
  if (fit->parsed()) {
    return ReportErrors([&] { return csim::app::FitCommand(fit_options); });
  }
  if (check->parsed()) {
    return ReportErrors([&] { return csim::app::CheckCommand(check_scene, check_sets, check_expand); });
  }
  // Both read a file that may be damaged: in a child process (reader_process.h).
  if (info->parsed()) {
    return csim::app::RunInReaderProcess(info_file, [&] {
      return ReportErrors([&] { return csim::app::InfoCommand(info_file); });
    });
  }
  if (html->parsed()) {
    return csim::app::RunInReaderProcess(html_options.input, [&] {
      return ReportErrors([&] { return csim::app::ExportHtmlCommand(html_options, quiet); });
    });
  }
  std::fprintf(stderr, "%s", app.help().c_str());
  return csim::app::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  csim::io::DisableHdf5ExitCleanup();  // before any other HDF5 call (hdf5_file.h)
  // An output beyond `ulimit -f` then fails to write (EFBIG), reported with exit status 4
  // like a full disk, instead of SIGXFSZ killing csim without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  // Last line of defence: nothing escapes main (cli.md: never crash).
  try {
    return Dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csim: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "csim: internal error: unknown exception\n");
  }
  return csim::app::kExitSimFailed;
}
