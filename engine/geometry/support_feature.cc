#include "engine/geometry/support_feature.h"

#include <cmath>

#include "engine/common/check.h"

namespace csim::geometry {
namespace {

// Box: every axis nearly perpendicular to d is "free" and spans the feature.
void BoxFeature(const Eigen::Vector3d& size, const math::RigidTransform& X_WG,
                const Eigen::Vector3d& d_G, SupportFeature* f) {
  const Eigen::Vector3d h = 0.5 * size;
  Eigen::Vector3d corner;
  int free_axes[3], num_free = 0;
  for (int i = 0; i < 3; ++i) {
    corner[i] = d_G[i] < 0.0 ? -h[i] : h[i];
    if (std::abs(d_G[i]) <= kFeatureSinTolerance) free_axes[num_free++] = i;
  }
  CSIM_CHECK(num_free < 3);
  if (num_free == 0) {
    f->Add(X_WG * corner);
  } else if (num_free == 1) {
    Eigen::Vector3d q = corner;
    q[free_axes[0]] = -h[free_axes[0]];
    f->Add(X_WG * q);
    q[free_axes[0]] = h[free_axes[0]];
    f->Add(X_WG * q);
  } else {
    const int i = free_axes[0], j = free_axes[1];
    const double si[4] = {-1, 1, 1, -1}, sj[4] = {-1, -1, 1, 1};  // cyclic
    for (int k = 0; k < 4; ++k) {
      Eigen::Vector3d q = corner;
      q[i] = si[k] * h[i];
      q[j] = sj[k] * h[j];
      f->Add(X_WG * q);
    }
  }
}

// Mesh: the merged face best aligned with d, else an edge from the support vertex to the
// farthest vertex that is nearly as extreme (within the angular tolerance), else a vertex.
void MeshFeature(const Polytope& poly, const math::RigidTransform& X_WG,
                 const Eigen::Vector3d& d_G, SupportFeature* f) {
  int best_face = -1;
  double best_cos = kFeatureCosTolerance;
  for (int i = 0; i < static_cast<int>(poly.faces.size()); ++i) {
    const double c = poly.faces[i].normal.dot(d_G);
    if (c >= best_cos) { best_cos = c; best_face = i; }
  }
  if (best_face >= 0) {
    const std::vector<int>& ids = poly.faces[best_face].vertices;
    const int n = static_cast<int>(ids.size());
    const int stride = (n + SupportFeature::kMaxPoints - 1) / SupportFeature::kMaxPoints;
    for (int k = 0; k < n; k += stride) f->Add(X_WG * poly.vertices[ids[k]]);
    return;
  }
  int top = 0;
  for (int i = 1; i < static_cast<int>(poly.vertices.size()); ++i) {
    if (poly.vertices[i].dot(d_G) > poly.vertices[top].dot(d_G)) top = i;
  }
  // The edge's other end: of the vertices within the angular tolerance, the one whose
  // edge is most nearly perpendicular to d (least drop per length), the longest on a tie.
  // The longest alone can pick a neighbouring face's vertex, raised but within the
  // tolerance, over the edge's other end (an octahedron resting on an edge).
  int far = -1;
  double far_slope = 0.0, far_dist = 0.0;
  for (int i = 0; i < static_cast<int>(poly.vertices.size()); ++i) {
    const Eigen::Vector3d e = poly.vertices[i] - poly.vertices[top];
    const double length = e.norm();
    if (!(length > 0.0)) continue;
    const double slope = -e.dot(d_G) / length;
    if (slope > kFeatureSinTolerance) continue;
    if (far < 0 || slope < far_slope - 1e-9 ||
        (slope <= far_slope + 1e-9 && length > far_dist)) {
      far = i;
      far_slope = slope;
      far_dist = length;
    }
  }
  f->Add(X_WG * poly.vertices[top]);
  if (far >= 0) f->Add(X_WG * poly.vertices[far]);
}

// Unit vector perpendicular to the unit axis a, along d's component normal to a when that
// is well defined, else a fixed perpendicular in the shape frame (so points stay put).
// Below the threshold the rim polygon's vertices may miss the deepest rim point by at most
// r |radial| (1 - cos(pi / kRimPoints)) in depth, under 1e-7 r.
Eigen::Vector3d RadialDirection(const Eigen::Vector3d& a, const Eigen::Vector3d& d,
                                const Eigen::Vector3d& fallback) {
  const Eigen::Vector3d radial = d - d.dot(a) * a;
  return radial.norm() > 1e-6 ? radial.normalized() : fallback;
}

// Cylinder (axis z of G): cap polygon, side line or rim point.
void CylinderFeature(double r, double length, const math::RigidTransform& X_WG,
                     const Eigen::Vector3d& d_W, SupportFeature* f) {
  const Eigen::Vector3d a = X_WG.R.col(2);
  const double c = a.dot(d_W);
  const Eigen::Vector3d u = RadialDirection(a, d_W, X_WG.R.col(0));
  const Eigen::Vector3d cap = X_WG.p + (c < 0.0 ? -0.5 : 0.5) * length * a;
  if (std::abs(c) >= kFeatureCosTolerance) {
    // Regular polygon on the rim; one vertex at the deepest rim point when tilted.
    const Eigen::Vector3d v = a.cross(u);
    for (int k = 0; k < kRimPoints; ++k) {
      const double t = 2.0 * M_PI * k / kRimPoints;
      f->Add(cap + r * (std::cos(t) * u + std::sin(t) * v));
    }
  } else if (std::abs(c) <= kFeatureSinTolerance) {
    f->Add(X_WG.p - 0.5 * length * a + r * u);
    f->Add(X_WG.p + 0.5 * length * a + r * u);
  } else {
    f->Add(cap + r * u);
  }
}

// Capsule (axis z of G): both cap spheres' support points, or the deeper one.
void CapsuleFeature(double r, double length, const math::RigidTransform& X_WG,
                    const Eigen::Vector3d& d_W, SupportFeature* f) {
  const Eigen::Vector3d a = X_WG.R.col(2);
  const double c = a.dot(d_W);
  if (std::abs(c) <= kFeatureSinTolerance) {
    f->Add(X_WG.p - 0.5 * length * a + r * d_W);
    f->Add(X_WG.p + 0.5 * length * a + r * d_W);
  } else {
    f->Add(X_WG.p + (c < 0.0 ? -0.5 : 0.5) * length * a + r * d_W);
  }
}

}  // namespace

void CalcSupportFeature(const ContactShape& shape, const math::RigidTransform& X_WG,
                        const Eigen::Vector3d& d_W, SupportFeature* feature) {
  feature->num_points = 0;
  const Eigen::Vector3d d_G = X_WG.R.transpose() * d_W;
  switch (shape.type()) {
    case ShapeType::kBox: BoxFeature(shape.size(), X_WG, d_G, feature); return;
    case ShapeType::kMesh: MeshFeature(shape.polytope(), X_WG, d_G, feature); return;
    case ShapeType::kCylinder:
      CylinderFeature(shape.radius(), shape.length(), X_WG, d_W, feature);
      return;
    case ShapeType::kCapsule:
      CapsuleFeature(shape.radius(), shape.length(), X_WG, d_W, feature);
      return;
    case ShapeType::kSphere:
    case ShapeType::kEllipsoid: feature->Add(shape.Support(X_WG, d_W)); return;
    case ShapeType::kHalfspace: break;
  }
  CSIM_CHECK(false && "CalcSupportFeature() of a halfspace");
}

}  // namespace csim::geometry
