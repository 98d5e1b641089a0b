#include "engine/hydroelastic/polygon_clipping.h"

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
  const Vector3d twice_area = p.size == 3 ? Vector3d((p.v[1] - p.v[0]).cross(p.v[2] - p.v[0]))
                                          : Vector3d((p.v[2] - p.v[0]).cross(p.v[3] - p.v[1]));
  if (twice_area.dot(n) < 0.0) ReverseWinding(polygon);
}

void ClipPolygonByHalfspace(const Vector3d& n, double d, ClipPolygon* polygon) {
  const int size_in = polygon->size;
  if (size_in == 0) return;
  const ClipPolygon in = *polygon;  // a copy on the stack: the output overwrites `polygon`
  double s[kMaxPolygonVertices];
  for (int i = 0; i < size_in; ++i) s[i] = n.dot(in.v[i]) + d;

  int size_out = 0;
  auto emit = [&](const Vector3d& x) {
    if (size_out < kMaxPolygonVertices) polygon->v[size_out++] = x;  // see the header
  };
  for (int i = 0; i < size_in; ++i) {
    const int j = i + 1 == size_in ? 0 : i + 1;
    const bool i_inside = s[i] <= 0.0, j_inside = s[j] <= 0.0;
    if (i_inside) emit(in.v[i]);
    // An edge from inside to outside or back is cut at the plane, interpolated from its
    // outside end (s > 0). When the inside end lies on the plane (s == 0) it is already the
    // cut point, and emitting it twice would only make a duplicate.
    if (i_inside && !j_inside && s[i] < 0.0) emit(CutPoint(in.v[j], s[j], in.v[i], s[i]));
    if (!i_inside && j_inside && s[j] < 0.0) emit(CutPoint(in.v[i], s[i], in.v[j], s[j]));
  }
  polygon->size = size_out;
}

void ClipPolygonByTet(const TetVertices& tet, ClipPolygon* polygon) {
  // The face opposite vertex i, with the normal turned away from vertex i.
  static constexpr int kFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  for (int i = 0; i < 4 && polygon->size > 0; ++i) {
    const Vector3d& a = tet[kFace[i][0]];
    Vector3d n = (tet[kFace[i][1]] - a).cross(tet[kFace[i][2]] - a);
    double d = -n.dot(a);
    if (n.dot(tet[i]) + d > 0.0) {
      n = -n;
      d = -d;
    }
    ClipPolygonByHalfspace(n, d, polygon);
  }
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
    const double a = 0.5 * (polygon.v[i] - v0).cross(polygon.v[i + 1] - v0).dot(nhat);
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
