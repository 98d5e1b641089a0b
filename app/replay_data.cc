#include "app/replay_data.h"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "engine/geometry/mesh_file.h"
#include "engine/io/csim_file_check.h"
#include "engine/io/scene_loader.h"

namespace csim::app {
namespace {

using io::Hdf5Dataset;
using io::Hdf5File;
using io::Hdf5Id;

/// Characters one number takes in the page (six significant digits, sign, separator),
/// for the size estimate.
constexpr int64_t kBytesPerNumber = 10;

/// Reads the listed rows (ascending) of `dataset` as doubles, row-major. The arithmetic
/// prefix 0, s, 2s, ... is one strided hyperslab; any further row is added to it.
std::vector<double> ReadRows(const Hdf5Dataset& dataset, const std::vector<int64_t>& rows) {
  const std::vector<hsize_t>& shape = dataset.shape();
  std::vector<double> values(rows.size() * dataset.row_size());
  if (rows.empty() || values.empty()) return values;
  std::vector<hsize_t> start(shape.size(), 0), stride(shape.size(), 1), count = shape;
  const int64_t s = rows.size() > 1 ? std::max<int64_t>(rows[1] - rows[0], 1) : 1;
  size_t prefix = 1;
  while (prefix < rows.size() && rows[prefix] == rows[0] + static_cast<int64_t>(prefix) * s)
    ++prefix;
  start[0] = rows[0], stride[0] = s, count[0] = prefix;
  Hdf5Id file_space(H5Dget_space(dataset.id()));
  bool ok = file_space.valid() &&
            H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), stride.data(),
                                count.data(), nullptr) >= 0;
  for (size_t i = prefix; ok && i < rows.size(); ++i) {
    start[0] = rows[i], stride[0] = 1, count[0] = 1;
    ok = H5Sselect_hyperslab(file_space.get(), H5S_SELECT_OR, start.data(), stride.data(),
                             count.data(), nullptr) >= 0;
  }
  std::vector<hsize_t> memory_shape = shape;
  memory_shape[0] = rows.size();
  Hdf5Id memory_space(H5Screate_simple(static_cast<int>(memory_shape.size()),
                                       memory_shape.data(), nullptr));
  if (!ok || !memory_space.valid() ||
      H5Dread(dataset.id(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(),
              H5P_DEFAULT, values.data()) < 0)
    dataset.Fail("read rows of");
  return values;
}

/// Reads rows [first, first + count) of a flat dataset, (M,) or (M, k), as doubles and
/// appends them to `out`.
void AppendRows(const Hdf5Dataset& dataset, int64_t first, int64_t count,
                std::vector<double>* out) {
  if (count == 0) return;
  const std::vector<hsize_t>& shape = dataset.shape();
  if (shape.empty() || shape.size() > 2 || first < 0 ||
      static_cast<hsize_t>(first + count) > dataset.rows())
    dataset.Fail("read contact rows of");
  const size_t old_size = out->size();
  out->resize(old_size + count * dataset.row_size());
  const hsize_t start[2] = {static_cast<hsize_t>(first), 0};
  const hsize_t block[2] = {static_cast<hsize_t>(count), shape.size() == 2 ? shape[1] : 1};
  const int rank = static_cast<int>(shape.size());
  Hdf5Id file_space(H5Dget_space(dataset.id()));
  Hdf5Id memory_space(H5Screate_simple(rank, block, nullptr));
  if (!file_space.valid() || !memory_space.valid() ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, block, nullptr) < 0 ||
      H5Dread(dataset.id(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(),
              H5P_DEFAULT, out->data() + old_size) < 0)
    dataset.Fail("read contact rows of");
}

/// Reads rows [first, first + count) of a 2-D (M, 3) dataset and appends them to `out`.
void AppendSlice(const Hdf5Dataset& dataset, int64_t first, int64_t count,
                 std::vector<double>* out) {
  if (count == 0) return;
  if (dataset.shape().size() != 2 || dataset.shape()[1] != 3) dataset.Fail("read contact rows of");
  AppendRows(dataset, first, count, out);
}

/// Rows [first, first + count) of a flat integer dataset (AppendRows).
std::vector<int64_t> IntRows(const Hdf5Dataset& dataset, int64_t first, int64_t count) {
  std::vector<double> values;
  AppendRows(dataset, first, count, &values);
  return std::vector<int64_t>(values.begin(), values.end());
}

/// Per-row contact counts and offsets of the first n rows (empty without /contacts).
struct ContactIndex {
  std::vector<int64_t> count, offset;
};

ContactIndex ReadContactIndex(const Hdf5File& file, int64_t n) {
  ContactIndex index;
  if (!file.Exists("contacts/count") || !file.Exists("contacts/offset")) return index;
  index.count = file.OpenDataset("contacts/count").ReadInts(n);
  index.offset = file.OpenDataset("contacts/offset").ReadInts(n);
  // A live file may hold fewer count/offset rows than /time only if it is malformed.
  if (static_cast<int64_t>(index.count.size()) < n ||
      static_cast<int64_t>(index.offset.size()) < n)
    throw IoError("'" + file.file_name() + "': /contacts/count is shorter than /time");
  return index;
}

/// Per-row hydroelastic surface counts and offsets of the first n rows (empty without
/// /hydroelastic), and whether the file holds their polygons.
struct SurfaceIndex {
  std::vector<int64_t> count, offset;
  bool polygons = false;
};

SurfaceIndex ReadSurfaceIndex(const Hdf5File& file, int64_t n) {
  SurfaceIndex index;
  if (!file.Exists("hydroelastic/count") || !file.Exists("hydroelastic/offset")) return index;
  index.count = file.OpenDataset("hydroelastic/count").ReadInts(n);
  index.offset = file.OpenDataset("hydroelastic/offset").ReadInts(n);
  if (static_cast<int64_t>(index.count.size()) < n ||
      static_cast<int64_t>(index.offset.size()) < n)
    throw IoError("'" + file.file_name() + "': /hydroelastic/count is shorter than /time");
  index.polygons = file.Exists("hydroelastic/vertex_position");
  return index;
}

/// Numbers a polygon is estimated to take: its vertex count and some six vertices of
/// position and pressure (the row's polygons are not read before the rows are chosen).
constexpr int64_t kNumbersPerPolygon = 1 + 6 * 4;

/// Estimated bytes of the frame data of `rows`: poses, actuator efforts and flags (`na`),
/// plus the contacts, surfaces and polygons kept.
int64_t EstimateBytes(const std::vector<int64_t>& rows, int nb, int na,
                      const ContactIndex& contacts, const SurfaceIndex& surfaces,
                      const ReplayBudget& budget) {
  int64_t numbers = 0;
  for (int64_t row : rows) {
    numbers += 2 + 7 * static_cast<int64_t>(nb) + 3;  // time, row, poses, contact index
    numbers += 2 * static_cast<int64_t>(na);
    if (contacts.count.empty()) continue;
    const int64_t kept = std::min(contacts.count[row], budget.max_contacts_per_frame);
    numbers += 6 * kept;
    if (surfaces.count.empty()) continue;
    numbers += 5 + 9 * surfaces.count[row];  // indices, centroids, forces, moments
    if (surfaces.polygons) numbers += kNumbersPerPolygon * kept;  // polygons <= contacts
  }
  return numbers * kBytesPerNumber;
}

/// The rows to show: at most max_frames, fewer while the estimate exceeds the budget.
std::vector<int64_t> ChooseRows(int64_t n, int nb, int na, const ContactIndex& contacts,
                                const SurfaceIndex& surfaces, const ReplayBudget& budget) {
  int64_t frames = std::min(n, std::max<int64_t>(budget.max_frames, 2));
  std::vector<int64_t> rows = DecimatedRows(n, frames);
  while (frames > 2) {
    const int64_t bytes = EstimateBytes(rows, nb, na, contacts, surfaces, budget);
    if (bytes <= budget.max_data_bytes) break;
    const double shrink = 0.95 * static_cast<double>(budget.max_data_bytes) / bytes;
    frames = std::max<int64_t>(2, std::min<int64_t>(frames - 1, frames * shrink));
    rows = DecimatedRows(n, frames);
  }
  return rows;
}

/// Copies the contacts of the chosen rows (at most max_contacts_per_frame each).
void ReadContacts(const Hdf5File& file, const ContactIndex& index, const ReplayBudget& budget,
                  ReplayData* data) {
  data->has_contacts = !index.count.empty();
  if (!data->has_contacts) return;
  const Hdf5Dataset point = file.OpenDataset("contacts/point");
  const Hdf5Dataset force = file.OpenDataset("contacts/force");
  int64_t kept = 0;
  for (int64_t row : data->rows) {
    const int64_t total = index.count[row];
    const int64_t count = std::min(total, budget.max_contacts_per_frame);
    data->contact_offset.push_back(kept);
    data->contact_count.push_back(static_cast<int32_t>(count));
    data->contact_total.push_back(static_cast<int32_t>(total));
    AppendSlice(point, index.offset[row], count, &data->contact_point);
    AppendSlice(force, index.offset[row], count, &data->contact_force);
    kept += count;
  }
}

/// The flat datasets of the surfaces' polygons (output.contact_surfaces).
struct PolygonDatasets {
  explicit PolygonDatasets(const Hdf5File& file)
      : contact_count(file.OpenDataset("hydroelastic/contact_count")),
        first_polygon(file.OpenDataset("hydroelastic/first_polygon")),
        vertex_offset(file.OpenDataset("hydroelastic/polygon_vertex_offset")),
        vertex_count(file.OpenDataset("hydroelastic/polygon_vertex_count")),
        position(file.OpenDataset("hydroelastic/vertex_position")),
        pressure(file.OpenDataset("hydroelastic/vertex_pressure")) {}
  Hdf5Dataset contact_count, first_polygon, vertex_offset, vertex_count, position, pressure;
};

/// The polygons of the surfaces [first, first + count) of the file (a frame's row), the
/// first max_contacts_per_frame of them: they are consecutive from the first surface's
/// first polygon, and their vertices from that polygon's first vertex.
void ReadPolygons(const PolygonDatasets& file, int64_t first, int64_t count,
                  const ReplayBudget& budget, ReplayData* data) {
  int64_t total = 0;
  for (int64_t c : IntRows(file.contact_count, first, count)) total += c;
  const int64_t kept = std::min(total, budget.max_contacts_per_frame);
  const int64_t first_kept = data->polygon_offset.empty()
                                 ? 0
                                 : data->polygon_offset.back() + data->polygon_count.back();
  data->polygon_offset.push_back(first_kept);
  data->polygon_count.push_back(static_cast<int32_t>(kept));
  data->polygon_total.push_back(static_cast<int32_t>(total));
  if (kept == 0) return;
  const int64_t polygon = IntRows(file.first_polygon, first, 1)[0];
  const int64_t vertex = IntRows(file.vertex_offset, polygon, 1)[0];
  int64_t vertices = 0;
  for (int64_t n : IntRows(file.vertex_count, polygon, kept)) {
    data->polygon_vertex_count.push_back(static_cast<int32_t>(n));
    vertices += n;
  }
  AppendSlice(file.position, vertex, vertices, &data->vertex_position);
  AppendRows(file.pressure, vertex, vertices, &data->vertex_pressure);
}

/// Copies the hydroelastic surfaces of the chosen rows, and their polygons when recorded.
void ReadSurfaces(const Hdf5File& file, const SurfaceIndex& index, const ReplayBudget& budget,
                  ReplayData* data) {
  data->has_surfaces = !index.count.empty();
  data->has_polygons = data->has_surfaces && index.polygons;
  if (!data->has_surfaces) return;
  const Hdf5Dataset centroid = file.OpenDataset("hydroelastic/centroid");
  const Hdf5Dataset force = file.OpenDataset("hydroelastic/force");
  const Hdf5Dataset moment = file.OpenDataset("hydroelastic/moment");
  std::optional<PolygonDatasets> polygons;
  if (data->has_polygons) polygons.emplace(file);
  int64_t kept = 0;
  for (int64_t row : data->rows) {
    const int64_t first = index.offset[row], count = index.count[row];
    data->surface_offset.push_back(kept);
    data->surface_count.push_back(static_cast<int32_t>(count));
    AppendSlice(centroid, first, count, &data->surface_centroid);
    AppendSlice(force, first, count, &data->surface_force);
    AppendSlice(moment, first, count, &data->surface_moment);
    if (polygons) ReadPolygons(*polygons, first, count, budget, data);
    kept += count;
  }
}

std::vector<std::string> StringsOrEmpty(const Hdf5File& file, const char* path) {
  return file.Exists(path) ? file.OpenDataset(path).ReadStrings() : std::vector<std::string>{};
}

/// Joint parents and frames, constraint bodies and points from /model (see the header).
/// Leaves has_links false, with a note, when their lengths disagree with the names.
void ReadLinksFromModel(const Hdf5File& file, ReplayData* data) {
  const size_t nj = data->joint_names.size(), nc = data->constraint_names.size();
  for (int64_t parent : file.OpenDataset("model/joint_parent").ReadInts())
    data->joint_parent.push_back(static_cast<int32_t>(parent));
  data->joint_position = file.OpenDataset("model/joint_position").ReadDoubles();
  if (nc > 0) {
    for (int64_t b : file.OpenDataset("model/constraint_body_a").ReadInts())
      data->constraint_body_a.push_back(static_cast<int32_t>(b));
    for (int64_t b : file.OpenDataset("model/constraint_body_b").ReadInts())
      data->constraint_body_b.push_back(static_cast<int32_t>(b));
    data->constraint_point_a = file.OpenDataset("model/constraint_point_a").ReadDoubles();
    data->constraint_point_b = file.OpenDataset("model/constraint_point_b").ReadDoubles();
  }
  const bool consistent =
      data->joint_parent.size() == nj && data->joint_position.size() == 3 * nj &&
      data->constraint_body_a.size() == nc && data->constraint_body_b.size() == nc &&
      data->constraint_point_a.size() == 3 * nc && data->constraint_point_b.size() == 3 * nc;
  if (!consistent) {
    data->links_note = "its /model joint frames or constraint attachments do not match its names";
    data->joint_parent.clear(), data->joint_position.clear();
    data->constraint_body_a.clear(), data->constraint_body_b.clear();
    data->constraint_point_a.clear(), data->constraint_point_b.clear();
    return;
  }
  data->has_links = true;
}

/// The same from the scene of the file loaded again, for files written before /model held
/// them (see the header). Leaves has_links false, with a note, when it does not load or no
/// longer matches /model.
void ReadLinksFromScene(const Hdf5File& file, ReplayData* data) {
  if (!file.Exists("scene/yaml")) {
    data->links_note = "the file has no /scene/yaml";
    return;
  }
  const std::string yaml = file.OpenDataset("scene/yaml").ReadString();
  const std::string path = file.HasAttribute("scene_file") ? file.GetStringAttribute("scene_file")
                                                            : "scene.yaml";
  io::LoadedScene scene;
  try {
    scene = io::LoadSceneFromText(yaml, path, {});
  } catch (const InputError& e) {
    data->links_note = std::string("its scene (/scene/yaml) no longer loads: ") + e.what();
    return;
  } catch (const IoError& e) {
    data->links_note = std::string("its scene (/scene/yaml) no longer loads: ") + e.what();
    return;
  }
  const multibody::Model& model = scene.model;
  bool same = model.num_bodies() == data->num_bodies() &&
              model.joints.size() == data->joint_names.size() &&
              model.constraints.size() == data->constraint_names.size();
  for (int b = 0; same && b < model.num_bodies(); ++b)
    same = model.bodies[b].name == data->body_names[b] &&
           model.joints[b].name == data->joint_names[b];
  for (size_t c = 0; same && c < model.constraints.size(); ++c)
    same = model.constraints[c].name == data->constraint_names[c];
  if (!same) {
    data->links_note = "its scene (/scene/yaml) loads to a model that differs from /model";
    return;
  }
  for (const multibody::Joint& joint : model.joints) {
    data->joint_parent.push_back(joint.parent);
    data->joint_position.insert(data->joint_position.end(), joint.X_PJ.p.data(),
                                joint.X_PJ.p.data() + 3);
  }
  for (const multibody::HolonomicConstraint& c : model.constraints) {
    const multibody::HolonomicAttachment a = multibody::AttachmentOf(c);
    data->constraint_body_a.push_back(a.body_a);
    data->constraint_body_b.push_back(a.body_b);
    std::vector<double>& point_a = data->constraint_point_a;
    std::vector<double>& point_b = data->constraint_point_b;
    point_a.insert(point_a.end(), a.p_AP.data(), a.p_AP.data() + 3);
    point_b.insert(point_b.end(), a.p_BQ.data(), a.p_BQ.data() + 3);
  }
  data->has_links = true;
}

/// /model/actuator_* and the frames' rows of /actuators/effort and /actuators/saturated.
void ReadActuators(const Hdf5File& file, int64_t n, ReplayData* data) {
  data->actuator_names = StringsOrEmpty(file, "model/actuator_names");
  const hsize_t na = data->actuator_names.size();
  if (na == 0) return;
  for (int64_t j : file.OpenDataset("model/actuator_joint").ReadInts())
    data->actuator_joint.push_back(static_cast<int32_t>(j));
  data->actuator_limit = file.OpenDataset("model/actuator_effort_limit").ReadDoubles();
  const Hdf5Dataset effort = file.OpenDataset("actuators/effort");
  const Hdf5Dataset saturated = file.OpenDataset("actuators/saturated");
  if (data->actuator_joint.size() != na || data->actuator_limit.size() != na ||
      effort.shape() != std::vector<hsize_t>{effort.rows(), na} ||
      saturated.shape() != std::vector<hsize_t>{saturated.rows(), na} ||
      effort.rows() < static_cast<hsize_t>(n) || saturated.rows() < static_cast<hsize_t>(n))
    throw IoError("'" + file.file_name() + "': /actuators/* do not match "
                  "/model/actuator_names and /time");
  data->actuator_effort = ReadRows(effort, data->rows);
  // Every row's flags (one byte each in the file): a frame is saturated when any row since
  // the previous frame was.
  const std::vector<int64_t> flags = saturated.ReadInts(n);
  int64_t previous = -1;
  for (int64_t row : data->rows) {
    for (hsize_t a = 0; a < na; ++a) {
      int8_t any = 0;
      for (int64_t r = previous + 1; r <= row; ++r) any |= flags[r * na + a] != 0;
      data->actuator_saturated.push_back(any);
    }
    previous = row;
  }
}

/// Where a referenced mesh file's rows went in the geometry table.
struct MeshRows {
  bool read = false;
  int64_t vertex_offset = 0, triangle_offset = 0;
  int32_t vertex_count = 0, triangle_count = 0;
};

/// Reads `path` at `scale` into the table's vertices and triangles.
MeshRows AppendMeshFile(const std::string& path, const Eigen::Vector3d& scale,
                        io::GeometryTable* table, std::string* error) {
  geometry::ConvexMesh mesh;
  MeshRows rows;
  if (!geometry::ReadMeshFile(path, scale, &mesh, error)) return rows;
  rows.read = true;
  rows.vertex_offset = static_cast<int64_t>(table->vertices.size());
  rows.triangle_offset = static_cast<int64_t>(table->triangles.size());
  rows.vertex_count = static_cast<int32_t>(mesh.vertices.size());
  rows.triangle_count = static_cast<int32_t>(mesh.triangles.size());
  table->vertices.insert(table->vertices.end(), mesh.vertices.begin(), mesh.vertices.end());
  table->triangles.insert(table->triangles.end(), mesh.triangles.begin(), mesh.triangles.end());
  return rows;
}

/// Reads the mesh files that `table` references (visual meshes kept as files), each file at
/// each scale once, into the table's vertices and triangles; the geometries of one file
/// share its rows. Returns why the files that could not be read failed, "; "-separated (""
/// when all were read).
std::string ReadReferencedMeshes(const std::string& scene_file, io::GeometryTable* table) {
  std::map<std::pair<std::string, std::array<double, 3>>, MeshRows> files;
  std::string note;
  for (int g = 0; g < table->count(); ++g) {
    if (table->file[g].empty()) continue;
    const Eigen::Vector3d& scale = table->scale[g];
    const auto key = std::make_pair(table->file[g], std::array<double, 3>{scale[0], scale[1], scale[2]});
    auto it = files.find(key);
    if (it == files.end()) {
      std::string error;
      const std::string path = io::ResolveMeshFileReference(table->file[g], scene_file);
      it = files.emplace(key, AppendMeshFile(path, scale, table, &error)).first;
      if (!it->second.read) note += (note.empty() ? "" : "; ") + error;
    }
    const MeshRows& rows = it->second;
    table->vertex_offset[g] = rows.vertex_offset;
    table->vertex_count[g] = rows.vertex_count;
    table->triangle_offset[g] = rows.triangle_offset;
    table->triangle_count[g] = rows.triangle_count;
  }
  return note;
}

Hdf5File OpenRun(const std::string& h5_path) {
  // SWMR read also opens a file whose run is still going on (or was killed).
  try {
    return Hdf5File::Open(h5_path, Hdf5File::Mode::kSwmrRead);
  } catch (const IoError&) {
    return Hdf5File::Open(h5_path, Hdf5File::Mode::kReadOnly);
  }
}

}  // namespace

std::vector<int64_t> DecimatedRows(int64_t n, int64_t frames) {
  std::vector<int64_t> rows;
  if (n <= 0) return rows;
  frames = std::max<int64_t>(frames, 2);
  // Smallest stride s with 0, s, ..., and then n - 1 fitting in `frames` rows.
  const int64_t stride = n <= frames ? 1 : (n - 1 + frames - 2) / (frames - 1);
  for (int64_t row = 0; row < n; row += stride) rows.push_back(row);
  if (rows.back() != n - 1) rows.push_back(n - 1);
  return rows;
}

ReplayData ReadReplay(const std::string& h5_path, const ReplayBudget& budget) {
  const Hdf5File file = OpenRun(h5_path);
  io::RequireCsimFile(file, {"model/body_names", "bodies/position", "bodies/quaternion"});
  ReplayData data;
  data.scene_name = file.HasAttribute("scene_name") ? file.GetStringAttribute("scene_name") : "";
  data.status = file.Exists("status") ? file.OpenDataset("status").ReadString() : "?";
  data.time_step = file.HasAttribute("time_step") ? file.GetDoubleAttribute("time_step") : 0.0;
  data.body_names = file.OpenDataset("model/body_names").ReadStrings();
  data.geometry = io::ReadGeometry(file);
  const std::string scene_file =
      file.HasAttribute("scene_file") ? file.GetStringAttribute("scene_file") : "";
  data.visual_note = ReadReferencedMeshes(scene_file, &data.geometry);

  // len(/time) counts the complete rows (output-format.md); every series is sliced to it.
  const std::vector<double> time = file.OpenDataset("time").ReadDoubles();
  const int64_t n = static_cast<int64_t>(time.size());
  data.recorded_rows = n;
  const Hdf5Dataset position = file.OpenDataset("bodies/position");
  const Hdf5Dataset quaternion = file.OpenDataset("bodies/quaternion");
  const hsize_t nb = data.body_names.size();
  if (position.shape() != std::vector<hsize_t>{position.rows(), nb, 3} ||
      quaternion.shape() != std::vector<hsize_t>{quaternion.rows(), nb, 4} ||
      position.rows() < static_cast<hsize_t>(n) || quaternion.rows() < static_cast<hsize_t>(n))
    throw IoError("'" + h5_path + "': /bodies/position or /bodies/quaternion does not match "
                  "/model/body_names and /time");

  data.joint_names = StringsOrEmpty(file, "model/joint_names");
  data.joint_types = StringsOrEmpty(file, "model/joint_types");
  data.constraint_names = StringsOrEmpty(file, "model/constraint_names");
  data.constraint_types = StringsOrEmpty(file, "model/constraint_types");
  const int na = static_cast<int>(StringsOrEmpty(file, "model/actuator_names").size());
  const ContactIndex contacts = ReadContactIndex(file, n);
  const SurfaceIndex surfaces = ReadSurfaceIndex(file, n);
  data.rows = ChooseRows(n, data.num_bodies(), na, contacts, surfaces, budget);
  for (int64_t row : data.rows) data.time.push_back(time[row]);
  data.position = ReadRows(position, data.rows);
  data.quaternion = ReadRows(quaternion, data.rows);
  ReadContacts(file, contacts, budget, &data);
  ReadSurfaces(file, surfaces, budget, &data);
  ReadActuators(file, n, &data);
  if (file.Exists("model/joint_parent")) {
    ReadLinksFromModel(file, &data);
  } else {
    ReadLinksFromScene(file, &data);
  }
  return data;
}

}  // namespace csim::app
