// FindSceneWarnings through the loader (LoadedScene::warnings): each warning's location
// in the scene and its text, with numbers known in closed form: a sphere of radius 50
// 49.95 m deep in the ground, the notched box of tests/data (hull 3.875, mesh 3.75), the
// unit cube (convex: no warning), a mesh used twice, a mesh on the world, and a heap of
// overlapping balls whose warnings are capped.

#include "engine/io/scene_warnings.h"

#include <cstdio>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "engine/io/scene_loader.h"

namespace csim::io {
namespace {

std::string Data(const std::string& name) {
  return std::string(CSIM_SOURCE_DIR) + "/tests/data/" + name;
}

std::vector<std::string> WarningsOf(const std::string& text) {
  return LoadSceneFromText(text, "test.yaml", {}).warnings;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("a sphere of radius 50 in the ground is warned about at its geometry",
          "[scene_warnings]") {
  const auto warnings = WarningsOf(
      "csim: 1\n"
      "world: {geometry: [{shape: halfspace}]}\n"
      "bodies:\n"
      "  - name: ball\n"
      "    mass: 1\n"
      "    geometry: [{shape: sphere, radius: 50}]\n"
      "    pose: {position: [0, 0, 0.05]}\n");
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(warnings[0].rfind("test.yaml:6:16: ", 0) == 0);
  CHECK(Contains(warnings[0], "world geometry 0 (halfspace) and body 'ball' geometry 0 (sphere) "
                              "overlap by 49.95 m at t = 0: "));
  CHECK(Contains(warnings[0], "% of the least width of the thinner one (the sphere, 100 m; "
                              "csim warns above 10%)"));
}

TEST_CASE("a ball resting 1e-5 m into the ground gets no warning", "[scene_warnings]") {
  CHECK(WarningsOf("csim: 1\nworld: {geometry: [{shape: halfspace}]}\n"
                   "bodies: [{name: ball, mass: 1, geometry: [{shape: sphere, radius: 0.05}],\n"
                   "          pose: {position: [0, 0, 0.04999]}}]\n")
            .empty());
}

TEST_CASE("a non-convex mesh is warned about with its hull-to-mesh volume ratio",
          "[scene_warnings]") {
  const std::string file = Data("notched_box.obj");
  const auto warnings = WarningsOf("csim: 1\nbodies:\n  - name: block\n    mass: 1\n"
                                   "    geometry: [{shape: mesh, file: " + file +
                                   ", scale: 0.1}]\n");
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(warnings[0].rfind("test.yaml:5:16: body 'block' geometry 0: mesh '" + file +
                              "' is not convex: its convex hull has 1.033 times its volume "
                              "(0.003875 vs 0.00375 m^3); csim computes no convex hull: it "
                              "treats the mesh as convex, so contacts see the convex hull of "
                              "its vertices; mass properties taken from it are the mesh's own",
                          0) == 0);
}

TEST_CASE("a mesh whose mass properties are neither its own nor its hull's says so",
          "[scene_warnings]") {
  // tests/data/l_prism.obj: volume 5, hull 7, the loader's triangles 7/3 (mesh_convexity_test).
  const auto warnings = WarningsOf("csim: 1\nbodies:\n  - name: ell\n    mass: 1\n"
                                   "    geometry: [{shape: mesh, file: " + Data("l_prism.obj") +
                                   "}]\n");
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(Contains(warnings[0], "its convex hull has 1.4 times its volume (7 vs 5 m^3)"));
  CHECK(Contains(warnings[0], "a volume of 2.333 m^3 (neither the mesh's nor the hull's)"));
}

TEST_CASE("a convex mesh gets no warning", "[scene_warnings]") {
  CHECK(WarningsOf("csim: 1\nbodies:\n  - name: cube\n    mass: 1\n"
                   "    geometry: [{shape: mesh, file: " + Data("unit_cube.obj") + "}]\n")
            .empty());
}

TEST_CASE("a mesh file is warned about once, on the world without mass properties",
          "[scene_warnings]") {
  const std::string file = Data("notched_box.obj");
  const auto warnings = WarningsOf(
      "csim: 1\n"
      "world:\n"
      "  geometry: [{shape: mesh, file: " + file + ", pose: {position: [0, 0, -5]}}]\n"
      "bodies:\n"
      "  - {name: a, mass: 1, geometry: [{shape: mesh, file: " + file + "}],\n"
      "     pose: {position: [10, 0, 0]}}\n"
      "  - {name: b, mass: 1, geometry: [{shape: mesh, file: " + file + ", scale: 2}],\n"
      "     pose: {position: [20, 0, 0]}}\n");
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(warnings[0].rfind("test.yaml:3:14: world geometry 0: mesh '" + file + "' is not convex",
                          0) == 0);
  CHECK_FALSE(Contains(warnings[0], "mass properties"));
  CHECK(Contains(warnings[0], "(2 more geometries use this file)"));
}

TEST_CASE("an open mesh is warned about as not closed", "[scene_warnings]") {
  // The unit cube without its face z = 1.
  const std::string path = "scene_warnings_test_open.obj";
  {
    std::ofstream out(path);
    out << "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
           "f 1 4 3 2\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
  }
  const auto warnings = WarningsOf("csim: 1\nbodies:\n  - name: box\n    mass: 1\n"
                                   "    geometry: [{shape: mesh, file: " + path + "}]\n");
  std::remove(path.c_str());
  REQUIRE(warnings.size() == 1);
  INFO(warnings[0]);
  CHECK(Contains(warnings[0], "mesh '" + path + "' is not closed (4 edges do not join exactly "
                              "two triangles), so whether it is convex is undefined"));
  CHECK(Contains(warnings[0], "contacts see the convex hull of its vertices (1 m^3)"));
  // Turned outward about (0.5, 0.5, 0.5), the faces x = 1 and y = 1 each add 1/3 about the
  // origin, the faces through it nothing.
  CHECK(Contains(warnings[0], "a volume of 0.6667 m^3"));
}

TEST_CASE("deep overlaps are listed up to the cap, then counted", "[scene_warnings]") {
  // 6 balls at one spot: 15 pairs, each 0.2 m deep (the diameter).
  std::string text = "csim: 1\nbodies:\n";
  for (int i = 0; i < 6; ++i)
    text += "  - {name: b" + std::to_string(i) +
            ", mass: 1, geometry: [{shape: sphere, radius: 0.1}], pose: {position: [0, 0, 1]}}\n";
  const auto warnings = WarningsOf(text);
  REQUIRE(warnings.size() == kMaxOverlapWarnings + 1);
  CHECK(Contains(warnings[0], "body 'b0' geometry 0 (sphere) and body 'b1' geometry 0 (sphere) "
                              "overlap by 0.2 m at t = 0: 100% of the least width"));
  CHECK(warnings.back() == "test.yaml:3:3: 5 more pairs overlap deeply at t = 0");
}

}  // namespace
}  // namespace csim::io
