#pragma once
// Helpers of the scene tests (tests/scenes/*_test.cc): each runs a scene file of scenes/
// as committed, in memory, and checks what its header comment says to expect. The
// contact-physics helpers (SceneRun, contact forces on a body, the Delassus estimate) are
// shared with tests/contact_physics.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/io/scene_loader.h"
#include "engine/math/rotation.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"
#include "tests/contact_physics/physics_helpers.h"

namespace csim::scenes {

using contact_physics::SceneRun;

constexpr double kPi = 3.14159265358979323846;

/// Loads scenes/`name` with the `--set` overrides `overrides` (e.g. a shorter
/// settings.duration where the header's claim allows it) and simulates it to the end,
/// keeping every recorded row; REQUIREs a completed run.
inline SceneRun RunSceneFile(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return contact_physics::SimulateLoadedScene(
      io::LoadScene(std::string(CSIM_SOURCE_DIR) + "/scenes/" + name, overrides));
}

/// Total energy of a row: kinetic + potential (gravity and joint springs) [J].
inline double TotalEnergy(const sim::Row& row) { return row.kinetic_energy + row.potential_energy; }

/// Times where x crosses zero (linear interpolation between rows).
inline std::vector<double> ZeroCrossings(const std::vector<double>& t, const std::vector<double>& x) {
  std::vector<double> out;
  for (size_t i = 1; i < x.size(); ++i) {
    if ((x[i - 1] > 0 && x[i] <= 0) || (x[i - 1] < 0 && x[i] >= 0))
      out.push_back(t[i - 1] + (t[i] - t[i - 1]) * x[i - 1] / (x[i - 1] - x[i]));
  }
  return out;
}

/// Arithmetic-geometric mean: K(k) = pi / (2 AGM(1, k')) for the complete elliptic integral
/// of the first kind, and the pendulum's period 2 pi sqrt(L/g) / AGM(1, cos(theta0 / 2)).
inline double ArithmeticGeometricMean(double a, double b) {
  for (int i = 0; i < 60 && std::abs(a - b) > 1e-16 * a; ++i) {
    const double next = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = next;
  }
  return a;
}

/// Rotation of body b in a row (its recorded quaternion).
inline Eigen::Matrix3d BodyRotation(const sim::Row& row, int b) {
  return math::RotationFromQuaternion(row.body_quaternion.col(b));
}

}  // namespace csim::scenes
