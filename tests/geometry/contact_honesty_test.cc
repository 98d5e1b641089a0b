// Every contact point the narrow phase reports is honest, for every pair kind: its phi0 is
// never below the pair's true signed distance, and the deepest point is that distance when
// the pair is within the margin (engine/geometry/narrow_phase.h), checked on random pairs
// rich in hard cases against an independent reference (reference_signed_distance.h).
// The longer sweep is tools/run_geometry_sweep.sh.

#include <cstdlib>

#include <catch2/catch.hpp>

#include "tests/support/build_variant.h"
#include "tests/geometry/contact_honesty_sweep.h"
#include "tests/geometry/reference_signed_distance.h"
#include "tests/geometry/contact_test_shapes.h"

namespace csim::geometry {
namespace {

using namespace test;  // NOLINT
using Eigen::Vector3d;

constexpr double kMargin = 1e-3;
// The sanitized build (much slower: results/sanitizers.md) runs the same draw's first 250
// pairs per kind: it is there for memory and undefined-behaviour errors, which any pair
// exercises.
const int kPairsPerKind = csim::testing::UnderAddressSanitizer() ? 250 : 2000;

TEST_CASE("Reference signed distance: closed forms", "[collision][honesty]") {
  // Two unit boxes, one turned 45 degrees about z and lifted: face-corner distance.
  math::RigidTransform X;
  const ReferenceShape box = MakeReferenceShape(Box(1, 1, 1), X);
  X.R = math::RotationAboutAxis(Vector3d::UnitX(), M_PI / 4);
  X.p = Vector3d(0, 0, 1.3);
  const ReferenceShape edge_down = MakeReferenceShape(Box(1, 1, 1), X);
  CHECK(CalcReferenceSignedDistance(box, edge_down).phi ==
        Approx(1.3 - 0.5 - 0.5 * std::sqrt(2.0)).margin(1e-14));
  // Edge on edge, crossed: the cross product of the edges.
  math::RigidTransform X_A, X_B;
  X_A.R = math::RotationAboutAxis(Vector3d::UnitX(), M_PI / 4);
  X_B.R = math::RotationAboutAxis(Vector3d::UnitY(), M_PI / 4);
  X_B.p = Vector3d(0, 0, 1.5);
  CHECK(CalcReferenceSignedDistance(MakeReferenceShape(Box(1, 1, 1), X_A),
                                    MakeReferenceShape(Box(1, 1, 1), X_B)).phi ==
        Approx(1.5 - std::sqrt(2.0)).margin(1e-14));
  // Overlapping boxes: the shortest way out is along x, 0.3 m.
  X_B = math::RigidTransform();
  X_B.p = Vector3d(0.7, 0.1, 0.05);
  CHECK(CalcReferenceSignedDistance(box, MakeReferenceShape(Box(1, 1, 1), X_B)).phi ==
        Approx(-0.3).margin(1e-14));
  // Sphere centre inside a box, nearest face 0.1 m away: phi = -(0.1 + r).
  X_B.p = Vector3d(0.4, 0, 0);
  CHECK(CalcReferenceSignedDistance(box, MakeReferenceShape(Sphere(0.2), X_B)).phi ==
        Approx(-0.3).margin(1e-14));
  // Capsules crossing at right angles, axes 0.5 m apart.
  math::RigidTransform X_C;
  X_C.R = math::RotationAboutAxis(Vector3d::UnitX(), M_PI / 2);
  X_C.p = Vector3d(0.5, 0, 0);
  CHECK(CalcReferenceSignedDistance(MakeReferenceShape(Capsule(0.1, 1), math::RigidTransform()),
                                    MakeReferenceShape(Capsule(0.2, 1), X_C)).phi ==
        Approx(0.5 - 0.3).margin(1e-14));
  // Cylinder lying on a halfspace, and an ellipsoid over one.
  math::RigidTransform X_H, X_L;
  X_L.R = X_C.R;
  X_L.p = Vector3d(0, 0, 0.25);
  const ReferenceShape ground = MakeReferenceShape(Halfspace(), X_H);
  CHECK(CalcReferenceSignedDistance(ground, MakeReferenceShape(Cylinder(0.3, 1), X_L)).phi ==
        Approx(-0.05).margin(1e-14));
  CHECK(CalcReferenceSignedDistance(MakeReferenceShape(Ellipsoid(0.1, 0.2, 0.3), X_L), ground)
            .phi == Approx(0.25 - 0.2).margin(1e-14));
}

TEST_CASE("Reference signed distance: numeric search on curved pairs", "[collision][honesty]") {
  // Two cylinders side by side (parallel axes 0.5 m apart), crossed, and cap to cap.
  math::RigidTransform X_A, X_B;
  X_B.p = Vector3d(0.5, 0, 0.1);
  ReferenceDistance d = CalcReferenceSignedDistance(MakeReferenceShape(Cylinder(0.2, 1), X_A),
                                                    MakeReferenceShape(Cylinder(0.2, 1), X_B));
  CHECK_FALSE(d.exact);
  CHECK(d.phi == Approx(0.1).margin(1e-12));
  X_B.R = math::RotationAboutAxis(Vector3d::UnitX(), M_PI / 2);
  X_B.p = Vector3d(0.35, 0.1, 0);
  d = CalcReferenceSignedDistance(MakeReferenceShape(Cylinder(0.2, 1), X_A),
                                  MakeReferenceShape(Cylinder(0.2, 1), X_B));
  CHECK(d.phi == Approx(-0.05).margin(1e-12));
  // Sphere against an ellipsoid along a semi-axis, apart and in overlap.
  X_B = math::RigidTransform();
  X_B.p = Vector3d(0, 0.5, 0);
  CHECK(CalcReferenceSignedDistance(MakeReferenceShape(Ellipsoid(0.1, 0.2, 0.3), X_A),
                                    MakeReferenceShape(Sphere(0.1), X_B)).phi ==
        Approx(0.2).margin(1e-12));
  X_B.p = Vector3d(0.15, 0, 0);
  CHECK(CalcReferenceSignedDistance(MakeReferenceShape(Ellipsoid(0.1, 0.2, 0.3), X_A),
                                    MakeReferenceShape(Sphere(0.1), X_B)).phi ==
        Approx(-0.05).margin(1e-12));
}

TEST_CASE("Every contact point is honest: random pairs of every kind", "[collision][honesty]") {
  const std::vector<ShapeType> types = AllPairShapeTypes();
  uint64_t seed = 1;
  for (size_t i = 0; i < types.size(); ++i) {
    for (size_t j = i; j < types.size(); ++j) {
      if (types[i] == ShapeType::kHalfspace && types[j] == ShapeType::kHalfspace) continue;
      const HonestySweepStats s = SweepPairKind(types[i], types[j], kPairsPerKind, seed++, kMargin);
      INFO(ShapeTypeName(types[i]) << "-" << ShapeTypeName(types[j]) << ": " << s.pairs
           << " pairs, " << s.within_margin << " within the margin, " << s.overlapping
           << " overlapping; worst dishonesty " << s.worst_dishonesty << " m, worst deepest error "
           << s.worst_deepest_error << " m");
      for (const std::string& r : s.failure_reports) UNSCOPED_INFO(r);
      CHECK(s.failures == 0);
      // The draw must actually exercise contact: most pairs within the margin, many in
      // overlap, some beyond it.
      CHECK(s.within_margin > s.pairs / 2);
      CHECK(s.overlapping > s.pairs / 4);
      CHECK(s.within_margin < s.pairs);
    }
  }
}

}  // namespace
}  // namespace csim::geometry
