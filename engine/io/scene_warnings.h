#pragma once
// Warnings about a scene that loads and runs but is probably not what its author meant,
// found once at load time and located like the loader's errors (`FILE:LINE:COL: message`,
// at the geometry concerned). `csim check` prints them and `csim run` logs them before the
// first step; neither changes the exit status.
//
//  * a deep initial overlap (contact/initial_overlap.h): named by both geometries, with the
//    depth in metres and as a fraction of the thinner geometry's least width; at most
//    kMaxOverlapWarnings pairs, then one line that counts the rest;
//  * a collision mesh that is not convex, or not closed (geometry/mesh_convexity.h): what
//    csim does with it and the hull-to-mesh volume ratio; once per mesh file, however many
//    geometries use it (the ratio does not depend on the scale).

#include <string>
#include <vector>

#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// Deep-overlap pairs reported one by one; a pile dropped into the ground would otherwise
/// print a line per body.
constexpr int kMaxOverlapWarnings = 10;

/// The warnings of the scene whose root map is `root` and whose model is `model`, built
/// from it: mesh warnings in model order (world geometry, then each body's), then deep overlaps in
/// collision-geometry order. Empty for a sound scene.
std::vector<std::string> FindSceneWarnings(const NodeReader& root, const multibody::Model& model);

}  // namespace csim::io
