// Geometry reading (engine/io/geometry_reader.h): a mesh given inline by its vertices and
// triangles, as model imports emit one, loads as the same mesh from a file would, and its
// mistakes are located at the node at fault; a visual-only mesh file stays a reference.

#include "engine/io/geometry_reader.h"

#include <string>

#include <catch2/catch.hpp>

#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using test::CheckRejectedAt;
using test::OneBody;

/// A unit cube centred on the origin: 8 vertices, 12 triangles, wound inconsistently on
/// purpose (every other triangle inward).
constexpr char kCube[] =
    "vertices: [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.5, 0.5, -0.5], [-0.5, 0.5, -0.5],\n"
    "                   [-0.5, -0.5, 0.5], [0.5, -0.5, 0.5], [0.5, 0.5, 0.5], [-0.5, 0.5, 0.5]],\n"
    "         triangles: [[0, 2, 1], [0, 2, 3], [4, 5, 6], [4, 7, 6], [0, 1, 5], [0, 4, 5],\n"
    "                     [1, 2, 6], [1, 5, 6], [2, 3, 7], [2, 6, 7], [3, 0, 4], [3, 4, 7]]";

TEST_CASE("an inline mesh loads like a mesh file, each triangle turned outward",
          "[geometry_reader]") {
  const std::string cube = std::string(CSIM_SOURCE_DIR) + "/tests/data/unit_cube.obj";
  const LoadedScene inline_mesh = LoadSceneFromText(
      OneBody("    mass: 1\n    geometry:\n      - {shape: mesh, scale: 2,\n         " +
              std::string(kCube) + "}\n"),
      "test.yaml", {});
  const LoadedScene from_file = LoadSceneFromText(
      OneBody("    mass: 1\n    geometry: [{shape: mesh, scale: 2, file: " + cube + "}]\n"),
      "test.yaml", {});
  const geometry::ConvexMesh& mesh = inline_mesh.model.bodies[0].geometry[0].mesh;
  REQUIRE(mesh.vertices.size() == 8);
  REQUIRE(mesh.triangles.size() == 12);
  CHECK(mesh.file.empty());
  CHECK(mesh.vertices[6] == Eigen::Vector3d(1, 1, 1));  // scaled
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Eigen::Vector3d& a = mesh.vertices[t[0]];
    const Eigen::Vector3d n = (mesh.vertices[t[1]] - a).cross(mesh.vertices[t[2]] - a);
    CHECK(n.dot(a) > 0);  // away from the centroid, the origin
  }
  // The same mass properties as the cube read from a file (a 2 m cube of 1 kg).
  CHECK((inline_mesh.model.bodies[0].inertia - from_file.model.bodies[0].inertia).norm() <
        1e-12);
  CHECK(inline_mesh.model.bodies[0].inertia(0, 0) == Approx(2.0 / 3.0));
}

TEST_CASE("inline mesh mistakes are located at their node", "[geometry_reader]") {
  const auto scene = [](const std::string& mesh) {
    return OneBody("    mass: 1\n    geometry:\n      - {shape: mesh, " + mesh + "}\n");
  };
  CheckRejectedAt(scene("vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles: [[0, 1, 3]]"),
                  "3]]", "vertex index 3 is out of range (3 vertices)");
  CheckRejectedAt(scene("vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles: [[0, 1]]"),
                  "[0, 1]]", "a triangle needs 3 vertex indices");
  CheckRejectedAt(scene("vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles: [[0, 1, 2]]"),
                  "[[0, 1, 2]]", "the mesh encloses no volume");
  CheckRejectedAt(scene("vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles: []"), "[]}",
                  "the mesh has no triangles");
  CheckRejectedAt(scene("vertices: [[0, 0, 0]]"), "{shape", "triangles");
  CheckRejectedAt(scene("file: x.obj, vertices: [[0, 0, 0]], triangles: []"), "x.obj",
                  "a mesh takes file or vertices and triangles, not both");
}

TEST_CASE("a visual-only mesh file is a reference the loader does not read",
          "[geometry_reader]") {
  // notched_box.obj is not convex: read as a mesh it would warn, and it would add mass.
  const std::string notched = std::string(CSIM_SOURCE_DIR) + "/tests/data/notched_box.obj";
  const LoadedScene scene = LoadSceneFromText(
      OneBody("    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n    geometry:\n"
              "      - {shape: mesh, file: " + notched + ", scale: [1, 2, 3], collide: false}\n"),
      "test.yaml", {});
  const geometry::Geometry& g = scene.model.bodies[0].geometry.at(0);
  CHECK(g.type == geometry::ShapeType::kMesh);
  CHECK(!g.collide);
  CHECK(g.mesh.file == notched);
  CHECK(g.mesh.scale == Eigen::Vector3d(1, 2, 3));
  CHECK(g.mesh.vertices.empty());
  CHECK(g.mesh.triangles.empty());
  CHECK(scene.warnings.empty());
  // Only that it can be read is checked, at its `file`.
  const auto scene_with = [](const std::string& file) {
    return OneBody("    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n    geometry:\n"
                   "      - {shape: mesh, file: " + file + ", collide: false}\n");
  };
  CheckRejectedAt(scene_with("missing.obj"), "missing.obj", "does not exist or is not a file");
  CheckRejectedAt(scene_with("mesh.ply"), "mesh.ply", "unknown mesh format");
}

}  // namespace
}  // namespace csim::io
