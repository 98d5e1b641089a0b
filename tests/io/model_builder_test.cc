// Model building (engine/io/model_builder.h) and mesh reading (engine/geometry/mesh_file.h):
// degenerate and extreme inputs that must be rejected, each with its message and exact
// location.
// Scenes are written inline ("test.yaml"); mesh files are written to the current directory
// and removed at the end of each test.

#include "engine/io/model_builder.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using test::CheckRejected;
using test::OneBody;

/// A file or directory in the current directory, removed when the test ends.
struct TempPath {
  explicit TempPath(std::string p) : path(std::move(p)) {}
  TempPath(const TempPath&) = delete;
  ~TempPath() { std::filesystem::remove_all(path); }
  std::string path;
};

/// Writes `bytes` to `path` (binary) and returns the path's owner.
TempPath WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return TempPath(path);
}

/// A body of mass 1 whose only geometry is the mesh `file` (line 5 is the geometry).
std::string MeshBody(const std::string& file) {
  return OneBody("    mass: 1\n    geometry: [{shape: mesh, file: " + file + "}]\n");
}

/// A binary STL: 80-byte header, the triangle count `count`, then `records` 50-byte
/// records (all zero), whatever the count says.
std::string BinaryStl(const std::string& header, uint32_t count, int records) {
  std::string bytes = header + std::string(80 - header.size(), ' ');
  bytes.append(reinterpret_cast<const char*>(&count), 4);
  bytes.append(50 * static_cast<size_t>(records), '\0');
  return bytes;
}

// ---- Halfspaces and the mass rules -----------------------------------------------------------

TEST_CASE("a halfspace on a moving body with mass alone is reported as a halfspace",
          "[model_builder]") {
  // The halfspace rule speaks before the mass rules ("with mass alone the inertia is
  // unknown"), which would hide the real mistake.
  CheckRejected(OneBody("    mass: 0.5\n    geometry: [{shape: halfspace}]\n"), 5, 24,
                "body 'b' can move: a halfspace is allowed only on the world");
  // On a welded body the halfspace is fine, but it has no volume to take the inertia from.
  CheckRejected(OneBody("    mass: 0.5\n    geometry: [{shape: halfspace}]\n"
                        "joints: [{name: weld, type: fixed, parent: world, child: b}]\n"),
                4, 11, "inertia is unknown; add collision geometry with a volume (a halfspace");
}

TEST_CASE("a shape whose volume underflows or overflows is named at its geometry",
          "[model_builder]") {
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: 1e-300}]\n"), 5, 16,
                "body 'b': geometry 0 (sphere) has no volume");
  CheckRejected(OneBody("    density: 1\n    geometry:\n      - {shape: sphere, radius: 1}\n"
                        "      - {shape: box, size: [1e-200, 1e-200, 1e-200]}\n"),
                7, 9, "geometry 1 (box) has no volume");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: sphere, radius: 1e120}]\n"), 5, 16,
                "geometry 0 (sphere) is too large: its volume overflows");
  const std::string cube = std::string(CSIM_SOURCE_DIR) + "/tests/data/unit_cube.obj";
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: mesh, file: " + cube +
                        ", scale: 1e-120}]\n"),
                5, 16, "geometry 0 (mesh '" + cube + "') has no volume");
  CheckRejected(OneBody("    mass: 1\n    geometry: [{shape: mesh, file: " + cube +
                        ", scale: 1e200}]\n"),
                5, 16, "geometry 0 (mesh '" + cube + "') is too large: its volume overflows");
  // With an explicit inertia the volume is not needed, and a tiny sphere may collide.
  const LoadedScene s = LoadSceneFromText(
      OneBody("    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n"
              "    geometry: [{shape: sphere, radius: 1e-300}]\n"),
      "test.yaml", {});
  CHECK(s.model.bodies[0].mass == 1);
}

// ---- Mesh files --------------------------------------------------------------------------

TEST_CASE("a flat or collinear mesh encloses no volume", "[model_builder]") {
  // A square off the origin: the signed tetrahedra of an open surface do not cancel (they
  // add up to 1/3 here), so their sum alone would give it a volume.
  const TempPath flat = WriteFile("model_builder_test_flat.obj",
                                  "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nf 1 2 3 4\n");
  CheckRejected(MeshBody(flat.path), 5, 36,
                "mesh file 'model_builder_test_flat.obj' encloses no volume");
  const TempPath line = WriteFile("model_builder_test_line.obj",
                                  "v 0 0 0\nv 1 1 1\nv 2 2 2\nv 3 3 3\nf 1 2 3\nf 1 3 4\n");
  CheckRejected(MeshBody(line.path), 5, 36,
                "mesh file 'model_builder_test_line.obj' encloses no volume");
  // Unused vertices do not count: this square's one off-plane vertex is in no face.
  const TempPath flat_plus = WriteFile(
      "model_builder_test_flat_plus.obj",
      "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nv 0 0 5\nf 1 2 3 4\n");
  CheckRejected(MeshBody(flat_plus.path), 5, 36, "encloses no volume");
}

TEST_CASE("an OBJ with unused vertices is the solid its faces bound", "[model_builder]") {
  // The unit cube's faces, and a far vertex no face uses: counted, it would pull the
  // centroid that orients the triangles out of the cube and turn faces inside out.
  const TempPath file = WriteFile("model_builder_test_unused.obj",
                                  "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                                  "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nv 100 0 0\n"
                                  "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\n"
                                  "f 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n");
  const LoadedScene s = LoadSceneFromText(MeshBody(file.path), "test.yaml", {});
  const multibody::Body& b = s.model.bodies[0];
  CHECK(b.geometry[0].mesh.vertices.size() == 8);
  CHECK((b.com - Eigen::Vector3d::Constant(0.5)).norm() < 1e-12);
  CHECK((b.inertia - Eigen::Matrix3d::Identity() / 6.0).norm() < 1e-12);
}

TEST_CASE("a mesh path that is a directory is reported with the system's reason",
          "[model_builder]") {
  const TempPath dir("model_builder_test_dir.obj");
  std::filesystem::create_directory(dir.path);
  CheckRejected(MeshBody(dir.path), 5, 36,
                "cannot read mesh file 'model_builder_test_dir.obj': Is a directory");
}

TEST_CASE("a truncated binary STL is reported with its expected and actual sizes",
          "[model_builder]") {
  const TempPath short_file =
      WriteFile("model_builder_test_short.stl", BinaryStl("binary", 12, 2));
  CheckRejected(MeshBody(short_file.path), 5, 36,
                "binary STL is truncated: expected 12 triangles = 684 bytes, file has 184 bytes");
  // A damaged count (2^31) is compared with the file's size, never allocated for.
  const TempPath huge = WriteFile("model_builder_test_huge.stl", BinaryStl("", 1u << 31, 1));
  CheckRejected(MeshBody(huge.path), 5, 36,
                "expected 2147483648 triangles = 107374182484 bytes, file has 134 bytes");
  // A binary header may start with "solid"; the NUL bytes still say it is binary.
  const TempPath solid = WriteFile("model_builder_test_solid.stl", BinaryStl("solid x", 3, 1));
  CheckRejected(MeshBody(solid.path), 5, 36,
                "binary STL is truncated: expected 3 triangles = 234 bytes, file has 134 bytes");
  CheckRejected(MeshBody(WriteFile("model_builder_test_tiny.stl", "abc").path), 5, 36,
                "binary STL is truncated: 3 bytes, less than its 84-byte header");
}

// ---- Names -------------------------------------------------------------------------------

TEST_CASE("names must be usable in --set paths", "[model_builder]") {
  const std::string body = "    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n";
  CheckRejected("csim: 1\nbodies:\n  - name: ''\n" + body, 3, 11, "body name must not be empty");
  CheckRejected("csim: 1\nbodies:\n  - name: a.b\n" + body, 3, 11,
                "body name 'a.b' must not contain '.' (names are used in --set paths)");
  CheckRejected("csim: 1\nbodies:\n  - name: a[0]\n" + body, 3, 11, "must not contain '['");
  CheckRejected("csim: 1\nbodies:\n  - name: a]\n" + body, 3, 11, "must not contain ']'");
  CheckRejected("csim: 1\nbodies:\n  - name: a=b\n" + body, 3, 11, "must not contain '='");
  CheckRejected("csim: 1\nbodies:\n  - name: a/b\n" + body, 3, 11, "must not contain '/'");
  // yaml-cpp keeps an escaped NUL inside the scalar; the message shows it escaped.
  CheckRejected("csim: 1\nbodies:\n  - name: \"a\\0b\"\n" + body, 3, 11,
                "body name 'a\\x00b' must not contain a control character");
  CheckRejected("csim: 1\nbodies:\n  - name: \"a\\tb\"\n" + body, 3, 11,
                "must not contain a control character");
  const std::string a = "csim: 1\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n";
  CheckRejected(a + "joints: [{name: '', type: fixed, parent: world, child: a}]\n", 4, 17,
                "joint name must not be empty");
  CheckRejected(a + "joints: [{name: j.1, type: fixed, parent: world, child: a}]\n", 4, 17,
                "joint name 'j.1' must not contain '.'");
  CheckRejected("csim: 1\nmaterials: {'': {}}\n", 2, 13, "material name must not be empty");
  CheckRejected("csim: 1\nmaterials: {st.eel: {}}\n", 2, 13,
                "material name 'st.eel' must not contain '.'");
  // The world stays reserved; other punctuation and spaces are fine.
  CheckRejected("csim: 1\nbodies:\n  - name: world\n" + body, 3, 11, "'world' is reserved");
  const LoadedScene s = LoadSceneFromText(
      "csim: 1\nmaterials: {soft-rubber: {}}\nbodies:\n  - name: link_1 (left)\n" + body,
      "test.yaml", {});
  CHECK(s.model.bodies[0].name == "link_1 (left)");
}

// ---- Initial state -----------------------------------------------------------------------

TEST_CASE("an initial velocity whose kinetic energy overflows is rejected", "[model_builder]") {
  const std::string ball = "csim: 1\nbodies:\n  - name: ball\n    mass: 1\n"
                           "    geometry: [{shape: sphere, radius: 0.1}]\n";
  CheckRejected(ball + "    velocity: {linear: [1e160, 0, 0]}\n", 6, 15,
                "body 'ball': initial velocity 1e+160 m/s: its kinetic energy overflows");
  CheckRejected(ball + "    velocity: {angular: [0, 0, 1e160]}\n", 6, 15,
                "body 'ball': initial velocity 1e+160 rad/s: its kinetic energy overflows");
  // Finite however large, so allowed: 1/2 m v^2 = 5e299 J.
  CHECK(LoadSceneFromText(ball + "    velocity: {linear: [1e150, 0, 0]}\n", "test.yaml", {})
            .model.num_bodies() == 1);
  // Each energy is finite (8.45e307 J), the sum of three is not: the third body is blamed.
  const std::string fast = "    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n"
                           "    velocity: {linear: [1.3e154, 0, 0]}\n";
  CheckRejected("csim: 1\nbodies:\n  - name: a\n" + fast + "  - name: b\n" + fast +
                    "  - name: c\n" + fast,
                14, 15, "body 'c': initial velocity 1.3e+154 m/s");
  // A joint's initial.v, located at `v`.
  CheckRejected("csim: 1\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
                "joints:\n  - {name: j, type: revolute, parent: world, child: a, "
                "initial: {v: [1e160]}}\n",
                5, 69, "joint 'j': initial velocity [1e+160]: its kinetic energy overflows");
}

TEST_CASE("an initial state whose potential energy overflows is rejected", "[model_builder]") {
  // Accepted, a slider starting at q = -1e308 on a spring would run, fail at step 1 and
  // leave a file with no row at all (the recorder refuses a state whose energy overflows).
  const std::string slider =
      "csim: 1\nsettings: {gravity: [0, 0, 0]}\nbodies:\n"
      "  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
      "joints:\n  - {name: s, type: prismatic, parent: world, child: a, axis: [1, 0, 0], "
      "spring: {stiffness: [100]}, initial: {q: [";
  CheckRejected(slider + "-1e308]}}\n", 6, 115,
                "joint 's': its spring is stretched by -1e+308 at the start: the spring's "
                "energy overflows (joints[0].initial.q)");
  // 1/2 k x^2 = 5e301 J: finite however large, so allowed.
  CHECK(LoadSceneFromText(slider + "-1e150]}}\n", "test.yaml", {}).model.num_bodies() == 1);

  // A free body 1e308 m up: m g z overflows under gravity, located at its pose.
  const std::string high = "csim: 1\nbodies:\n  - name: ball\n    mass: 1\n"
                           "    geometry: [{shape: sphere, radius: 0.1}]\n"
                           "    pose: {position: [0, 0, 1e308]}\n";
  CheckRejected(high, 6, 11,
                "body 'ball': the centre of mass of body 'ball' starts at [0, 0, 1e+308] m: its "
                "potential energy in gravity overflows");
  // Without gravity its potential energy is zero: allowed. So the check uses the scene's
  // gravity, not the default.
  CHECK(LoadSceneFromText(high + "settings: {gravity: [0, 0, 0]}\n", "test.yaml", {})
            .model.num_bodies() == 1);
  // Two bodies at 1e307 m, each term finite (9.81e307 J), their sum not: the second blamed.
  const std::string pair = "csim: 1\nbodies:\n"
                           "  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0], "
                           "pose: {position: [0, 0, 1e307]}}\n"
                           "  - {name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0], "
                           "pose: {position: [0, 0, 1e307]}}\n";
  CheckRejected(pair, 4, 59, "body 'b': the centre of mass of body 'b' starts at");
}

TEST_CASE("prescribed motion whose kinetic energy overflows is rejected", "[model_builder]") {
  // No initial velocity to blame: the message is about the initial state, at `bodies`.
  CheckRejected("csim: 1\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
                "joints:\n  - {name: j, type: revolute, parent: world, child: a, "
                "prescribed: {type: sine, amplitude: [1e200], frequency: 1e200}}\n",
                3, 3, "the kinetic energy of the initial state (prescribed motion at t = 0 "
                "included) overflows");
}

}  // namespace
}  // namespace csim::io
