#pragma once
// Reads a scene's `materials` section and the `geometry` lists of the world and of each body
// (scene-format.md "Materials", "Geometry" and "Hydroelastic contact"): shapes and their
// sizes, mesh and tetrahedral volume files (resolved relative to the scene's folder), poses,
// and each hydroelastic block, whose mesh and pressure field are built here, once per run.
// Everything rejected throws csim::InputError at the offending node.

#include <map>
#include <string>
#include <vector>

#include "engine/geometry/shape.h"
#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// A material as a geometry's reader needs it.
struct MaterialRef {
  int index = -1;                     ///< into Model::materials
  double hydroelastic_modulus = 0.0;  ///< [Pa]; 0: not given
};
/// Material name -> MaterialRef.
using MaterialIndex = std::map<std::string, MaterialRef>;

/// Appends the `materials` section (file order) to model.materials, sets
/// model.default_material to the one named `default` if any, and returns them by name.
MaterialIndex ReadMaterials(const NodeReader& root, multibody::Model& model);

/// The `geometry` list of `owner` (a body or the world; empty without one). A geometry
/// without `material` takes `default_material` (-1: the built-in default material).
std::vector<geometry::Geometry> ReadGeometryList(const NodeReader& owner,
                                                 const MaterialIndex& materials,
                                                 int default_material,
                                                 const std::string& scene_dir);

}  // namespace csim::io
