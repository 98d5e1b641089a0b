#pragma once
// Loading a scene file (scene-format.md) into a validated Model and Settings.
//
// Pipeline: read the text -> parse YAML -> apply `--set` overrides (scene_overrides.h) ->
// check the top level and `csim: 1` -> expand `models:` (model_expansion.h) -> read
// `settings` -> build the model
// (model_builder.h) -> find the warnings (scene_warnings.h). Every rejection is a
// csim::InputError whose what() reads `FILE:LINE:COL: what is wrong (key path)`; nothing is
// simulated from a scene that fails.

#include <string>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/settings.h"

namespace csim::io {

/// A scene ready to run.
struct LoadedScene {
  multibody::Model model;
  sim::Settings settings;
  std::string name;                    ///< `name:` key, else the file's stem
  std::string file;                    ///< path as given
  /// The exact scene text that is run: the original text verbatim when there are no
  /// overrides, else the emitted YAML of the overridden tree.
  std::string yaml_text;
  std::vector<std::string> overrides;  ///< the --set arguments, in order
  /// Located warnings about valid but suspicious input, one per entry: scene_warnings.h's,
  /// then keyframes outside their joints' limits (trajectory_reader.h).
  std::vector<std::string> warnings;
};

/// Reads and loads the scene file at `path` with the `--set` arguments `set_overrides`
/// ("PATH=VALUE", applied in order). Throws csim::IoError when the file cannot be read,
/// csim::InputError for anything invalid. With `expanded_yaml_text`, also writes there the
/// scene with its `models:` expanded into plain csim nodes (model_expansion.h) as YAML, or
/// yaml_text when it has none (emitting a large model's meshes costs more than loading them,
/// so only `csim check --expand` asks).
LoadedScene LoadScene(const std::string& path, const std::vector<std::string>& set_overrides,
                      std::string* expanded_yaml_text = nullptr);

/// Same as LoadScene for a scene whose text is already in memory; `path` names it in
/// messages and locates relative mesh files.
LoadedScene LoadSceneFromText(const std::string& text, const std::string& path,
                              const std::vector<std::string>& set_overrides,
                              std::string* expanded_yaml_text = nullptr);

}  // namespace csim::io
