#include "app/commands.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>
#include <system_error>

#include <spdlog/spdlog.h>

#include "app/exit_codes.h"
#include "app/progress_line.h"
#include "app/signals.h"
#include "engine/common/comma_separated.h"
#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "engine/contact/collision_setup.h"
#include "engine/io/dependency_versions.h"
#include "engine/io/hdf5_recorder.h"
#include "engine/io/run_summary.h"
#include "engine/io/scene_loader.h"
#include "engine/io/scene_overrides.h"
#include "engine/sim/sensitivity_paths.h"

namespace csim::app {
namespace {

// More worker threads than this is a typo, not a machine: a huge count takes minutes to
// start and ignores SIGTERM meanwhile. Islands are the unit of parallel work, so even big
// machines gain nothing from thousands.
constexpr int kMaxThreads = 256;

// The stop flag handed to the run loop; static because the signal handler writes it.
std::atomic<bool> g_stop_requested{false};

bool ProgressEnabled(const RunOptions& options) {
  switch (options.progress) {
    case ProgressMode::kOn: return true;
    case ProgressMode::kOff: return false;
    case ProgressMode::kAuto: break;
  }
  return !options.quiet && isatty(STDERR_FILENO) == 1;
}

int ExitStatusOf(const sim::RunResult& result) {
  switch (result.status) {
    case sim::RunStatus::kCompleted: return kExitCompleted;
    case sim::RunStatus::kFailed: return kExitSimFailed;
    case sim::RunStatus::kInterrupted: {
      const int signo = ReceivedStopSignal();
      return kExitSignalBase + (signo != 0 ? signo : 2);  // SIGINT unless told otherwise
    }
    case sim::RunStatus::kRunning: break;
  }
  return kExitSimFailed;  // the loop must not return kRunning; treat it as a failure
}

// "-" for a joint that owns no coordinates (fixed or prescribed), else "[start, end)".
std::string CoordinateRange(int start, int count) {
  if (start < 0 || count == 0) return "-";
  return "[" + std::to_string(start) + ", " + std::to_string(start + count) + ")";
}

std::string BodyName(const multibody::Model& model, int b) {
  return b < 0 ? std::string("world") : model.bodies[b].name;
}

// Contacts within the margin at the initial state: overlaps here are usually a scene error.
void PrintInitialContacts(const io::LoadedScene& scene) {
  const multibody::Model& model = scene.model;
  const Eigen::VectorXd q0 = model.InitialQ();
  const auto contacts = contact::FindContactsAt(model, 0.0, q0, scene.settings.contact_margin);
  std::printf("contacts at t = 0 (margin %g m): %zu\n", scene.settings.contact_margin, contacts.size());
  for (const geometry::PointContact& c : contacts) {
    std::printf("  %-12s / %-12s phi0 %+.3e m at [%.4g, %.4g, %.4g], normal [%.3g, %.3g, %.3g]\n",
                BodyName(model, c.body_a).c_str(), BodyName(model, c.body_b).c_str(), c.phi0,
                c.p_WC.x(), c.p_WC.y(), c.p_WC.z(), c.nhat_AB_W.x(), c.nhat_AB_W.y(), c.nhat_AB_W.z());
  }
}

void PrintModel(const io::LoadedScene& scene) {
  const multibody::Model& model = scene.model;
  const sim::Settings& s = scene.settings;
  std::printf("scene %s (%s)\n", scene.name.c_str(), scene.file.c_str());
  std::printf("settings: time_step %g s, duration %g s, integrator %s (theta %g, theta_q %g), "
              "contact_model %s, output %s\n",
              s.time_step, s.duration, s.integrator.name.c_str(), s.integrator.theta,
              s.integrator.theta_q, sim::ContactModelName(s.contact_model),
              s.output.file.c_str());
  std::printf("bodies: %d\n", model.num_bodies());
  for (int i = 0; i < model.num_bodies(); ++i) {
    const multibody::Body& b = model.bodies[i];
    std::printf("  %2d  %-20s mass %g kg, com [%g, %g, %g] m, %zu geometries\n", i,
                b.name.c_str(), b.mass, b.com.x(), b.com.y(), b.com.z(), b.geometry.size());
  }
  std::printf("joints: %zu\n", model.joints.size());
  for (size_t i = 0; i < model.joints.size(); ++i) {
    const multibody::Joint& j = model.joints[i];
    const std::string parent = j.parent < 0 ? "world" : model.bodies[j.parent].name;
    const std::string child = j.child < 0 ? "?" : model.bodies[j.child].name;
    std::printf("  %2zu  %-20s %-9s %s -> %s  q%s v%s%s\n", i, j.name.c_str(),
                multibody::JointTypeName(j.type), parent.c_str(), child.c_str(),
                CoordinateRange(j.q_start, j.nq).c_str(),
                CoordinateRange(j.v_start, j.nv).c_str(), j.prescribed ? "  (prescribed)" : "");
  }
  // Prescribed and fixed joints own no slots in v, so nv counts the degrees of freedom.
  std::printf("nq = %d, nv = %d, degrees of freedom = %d\n", model.nq, model.nv, model.nv);
  if (!model.actuators.empty()) std::printf("actuators: %zu\n", model.actuators.size());
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const multibody::Actuator& a = model.actuators[i];
    std::printf("  %2zu  %-20s joint %s, v[%d], ", i, a.name.c_str(),
                model.joints[a.joint].name.c_str(), a.dof);
    if (a.pd) {
      std::printf("kp %g, kd %g", a.kp, a.kd);
    } else {
      std::printf("force actuator");
    }
    std::printf(", effort limit %g\n", a.effort_limit);
  }
  std::printf("world geometries: %zu\n", model.world_geometry.size());
  PrintInitialContacts(scene);
  for (const std::string& warning : scene.warnings) std::printf("warning: %s\n", warning.c_str());
  for (int b : contact::BodiesFilteredFromWorld(model))
    std::printf("note: body '%s' is jointed to the world without `collide: true`, so it never "
                "touches the world's geometry\n", model.bodies[b].name.c_str());
  const std::vector<std::string> fallback = contact::HydroelasticFallbackPairs(model);
  constexpr size_t kMaxListed = 20;
  for (size_t i = 0; i < std::min(fallback.size(), kMaxListed); ++i)
    std::printf("note: point contact, not a hydroelastic surface, between %s\n",
                fallback[i].c_str());
  if (fallback.size() > kMaxListed)
    std::printf("note: ... and %zu more pairs with point contact\n", fallback.size() - kMaxListed);
}

/// A shorthand option of `run` and the settings key it overrides.
struct Shorthand {
  const char* option;        ///< as typed: "--dt"
  const char* key;           ///< under settings: "time_step"
  const std::string* value;  ///< the option's value; empty when not given
  bool quoted;               ///< a file name: quoted so that YAML reads it as a string
};

std::vector<Shorthand> Shorthands(const RunOptions& o) {
  return {{"--output", "output.file", &o.output, true},
          {"--dt", "time_step", &o.time_step, false},
          {"--duration", "duration", &o.duration, false},
          {"--integrator", "integrator", &o.integrator, false},
          {"--contact-model", "contact_model", &o.contact_model, false}};
}

std::string OverrideOf(const Shorthand& s) {
  return std::string("settings.") + s.key + "=" + (s.quoted ? YamlQuote(*s.value) : *s.value);
}

/// An error inside a shorthand's override (`--set settings.time_step=abc:1:20`) located at
/// the option the user typed instead (`--dt abc:1:6`); any other error unchanged.
InputError AtShorthand(const InputError& e, const RunOptions& options) {
  for (const Shorthand& s : Shorthands(options)) {
    if (s.value->empty()) continue;
    const std::string argument = OverrideOf(s);
    if (e.where().file != io::OverrideFileName(argument)) continue;
    const int value_start = static_cast<int>(argument.find('=')) + 1;  // 0-based
    const int offset = std::max(0, e.where().column - 1 - value_start - (s.quoted ? 1 : 0));
    const std::string typed = std::string(s.option) + " " + *s.value;
    return InputError({typed, 1, static_cast<int>(std::string(s.option).size()) + 2 + offset},
                      e.message());
  }
  return e;
}

}  // namespace

std::string YamlQuote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> BuildOverrides(const RunOptions& options) {
  std::vector<std::string> overrides = options.sets;
  for (const Shorthand& s : Shorthands(options)) {
    if (!s.value->empty()) overrides.push_back(OverrideOf(s));
  }
  return overrides;
}

std::vector<int64_t> ParseTraceSteps(const std::vector<std::string>& arguments, int64_t steps) {
  std::vector<int64_t> out;
  const auto fail = [steps](const std::string& token, const std::string& why) {
    throw InputError({"--trace-solver", 0, 0},
                     "'" + token + "' " + why + ": STEP is an integer from 1 (the step ending at "
                     "t = time_step) to " + std::to_string(steps) + " (this run's steps)");
  };
  // The flags' one splitting rule (engine/common/comma_separated.h); an empty item is no
  // integer.
  const std::vector<std::string> tokens = SplitCommaSeparated(
      arguments, [&](const std::string&) { fail("", "is not an integer"); });
  for (const std::string& token : tokens) {
    int64_t value = 0;
    const char* end = token.data() + token.size();
    const auto [last, error] = std::from_chars(token.data(), end, value);
    if (error != std::errc() || last != end) fail(token, "is not an integer");
    if (value < 1 || value > steps) fail(token, "is not a step of this run");
    out.push_back(value);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string FormatSummary(const sim::RunResult& r, const std::string& output_file) {
  const double rtf = r.wall_time > 0 ? r.sim_time / r.wall_time : 0.0;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: %lld steps, simulated %.6g s in %.3g s wall (%.3gx real time), "
                "Newton iterations mean %.2f max %d, max momentum error %.3g, output %s",
                sim::RunStatusName(r.status), static_cast<long long>(r.steps), r.sim_time,
                r.wall_time, rtf, r.mean_iterations, r.max_iterations, r.max_momentum_error,
                output_file.c_str());
  return buf;
}

int RunCommand(const RunOptions& options) {
  InstallStopHandlers(&g_stop_requested);
  if (options.threads < 1 || options.threads > kMaxThreads) {
    throw InputError({"--threads", 0, 0}, "must be in [1, " + std::to_string(kMaxThreads) +
                                              "], got " + std::to_string(options.threads));
  }
  for (const Shorthand& s : Shorthands(options)) {
    if (s.value->empty() &&
        std::find(options.given.begin(), options.given.end(), s.option) != options.given.end())
      throw InputError({s.option, 0, 0}, "expected a value, got an empty one");
  }
  // Load and validate everything before the output file exists (cli.md: exit 1 writes nothing).
  io::LoadedScene scene;
  try {
    scene = io::LoadScene(options.scene, BuildOverrides(options));
  } catch (const InputError& e) {
    throw AtShorthand(e, options);
  }
  scene.settings.threads = options.threads;
  const std::string& output = scene.settings.output.file;
  std::error_code same_error;
  if (std::filesystem::equivalent(scene.file, output, same_error)) {
    throw InputError({options.output.empty() ? scene.file : "--output", 0, 0},
                     "the output file '" + output + "' is the scene file itself; csim will "
                     "not overwrite its input");
  }
  for (const std::string& warning : scene.warnings) spdlog::warn("{}", warning);
  for (int b : contact::BodiesFilteredFromWorld(scene.model))
    spdlog::warn("body '{}' is jointed to the world without `collide: true`, so it never "
                 "touches the world's geometry", scene.model.bodies[b].name);
  spdlog::debug("scene '{}' from {}: {} bodies, nq {}, nv {}, {} overrides, output {}",
                scene.name, scene.file, scene.model.num_bodies(), scene.model.nq,
                scene.model.nv, scene.overrides.size(), output);
  if (const int signo = ReceivedStopSignal()) {
    spdlog::warn("interrupted by {} before the first step; no output written",
                 signo == SIGTERM ? "SIGTERM" : "SIGINT");
    return kExitSignalBase + signo;
  }
  const int64_t steps = sim::StepCount(scene.settings);
  // Before the output exists: a step the run never reaches is an error, not an empty trace.
  scene.settings.trace_solver_steps = ParseTraceSteps(options.trace_solver, steps);
  // Likewise a parameter path that names nothing (Simulate parses them again).
  scene.settings.sensitivities = sim::SplitSensitivityPaths(options.sensitivities);
  sim::ParseSensitivityPaths(scene.model, scene.settings.sensitivities);
  const double end_time = static_cast<double>(steps) * scene.settings.time_step;
  if (end_time > scene.settings.duration * (1.0 + 1e-9)) {
    spdlog::warn("duration {} s is not a whole number of time steps of {} s: the run takes "
                 "{} steps and ends at t = {} s", scene.settings.duration,
                 scene.settings.time_step, steps, end_time);
  }

  // A second signal from here until the file holds its first row waits (signals.h).
  HoldHardExit();
  struct Release {
    ~Release() { ReleaseHardExit(); }  // also when the recorder throws
  } release;
  io::Hdf5Recorder recorder(output);
  sim::RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  info.scene_name = scene.name;
  info.scene_file = scene.file;
  info.scene_yaml = scene.yaml_text;
  info.overrides = scene.overrides;

  ProgressLine progress(stderr, ProgressEnabled(options), scene.settings.duration);
  sim::RunControl control;
  control.stop_requested = &g_stop_requested;
  control.on_progress = [&progress](const sim::Progress& p) { progress.Update(p); };
  control.on_first_row = ReleaseHardExit;
  const sim::RunResult result =
      sim::Simulate(scene.model, scene.settings, info, recorder, control);
  progress.Clear();

  if (result.status == sim::RunStatus::kFailed) {
    spdlog::error("simulation failed: {}", result.reason);
  } else if (result.status == sim::RunStatus::kInterrupted) {
    spdlog::warn("{} by {}; the file keeps every recorded step",
                 result.reason.empty() ? "interrupted" : result.reason,
                 ReceivedStopSignal() == SIGTERM ? "SIGTERM" : "SIGINT");
  }
  if (!options.quiet) std::fprintf(stderr, "csim: %s\n", FormatSummary(result, output).c_str());
  return ExitStatusOf(result);
}

int CheckCommand(const std::string& scene_file, const std::vector<std::string>& sets,
                 bool expand) {
  std::string expanded;
  const io::LoadedScene scene = io::LoadScene(scene_file, sets, expand ? &expanded : nullptr);
  if (expand) {
    // The scene is valid (it loaded): print it, warnings to stderr as for a run.
    for (const std::string& warning : scene.warnings) spdlog::warn("{}", warning);
    std::fputs(expanded.c_str(), stdout);
    return kExitCompleted;
  }
  PrintModel(scene);
  return kExitCompleted;
}

int InfoCommand(const std::string& h5_path) {
  const std::string text = io::DescribeRun(h5_path);
  std::fputs(text.c_str(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  return kExitCompleted;
}

int VersionCommand() {
  std::printf("csim %s\n%s", io::VersionString().c_str(), io::DependencyVersions().c_str());
  return kExitCompleted;
}

int ReportErrors(const std::function<int()>& command) {
  try {
    return command();
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitInvalidInput;
  } catch (const IoError& e) {
    std::fprintf(stderr, "csim: error: %s\n", e.what());
    return kExitIoError;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "csim: error: out of memory\n");
    return kExitSimFailed;
  } catch (const std::system_error& e) {  // a resource the system refused, as out of memory
    std::fprintf(stderr, "csim: error: %s\n", e.what());
    return kExitSimFailed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csim: internal error: %s\n", e.what());
    return kExitSimFailed;
  }
}

}  // namespace csim::app
