// The scene format's hydroelastic keys (docs/scene-format.md "Hydroelastic contact"): what
// loads, and each rejected input at the node at fault.

#include <cstdio>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "engine/common/input_error.h"
#include "engine/geometry/shape.h"
#include "engine/hydroelastic/hydroelastic_geometry.h"
#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using geometry::Compliance;
using test::CheckRejectedAt;

// A scene with the materials `materials` and one free body whose geometry list is `geometry`.
std::string Scene(const std::string& materials, const std::string& geometry) {
  return "csim: 1\nmaterials:\n" + materials + "bodies:\n  - name: b\n    mass: 1\n" +
         "    geometry:\n" + geometry;
}

const std::string kPad = "  pad: {hydroelastic_modulus: 1.0e5, friction: 1.0}\n";

TEST_CASE("hydroelastic blocks load into the geometry and the modulus into the material",
          "[hydroelastic_keys]") {
  const LoadedScene scene = LoadSceneFromText(
      Scene(kPad,
            "      - {shape: sphere, radius: 0.05, material: pad,\n"
            "         hydroelastic: {compliance: compliant, resolution_hint: 0.02, margin: 1e-4}}\n"
            "      - {shape: box, size: [0.1, 0.1, 0.1], hydroelastic: {compliance: rigid}}\n"
            "      - {shape: capsule, radius: 0.01, length: 0.1}\n") +
          "world:\n  geometry:\n"
          "    - {shape: halfspace, material: pad,\n"
          "       hydroelastic: {compliance: compliant, slab_thickness: 0.1}}\n"
          "settings: {contact_surface: triangle}\n",
      "test.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.materials.size() == 1);
  CHECK(model.materials[0].hydroelastic_modulus == 1.0e5);
  const auto& g = model.bodies.back().geometry;
  REQUIRE(g.size() == 3);
  CHECK(g[0].hydroelastic.compliance == Compliance::kCompliant);
  CHECK(g[0].hydroelastic.resolution_hint == 0.02);
  CHECK(g[0].hydroelastic.margin == 1e-4);
  CHECK(g[1].hydroelastic.compliance == Compliance::kRigid);
  CHECK(g[2].hydroelastic.compliance == Compliance::kNone);
  REQUIRE(model.world_geometry.size() == 1);
  CHECK(model.world_geometry[0].hydroelastic.slab_thickness == 0.1);
  CHECK(scene.settings.contact_surface == contact::ContactSurfaceKind::kTriangle);
}

TEST_CASE("bad hydroelastic input is rejected at the node at fault", "[hydroelastic_keys]") {
  const std::string sphere = "      - {shape: sphere, radius: 0.05, material: pad, ";
  CheckRejectedAt(Scene("  pad: {hydroelastic_modulus: -1.0e5}\n",
                        "      - {shape: sphere, radius: 0.05}\n"),
                  "-1.0e5", "must be positive");
  CheckRejectedAt(Scene(kPad, sphere + "hydroelastic: {compliance: soft}}\n"), "soft",
                  "unknown compliance 'soft' (expected compliant or rigid)");
  CheckRejectedAt(Scene(kPad, sphere + "hydroelastic: {compliance: rigid}}\n"),
                  "{compliance: rigid}", "a hydroelastic sphere needs resolution_hint");
  CheckRejectedAt(Scene(kPad, sphere + "hydroelastic: {compliance: rigid, resolution_hint: 0}}\n"),
                  "0}}", "must be positive");
  CheckRejectedAt(
      Scene(kPad, "      - {shape: box, size: [1, 1, 1], hydroelastic: {compliance: rigid, "
                  "resolution_hint: 0.1}}\n"),
      "0.1}}", "resolution_hint does not apply to a box");
  CheckRejectedAt(Scene(kPad, sphere + "hydroelastic: {compliance: compliant, "
                                       "resolution_hint: 0.1, margin: -0.001}}\n"),
                  "-0.001", "must be positive");
  CheckRejectedAt(Scene(kPad, sphere + "hydroelastic: {compliance: rigid, "
                                       "resolution_hint: 0.1, margin: 0.001}}\n"),
                  "0.001}}", "margin applies to compliant geometry only");
  CheckRejectedAt(Scene(kPad, sphere + "hydroelastic: {compliance: compliant, "
                                       "resolution_hint: 0.1, slab_thickness: 0.1}}\n"),
                  "0.1}}", "slab_thickness applies to a compliant halfspace only");
  // A compliant geometry's material must give E; the built-in default has none.
  CheckRejectedAt(Scene("  steel: {friction: 0.3}\n",
                        "      - {shape: sphere, radius: 0.05, material: steel, hydroelastic: "
                        "{compliance: compliant, resolution_hint: 0.1}}\n"),
                  "compliant,", "needs hydroelastic_modulus [Pa] in its material 'steel'");
  CheckRejectedAt(Scene("  steel: {friction: 0.3}\n",
                        "      - {shape: sphere, radius: 0.05, hydroelastic: "
                        "{compliance: compliant, resolution_hint: 0.1}}\n"),
                  "compliant,", "compliant geometry needs a material with hydroelastic_modulus");
  CheckRejectedAt("csim: 1\nmaterials:\n" + kPad +
                      "world:\n  geometry:\n    - {shape: halfspace, material: pad, "
                      "hydroelastic: {compliance: compliant}}\n",
                  "{compliance: compliant}", "a compliant halfspace needs slab_thickness");
  CheckRejectedAt(Scene(kPad, sphere + "collide: false, hydroelastic: {compliance: rigid, "
                                       "resolution_hint: 0.1}}\n"),
                  "{compliance: rigid", "a visual-only geometry (collide: false)");
  CheckRejectedAt(Scene(kPad, sphere + "hydroelastic: {compliance: rigid, resolution: 0.1}}\n"),
                  "resolution:", "resolution");
  CheckRejectedAt("csim: 1\nsettings: {contact_surface: polygons}\n", "polygons",
                  "unknown contact surface 'polygons' (expected polygon or triangle)");
}

// A unit cube as five tetrahedra (every vertex on the boundary), legacy VTK.
const char* kCubeVtk =
    "# vtk DataFile Version 3.0\ncube\nASCII\nDATASET UNSTRUCTURED_GRID\n"
    "POINTS 8 double\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"
    "CELLS 5 25\n4 0 1 2 4\n4 3 1 2 7\n4 5 1 4 7\n4 6 2 4 7\n4 1 2 4 7\n"
    "CELL_TYPES 5\n10\n10\n10\n10\n10\n";

TEST_CASE("a compliant mesh from a tetrahedral volume file carries its extent field",
          "[hydroelastic_keys]") {
  const std::string vtk = "hydroelastic_keys_cube.vtk";
  std::ofstream(vtk) << kCubeVtk;
  const LoadedScene scene = LoadSceneFromText(
      Scene(kPad, "      - {shape: mesh, volume: " + vtk + ", scale: 0.1, material: pad,\n"
                  "         hydroelastic: {compliance: compliant}}\n"),
      "test.yaml", {});
  const geometry::Geometry& g = scene.model.bodies.back().geometry[0];
  REQUIRE(g.hydroelastic_mesh != nullptr);
  const hydroelastic::PressureField& field = g.hydroelastic_mesh->field;
  // The five all-boundary tets are split at their centroids, the only interior vertices.
  CHECK(field.mesh.tets.size() == 20);
  double largest = 0.0, total = 0.0;
  for (double p : field.pressure) largest = std::max(largest, p);
  for (int t = 0; t < static_cast<int>(field.mesh.tets.size()); ++t)
    total += hydroelastic::TetVolume(field.mesh, t);
  CHECK(largest == Approx(1.0e5).epsilon(1e-12));     // E at the deepest vertex
  CHECK(total == Approx(1e-3).epsilon(1e-12));         // the scaled cube's volume
  CHECK(g.mesh.triangles.size() == 12);                // its boundary, for point contact
  // The volume is for a compliant mesh only.
  CheckRejectedAt(Scene(kPad, "      - {shape: mesh, volume: " + vtk + "}\n"), vtk,
                  "volume (a tetrahedral mesh) is for a compliant hydroelastic mesh");
  std::remove(vtk.c_str());
}

TEST_CASE("a compliant sphere meshed coarser than a quarter of its diameter is warned about",
          "[hydroelastic_keys]") {
  const auto warned = [](const std::string& hint) {
    const LoadedScene scene = LoadSceneFromText(
        Scene(kPad, "      - {shape: sphere, radius: 0.05, material: pad, hydroelastic: "
                    "{compliance: compliant, resolution_hint: " + hint + "}}\n"),
        "test.yaml", {});
    for (const std::string& w : scene.warnings)
      if (w.find("its compliant mesh is coarse") != std::string::npos) return true;
    return false;
  };
  CHECK(warned("0.05"));   // 32 tets: surface edges of about pi R / 4
  CHECK(!warned("0.01"));  // 512 tets
}

}  // namespace
}  // namespace csim::io
