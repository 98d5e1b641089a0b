// The defaults that docs/scene-format.md states are the code's. Every row of its
// `| key | default | meaning |` tables (settings, Solver internals, materials) is read; the
// documented default, set as the scene value, must load to the same setting as a scene that
// leaves the key out, and that must equal the default-constructed struct. Every setting the
// loader fills has a row, and every row is a setting.

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/geometry/shape.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/model.h"
#include "engine/sim/settings.h"

namespace csim::io {
namespace {

struct Row {
  std::string section;  ///< the `## ` heading the table is under
  std::string key, value;
};

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The text between the first pair of backticks of a cell ("" without one).
std::string Quoted(const std::string& cell) {
  const size_t a = cell.find('`');
  const size_t b = a == std::string::npos ? a : cell.find('`', a + 1);
  return b == std::string::npos ? "" : cell.substr(a + 1, b - a - 1);
}

// Rows of every `| key | default | meaning |` table of the reference.
std::vector<Row> DocumentedDefaults() {
  std::ifstream in(std::string(CSIM_SOURCE_DIR) + "/docs/scene-format.md");
  REQUIRE(in);
  std::vector<Row> rows;
  std::string line, section;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section = line.substr(3);
    if (line == "| key | default | meaning |") {
      in_table = true;
      continue;
    }
    if (line.rfind("|", 0) != 0) in_table = false;
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    // The first two cells; a meaning may hold escaped pipes, the key and default never do.
    const size_t first = line.find('|', 1), second = line.find('|', first + 1);
    REQUIRE(second != std::string::npos);
    rows.push_back({section, Quoted(line.substr(1, first - 1)),
                    Trim(Quoted(line.substr(first + 1, second - first - 1)))});
  }
  return rows;
}

std::string Str(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}
template <class Enum>
std::string Str(Enum e) {
  return std::to_string(static_cast<int>(e));
}

// Each settings key of the scene format, and the value it loads to.
using Field = std::function<std::string(const sim::Settings&, const multibody::Model&)>;
const std::map<std::string, Field>& SettingsFields() {
  static const std::map<std::string, Field> fields = {
      {"time_step", [](auto& s, auto&) { return Str(s.time_step); }},
      {"duration", [](auto& s, auto&) { return Str(s.duration); }},
      {"gravity",
       [](auto&, auto& m) {
         return Str(m.gravity.x()) + " " + Str(m.gravity.y()) + " " + Str(m.gravity.z());
       }},
      {"integrator",
       [](auto& s, auto&) {
         return s.integrator.name + " " + Str(s.integrator.theta) + " " + Str(s.integrator.theta_q);
       }},
      {"contact_model", [](auto& s, auto&) { return Str(s.contact_model); }},
      {"near_rigid_threshold", [](auto& s, auto&) { return Str(s.near_rigid_threshold); }},
      {"stiction_sigma", [](auto& s, auto&) { return Str(s.stiction_sigma); }},
      {"stiction_tolerance", [](auto& s, auto&) { return Str(s.stiction_tolerance); }},
      {"contact_margin", [](auto& s, auto&) { return Str(s.contact_margin); }},
      {"delassus_estimate", [](auto& s, auto&) { return Str(s.delassus_estimate); }},
      {"contact_surface", [](auto& s, auto&) { return Str(s.contact_surface); }},
      {"tree_solver", [](auto& s, auto&) { return Str(s.tree_solver); }},
      {"gyroscopic", [](auto& s, auto&) { return Str(s.gyroscopic); }},
      {"solver.relative_tolerance",
       [](auto& s, auto&) { return Str(s.solver.relative_tolerance); }},
      {"solver.absolute_tolerance",
       [](auto& s, auto&) { return Str(s.solver.absolute_tolerance); }},
      {"solver.max_iterations",
       [](auto& s, auto&) { return std::to_string(s.solver.max_iterations); }},
      {"solver.line_search", [](auto& s, auto&) { return Str(s.solver.line_search); }},
      {"solver.warm_start", [](auto& s, auto&) { return Str(s.solver.warm_start); }},
      {"solver.exact_guess_fraction",
       [](auto& s, auto&) { return Str(s.solver.exact_guess_fraction); }},
      {"solver.predict_stiction", [](auto& s, auto&) { return Str(s.solver.predict_stiction); }},
      {"solver.predict_crossings", [](auto& s, auto&) { return Str(s.solver.predict_crossings); }},
      {"solver.prediction_iterations",
       [](auto& s, auto&) { return std::to_string(s.solver.prediction_iterations); }},
      {"solver.defer_separated", [](auto& s, auto&) { return Str(s.solver.defer_separated); }},
      {"output.file", [](auto& s, auto&) { return s.output.file; }},
      {"output.every", [](auto& s, auto&) { return std::to_string(s.output.every); }},
      {"output.contacts", [](auto& s, auto&) { return Str(s.output.contacts); }},
      {"output.contact_surfaces",
       [](auto& s, auto&) { return Str(s.output.contact_surfaces); }},
      {"output.compression", [](auto& s, auto&) { return std::to_string(s.output.compression); }},
      {"output.condition_number",
       [](auto& s, auto&) { return Str(s.output.condition_number); }},
  };
  return fields;
}

TEST_CASE("the documented settings defaults are the code's", "[io][docs]") {
  const LoadedScene empty = LoadSceneFromText("csim: 1\n", "defaults.yaml", {});
  const LoadedScene empty_map = LoadSceneFromText("csim: 1\nsettings: {}\n", "defaults.yaml", {});
  const sim::Settings constructed;
  const multibody::Model model;
  std::map<std::string, int> documented;
  for (const Row& row : DocumentedDefaults()) {
    if (row.section != "settings") continue;
    INFO("settings." << row.key << ": documented default `" << row.value << "`");
    ++documented[row.key];
    const auto field = SettingsFields().find(row.key);
    REQUIRE(field != SettingsFields().end());  // a documented key the loader fills
    const Field& get = field->second;
    if (row.key == "output.file") {  // not a YAML value: the scene's name
      CHECK(row.value == "<name>.h5");
      CHECK(empty.settings.output.file == "defaults.h5");
      continue;
    }
    const LoadedScene set =
        LoadSceneFromText("csim: 1\n", "defaults.yaml", {"settings." + row.key + "=" + row.value});
    CHECK(get(set.settings, set.model) == get(empty.settings, empty.model));
    CHECK(get(empty_map.settings, empty_map.model) == get(empty.settings, empty.model));
    CHECK(get(empty.settings, empty.model) == get(constructed, model));
  }
  for (const auto& [key, get] : SettingsFields()) {
    INFO("settings." << key);
    CHECK(documented[key] == 1);  // each setting has exactly one row
  }
}

TEST_CASE("the documented material defaults are the code's", "[io][docs]") {
  const geometry::Material constructed;
  const std::map<std::string, double geometry::Material::*> fields = {
      {"stiffness", &geometry::Material::stiffness},
      {"dissipation_time", &geometry::Material::dissipation_time},
      {"hunt_crossley", &geometry::Material::hunt_crossley},
      {"friction", &geometry::Material::friction}};
  const LoadedScene empty =
      LoadSceneFromText("csim: 1\nmaterials: {steel: {}}\n", "defaults.yaml", {});
  REQUIRE(empty.model.materials.size() == 1);
  std::map<std::string, int> documented;
  for (const Row& row : DocumentedDefaults()) {
    if (row.section != "materials") continue;
    INFO("materials key " << row.key << ": documented default `" << row.value << "`");
    ++documented[row.key];
    const auto field = fields.find(row.key);
    REQUIRE(field != fields.end());
    const LoadedScene set = LoadSceneFromText(
        "csim: 1\nmaterials: {steel: {" + row.key + ": " + row.value + "}}\n", "defaults.yaml", {});
    CHECK(set.model.materials[0].*field->second == empty.model.materials[0].*field->second);
    CHECK(empty.model.materials[0].*field->second == constructed.*field->second);
  }
  for (const auto& [key, member] : fields) {
    INFO("materials key " << key);
    CHECK(documented[key] == 1);
  }
}

}  // namespace
}  // namespace csim::io
