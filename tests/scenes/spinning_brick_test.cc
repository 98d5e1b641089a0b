// scenes/spinning_brick.yaml: a free 0.3 x 0.2 x 0.1 m, 1 kg brick in zero gravity spinning
// at 10 rad/s about its intermediate axis (body y), perturbed by 0.01 rad/s about x.
// Oracles: the box's principal inertias, conservation of the world angular momentum and
// of the kinetic energy, and the closed-form solution of Euler's equations (Landau &
// Lifshitz, Mechanics, sec. 37), whose body-y angular velocity changes sign at
// t_n = (2n - 1) K(k) / lambda.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

constexpr double kMass = 1.0, kW1 = 0.01, kW2 = 10.0;

Vector3d PrincipalInertias() {
  const double a = 0.3, b = 0.2, c = 0.1;  // edges along body x, y, z
  return kMass / 12 * Vector3d(b * b + c * c, a * a + c * c, a * a + b * b);
}

struct Invariants {
  double energy_error = 0.0;   // largest |E - E0| / E0
  double momentum_error = 0.0; // largest |L - L0| / |L0|, world frame, vector
  double magnitude_error = 0.0; // largest ||L| - |L0|| / |L0|
  double position_error = 0.0; // largest distance of the centre from its start [m]
  std::vector<double> t, w_body_y;
};

Invariants Measure(const SceneRun& run) {
  const Vector3d I = PrincipalInertias();
  const double e0 = 0.5 * (I.x() * kW1 * kW1 + I.y() * kW2 * kW2);
  const Vector3d L0(I.x() * kW1, I.y() * kW2, 0.0);  // body = world axes at t = 0
  const Vector3d p0 = run.rows.front().body_position.col(0);
  Invariants out;
  for (const sim::Row& row : run.rows) {
    const Matrix3d R = BodyRotation(row, 0);
    const Vector3d w_body = R.transpose() * row.body_angular_velocity.col(0);
    const Vector3d L = R * I.asDiagonal() * w_body;
    const double e = 0.5 * w_body.dot(I.asDiagonal() * w_body);
    out.energy_error = std::max(out.energy_error, std::abs(e - e0) / e0);
    out.momentum_error = std::max(out.momentum_error, (L - L0).norm() / L0.norm());
    out.magnitude_error = std::max(out.magnitude_error, std::abs(L.norm() - L0.norm()) / L0.norm());
    out.position_error = std::max(out.position_error, (row.body_position.col(0) - p0).norm());
    out.t.push_back(row.time);
    out.w_body_y.push_back(w_body.y());
    // The recorder's kinetic energy is the same quantity.
    CHECK(row.kinetic_energy == Approx(e).epsilon(1e-12));
  }
  return out;
}

TEST_CASE("scenes/spinning_brick.yaml: midpoint keeps L and the energy, the centre stays, and "
          "the brick flips when Euler's equations say", "[scenes]") {
  const SceneRun run = RunSceneFile("spinning_brick.yaml");
  const Vector3d I = PrincipalInertias();
  const double I1 = I.x(), I2 = I.y(), I3 = I.z();
  REQUIRE((I1 < I2 && I2 < I3));  // y is the intermediate axis

  const Invariants inv = Measure(run);
  CHECK(inv.energy_error < 1e-5);
  CHECK(inv.momentum_error < 5e-5);
  CHECK(inv.position_error < 1e-12);

  // Euler's equations with w3 = 0 at t = 0 and 2 E I2 > L^2: w2 ~ sn(lambda t + K), zero
  // at lambda t = (2n - 1) K, with the growth rate lambda of the unstable spin and the
  // complementary modulus k' (both from E and L, written for w3(0) = 0).
  const double lambda = kW2 * std::sqrt((I2 - I1) * (I3 - I2) / (I1 * I3));
  const double k_prime = (kW1 / kW2) * std::sqrt((I3 - I1) * I1 / ((I3 - I2) * I2));
  const double K = kPi / (2 * ArithmeticGeometricMean(1.0, k_prime));
  const std::vector<double> flips = ZeroCrossings(inv.t, inv.w_body_y);
  REQUIRE(flips.size() == 2);  // within 6 s: over and back
  CHECK(flips[0] == Approx(K / lambda).margin(0.01));
  CHECK(flips[1] == Approx(3 * K / lambda).margin(0.01));
  // The header's round figures.
  CHECK(lambda == Approx(4.8).margin(0.05));
  CHECK(K / lambda == Approx(1.7).margin(0.01));
  CHECK(3 * K / lambda == Approx(5.1).margin(0.02));
}

TEST_CASE("scenes/spinning_brick.yaml: symplectic Euler keeps |L| and the energy to round-off "
          "with the implicit gyroscopic torque, and gains energy with the explicit one", "[scenes]") {
  // 2 s: through the first flip, where an explicit torque gains most.
  const SceneRun implicit = RunSceneFile(
      "spinning_brick.yaml", {"settings.integrator=symplectic_euler", "settings.duration=2"});
  const Invariants a = Measure(implicit);
  CHECK(a.energy_error < 1e-11);
  CHECK(a.magnitude_error < 1e-11);
  // The orientation, and with it the direction of L in the world, is first order in dt.
  CHECK(a.momentum_error < 10 * 10.0 * 1e-3);
  const SceneRun explicit_torque =
      RunSceneFile("spinning_brick.yaml", {"settings.integrator=symplectic_euler",
                                           "settings.duration=2", "settings.gyroscopic=explicit"});
  const Vector3d I = PrincipalInertias();
  const double e0 = 0.5 * (I.x() * kW1 * kW1 + I.y() * kW2 * kW2);
  CHECK(explicit_torque.rows.back().kinetic_energy > (1 + 1e-3) * e0);
}

}  // namespace
}  // namespace csim::scenes
