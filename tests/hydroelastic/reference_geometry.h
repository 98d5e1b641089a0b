#pragma once
// Reference computations for the hydroelastic tests, by other algorithms than the code under
// test (CONTRIBUTING.md §11):
//   - a tet's inside is where its 4 barycentric coordinates are >= 0 (the coordinates come from
//     inverting the edge matrix, not from face normals);
//   - the polygon where a plane meets a set of half-spaces is found by vertex enumeration: every
//     point where the plane meets two of the half-spaces' boundary planes, kept if it satisfies
//     all of them, then ordered by angle about their mean (not by Sutherland-Hodgman clipping);
//   - areas by the shoelace formula in a 2-D basis of the plane, integrals by 3-point Gauss
//     quadrature on the triangles of a fan about the vertices' mean, with pressures
//     interpolated from a tet's vertex values by barycentric coordinates (not from the
//     field's gradient and offset).

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "engine/hydroelastic/volume_mesh.h"

namespace csim::hydroelastic::test {

using Eigen::Vector3d;
using Eigen::Vector4d;

/// The half-space n . x + d <= 0.
struct HalfSpace {
  Vector3d n;
  double d;
};

/// Barycentric coordinates of x in the tet (x0, x1, x2, x3).
inline Vector4d Barycentric(const std::array<Vector3d, 4>& tet, const Vector3d& x) {
  Eigen::Matrix3d D;
  for (int i = 0; i < 3; ++i) D.col(i) = tet[i + 1] - tet[0];
  const Vector3d l = D.fullPivLu().solve(x - tet[0]);
  return Vector4d(1.0 - l.sum(), l[0], l[1], l[2]);
}

/// The tet's inside as 4 half-spaces -lambda_i(x) <= 0, from the barycentric coordinates.
inline std::vector<HalfSpace> TetHalfSpaces(const std::array<Vector3d, 4>& tet) {
  Eigen::Matrix3d D;
  for (int i = 0; i < 3; ++i) D.col(i) = tet[i + 1] - tet[0];
  const Eigen::Matrix3d Dinv = D.inverse();  // lambda_{1..3} = Dinv (x - x0)
  std::vector<HalfSpace> h;
  // lambda_0(x) = 1 - sum_i lambda_i = 1 + g0 . (x - x0), so -lambda_0 <= 0 reads
  // -g0 . x - (1 - g0 . x0) <= 0.
  const Vector3d g0 = -Dinv.colwise().sum().transpose();
  h.push_back({-g0, -(1.0 - g0.dot(tet[0]))});
  for (int i = 0; i < 3; ++i) {
    const Vector3d gi = Dinv.row(i).transpose();  // lambda_{i+1} = gi . (x - x0)
    h.push_back({-gi, gi.dot(tet[0])});
  }
  return h;
}

/// The tet of mesh element t, with its vertices mapped by `map`.
inline std::array<Vector3d, 4> MeshTet(const VolumeMesh& mesh, int t,
                                       const std::function<Vector3d(const Vector3d&)>& map) {
  std::array<Vector3d, 4> x;
  for (int i = 0; i < 4; ++i) x[i] = map(mesh.vertices[mesh.tets[t][i]]);
  return x;
}

/// Two unit vectors spanning the plane with unit normal nhat.
inline void PlaneBasis(const Vector3d& nhat, Vector3d* u, Vector3d* v) {
  const Vector3d helper = std::abs(nhat.x()) < 0.6 ? Vector3d::UnitX() : Vector3d::UnitY();
  *u = nhat.cross(helper).normalized();
  *v = nhat.cross(*u);
}

/// The convex polygon {nhat . x + c = 0} intersected with the half-spaces, counter-clockwise
/// about nhat (unit), by vertex enumeration; `tol` [m] is how far outside a half-space a vertex
/// may be (scaled by |n| of each half-space).
inline std::vector<Vector3d> ReferencePolygon(const Vector3d& nhat, double c,
                                              const std::vector<HalfSpace>& halves,
                                              double tol = 1e-10) {
  std::vector<Vector3d> points;
  const int m = static_cast<int>(halves.size());
  for (int i = 0; i < m; ++i) {
    for (int j = i + 1; j < m; ++j) {
      Eigen::Matrix3d M;
      M.row(0) = nhat.transpose();
      M.row(1) = halves[i].n.transpose();
      M.row(2) = halves[j].n.transpose();
      if (std::abs(M.determinant()) < 1e-12 * halves[i].n.norm() * halves[j].n.norm()) continue;
      const Vector3d x = M.fullPivLu().solve(Vector3d(-c, -halves[i].d, -halves[j].d));
      bool inside = true;
      for (const HalfSpace& h : halves) inside &= h.n.dot(x) + h.d <= tol * h.n.norm();
      if (!inside) continue;
      bool duplicate = false;
      for (const Vector3d& p : points) duplicate |= (p - x).norm() < 1e-9;
      if (!duplicate) points.push_back(x);
    }
  }
  if (points.size() < 3) return {};
  Vector3d mean = Vector3d::Zero();
  for (const Vector3d& p : points) mean += p / double(points.size());
  Vector3d u, v;
  PlaneBasis(nhat, &u, &v);
  std::sort(points.begin(), points.end(), [&](const Vector3d& a, const Vector3d& b) {
    return std::atan2((a - mean).dot(v), (a - mean).dot(u)) <
           std::atan2((b - mean).dot(v), (b - mean).dot(u));
  });
  return points;
}

/// Area of a planar polygon by the shoelace formula in a basis of the plane (unit nhat); >= 0
/// for a counter-clockwise polygon.
inline double ShoelaceArea(const std::vector<Vector3d>& polygon, const Vector3d& nhat) {
  Vector3d u, v;
  PlaneBasis(nhat, &u, &v);
  double twice = 0.0;
  for (size_t i = 0; i < polygon.size(); ++i) {
    const Vector3d& a = polygon[i];
    const Vector3d& b = polygon[(i + 1) % polygon.size()];
    twice += a.dot(u) * b.dot(v) - b.dot(u) * a.dot(v);
  }
  return 0.5 * twice;
}

/// Integral of f over a convex polygon: 3-point Gauss (points at barycentric (2/3, 1/6, 1/6) and
/// permutations, weights 1/3) on the triangles fanned about the vertices' mean. Exact for
/// quadratic f.
inline double IntegrateOverPolygon(const std::vector<Vector3d>& polygon,
                                   const std::function<double(const Vector3d&)>& f) {
  if (polygon.size() < 3) return 0.0;
  Vector3d mean = Vector3d::Zero();
  for (const Vector3d& p : polygon) mean += p / double(polygon.size());
  double sum = 0.0;
  for (size_t i = 0; i < polygon.size(); ++i) {
    const Vector3d& a = polygon[i];
    const Vector3d& b = polygon[(i + 1) % polygon.size()];
    const double area = 0.5 * (a - mean).cross(b - mean).norm();
    const double q = (f((4 * mean + a + b) / 6) + f((mean + 4 * a + b) / 6) +
                      f((mean + a + 4 * b) / 6)) / 3;
    sum += area * q;
  }
  return sum;
}

/// Area centroid of a convex polygon from the same fan (area-weighted triangle centroids).
inline Vector3d ReferenceCentroid(const std::vector<Vector3d>& polygon) {
  Vector3d mean = Vector3d::Zero();
  for (const Vector3d& p : polygon) mean += p / double(polygon.size());
  Vector3d moment = Vector3d::Zero();
  double total = 0.0;
  for (size_t i = 0; i < polygon.size(); ++i) {
    const Vector3d& a = polygon[i];
    const Vector3d& b = polygon[(i + 1) % polygon.size()];
    const double area = 0.5 * (a - mean).cross(b - mean).norm();
    moment += area * (mean + a + b) / 3;
    total += area;
  }
  return moment / total;
}

/// The pressure at x interpolated from the vertex pressures of tet t of `field` by
/// barycentric coordinates (x in the field's frame).
inline double InterpolatedPressure(const PressureField& field, int t, const Vector3d& x) {
  std::array<Vector3d, 4> tet;
  for (int i = 0; i < 4; ++i) tet[i] = field.mesh.vertices[field.mesh.tets[t][i]];
  const Vector4d l = Barycentric(tet, x);
  double p = 0.0;
  for (int i = 0; i < 4; ++i) p += l[i] * field.pressure[field.mesh.tets[t][i]];
  return p;
}

}  // namespace csim::hydroelastic::test
