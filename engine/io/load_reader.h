#pragma once
// Reading the scene's `loads:` list (scene-format.md "loads") into the model's external
// wrenches (multibody::ExternalLoad; applied by multibody/external_loads.h).
//
// Each item names a moving `body` and gives a `force` [N] applied at `point` (body frame,
// default the origin), a `torque` [N m], or both, in `frame` `world` (default) or `body`
// axes, with an optional `signal` (a name in the model's signals) that scales them over
// time.

#include <vector>

#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// The loads of the scene's root map, in file order, with bodies and signals resolved in
/// `model` (its bodies and signals final). Throws InputError at the first rule broken.
std::vector<multibody::ExternalLoad> ReadLoads(const NodeReader& root,
                                               const multibody::Model& model);

}  // namespace csim::io
