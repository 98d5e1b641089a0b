#pragma once
// Reading the scene's `actuators:` list (scene-format.md "actuators") into the model's joint
// actuators (multibody/actuator.h).
//
// Each item names an actuator and the `joint` it drives (revolute, prismatic, or planar with
// its `coordinate`), with an `effort_limit`, gains `kp` and `kd` (or `damping_ratio`, turned
// into kd = 2 zeta sqrt(kp A_jj) with A_jj the mass matrix's diagonal, armature included, at
// the initial state), a `target` trajectory (default: hold the initial value) and a
// `feedforward` (a number, a signal name, or `gravity`: the generalized force that holds the
// model still at its initial state). Without kp and kd it is a force actuator.

#include <vector>

#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// The actuators of the scene's root map, in file order, with joints, trajectories and
/// signals resolved in `model` (everything else final). Throws InputError at the first rule
/// broken, located at the node at fault.
std::vector<multibody::Actuator> ReadActuators(const NodeReader& root,
                                               const multibody::Model& model);

}  // namespace csim::io
