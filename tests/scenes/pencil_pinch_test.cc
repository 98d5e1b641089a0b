// scenes/pencil_pinch.yaml: a rigid hexagonal pencil pinched off-centre between two compliant
// box pads under a square-wave grip. Oracles: each pinched flat meets a pad on a strip of
// uniform pressure, whose torsional friction at full slip is mu N c(theta), c the strip's mean
// distance from the pad's centre, computed here from the geometry alone. The firm grip
// exceeds the threshold m g d cos(theta) / (2 mu c(theta)) and stops the pitch; the loose one
// is below it, and the pencil turns as a rigid body against that friction, integrated here
// independently. With point contact, each pad touches the cylinder at the two ends of its
// face, whose torsional friction mu N a holds the pencil at either grip.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

constexpr double kDegree = kPi / 180.0;

// The scene's figures.
const double kMass = 0.01, kGravity = 9.81;
const double kInertia = 3.0114375e-5;  // about a transverse axis through the centre of mass
const double kOffset = 0.04;           // d: the centre of mass from the grasp, along the pencil
const double kFaceWidth = 0.0035;      // w: a side of the hexagon, the width of a flat
const double kPadHalf = 0.01;          // a: half the side of a pad's square face
const double kFriction = 1.0;
const double kFirm = 2.0, kLoose = 0.25;      // grip per pad [N]
const double kPeriod = 0.5, kFirmTime = 0.35;  // the square wave: duty 0.7, firm first

/// The pencil's moment of inertia about the grasp axis.
double GraspInertia() { return kInertia + kMass * kOffset * kOffset; }

/// Mean distance from a pad's centre over the part of a flat (a strip of width w through the
/// centre, along the pencil at angle theta in the pad's plane) that lies on the pad's square
/// face |x|, |z| <= a: the lever arm of torsional friction under a uniform pressure. Exact
/// along the strip (the antiderivative of sqrt(u^2 + v^2)), midpoint rule across it.
double Lever(double theta) {
  const double c = std::cos(std::abs(theta)), s = std::sin(std::abs(theta));
  const auto integral = [](double u, double v) {
    return 0.5 * (u * std::hypot(u, v) + v * v * std::asinh(u / std::abs(v)));
  };
  const int n = 20;
  double moment = 0.0, length = 0.0;
  for (int k = 0; k < n; ++k) {
    const double v = (-0.5 + (k + 0.5) / n) * kFaceWidth;
    // The point u along the strip, v across it, is (u c - v s, u s + v c) on the face.
    double lo = (v * s - kPadHalf) / c, hi = (v * s + kPadHalf) / c;
    if (s > 0) {
      lo = std::max(lo, (-kPadHalf - v * c) / s);
      hi = std::min(hi, (kPadHalf - v * c) / s);
    }
    if (hi <= lo) continue;
    moment += integral(hi, v) - integral(lo, v);
    length += hi - lo;
  }
  return moment / length;
}

/// The grip per pad below which the pencil at pitch theta turns: the two pads' torsional
/// friction 2 mu N c(theta) against gravity's moment about the grasp axis.
double Threshold(double theta) {
  return kMass * kGravity * kOffset * std::cos(theta) / (2 * kFriction * Lever(theta));
}

/// Pitch gained in `duration` from rest at theta0 by a rigid pencil turning about the grasp
/// axis at the loose grip, I_G theta'' = m g d cos(theta) - 2 mu N c(theta); classical
/// Runge-Kutta at 0.1 ms.
double LooseAdvance(double theta0, double duration) {
  const auto acceleration = [](double theta) {
    return (kMass * kGravity * kOffset * std::cos(theta) - 2 * kFriction * kLoose * Lever(theta)) /
           GraspInertia();
  };
  const double h = 1e-4;
  const long steps = std::lround(duration / h);
  double theta = theta0, omega = 0.0;
  for (long i = 0; i < steps; ++i) {
    const double k1p = omega, k1w = acceleration(theta);
    const double k2p = omega + 0.5 * h * k1w, k2w = acceleration(theta + 0.5 * h * k1p);
    const double k3p = omega + 0.5 * h * k2w, k3w = acceleration(theta + 0.5 * h * k2p);
    const double k4p = omega + h * k3w, k4w = acceleration(theta + h * k3p);
    theta += h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
    omega += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
  }
  return theta - theta0;
}

/// The pencil's axis (its body x) below the horizontal: a rotation about world y [rad].
double Pitch(const sim::Row& row, int pencil) {
  const Eigen::Vector3d axis = BodyRotation(row, pencil).col(0);
  return std::atan2(-axis.z(), axis.x());
}

/// The point of the pencil's axis that starts between the pads' centres.
Eigen::Vector3d GraspPoint(const sim::Row& row, int pencil) {
  const Eigen::Vector3d p = row.body_position.col(pencil);
  return p + BodyRotation(row, pencil) * Eigen::Vector3d(-kOffset, 0, 0);
}

/// The row nearest time t.
const sim::Row& RowAt(const SceneRun& run, double t) {
  const sim::Row* best = &run.rows.front();
  for (const sim::Row& r : run.rows)
    if (std::abs(r.time - t) < std::abs(best->time - t)) best = &r;
  return *best;
}

TEST_CASE("scenes/pencil_pinch.yaml: the firm pinch stops the pencil's rotation, the loose one "
          "lets it turn against the pads' torsional friction mu N c",
          "[scenes][hydroelastic]") {
  const SceneRun run = RunSceneFile("pencil_pinch.yaml");
  CHECK(run.result.max_momentum_error < 1e-6);
  const int pencil = run.Body("pencil");
  const double end = run.rows.back().time;

  // The header's figures: the lever arm and the threshold grip.
  REQUIRE(Lever(0.0) == Approx(5.167e-3).epsilon(1e-3));
  REQUIRE(Lever(30 * kDegree) == Approx(5.939e-3).epsilon(1e-3));
  REQUIRE(Threshold(0.0) == Approx(0.3797).epsilon(1e-3));
  REQUIRE(Threshold(30 * kDegree) == Approx(0.2861).epsilon(1e-3));
  REQUIRE(GraspInertia() == Approx(4.611e-5).epsilon(1e-3));

  // At every pitch reached, the firm grip is above the threshold with a margin of 5 and the
  // loose one below it; the pencil never leaves the pads (one contact surface on each).
  for (const sim::Row& r : run.rows) {
    INFO("t = " << r.time);
    const double pitch = Pitch(r, pencil);
    CHECK(kFirm > 5 * Threshold(pitch));
    CHECK(kLoose < Threshold(pitch));
    if (r.time > 0) CHECK(r.surfaces.size() == 2u);
  }

  int firm_phases = 0, loose_phases = 0;
  for (double start = 0.0; start < end - 1e-9; start += kPeriod) {
    INFO("period starting at " << start << " s");
    // Firm: from 0.1 s in to the phase's end, the pitch holds (SAP's stiction creeps).
    const double held = Pitch(RowAt(run, start + 0.1), pencil);
    double largest_change = 0.0;
    for (const sim::Row& r : run.rows) {
      if (r.time < start + 0.1 - 1e-9 || r.time > start + kFirmTime + 1e-9) continue;
      largest_change = std::max(largest_change, std::abs(Pitch(r, pencil) - held));
    }
    CHECK(largest_change < 0.05 * kDegree);
    ++firm_phases;

    // Loose: the pencil turns steadily, at the rate the torque balance gives it, less the few
    // milliseconds the pads take to let go and the polygons' slightly larger lever.
    const double slack = start + kFirmTime, tight = start + kPeriod;
    if (tight > end + 1e-9) continue;
    const sim::Row& first = RowAt(run, slack);
    const double advance = Pitch(RowAt(run, tight), pencil) - Pitch(first, pencil);
    const double predicted = LooseAdvance(Pitch(first, pencil), tight - slack);
    CHECK(advance > 5 * kDegree);
    CHECK(advance > 0.7 * predicted);
    CHECK(advance < predicted);

    // Steadily down until the next firm phase catches it (within 50 ms), no swinging back,
    // and the pencil's point between the pads sinks by less than a millimetre.
    double previous = Pitch(first, pencil), sink = 0.0;
    const double grasp_z = GraspPoint(first, pencil).z();
    for (const sim::Row& r : run.rows) {
      if (r.time < slack - 1e-9 || r.time > std::min(tight + 0.05, end) + 1e-9) continue;
      const double pitch = Pitch(r, pencil);
      CHECK(pitch > previous - 1e-5 * kDegree);
      previous = pitch;
      sink = std::max(sink, grasp_z - GraspPoint(r, pencil).z());
    }
    CHECK(sink < 1e-3);

    // The scrubbing torque: while it slips (once the pads have let go), each pad's moment
    // about its patch's normal (world y) is mu N c(theta).
    double ratio_sum = 0.0;
    int ratios = 0;
    for (const sim::Row& r : run.rows) {
      if (r.time < slack + 0.04 - 1e-9 || r.time > tight + 1e-9) continue;
      const double lever = Lever(Pitch(r, pencil));
      for (const sim::SurfaceRow& s : r.surfaces) {
        // SurfaceRow's force and moment act on body_b; the pencil's braking moment is -y.
        const double sign = s.body_b == pencil ? 1.0 : -1.0;
        const double normal = std::abs(s.force.y());
        const double braking = -sign * s.moment.y();
        const double ratio = braking / (kFriction * normal * lever);
        INFO("t = " << r.time << ", N = " << normal);
        CHECK(ratio > 0.75);
        CHECK(ratio < 1.25);
        ratio_sum += ratio;
        ++ratios;
      }
    }
    REQUIRE(ratios > 0);
    CHECK(ratio_sum / ratios > 0.95);
    CHECK(ratio_sum / ratios < 1.12);
    ++loose_phases;
  }
  CHECK(firm_phases == 3);
  CHECK(loose_phases == 2);
}

TEST_CASE("scenes/pencil_pinch.yaml with point contact: each pad touches the pencil at the two "
          "ends of its face, whose torsional friction mu N a holds it at either grip",
          "[scenes]") {
  // The pencil's geometry without its hydroelastic block: the pads' boxes meet the cylinder
  // itself, in point contact.
  const SceneRun run = RunSceneFile(
      "pencil_pinch.yaml",
      {"bodies.pencil.geometry[0]={shape: cylinder, radius: 0.0035, length: 0.19, material: wood, "
       "pose: {rpy: [0, 1.5707963267948966, 0]}}"});
  CHECK(run.result.max_momentum_error < 1e-6);
  const int pencil = run.Body("pencil");

  // Two points per pad at x = +-a carry N / 2 each: the pinch holds above m g d / (2 mu a),
  // which the loose grip exceeds.
  const double point_threshold = kMass * kGravity * kOffset / (2 * kFriction * kPadHalf);
  REQUIRE(point_threshold == Approx(0.1962).epsilon(1e-3));
  REQUIRE(kLoose > point_threshold);

  const double pitch0 = Pitch(run.rows.front(), pencil);
  double largest_change = 0.0;
  for (const sim::Row& r : run.rows) {
    INFO("t = " << r.time);
    CHECK(r.surfaces.empty());
    largest_change = std::max(largest_change, std::abs(Pitch(r, pencil) - pitch0));
    if (r.time < 0.01) continue;
    CHECK(r.contacts.size() == 4u);
    for (const sim::ContactRow& c : r.contacts)
      CHECK(std::abs(c.point.x()) == Approx(kPadHalf).margin(1e-6));
  }
  // Held through both loose phases: creep only, against 16 deg turned with the patches.
  CHECK(largest_change < 0.2 * kDegree);
}

}  // namespace
}  // namespace csim::scenes
