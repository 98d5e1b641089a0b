// CalcEnclosedVolume and CheckMeshConvexity against closed-form volumes: the unit cube of
// tests/data (mixed winding, convex), a notched box and an L-shaped prism of tests/data, a
// triangle soup, a cube with a face missing and two separate cubes.

#include "engine/geometry/mesh_convexity.h"

#include <catch2/catch.hpp>

#include <string>

#include "engine/geometry/mesh_file.h"

namespace csim::geometry {
namespace {

using Eigen::Vector3d;

ConvexMesh ReadFixture(const std::string& name, const Vector3d& scale) {
  ConvexMesh mesh;
  std::string error;
  REQUIRE(ReadMeshFile(std::string(CSIM_SOURCE_DIR) + "/tests/data/" + name, scale, &mesh,
                       &error));
  return mesh;
}

/// The unit cube's 12 triangles, `offset` added to every corner, each triangle with its
/// own copies of its corners (as an STL stores them) when `soup`.
ConvexMesh Cube(const Vector3d& offset, bool soup) {
  const int quads[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                           {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  std::vector<Vector3d> corners;
  for (int i = 0; i < 8; ++i) {
    const int k = i % 4;  // counter-clockwise about +z: (0,0), (1,0), (1,1), (0,1)
    corners.push_back(offset + Vector3d(k == 1 || k == 2, k >= 2, i >= 4));
  }
  ConvexMesh mesh;
  if (!soup) mesh.vertices = corners;
  for (const auto& q : quads)
    for (const Eigen::Vector3i& t :
         {Eigen::Vector3i(q[0], q[1], q[2]), Eigen::Vector3i(q[0], q[2], q[3])}) {
      if (!soup) {
        mesh.triangles.push_back(t);
        continue;
      }
      const int first = static_cast<int>(mesh.vertices.size());
      for (int k = 0; k < 3; ++k) mesh.vertices.push_back(corners[t[k]]);
      mesh.triangles.emplace_back(first, first + 1, first + 2);
    }
  return mesh;
}

TEST_CASE("the unit cube encloses its volume whatever its winding, and is convex",
          "[mesh_convexity]") {
  // The file winds its faces both ways; the loader re-orients them about the centroid.
  const ConvexMesh mesh = ReadFixture("unit_cube.obj", Vector3d(2.0, 1.0, 0.5));
  const MeshConvexity c = CheckMeshConvexity(mesh);
  CHECK(c.enclosed.closed());
  CHECK(c.enclosed.pieces == 1);
  CHECK(c.enclosed.volume == Approx(1.0).epsilon(1e-12));
  CHECK(c.hull_volume == Approx(1.0).epsilon(1e-12));
  CHECK(c.convex());
  // Turning one triangle over changes nothing: the winding is propagated, not read.
  ConvexMesh flipped = mesh;
  std::swap(flipped.triangles[3][1], flipped.triangles[3][2]);
  CHECK(CalcEnclosedVolume(flipped).volume == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("a triangle soup is joined by vertex position", "[mesh_convexity]") {
  const EnclosedVolume e = CalcEnclosedVolume(Cube(Vector3d(5, 6, 7), true));
  CHECK(e.open_edges == 0);
  CHECK(e.pieces == 1);
  CHECK(e.volume == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("a notched box is not convex, and its mass properties are its own", "[mesh_convexity]") {
  // tests/data/notched_box.obj: volume 3.75, hull 3.875, scaled by 0.1.
  const MeshConvexity c =
      CheckMeshConvexity(ReadFixture("notched_box.obj", Vector3d(0.1, 0.1, 0.1)));
  CHECK(c.enclosed.closed());
  CHECK(c.enclosed.volume == Approx(3.75e-3).epsilon(1e-12));
  CHECK(c.hull_volume == Approx(3.875e-3).epsilon(1e-12));
  CHECK(c.hull_ratio() == Approx(3.875 / 3.75).epsilon(1e-12));
  CHECK_FALSE(c.convex());
  // Every triangle faces away from the vertex centroid (7/6, 7/6, 1/2) (the notch's walls
  // at 1.5 too), so the loader's re-orientation keeps the mesh's own volume.
  CHECK(c.mass_volume == Approx(3.75e-3).epsilon(1e-12));
}

TEST_CASE("an L-shaped prism is not convex, and its mass properties are neither",
          "[mesh_convexity]") {
  // tests/data/l_prism.obj: volume 5, hull 7.
  const MeshConvexity c = CheckMeshConvexity(ReadFixture("l_prism.obj", Vector3d::Ones()));
  CHECK(c.enclosed.closed());
  CHECK(c.enclosed.volume == Approx(5.0).epsilon(1e-12));
  CHECK(c.hull_volume == Approx(7.0).epsilon(1e-12));
  CHECK(c.hull_ratio() == Approx(1.4).epsilon(1e-12));
  CHECK_FALSE(c.convex());
  // The vertex centroid is (4/3, 4/3, 1/2): the notch's floor y = 1 and wall x = 1 (area 2
  // each, outward normals +y and +x) face it, and the loader turns them over. Each then
  // adds -(1/3) area n.a instead of +(1/3) area n.a to the volume about the origin, with
  // n.a = 1: 5 - 2 (2/3 + 2/3) = 7/3.
  CHECK(c.mass_volume == Approx(7.0 / 3.0).epsilon(1e-12));
}

TEST_CASE("a cube with a face missing is not closed", "[mesh_convexity]") {
  ConvexMesh open = Cube(Vector3d::Zero(), false);
  open.triangles.resize(10);  // drops the two triangles of the face x = 0
  const MeshConvexity c = CheckMeshConvexity(open);
  CHECK(c.enclosed.open_edges == 4);
  CHECK_FALSE(c.enclosed.closed());
  CHECK(c.enclosed.volume == 0.0);
  CHECK(c.hull_volume == Approx(1.0).epsilon(1e-12));
  CHECK_FALSE(c.convex());
}

TEST_CASE("two separate cubes are closed but not convex", "[mesh_convexity]") {
  ConvexMesh two = Cube(Vector3d::Zero(), false);
  const ConvexMesh second = Cube(Vector3d(3, 0, 0), false);
  for (const Vector3d& v : second.vertices) two.vertices.push_back(v);
  for (const Eigen::Vector3i& t : second.triangles)
    two.triangles.push_back(t + Eigen::Vector3i::Constant(8));
  const MeshConvexity c = CheckMeshConvexity(two);
  CHECK(c.enclosed.closed());
  CHECK(c.enclosed.pieces == 2);
  CHECK(c.enclosed.volume == Approx(2.0).epsilon(1e-12));
  CHECK(c.hull_volume == Approx(4.0).epsilon(1e-12));  // the box [0,4] x [0,1] x [0,1]
  CHECK_FALSE(c.convex());
}

}  // namespace
}  // namespace csim::geometry
