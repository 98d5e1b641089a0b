#pragma once
// Helpers shared by the contact-physics oracles (tests/contact_physics/*_test.cc): run a
// YAML scene to the end keeping every row, read contact forces on a given body, and the
// test's own (independent) Delassus estimate of docs/design/sap-problem.md §4 for a free rigid
// body.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"

namespace csim::contact_physics {

/// The rows of a whole run and the loaded scene.
struct SceneRun {
  io::LoadedScene scene;
  std::vector<sim::Row> rows;
  sim::RunResult result;
  int Body(const std::string& name) const {
    const int b = scene.model.FindBody(name);
    REQUIRE(b >= 0);
    return b;
  }
};

/// Simulates the loaded `scene` to settings.duration, keeping every recorded row; REQUIREs a
/// completed run.
inline SceneRun SimulateLoadedScene(io::LoadedScene scene) {
  SceneRun run;
  run.scene = std::move(scene);
  sim::MemoryRecorder recorder;
  sim::RunInfo info;
  info.model = &run.scene.model;
  info.settings = &run.scene.settings;
  run.result = sim::Simulate(run.scene.model, run.scene.settings, info, recorder, {});
  INFO(run.result.reason);
  REQUIRE(run.result.status == sim::RunStatus::kCompleted);
  run.rows = recorder.rows();
  return run;
}

/// Loads `yaml` and simulates it to settings.duration; REQUIREs a completed run.
inline SceneRun RunScene(const std::string& yaml) {
  return SimulateLoadedScene(io::LoadSceneFromText(yaml, "test.yaml", {}));
}

/// Replaces every occurrence of `key` in `text` by `value` (scene templates).
inline std::string Fill(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

/// Prints "what: measured vs analytic" when CSIM_PHYSICS_VERBOSE is set (for reports;
/// the checks themselves never depend on it).
inline void Report(const std::string& what, double measured, double analytic) {
  if (std::getenv("CSIM_PHYSICS_VERBOSE") == nullptr) return;
  std::printf("  %-60s %.6e vs %.6e (rel %.1e)\n", what.c_str(), measured, analytic,
              analytic != 0 ? std::abs(measured / analytic - 1) : std::abs(measured));
}

inline std::string Num(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", x);
  return buffer;
}

/// Contact force [N] of `c` acting on body b (world), whichever side of the pair b is on
/// (ContactRow::force is the force on body_b; A receives its opposite, docs/design/conventions.md
/// §2).
inline Eigen::Vector3d ForceOn(const sim::ContactRow& c, int b) {
  if (c.body_b == b) return c.force;
  if (c.body_a == b) return -c.force;
  return Eigen::Vector3d::Zero();
}

/// Total contact force on body b in a row.
inline Eigen::Vector3d TotalForceOn(const sim::Row& row, int b) {
  Eigen::Vector3d f = Eigen::Vector3d::Zero();
  for (const sim::ContactRow& c : row.contacts) f += ForceOn(c, b);
  return f;
}

inline Eigen::Matrix3d Skew(const Eigen::Vector3d& d) {
  Eigen::Matrix3d S;
  S << 0, -d.z(), d.y(), d.z(), 0, -d.x(), -d.y(), d.x(), 0;
  return S;
}

/// Drake's Delassus estimate (docs/design/sap-problem.md §4) for a contact at offset d = p_C -
/// p_com from the centre of mass of a free body of mass m whose world inertia about the com has the
/// diagonal I_diag, against a static object: the free joint's velocities are
/// (omega, v_com), so the point velocity is v_com - [d]x omega, J_W = [-[d]x, I3], and
/// W = J diag(M)^-1 J^T = I3/m + [d]x diag(I)^-1 [d]x^T; w = ||W||_F / 3. The contact frame
/// rotation does not change the Frobenius norm.
inline double FreeBodyDelassus(double m, const Eigen::Vector3d& I_diag, const Eigen::Vector3d& d) {
  const Eigen::Matrix3d S = Skew(d);
  const Eigen::Matrix3d W =
      Eigen::Matrix3d::Identity() / m + S * I_diag.cwiseInverse().asDiagonal() * S.transpose();
  return W.norm() / 3.0;
}

/// Least-squares slope of log(errors) against log(dts).
inline double FitOrder(const std::vector<double>& dts, const std::vector<double>& errors) {
  double mx = 0, my = 0;
  const double n = static_cast<double>(dts.size());
  for (size_t i = 0; i < dts.size(); ++i) mx += std::log(dts[i]), my += std::log(errors[i]);
  mx /= n, my /= n;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < dts.size(); ++i) {
    sxy += (std::log(dts[i]) - mx) * (std::log(errors[i]) - my);
    sxx += (std::log(dts[i]) - mx) * (std::log(dts[i]) - mx);
  }
  return sxy / sxx;
}

}  // namespace csim::contact_physics
