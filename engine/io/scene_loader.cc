#include "engine/io/scene_loader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "engine/io/model_builder.h"
#include "engine/io/model_expansion.h"
#include "engine/io/scene_overrides.h"
#include "engine/io/scene_warnings.h"
#include "engine/io/yaml_reader.h"
#include "engine/io/yaml_text_checks.h"

namespace csim::io {
namespace {

constexpr int kFormatVersion = 1;

/// "scenes/arm.yaml" -> "arm".
std::string FileStem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base;
}

/// Directory of `path`, "" when it has none (mesh files are relative to it).
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// The one YAML document of a scene (yaml_text_checks.h), or an InputError located in it.
YAML::Node ParseYaml(const std::string& text, const std::string& path) {
  YAML::Node root;
  if (auto problem = ParseOneDocument(text, &root)) {
    throw InputError({path, problem->line + 1, problem->column + 1},
                     "invalid YAML: " + problem->what);
  }
  return root;
}

// ---- settings -----------------------------------------------------------------------------

sim::IntegratorSettings ReadIntegrator(const NodeReader& node) {
  sim::IntegratorSettings out;
  if (node.IsMap()) {
    node.CheckKeys({"theta", "theta_q"});
    out.name = "theta";
    for (const char* key : {"theta", "theta_q"}) {
      const double value = node.Get(key).AsDouble();
      if (value < 0 || value > 1) node.Get(key).Fail(std::string(key) + " must be in [0, 1]");
    }
    out.theta = node.Get("theta").AsDouble();
    out.theta_q = node.Get("theta_q").AsDouble();
    return out;
  }
  const std::string name = node.AsString();
  if (!sim::NamedIntegrator(name, &out)) {
    node.Fail("unknown integrator '" + name +
              "' (expected explicit_euler, symplectic_euler, implicit_euler, midpoint or a map "
              "{theta, theta_q})");
  }
  return out;
}

/// If `key` is present, sets *out to the value of its named choice; any other name fails
/// with "unknown <what> '<name>' (expected a, b or c)".
template <class T>
void ReadChoice(const NodeReader& node, const char* key, const char* what,
                std::initializer_list<std::pair<const char*, T>> choices, T* out) {
  const auto value = node.Find(key);
  if (!value) return;
  const std::string name = value->AsString();
  std::string expected;
  int i = 0;
  for (const auto& [choice, result] : choices) {
    if (name == choice) {
      *out = result;
      return;
    }
    const int remaining = static_cast<int>(choices.size()) - ++i;
    expected += std::string(choice) + (remaining > 1 ? ", " : remaining == 1 ? " or " : "");
  }
  value->Fail(std::string("unknown ") + what + " '" + name + "' (expected " + expected + ")");
}

void ReadSolver(const NodeReader& node, solver::SapSolverParameters& s) {
  node.CheckKeys({"relative_tolerance", "absolute_tolerance", "max_iterations", "line_search",
                  "predict_stiction", "prediction_iterations", "warm_start",
                  "exact_guess_fraction", "predict_crossings", "defer_separated"});
  s.defer_separated = node.BoolOr("defer_separated", s.defer_separated);
  s.exact_guess_fraction = node.NonNegativeOr("exact_guess_fraction", s.exact_guess_fraction);
  if (s.exact_guess_fraction > 1.0)
    node.Get("exact_guess_fraction").Fail("exact_guess_fraction must be in [0, 1]");
  s.predict_stiction = node.BoolOr("predict_stiction", s.predict_stiction);
  s.predict_crossings = node.BoolOr("predict_crossings", s.predict_crossings);
  s.prediction_iterations = node.IntOr("prediction_iterations", s.prediction_iterations);
  if (s.prediction_iterations < 1)
    node.Get("prediction_iterations").Fail("prediction_iterations must be >= 1");
  s.relative_tolerance = node.PositiveOr("relative_tolerance", s.relative_tolerance);
  s.absolute_tolerance = node.PositiveOr("absolute_tolerance", s.absolute_tolerance);
  s.max_iterations = node.IntOr("max_iterations", s.max_iterations);
  if (s.max_iterations < 1) node.Get("max_iterations").Fail("max_iterations must be >= 1");
  ReadChoice(node, "line_search", "line search",
             {{"exact", solver::SapLineSearch::kExact},
              {"backtracking", solver::SapLineSearch::kBacktracking}},
             &s.line_search);
  ReadChoice(node, "warm_start", "warm start",
             {{"extrapolated", solver::WarmStart::kExtrapolated},
              {"previous", solver::WarmStart::kPrevious}},
             &s.warm_start);
}

void ReadOutput(const NodeReader& node, sim::OutputSettings& o) {
  node.CheckKeys(
      {"file", "every", "contacts", "contact_surfaces", "compression", "condition_number"});
  o.file = node.StringOr("file", o.file);
  o.every = node.IntOr("every", o.every);
  if (o.every < 1) node.Get("every").Fail("every must be >= 1");
  o.contacts = node.BoolOr("contacts", o.contacts);
  o.contact_surfaces = node.BoolOr("contact_surfaces", o.contact_surfaces);
  // The polygons are recorded as the surfaces' /contacts entries: nothing to attach them to.
  if (o.contact_surfaces && !o.contacts)
    node.Get("contact_surfaces")
        .Fail("contact_surfaces needs contacts: true (each polygon is one recorded contact)");
  o.condition_number = node.BoolOr("condition_number", o.condition_number);
  o.compression = node.IntOr("compression", o.compression);
  if (o.compression < 0 || o.compression > 9)
    node.Get("compression").Fail("compression must be a gzip level from 0 (none) to 9");
}

/// The number of steps the run loop counts in an int64; beyond 2^53 duration / time_step
/// is not even an exact integer any more.
constexpr double kMaxSteps = 9007199254740992.0;  // 2^53

/// Fails unless duration / time_step is a step count the run can hold.
void CheckStepCount(const NodeReader& node, const sim::Settings& s) {
  const double steps = s.duration / s.time_step;
  if (steps <= kMaxSteps) return;
  const auto at = node.Find("time_step") ? node.Find("time_step") : node.Find("duration");
  char text[160];
  std::snprintf(text, sizeof text,
                "duration %g s / time_step %g s = %.3g steps, more than a run can count "
                "(2^53)", s.duration, s.time_step, steps);
  (at ? *at : node).Fail(text);
}

/// Fills `s` from `settings:` and returns settings.gravity [m/s^2] if given (it lives in
/// the Model).
std::optional<Eigen::Vector3d> ReadSettings(const NodeReader& node, sim::Settings& s) {
  node.CheckKeys({"time_step", "duration", "gravity", "integrator", "contact_model",
                  "near_rigid_threshold", "stiction_sigma", "stiction_tolerance",
                  "contact_margin", "delassus_estimate", "contact_surface", "tree_solver",
                  "gyroscopic", "solver", "output"});
  s.time_step = node.PositiveOr("time_step", s.time_step);
  s.duration = node.PositiveOr("duration", s.duration);
  CheckStepCount(node, s);
  if (auto i = node.Find("integrator")) s.integrator = ReadIntegrator(*i);
  if (auto cm = node.Find("contact_model")) {
    if (!sim::ParseContactModel(cm->AsString(), &s.contact_model)) {
      cm->Fail("unknown contact model '" + cm->AsString() +
               "' (expected sap, lagged, lagged_regularized or similar)");
    }
  }
  s.near_rigid_threshold = node.PositiveOr("near_rigid_threshold", s.near_rigid_threshold);
  s.stiction_sigma = node.PositiveOr("stiction_sigma", s.stiction_sigma);
  s.stiction_tolerance = node.PositiveOr("stiction_tolerance", s.stiction_tolerance);
  s.contact_margin = node.NonNegativeOr("contact_margin", s.contact_margin);
  ReadChoice(node, "delassus_estimate", "Delassus estimate",
             {{"articulated", contact::DelassusEstimate::kArticulated},
              {"diagonal", contact::DelassusEstimate::kDiagonal}},
             &s.delassus_estimate);
  ReadChoice(node, "contact_surface", "contact surface",
             {{"polygon", contact::ContactSurfaceKind::kPolygon},
              {"triangle", contact::ContactSurfaceKind::kTriangle}},
             &s.contact_surface);
  ReadChoice(node, "tree_solver", "tree solver",
             {{"auto", integrator::TreeSolver::kAuto},
              {"dense", integrator::TreeSolver::kDense},
              {"articulated", integrator::TreeSolver::kArticulated}},
             &s.tree_solver);
  ReadChoice(node, "gyroscopic", "gyroscopic torque",
             {{"implicit", integrator::Gyroscopic::kImplicit},
              {"explicit", integrator::Gyroscopic::kExplicit}},
             &s.gyroscopic);
  if (auto solver = node.Find("solver")) ReadSolver(*solver, s.solver);
  if (auto output = node.Find("output")) ReadOutput(*output, s.output);
  if (const auto gravity = node.Find("gravity")) return gravity->AsVector3();
  return std::nullopt;
}

// ---- top level ----------------------------------------------------------------------------

void CheckTopLevel(const NodeReader& root) {
  if (!root.IsMap()) root.Fail("a scene must be a map starting with 'csim: 1'");
  root.CheckKeys({"csim", "name", "settings", "materials", "world", "bodies", "joints",
                  "frames", "signals", "trajectories", "loads", "constraints", "actuators",
                  "models", "collision_filter", "poses"});
  const NodeReader version = root.Get("csim");
  if (version.AsInt() != kFormatVersion) {
    version.Fail("unsupported scene format version " + version.node().Scalar() +
                 " (this csim reads version 1)");
  }
}

/// Fails if a section that overrides walk into has the wrong kind of node (a list where
/// the format has a map, or the reverse).
void CheckSectionKinds(const NodeReader& root) {
  for (const char* key :
       {"settings", "materials", "world", "signals", "trajectories", "collision_filter",
        "poses"}) {
    if (auto section = root.Find(key)) section->ExpectMap();
  }
  for (const char* key :
       {"bodies", "joints", "frames", "loads", "constraints", "actuators", "models"}) {
    if (auto section = root.Find(key)) section->Items();
  }
  if (auto settings = root.Find("settings")) {
    for (const char* key : {"solver", "output"}) {
      if (auto section = settings->Find(key)) section->ExpectMap();
    }
  }
}

/// The scene's `name`, which also names the default output file (`<name>.h5` in the
/// current directory): a name with a '/' would write elsewhere, an empty one a hidden file.
std::string ReadSceneName(const NodeReader& node) {
  const std::string name = node.AsString();
  if (name.empty()) node.Fail("the scene name must not be empty");
  if (name.find('/') != std::string::npos) {
    node.Fail("the scene name '" + name + "' must not contain '/' (it names the output file "
              "<name>.h5 in the current directory; set settings.output.file for a path)");
  }
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      node.Fail("the scene name must not contain control characters");
  }
  return name;
}

std::string Emit(const YAML::Node& root) {
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace

LoadedScene LoadSceneFromText(const std::string& text, const std::string& path,
                              const std::vector<std::string>& set_overrides,
                              std::string* expanded_yaml_text) {
  LoadedScene scene;
  scene.file = path;
  scene.overrides = set_overrides;
  YAML::Node root = ParseYaml(text, path);
  SourceMap sources(path);
  if (root.IsMap()) {
    for (const std::string& arg : set_overrides) {
      try {
        ApplyOverride(root, arg, &sources);
      } catch (const InputError&) {
        // An override that cannot reach its path may be the scene's fault (`settings: [1]`
        // breaks every settings option): blame the scene, or the earlier override, that
        // gave a section the wrong kind, if one did.
        CheckSectionKinds(NodeReader(root, "", &sources));
        throw;
      }
    }
  }
  scene.yaml_text = set_overrides.empty() ? text : Emit(root);

  CheckTopLevel(NodeReader(root, "", &sources));
  std::vector<std::string> model_warnings;
  if (static_cast<const YAML::Node&>(root)["models"]) {
    CheckSectionKinds(NodeReader(root, "", &sources));
    ExpandModels(root, &sources, DirectoryOf(path), &model_warnings);
    if (expanded_yaml_text) *expanded_yaml_text = Emit(PlainExpandedScene(root, sources));
  } else if (expanded_yaml_text) {
    *expanded_yaml_text = scene.yaml_text;
  }
  const NodeReader reader(root, "", &sources);
  scene.name = FileStem(path);
  if (auto name = reader.Find("name")) scene.name = ReadSceneName(*name);
  std::optional<Eigen::Vector3d> gravity;
  if (auto settings = reader.Find("settings")) gravity = ReadSettings(*settings, scene.settings);
  if (scene.settings.output.file.empty()) scene.settings.output.file = scene.name + ".h5";
  scene.model = BuildModel(reader, DirectoryOf(path), gravity, &model_warnings);
  scene.warnings = FindSceneWarnings(reader, scene.model);
  scene.warnings.insert(scene.warnings.end(), model_warnings.begin(), model_warnings.end());
  return scene;
}

LoadedScene LoadScene(const std::string& path, const std::vector<std::string>& set_overrides,
                      std::string* expanded_yaml_text) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw IoError("cannot read scene file '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read scene file '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw IoError("cannot read scene file '" + path + "'");
  return LoadSceneFromText(text.str(), path, set_overrides, expanded_yaml_text);
}

}  // namespace csim::io
