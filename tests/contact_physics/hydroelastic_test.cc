// Hydroelastic contact through the whole step (docs/design/hydroelastic.md §5): closed forms
// of the pressure field model that the polygons-as-point-contacts mapping must reproduce.
//  - A rigid plate on a compliant slab (modulus E, slab thickness H): F = E A d / H, so the
//    plate rests at d = m g H / (E A); its side faces are cut along the slab's gradient and
//    carry nothing.
//  - Torsional friction of a soft box on a rigid floor: its contact surface at depth d is
//    the rectangle |x| <= a', |y| <= b' (a' = a - d, b' = b - d) at uniform pressure, cut by
//    its medial-axis tets into four triangles from the centre, so the polygons' centroids
//    sit at 2 b' / 3 and 2 a' / 3 from the centre and the sliding moment of the discrete
//    model is mu N (a' + b') / 3 (point contact at its four corners would give
//    mu N sqrt(a^2 + b^2)). Below it the box holds; above it, it spins up.

#include <catch2/catch.hpp>

#include <cmath>

#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

const char* kPlateOnSlab = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0}
materials:
  slab: {hydroelastic_modulus: 1.0e5, dissipation_time: 0.05, friction: 0.5}
world:
  geometry:
    - {shape: halfspace, material: slab,
       hydroelastic: {compliance: compliant, slab_thickness: 0.1}}
bodies:
  - name: plate
    mass: 10.0
    geometry: [{shape: box, size: [0.2, 0.2, 0.1], material: slab,
                hydroelastic: {compliance: rigid}}]
    pose: {position: [0, 0, 0.048]}
)";

TEST_CASE("hydroelastic: a rigid plate rests on a compliant slab at d = m g H / (E A)",
          "[contact-physics][hydroelastic]") {
  const SceneRun run = SimulateLoadedScene(io::LoadSceneFromText(kPlateOnSlab, "t.yaml", {}));
  const double m = 10.0, g = 9.81, H = 0.1, E = 1e5, A = 0.04;
  const double d_rest = m * g * H / (E * A);  // 2.4525 mm
  const int plate = run.Body("plate");
  const sim::Row& last = run.rows.back();
  const double d = 0.05 - last.body_position(2, plate);
  Report("plate depth", d, d_rest);
  CHECK(d == Approx(d_rest).epsilon(1e-6));
  CHECK(last.body_position.col(plate).head<2>().norm() < 1e-9);  // no drift
  REQUIRE(last.surfaces.size() == 1);
  CHECK(last.surfaces[0].force.z() == Approx(m * g).epsilon(1e-6));
  CHECK(last.surfaces[0].area == Approx(A).epsilon(1e-9));  // the bottom face alone
}

// A soft box (as scenes/soft_box_on_floor.yaml, without dissipation) under a torque about
// the vertical, from rest at its equilibrium depth.
const char* kTwistedBox = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: DURATION}
materials:
  foam: {hydroelastic_modulus: 1.0e5, friction: 0.5}
world:
  geometry:
    - {shape: halfspace, hydroelastic: {compliance: rigid}}
bodies:
  - name: box
    mass: 2.0
    geometry:
      - {shape: box, size: [0.2, 0.1, 0.06], material: foam,
         hydroelastic: {compliance: compliant}}
    pose: {position: [0, 0, Z0]}
loads:
  - {body: box, torque: [0, 0, TORQUE]}
)";

TEST_CASE("hydroelastic: a flat patch's torsional friction is mu N (a' + b') / 3 for the "
          "box's four polygons", "[contact-physics][hydroelastic]") {
  const double E = 1e5, a = 0.1, b = 0.05, h = 0.03, m = 2.0, g = 9.81, mu = 0.5;
  const double N = m * g;
  const auto force = [&](double d) { return E / h * 4 * (a - d) * (b - d) * d; };
  double lo = 0.0, hi = 0.01;
  for (int i = 0; i < 200; ++i) (force(0.5 * (lo + hi)) < N ? lo : hi) = 0.5 * (lo + hi);
  const double d = 0.5 * (lo + hi);
  const double M = mu * N * ((a - d) + (b - d)) / 3;  // 0.489 N m
  const double I_z = m * (0.2 * 0.2 + 0.1 * 0.1) / 12;
  const auto spin = [&](double torque, double duration) {
    std::string text = Fill(kTwistedBox, "DURATION", Num(duration));
    text = Fill(text, "Z0", Num(h - d));
    text = Fill(text, "TORQUE", Num(torque));
    const SceneRun run = SimulateLoadedScene(io::LoadSceneFromText(text, "t.yaml", {}));
    return run.rows.back().body_angular_velocity(2, run.Body("box"));
  };
  SECTION("below the sliding moment the box holds (regularized stiction creeps)") {
    const double omega = spin(0.9 * M, 0.2);
    Report("spin rate held at 0.9 M", omega, 0.0);
    CHECK(std::abs(omega) < 1e-3);
  }
  SECTION("above it, the box spins up at (T - M) / I") {
    const double T = 1.2 * M, t = 0.1;
    const double omega = spin(T, t);
    Report("spin rate at 1.2 M", omega, (T - M) / I_z * t);
    // A loose bound: the polygons' SAP friction reaches its full value after a few steps of
    // regularized stiction, and gliding lifts the sliding faces a little.
    CHECK(omega == Approx((T - M) / I_z * t).epsilon(0.1));
    // Point contact at the corners would still hold it: mu N sqrt(a^2 + b^2) = 1.10 N m.
    CHECK(T < mu * N * std::sqrt(a * a + b * b));
  }
}

}  // namespace
}  // namespace csim::contact_physics
