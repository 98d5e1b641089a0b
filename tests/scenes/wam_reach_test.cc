// scenes/wam_reach.yaml: the Barrett WAM imported from URDF follows joint keyframes under
// gravity. Oracle for the hold: the torque gravity puts on each joint, summed here from the
// bodies' masses and centres of mass (the file's inertials) at the recorded poses, which a
// servo at rest must deliver exactly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/scenes/scene_run.h"
#include "tests/support/fetched_models.h"

namespace csim::scenes {
namespace {

/// The gravity torque on joint j (revolute, owning coordinates) at row `row`: the sum over
/// the bodies at or beyond its child of m g . (a x (c - p)), with a the joint's world axis
/// through p, the child's origin.
double GravityTorque(const multibody::Model& model, const sim::Row& row, int j) {
  auto R = [&](int b) {
    const Eigen::Vector4d q = row.body_quaternion.col(b);
    return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
  };
  const Eigen::Vector3d p = row.body_position.col(j);
  const Eigen::Vector3d a = R(j) * model.joints[j].axis;
  double torque = 0.0;
  for (int b = 0; b < model.num_bodies(); ++b) {
    int up = b;
    while (up > j) up = model.parent[up];
    if (up != j) continue;
    const Eigen::Vector3d c = row.body_position.col(b) + R(b) * model.bodies[b].com;
    torque += a.dot((c - p).cross(model.bodies[b].mass * model.gravity));
  }
  return torque;
}

TEST_CASE("scenes/wam_reach.yaml: the WAM follows its keyframes within its effort limits "
          "and holds the reach with exactly the gravity torque", "[scenes][robots][models]") {
  csim::testing::FetchedModelsRoot();  // the scene's URDF comes from Debian's dart-doc
  const SceneRun run = RunSceneFile("wam_reach.yaml");
  const multibody::Model& model = run.scene.model;
  REQUIRE(model.actuators.size() == 7);
  double largest_lag = 0.0;
  for (const sim::Row& row : run.rows) {
    for (int i = 0; i < 7; ++i) {
      const multibody::Actuator& a = model.actuators[i];
      largest_lag = std::max(largest_lag, std::abs(row.q[a.q_index] - row.actuator_q_target[i]));
      CHECK(std::abs(row.actuator_effort[i]) <= a.effort_limit * (1 + 1e-12));
    }
  }
  CHECK(largest_lag < 0.1);
  // The reach needs far more than the file's 1.8 N m at the shoulder: the scene's limits.
  const sim::Row& last = run.rows.back();
  const int shoulder = model.actuators[1].joint;
  const double shoulder_torque = std::abs(GravityTorque(model, last, shoulder));
  CHECK(shoulder_torque > 20.0);
  for (const sim::Row& row : run.rows) {
    if (row.time < 4.5) continue;
    INFO("t = " << row.time);
    CHECK(row.v.cwiseAbs().maxCoeff() < 1e-3);
    for (int i = 0; i < 7; ++i) {
      const int j = model.actuators[i].joint;
      CHECK(std::abs(row.actuator_effort[i] + GravityTorque(model, row, j)) <
            1e-3 * shoulder_torque);
      CHECK(row.actuator_saturated[i] == 0);
    }
  }
}

}  // namespace
}  // namespace csim::scenes
