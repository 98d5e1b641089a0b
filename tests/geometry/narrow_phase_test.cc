// Narrow phase and manifolds against closed forms (engine/geometry/narrow_phase.h): signed
// distances, unit normals from A into B, contact points midway between the surfaces, the
// margin rule, the A/B flip, and the multi-point manifolds of flat contact.

#include "engine/geometry/narrow_phase.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/geometry/box_box.h"
#include "engine/geometry/convex_signed_distance.h"
#include "engine/geometry/contact_shape.h"
#include "tests/geometry/contact_test_shapes.h"

namespace csim::geometry {
namespace {

using namespace test;  // NOLINT
using Eigen::Vector3d;
using math::RigidTransform;

constexpr double kPi = 3.14159265358979323846;
constexpr double kTol = 1e-12;
constexpr double kMargin = 1e-3;

std::vector<PointContact> Contacts(const Geometry& a, const RigidTransform& X_WA,
                                   const Geometry& b, const RigidTransform& X_WB,
                                   double margin = kMargin) {
  std::vector<PointContact> out;
  CalcPairContacts(ContactShape(a), X_WA, ContactShape(b), X_WB, margin, &out);
  return out;
}

void CheckVector(const Vector3d& actual, const Vector3d& expected, double tol = kTol) {
  INFO("actual " << actual.transpose() << " expected " << expected.transpose());
  CHECK((actual - expected).norm() <= tol);
}

/// One contact with the expected gap, normal (A into B) and point.
void CheckSingle(const std::vector<PointContact>& c, double phi, const Vector3d& n,
                 const Vector3d& p, double tol = kTol) {
  REQUIRE(c.size() == 1);
  CHECK(c[0].phi0 == Approx(phi).margin(tol));
  CheckVector(c[0].nhat_AB_W, n, tol);
  CheckVector(c[0].p_WC, p, tol);
}

/// Swapping A and B flips every normal and keeps gaps and points.
void CheckFlip(const Geometry& a, const RigidTransform& X_WA, const Geometry& b,
               const RigidTransform& X_WB, double tol = 1e-9) {
  std::vector<PointContact> ab = Contacts(a, X_WA, b, X_WB);
  std::vector<PointContact> ba = Contacts(b, X_WB, a, X_WA);
  REQUIRE(!ab.empty());
  REQUIRE(ab.size() == ba.size());
  SortByPosition(&ab);
  SortByPosition(&ba);
  for (size_t i = 0; i < ab.size(); ++i) {
    CHECK(ab[i].nhat_AB_W.norm() == Approx(1.0).margin(1e-12));
    CHECK(ab[i].phi0 == Approx(ba[i].phi0).margin(tol));
    CheckVector(ab[i].p_WC, ba[i].p_WC, tol);
    CheckVector(ab[i].nhat_AB_W, -ba[i].nhat_AB_W, tol);
  }
}

TEST_CASE("Sphere-sphere: gap, normal, midpoint, margin", "[collision]") {
  const auto c = Contacts(Sphere(0.1), At(0, 0, 0), Sphere(0.2), At(0.25, 0, 0));
  CheckSingle(c, -0.05, Vector3d::UnitX(), Vector3d(0.075, 0, 0));
  CheckFlip(Sphere(0.1), At(0, 0, 0), Sphere(0.2), At(0.25, 0, 0));
  // Apart within the margin: phi0 > 0; beyond it: nothing.
  CheckSingle(Contacts(Sphere(0.1), At(0, 0, 0), Sphere(0.2), At(0, 0.3004, 0)), 4e-4,
              Vector3d::UnitY(), Vector3d(0, 0.1002, 0));
  CHECK(Contacts(Sphere(0.1), At(0, 0, 0), Sphere(0.2), At(0, 0.3011, 0)).empty());
  // Coincident centres: a deterministic unit normal.
  const auto same = Contacts(Sphere(0.1), At(1, 2, 3), Sphere(0.1), At(1, 2, 3));
  REQUIRE(same.size() == 1);
  CHECK(same[0].phi0 == Approx(-0.2));
  CHECK(same[0].nhat_AB_W.norm() == Approx(1.0));
}

TEST_CASE("Sphere-halfspace, including a rotated and offset halfspace", "[collision]") {
  // Halfspace A, sphere B: the normal is the plane's +z, into the sphere.
  CheckSingle(Contacts(Halfspace(), At(0, 0, 0), Sphere(0.1), At(0.3, 0.4, 0.08)), -0.02,
              Vector3d::UnitZ(), Vector3d(0.3, 0.4, -0.01));
  CheckFlip(Halfspace(), At(0, 0, 0), Sphere(0.1), At(0.3, 0.4, 0.08));
  // The region x <= 1: frame z along world +x, origin at x = 1.
  const RigidTransform X_WH = Rotated(Vector3d::UnitY(), kPi / 2, Vector3d(1, 5, -7));
  CheckSingle(Contacts(Halfspace(), X_WH, Sphere(0.1), At(1.05, 0, 0)), -0.05,
              Vector3d::UnitX(), Vector3d(0.975, 0, 0));
  CheckSingle(Contacts(Halfspace(), X_WH, Sphere(0.1), At(1.1005, 0, 0)), 5e-4,
              Vector3d::UnitX(), Vector3d(1.00025, 0, 0));
  CHECK(Contacts(Halfspace(), X_WH, Sphere(0.1), At(1.102, 0, 0)).empty());
}

TEST_CASE("Sphere-box: face, edge and corner regions, centre inside", "[collision]") {
  const Geometry box = Box(1, 1, 1), ball = Sphere(0.1);
  SECTION("face") {
    CheckSingle(Contacts(ball, At(0.2, 0.1, 0.55), box, At(0, 0, 0)), -0.05, -Vector3d::UnitZ(),
                Vector3d(0.2, 0.1, 0.475));
  }
  SECTION("edge") {
    const double d = 0.05 * std::sqrt(2.0);
    const Vector3d n = -Vector3d(1, 0, 1).normalized();
    const Vector3d witness_a = Vector3d(0.55, 0.2, 0.55) + 0.1 * n;
    CheckSingle(Contacts(ball, At(0.55, 0.2, 0.55), box, At(0, 0, 0)), d - 0.1, n,
                0.5 * (witness_a + Vector3d(0.5, 0.2, 0.5)));
  }
  SECTION("corner") {
    const Vector3d n = -Vector3d(1, 1, 1).normalized();
    const Vector3d witness_a = Vector3d(0.55, 0.55, 0.55) + 0.1 * n;
    CheckSingle(Contacts(ball, At(0.55, 0.55, 0.55), box, At(0, 0, 0)),
                0.05 * std::sqrt(3.0) - 0.1, n, 0.5 * (witness_a + Vector3d(0.5, 0.5, 0.5)));
  }
  SECTION("centre inside, nearest face +z") {
    CheckSingle(Contacts(ball, At(0.1, 0, 0.4), box, At(0, 0, 0)), -0.2, -Vector3d::UnitZ(),
                Vector3d(0.1, 0, 0.4));
  }
  SECTION("rotated box, flip") {
    const RigidTransform X_WB = Rotated(Vector3d(1, 2, 3), 0.7, Vector3d(0.1, -0.2, 0.3));
    const Vector3d p = X_WB * Vector3d(0.3, 0.2, 0.58);
    CheckSingle(Contacts(ball, At(p.x(), p.y(), p.z()), box, X_WB), -0.02, -X_WB.R.col(2),
                X_WB * Vector3d(0.3, 0.2, 0.49), 1e-12);
    CheckFlip(ball, At(p.x(), p.y(), p.z()), box, X_WB);
  }
}

TEST_CASE("Box-halfspace: flat gives 4 corners, tilted 1 or 2 points", "[collision]") {
  const Geometry box = Box(0.4, 0.6, 0.2);
  SECTION("flat, overlapping by 1 mm") {
    auto c = Contacts(Halfspace(), At(0, 0, 0), box, At(1, 2, 0.099));
    REQUIRE(c.size() == 4);
    SortByPosition(&c);
    const Vector3d corners[4] = {{0.8, 1.7, -5e-4}, {0.8, 2.3, -5e-4}, {1.2, 1.7, -5e-4},
                                 {1.2, 2.3, -5e-4}};
    for (int i = 0; i < 4; ++i) {
      CHECK(c[i].phi0 == Approx(-1e-3).margin(kTol));
      CheckVector(c[i].nhat_AB_W, Vector3d::UnitZ());
      CheckVector(c[i].p_WC, corners[i]);
    }
  }
  SECTION("flat, within the margin and beyond it") {
    auto c = Contacts(Halfspace(), At(0, 0, 0), box, At(0, 0, 0.1005));
    REQUIRE(c.size() == 4);
    for (const PointContact& p : c) CHECK(p.phi0 == Approx(5e-4).margin(kTol));
    CHECK(Contacts(Halfspace(), At(0, 0, 0), box, At(0, 0, 0.1011)).empty());
  }
  SECTION("tilted onto an edge: 2 points") {
    const RigidTransform X_WB = Rotated(Vector3d::UnitX(), 0.5, Vector3d(0, 0, 0.1));
    const double low = (X_WB * Vector3d(0, -0.3, -0.1)).z();
    auto c = Contacts(Halfspace(), At(0, 0, 0), box, X_WB);
    REQUIRE(c.size() == 2);
    SortByPosition(&c);
    CHECK(c[0].phi0 == Approx(low).margin(kTol));
    CHECK(c[1].phi0 == Approx(low).margin(kTol));
    CheckVector(c[0].p_WC, X_WB * Vector3d(-0.2, -0.3, -0.1) - 0.5 * low * Vector3d::UnitZ());
    CheckFlip(Halfspace(), At(0, 0, 0), box, X_WB);
  }
  SECTION("tilted onto a corner: 1 point") {
    const RigidTransform X_WB = Rotated(Vector3d(1, 1, 0), 0.6, Vector3d(0, 0, 0.2));
    double low = 1e9;
    for (int i = 0; i < 8; ++i) {
      const Vector3d v(i & 1 ? 0.2 : -0.2, i & 2 ? 0.3 : -0.3, i & 4 ? 0.1 : -0.1);
      low = std::min(low, (X_WB * v).z());
    }
    REQUIRE(low < 0.0);
    const auto c = Contacts(Halfspace(), At(0, 0, 0), box, X_WB);
    REQUIRE(c.size() == 1);
    CHECK(c[0].phi0 == Approx(low).margin(kTol));
  }
  SECTION("slightly tilted: each corner carries its own gap") {
    const RigidTransform X_WB = Rotated(Vector3d::UnitY(), 0.002, Vector3d(0, 0, 0.0998));
    auto c = Contacts(Halfspace(), At(0, 0, 0), box, X_WB);
    REQUIRE(c.size() == 4);
    for (const PointContact& p : c) {
      const Vector3d corner = p.p_WC + 0.5 * p.phi0 * Vector3d::UnitZ();
      CHECK(p.phi0 == Approx(corner.z()).margin(kTol));
      CHECK(std::abs(std::abs((X_WB.Inverse() * corner).z()) - 0.1) < 1e-12);
    }
  }
}

TEST_CASE("Box on box: 4-point manifolds with the right gap", "[collision]") {
  const Geometry big = Box(1, 1, 1), small = Box(0.5, 0.5, 0.5);
  SECTION("small on big, 10 mm overlap: B's bottom corners") {
    auto c = Contacts(big, At(0, 0, 0), small, At(0.1, 0, 0.74));
    REQUIRE(c.size() == 4);
    SortByPosition(&c);
    const double xs[2] = {-0.15, 0.35}, ys[2] = {-0.25, 0.25};
    for (int i = 0; i < 4; ++i) {
      CHECK(c[i].phi0 == Approx(-0.01).margin(kTol));
      CheckVector(c[i].nhat_AB_W, Vector3d::UnitZ());
      CheckVector(c[i].p_WC, Vector3d(xs[i / 2], ys[i % 2], 0.495));
    }
    CheckFlip(big, At(0, 0, 0), small, At(0.1, 0, 0.74));
  }
  SECTION("big on small: clipped to the small face") {
    auto c = Contacts(small, At(0, 0, 0), big, At(0, 0, 0.749));
    REQUIRE(c.size() == 4);
    for (const PointContact& p : c) {
      CHECK(p.phi0 == Approx(-1e-3).margin(kTol));
      CHECK(std::abs(p.p_WC.x()) == Approx(0.25));
      CHECK(std::abs(p.p_WC.y()) == Approx(0.25));
    }
  }
  SECTION("rotated 45 degrees about z: the rotated corners") {
    const RigidTransform X_WB = Rotated(Vector3d::UnitZ(), kPi / 4, Vector3d(0, 0, 0.7495));
    const auto c = Contacts(big, At(0, 0, 0), small, X_WB);
    REQUIRE(c.size() == 4);
    for (const PointContact& p : c) {
      CHECK(p.phi0 == Approx(-5e-4).margin(kTol));
      CHECK(std::hypot(p.p_WC.x(), p.p_WC.y()) == Approx(0.25 * std::sqrt(2.0)));
    }
  }
  SECTION("equal boxes, offset: corners of the overlap rectangle") {
    auto c = Contacts(big, At(0, 0, 0), big, At(0.4, 0.3, 0.998));
    REQUIRE(c.size() == 4);
    SortByPosition(&c);
    CheckVector(c[0].p_WC, Vector3d(-0.1, -0.2, 0.499));
    CheckVector(c[3].p_WC, Vector3d(0.5, 0.5, 0.499));
    for (const PointContact& p : c) CHECK(p.phi0 == Approx(-0.002).margin(kTol));
  }
  SECTION("within the margin and beyond") {
    const auto c = Contacts(big, At(0, 0, 0), small, At(0, 0, 0.7506));
    REQUIRE(c.size() == 4);
    for (const PointContact& p : c) CHECK(p.phi0 == Approx(6e-4).margin(kTol));
    CHECK(Contacts(big, At(0, 0, 0), small, At(0, 0, 0.7511)).empty());
  }
  SECTION("edge on edge: one point") {
    const RigidTransform X_WA = Rotated(Vector3d::UnitX(), kPi / 4, Vector3d::Zero());
    const RigidTransform X_WB = Rotated(Vector3d::UnitY(), kPi / 4, Vector3d(0, 0, 1.4));
    const auto c = Contacts(big, X_WA, big, X_WB);
    REQUIRE(c.size() == 1);
    CHECK(c[0].phi0 == Approx(1.4 - std::sqrt(2.0)).margin(1e-12));
    CheckVector(c[0].nhat_AB_W, Vector3d::UnitZ(), 1e-12);
    CheckVector(c[0].p_WC, Vector3d(0, 0, 0.7), 1e-12);
  }
}

TEST_CASE("Domino leaning on the next: equal widths, faces 5.73 degrees apart", "[collision]") {
  // Two 1 x 5 x 10 cm dominoes rotated about y, the first's top edge 2.696e-5 m from the
  // second's face (separating axis: the second's x axis). Their 5 cm sides lie on the same
  // planes y = +-0.025 up to round-off, where a clip line's crossing computed without
  // clamping extrapolates past its edge, to a point outside both faces with a depth the
  // boxes do not have (contact_manifold.cc).
  const Geometry domino = Box(0.01, 0.05, 0.1);
  RigidTransform X_WA, X_WB;
  X_WA.p = Vector3d(0.10131268255983968, 2.1216203134700229e-13, 0.020100487677899383);
  X_WA.R = Eigen::Quaterniond(0.80834349364445912, -2.7522826326072602e-12,
                              0.58871113144110876, -4.7224719389728947e-13)
               .normalized().toRotationMatrix();
  X_WB.p = Vector3d(0.14906667623305647, 3.0090582134852639e-13, 0.024599951774782469);
  X_WB.R = Eigen::Quaterniond(0.83676990048586197, -2.5034550056868274e-12,
                              0.54755468552545572, 1.5843835383203856e-12)
               .normalized().toRotationMatrix();
  // Separation along B's x axis by the separating axis theorem, written out here.
  const Vector3d n = X_WB.R.col(0), h(0.005, 0.025, 0.05);
  const double gap = std::abs((X_WB.p - X_WA.p).dot(n)) -
                     h.dot((X_WA.R.transpose() * n).cwiseAbs()) - h[0];
  REQUIRE(gap == Approx(2.696e-5).margin(1e-8));
  const auto c = Contacts(domino, X_WA, domino, X_WB);
  REQUIRE(c.size() == 2);  // the leaning top edge's two ends
  for (const PointContact& p : c) {
    CHECK(p.phi0 == Approx(gap).margin(1e-12));
    CHECK(std::abs(p.p_WC.y()) == Approx(0.025).margin(1e-9));
  }
}

TEST_CASE("Box-box cutoff: the same result below it, only phi0 >= cutoff above", "[collision]") {
  // BoxBox skips the edge axes once a face axis separates the boxes by the cutoff (the
  // narrow phase passes the contact margin): for random poses near contact, a pair below
  // the cutoff gets exactly the full result, and one at or above it a phi0 that is too.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Vector3d size_a(0.1, 0.2, 0.1), size_b(0.1, 0.1, 0.15);
  int below = 0, above = 0;
  for (int n = 0; n < 2000; ++n) {
    const RigidTransform X_WA = Rotated(Vector3d(u(rng), u(rng), u(rng)).normalized(), 3 * u(rng),
                                        Vector3d::Zero());
    const RigidTransform X_WB = Rotated(Vector3d(u(rng), u(rng), u(rng)).normalized(), 3 * u(rng),
                                        0.2 * Vector3d(u(rng), u(rng), u(rng)));
    const double cutoff = 0.01 * u(rng);
    const SignedDistanceResult full = BoxBox(X_WA, size_a, X_WB, size_b);
    const SignedDistanceResult cut = BoxBox(X_WA, size_a, X_WB, size_b, cutoff);
    if (full.phi0 < cutoff) {
      ++below;
      CHECK(cut.phi0 == full.phi0);
      CHECK(cut.nhat_AB_W == full.nhat_AB_W);
      CHECK(cut.p_WC == full.p_WC);
    } else {
      ++above;
      CHECK(cut.phi0 >= cutoff);
    }
  }
  CHECK(below > 200);
  CHECK(above > 200);
}

TEST_CASE("Box-box exactness: a separation claimed exact is the distance GJK finds",
          "[collision]") {
  // Apart, SAT's separation is the distance only when its witness lies within both features;
  // BoxBox says so (and the narrow phase then skips GJK). Over random poses apart: every
  // claimed separation within GJK's tolerance of the distance, every other one at most the
  // distance, and both kinds common.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Vector3d size_a(0.1, 0.2, 0.1), size_b(0.1, 0.1, 0.15);
  const ContactShape shape_a(Box(size_a.x(), size_a.y(), size_a.z()));
  const ContactShape shape_b(Box(size_b.x(), size_b.y(), size_b.z()));
  const double tolerance = kConvexSignedDistanceTolerance * 0.2 + 1e-12;
  int exact = 0, bound = 0;
  for (int n = 0; n < 3000; ++n) {
    // Half the poses near-aligned (piles), half any orientation.
    const double spin = n % 2 == 0 ? 0.05 : 3.0;
    const RigidTransform X_WA = Rotated(Vector3d(u(rng), u(rng), u(rng)).normalized(),
                                        spin * u(rng), Vector3d::Zero());
    const RigidTransform X_WB = Rotated(Vector3d(u(rng), u(rng), u(rng)).normalized(),
                                        spin * u(rng), 0.25 * Vector3d(u(rng), u(rng), u(rng)));
    bool claimed = false;
    const SignedDistanceResult sat = BoxBox(X_WA, size_a, X_WB, size_b,
                                            std::numeric_limits<double>::infinity(), &claimed);
    if (!(sat.phi0 > 1e-4)) continue;
    const double distance = ConvexSignedDistance(shape_a, X_WA, shape_b, X_WB).phi0;
    INFO("pose " << n << " separation " << sat.phi0 << " distance " << distance);
    CHECK(sat.phi0 <= distance + tolerance);
    if (claimed) {
      ++exact;
      CHECK(sat.phi0 >= distance - tolerance);
    } else if (distance - sat.phi0 > 10 * tolerance) {
      ++bound;
    }
  }
  CHECK(exact > 300);
  CHECK(bound > 100);
  // Stacked with a gap: the corner over the face, exact. Corner to corner along the
  // diagonal: the face axes see 0.1 m (the distance is 0.1 sqrt(3)), not exact.
  bool claimed = false;
  const SignedDistanceResult stacked =
      BoxBox(RigidTransform{}, size_a, RigidTransform{Eigen::Matrix3d::Identity(), Vector3d(0.01, 0.02, 0.1 + 0.002)}, size_b,
             std::numeric_limits<double>::infinity(), &claimed);
  CHECK(stacked.phi0 == Approx(0.002 - 0.025).margin(1e-15));
  const SignedDistanceResult gap =
      BoxBox(RigidTransform{}, size_a, RigidTransform{Eigen::Matrix3d::Identity(), Vector3d(0.01, 0.02, 0.125 + 0.002)}, size_b,
             std::numeric_limits<double>::infinity(), &claimed);
  CHECK(gap.phi0 == Approx(0.002).margin(1e-15));
  CHECK(claimed);
  const Vector3d corner = 0.5 * (size_a + size_b) + Vector3d::Constant(0.1);
  BoxBox(RigidTransform{}, size_a, RigidTransform{Eigen::Matrix3d::Identity(), corner}, size_b,
         std::numeric_limits<double>::infinity(), &claimed);
  CHECK_FALSE(claimed);
}

TEST_CASE("Cylinder on a halfspace: rim points flat, two points on its side", "[collision]") {
  const Geometry cyl = Cylinder(0.1, 0.3);
  SECTION("on its flat face") {
    const auto c = Contacts(Halfspace(), At(0, 0, 0), cyl, At(0.5, 0, 0.149));
    REQUIRE(c.size() == 8);
    for (const PointContact& p : c) {
      CHECK(p.phi0 == Approx(-1e-3).margin(kTol));
      CHECK(std::hypot(p.p_WC.x() - 0.5, p.p_WC.y()) == Approx(0.1));
      CheckVector(p.nhat_AB_W, Vector3d::UnitZ());
    }
  }
  SECTION("on its side: the two end-rim points") {
    const RigidTransform X_WB = Rotated(Vector3d::UnitX(), kPi / 2, Vector3d(0, 0, 0.0995));
    auto c = Contacts(Halfspace(), At(0, 0, 0), cyl, X_WB);
    REQUIRE(c.size() == 2);
    SortByPosition(&c);
    CheckVector(c[0].p_WC, Vector3d(0, -0.15, -2.5e-4));
    CheckVector(c[1].p_WC, Vector3d(0, 0.15, -2.5e-4));
    for (const PointContact& p : c) CHECK(p.phi0 == Approx(-5e-4).margin(kTol));
  }
  SECTION("tilted onto its rim: the deepest rim point") {
    const RigidTransform X_WB = Rotated(Vector3d::UnitX(), 0.6, Vector3d(0, 0, 0.1));
    const Vector3d low = X_WB * Vector3d(0, 0, -0.15) + 0.1 * Vector3d(0, -std::cos(0.6), -std::sin(0.6));
    const auto c = Contacts(Halfspace(), At(0, 0, 0), cyl, X_WB);
    REQUIRE(c.size() == 1);
    CHECK(c[0].phi0 == Approx(low.z()).margin(kTol));
    CheckFlip(Halfspace(), At(0, 0, 0), cyl, X_WB);
  }
}

TEST_CASE("Capsule on a halfspace: both cap centres when lying flat", "[collision]") {
  const Geometry cap = Capsule(0.05, 0.3);
  auto c = Contacts(Halfspace(), At(0, 0, 0), cap,
                    Rotated(Vector3d::UnitY(), kPi / 2, Vector3d(0, 0, 0.048)));
  REQUIRE(c.size() == 2);
  SortByPosition(&c);
  CheckVector(c[0].p_WC, Vector3d(-0.15, 0, -0.001));
  CheckVector(c[1].p_WC, Vector3d(0.15, 0, -0.001));
  for (const PointContact& p : c) CHECK(p.phi0 == Approx(-0.002).margin(kTol));
  // Upright: the lower cap only.
  CheckSingle(Contacts(Halfspace(), At(0, 0, 0), cap, At(0, 0, 0.199)), -1e-3,
              Vector3d::UnitZ(), Vector3d(0, 0, -5e-4));
}

TEST_CASE("Ellipsoid on a halfspace: phi0 = centre height - semi-axis", "[collision]") {
  CheckSingle(Contacts(Halfspace(), At(0, 0, 0), Ellipsoid(0.1, 0.2, 0.3), At(1, 1, 0.29)),
              -0.01, Vector3d::UnitZ(), Vector3d(1, 1, -0.005));
  // Rotated so that its b axis is vertical.
  CheckSingle(Contacts(Halfspace(), At(0, 0, 0), Ellipsoid(0.1, 0.2, 0.3),
                       Rotated(Vector3d::UnitX(), kPi / 2, Vector3d(0, 0, 0.2004))),
              4e-4, Vector3d::UnitZ(), Vector3d(0, 0, 2e-4));
}

TEST_CASE("Convex mesh cube on a halfspace equals the box", "[collision]") {
  for (const RigidTransform& X_WB :
       {At(0.1, 0.2, 0.1996), Rotated(Vector3d::UnitX(), 0.5, Vector3d(0, 0, 0.25)),
        Rotated(Vector3d(1, 1, 0), 0.6, Vector3d(0, 0, 0.3)),
        Rotated(Vector3d::UnitY(), 0.001, Vector3d(0, 0, 0.1999))}) {
    auto box = Contacts(Halfspace(), At(0, 0, 0), Box(0.4, 0.4, 0.4), X_WB);
    auto mesh = Contacts(Halfspace(), At(0, 0, 0), MeshCube(0.4), X_WB);
    REQUIRE(!box.empty());
    REQUIRE(box.size() == mesh.size());
    SortByPosition(&box);
    SortByPosition(&mesh);
    for (size_t i = 0; i < box.size(); ++i) {
      CHECK(mesh[i].phi0 == Approx(box[i].phi0).margin(1e-14));
      CheckVector(mesh[i].p_WC, box[i].p_WC, 1e-14);
      CheckVector(mesh[i].nhat_AB_W, box[i].nhat_AB_W, 1e-14);
    }
  }
}

TEST_CASE("Capsule pairs: sphere-capsule and parallel capsules", "[collision]") {
  // Sphere beyond the capsule's upper cap, off its axis: the cap sphere decides.
  const Vector3d d(0.15, 0, -0.15);
  const double phi = d.norm() - 0.25;
  CheckSingle(Contacts(Sphere(0.2), At(0.05, 0, 0.1), Capsule(0.05, 0.4), At(0.2, 0, -0.25)),
              phi, d.normalized(), Vector3d(0.05, 0, 0.1) + d.normalized() * (0.2 + 0.5 * phi));
  // Two capsules lying side by side along x: the two ends of their overlap.
  const RigidTransform X_WA = Rotated(Vector3d::UnitY(), kPi / 2, Vector3d(0, 0, 0));
  const RigidTransform X_WB = Rotated(Vector3d::UnitY(), kPi / 2, Vector3d(0.1, 0, 0.099));
  auto c = Contacts(Capsule(0.05, 0.4), X_WA, Capsule(0.05, 0.4), X_WB);
  REQUIRE(c.size() == 2);
  SortByPosition(&c);
  CheckVector(c[0].p_WC, Vector3d(-0.1, 0, 0.0495));
  CheckVector(c[1].p_WC, Vector3d(0.2, 0, 0.0495));
  for (const PointContact& p : c) CHECK(p.phi0 == Approx(-1e-3).margin(kTol));
  CheckFlip(Capsule(0.05, 0.4), X_WA, Capsule(0.05, 0.4), X_WB);
}

TEST_CASE("GJK and EPA pairs: gaps, normals and manifolds", "[collision]") {
  constexpr double kFcl = 1e-6;  // gaps and normals through GJK
  constexpr double kFclPoint = 1e-4;  // witness points on curved surfaces (see header)
  SECTION("sphere-cylinder (side)") {
    CheckSingle(Contacts(Sphere(0.1), At(0.25, 0, 0), Cylinder(0.2, 0.5), At(0, 0, 0)), -0.05,
                -Vector3d::UnitX(), Vector3d(0.175, 0, 0), kFcl);
  }
  SECTION("ellipsoid on a box") {
    CheckSingle(Contacts(Box(1, 1, 1), At(0, 0, 0), Ellipsoid(0.1, 0.1, 0.2), At(0, 0, 0.696)),
                -0.004, Vector3d::UnitZ(), Vector3d(0, 0, 0.498), kFclPoint);
    CheckSingle(Contacts(Box(1, 1, 1), At(0, 0, 0), Ellipsoid(0.1, 0.1, 0.2), At(0, 0, 0.7005)),
                5e-4, Vector3d::UnitZ(), Vector3d(0, 0, 0.50025), kFclPoint);
    CHECK(Contacts(Box(1, 1, 1), At(0, 0, 0), Ellipsoid(0.1, 0.1, 0.2), At(0, 0, 0.702)).empty());
  }
  SECTION("cylinder standing on a box: rim points") {
    const auto c = Contacts(Box(1, 1, 1), At(0, 0, 0), Cylinder(0.1, 0.2), At(0, 0, 0.597));
    REQUIRE(c.size() == 8);
    for (const PointContact& p : c) {
      CHECK(p.phi0 == Approx(-0.003).margin(kFcl));
      CheckVector(p.nhat_AB_W, Vector3d::UnitZ(), kFcl);
      CHECK(std::hypot(p.p_WC.x(), p.p_WC.y()) == Approx(0.1).margin(kFcl));
    }
  }
  SECTION("cylinder lying on a box: two points") {
    const RigidTransform X_WB = Rotated(Vector3d::UnitX(), kPi / 2, Vector3d(0, 0, 0.599));
    const auto c = Contacts(Box(1, 1, 1), At(0, 0, 0), Cylinder(0.1, 0.2), X_WB);
    REQUIRE(c.size() == 2);
    for (const PointContact& p : c) {
      CHECK(p.phi0 == Approx(-0.001).margin(kFcl));
      CHECK(std::abs(p.p_WC.y()) == Approx(0.1).margin(kFcl));
    }
  }
  SECTION("capsule lying on a box: both cap points") {
    const RigidTransform X_WB = Rotated(Vector3d::UnitY(), kPi / 2, Vector3d(0, 0, 0.549));
    const auto c = Contacts(Box(1, 1, 1), At(0, 0, 0), Capsule(0.05, 0.3), X_WB);
    REQUIRE(c.size() == 2);
    for (const PointContact& p : c) {
      CHECK(p.phi0 == Approx(-0.001).margin(kFcl));
      CHECK(std::abs(p.p_WC.x()) == Approx(0.15).margin(kFcl));
    }
  }
  SECTION("mesh cube on a box: 4 points like box-box") {
    auto mesh = Contacts(Box(1, 1, 1), At(0, 0, 0), MeshCube(0.4), At(0.1, 0, 0.6985));
    auto box = Contacts(Box(1, 1, 1), At(0, 0, 0), Box(0.4, 0.4, 0.4), At(0.1, 0, 0.6985));
    REQUIRE(mesh.size() == 4);
    REQUIRE(box.size() == 4);
    SortByPosition(&mesh);
    SortByPosition(&box);
    for (int i = 0; i < 4; ++i) {
      CHECK(mesh[i].phi0 == Approx(-0.0015).margin(kFcl));
      CheckVector(mesh[i].p_WC, box[i].p_WC, kFcl);
    }
  }
  SECTION("every GJK and EPA pair flips with A and B") {
    CheckFlip(Sphere(0.1), At(0.25, 0.01, 0.02), Cylinder(0.2, 0.5), At(0, 0, 0), kFcl);
    CheckFlip(Box(1, 1, 1), At(0, 0, 0), Ellipsoid(0.1, 0.1, 0.2), At(0.1, 0, 0.696), kFcl);
    CheckFlip(Box(1, 1, 1), At(0, 0, 0), Cylinder(0.1, 0.2), At(0, 0, 0.597), kFcl);
    CheckFlip(Cylinder(0.1, 0.2), At(0, 0, 0), Cylinder(0.1, 0.2), At(0.05, 0, 0.199), kFcl);
  }
}

TEST_CASE("Every shape pair: self-consistent gaps along the normal",
          "[collision]") {
  // Oracle: for convex A, B and unit n, sep(n) = n . (S_B(-n) - S_A(n)) (support points)
  // is a lower bound of the signed distance, equal to it at the contact normal. The
  // deepest reported point must therefore have phi0 == sep(nhat) (closed forms: exactly;
  // GJK and EPA pairs: to their tolerance), and sep(n) <= phi0 for nearby directions. Checked
  // for realistic overlaps (down to 1 cm on 0.1 m shapes); contact_honesty_test.cc checks
  // every depth against an independent reference.
  const std::vector<Geometry> shapes = {Sphere(0.1), Box(0.2, 0.15, 0.1), Cylinder(0.08, 0.2),
                                        Capsule(0.05, 0.2), Ellipsoid(0.1, 0.07, 0.05),
                                        MeshCube(0.15)};
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int checked = 0;
  for (const Geometry& ga : shapes) {
    for (const Geometry& gb : shapes) {
      const ContactShape a(ga), b(gb);
      for (int trial = 0; trial < 100; ++trial) {
        const RigidTransform X_WA = Rotated(Vector3d(u(rng), u(rng), u(rng)), 3 * u(rng),
                                            Vector3d::Zero());
        const Vector3d dir = Vector3d(u(rng), u(rng), u(rng)).normalized();
        RigidTransform X_WB = Rotated(Vector3d(u(rng), u(rng), u(rng)), 3 * u(rng),
                                      (0.1 + 0.05 * u(rng)) * dir);
        std::vector<PointContact> c;
        CalcPairContacts(a, X_WA, b, X_WB, 1.0, &c);
        REQUIRE(!c.empty());
        // Move B along the normal to a target gap in [-1 cm, 4 cm] and query again.
        X_WB.p += (0.015 + 0.025 * u(rng) - c[0].phi0) * c[0].nhat_AB_W;
        c.clear();
        CalcPairContacts(a, X_WA, b, X_WB, 0.05, &c);
        double phi = 1.0;
        for (const PointContact& p : c) phi = std::min(phi, p.phi0);
        if (c.empty() || phi < -0.01) continue;
        const Vector3d n = c[0].nhat_AB_W;
        INFO(ShapeTypeName(ga.type) << "-" << ShapeTypeName(gb.type) << " trial " << trial);
        CHECK(n.norm() == Approx(1.0).margin(1e-12));
        const double sep = n.dot(b.Support(X_WB, -n) - a.Support(X_WA, n));
        CHECK(sep == Approx(phi).margin(1e-6));
        for (int k = 0; k < 4; ++k) {
          const Vector3d m = (n + 0.05 * Vector3d(u(rng), u(rng), u(rng))).normalized();
          CHECK(m.dot(b.Support(X_WB, -m) - a.Support(X_WA, m)) <= phi + 1e-6);
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 1000);
}

}  // namespace
}  // namespace csim::geometry
