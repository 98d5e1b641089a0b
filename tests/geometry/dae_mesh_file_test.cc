// COLLADA meshes through ReadMeshFile (dae_mesh_file.h): the hand-written cubes of
// tests/data/meshes (one <triangles> list, a node tree with a <matrix>, millimetres, Y_UP)
// give their corners and their volume; errors are one-line reasons; the Barrett WAM's visual
// meshes of Debian's dart-doc read, and lie where their collision STLs lie.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engine/geometry/mesh_convexity.h"
#include "engine/geometry/mesh_file.h"
#include "tests/support/fetched_models.h"

namespace csim::geometry {
namespace {

using Eigen::Vector3d;

const std::string kMeshes = std::string(CSIM_SOURCE_DIR) + "/tests/data/meshes/";

ConvexMesh Read(const std::string& path, const Vector3d& scale = Vector3d::Ones()) {
  ConvexMesh mesh;
  std::string error;
  const bool ok = ReadMeshFile(path, scale, &mesh, &error);
  INFO(error);
  REQUIRE(ok);
  return mesh;
}

/// The reason ReadMeshFile gives for the COLLADA document `text`, written to a scratch file.
std::string ErrorFor(const std::string& text) {
  const std::string path = "dae_mesh_file_test_scratch.dae";
  std::ofstream(path) << text;
  ConvexMesh mesh;
  std::string error;
  const bool ok = ReadMeshFile(path, Vector3d::Ones(), &mesh, &error);
  std::remove(path.c_str());
  CHECK_FALSE(ok);
  return error;
}

struct Box {
  Vector3d min = Vector3d::Constant(INFINITY);
  Vector3d max = Vector3d::Constant(-INFINITY);
};

Box BoundingBox(const ConvexMesh& mesh) {
  Box box;
  for (const Vector3d& p : mesh.vertices) {
    box.min = box.min.cwiseMin(p);
    box.max = box.max.cwiseMax(p);
  }
  return box;
}

/// The mesh is the box [lo, hi], 8 corners and 12 triangles enclosing its volume, up to
/// assimp's single-precision unit scale.
void CheckBox(const ConvexMesh& mesh, const Vector3d& lo, const Vector3d& hi) {
  CHECK(mesh.vertices.size() == 8);  // a corner's copies (one per face normal) merged
  CHECK(mesh.triangles.size() == 12);
  for (const Vector3d& p : mesh.vertices) {
    INFO(p.transpose());
    for (int k = 0; k < 3; ++k)
      CHECK((std::abs(p[k] - lo[k]) < 1e-6 || std::abs(p[k] - hi[k]) < 1e-6));
  }
  const Box box = BoundingBox(mesh);
  CHECK((box.min - lo).norm() < 1e-6);
  CHECK((box.max - hi).norm() < 1e-6);
  const EnclosedVolume enclosed = CalcEnclosedVolume(mesh);
  CHECK(enclosed.closed());
  CHECK(enclosed.pieces == 1);
  CHECK(enclosed.volume == Approx((hi - lo).prod()).epsilon(1e-6));
}

TEST_CASE("a COLLADA cube reads as its corners and encloses its volume", "[mesh_file]") {
  CheckBox(Read(kMeshes + "unit_cube.dae"), Vector3d::Zero(), Vector3d::Ones());
  // The per-axis scale of OBJ and STL applies as well.
  CheckBox(Read(kMeshes + "unit_cube.dae", Vector3d(2, 3, 4)), Vector3d::Zero(),
           Vector3d(2, 3, 4));
}

TEST_CASE("COLLADA up_axis is ignored: Z_UP and Y_UP files read the same", "[mesh_file]") {
  // assimp's default would turn the Z_UP cube to Y_UP: [0, 1] x [0, 1] x [-1, 0].
  CheckBox(Read(kMeshes + "unit_cube.dae"), Vector3d::Zero(), Vector3d::Ones());
  CheckBox(Read(kMeshes + "unit_cube_y_up.dae"), Vector3d::Zero(), Vector3d::Ones());
}

TEST_CASE("COLLADA unit meter is honoured for vertices and node transforms", "[mesh_file]") {
  // Millimetres: vertices 0 to 1000 and a node moved by 1000 along x.
  CheckBox(Read(kMeshes + "unit_cube_mm.dae"), Vector3d(1, 0, 0), Vector3d(2, 1, 1));
}

TEST_CASE("COLLADA node transforms carry every mesh of the scene graph", "[mesh_file]") {
  // Two meshes of three faces each, joined at their shared corners into one closed cube.
  CheckBox(Read(kMeshes + "unit_cube_nodes.dae"), Vector3d(9, 21, 30), Vector3d(10, 22, 31));
}

TEST_CASE("COLLADA files that cannot be used give one-line reasons", "[mesh_file]") {
  ConvexMesh mesh;
  std::string error;
  CHECK_FALSE(ReadMeshFile("/nonexistent/cube.dae", Vector3d::Ones(), &mesh, &error));
  CHECK_THAT(error, Catch::StartsWith("cannot read mesh file '/nonexistent/cube.dae': "));

  const std::string garbage = ErrorFor("solid cube\nthis is not XML\n");
  CHECK_THAT(garbage, Catch::StartsWith("mesh file 'dae_mesh_file_test_scratch.dae': not a "
                                        "COLLADA file assimp can read"));
  CHECK(garbage.find('\n') == std::string::npos);

  const std::string empty = ErrorFor(
      "<?xml version=\"1.0\"?>\n"
      "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
      "  <asset><unit meter=\"1\"/><up_axis>Z_UP</up_axis></asset>\n"
      "  <library_visual_scenes><visual_scene id=\"s\"><node id=\"n\"/></visual_scene>"
      "</library_visual_scenes>\n"
      "  <scene><instance_visual_scene url=\"#s\"/></scene>\n"
      "</COLLADA>\n");
  CHECK(empty == "mesh file 'dae_mesh_file_test_scratch.dae' has no triangles");
}

TEST_CASE("the WAM's visual COLLADA meshes lie where its collision STLs lie", "[mesh_file]") {
  // A sanity check of a real exporter's file (Y_UP, metres): a visual mesh is not its
  // collision mesh, so their boxes agree only to a few centimetres (3.1 cm at most, wam3).
  const std::string dir = csim::testing::DartUrdfDir() + "/wam/meshes/wam/";
  for (const char* link : {"wam_base", "wam1", "wam2", "wam3", "wam4", "wam5", "wam6", "wam7"}) {
    INFO(link);
    const Box visual = BoundingBox(Read(dir + link + ".dae"));
    const Box collision = BoundingBox(Read(dir + link + "_collision.STL"));
    INFO("visual " << visual.min.transpose() << " to " << visual.max.transpose());
    INFO("collision " << collision.min.transpose() << " to " << collision.max.transpose());
    CHECK((visual.min - collision.min).cwiseAbs().maxCoeff() < 0.04);
    CHECK((visual.max - collision.max).cwiseAbs().maxCoeff() < 0.04);
  }
}

}  // namespace
}  // namespace csim::geometry
