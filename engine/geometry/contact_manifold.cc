#include "engine/geometry/contact_manifold.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/geometry/plane_basis.h"

namespace csim::geometry {
namespace {

constexpr int kMaxRaw = 2 * SupportFeature::kMaxPoints;
constexpr double kDuplicateDistance = 1e-9;  // [m] points closer than this are merged

// Coordinates in the contact plane: x = (u . p, v . p), height z = n . p.
struct ContactPlane {
  Eigen::Vector3d n, u, v;
  explicit ContactPlane(const Eigen::Vector3d& nhat) : n(nhat) { CalcPlaneBasis(n, &u, &v); }
  Eigen::Vector2d Project(const Eigen::Vector3d& p) const { return {u.dot(p), v.dot(p)}; }
  Eigen::Vector3d Lift(const Eigen::Vector2d& x, double z) const {
    return x.x() * u + x.y() * v + z * n;
  }
};

double Cross2(const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
  return a.x() * b.y() - a.y() * b.x();
}

// The index after i in a cycle of n (i < n), without an integer division.
int Next(int i, int n) { return i + 1 < n ? i + 1 : 0; }

// How far the planar point p lies inside the clip line through c0 along `edge` (left is
// inside), scaled by |edge|.
double InsideMeasure(const Eigen::Vector2d& c0, const Eigen::Vector2d& edge,
                     const Eigen::Vector2d& p) {
  return Cross2(edge, p - c0);
}

// Points within this round-off allowance of a clip line count as inside it.
double InsideAllowance(const Eigen::Vector2d& edge) { return 1e-12 * edge.squaredNorm(); }

// Where the segment from p (measure fp) to q (measure fq) crosses the clip line, as the
// parameter in [0, 1]. The inside test uses an allowance, so the two ends may lie on the
// same side of the exact line (both within round-off of it, as the side edges of two
// equally wide boxes are); the unclamped ratio then extrapolates past the segment, to a
// point outside both faces with a depth the boxes do not have. Clamped, the crossing stays
// on the segment and so inside the polygon.
double CrossingParameter(double fp, double fq) {
  if (fp == fq) return 0.0;
  return std::clamp(fp / (fp - fq), 0.0, 1.0);
}

// A feature projected on the contact plane, with what is needed to lift points back.
struct PlanarFeature {
  int n = 0;
  std::array<Eigen::Vector2d, SupportFeature::kMaxPoints> x;
  std::array<double, SupportFeature::kMaxPoints> z;
  Eigen::Vector3d m = Eigen::Vector3d::Zero();  // polygon normal (Newell), unnormalised
  Eigen::Vector3d q = Eigen::Vector3d::Zero();  // a point of the polygon's plane

  PlanarFeature(const SupportFeature& f, const ContactPlane& plane) : n(f.num_points) {
    for (int i = 0; i < n; ++i) {
      x[i] = plane.Project(f.p_W[i]);
      z[i] = plane.n.dot(f.p_W[i]);
      m += f.p_W[i].cross(f.p_W[Next(i, n)]);
    }
    q = f.p_W[0];
    if (n >= 3 && SignedArea() < 0.0) Reverse();  // counter-clockwise in (u, v)
  }
  double SignedArea() const {
    double area = 0.0;
    for (int i = 0; i < n; ++i) area += Cross2(x[i], x[Next(i, n)]);
    return 0.5 * area;
  }
  void Reverse() {
    std::reverse(x.begin(), x.begin() + n);
    std::reverse(z.begin(), z.begin() + n);
  }
  // Height along the normal of the feature's surface over the planar point p.
  double Height(const ContactPlane& plane, const Eigen::Vector2d& p) const {
    if (n == 2) {
      const Eigen::Vector2d e = x[1] - x[0];
      const double s = e.squaredNorm() > 0.0 ? (p - x[0]).dot(e) / e.squaredNorm() : 0.0;
      return z[0] + s * (z[1] - z[0]);
    }
    const Eigen::Vector3d p3 = plane.Lift(p, 0.0);
    return m.dot(q - p3) / m.dot(plane.n);
  }
};

// Candidate points before the margin test has been applied and the set reduced.
struct RawPoints {
  int n = 0;
  std::array<ManifoldPoint, kMaxRaw> p;
  void Add(const Eigen::Vector3d& p_A, const Eigen::Vector3d& p_B, const Eigen::Vector3d& nhat,
           double margin) {
    const double phi = (p_B - p_A).dot(nhat);
    if (!(phi < margin) || n == kMaxRaw) return;
    const Eigen::Vector3d mid = 0.5 * (p_A + p_B);
    for (int i = 0; i < n; ++i) {
      if ((p[i].p_WC - mid).squaredNorm() < kDuplicateDistance * kDuplicateDistance) return;
    }
    p[n++] = {mid, phi};
  }
};

// Adds the point over planar position x lifted onto both features.
void AddLifted(const ContactPlane& plane, const PlanarFeature& a, const PlanarFeature& b,
               const Eigen::Vector2d& x, double margin, RawPoints* raw) {
  raw->Add(plane.Lift(x, a.Height(plane, x)), plane.Lift(x, b.Height(plane, x)), plane.n, margin);
}

// Sutherland-Hodgman: the subject polygon clipped by each edge of the convex clip polygon.
void ClipPolygons(const ContactPlane& plane, const PlanarFeature& clip,
                  const PlanarFeature& subject, const PlanarFeature& a, const PlanarFeature& b,
                  double margin, RawPoints* raw) {
  std::array<Eigen::Vector2d, kMaxRaw> buffers[2];
  Eigen::Vector2d* poly = buffers[0].data();
  Eigen::Vector2d* next = buffers[1].data();
  int count = subject.n;
  std::copy(subject.x.begin(), subject.x.begin() + count, poly);
  for (int e = 0; e < clip.n && count > 0; ++e) {
    const Eigen::Vector2d c0 = clip.x[e], edge = clip.x[Next(e, clip.n)] - c0;
    const double eps = InsideAllowance(edge);
    int out = 0;
    for (int i = 0; i < count; ++i) {
      const Eigen::Vector2d& p = poly[i];
      const Eigen::Vector2d& q = poly[Next(i, count)];
      const double fp = InsideMeasure(c0, edge, p), fq = InsideMeasure(c0, edge, q);
      const bool p_in = fp >= -eps, q_in = fq >= -eps;
      if (p_in && out < kMaxRaw) next[out++] = p;
      if (p_in != q_in && out < kMaxRaw) next[out++] = p + CrossingParameter(fp, fq) * (q - p);
    }
    count = out;
    std::swap(poly, next);
  }
  for (int i = 0; i < count; ++i) AddLifted(plane, a, b, poly[i], margin, raw);
}

// Parametric clipping of a segment by a convex polygon.
void ClipSegment(const ContactPlane& plane, const PlanarFeature& segment,
                 const PlanarFeature& polygon, const PlanarFeature& a, const PlanarFeature& b,
                 double margin, RawPoints* raw) {
  const Eigen::Vector2d p0 = segment.x[0], d = segment.x[1] - segment.x[0];
  double t0 = 0.0, t1 = 1.0;
  for (int e = 0; e < polygon.n; ++e) {
    const Eigen::Vector2d c0 = polygon.x[e], edge = polygon.x[Next(e, polygon.n)] - c0;
    const double f0 = InsideMeasure(c0, edge, p0), f1 = InsideMeasure(c0, edge, p0 + d);
    const double eps = InsideAllowance(edge);
    if (f0 < -eps && f1 < -eps) return;
    if (f0 < -eps) t0 = std::max(t0, CrossingParameter(f0, f1));
    if (f1 < -eps) t1 = std::min(t1, CrossingParameter(f0, f1));
  }
  if (t0 > t1) return;
  AddLifted(plane, a, b, p0 + t0 * d, margin, raw);
  AddLifted(plane, a, b, p0 + t1 * d, margin, raw);
}

// Two nearly parallel segments: the ends of their overlap, each lifted onto both.
bool ClipParallelSegments(const ContactPlane& plane, const PlanarFeature& a,
                          const PlanarFeature& b, double margin, RawPoints* raw) {
  const Eigen::Vector2d da = a.x[1] - a.x[0], db = b.x[1] - b.x[0];
  if (da.norm() == 0.0 || db.norm() == 0.0) return false;
  const Eigen::Vector2d e = da.normalized();
  if (std::abs(Cross2(e, db.normalized())) > kFeatureSinTolerance) return false;
  // Overlap of the two intervals along e, in A's arc length s.
  const double sb0 = (b.x[0] - a.x[0]).dot(e), sb1 = (b.x[1] - a.x[0]).dot(e);
  const double lo = std::max(0.0, std::min(sb0, sb1));
  const double hi = std::min(da.norm(), std::max(sb0, sb1));
  if (lo > hi) return false;
  for (double s : {lo, hi}) {
    const Eigen::Vector2d xa = a.x[0] + s * e;
    const Eigen::Vector2d xb = b.x[0] + (s - sb0) / (sb1 - sb0) * db;  // same s on B's line
    raw->Add(plane.Lift(xa, a.Height(plane, xa)), plane.Lift(xb, b.Height(plane, xb)),
             plane.n, margin);
  }
  return true;
}

// True if candidate i should be preferred to j under "larger key wins", where keys within
// kTieTolerance count as equal and ties go to the lexicographically smaller point, so the
// choice does not depend on the order in which the points were produced (A/B swaps).
bool Prefer(double key_i, double key_j, const Eigen::Vector3d& p_i, const Eigen::Vector3d& p_j) {
  constexpr double kTieTolerance = 1e-12;
  if (key_i > key_j + kTieTolerance) return true;
  if (key_i < key_j - kTieTolerance) return false;
  return std::lexicographical_compare(p_i.data(), p_i.data() + 3, p_j.data(), p_j.data() + 3);
}

// Keeps the deepest point, then repeatedly the one farthest from those kept.
void Reduce(const RawPoints& raw, ContactManifold* manifold) {
  manifold->num_points = 0;
  if (raw.n == 0) return;
  std::array<bool, kMaxRaw> taken{};
  std::array<double, kMaxRaw> dist;
  dist.fill(std::numeric_limits<double>::infinity());
  int pick = 0;
  for (int i = 1; i < raw.n; ++i) {
    if (Prefer(-raw.p[i].phi0, -raw.p[pick].phi0, raw.p[i].p_WC, raw.p[pick].p_WC)) pick = i;
  }
  while (pick >= 0 && manifold->num_points < ContactManifold::kMaxPoints) {
    taken[pick] = true;
    manifold->points[manifold->num_points++] = raw.p[pick];
    const Eigen::Vector3d chosen = raw.p[pick].p_WC;
    pick = -1;
    for (int i = 0; i < raw.n; ++i) {
      if (taken[i]) continue;
      dist[i] = std::min(dist[i], (raw.p[i].p_WC - chosen).norm());
      if (pick < 0 || Prefer(dist[i], dist[pick], raw.p[i].p_WC, raw.p[pick].p_WC)) pick = i;
    }
  }
}

// Keeps the original order when everything fits, else reduces.
void Finish(const RawPoints& raw, ContactManifold* manifold) {
  if (raw.n > ContactManifold::kMaxPoints) return Reduce(raw, manifold);
  manifold->num_points = raw.n;
  std::copy(raw.p.begin(), raw.p.begin() + raw.n, manifold->points.begin());
}

}  // namespace

bool ClipFeatures(const SupportFeature& feature_a, const SupportFeature& feature_b,
                  const Eigen::Vector3d& nhat_AB_W, double margin, ContactManifold* manifold) {
  manifold->num_points = 0;
  if (feature_a.num_points < 2 || feature_b.num_points < 2) return false;
  const ContactPlane plane(nhat_AB_W);
  const PlanarFeature a(feature_a, plane), b(feature_b, plane);
  RawPoints raw;
  if (a.n == 2 && b.n == 2) {
    if (!ClipParallelSegments(plane, a, b, margin, &raw)) return false;
  } else if (a.n == 2) {
    ClipSegment(plane, a, b, a, b, margin, &raw);
  } else if (b.n == 2) {
    ClipSegment(plane, b, a, a, b, margin, &raw);
  } else {
    ClipPolygons(plane, a, b, a, b, margin, &raw);
  }
  Finish(raw, manifold);
  return true;
}

void PlaneFeatureContacts(const Eigen::Vector3d& p_WP, const Eigen::Vector3d& nhat_AB_W,
                          const SupportFeature& feature_b, double margin,
                          ContactManifold* manifold) {
  RawPoints raw;
  for (int i = 0; i < feature_b.num_points; ++i) {
    const Eigen::Vector3d& p_B = feature_b.p_W[i];
    const double height = nhat_AB_W.dot(p_B - p_WP);
    raw.Add(p_B - height * nhat_AB_W, p_B, nhat_AB_W, margin);
  }
  Finish(raw, manifold);
}

}  // namespace csim::geometry
