#pragma once
// Turns the `materials`, `world`, `bodies`, `joints`, `frames`, `signals`, `trajectories`
// and `loads` sections of a scene into a validated multibody::Model (scene-format.md; model.h for the tree conventions).
// Materials and each geometry list (shapes, meshes, hydroelastic blocks) are read by
// geometry_reader.h.
//
// Rules applied here, in this order:
//  1. materials are numbered in file order; `default_material` is the one named `default`;
//     names of materials, bodies and joints must be usable in `--set` paths (not empty,
//     no '.', '[', ']', '=', '/' or control character);
//  2. joints are resolved by name; a body is the child of at most one joint; cycles are
//     rejected;
//  3. halfspaces are allowed only on the world and on bodies welded to it by `fixed` joints
//     (checked before 4, whose complaint about a halfspace would be the lesser one);
//  4. each body's mass properties come from `mass`/`density`/`com`/`inertia` and its
//     collision geometry (geometry/mass_properties.h), each of whose volumes must then be
//     positive and finite, and are checked (positive definite, triangle inequality);
//  5. a body that is nobody's child gets a free joint named after it whose initial state
//     comes from the body's `pose` and `velocity`; bodies are sorted topologically (parent
//     before child), stable with respect to file order, and joints[i] becomes the inboard
//     joint of bodies[i];
//  6. multibody::AssignCoordinates numbers the coordinates;
//  7. `frames` are resolved to the final bodies (a frame's name is unique among frames and
//     bodies); `signals`, `trajectories` (signal_reader.h, trajectory_reader.h) are read
//     against the final joints and frames, a `prescribed: {type: table}` joint is resolved
//     to its trajectory's columns, `loads` (load_reader.h) to their bodies and signals, `constraints`
//     (constraint_reader.h) to their bodies and joints, and `actuators` (actuator_reader.h)
//     to their joints, trajectories and signals;
//  8. the initial kinetic energy must be finite (reported at the velocity that makes it
//     overflow).
// Everything rejected throws csim::InputError at the offending node.

#include <optional>
#include <string>
#include <vector>

#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// Builds the model from the scene's root map (top-level keys already checked), under
/// settings.gravity when given, else multibody::Model's default (the initial state's
/// potential energy is checked with it). Mesh files are resolved relative to `scene_dir`
/// ("" for the current directory). Located warnings found while reading (a keyframe outside
/// its joint's limits) are appended to *warnings when it is given.
multibody::Model BuildModel(const NodeReader& root, const std::string& scene_dir,
                            const std::optional<Eigen::Vector3d>& gravity,
                            std::vector<std::string>* warnings = nullptr);

/// Reads the name of a body, joint, material, signal or trajectory (`what`): not empty, and
/// without '.', '[', ']', '=', '/' or a control character (names are `--set` path elements
/// and output names).
std::string ReadName(const NodeReader& node, const std::string& what);

/// Reads a pose `{position, rpy | quaternion}` in the scene's pose syntax as X_AB.
math::RigidTransform ReadScenePose(const NodeReader& node);

}  // namespace csim::io
