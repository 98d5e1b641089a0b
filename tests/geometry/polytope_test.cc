// MakeMeshPolytope against independent oracles: a cube given as a triangle soup (every
// triangle with its own copies of its vertices, as STL files store them) becomes its 8
// corners and 6 counter-clockwise quadrilaterals; a finely tessellated convex mesh keeps
// every vertex and triangle its geometry defines, with the merge a brute-force search
// finds (each vertex to the first kept one within the tolerance).

#include "engine/geometry/polytope.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <vector>

namespace csim::geometry {
namespace {

using Eigen::Vector3d;
using Eigen::Vector3i;

// A triangle soup: triangle t uses vertices 3t, 3t + 1, 3t + 2.
ConvexMesh Soup(const std::vector<Vector3d>& corners, const std::vector<Vector3i>& triangles) {
  ConvexMesh mesh;
  for (const Vector3i& t : triangles) {
    const int first = static_cast<int>(mesh.vertices.size());
    for (int k = 0; k < 3; ++k) mesh.vertices.push_back(corners[t[k]]);
    mesh.triangles.emplace_back(first, first + 1, first + 2);
  }
  return mesh;
}

// Checks that every face is convex and counter-clockwise about its outward normal, with
// all its vertices in its plane, and that every vertex lies behind every face's plane.
void CheckConvexFaces(const Polytope& p) {
  for (const PolytopeFace& f : p.faces) {
    REQUIRE(f.vertices.size() >= 3);
    const Vector3d& a = p.vertices[f.vertices[0]];
    const size_t n = f.vertices.size();
    for (size_t i = 0; i < n; ++i) {
      const Vector3d& u = p.vertices[f.vertices[i]];
      const Vector3d& v = p.vertices[f.vertices[(i + 1) % n]];
      const Vector3d& w = p.vertices[f.vertices[(i + 2) % n]];
      CHECK(std::abs(f.normal.dot(u - a)) < 1e-10);  // the cube's jitter: 1e-12
      CHECK((v - u).cross(w - v).dot(f.normal) > 0.0);  // a left turn about the normal
    }
    for (const Vector3d& x : p.vertices) CHECK(f.normal.dot(x - a) < 1e-10);
  }
}

TEST_CASE("a cube's triangle soup becomes 8 corners and 6 quadrilaterals", "[geometry]") {
  std::vector<Vector3d> corners;
  for (int i = 0; i < 8; ++i)
    corners.emplace_back(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5);
  // Two outward triangles per face, corner bit k set = + side along axis k.
  const std::vector<Vector3i> triangles = {
      {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},  // z = -, z = +
      {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},  // y = -, y = +
      {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}}; // x = -, x = +
  ConvexMesh mesh = Soup(corners, triangles);
  // Copies of a corner that differ in the last bits (STL files written by other tools)
  // still merge: the tolerance is 1e-9 of the mesh's size.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> jitter(-1e-12, 1e-12);
  for (Vector3d& v : mesh.vertices) v += Vector3d(jitter(rng), jitter(rng), jitter(rng));
  const Polytope p = MakeMeshPolytope(mesh);
  CHECK(p.vertices.size() == 8);
  REQUIRE(p.faces.size() == 6);
  std::map<std::pair<int, int>, int> normals;  // (axis, sign) -> faces
  for (const PolytopeFace& f : p.faces) {
    CHECK(f.vertices.size() == 4);
    int axis = 0;
    f.normal.cwiseAbs().maxCoeff(&axis);
    CHECK(std::abs(f.normal[axis]) == Approx(1.0).epsilon(1e-12));
    ++normals[{axis, f.normal[axis] > 0 ? 1 : -1}];
  }
  CHECK(normals.size() == 6);
  CheckConvexFaces(p);
}

TEST_CASE("a fine convex mesh keeps every vertex and triangle, the merge is a brute force's",
          "[geometry]") {
  // An icosphere of radius 1 subdivided three times: 642 vertices, 1280 triangles, no two
  // coplanar. As a soup it has 3840 vertices, each corner stored 5 or 6 times.
  const double g = (1 + std::sqrt(5.0)) / 2;
  std::vector<Vector3d> corners = {{-1, g, 0}, {1, g, 0},  {-1, -g, 0}, {1, -g, 0},
                                   {0, -1, g}, {0, 1, g},  {0, -1, -g}, {0, 1, -g},
                                   {g, 0, -1}, {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
  for (Vector3d& c : corners) c.normalize();
  std::vector<Vector3i> triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                     {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                     {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                     {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < 3; ++level) {
    std::map<std::pair<int, int>, int> midpoint;
    const auto middle = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      const auto it = midpoint.find(key);
      if (it != midpoint.end()) return it->second;
      corners.push_back((corners[a] + corners[b]).normalized());
      return midpoint[key] = static_cast<int>(corners.size()) - 1;
    };
    std::vector<Vector3i> finer;
    for (const Vector3i& t : triangles) {
      const int ab = middle(t[0], t[1]), bc = middle(t[1], t[2]), ca = middle(t[2], t[0]);
      finer.insert(finer.end(), {{t[0], ab, ca}, {t[1], bc, ab}, {t[2], ca, bc}, {ab, bc, ca}});
    }
    triangles = finer;
  }
  REQUIRE(corners.size() == 642);
  REQUIRE(triangles.size() == 1280);
  ConvexMesh mesh = Soup(corners, triangles);
  // Copies of a corner jittered by up to 2.5e-10 per axis stay within the 1e-9 tolerance of
  // each other (2 sqrt(3) 2.5e-10 = 8.7e-10), while straddling the boundaries of the 1e-9
  // cells the merge hashes them into.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(-2.5e-10, 2.5e-10);
  for (Vector3d& v : mesh.vertices) v += Vector3d(jitter(rng), jitter(rng), jitter(rng));
  const Polytope p = MakeMeshPolytope(mesh);
  // Brute force: each soup vertex goes to the first kept vertex within the tolerance
  // (1e-9 of the largest |v|, here 1), else is kept.
  std::vector<Vector3d> kept;
  for (const Vector3d& v : mesh.vertices) {
    bool found = false;
    for (const Vector3d& k : kept) found = found || (k - v).norm() <= 1e-9;
    if (!found) kept.push_back(v);
  }
  REQUIRE(kept.size() == 642);
  REQUIRE(p.vertices.size() == kept.size());
  for (size_t i = 0; i < kept.size(); ++i) CHECK(p.vertices[i] == kept[i]);  // same order
  CHECK(p.faces.size() == 1280);
  for (const PolytopeFace& f : p.faces) CHECK(f.vertices.size() == 3);
  CheckConvexFaces(p);
}

}  // namespace
}  // namespace csim::geometry
