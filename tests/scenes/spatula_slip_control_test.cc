// scenes/spatula_slip_control.yaml and scenes/spatula_point_contact.yaml: a spatula held by
// its handle between two pads under a square-wave grip. Oracles: with contact patches, the
// firm grip stops the pitch and the loose one lets it slip slower than a free pivot would;
// with point contact, both contacts lie on the grasp axis, have no moment about it, and the
// spatula is a pendulum on a frictionless pivot, integrated here independently.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "engine/math/rotation.h"
#include "tests/scenes/scene_run.h"
#include "tests/support/build_variant.h"

namespace csim::scenes {
namespace {

constexpr double kDegree = kPi / 180.0;

// The spatula of both scenes (Drake's spatula.sdf mass properties), in its body frame.
const double kMass = 0.068, kGravity = 9.81;
const Eigen::Vector3d kCom(0, 0.115649, 0.044471);
const Eigen::Vector3d kHandleCentre(0, 0.135, 0.052);
const double kHandleRoll = 2.0;  // the handle cylinder's pose: rpy (2, 0, 0), axis its z

Eigen::Matrix3d SpatulaInertia() {
  Eigen::Matrix3d I;
  I << 0.21095403274864072, -4.264472553729218e-08, 0.0,  //
      -4.264472553729218e-08, 0.03710803288660893, -0.06982169738550205,  //
      0.0, -0.06982169738550205, 0.18858265237650276;
  return I;
}

Eigen::Matrix3d InitialRotation() {
  return math::RotationFromRpy(Eigen::Vector3d(-0.4, 0, 1.5707963267948966));
}

Eigen::Vector3d HandleAxisInBody() {
  return Eigen::Vector3d(0, -std::sin(kHandleRoll), std::cos(kHandleRoll));
}

Eigen::Matrix3d BodyRotation(const sim::Row& row, int body) {
  const Eigen::Vector4d q = row.body_quaternion.col(body);
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

/// The handle axis' angle below the horizontal, about world y [rad].
double Pitch(const sim::Row& row, int body) {
  const Eigen::Vector3d a = BodyRotation(row, body) * HandleAxisInBody();
  return std::atan2(-a.z(), a.x());
}

Eigen::Vector3d HandleCentre(const sim::Row& row, int body) {
  return row.body_position.col(body) + BodyRotation(row, body) * kHandleCentre;
}

/// The row nearest time t.
const sim::Row& RowAt(const SceneRun& run, double t) {
  const sim::Row* best = &run.rows.front();
  for (const sim::Row& r : run.rows)
    if (std::abs(r.time - t) < std::abs(best->time - t)) best = &r;
  return *best;
}

/// The scenes' 12 s, or the first period and the catch after it in the sanitized program.
std::vector<std::string> Overrides() {
  std::vector<std::string> o = {"settings.output.every=10"};
  if (testing::UnderAddressSanitizer()) o.push_back("settings.duration=6.5");
  return o;
}

TEST_CASE("scenes/spatula_slip_control.yaml: the firm grip stops the pitch, the loose one lets "
          "it slip slower than a free pivot, 60 to 170 polygons",
          "[scenes][hydroelastic]") {
  const SceneRun run = RunSceneFile("spatula_slip_control.yaml", Overrides());
  CHECK(run.result.max_momentum_error < 1e-6);
  const int spatula = run.Body("spatula");
  const double end = run.rows.back().time;

  // A free pivot from rest: I phi'' = m g c_x, c the centre of mass from the grasp (the
  // handle's centre), I about the grasp axis (world y).
  const Eigen::Matrix3d R = InitialRotation();
  const Eigen::Vector3d c = R * (kCom - kHandleCentre);
  const double I = (R * SpatulaInertia() * R.transpose())(1, 1) +
                   kMass * (c.x() * c.x() + c.z() * c.z());
  const double soft = 1.5;  // s of 1 N per period
  const double free_pivot = 0.5 * kMass * kGravity * c.x() / I * soft * soft;
  REQUIRE(free_pivot / kDegree == Approx(4.23).epsilon(0.01));  // the header's figure

  int firm_phases = 0, soft_phases = 0;
  for (double start = 0.0; start + 4.5 <= end + 1e-9; start += 6.0) {
    INFO("period starting at " << start << " s");
    // Firm (16 N): from 0.5 s in to the phase's end, stiction.
    double largest_change = 0.0, contacts = 0.0;
    int rows = 0;
    const double held = Pitch(RowAt(run, start + 0.5), spatula);
    for (const sim::Row& r : run.rows) {
      if (r.time < start + 0.5 || r.time > start + 4.5) continue;
      largest_change = std::max(largest_change, std::abs(Pitch(r, spatula) - held));
      contacts += static_cast<double>(r.contacts.size());
      ++rows;
    }
    CHECK(largest_change < 0.02 * kDegree);
    CHECK(contacts / rows > 140);
    CHECK(contacts / rows < 200);
    ++firm_phases;

    // Loose (1 N): slips down steadily, braked by the patches' torsional friction, until the
    // next firm phase catches it (within 0.5 s of its start).
    if (start + 6.0 > end + 1e-9) continue;
    const double caught = std::min(start + 6.5, end);
    const sim::Row& first = RowAt(run, start + 4.5);
    const sim::Row& last = RowAt(run, caught);
    const double advance = Pitch(last, spatula) - Pitch(first, spatula);
    CHECK(advance > 0.5 * kDegree);
    CHECK(advance < 0.5 * free_pivot);
    double previous = Pitch(first, spatula), slipping_contacts = 0.0;
    int slipping_rows = 0;
    for (const sim::Row& r : run.rows) {
      if (r.time < start + 4.5 || r.time > caught) continue;
      const double pitch = Pitch(r, spatula);
      CHECK(pitch > previous - 1e-5 * kDegree);  // steadily down, no swinging back
      previous = pitch;
      if (r.time > start + 4.8 && r.time < start + 6.0) {
        slipping_contacts += static_cast<double>(r.contacts.size());
        ++slipping_rows;
      }
    }
    CHECK(slipping_contacts / slipping_rows > 40);
    CHECK(slipping_contacts / slipping_rows < 100);
    // Still in the grasp: the handle's centre sinks by millimetres at most.
    CHECK(HandleCentre(first, spatula).z() - HandleCentre(last, spatula).z() < 5e-3);
    ++soft_phases;
  }
  CHECK(firm_phases >= 1);
  CHECK(soft_phases >= 1);
}

TEST_CASE("scenes/spatula_point_contact.yaml: with point contact the spatula swings as a "
          "pendulum on a frictionless pivot at any grip",
          "[scenes]") {
  const SceneRun run = RunSceneFile("spatula_point_contact.yaml", Overrides());
  CHECK(run.result.max_momentum_error < 1e-6);
  const int spatula = run.Body("spatula");

  const Eigen::Matrix3d R = InitialRotation();
  const Eigen::Vector3d c = R * (kCom - kHandleCentre);
  const double I = (R * SpatulaInertia() * R.transpose())(1, 1) +
                   kMass * (c.x() * c.x() + c.z() * c.z());
  REQUIRE(I == Approx(0.2110).epsilon(1e-3));  // the header's figures
  REQUIRE(c.x() == Approx(0.02076).epsilon(1e-3));
  const double phi0 = Pitch(run.rows.front(), spatula);
  REQUIRE(phi0 / kDegree == Approx(1.673).epsilon(1e-3));

  // phi'' = m g (c_x cos phi + c_z sin phi) / I, phi the rotation about y from the start;
  // classical Runge-Kutta at 0.1 ms.
  const auto acceleration = [&](double phi) {
    return kMass * kGravity * (c.x() * std::cos(phi) + c.z() * std::sin(phi)) / I;
  };
  double phi = 0.0, omega = 0.0, t = 0.0;
  const double h = 1e-4;
  double worst = 0.0;
  for (const sim::Row& r : run.rows) {
    while (t < r.time - 0.5 * h) {
      const double k1p = omega, k1w = acceleration(phi);
      const double k2p = omega + 0.5 * h * k1w, k2w = acceleration(phi + 0.5 * h * k1p);
      const double k3p = omega + 0.5 * h * k2w, k3w = acceleration(phi + 0.5 * h * k2p);
      const double k4p = omega + h * k3w, k4w = acceleration(phi + h * k3p);
      phi += h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
      omega += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
      t += h;
    }
    worst = std::max(worst, std::abs(Pitch(r, spatula) - (phi0 + phi)));
  }
  CHECK(worst < 0.2 * kDegree);
  if (run.rows.back().time > 11.9) CHECK(Pitch(run.rows.back(), spatula) > 170 * kDegree);
  const double sink = HandleCentre(run.rows.front(), spatula).z() -
                      HandleCentre(run.rows.back(), spatula).z();
  CHECK(sink < 1e-3);
}

}  // namespace
}  // namespace csim::scenes
