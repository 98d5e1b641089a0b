#pragma once
// /model/geometry of the output file (output-format.md, extension "Geometry"): every
// geometry of the model, so that a viewer (csim export-html, a notebook) can draw the
// bodies from the output file alone, without the scene or its mesh files.
//
// Layout: one entry per geometry, world geometry first (body -1), then the bodies in index
// order, each body's geometry in scene order. Mesh vertices and triangles are stored once,
// as flat arrays with per-geometry offset and count (the same "contiguous ragged array"
// layout as /contacts), so analysis code slices them with numpy.
//
// A visual-only mesh file is kept as a reference (scene-format.md "bodies"): no vertices,
// its file and scale instead, in the datasets `file` and `scale`, which exist only when some
// geometry is such a reference (so that files without one stay as they were). The file is
// recorded relative to the scene file's folder, as a scene names it, not as an absolute
// path: the output then holds no host paths, and a viewer finds the file from the root
// attribute scene_file.
//
// Written by Hdf5Recorder::Begin, before SWMR writing starts (nothing may be created
// afterwards).

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/io/hdf5_file.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// The geometry of a model as /model/geometry stores it; also what ReadGeometry returns.
/// Every per-geometry vector has one entry per geometry (ng).
struct GeometryTable {
  std::vector<int32_t> body;                ///< owning body index, -1 for the world
  std::vector<std::string> shape;           ///< "sphere", "box", ... (scene-format.md)
  std::vector<Eigen::Vector3d> size;        ///< [m] sphere {r, 0, 0}; box edges; cylinder and
                                            ///< capsule {r, length, 0}; ellipsoid radii
  std::vector<Eigen::Vector3d> position;    ///< p_BG, geometry origin in the body frame [m]
  std::vector<Eigen::Vector4d> quaternion;  ///< R_BG as w, x, y, z
  std::vector<int32_t> collide;             ///< 1: collides, 0: visual only
  std::vector<int64_t> vertex_offset;       ///< first row of the geometry in `vertices`
  std::vector<int32_t> vertex_count;        ///< mesh vertices (0 for primitives)
  std::vector<int64_t> triangle_offset;     ///< first row of the geometry in `triangles`
  std::vector<int32_t> triangle_count;      ///< mesh triangles (0 for primitives)
  std::vector<Eigen::Vector3d> vertices;    ///< (V, 3) mesh vertices, geometry frame [m]
  std::vector<Eigen::Vector3i> triangles;   ///< (T, 3) indices into the geometry's own
                                            ///< vertices (0-based, outward CCW)
  /// Per geometry: a visual mesh file's path relative to the scene file's folder, "" for
  /// every geometry that is not such a reference (IsMeshFileReference).
  std::vector<std::string> file;
  std::vector<Eigen::Vector3d> scale;       ///< per-axis factor on the file's coordinates

  /// Number of geometries (ng).
  int count() const { return static_cast<int>(body.size()); }
};

/// True for a visual-only mesh kept as a reference to its file (no vertices).
bool IsMeshFileReference(const geometry::Geometry& g);

/// Collects every geometry of `model` in file order (world first, then bodies). Mesh file
/// references are made relative to the folder of `scene_file` (the scene's path as given,
/// relative to the current directory or absolute).
GeometryTable MakeGeometryTable(const multibody::Model& model, const std::string& scene_file);

/// Creates the group /model/geometry below `model_group` (the /model group) and writes
/// `table` into it, each dataset with `units` and `description`. Throws IoError.
void WriteGeometry(Hdf5Group& model_group, const GeometryTable& table);

/// Reads /model/geometry back. Returns an empty table when the file has none (files
/// written before the extension); `file` and `scale` are "" and 1 when it has no mesh file
/// reference. Throws IoError on a malformed group.
GeometryTable ReadGeometry(const Hdf5File& file);

/// The path a viewer opens for `file`, a reference of /model/geometry/file, in an output
/// file whose root attribute scene_file is `scene_file`: relative to the scene's folder.
std::string ResolveMeshFileReference(const std::string& file, const std::string& scene_file);

}  // namespace csim::io
