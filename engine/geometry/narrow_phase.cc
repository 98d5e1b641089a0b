#include "engine/geometry/narrow_phase.h"

#include <utility>

#include "engine/geometry/box_box.h"
#include "engine/geometry/contact_manifold.h"
#include "engine/geometry/fcl_signed_distance.h"
#include "engine/geometry/signed_distance.h"
#include "engine/geometry/support_feature.h"

namespace csim::geometry {
namespace {

using math::RigidTransform;

bool Is(const ContactShape& s, ShapeType t) { return s.type() == t; }

// Shapes that can present a segment or a face to another shape.
bool HasExtendedFeatures(const ContactShape& s) {
  return Is(s, ShapeType::kBox) || Is(s, ShapeType::kMesh) || Is(s, ShapeType::kCylinder) ||
         Is(s, ShapeType::kCapsule);
}

SignedDistanceResult Flipped(SignedDistanceResult r) {
  r.nhat_AB_W = -r.nhat_AB_W;
  return r;
}

// Closed form for (a, b) in this order, if there is one.
bool OrderedClosedForm(const ContactShape& a, const RigidTransform& X_WA, const ContactShape& b,
                       const RigidTransform& X_WB, SignedDistanceResult* r) {
  const ShapeType ta = a.type(), tb = b.type();
  if (ta == ShapeType::kSphere && tb == ShapeType::kSphere) {
    *r = SphereSphere(X_WA.p, a.radius(), X_WB.p, b.radius());
  } else if (ta == ShapeType::kSphere && tb == ShapeType::kBox) {
    *r = SphereBox(X_WA.p, a.radius(), X_WB, b.size());
  } else if (ta == ShapeType::kSphere && tb == ShapeType::kCapsule) {
    *r = SphereCapsule(X_WA.p, a.radius(), X_WB, b.radius(), b.length());
  } else if (ta == ShapeType::kCapsule && tb == ShapeType::kCapsule) {
    *r = CapsuleCapsule(X_WA, a.radius(), a.length(), X_WB, b.radius(), b.length());
  } else if (ta == ShapeType::kBox && tb == ShapeType::kBox) {
    *r = BoxBox(X_WA, a.size(), X_WB, b.size());
  } else {
    return false;
  }
  return true;
}

// The deepest point of a pair of non-halfspace shapes.
SignedDistanceResult DeepestPoint(const ContactShape& a, const RigidTransform& X_WA,
                                  const ContactShape& b, const RigidTransform& X_WB) {
  SignedDistanceResult r;
  if (OrderedClosedForm(a, X_WA, b, X_WB, &r)) return r;
  if (OrderedClosedForm(b, X_WB, a, X_WA, &r)) return Flipped(r);
  return FclSignedDistance(a, X_WA, b, X_WB);
}

void Append(const ContactManifold& m, const Eigen::Vector3d& nhat_AB_W, bool flip,
            std::vector<PointContact>* out) {
  for (int i = 0; i < m.num_points; ++i) {
    PointContact c;
    c.p_WC = m.points[i].p_WC;
    c.nhat_AB_W = flip ? Eigen::Vector3d(-nhat_AB_W) : nhat_AB_W;
    c.phi0 = m.points[i].phi0;
    out->push_back(c);
  }
}

// Halfspace H (region z <= 0 of its frame) against shape B; `flip` if B was given first.
void HalfspaceContacts(const RigidTransform& X_WH, const ContactShape& b,
                       const RigidTransform& X_WB, double margin, bool flip,
                       std::vector<PointContact>* out) {
  const Eigen::Vector3d nhat = X_WH.R.col(2);  // out of the solid, towards B
  SupportFeature feature;
  CalcSupportFeature(b, X_WB, -nhat, &feature);
  ContactManifold manifold;
  PlaneFeatureContacts(X_WH.p, nhat, feature, margin, &manifold);
  Append(manifold, nhat, flip, out);
}

}  // namespace

void CalcPairContacts(const ContactShape& a, const RigidTransform& X_WA, const ContactShape& b,
                      const RigidTransform& X_WB, double margin,
                      std::vector<PointContact>* out) {
  const bool a_half = Is(a, ShapeType::kHalfspace), b_half = Is(b, ShapeType::kHalfspace);
  if (a_half && b_half) return;
  if (a_half) return HalfspaceContacts(X_WA, b, X_WB, margin, false, out);
  if (b_half) return HalfspaceContacts(X_WB, a, X_WA, margin, true, out);

  const SignedDistanceResult deepest = DeepestPoint(a, X_WA, b, X_WB);
  if (!(deepest.phi0 < margin)) return;
  if (HasExtendedFeatures(a) && HasExtendedFeatures(b)) {
    SupportFeature feature_a, feature_b;
    CalcSupportFeature(a, X_WA, deepest.nhat_AB_W, &feature_a);
    CalcSupportFeature(b, X_WB, -deepest.nhat_AB_W, &feature_b);
    ContactManifold manifold;
    if (ClipFeatures(feature_a, feature_b, deepest.nhat_AB_W, margin, &manifold) &&
        manifold.num_points > 0) {
      return Append(manifold, deepest.nhat_AB_W, false, out);
    }
  }
  PointContact c;
  c.p_WC = deepest.p_WC;
  c.nhat_AB_W = deepest.nhat_AB_W;
  c.phi0 = deepest.phi0;
  out->push_back(c);
}

}  // namespace csim::geometry
