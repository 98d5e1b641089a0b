#include "engine/io/hdf5_geometry.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "engine/common/io_error.h"
#include "engine/math/rotation.h"

namespace csim::io {
namespace {

/// Rows per chunk of the fixed 2-D datasets (they are written once, read whole).
constexpr hsize_t kMaxChunkRows = 4096;

void Describe(Hdf5Dataset& dataset, const char* units, const char* description) {
  dataset.SetAttribute("units", units);
  dataset.SetAttribute("description", description);
}

/// `path` relative to the folder of `scene_file` (see the header); absolute when the two
/// have no common root.
std::string RelativeToScene(const std::string& path, const std::string& scene_file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::path(scene_file).parent_path();
  const fs::path folder = parent.empty() ? fs::current_path(ec) : fs::absolute(parent, ec);
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const fs::path relative = absolute.lexically_relative(folder.lexically_normal());
  return relative.empty() ? absolute.string() : relative.string();
}

void Append(GeometryTable* table, int body, const geometry::Geometry& g,
            const std::string& scene_file) {
  table->body.push_back(body);
  table->shape.push_back(geometry::ShapeTypeName(g.type));
  table->size.push_back(g.size);
  table->position.push_back(g.X_BG.p);
  table->quaternion.push_back(math::QuaternionFromRotation(g.X_BG.R));
  table->collide.push_back(g.collide ? 1 : 0);
  const bool reference = IsMeshFileReference(g);
  table->file.push_back(reference ? RelativeToScene(g.mesh.file, scene_file) : "");
  table->scale.push_back(reference ? g.mesh.scale : Eigen::Vector3d::Ones());
  const bool mesh = g.type == geometry::ShapeType::kMesh;
  table->vertex_offset.push_back(static_cast<int64_t>(table->vertices.size()));
  table->triangle_offset.push_back(static_cast<int64_t>(table->triangles.size()));
  table->vertex_count.push_back(mesh ? static_cast<int32_t>(g.mesh.vertices.size()) : 0);
  table->triangle_count.push_back(mesh ? static_cast<int32_t>(g.mesh.triangles.size()) : 0);
  if (!mesh) return;
  table->vertices.insert(table->vertices.end(), g.mesh.vertices.begin(), g.mesh.vertices.end());
  table->triangles.insert(table->triangles.end(), g.mesh.triangles.begin(),
                          g.mesh.triangles.end());
}

/// A fixed (n, columns) dataset from n fixed-size Eigen vectors. Written through the
/// extendible path of hdf5_file.h (chunked, gzip), the only 2-D writer it offers.
template <typename Vector>
Hdf5Dataset WriteMatrix(Hdf5Group& group, const char* name, Hdf5Type type,
                        const std::vector<Vector>& rows) {
  constexpr int kColumns = Vector::RowsAtCompileTime;
  const hsize_t n = rows.size();
  Hdf5Dataset dataset = group.CreateExtendible(name, type, {hsize_t{kColumns}},
                                               std::clamp<hsize_t>(n, 1, kMaxChunkRows));
  using Scalar = typename Vector::Scalar;
  std::vector<Scalar> flat;
  flat.reserve(n * kColumns);
  for (const Vector& row : rows) flat.insert(flat.end(), row.data(), row.data() + kColumns);
  dataset.AppendRows(flat.data(), n);
  return dataset;
}

/// A 1-D int64 dataset (hdf5_file.h has int32 lists only; offsets can exceed 2^31).
Hdf5Dataset WriteInt64List(Hdf5Group& group, const char* name,
                           const std::vector<int64_t>& values) {
  const hsize_t n = values.size();
  Hdf5Dataset dataset = group.CreateExtendible(name, Hdf5Type::kInt64, {},
                                               std::clamp<hsize_t>(n, 1, kMaxChunkRows));
  dataset.AppendRows(values.data(), n);
  return dataset;
}

template <typename Vector>
std::vector<Vector> ReadMatrix(const Hdf5Group& group, const char* name) {
  constexpr int kColumns = Vector::RowsAtCompileTime;
  const Hdf5Dataset dataset = group.OpenDataset(name);
  if (dataset.shape().size() != 2 || dataset.shape()[1] != kColumns)
    dataset.Fail("read (n, " + std::to_string(kColumns) + ") rows from");
  const std::vector<double> flat = dataset.ReadDoubles();
  std::vector<Vector> rows(dataset.rows());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int k = 0; k < kColumns; ++k)
      rows[i][k] = static_cast<typename Vector::Scalar>(flat[i * kColumns + k]);
  }
  return rows;
}

template <typename Int>
std::vector<Int> ReadIntList(const Hdf5Group& group, const char* name) {
  const std::vector<int64_t> values = group.OpenDataset(name).ReadInts();
  return std::vector<Int>(values.begin(), values.end());
}

}  // namespace

bool IsMeshFileReference(const geometry::Geometry& g) {
  return g.type == geometry::ShapeType::kMesh && !g.collide && g.mesh.vertices.empty() &&
         !g.mesh.file.empty();
}

GeometryTable MakeGeometryTable(const multibody::Model& model, const std::string& scene_file) {
  GeometryTable table;
  for (const geometry::Geometry& g : model.world_geometry) Append(&table, -1, g, scene_file);
  for (int b = 0; b < model.num_bodies(); ++b) {
    for (const geometry::Geometry& g : model.bodies[b].geometry)
      Append(&table, b, g, scene_file);
  }
  return table;
}

std::string ResolveMeshFileReference(const std::string& file, const std::string& scene_file) {
  namespace fs = std::filesystem;
  if (fs::path(file).is_absolute()) return file;
  return (fs::path(scene_file).parent_path() / file).lexically_normal().string();
}

void WriteGeometry(Hdf5Group& model_group, const GeometryTable& t) {
  Hdf5Group group = model_group.CreateGroup("geometry");
  group.SetAttribute("description",
                     "every geometry of the model: world geometry first, then by body index");
  Hdf5Dataset d = group.CreateIntList("body", t.body);
  Describe(d, "1", "owning body index, -1 for the world");
  d = group.CreateStringList("shape", t.shape);
  Describe(d, "", "sphere, box, cylinder, capsule, ellipsoid, halfspace or mesh");
  d = WriteMatrix(group, "size", Hdf5Type::kFloat64, t.size);
  Describe(d, "m", "sphere {r, 0, 0}; box full edges; cylinder, capsule {r, length, 0}; "
                   "ellipsoid radii; halfspace, mesh unused");
  d = WriteMatrix(group, "position", Hdf5Type::kFloat64, t.position);
  Describe(d, "m", "geometry frame origin in the body frame (world frame for body -1)");
  d = WriteMatrix(group, "quaternion", Hdf5Type::kFloat64, t.quaternion);
  Describe(d, "1", "geometry frame orientation in the body frame, w, x, y, z");
  d = group.CreateIntList("collide", t.collide);
  Describe(d, "1", "1: takes part in contact, 0: visual only");
  d = WriteInt64List(group, "vertex_offset", t.vertex_offset);
  Describe(d, "1", "index of the geometry's first row in vertices");
  d = group.CreateIntList("vertex_count", t.vertex_count);
  Describe(d, "1", "mesh vertices of the geometry (0 for primitives)");
  d = WriteInt64List(group, "triangle_offset", t.triangle_offset);
  Describe(d, "1", "index of the geometry's first row in triangles");
  d = group.CreateIntList("triangle_count", t.triangle_count);
  Describe(d, "1", "mesh triangles of the geometry (0 for primitives)");
  d = WriteMatrix(group, "vertices", Hdf5Type::kFloat64, t.vertices);
  Describe(d, "m", "mesh vertices, geometry frame");
  d = WriteMatrix(group, "triangles", Hdf5Type::kInt32, t.triangles);
  Describe(d, "1", "vertex indices of each triangle, 0-based within the geometry's own "
                   "vertices, counter-clockwise seen from outside");
  const bool references = std::any_of(t.file.begin(), t.file.end(),
                                      [](const std::string& f) { return !f.empty(); });
  if (!references) return;
  d = group.CreateStringList("file", t.file);
  Describe(d, "", "visual mesh kept as a file reference (no vertices): its file relative to "
                  "the scene file's folder; empty for every other geometry");
  d = WriteMatrix(group, "scale", Hdf5Type::kFloat64, t.scale);
  Describe(d, "1", "per-axis factor on the referenced mesh file's coordinates (1 where none)");
}

GeometryTable ReadGeometry(const Hdf5File& file) {
  GeometryTable t;
  if (!file.Exists("model/geometry")) return t;
  const Hdf5Group group = file.OpenGroup("model/geometry");
  t.body = ReadIntList<int32_t>(group, "body");
  t.shape = group.OpenDataset("shape").ReadStrings();
  t.size = ReadMatrix<Eigen::Vector3d>(group, "size");
  t.position = ReadMatrix<Eigen::Vector3d>(group, "position");
  t.quaternion = ReadMatrix<Eigen::Vector4d>(group, "quaternion");
  t.collide = ReadIntList<int32_t>(group, "collide");
  t.vertex_offset = ReadIntList<int64_t>(group, "vertex_offset");
  t.vertex_count = ReadIntList<int32_t>(group, "vertex_count");
  t.triangle_offset = ReadIntList<int64_t>(group, "triangle_offset");
  t.triangle_count = ReadIntList<int32_t>(group, "triangle_count");
  t.vertices = ReadMatrix<Eigen::Vector3d>(group, "vertices");
  t.triangles = ReadMatrix<Eigen::Vector3i>(group, "triangles");
  const size_t ng = t.body.size();
  if (group.Exists("file")) {
    t.file = group.OpenDataset("file").ReadStrings();
    t.scale = ReadMatrix<Eigen::Vector3d>(group, "scale");
  } else {
    t.file.assign(ng, "");
    t.scale.assign(ng, Eigen::Vector3d::Ones());
  }
  // Every per-geometry array has ng entries, and every mesh slice lies inside its array.
  for (size_t n : {t.shape.size(), t.size.size(), t.position.size(), t.quaternion.size(),
                   t.collide.size(), t.vertex_offset.size(), t.vertex_count.size(),
                   t.triangle_offset.size(), t.triangle_count.size(), t.file.size(),
                   t.scale.size()}) {
    if (n != ng) group.Fail("read consistent per-geometry datasets from");
  }
  for (size_t i = 0; i < ng; ++i) {
    if (t.vertex_offset[i] < 0 || t.vertex_count[i] < 0 || t.triangle_offset[i] < 0 ||
        t.triangle_count[i] < 0 ||
        t.vertex_offset[i] + t.vertex_count[i] > static_cast<int64_t>(t.vertices.size()) ||
        t.triangle_offset[i] + t.triangle_count[i] > static_cast<int64_t>(t.triangles.size()))
      group.Fail("read mesh slices within vertices and triangles from");
    for (int64_t k = 0; k < t.triangle_count[i]; ++k) {
      const Eigen::Vector3i& tri = t.triangles[t.triangle_offset[i] + k];
      if (tri.minCoeff() < 0 || tri.maxCoeff() >= t.vertex_count[i])
        group.Fail("read triangles indexing their geometry's vertices from");
    }
  }
  return t;
}

}  // namespace csim::io
