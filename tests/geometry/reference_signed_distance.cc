#include "tests/geometry/reference_signed_distance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace csim::geometry::test {
namespace {

using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

void AddBoxCore(const Vector3d& half, ReferenceShape* s) {
  for (int k = 0; k < 8; ++k) {
    const Vector3d c((k & 1) ? half.x() : -half.x(), (k & 2) ? half.y() : -half.y(),
                     (k & 4) ? half.z() : -half.z());
    s->vertices.push_back(s->p + s->R * c);
  }
  for (int k = 0; k < 8; ++k) {
    for (int bit : {1, 2, 4}) {
      if (!(k & bit)) s->edges.emplace_back(k, k | bit);
    }
  }
  for (int i = 0; i < 3; ++i) {
    s->face_normals.push_back(s->R.col(i));
    s->face_normals.push_back(-s->R.col(i));
  }
}

// A segment of the given half length along the frame's z axis (capsule and cylinder cores).
void AddAxisCore(double half_length, ReferenceShape* s) {
  s->vertices.push_back(s->p - half_length * s->R.col(2));
  s->vertices.push_back(s->p + half_length * s->R.col(2));
  s->edges.emplace_back(0, 1);
}

void AddMeshCore(const ConvexMesh& mesh, ReferenceShape* s) {
  for (const Vector3d& v : mesh.vertices) s->vertices.push_back(s->p + s->R * v);
  std::map<std::pair<int, int>, bool> seen;
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Vector3d n = (mesh.vertices[t[1]] - mesh.vertices[t[0]])
                           .cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
    if (n.norm() > 0.0) s->face_normals.push_back(s->R * n.normalized());
    for (int k = 0; k < 3; ++k) {
      const int i = t[k], j = t[(k + 1) % 3];
      const std::pair<int, int> e(std::min(i, j), std::max(i, j));
      if (!seen[e]) s->edges.push_back(e);
      seen[e] = true;
    }
  }
}

Vector3d ClosestPointOnSegment(const Vector3d& p0, const Vector3d& p1, const Vector3d& x) {
  const Vector3d d = p1 - p0;
  const double len2 = d.squaredNorm();
  if (len2 == 0.0) return p0;
  return p0 + std::clamp((x - p0).dot(d) / len2, 0.0, 1.0) * d;
}

void AddDirection(const Vector3d& d, std::vector<Vector3d>* out) {
  const double norm = d.norm();
  if (norm > 1e-300 && std::isfinite(norm)) out->push_back(d / norm);
}

// Unit vectors normal to the unit vector a.
void Perpendiculars(const Vector3d& a, Vector3d* u, Vector3d* v) {
  const Vector3d seed = std::abs(a.x()) < 0.6 ? Vector3d::UnitX() : Vector3d::UnitY();
  *u = a.cross(seed).normalized();
  *v = a.cross(*u);
}

// The candidate directions of two cores (see the header): exact for polytope cores.
std::vector<Vector3d> CoreCandidates(const ReferenceShape& a, const ReferenceShape& b) {
  std::vector<Vector3d> c;
  for (const Vector3d& n : a.face_normals) c.push_back(n);
  for (const Vector3d& n : b.face_normals) c.push_back(-n);
  for (const auto& ea : a.edges) {
    const Vector3d da = a.vertices[ea.second] - a.vertices[ea.first];
    for (const auto& eb : b.edges) {
      const Vector3d db = b.vertices[eb.second] - b.vertices[eb.first];
      const Vector3d x = da.cross(db);
      if (x.norm() > 1e-13 * da.norm() * db.norm()) {
        AddDirection(x, &c);
        AddDirection(-x, &c);
      }
    }
  }
  for (const Vector3d& va : a.vertices) {
    for (const Vector3d& vb : b.vertices) AddDirection(vb - va, &c);
    for (const auto& eb : b.edges) {
      AddDirection(ClosestPointOnSegment(b.vertices[eb.first], b.vertices[eb.second], va) - va,
                   &c);
    }
  }
  for (const Vector3d& vb : b.vertices) {
    for (const auto& ea : a.edges) {
      AddDirection(vb - ClosestPointOnSegment(a.vertices[ea.first], a.vertices[ea.second], vb),
                   &c);
    }
  }
  // Degenerate cores (a point on a segment, two crossing segments, coincident points):
  // every direction normal to an edge, or every direction at all, is then optimal.
  for (const ReferenceShape* s : {&a, &b}) {
    for (const auto& e : s->edges) {
      Vector3d u, v;
      Perpendiculars((s->vertices[e.second] - s->vertices[e.first]).normalized(), &u, &v);
      for (const Vector3d& d : {u, v}) {
        c.push_back(d);
        c.push_back(-d);
      }
    }
  }
  for (int i = 0; i < 3; ++i) {
    c.push_back(Vector3d::Unit(i));
    c.push_back(-Vector3d::Unit(i));
  }
  return c;
}

bool IsPolytopeCore(const ReferenceShape& s) {
  return s.type == ShapeType::kBox || s.type == ShapeType::kMesh ||
         s.type == ShapeType::kSphere || s.type == ShapeType::kCapsule;
}

// Pattern search for the maximum of sep on the unit sphere from n: steps along 16
// tangent directions (turned a little at every step so that no ridge of sep stays
// between them), grown on success and halved when none improves, until the step [rad]
// falls below min_step. *step carries the step size in and out, so a search can resume.
void PatternSearch(const ReferenceShape& a, const ReferenceShape& b, double min_step,
                   Vector3d* n, double* best, double* step) {
  int turn = 0;
  for (int iter = 0; iter < 4000 && *step > min_step; ++iter) {
    Vector3d u, v;
    Perpendiculars(*n, &u, &v);
    Vector3d best_n = *n;
    double best_sep = *best;
    // The 16 directions at angles 2 pi (k + offset) / 16, by turning the first by 2 pi / 16.
    const double first = 2.0 * kPi * 0.61803398874989 * (turn++) / 16.0;
    Eigen::Vector2d dir(std::cos(first), std::sin(first));
    const double c = std::cos(2.0 * kPi / 16.0), sn = std::sin(2.0 * kPi / 16.0);
    for (int k = 0; k < 16; ++k) {
      const Vector3d m = (*n + *step * (dir.x() * u + dir.y() * v)).normalized();
      dir = Eigen::Vector2d(c * dir.x() - sn * dir.y(), sn * dir.x() + c * dir.y());
      const double s = Separation(a, b, m);
      if (s > best_sep) {
        best_sep = s;
        best_n = m;
      }
    }
    if (best_sep > *best) {
      *best = best_sep;
      *n = best_n;
      *step *= 1.5;
    } else {
      *step *= 0.5;
    }
  }
}

constexpr double kInitialStep = 0.05;  // [rad]
constexpr double kCoarseStep = 1e-5;   // [rad]
constexpr double kFinalStep = 1e-13;   // [rad]

// Golden-section refinement of sep along the great circle normal to the unit axis,
// around the circle's best of 256 samples.
void CircleSearch(const ReferenceShape& a, const ReferenceShape& b, const Vector3d& axis,
                  Vector3d* n, double* best) {
  Vector3d u, v;
  Perpendiculars(axis, &u, &v);
  auto at = [&](double t) { return Vector3d(std::cos(t) * u + std::sin(t) * v); };
  constexpr int kSamples = 256;
  int k_best = 0;
  double s_best = -std::numeric_limits<double>::infinity();
  for (int k = 0; k < kSamples; ++k) {
    const double s = Separation(a, b, at(2.0 * kPi * k / kSamples));
    if (s > s_best) { s_best = s; k_best = k; }
  }
  double lo = 2.0 * kPi * (k_best - 1) / kSamples, hi = 2.0 * kPi * (k_best + 1) / kSamples;
  const double g = 0.61803398874989;
  for (int it = 0; it < 80; ++it) {
    const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    if (Separation(a, b, at(x1)) > Separation(a, b, at(x2))) hi = x2; else lo = x1;
  }
  const Vector3d m = at(0.5 * (lo + hi));
  const double s = Separation(a, b, m);
  if (s > *best) { *best = s; *n = m; }
}

// Directions spread evenly over the sphere (Fibonacci lattice).
std::vector<Vector3d> SphereGrid(int count) {
  std::vector<Vector3d> grid;
  const double golden_angle = kPi * (3.0 - std::sqrt(5.0));
  for (int k = 0; k < count; ++k) {
    const double z = 1.0 - (2.0 * k + 1.0) / count;
    const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
    grid.emplace_back(r * std::cos(golden_angle * k), r * std::sin(golden_angle * k), z);
  }
  return grid;
}

// For each point of the grid, the indices of its nearest neighbours on the grid.
std::vector<std::vector<int>> GridNeighbours(const std::vector<Vector3d>& grid, int count) {
  std::vector<std::vector<int>> neighbours(grid.size());
  std::vector<std::pair<double, int>> by_angle(grid.size());
  for (size_t i = 0; i < grid.size(); ++i) {
    for (size_t j = 0; j < grid.size(); ++j) by_angle[j] = {-grid[i].dot(grid[j]), static_cast<int>(j)};
    std::partial_sort(by_angle.begin(), by_angle.begin() + count + 1, by_angle.end());
    for (int k = 1; k <= count; ++k) neighbours[i].push_back(by_angle[k].second);
  }
  return neighbours;
}

ReferenceDistance NumericSignedDistance(const ReferenceShape& a, const ReferenceShape& b) {
  static const std::vector<Vector3d> grid = SphereGrid(2000);
  static const std::vector<std::vector<int>> neighbours = GridNeighbours(grid, 8);
  // Starts of the local search: every local maximum of sep on the grid (sep in overlap can
  // have several, one per face, edge or cap of the Minkowski difference near the origin,
  // and the global one need not be the best grid point), then the best candidates.
  std::vector<double> grid_sep(grid.size());
  for (size_t i = 0; i < grid.size(); ++i) grid_sep[i] = Separation(a, b, grid[i]);
  std::vector<std::pair<double, Vector3d>> seeds;
  for (size_t i = 0; i < grid.size(); ++i) {
    bool local_maximum = true;
    for (int j : neighbours[i]) local_maximum &= grid_sep[i] >= grid_sep[j];
    if (local_maximum) seeds.emplace_back(grid_sep[i], grid[i]);
  }
  std::vector<std::pair<double, Vector3d>> candidates;
  for (const Vector3d& n : CoreCandidates(a, b)) candidates.emplace_back(Separation(a, b, n), n);
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& x, const auto& y) { return x.first > y.first; });
  for (size_t k = 0; k < std::min<size_t>(6, candidates.size()); ++k) seeds.push_back(candidates[k]);
  ReferenceDistance best{candidates[0].first, candidates[0].second, false};
  // Every start is searched to a coarse step, and only those that may still beat the best
  // are refined: where a search stops at step delta, no point within delta of it is
  // higher by more than L delta, L bounding the slope of sep (the largest |a - b|).
  struct Search {
    Vector3d n;
    double sep, step;
  };
  std::vector<Search> searches;
  for (const auto& seed : seeds) {
    bool near_a_start = false;
    for (const Search& s : searches) near_a_start |= s.n.dot(seed.second) > 0.9999;
    if (near_a_start) continue;
    Search s{seed.second, seed.first, kInitialStep};
    PatternSearch(a, b, kCoarseStep, &s.n, &s.sep, &s.step);
    searches.push_back(s);
    if (s.sep > best.phi) best = {s.sep, s.n, false};
  }
  const double slope = a.bounding_radius + b.bounding_radius + (a.p - b.p).norm();
  const double coarse_best = best.phi;
  for (Search& s : searches) {
    if (s.sep < coarse_best - 2.0 * slope * kCoarseStep) continue;
    PatternSearch(a, b, kFinalStep, &s.n, &s.sep, &s.step);
    if (s.sep > best.phi) best = {s.sep, s.n, false};
  }
  // The kinks of sep: great circles normal to a core edge (a box's or mesh's edges, a
  // cylinder's or capsule's axis), where the support jumps between the edge's ends. An
  // optimum on such a ridge is normal to the edge, where a search on the sphere stalls:
  // every such circle is searched whole (parallel edges share one), and refined off the
  // circle only where it beats the best so far (a smooth optimum the starts above found).
  std::vector<Vector3d> axes;
  for (const ReferenceShape* s : {&a, &b}) {
    if (s->type == ShapeType::kEllipsoid) continue;
    for (const auto& e : s->edges) {
      const Vector3d axis = (s->vertices[e.second] - s->vertices[e.first]).normalized();
      bool seen = false;
      for (const Vector3d& x : axes) seen |= std::abs(x.dot(axis)) > 1.0 - 1e-12;
      if (seen) continue;
      axes.push_back(axis);
      Vector3d n = best.nhat;
      double sep = -std::numeric_limits<double>::infinity();
      CircleSearch(a, b, axis, &n, &sep);
      double step = kInitialStep;
      if (sep > best.phi) PatternSearch(a, b, kFinalStep, &n, &sep, &step);
      if (sep > best.phi) best = {sep, n, false};
    }
  }
  return best;
}

}  // namespace

double ReferenceShape::Support(const Vector3d& n) const {
  switch (type) {
    case ShapeType::kSphere: return n.dot(p) + size.x();
    case ShapeType::kBox: {
      const Vector3d n_G = R.transpose() * n;
      return n.dot(p) + 0.5 * size.dot(n_G.cwiseAbs());
    }
    case ShapeType::kCapsule: {
      const double along = n.dot(R.col(2));
      return n.dot(p) + 0.5 * size.y() * std::abs(along) + size.x();
    }
    case ShapeType::kCylinder: {
      const double along = n.dot(R.col(2));
      return n.dot(p) + 0.5 * size.y() * std::abs(along) +
             size.x() * std::sqrt(std::max(0.0, 1.0 - along * along));
    }
    case ShapeType::kEllipsoid: {
      const Vector3d n_G = R.transpose() * n;
      return n.dot(p) + size.cwiseProduct(n_G).norm();
    }
    case ShapeType::kMesh: {
      double h = -std::numeric_limits<double>::infinity();
      for (const Vector3d& v : vertices) h = std::max(h, n.dot(v));
      return h;
    }
    case ShapeType::kHalfspace: break;
  }
  return std::numeric_limits<double>::infinity();
}

ReferenceShape MakeReferenceShape(const Geometry& g, const math::RigidTransform& X_WG) {
  ReferenceShape s;
  s.type = g.type;
  s.R = X_WG.R;
  s.p = X_WG.p;
  s.size = g.size;
  switch (g.type) {
    case ShapeType::kSphere:
      s.vertices.push_back(s.p);
      s.bounding_radius = g.size.x();
      break;
    case ShapeType::kBox:
      AddBoxCore(0.5 * g.size, &s);
      s.bounding_radius = 0.5 * g.size.norm();
      break;
    case ShapeType::kCapsule:
      AddAxisCore(0.5 * g.size.y(), &s);
      s.bounding_radius = 0.5 * g.size.y() + g.size.x();
      break;
    case ShapeType::kCylinder:
      AddAxisCore(0.5 * g.size.y(), &s);
      s.face_normals = {s.R.col(2), -s.R.col(2)};
      s.bounding_radius = std::hypot(0.5 * g.size.y(), g.size.x());
      break;
    case ShapeType::kEllipsoid:
      s.vertices.push_back(s.p);
      for (int i = 0; i < 3; ++i) {
        s.vertices.push_back(s.p + g.size[i] * s.R.col(i));
        s.edges.emplace_back(0, i + 1);
      }
      s.face_normals = {s.R.col(0), -s.R.col(0), s.R.col(1), -s.R.col(1), s.R.col(2), -s.R.col(2)};
      s.bounding_radius = g.size.maxCoeff();
      break;
    case ShapeType::kMesh:
      AddMeshCore(g.mesh, &s);
      for (const Vector3d& v : g.mesh.vertices) s.bounding_radius = std::max(s.bounding_radius, v.norm());
      break;
    case ShapeType::kHalfspace:
      s.face_normals = {s.R.col(2)};
      break;
  }
  return s;
}

double Separation(const ReferenceShape& a, const ReferenceShape& b, const Vector3d& n) {
  return -b.Support(-n) - a.Support(n);
}

ReferenceDistance CalcReferenceSignedDistance(const ReferenceShape& a, const ReferenceShape& b) {
  if (a.type == ShapeType::kHalfspace) {
    const Vector3d n = a.R.col(2);
    return {-b.Support(-n) - n.dot(a.p), n, true};
  }
  if (b.type == ShapeType::kHalfspace) {
    const Vector3d n = -b.R.col(2);
    return {-a.Support(n) + n.dot(b.p), n, true};
  }
  if (!IsPolytopeCore(a) || !IsPolytopeCore(b)) return NumericSignedDistance(a, b);
  ReferenceDistance best{-std::numeric_limits<double>::infinity(), Vector3d::UnitZ(), true};
  for (const Vector3d& n : CoreCandidates(a, b)) {
    const double s = Separation(a, b, n);
    if (s > best.phi) best = {s, n, true};
  }
  return best;
}

}  // namespace csim::geometry::test
