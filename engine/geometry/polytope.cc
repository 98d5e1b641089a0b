#include "engine/geometry/polytope.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "engine/common/check.h"
#include "engine/geometry/plane_basis.h"

namespace csim::geometry {
namespace {

double Cross2(const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
  return a.x() * b.y() - a.y() * b.x();
}

// Indices of the 2D convex hull of `points` (Andrew's monotone chain), counter-clockwise,
// collinear and duplicate points dropped.
std::vector<int> ConvexHull2(const std::vector<Eigen::Vector2d>& points, double tol) {
  std::vector<int> order(points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (points[a].x() != points[b].x()) return points[a].x() < points[b].x();
    return points[a].y() < points[b].y();
  });
  std::vector<int> hull(2 * order.size() + 1);
  int k = 0;
  auto turn = [&](int o, int a, int b) {
    return Cross2(points[a] - points[o], points[b] - points[o]);
  };
  for (int i : order) {  // lower chain
    while (k >= 2 && turn(hull[k - 2], hull[k - 1], i) <= tol) --k;
    hull[k++] = i;
  }
  const int lower = k + 1;
  for (auto it = order.rbegin() + 1; it != order.rend(); ++it) {  // upper chain
    while (k >= lower && turn(hull[k - 2], hull[k - 1], *it) <= tol) --k;
    hull[k++] = *it;
  }
  hull.resize(std::max(k - 1, 1));
  return hull;
}

// Points hashed into cubic cells of edge `cell`, so that the points within `cell` of a
// query are among those of the 27 cells around it. Why: mesh files from CAD hold tens of
// thousands of vertices, and a linear search for the match of each vertex (and of each
// triangle's plane) would make loading quadratic in the vertices.
class PointGrid {
 public:
  explicit PointGrid(double cell) : cell_(cell) {}
  void Insert(const Eigen::Vector3d& p, int index) { cells_[KeyOf(Cell(p))].push_back(index); }
  /// The least index i inserted near p with accept(i) true, or -1: the first match a linear
  /// search in insertion order would find, since indices are inserted in increasing order.
  template <typename Accept>
  int FirstMatch(const Eigen::Vector3d& p, const Accept& accept) const {
    const Eigen::Array3i c = Cell(p);
    int best = -1;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const auto it = cells_.find(KeyOf(c + Eigen::Array3i(dx, dy, dz)));
          if (it == cells_.end()) continue;
          for (int i : it->second)
            if ((best < 0 || i < best) && accept(i)) best = i;
        }
    return best;
  }

 private:
  Eigen::Array3i Cell(const Eigen::Vector3d& p) const {
    return (p.array() / cell_).floor().cast<int>();
  }
  static uint64_t KeyOf(const Eigen::Array3i& c) {
    // 21 bits per axis: cells span at most 2e9 per axis here (|p| / cell <= 1e9).
    const auto bits = [](int x) { return static_cast<uint64_t>(x) & 0x1FFFFF; };
    return bits(c.x()) | bits(c.y()) << 21 | bits(c.z()) << 42;
  }
  double cell_;
  std::unordered_map<uint64_t, std::vector<int>> cells_;
};

// Merges vertices closer than tol; returns the map old index -> new index (each vertex
// goes to the first earlier kept vertex within tol, as a linear search would choose).
std::vector<int> MergeVertices(const std::vector<Eigen::Vector3d>& in, double tol,
                               std::vector<Eigen::Vector3d>* out) {
  std::vector<int> map(in.size());
  PointGrid grid(tol);
  for (size_t i = 0; i < in.size(); ++i) {
    int found = grid.FirstMatch(in[i], [&](int j) { return ((*out)[j] - in[i]).norm() <= tol; });
    if (found < 0) {
      found = static_cast<int>(out->size());
      out->push_back(in[i]);
      grid.Insert(in[i], found);
    }
    map[i] = found;
  }
  return map;
}

// Orders the vertex set of one face counter-clockwise about its normal (convex hull).
void OrderFace(const std::vector<Eigen::Vector3d>& vertices, double tol, PolytopeFace* face) {
  Eigen::Vector3d u, v;
  CalcPlaneBasis(face->normal, &u, &v);
  std::vector<Eigen::Vector2d> planar;
  for (int i : face->vertices) planar.emplace_back(u.dot(vertices[i]), v.dot(vertices[i]));
  const std::vector<int> hull = ConvexHull2(planar, tol * tol);
  std::vector<int> ordered;
  for (int h : hull) ordered.push_back(face->vertices[h]);
  face->vertices = ordered;
}

}  // namespace

Polytope MakeBoxPolytope(const Eigen::Vector3d& size) {
  Polytope box;
  const Eigen::Vector3d h = 0.5 * size;
  for (int i = 0; i < 8; ++i) {  // bit k of i set: + side along axis k
    box.vertices.emplace_back((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                              (i & 4) ? h.z() : -h.z());
  }
  for (int axis = 0; axis < 3; ++axis) {
    for (int sign : {-1, 1}) {
      PolytopeFace face;
      face.normal = sign * Eigen::Vector3d::Unit(axis);
      for (int i = 0; i < 8; ++i) {
        if (((i >> axis) & 1) == (sign > 0 ? 1 : 0)) face.vertices.push_back(i);
      }
      OrderFace(box.vertices, 1e-12, &face);
      box.faces.push_back(face);
    }
  }
  return box;
}

Polytope MakeMeshPolytope(const ConvexMesh& mesh) {
  Polytope poly;
  double scale = 0.0;
  for (const Eigen::Vector3d& p : mesh.vertices) scale = std::max(scale, p.norm());
  const double tol = 1e-9 * std::max(scale, 1e-3);
  const std::vector<int> map = MergeVertices(mesh.vertices, tol, &poly.vertices);
  std::vector<double> offsets;  // plane offset n . p of each merged face
  PointGrid normal_grid(1e-4);  // the faces by their unit normal
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Eigen::Vector3d& a = poly.vertices[map[t[0]]];
    const Eigen::Vector3d n = (poly.vertices[map[t[1]]] - a).cross(poly.vertices[map[t[2]]] - a);
    if (n.norm() <= tol * tol) continue;  // degenerate sliver
    const Eigen::Vector3d nhat = n.normalized();
    // The first face in the triangle's plane: a normal within 1e-9 of nhat in cosine, i.e.
    // |n - nhat| < sqrt(2e-9) < 1e-4, is in a normal cell next to nhat's.
    int f = normal_grid.FirstMatch(nhat, [&](int g) {
      return poly.faces[g].normal.dot(nhat) > 1.0 - 1e-9 &&
             std::abs(offsets[g] - nhat.dot(a)) < 1e3 * tol;
    });
    if (f < 0) {
      f = static_cast<int>(poly.faces.size());
      poly.faces.push_back({nhat, {}});
      offsets.push_back(nhat.dot(a));
      normal_grid.Insert(nhat, f);
    }
    for (int k = 0; k < 3; ++k) poly.faces[f].vertices.push_back(map[t[k]]);
  }
  for (PolytopeFace& face : poly.faces) {
    std::sort(face.vertices.begin(), face.vertices.end());
    face.vertices.erase(std::unique(face.vertices.begin(), face.vertices.end()), face.vertices.end());
    OrderFace(poly.vertices, tol, &face);
  }
  CSIM_CHECK(!poly.vertices.empty());
  return poly;
}

}  // namespace csim::geometry
