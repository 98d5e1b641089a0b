#pragma once
// The scene's `models:` list (scene-format.md "models"): each entry names a URDF or MJCF
// file, which is read (urdf_reader.h + urdf_import.h, mjcf_import.h) into an ImportedModel
// and then expanded into ordinary scene nodes (bodies, joints, constraints, actuators,
// frames, world geometry) appended to the scene's own lists, before the model builder runs.
// The builder, the warnings and the output then see one kind of scene, and `csim check
// --expand` prints it as plain csim YAML (docs/design/model-import.md §2).
//
// The entry's options apply in this order: `visuals: false` (drops the model's visual-only
// geometry), `exclude_bodies` (drops the bodies and all below them), `lock` (a joint becomes
// fixed at the given coordinates), merging (a fixed child is folded into its parent, keeping
// its name as a frame: always for a child without mass, every fixed child with
// `merge_fixed`), then naming (`prefix` + the file's name, with the characters a csim name
// cannot hold replaced: leading '/' dropped, '.', '[', ']', '=', '/' become '_') and `attach`
// (the roots welded to `parent` at `pose`, or free at `pose`). Names in `lock` and
// `exclude_bodies` are the file's. A scene actuator written on an imported joint takes the
// joint's effort limit unless it gives its own; the model's own actuators (URDF
// transmissions, MJCF actuators) are added only on joints the scene does not drive.
// Visual-only geometry keeps `collide: false`; a visual mesh stays its file, never hulled.
// Every generated node is located in the model file (SourceMap::AddGenerated). A mesh given
// by its vertices (MJCF) keeps them beside the tree, attached to its node's key path
// (SourceMap::AddGeneratedMesh; yaml_reader.h says why), and PlainExpandedScene writes them
// into the node for `csim check --expand`.

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "engine/io/yaml_reader.h"

namespace csim::io {

/// Expands and removes the `models:` key of `root` (a map), registering the generated
/// nodes in *sources. Model files are relative to `scene_dir`. Throws InputError at the
/// first problem (in the scene's entry, or in the model file); appends located warnings.
void ExpandModels(YAML::Node& root, SourceMap* sources, const std::string& scene_dir,
                  std::vector<std::string>* warnings);

/// The expanded scene `root` as plain csim YAML (`csim check --expand`): a copy of the tree
/// in which every mesh node that ExpandModels gave its vertices and triangles beside the
/// tree (SourceMap::AddGeneratedMesh) holds them as `vertices` and `triangles`.
YAML::Node PlainExpandedScene(const YAML::Node& root, const SourceMap& sources);

}  // namespace csim::io
