#include "engine/geometry/mesh_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "engine/geometry/dae_mesh_file.h"

namespace csim::geometry {
namespace {

std::string LowerExtension(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

/// Reads the whole file, or returns false with the system's reason in `error`. C stdio
/// rather than a stream, because it sets errno: a directory opens but fails to read
/// ("Is a directory"), which a stream would report as an empty file.
bool ReadWholeFile(const std::string& path, std::string* bytes, std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    *error = std::strerror(errno);
    return false;
  }
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) bytes->append(buffer, n);
  const bool ok = !std::ferror(file);
  if (!ok) *error = std::strerror(errno);
  std::fclose(file);
  return ok;
}

/// Parses one OBJ face corner ("7", "7/2", "7//3", "-1") into a 0-based index.
bool ParseObjIndex(const std::string& token, int num_vertices, int* index) {
  const std::string head = token.substr(0, token.find('/'));
  char* end = nullptr;
  const long value = std::strtol(head.c_str(), &end, 10);
  if (head.empty() || *end != '\0' || value == 0) return false;
  // Range-checked before narrowing to int, which would wrap a huge index into range.
  if (value > num_vertices || value < -static_cast<long>(num_vertices)) return false;
  *index = value > 0 ? static_cast<int>(value - 1) : num_vertices + static_cast<int>(value);
  return true;
}

bool ParseObj(const std::string& text, ConvexMesh* mesh, std::string* error) {
  std::istringstream lines(text);
  std::string line;
  int line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    std::istringstream fields(line);
    std::string tag;
    fields >> tag;
    if (tag == "v") {
      Eigen::Vector3d p;
      if (!(fields >> p.x() >> p.y() >> p.z())) {
        *error = "bad vertex on line " + std::to_string(line_number);
        return false;
      }
      mesh->vertices.push_back(p);
    } else if (tag == "f") {
      std::vector<int> corners;
      std::string token;
      const int n = static_cast<int>(mesh->vertices.size());
      while (fields >> token) {
        int index = 0;
        if (!ParseObjIndex(token, n, &index)) {
          *error = "bad face index '" + token + "' on line " + std::to_string(line_number);
          return false;
        }
        corners.push_back(index);
      }
      // Fan triangulation of a (convex) polygon.
      for (size_t k = 2; k < corners.size(); ++k) {
        mesh->triangles.emplace_back(corners[0], corners[k - 1], corners[k]);
      }
    }
  }
  return true;
}

/// Index of vertex p in mesh, adding it if new (STL stores each facet's corners anew).
int MergeVertex(const Eigen::Vector3d& p, std::map<std::tuple<double, double, double>, int>* seen,
                ConvexMesh* mesh) {
  const auto key = std::make_tuple(p.x(), p.y(), p.z());
  const auto it = seen->find(key);
  if (it != seen->end()) return it->second;
  const int index = static_cast<int>(mesh->vertices.size());
  mesh->vertices.push_back(p);
  seen->emplace(key, index);
  return index;
}

/// Size [bytes] of a binary STL with `count` triangles: 80-byte header, 4-byte count,
/// 50 bytes per triangle. 64-bit, so that any count (up to 2^32 - 1) fits.
uint64_t BinaryStlSize(uint32_t count) { return 84 + 50 * static_cast<uint64_t>(count); }

/// The triangle count in a binary STL header (at least 84 bytes).
uint32_t BinaryStlCount(const std::string& bytes) {
  uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 80, 4);
  return count;
}

/// An ASCII STL is text starting with "solid". A binary header is free text and may start
/// with "solid" too; such a file is told apart by a NUL byte (its count and coordinates
/// nearly always hold one, text never does) or by having exactly the binary size.
bool IsAsciiStl(const std::string& bytes) {
  const size_t start = bytes.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || bytes.compare(start, 5, "solid") != 0) return false;
  if (bytes.find('\0') != std::string::npos) return false;
  return bytes.size() < 84 || bytes.size() != BinaryStlSize(BinaryStlCount(bytes));
}

/// Parses a binary STL whose size must match its triangle count, so that a damaged header
/// (a count of 2^31, say) is reported rather than trusted: nothing is allocated for
/// triangles the file does not hold.
bool ParseBinaryStl(const std::string& bytes, ConvexMesh* mesh, std::string* error) {
  if (bytes.size() < 84) {
    *error = "binary STL is truncated: " + std::to_string(bytes.size()) +
             " bytes, less than its 84-byte header";
    return false;
  }
  const uint32_t count = BinaryStlCount(bytes);
  const uint64_t expected = BinaryStlSize(count);
  if (bytes.size() != expected) {
    *error = std::string(bytes.size() < expected ? "binary STL is truncated"
                                                 : "binary STL has bytes after its triangles") +
             ": expected " + std::to_string(count) + " triangles = " + std::to_string(expected) +
             " bytes, file has " + std::to_string(bytes.size()) + " bytes";
    return false;
  }
  std::map<std::tuple<double, double, double>, int> seen;
  for (uint32_t f = 0; f < count; ++f) {
    const char* record = bytes.data() + 84 + 50 * static_cast<size_t>(f);
    Eigen::Vector3i tri;
    for (int k = 0; k < 3; ++k) {
      float xyz[3];
      std::memcpy(xyz, record + 12 * (k + 1), 12);  // skip the 12-byte normal
      tri[k] = MergeVertex(Eigen::Vector3d(xyz[0], xyz[1], xyz[2]), &seen, mesh);
    }
    mesh->triangles.push_back(tri);
  }
  return true;
}

bool ParseAsciiStl(const std::string& text, ConvexMesh* mesh, std::string* error) {
  std::istringstream words(text);
  std::string word;
  std::map<std::tuple<double, double, double>, int> seen;
  std::vector<int> corners;
  while (words >> word) {
    if (word != "vertex") continue;
    Eigen::Vector3d p;
    if (!(words >> p.x() >> p.y() >> p.z())) {
      *error = "bad vertex in ASCII STL";
      return false;
    }
    corners.push_back(MergeVertex(p, &seen, mesh));
    if (corners.size() == 3) {
      mesh->triangles.emplace_back(corners[0], corners[1], corners[2]);
      corners.clear();
    }
  }
  if (!corners.empty()) {
    *error = "ASCII STL ends inside a facet (truncated?)";
    return false;
  }
  return true;
}

/// Removes the vertices no triangle uses, keeping the others in file order. They are not
/// part of the solid, yet they would pull the centroid that orients the triangles and
/// become corners of the collision polytope.
void DropUnusedVertices(ConvexMesh* mesh) {
  std::vector<int> new_index(mesh->vertices.size(), -1);
  for (const Eigen::Vector3i& t : mesh->triangles)
    for (int k = 0; k < 3; ++k) new_index[t[k]] = 0;
  std::vector<Eigen::Vector3d> used;
  for (size_t i = 0; i < mesh->vertices.size(); ++i) {
    if (new_index[i] < 0) continue;
    new_index[i] = static_cast<int>(used.size());
    used.push_back(mesh->vertices[i]);
  }
  for (Eigen::Vector3i& t : mesh->triangles)
    for (int k = 0; k < 3; ++k) t[k] = new_index[t[k]];
  mesh->vertices = std::move(used);
}

/// Mean of the vertices, each divided first so that huge coordinates cannot overflow the sum.
Eigen::Vector3d Centroid(const ConvexMesh& mesh) {
  const double n = static_cast<double>(mesh.vertices.size());
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& p : mesh.vertices) centroid += p / n;
  return centroid;
}

/// Makes every triangle's normal point away from the vertex centroid (convex mesh).
void OrientOutward(ConvexMesh* mesh) {
  const Eigen::Vector3d centroid = Centroid(*mesh);
  for (Eigen::Vector3i& t : mesh->triangles) {
    const Eigen::Vector3d& a = mesh->vertices[t[0]];
    const Eigen::Vector3d n = (mesh->vertices[t[1]] - a).cross(mesh->vertices[t[2]] - a);
    if (n.dot(a - centroid) < 0) std::swap(t[1], t[2]);
  }
}

/// Volume enclosed by the outward triangles in units of R^3, R the largest distance of a
/// vertex from the centroid: about 1.5 for a cube, 0 (up to round-off, ~1e-16 per
/// triangle) when every triangle lies in one plane or on one line. Coordinates are divided
/// by R first, so that neither a tiny nor a huge scale underflows or overflows.
double RelativeVolume(const ConvexMesh& mesh) {
  const Eigen::Vector3d c = Centroid(mesh);
  double R = 0.0;
  for (const Eigen::Vector3d& p : mesh.vertices) R = std::max(R, (p - c).stableNorm());
  if (!(R > 0)) return 0.0;
  double volume = 0.0;  // tetrahedra (centroid, a, b, c), each >= 0 once oriented outward
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Eigen::Vector3d a = (mesh.vertices[t[0]] - c) / R;
    const Eigen::Vector3d b = (mesh.vertices[t[1]] - c) / R;
    const Eigen::Vector3d d = (mesh.vertices[t[2]] - c) / R;
    volume += a.dot(b.cross(d)) / 6.0;
  }
  return volume;
}

}  // namespace

bool ReadMeshFile(const std::string& path, const Eigen::Vector3d& scale, ConvexMesh* out,
                  std::string* error) {
  const std::string ext = LowerExtension(path);
  if (ext != "obj" && ext != "stl" && ext != "dae") {
    *error = "unknown mesh format '" + path + "' (expected .obj, .stl or .dae)";
    return false;
  }
  std::string bytes;
  if (!ReadWholeFile(path, &bytes, error)) {
    *error = "cannot read mesh file '" + path + "': " + *error;
    return false;
  }
  ConvexMesh mesh;
  bool ok = true;
  if (ext == "obj") {
    ok = ParseObj(bytes, &mesh, error);
  } else if (ext == "dae") {
    ok = ParseDae(bytes, &mesh, error);
  } else if (IsAsciiStl(bytes)) {
    ok = ParseAsciiStl(bytes, &mesh, error);
  } else {
    ok = ParseBinaryStl(bytes, &mesh, error);
  }
  if (!ok) {
    *error = "mesh file '" + path + "': " + *error;
    return false;
  }
  for (Eigen::Vector3d& p : mesh.vertices) p = p.cwiseProduct(scale);
  if (!MakeConvexMesh(std::move(mesh.vertices), std::move(mesh.triangles), out, error)) {
    *error = "mesh file '" + path + "' " + *error;
    return false;
  }
  out->file = path;
  return true;
}

bool MakeConvexMesh(std::vector<Eigen::Vector3d> vertices,
                    std::vector<Eigen::Vector3i> triangles, ConvexMesh* out,
                    std::string* error) {
  ConvexMesh mesh;
  mesh.vertices = std::move(vertices);
  mesh.triangles = std::move(triangles);
  if (mesh.triangles.empty()) {
    *error = "has no triangles";
    return false;
  }
  DropUnusedVertices(&mesh);
  for (const Eigen::Vector3d& p : mesh.vertices) {
    if (!p.allFinite()) {  // a binary STL can hold NaN or infinity; a scale can overflow
      *error = "has a vertex that is not finite (after scaling)";
      return false;
    }
  }
  OrientOutward(&mesh);
  // A convex solid needs a volume: a flat mesh has no inside to orient its triangles by,
  // and no mass properties.
  constexpr double kMinRelativeVolume = 1e-12;  // a plate 1e-12 of its width thick passes
  if (!(RelativeVolume(mesh) > kMinRelativeVolume)) {
    *error = "encloses no volume: its triangles lie in one plane or on one line";
    return false;
  }
  *out = std::move(mesh);
  return true;
}

}  // namespace csim::geometry
