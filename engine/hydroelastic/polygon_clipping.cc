#include "engine/hydroelastic/polygon_clipping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace csim::hydroelastic {

using Eigen::Vector3d;

namespace {

/// The point where the segment from `above` (s_above >= 0) to `below` (s_below < 0) crosses
/// the plane, interpolated from the `above` end. Both slicing and clipping always interpolate
/// from the same end, so two tets sharing an edge or face cut it at bitwise the same point.
Vector3d CutPoint(const Vector3d& above, double s_above, const Vector3d& below, double s_below) {
  const double t = s_above / (s_above - s_below);  // in [0, 1): s_above >= 0 > s_below
  return above + t * (below - above);
}

/// n . (u x v), in scalars and in the order of Eigen's cross and dot, so with the same value.
/// Through Eigen the cross product is stored one coefficient at a time and read back by the
/// vectorized dot two at a time, and the load waits for the stores to retire.
double TripleProduct(const Vector3d& u, const Vector3d& v, const Vector3d& n) {
  const double c0 = u[1] * v[2] - u[2] * v[1];
  const double c1 = u[2] * v[0] - u[0] * v[2];
  const double c2 = u[0] * v[1] - u[1] * v[0];
  return c0 * n[0] + c1 * n[1] + c2 * n[2];
}

}  // namespace

void SliceTetByPlane(const TetVertices& tet, const Vector3d& n, double d, ClipPolygon* polygon) {
  polygon->size = 0;
  double s[4];
  int above[4], below[4];
  int num_above = 0, num_below = 0;
  for (int i = 0; i < 4; ++i) {
    s[i] = n.dot(tet[i]) + d;
    if (s[i] >= 0.0) {
      above[num_above++] = i;
    } else {
      below[num_below++] = i;
    }
  }
  if (num_above == 0 || num_below == 0) return;

  // Each cut point lies on an edge from an above vertex to a below vertex. Two such edges
  // that share a vertex bound a common face, and the slice crosses every face it enters
  // along one segment, so listing the edges so that consecutive ones share a vertex gives the
  // points in cyclic order: with one vertex alone on its side, any order; with two and two,
  // (a0 b0), (a0 b1), (a1 b1), (a1 b0).
  auto add = [&](int a, int b) {
    polygon->v[polygon->size++] = CutPoint(tet[a], s[a], tet[b], s[b]);
  };
  if (num_above == 2) {
    add(above[0], below[0]);
    add(above[0], below[1]);
    add(above[1], below[1]);
    add(above[1], below[0]);
  } else {
    for (int a = 0; a < num_above; ++a) {
      for (int b = 0; b < num_below; ++b) add(above[a], below[b]);
    }
  }

  // Wind counter-clockwise about n. The vector area of a triangle is 1/2 (v1-v0)x(v2-v0) and
  // that of a quadrilateral 1/2 (v2-v0)x(v3-v1), which stays right with a repeated vertex.
  const ClipPolygon& p = *polygon;
  const double twice_area = p.size == 3 ? TripleProduct(p.v[1] - p.v[0], p.v[2] - p.v[0], n)
                                         : TripleProduct(p.v[2] - p.v[0], p.v[3] - p.v[1], n);
  if (twice_area < 0.0) ReverseWinding(polygon);
}

bool PlaneCutsTet(const TetVertices& tet, const Vector3d& n, double d) {
  int above = 0;
  for (const Vector3d& x : tet) above += n.dot(x) + d >= 0.0;
  return above > 0 && above < 4;
}

bool PlaneMayMeetTet(const TetVertices& tet, const Vector3d& n, double d) {
  double h[4];
  for (int i = 0; i < 4; ++i) h[i] = n.dot(tet[i]) + d;
  const double lo = std::min(std::min(h[0], h[1]), std::min(h[2], h[3]));
  const double hi = std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
  if (lo <= 0.0 && hi >= 0.0) return true;  // vertices on both sides, or on the plane
  // All on one side: by more than the tolerance?
  double scale = std::abs(d);
  for (const Vector3d& x : tet) scale = std::max(scale, n.cwiseAbs().dot(x.cwiseAbs()));
  const double tolerance = kPlaneHeightTolerance * scale;
  return lo <= tolerance && hi >= -tolerance;
}

void ClipPolygonByHalfspace(const Vector3d& n, double d, ClipPolygon* polygon) {
  const int size_in = polygon->size;
  if (size_in == 0) return;
  double s[kMaxPolygonVertices];
  int num_inside = 0;
  for (int i = 0; i < size_in; ++i) {
    s[i] = n.dot(polygon->v[i]) + d;
    num_inside += s[i] <= 0.0;
  }
  // Wholly inside: the loop below would emit every vertex as it is.
  if (num_inside == size_in) return;
  if (num_inside == 0) {
    polygon->size = 0;
    return;
  }
  // The input vertices, copied on the stack since the output overwrites `polygon`.
  Vector3d in[kMaxPolygonVertices];
  std::copy(polygon->v.begin(), polygon->v.begin() + size_in, in);

  int size_out = 0;
  auto emit = [&](const Vector3d& x) {
    if (size_out < kMaxPolygonVertices) polygon->v[size_out++] = x;  // see the header
  };
  for (int i = 0; i < size_in; ++i) {
    const int j = i + 1 == size_in ? 0 : i + 1;
    const bool i_inside = s[i] <= 0.0, j_inside = s[j] <= 0.0;
    if (i_inside) emit(in[i]);
    // An edge from inside to outside or back is cut at the plane, interpolated from its
    // outside end (s > 0). When the inside end lies on the plane (s == 0) it is already the
    // cut point, and emitting it twice would only make a duplicate.
    if (i_inside && !j_inside && s[i] < 0.0) emit(CutPoint(in[j], s[j], in[i], s[i]));
    if (!i_inside && j_inside && s[j] < 0.0) emit(CutPoint(in[i], s[i], in[j], s[j]));
  }
  polygon->size = size_out;
}

TetFaces MakeTetFaces(const TetVertices& tet) {
  // The face opposite vertex i, with the normal turned away from vertex i.
  static constexpr int kFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  TetFaces faces;
  for (int i = 0; i < 4; ++i) {
    const Vector3d& a = tet[kFace[i][0]];
    Vector3d& n = faces.n[i];
    double& d = faces.d[i];
    n = (tet[kFace[i][1]] - a).cross(tet[kFace[i][2]] - a);
    d = -n.dot(a);
    if (n.dot(tet[i]) + d > 0.0) {
      n = -n;
      d = -d;
    }
  }
  return faces;
}

void ClipPolygonByTetFaces(const TetFaces& faces, ClipPolygon* polygon) {
  // A polygon wholly outside one face misses the tet: most polygons that miss it are told so
  // before any clipping.
  for (int i = 0; i < 4; ++i) {
    bool outside = true;
    for (int k = 0; k < polygon->size && outside; ++k) {
      outside = faces.n[i].dot(polygon->v[k]) + faces.d[i] > 0.0;
    }
    if (outside) {
      polygon->size = 0;
      return;
    }
  }
  for (int i = 0; i < 4 && polygon->size > 0; ++i) {
    ClipPolygonByHalfspace(faces.n[i], faces.d[i], polygon);
  }
}

void ClipPolygonByTet(const TetVertices& tet, ClipPolygon* polygon) {
  ClipPolygonByTetFaces(MakeTetFaces(tet), polygon);
}

void RemoveNearDuplicateVertices(ClipPolygon* polygon, double distance) {
  const double distance2 = distance * distance;
  int kept = 0;
  for (int i = 0; i < polygon->size; ++i) {
    if (kept > 0 && (polygon->v[i] - polygon->v[kept - 1]).squaredNorm() < distance2) continue;
    polygon->v[kept++] = polygon->v[i];
  }
  while (kept > 1 && (polygon->v[kept - 1] - polygon->v[0]).squaredNorm() < distance2) --kept;
  polygon->size = kept;
}

void ReverseWinding(ClipPolygon* polygon) {
  for (int i = 0, j = polygon->size - 1; i < j; ++i, --j) std::swap(polygon->v[i], polygon->v[j]);
}

void CalcAreaAndCentroid(const ClipPolygon& polygon, const Vector3d& nhat, double* area,
                         Eigen::Vector3d* centroid) {
  double total = 0.0;  // [m^2]
  Vector3d moment = Vector3d::Zero();  // sum of area * triangle centroid [m^3]
  const Vector3d& v0 = polygon.v[0];
  for (int i = 1; i + 1 < polygon.size; ++i) {
    const double a = 0.5 * TripleProduct(polygon.v[i] - v0, polygon.v[i + 1] - v0, nhat);
    total += a;
    moment += a * (v0 + polygon.v[i] + polygon.v[i + 1]) / 3.0;
  }
  *area = total;
  if (total > 0.0) {
    *centroid = moment / total;
    return;
  }
  Vector3d mean = Vector3d::Zero();
  for (int i = 0; i < polygon.size; ++i) mean += polygon.v[i];
  *centroid = polygon.size > 0 ? Vector3d(mean / polygon.size) : Vector3d::Zero();
}

}  // namespace csim::hydroelastic
