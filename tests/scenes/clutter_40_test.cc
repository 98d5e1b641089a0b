// scenes/clutter_40.yaml and clutter_40_no_walls.yaml: 20 spheres and 20 boxes dropped in
// four columns (up to 1.64 m high) into a container of 0.4 m walls, or onto the bare floor
// (the SAP paper's sec. VI-C). Oracles: geometry (no object inside the floor or through a
// wall), statics at the end (the world carries the whole weight, so nothing is left in the
// air), rolling on flat ground (no slip, no force along the floor: constant velocity), and
// the energy released.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

constexpr double kRadius = 0.05, kHalfEdge = 0.05, kG = 9.81;
constexpr double kWallInner = 0.40, kWallOuter = 0.42, kWallTop = 0.40;

bool IsSphere(const SceneRun& run, int b) {
  return run.scene.model.bodies[b].name.rfind("sphere", 0) == 0;
}

// Height of the lowest point of object b [m].
double LowestPoint(const SceneRun& run, const sim::Row& row, int b) {
  if (IsSphere(run, b)) return row.body_position(2, b) - kRadius;
  const Eigen::Matrix3d R = BodyRotation(row, b);
  return row.body_position(2, b) - kHalfEdge * R.row(2).cwiseAbs().sum();
}

double TotalWeight(const SceneRun& run) {
  double m = 0.0;
  for (const auto& body : run.scene.model.bodies) m += body.mass;
  return m * kG;
}

// Vertical force of the world (floor and walls) on the objects [N].
double WorldSupport(const sim::Row& row) {
  double f = 0.0;
  for (const sim::ContactRow& c : row.contacts) {
    if (c.body_a == -1 && c.body_b >= 0) f += c.force.z();
    if (c.body_b == -1 && c.body_a >= 0) f -= c.force.z();
  }
  return f;
}

double MeanIterations(const SceneRun& run, double from, double to) {
  double sum = 0.0;
  int n = 0;
  for (const sim::Row& row : run.rows) {
    if (row.time > from && row.time <= to) sum += row.solver.iterations, ++n;
  }
  REQUIRE(n > 0);
  return sum / n;
}

// Checks shared by both scenes: nothing sinks into the floor, the world carries every
// object at the end, and the solver, warm-started from a settled pile, needs far fewer
// Newton iterations per step than in the collapse.
void CheckFloorSupportAndIterations(const SceneRun& run) {
  const int n = run.scene.model.num_bodies();
  double deepest = 0.0;
  for (const sim::Row& row : run.rows)
    for (int b = 0; b < n; ++b) deepest = std::min(deepest, LowestPoint(run, row, b));
  // Near-rigid contact: overlaps far below a millimetre.
  CHECK(deepest > -1e-3);

  const sim::Row& last = run.rows.back();
  REQUIRE(last.time == Approx(2.0));
  // An object in flight or still falling would leave its own weight, more than the
  // tolerance of the total, out of the support.
  CHECK(WorldSupport(last) == Approx(TotalWeight(run)).epsilon(0.01));

  CHECK(MeanIterations(run, 1.5, 2.0) < 0.5 * MeanIterations(run, 0.0, 1.0));
}

TEST_CASE("scenes/clutter_40.yaml: the pile comes to rest on the floor, nothing sinks into the "
          "floor or passes through a wall", "[scenes]") {
  const SceneRun run = RunSceneFile("clutter_40.yaml", {"settings.output.every=1"});
  CheckFloorSupportAndIterations(run);
  // (Nearly) at rest: under 0.1 % of the initial energy is left as motion.
  CHECK(run.rows.back().kinetic_energy < 1e-3 * TotalEnergy(run.rows.front()));
  // The columns start far above the walls, so the collapse may throw an object over one;
  // but an object crosses a wall's mid-plane only above the wall's top.
  const int n = run.scene.model.num_bodies();
  const double mid = 0.5 * (kWallInner + kWallOuter);
  for (size_t i = 1; i < run.rows.size(); ++i) {
    for (int b = 0; b < n; ++b) {
      const Eigen::Vector3d p0 = run.rows[i - 1].body_position.col(b), p1 = run.rows[i].body_position.col(b);
      for (int axis = 0; axis < 2; ++axis) {
        const bool crosses = (std::abs(p0[axis]) < mid) != (std::abs(p1[axis]) < mid);
        if (!crosses || std::abs(p1[1 - axis]) > kWallOuter) continue;
        INFO(run.scene.model.bodies[b].name << " crosses a wall at t = " << run.rows[i].time);
        CHECK(std::min(LowestPoint(run, run.rows[i - 1], b), LowestPoint(run, run.rows[i], b)) >
              kWallTop - 1e-3);
      }
    }
  }
}

TEST_CASE("scenes/clutter_40_no_walls.yaml: the boxes come to rest, the spheres alone on the "
          "floor roll on at constant velocity, nothing sinks into the floor", "[scenes]") {
  const SceneRun run = RunSceneFile("clutter_40_no_walls.yaml", {"settings.output.every=1"});
  CheckFloorSupportAndIterations(run);
  const int n = run.scene.model.num_bodies();
  const sim::Row& last = run.rows.back();
  // Spheres that touch nothing but the floor over the last 0.2 s roll freely.
  const double window = 0.2;
  const sim::Row* start = nullptr;
  for (const sim::Row& row : run.rows)
    if (start == nullptr && row.time >= last.time - window - 1e-9) start = &row;
  REQUIRE(start != nullptr);
  int rolling = 0;
  for (int b = 0; b < n; ++b) {
    INFO(run.scene.model.bodies[b].name);
    const Eigen::Vector3d v = last.body_linear_velocity.col(b), w = last.body_angular_velocity.col(b);
    if (!IsSphere(run, b)) {
      CHECK(v.norm() < 1e-3);
      CHECK(w.norm() < 1e-2);
      continue;
    }
    bool floor_only = true;
    for (const sim::Row* row = start; row <= &last; ++row)
      for (const sim::ContactRow& c : row->contacts)
        if ((c.body_a == b && c.body_b != -1) || (c.body_b == b && c.body_a != -1)) floor_only = false;
    if (!floor_only) continue;
    ++rolling;
    // Contact point at rest: v + w x (-r z) = 0; velocity kept: nothing acts along the floor.
    CHECK((v + w.cross(Eigen::Vector3d(0, 0, -kRadius))).norm() < 1e-3);
    CHECK((v - start->body_linear_velocity.col(b)).norm() < 1e-3);
  }
  CHECK(rolling >= 3);
}

}  // namespace
}  // namespace csim::scenes
