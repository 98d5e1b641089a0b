// Prescribed joint motion (engine/multibody/joint_motion.h): a `table` joint follows its
// columns of a keyframe trajectory. Oracle: hermite keyframes chosen so that each column is
// a polynomial known by hand (q = t^2, 2 t^2, 1 and 3 t), with its velocity and
// acceleration, and the hold before the first and after the last keyframe.

#include "engine/multibody/joint_motion.h"

#include <catch2/catch.hpp>

#include "engine/io/scene_loader.h"

namespace csim::multibody {
namespace {

// Columns: rail (0), then plane's x, y, angle (1, 2, 3).
const char* kTables = R"(
csim: 1
bodies:
  - {name: cart, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
  - {name: puck, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
joints:
  - {name: rail, type: prismatic, parent: world, child: cart, prescribed: {type: table, trajectory: path}}
  - {name: plane, type: planar, parent: world, child: puck, prescribed: {type: table, trajectory: path}}
trajectories:
  path:
    joints: [rail, plane]
    interpolation: hermite
    keyframes:
      - {t: 0, q: [0, 0, 1, 0], v: [0, 0, 0, 3]}
      - {t: 1, q: [1, 2, 1, 3], v: [2, 4, 0, 3]}
)";

TEST_CASE("a prescribed table joint follows its columns with their velocity and acceleration",
          "[multibody][prescribed]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kTables, "tables.yaml", {});
  const Model& model = scene.model;
  const Joint& rail = model.joints[model.FindJoint("rail")];
  const Joint& plane = model.joints[model.FindJoint("plane")];
  REQUIRE(rail.motion.kind == PrescribedKind::kTable);
  CHECK(rail.motion.first_column == 0);
  CHECK(plane.motion.first_column == 1);
  JointVector q, v, a;
  // Inside the segment: rail q = t^2; plane x = 2 t^2, y = 1, angle = 3 t.
  const double t = 0.4;
  CalcPrescribedMotion(model, rail, t, &q, &v, &a);
  REQUIRE(q.size() == 1);
  CHECK(q[0] == Approx(t * t).margin(1e-15));
  CHECK(v[0] == Approx(2 * t).margin(1e-15));
  CHECK(a[0] == Approx(2.0).margin(1e-15));
  CalcPrescribedMotion(model, plane, t, &q, &v, &a);
  REQUIRE(q.size() == 3);
  CHECK((q - Eigen::Vector3d(2 * t * t, 1, 3 * t)).norm() < 1e-15);
  CHECK((v - Eigen::Vector3d(4 * t, 0, 3)).norm() < 1e-15);
  CHECK((a - Eigen::Vector3d(4, 0, 0)).norm() < 1e-14);
  // Held before the first keyframe and after the last: the end q, at rest.
  CalcPrescribedMotion(model, plane, -1.0, &q, &v, &a);
  CHECK((q - Eigen::Vector3d(0, 1, 0)).norm() == 0.0);
  CHECK(v.norm() + a.norm() == 0.0);
  CalcPrescribedMotion(model, plane, 2.0, &q, &v, &a);
  CHECK((q - Eigen::Vector3d(2, 1, 3)).norm() == 0.0);
  CHECK(v.norm() + a.norm() == 0.0);
}

}  // namespace
}  // namespace csim::multibody
