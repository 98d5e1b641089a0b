#include "engine/geometry/mesh_file.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

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

bool ReadWholeFile(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *bytes = buffer.str();
  return !in.bad();
}

/// Parses one OBJ face corner ("7", "7/2", "7//3", "-1") into a 0-based index.
bool ParseObjIndex(const std::string& token, int num_vertices, int* index) {
  const std::string head = token.substr(0, token.find('/'));
  char* end = nullptr;
  const long value = std::strtol(head.c_str(), &end, 10);
  if (head.empty() || *end != '\0' || value == 0) return false;
  *index = value > 0 ? static_cast<int>(value - 1) : num_vertices + static_cast<int>(value);
  return *index >= 0 && *index < num_vertices;
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

bool IsBinaryStl(const std::string& bytes) {
  if (bytes.size() < 84) return false;
  uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 80, 4);
  return bytes.size() == 84 + 50 * static_cast<size_t>(count);
}

bool ParseBinaryStl(const std::string& bytes, ConvexMesh* mesh) {
  uint32_t count = 0;
  std::memcpy(&count, bytes.data() + 80, 4);
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
  return true;
}

/// Makes every triangle's normal point away from the vertex centroid (convex mesh).
void OrientOutward(ConvexMesh* mesh) {
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& p : mesh->vertices) centroid += p;
  centroid /= static_cast<double>(mesh->vertices.size());
  for (Eigen::Vector3i& t : mesh->triangles) {
    const Eigen::Vector3d& a = mesh->vertices[t[0]];
    const Eigen::Vector3d n = (mesh->vertices[t[1]] - a).cross(mesh->vertices[t[2]] - a);
    if (n.dot(a - centroid) < 0) std::swap(t[1], t[2]);
  }
}

}  // namespace

bool ReadMeshFile(const std::string& path, const Eigen::Vector3d& scale, ConvexMesh* out,
                  std::string* error) {
  const std::string ext = LowerExtension(path);
  if (ext != "obj" && ext != "stl") {
    *error = "unknown mesh format '" + path + "' (expected .obj or .stl)";
    return false;
  }
  std::string bytes;
  if (!ReadWholeFile(path, &bytes)) {
    *error = "cannot read mesh file '" + path + "'";
    return false;
  }
  ConvexMesh mesh;
  mesh.file = path;
  bool ok = true;
  if (ext == "obj") {
    ok = ParseObj(bytes, &mesh, error);
  } else if (IsBinaryStl(bytes)) {
    ok = ParseBinaryStl(bytes, &mesh);
  } else {
    ok = ParseAsciiStl(bytes, &mesh, error);
  }
  if (!ok) {
    *error = "mesh file '" + path + "': " + *error;
    return false;
  }
  if (mesh.triangles.empty()) {
    *error = "mesh file '" + path + "' has no triangles";
    return false;
  }
  for (Eigen::Vector3d& p : mesh.vertices) p = p.cwiseProduct(scale);
  OrientOutward(&mesh);
  *out = std::move(mesh);
  return true;
}

}  // namespace csim::geometry
