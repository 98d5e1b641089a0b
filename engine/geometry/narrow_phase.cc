#include "engine/geometry/narrow_phase.h"

#include <algorithm>
#include <utility>

#include "engine/geometry/box_box.h"
#include "engine/geometry/contact_manifold.h"
#include "engine/geometry/convex_signed_distance.h"
#include "engine/geometry/signed_distance.h"
#include "engine/geometry/support_feature.h"

namespace csim::geometry {
namespace {

using math::RigidTransform;

bool Is(const ContactShape& s, ShapeType t) { return s.type() == t; }

SignedDistanceResult Flipped(SignedDistanceResult r) {
  r.nhat_AB_W = -r.nhat_AB_W;
  return r;
}

// Closed form for (a, b) in this order, if there is one.
// cutoff: pairs found apart by that much or more may return a partial result with only
// phi0 >= cutoff (BoxBox).
bool OrderedClosedForm(const ContactShape& a, const RigidTransform& X_WA, const ContactShape& b,
                       const RigidTransform& X_WB, double cutoff, SignedDistanceResult* r) {
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
    bool exact = false;
    *r = BoxBox(X_WA, a.size(), X_WB, b.size(), cutoff, &exact);
    // Apart across an edge or a corner, SAT's separation is only a lower bound of the gap;
    // where its witness lies within both features it is the gap itself (closed form, no GJK).
    if (r->phi0 > 0.0 && r->phi0 < cutoff && !exact) {
      const SignedDistanceResult exact = ConvexSignedDistance(a, X_WA, b, X_WB);
      if (exact.phi0 > r->phi0) *r = exact;
    }
  } else {
    return false;
  }
  return true;
}

// The deepest point of a pair of non-halfspace shapes; only phi0 (>= cutoff) is meaningful
// for a pair apart by cutoff or more.
SignedDistanceResult DeepestPoint(const ContactShape& a, const RigidTransform& X_WA,
                                  const ContactShape& b, const RigidTransform& X_WB,
                                  double cutoff) {
  SignedDistanceResult r;
  if (OrderedClosedForm(a, X_WA, b, X_WB, cutoff, &r)) return r;
  if (OrderedClosedForm(b, X_WB, a, X_WA, cutoff, &r)) return Flipped(r);
  return ConvexSignedDistance(a, X_WA, b, X_WB);
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

// The clipped patch only sees the overlap of the two features' projections; when the
// deepest point lies outside it (features tilted within the tolerance, shapes apart by
// more than the patch explains, or a cylinder rim between polygon vertices), the deepest
// point replaces the shallowest one (or is added), so the pair's minimum gap is never lost.
void KeepDeepest(const SignedDistanceResult& deepest, double tolerance, ContactManifold* m) {
  int shallowest = 0;
  for (int i = 0; i < m->num_points; ++i) {
    if (m->points[i].phi0 <= deepest.phi0 + tolerance) return;  // already there
    if (m->points[i].phi0 > m->points[shallowest].phi0) shallowest = i;
  }
  const int slot = m->num_points < ContactManifold::kMaxPoints ? m->num_points++ : shallowest;
  m->points[slot] = {deepest.p_WC, deepest.phi0};
}

// How far [m] the deepest point's phi0 may lie below the true signed distance: round-off
// for the closed forms, GJK's and EPA's tolerance (convex_signed_distance.h) otherwise.
double DeepestTolerance(const ContactShape& a, const RigidTransform& X_WA, const ContactShape& b,
                        const RigidTransform& X_WB) {
  Eigen::Vector3d lo_a, hi_a, lo_b, hi_b;
  a.CalcWorldBounds(X_WA, &lo_a, &hi_a);
  b.CalcWorldBounds(X_WB, &lo_b, &hi_b);
  const double size = std::min((hi_a - lo_a).maxCoeff(), (hi_b - lo_b).maxCoeff());
  return 1e-10 + kConvexSignedDistanceTolerance * size;
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

// Pairs are computed in a canonical order (shape type, then position) so that (A, B) and
// (B, A) run the very same arithmetic and differ only by the flipped normal; the iterative
// GJK and EPA would otherwise land on slightly different points.
bool CanonicalOrder(const ContactShape& a, const RigidTransform& X_WA, const ContactShape& b,
                    const RigidTransform& X_WB) {
  if (a.type() != b.type()) return a.type() < b.type();
  return !std::lexicographical_compare(X_WB.p.data(), X_WB.p.data() + 3, X_WA.p.data(),
                                       X_WA.p.data() + 3);
}

void CalcOrderedPairContacts(const ContactShape& a, const RigidTransform& X_WA,
                             const ContactShape& b, const RigidTransform& X_WB, double margin,
                             std::vector<PointContact>* out) {
  if (Is(a, ShapeType::kHalfspace)) return HalfspaceContacts(X_WA, b, X_WB, margin, false, out);
  if (Is(b, ShapeType::kHalfspace)) return HalfspaceContacts(X_WB, a, X_WA, margin, true, out);
  const SignedDistanceResult deepest = DeepestPoint(a, X_WA, b, X_WB, margin);
  if (!(deepest.phi0 < margin)) return;
  if (HasExtendedFeatures(a) && HasExtendedFeatures(b)) {
    SupportFeature feature_a, feature_b;
    CalcSupportFeature(a, X_WA, deepest.nhat_AB_W, &feature_a);
    CalcSupportFeature(b, X_WB, -deepest.nhat_AB_W, &feature_b);
    ContactManifold manifold;
    if (ClipFeatures(feature_a, feature_b, deepest.nhat_AB_W, margin, &manifold) &&
        manifold.num_points > 0) {
      KeepDeepest(deepest, DeepestTolerance(a, X_WA, b, X_WB), &manifold);
      return Append(manifold, deepest.nhat_AB_W, false, out);
    }
  }
  PointContact c;
  c.p_WC = deepest.p_WC;
  c.nhat_AB_W = deepest.nhat_AB_W;
  c.phi0 = deepest.phi0;
  out->push_back(c);
}

}  // namespace

bool HasExtendedFeatures(const ContactShape& s) {
  return Is(s, ShapeType::kBox) || Is(s, ShapeType::kMesh) || Is(s, ShapeType::kCylinder) ||
         Is(s, ShapeType::kCapsule);
}

void CalcPairContacts(const ContactShape& a, const RigidTransform& X_WA, const ContactShape& b,
                      const RigidTransform& X_WB, double margin,
                      std::vector<PointContact>* out) {
  if (Is(a, ShapeType::kHalfspace) && Is(b, ShapeType::kHalfspace)) return;
  if (CanonicalOrder(a, X_WA, b, X_WB)) return CalcOrderedPairContacts(a, X_WA, b, X_WB, margin, out);
  const size_t first = out->size();
  CalcOrderedPairContacts(b, X_WB, a, X_WA, margin, out);
  for (size_t i = first; i < out->size(); ++i) (*out)[i].nhat_AB_W = -(*out)[i].nhat_AB_W;
}

}  // namespace csim::geometry
