#pragma once
// Reading the scene's `collision_filter:` (scene-format.md "collision_filter"): body pairs
// that never collide, beyond the joint and constraint rules. `exclude` lists pairs;
// `groups` lists sets of bodies none of which collide with another of the same set (an
// imported robot whose link hulls overlap at rest, as model_expansion.h emits by default).

#include <utility>
#include <vector>

#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// The excluded body pairs (-1: the world), each (min, max), sorted and unique. Throws
/// InputError at an unknown body, a body paired with itself, or a malformed entry.
std::vector<std::pair<int, int>> ReadCollisionFilter(const NodeReader& root,
                                                     const multibody::Model& model);

}  // namespace csim::io
