#include "engine/geometry/mesh_convexity.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/geometry/convex_hull.h"
#include "engine/geometry/mass_properties.h"

namespace csim::geometry {
namespace {

/// One use of an edge by a triangle: the triangle, and whether it runs the edge from its
/// lower to its higher vertex index.
struct EdgeUse {
  int triangle;
  bool forward;
};

/// The triangles with vertices merged by exact position; those with two equal corners
/// (no area, no edge of the surface) are dropped.
std::vector<Eigen::Vector3i> MergedTriangles(const ConvexMesh& mesh) {
  std::map<std::tuple<double, double, double>, int> index;
  std::vector<int> id(mesh.vertices.size());
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Eigen::Vector3d& p = mesh.vertices[i];
    id[i] = index.emplace(std::make_tuple(p.x(), p.y(), p.z()), static_cast<int>(i))
                .first->second;
  }
  std::vector<Eigen::Vector3i> out;
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Eigen::Vector3i m(id[t[0]], id[t[1]], id[t[2]]);
    if (m[0] != m[1] && m[1] != m[2] && m[2] != m[0]) out.push_back(m);
  }
  return out;
}

uint64_t EdgeKey(int a, int b) {
  if (a > b) std::swap(a, b);
  return static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32 | static_cast<uint32_t>(b);
}

/// Every undirected edge (EdgeKey) with the triangles that use it.
using EdgeMap = std::unordered_map<uint64_t, std::vector<EdgeUse>>;

EdgeMap EdgeUses(const std::vector<Eigen::Vector3i>& triangles) {
  EdgeMap uses;
  for (int t = 0; t < static_cast<int>(triangles.size()); ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = triangles[t][k], b = triangles[t][(k + 1) % 3];
      uses[EdgeKey(a, b)].push_back({t, a < b});
    }
  return uses;
}

/// Winds the piece of triangle `seed` like `seed`, breadth-first across shared edges
/// (flip[t] = 1 for a triangle turned over, -1 for one not reached yet), and returns its
/// signed volume, the sum of the tetrahedra (c, a, b, d) of its wound triangles. Two
/// triangles agree when they run their shared edge in opposite directions; a triangle
/// reached with both windings clears *orientable.
double WindPiece(int seed, const std::vector<Eigen::Vector3i>& triangles, const EdgeMap& uses,
                 const std::vector<Eigen::Vector3d>& p, const Eigen::Vector3d& c,
                 std::vector<int>* flip, bool* orientable) {
  double volume = 0.0;
  (*flip)[seed] = 0;
  std::vector<int> queue = {seed};
  for (size_t head = 0; head < queue.size(); ++head) {
    const int t = queue[head];
    const Eigen::Vector3i& v = triangles[t];
    const double tet = (p[v[0]] - c).dot((p[v[1]] - c).cross(p[v[2]] - c)) / 6.0;
    volume += (*flip)[t] ? -tet : tet;
    for (int k = 0; k < 3; ++k) {
      const std::vector<EdgeUse>& list = uses.at(EdgeKey(v[k], v[(k + 1) % 3]));
      if (list.size() != 2) continue;
      const EdgeUse& mine = list[0].triangle == t ? list[0] : list[1];
      const EdgeUse& other = list[0].triangle == t ? list[1] : list[0];
      const bool runs_forward = mine.forward != ((*flip)[t] == 1);
      const int wanted = runs_forward == other.forward ? 1 : 0;
      int& other_flip = (*flip)[other.triangle];
      if (other_flip < 0) {
        other_flip = wanted;
        queue.push_back(other.triangle);
      } else if (other_flip != wanted) {
        *orientable = false;
      }
    }
  }
  return volume;
}

}  // namespace

EnclosedVolume CalcEnclosedVolume(const ConvexMesh& mesh) {
  EnclosedVolume out;
  const std::vector<Eigen::Vector3i> triangles = MergedTriangles(mesh);
  const EdgeMap uses = EdgeUses(triangles);
  for (const auto& [key, list] : uses)
    if (list.size() != 2) ++out.open_edges;
  // Coordinates about the vertex centroid keep the tetrahedra small (round-off).
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& p : mesh.vertices) c += p / static_cast<double>(mesh.vertices.size());
  std::vector<int> flip(triangles.size(), -1);
  double total = 0.0;
  for (int seed = 0; seed < static_cast<int>(triangles.size()); ++seed) {
    if (flip[seed] >= 0) continue;
    ++out.pieces;
    total += std::abs(WindPiece(seed, triangles, uses, mesh.vertices, c, &flip, &out.orientable));
  }
  if (out.closed()) out.volume = total;
  return out;
}

bool MeshConvexity::convex() const {
  return enclosed.closed() && enclosed.pieces == 1 && enclosed.volume > 0 &&
         hull_volume <= (1.0 + kConvexVolumeTolerance) * enclosed.volume;
}

MeshConvexity CheckMeshConvexity(const ConvexMesh& mesh) {
  MeshConvexity out;
  out.enclosed = CalcEnclosedVolume(mesh);
  out.hull_volume = ConvexHullVolume(mesh.vertices);
  out.mass_volume = UnitMeshMassProperties(mesh).mass;
  return out;
}

}  // namespace csim::geometry
