// ConvexHullVolume against closed-form volumes: polytopes given by their corners mixed
// with points inside them and on their faces (which must not change the hull), in random
// order and rotated; a sampled sphere between the analytic bounds; flat sets.

#include "engine/geometry/convex_hull.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace csim::geometry {
namespace {

using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

/// `corners` plus `extra` random convex combinations of them (inside or on the hull), and
/// every corner once more, shuffled and rotated by a fixed random rotation.
std::vector<Vector3d> WithInnerPoints(const std::vector<Vector3d>& corners, int extra,
                                      unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vector3d> points = corners;
  points.insert(points.end(), corners.begin(), corners.end());
  for (int k = 0; k < extra; ++k) {
    // Mostly 2 or 3 corners: points on edges and faces, the coplanar cases.
    const int n = 2 + k % 3;
    Vector3d p = Vector3d::Zero();
    double total = 0.0;
    for (int j = 0; j < n; ++j) {
      const double w = u(rng);
      p += w * corners[rng() % corners.size()];
      total += w;
    }
    points.push_back(p / total);
  }
  std::shuffle(points.begin(), points.end(), rng);
  const Eigen::Matrix3d R =
      Eigen::Quaterniond(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5)
          .normalized()
          .toRotationMatrix();
  for (Vector3d& p : points) p = R * p + Vector3d(3, -2, 1);
  return points;
}

TEST_CASE("the hull of a box's corners and inner points is the box", "[convex_hull]") {
  const Vector3d size(2.0, 0.5, 0.1);
  std::vector<Vector3d> corners;
  for (int i = 0; i < 8; ++i)
    corners.push_back(0.5 * Vector3d((i & 1) ? size.x() : -size.x(), (i & 2) ? size.y() : -size.y(),
                                     (i & 4) ? size.z() : -size.z()));
  CHECK(ConvexHullVolume(corners) == Approx(size.prod()).epsilon(1e-12));
  CHECK(ConvexHullVolume(WithInnerPoints(corners, 3000, 1)) == Approx(size.prod()).epsilon(1e-12));
}

TEST_CASE("the hull of an icosahedron and inner points is the icosahedron", "[convex_hull]") {
  // Corners (0, +-1, +-phi) and their cyclic permutations: edge a = 2,
  // V = 5/12 (3 + sqrt 5) a^3.
  const double phi = 0.5 * (1.0 + std::sqrt(5.0));
  std::vector<Vector3d> corners;
  for (double s : {-1.0, 1.0})
    for (double t : {-phi, phi}) {
      corners.emplace_back(0, s, t);
      corners.emplace_back(s, t, 0);
      corners.emplace_back(t, 0, s);
    }
  const double volume = 5.0 / 12.0 * (3.0 + std::sqrt(5.0)) * 8.0;
  CHECK(ConvexHullVolume(corners) == Approx(volume).epsilon(1e-12));
  CHECK(ConvexHullVolume(WithInnerPoints(corners, 5000, 2)) == Approx(volume).epsilon(1e-12));
}

TEST_CASE("the hull of an L-shaped prism cuts off the notch", "[convex_hull]") {
  // The L of [0,3]x[0,1] and [0,1]x[1,3], z in [0,1]: the hull's section is the square
  // [0,3]^2 less the triangle (3,1), (3,3), (1,3): area 7.
  std::vector<Vector3d> corners;
  for (double z : {0.0, 1.0})
    for (const auto& xy : {std::pair{0, 0}, {3, 0}, {3, 1}, {1, 1}, {1, 3}, {0, 3}})
      corners.emplace_back(xy.first, xy.second, z);
  CHECK(ConvexHullVolume(corners) == Approx(7.0).epsilon(1e-12));
}

TEST_CASE("a sampled sphere's hull lies between the inscribed and the sphere's volume",
          "[convex_hull]") {
  // 20000 points on the unit sphere (Fibonacci lattice, spacing about 0.025). The hull's
  // faces are the points' spherical Delaunay triangles, whose circles hold no other point,
  // so each circle's angular radius rho is below 0.05 and its plane lies cos(rho) from the
  // centre: the hull holds the ball of radius cos(0.05), V in (4/3 pi cos^3(0.05), 4/3 pi).
  const int n = 20000;
  std::vector<Vector3d> points;
  for (int i = 0; i < n; ++i) {
    const double z = 1.0 - (2.0 * i + 1.0) / n;
    const double r = std::sqrt(1.0 - z * z);
    const double a = i * kPi * (3.0 - std::sqrt(5.0));
    points.emplace_back(r * std::cos(a), r * std::sin(a), z);
  }
  const double volume = ConvexHullVolume(points);
  CHECK(volume < 4.0 / 3.0 * kPi);
  CHECK(volume > 4.0 / 3.0 * kPi * std::pow(std::cos(0.05), 3));
}

TEST_CASE("points in one plane or fewer than four have no hull volume", "[convex_hull]") {
  CHECK(ConvexHullVolume({}) == 0.0);
  CHECK(ConvexHullVolume({Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(0, 1, 0)}) == 0.0);
  CHECK(ConvexHullVolume({Vector3d(0, 0, 1), Vector3d(1, 0, 1), Vector3d(0, 1, 1),
                          Vector3d(1, 1, 1), Vector3d(0.5, 0.2, 1)}) == 0.0);
  CHECK(ConvexHullVolume({Vector3d(0, 0, 0), Vector3d(1, 1, 1), Vector3d(2, 2, 2),
                          Vector3d(3, 3, 3)}) == 0.0);
}

}  // namespace
}  // namespace csim::geometry
