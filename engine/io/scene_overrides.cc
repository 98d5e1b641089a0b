#include "engine/io/scene_overrides.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "engine/common/input_error.h"
#include "engine/io/yaml_text_checks.h"

namespace csim::io {
namespace {

/// One element of the dotted PATH and the 1-based column where it starts.
struct PathElement {
  std::string text;
  int column;
};

/// Throws an InputError located at `column` of the argument.
[[noreturn]] void FailAt(const std::string& argument, int column, const std::string& what) {
  throw InputError({OverrideFileName(argument), 1, column}, what);
}

/// Splits "a.b.c" (the part of the argument before '=') into elements with columns. A list
/// index may also be written in brackets, as error messages print key paths:
/// "bodies[0].geometry[1].radius" is "bodies.0.geometry.1.radius".
std::vector<PathElement> SplitPath(const std::string& argument, size_t path_length) {
  std::vector<PathElement> elements;
  size_t start = 0;
  while (true) {
    const size_t dot = std::min(argument.find('.', start), path_length);
    const size_t bracket = std::min(argument.find('[', start), dot);
    const std::string text = argument.substr(start, bracket - start);
    const int column = static_cast<int>(start) + 1;
    if (text.empty()) FailAt(argument, column, "empty element in override path");
    elements.push_back({text, column});
    for (size_t open = bracket; open < dot;) {  // "[3]" suffixes, each a list index
      const size_t close = argument.find(']', open);
      const std::string index = argument.substr(open + 1, close - open - 1);
      if (close >= dot || index.empty() ||
          index.find_first_not_of("0123456789") != std::string::npos) {
        FailAt(argument, static_cast<int>(open) + 1, "expected a list index such as [0]");
      }
      elements.push_back({index, static_cast<int>(open) + 2});
      open = close + 1;
      if (open < dot && argument[open] != '[') {
        FailAt(argument, static_cast<int>(open) + 1, "expected '.' or '[' after ']'");
      }
    }
    if (dot >= path_length) break;
    start = dot + 1;
  }
  return elements;
}

bool IsIndex(const std::string& text) {
  return !text.empty() && text.size() < 9 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

/// Index of the list item named `name` (by its `name` key) or, failing that, whose
/// integer index is `name`; -1 if neither exists.
int FindItem(const YAML::Node& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    if (!item.IsMap()) continue;
    const YAML::Node item_name = item["name"];
    if (item_name.IsDefined() && item_name.IsScalar() && item_name.Scalar() == name) {
      return static_cast<int>(i);
    }
  }
  if (IsIndex(name) && std::stoi(name) < static_cast<int>(list.size())) return std::stoi(name);
  return -1;
}

/// Parses the VALUE text as one YAML document (yaml_text_checks.h); a problem is located
/// inside the argument. An empty VALUE is the null node (`--set settings.duration=` then
/// fails as "expected a number, got nothing").
YAML::Node ParseValue(const std::string& argument, size_t value_start) {
  YAML::Node value;
  if (auto problem = ParseOneDocument(argument.substr(value_start), &value)) {
    FailAt(argument, static_cast<int>(value_start) + 1 + std::max(0, problem->column),
           "override value is not valid YAML: " + problem->what);
  }
  return value;
}

/// The step from `current` through one path element: rebinding `current` to the child,
/// or (for the last element) replacing the child by `value`. `key_path` follows along.
void Step(YAML::Node& current, const PathElement& element, bool last, const YAML::Node& value,
          const std::string& argument, std::string& key_path, SourceMap* sources) {
  if (current.IsSequence()) {
    const int index = FindItem(current, element.text);
    if (index < 0) {
      FailAt(argument, element.column, "no item named '" + element.text + "' in '" +
                                           (key_path.empty() ? "top level" : key_path) + "'");
    }
    key_path = IndexPath(key_path, index);
    if (last) {
      current[index] = value;
    } else {
      current.reset(current[index]);
    }
    return;
  }
  if (!current.IsMap() && !current.IsNull()) {
    FailAt(argument, element.column,
           "cannot index '" + element.text + "' into the scalar at '" + key_path + "'");
  }
  // Every other map's keys are checked against the scene format later (a typo is an
  // "unknown key" there); a material's name is free, so a misspelt one would silently
  // become a new, unused material. An override changes materials, it does not add them,
  // except `default`, which a scene without one may well want to set.
  if (key_path == "materials" && !current[element.text].IsDefined() &&
      element.text != "default") {
    FailAt(argument, element.column,
           "no material named '" + element.text + "' in 'materials' (an override can change "
           "a material of the scene, or set 'default', but not add another)");
  }
  key_path = JoinPath(key_path, element.text);
  if (last) {
    current[element.text] = value;  // yaml-cpp turns a null node into a map here
    return;
  }
  if (!current[element.text].IsDefined()) {
    current[element.text] = YAML::Node(YAML::NodeType::Map);
    sources->AddCreated(key_path, {OverrideFileName(argument), 1, element.column});
  }
  current.reset(current[element.text]);
}

}  // namespace

std::string OverrideFileName(const std::string& argument) { return "--set " + argument; }

void ApplyOverride(YAML::Node& root, const std::string& argument, SourceMap* sources) {
  const size_t equals = argument.find('=');
  if (equals == std::string::npos) {
    FailAt(argument, 1, "override must have the form PATH=VALUE");
  }
  const std::vector<PathElement> elements = SplitPath(argument, equals);
  const YAML::Node value = ParseValue(argument, equals + 1);

  // Walk with a separate handle: assigning to a yaml-cpp Node that is bound to a tree node
  // overwrites that node, so rebinding uses reset().
  YAML::Node current;
  current.reset(root);
  std::string key_path;
  for (size_t i = 0; i < elements.size(); ++i) {
    Step(current, elements[i], i + 1 == elements.size(), value, argument, key_path, sources);
  }
  sources->AddSubstitution(key_path,
                           {OverrideFileName(argument), 1, static_cast<int>(equals) + 2});
}

}  // namespace csim::io
