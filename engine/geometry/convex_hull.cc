#include "engine/geometry/convex_hull.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace csim::geometry {
namespace {

using Eigen::Vector3d;

/// A triangle of the hull, counter-clockwise seen from outside.
struct HullFace {
  int v[3] = {0, 0, 0};        ///< point indices
  Vector3d normal;             ///< outward unit normal
  double offset = 0.0;         ///< normal . p for every p in the face's plane [m]
  std::vector<int> outside;    ///< points above this face that are not hull vertices yet
  bool alive = true;
  int stamp = 0;               ///< visibility marks of one step (Hull::AddPoint)
  bool visible = false;
};

uint64_t EdgeKey(int a, int b) {
  return static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32 | static_cast<uint32_t>(b);
}

/// The hull under construction: faces, and the face of every directed edge (a, b).
class Hull {
 public:
  Hull(const std::vector<Vector3d>& points, double tol) : p_(points), tol_(tol) {
    // A hull of n vertices has at most 2n - 4 faces and 6n - 12 directed edges.
    faces_.reserve(2 * points.size());
    edge_face_.reserve(6 * points.size());
  }

  /// Builds the hull from the tetrahedron `start`; every other point is a candidate.
  void Build(const int start[4]) {
    const Vector3d inside = (p_[start[0]] + p_[start[1]] + p_[start[2]] + p_[start[3]]) / 4;
    const int corners[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {0, 2, 3}};
    std::vector<int> first;
    for (const auto& c : corners) {
      int a = start[c[0]], b = start[c[1]], d = start[c[2]];
      if ((p_[b] - p_[a]).cross(p_[d] - p_[a]).dot(inside - p_[a]) > 0) std::swap(b, d);
      first.push_back(AddFace(a, b, d));
    }
    std::vector<int> candidates;
    for (int i = 0; i < static_cast<int>(p_.size()); ++i)
      if (std::find(start, start + 4, i) == start + 4) candidates.push_back(i);
    Assign(candidates, first);
    std::vector<int> pending = first;
    while (!pending.empty()) {
      const int f = pending.back();
      pending.pop_back();
      if (faces_[f].alive && !faces_[f].outside.empty()) AddFarthestPoint(f, &pending);
    }
  }

  /// Sum over the faces of the tetrahedra (origin, a, b, c).
  double Volume() const {
    double volume = 0.0;
    for (const HullFace& f : faces_)
      if (f.alive) volume += p_[f.v[0]].dot(p_[f.v[1]].cross(p_[f.v[2]])) / 6.0;
    return volume;
  }

 private:
  double Height(const HullFace& f, int i) const { return f.normal.dot(p_[i]) - f.offset; }

  int AddFace(int a, int b, int c) {
    HullFace f;
    f.v[0] = a;
    f.v[1] = b;
    f.v[2] = c;
    f.normal = (p_[b] - p_[a]).cross(p_[c] - p_[a]).normalized();
    f.offset = f.normal.dot(p_[a]);
    const int id = static_cast<int>(faces_.size());
    faces_.push_back(std::move(f));
    const HullFace& added = faces_[id];
    for (int k = 0; k < 3; ++k) edge_face_[EdgeKey(added.v[k], added.v[(k + 1) % 3])] = id;
    return id;
  }

  /// Gives each point to the first face in `faces` it lies above; the others are inside.
  void Assign(const std::vector<int>& points, const std::vector<int>& faces) {
    for (int i : points) {
      for (int f : faces) {
        if (Height(faces_[f], i) <= tol_) continue;
        faces_[f].outside.push_back(i);
        break;
      }
    }
  }

  /// Adds the farthest outside point of face f: removes the faces it sees, joins it to their
  /// horizon and hands their outside points to the new faces (pushed onto `pending`).
  void AddFarthestPoint(int f, std::vector<int>* pending) {
    std::vector<int>& outside = faces_[f].outside;
    const auto farthest = std::max_element(outside.begin(), outside.end(), [&](int a, int b) {
      return Height(faces_[f], a) < Height(faces_[f], b);
    });
    const int eye = *farthest;
    outside.erase(farthest);
    const std::vector<int> visible = VisibleFaces(f, eye);
    std::vector<std::pair<int, int>> horizon;
    for (int g : visible)
      for (int k = 0; k < 3; ++k) {
        const int a = faces_[g].v[k], b = faces_[g].v[(k + 1) % 3];
        if (!faces_[edge_face_.at(EdgeKey(b, a))].visible) horizon.emplace_back(a, b);
      }
    // Round-off can make the seen faces pinch the horizon (a vertex on it twice); the cone
    // would then not close, so such a point, within round-off of the hull, is left out.
    if (!IsSimpleLoop(horizon)) {
      for (int g : visible) faces_[g].visible = false;
      pending->push_back(f);
      return;
    }
    std::vector<int> orphans;
    for (int g : visible) {
      HullFace& face = faces_[g];
      face.alive = false;
      for (int k = 0; k < 3; ++k) edge_face_.erase(EdgeKey(face.v[k], face.v[(k + 1) % 3]));
      orphans.insert(orphans.end(), face.outside.begin(), face.outside.end());
      face.outside.clear();
    }
    std::vector<int> cone;
    for (const auto& [a, b] : horizon) cone.push_back(AddFace(a, b, eye));
    Assign(orphans, cone);
    pending->insert(pending->end(), cone.begin(), cone.end());
  }

  /// The faces that `eye` lies above, found from face f across shared edges. Marks every
  /// face it looks at (the visible ones and their neighbours) with this step's visibility.
  std::vector<int> VisibleFaces(int f, int eye) {
    ++stamp_;
    std::vector<int> visible, stack = {f};
    faces_[f].stamp = stamp_;
    faces_[f].visible = true;
    while (!stack.empty()) {
      const int g = stack.back();
      stack.pop_back();
      visible.push_back(g);
      for (int k = 0; k < 3; ++k) {
        const int h = edge_face_.at(EdgeKey(faces_[g].v[(k + 1) % 3], faces_[g].v[k]));
        if (faces_[h].stamp == stamp_) continue;
        faces_[h].stamp = stamp_;
        faces_[h].visible = Height(faces_[h], eye) > tol_;
        if (faces_[h].visible) stack.push_back(h);
      }
    }
    return visible;
  }

  /// True if every vertex of the directed edges starts exactly one edge and ends one.
  static bool IsSimpleLoop(const std::vector<std::pair<int, int>>& edges) {
    std::unordered_map<int, int> starts, ends;
    for (const auto& [a, b] : edges) {
      if (++starts[a] > 1 || ++ends[b] > 1) return false;
    }
    return starts.size() == ends.size();
  }

  const std::vector<Vector3d>& p_;
  double tol_;
  std::vector<HullFace> faces_;
  std::unordered_map<uint64_t, int> edge_face_;
  int stamp_ = 0;
};

/// Index of the first point with the largest `distance`; that distance in *best.
template <typename Distance>
int Farthest(const std::vector<Vector3d>& p, const Distance& distance, double* best) {
  int index = 0;
  *best = -1.0;
  for (int i = 0; i < static_cast<int>(p.size()); ++i) {
    const double d = distance(p[i]);
    if (d > *best) {
      *best = d;
      index = i;
    }
  }
  return index;
}

/// Four points spanning a tetrahedron thicker than tol, or false.
bool StartTetrahedron(const std::vector<Vector3d>& p, double tol, int start[4]) {
  double d = 0.0;
  start[0] = Farthest(p, [](const Vector3d& x) { return -x.x(); }, &d);
  const Vector3d a = p[start[0]];
  start[1] = Farthest(p, [&](const Vector3d& x) { return (x - a).norm(); }, &d);
  if (d <= tol) return false;
  const Vector3d u = (p[start[1]] - a).normalized();
  start[2] = Farthest(p, [&](const Vector3d& x) { return (x - a).cross(u).norm(); }, &d);
  if (d <= tol) return false;
  const Vector3d n = u.cross(p[start[2]] - a).normalized();
  start[3] = Farthest(p, [&](const Vector3d& x) { return std::abs(n.dot(x - a)); }, &d);
  return d > tol;
}

}  // namespace

double ConvexHullVolume(const std::vector<Eigen::Vector3d>& points) {
  if (points.size() < 4) return 0.0;
  // Coordinates about the centroid, so that round-off scales with the set's spread R.
  Vector3d centroid = Vector3d::Zero();
  for (const Vector3d& x : points) centroid += x / static_cast<double>(points.size());
  std::vector<Vector3d> p;
  double R = 0.0;
  for (const Vector3d& x : points) {
    p.push_back(x - centroid);
    R = std::max(R, p.back().norm());
  }
  const double tol = 1e-10 * R;
  int start[4];
  if (!(R > 0) || !StartTetrahedron(p, tol, start)) return 0.0;
  Hull hull(p, tol);
  hull.Build(start);
  return hull.Volume();
}

}  // namespace csim::geometry
