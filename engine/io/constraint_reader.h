#pragma once
// Reading the scene's `constraints:` list (scene-format.md "constraints") into the model's
// holonomic constraints (multibody/holonomic_constraint.h).
//
// Each item has a `type` (coupler, distance, ball, weld) and an optional `name`; the other
// keys depend on the type. Bodies and joints are resolved by name (`world` is a body here),
// and every rule broken is reported at its node: an unknown type, key, body or joint, a
// coupler on a joint that does not own exactly one coordinate, a constraint whose two sides
// are the same body or joint, a non-positive length, a negative stiffness or damping.

#include <vector>

#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// The constraints of the scene's root map, in file order, resolved in `model` (its bodies
/// and joints final). Throws InputError at the first rule broken.
std::vector<multibody::HolonomicConstraint> ReadConstraints(const NodeReader& root,
                                                            const multibody::Model& model);

}  // namespace csim::io
