// MJCF import (engine/io/mjcf_import.h): small models written here, converted field by
// field into csim's conventions; MuJoCo's load errors located in the file; and the oracle
// of docs/design/model-import.md §3: at random configurations, a model loaded through a
// scene's `models:` entry and MuJoCo 2.2.2 agree on every body pose (mj_kinematics), the
// mass matrix (mj_fullM) and the gravity forces (qfrc_bias at v = 0), for a model with
// joint anchors, refs, a joint chain and a ball joint, and for Debian's Fetch robot.

#include "engine/io/mjcf_import.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/crba.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/rnea.h"
#include "engine/multibody/workspace.h"
#include "tests/support/build_variant.h"
#include "tests/support/fetched_models.h"

namespace csim::io {
namespace {

using multibody::JointType;

/// Writes `text` to a file `name` in the temporary folder and returns its path.
std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

/// The element of `list` named `name` (fails the test without one).
template <typename T>
const T& Named(const std::vector<T>& list, const std::string& name) {
  const auto it =
      std::find_if(list.begin(), list.end(), [&](const T& item) { return item.name == name; });
  INFO("no element named " << name);
  REQUIRE(it != list.end());
  return *it;
}
const ImportedBody& BodyNamed(const ImportedModel& m, const std::string& name) {
  return Named(m.bodies, name);
}
const ImportedJoint& JointNamed(const ImportedModel& m, const std::string& name) {
  return Named(m.joints, name);
}

bool Near(const Eigen::Vector3d& a, const Eigen::Vector3d& b, double tol = 1e-12) {
  return (a - b).norm() <= tol;
}

bool AnyContains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

// ---- Conversion, element by element ------------------------------------------------------

constexpr char kArm[] = R"(<mujoco model="arm">
  <compiler angle="radian"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <site name="origin" pos="0 0 0.1"/>
    <body name="arm" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 2 0" pos="0 0 0.5" ref="0.3" limited="true"
             range="-1 1" damping="0.5" armature="0.01" frictionloss="0.2" stiffness="3"
             springref="0.4"/>
      <inertial pos="0.1 0 0" quat="0.70710678118654752 0 0.70710678118654752 0" mass="2"
                diaginertia="0.1 0.2 0.3"/>
      <geom name="ball" type="sphere" size="0.1" pos="0 0 0.5"/>
      <geom type="capsule" size="0.05 0.2" contype="0" conaffinity="0" rgba="1 0 0 1"/>
      <geom type="cylinder" size="0.05 0.2"/>
      <geom type="box" size="0.1 0.2 0.3"/>
      <geom type="ellipsoid" size="0.1 0.2 0.3"/>
      <site name="tip" pos="0.3 0 0"/>
      <body name="carriage" pos="0.5 0 0">
        <joint name="x" type="slide" axis="1 0 0"/>
        <joint name="y" type="slide" axis="0 1 0"/>
        <joint name="spin" type="hinge" axis="0 0 1" pos="0.1 0 0"/>
        <geom type="box" size="0.05 0.05 0.05"/>
        <body name="wrist" pos="0 0 -0.2">
          <joint name="wrist_ball" type="ball" pos="0 0 0.05"/>
          <geom type="sphere" size="0.05"/>
        </body>
        <body name="plate" pos="0 0 0.1">
          <geom type="box" size="0.1 0.1 0.01"/>
        </body>
      </body>
    </body>
    <body name="puck" pos="1 2 3">
      <freejoint name="puck_free"/>
      <geom type="cylinder" size="0.1 0.02"/>
    </body>
  </worldbody>
</mujoco>
)";

TEST_CASE("MJCF bodies and joints are moved to the joint anchors", "[mjcf]") {
  std::vector<std::string> warnings;
  const ImportedModel m = ImportMjcfFile(WriteTemp("csim_mjcf_arm.xml", kArm), &warnings);
  CHECK(m.name == "arm");
  // A chain of three joints on `carriage`: two massless bodies before it.
  REQUIRE(m.bodies.size() == 7);
  REQUIRE(m.joints.size() == 7);

  const ImportedJoint& shoulder = JointNamed(m, "shoulder");
  CHECK(shoulder.type == JointType::kRevolute);
  CHECK(shoulder.parent == -1);
  CHECK(Near(shoulder.X_PJ.p, {0, 0, 1.5}));
  CHECK(Near(shoulder.axis, {0, 1, 0}));
  // Limits and spring rest measured from ref (qpos0), like csim's q.
  REQUIRE(shoulder.lower);
  CHECK(*shoulder.lower == Approx(-1.3).margin(1e-15));
  CHECK(*shoulder.upper == Approx(0.7).margin(1e-15));
  CHECK(shoulder.spring_rest == Approx(0.1).margin(1e-15));
  CHECK(shoulder.stiffness == 3);
  CHECK(shoulder.damping == 0.5);
  CHECK(shoulder.armature == 0.01);
  CHECK(shoulder.friction == 0.2);
  CHECK(shoulder.q_initial.size() == 0);

  const ImportedBody& arm = BodyNamed(m, "arm");
  CHECK(arm.mass == 2);
  CHECK(arm.has_inertial);
  CHECK(Near(arm.com, {0.1, 0, -0.5}));
  // The principal axes turned 90 degrees about y: x and z swap.
  CHECK((arm.inertia - Eigen::Vector3d(0.3, 0.2, 0.1).asDiagonal().toDenseMatrix()).norm() <
        1e-12);
  REQUIRE(arm.geometry.size() == 5);
  CHECK(arm.geometry[0].shape == ImportedShape::kSphere);
  CHECK(arm.geometry[0].name == "ball");
  CHECK(arm.geometry[0].radius == 0.1);
  CHECK(Near(arm.geometry[0].pose.p, {0, 0, 0}));
  CHECK(arm.geometry[1].shape == ImportedShape::kCapsule);
  CHECK(arm.geometry[1].length == Approx(0.4));
  CHECK(!arm.geometry[1].collide);
  CHECK(arm.geometry[1].rgba == Eigen::Vector4d(1, 0, 0, 1));
  CHECK(Near(arm.geometry[1].pose.p, {0, 0, -0.5}));
  CHECK(arm.geometry[2].shape == ImportedShape::kCylinder);
  CHECK(arm.geometry[2].radius == 0.05);
  CHECK(arm.geometry[2].length == Approx(0.4));
  CHECK(arm.geometry[2].collide);
  CHECK(arm.geometry[3].shape == ImportedShape::kBox);
  CHECK(Near(arm.geometry[3].size, {0.2, 0.4, 0.6}));
  CHECK(arm.geometry[4].shape == ImportedShape::kEllipsoid);
  CHECK(Near(arm.geometry[4].radii, {0.1, 0.2, 0.3}));

  // The chain: x and y on massless bodies, spin on `carriage` itself, whose frame is at
  // spin's anchor.
  const ImportedJoint& x = JointNamed(m, "x");
  const ImportedJoint& y = JointNamed(m, "y");
  const ImportedJoint& spin = JointNamed(m, "spin");
  CHECK(x.type == JointType::kPrismatic);
  CHECK(m.bodies[x.parent].name == "arm");
  CHECK(Near(x.X_PJ.p, {0.5, 0, -0.5}));
  CHECK(m.bodies[x.child].name == "carriage|x");
  CHECK(m.bodies[x.child].mass == 0);
  CHECK(!m.bodies[x.child].has_inertial);
  CHECK(y.parent == x.child);
  CHECK(m.bodies[y.child].name == "carriage|y");
  CHECK(Near(y.X_PJ.p, {0, 0, 0}));
  CHECK(spin.parent == y.child);
  CHECK(Near(spin.X_PJ.p, {0.1, 0, 0}));
  CHECK(m.bodies[spin.child].name == "carriage");
  CHECK(Near(BodyNamed(m, "carriage").geometry[0].pose.p, {-0.1, 0, 0}));

  const ImportedJoint& ball = JointNamed(m, "wrist_ball");
  CHECK(ball.type == JointType::kBall);
  CHECK(m.bodies[ball.parent].name == "carriage");
  CHECK(Near(ball.X_PJ.p, {-0.1, 0, -0.15}));
  CHECK(Near(BodyNamed(m, "wrist").geometry[0].pose.p, {0, 0, -0.05}));
  // A body without joints is welded, by a fixed joint named after it.
  const ImportedJoint& plate = JointNamed(m, "plate");
  CHECK(plate.type == JointType::kFixed);
  CHECK(Near(plate.X_PJ.p, {-0.1, 0, 0.1}));
  // A free joint: q is the body's pose in the world, quaternion first.
  const ImportedJoint& puck = JointNamed(m, "puck_free");
  CHECK(puck.type == JointType::kFree);
  CHECK(puck.parent == -1);
  REQUIRE(puck.q_initial.size() == 7);
  CHECK(puck.q_initial == (Eigen::VectorXd(7) << 1, 0, 0, 0, 1, 2, 3).finished());

  REQUIRE(m.base_geometry.size() == 1);
  CHECK(m.base_geometry[0].shape == ImportedShape::kPlane);
  REQUIRE(m.frames.size() == 2);
  CHECK(m.frames[0].name == "origin");
  CHECK(m.frames[0].body == "");
  CHECK(m.frames[1].name == "tip");
  CHECK(m.frames[1].body == "arm");
  CHECK(Near(m.frames[1].X_BF.p, {0.3, 0, -0.5}));
  for (const ImportedBody& b : m.bodies)
    CHECK(b.source.file.find("csim_mjcf_arm.xml") != std::string::npos);
}

constexpr char kDrive[] = R"(<mujoco model="drive">
  <compiler angle="radian"/>
  <worldbody>
    <body name="a">
      <joint name="ja" type="hinge" axis="0 0 1"/>
      <geom type="sphere" size="0.1"/>
      <body name="b" pos="1 0 0">
        <joint name="jb" type="hinge" axis="0 0 1" ref="0.2"/>
        <geom type="sphere" size="0.1"/>
      </body>
    </body>
    <body name="c" pos="0 1 0">
      <joint name="jc" type="slide" axis="1 0 0"/>
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <contact>
    <exclude body1="a" body2="c"/>
  </contact>
  <equality>
    <connect name="loop" body1="b" body2="c" anchor="0.5 0 0"/>
    <weld name="hold" body1="c"/>
    <joint name="mimic" joint1="jb" joint2="ja" polycoef="0.1 -1 0 0 0"/>
    <joint name="curve" joint1="jc" joint2="ja" polycoef="0 1 0.5 0 0"/>
  </equality>
  <tendon>
    <fixed name="t">
      <joint joint="ja" coef="1"/>
    </fixed>
  </tendon>
  <actuator>
    <motor name="m" joint="ja" gear="2" ctrllimited="true" ctrlrange="-3 3"/>
    <position name="p" joint="jb" kp="50" gear="2" forcelimited="true" forcerange="-10 10"/>
    <velocity name="v" joint="jc" kv="4"/>
    <motor name="tm" tendon="t"/>
  </actuator>
  <keyframe>
    <key name="home" qpos="0.5 0.7 0.1"/>
  </keyframe>
</mujoco>
)";

TEST_CASE("MJCF actuators, equalities, keyframes and excludes are converted", "[mjcf]") {
  std::vector<std::string> warnings;
  const std::string path = WriteTemp("csim_mjcf_drive.xml", kDrive);
  const ImportedModel m = ImportMjcfFile(path, &warnings);

  REQUIRE(m.actuators.size() == 3);
  CHECK(m.actuators[0].name == "m");
  CHECK(m.actuators[0].joint == "ja");
  CHECK(m.actuators[0].kp == 0);
  CHECK(m.actuators[0].kd == 0);
  CHECK(m.actuators[0].effort_limit == 6);  // gear times the control range
  CHECK(m.actuators[1].joint == "jb");
  CHECK(m.actuators[1].kp == 200);  // gear^2 kp
  CHECK(m.actuators[1].kd == 0);
  CHECK(m.actuators[1].effort_limit == 20);  // gear times the force range
  CHECK(m.actuators[2].joint == "jc");
  CHECK(m.actuators[2].kp == 0);
  CHECK(m.actuators[2].kd == 4);
  CHECK(std::isinf(m.actuators[2].effort_limit));
  CHECK(AnyContains(warnings, "actuator 'tm'"));

  REQUIRE(m.constraints.size() == 3);
  const ImportedConstraint& loop = m.constraints[0];
  CHECK(loop.type == ImportedConstraintType::kBall);
  CHECK(loop.name == "loop");
  CHECK(loop.body_a == "b");
  CHECK(loop.body_b == "c");
  CHECK(Near(loop.point_a, {0.5, 0, 0}));
  CHECK(Near(loop.point_b, {1.5, -1, 0}));  // the same point at the model pose
  const ImportedConstraint& hold = m.constraints[1];
  CHECK(hold.type == ImportedConstraintType::kWeld);
  CHECK(hold.body_a == "c");
  CHECK(hold.body_b == "");  // the world
  CHECK(Near(hold.pose_a.p, {0, -1, 0}));
  CHECK(Near(hold.pose_b.p, {0, 0, 0}));
  const ImportedConstraint& mimic = m.constraints[2];
  CHECK(mimic.type == ImportedConstraintType::kCoupler);
  CHECK(mimic.joint == "jb");
  CHECK(mimic.follows == "ja");
  CHECK(mimic.ratio == -1);
  CHECK(mimic.offset == 0.1);
  CHECK(AnyContains(warnings, "equality 'curve'"));

  REQUIRE(m.poses.size() == 1);
  CHECK(m.poses[0].name == "home");
  REQUIRE(m.poses[0].joints == std::vector<std::string>{"ja", "jb", "jc"});
  CHECK(m.poses[0].q[0][0] == 0.5);
  CHECK(m.poses[0].q[1][0] == Approx(0.5).margin(1e-15));  // from ref
  CHECK(m.poses[0].q[2][0] == 0.1);

  REQUIRE(m.excluded_pairs.size() == 1);
  CHECK(m.excluded_pairs[0] == std::make_pair(std::string("a"), std::string("c")));
  CHECK(AnyContains(warnings, "1 tendon(s) dropped"));
  for (const std::string& w : warnings) CHECK(w.find(path + ": ") == 0);
}

TEST_CASE("an MJCF mesh keeps its shape in the geometry frame MuJoCo gives it", "[mjcf]") {
  // MuJoCo moves a mesh to its centre of mass and principal axes and compensates in the
  // geom's pose: the vertices placed by that pose are the file's.
  const std::string text = R"(<mujoco>
  <asset>
    <mesh name="wedge" vertex="0 0 0  2 0 0  0 1 0  0 0 0.5  2 0 0.5  0 1 0.5"/>
  </asset>
  <worldbody>
    <body name="holder" pos="0 0 1">
      <geom type="mesh" mesh="wedge" pos="0.1 0.2 0.3"/>
    </body>
  </worldbody>
</mujoco>
)";
  const ImportedModel m = ImportMjcfFile(WriteTemp("csim_mjcf_mesh.xml", text), nullptr);
  const ImportedGeometry& g = BodyNamed(m, "holder").geometry.at(0);
  REQUIRE(g.shape == ImportedShape::kMesh);
  REQUIRE(g.vertices.size() == 6);
  CHECK(g.triangles.size() == 8);
  const std::vector<Eigen::Vector3d> given = {{0, 0, 0}, {2, 0, 0}, {0, 1, 0},
                                              {0, 0, 0.5}, {2, 0, 0.5}, {0, 1, 0.5}};
  for (const Eigen::Vector3d& v : g.vertices) {
    const Eigen::Vector3d placed = g.pose * v - Eigen::Vector3d(0.1, 0.2, 0.3);
    double nearest = 1e300;
    for (const Eigen::Vector3d& p : given) nearest = std::min(nearest, (placed - p).norm());
    CHECK(nearest < 1e-6);  // MuJoCo stores vertices in single precision
  }
}

TEST_CASE("MuJoCo's load errors are located in the MJCF file", "[mjcf]") {
  const std::string bad_keyword = WriteTemp(
      "csim_mjcf_bad_keyword.xml",
      "<mujoco>\n  <worldbody>\n    <body>\n      <joint type=\"bogus\"/>\n    </body>\n"
      "  </worldbody>\n</mujoco>\n");
  try {
    ImportMjcfFile(bad_keyword, nullptr);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.where().file == bad_keyword);
    CHECK(e.where().line == 4);
    CHECK(e.message().find("invalid keyword: 'bogus'") != std::string::npos);
  }
  const std::string no_mesh = WriteTemp(
      "csim_mjcf_no_mesh.xml",
      "<mujoco>\n  <worldbody>\n    <body>\n      <geom type=\"mesh\" mesh=\"nope\"/>\n"
      "    </body>\n  </worldbody>\n</mujoco>\n");
  try {
    ImportMjcfFile(no_mesh, nullptr);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 0);  // MuJoCo says "column = -1": unknown
    CHECK(e.message().find("mesh 'nope' not found") != std::string::npos);
  }
  CHECK_THROWS_AS(ImportMjcfFile("/nonexistent/robot.xml", nullptr), InputError);
}

TEST_CASE("MuJoCo's error messages give their line and column", "[mjcf]") {
  CHECK(MujocoErrorLocation("XML Error: bad  Element 'joint', line 3", "f").line == 3);
  const SourceLocation compiler =
      MujocoErrorLocation("Error: x Object name = a, id = 0, line = 12, column = 7", "f");
  CHECK(compiler.file == "f");
  CHECK(compiler.line == 12);
  CHECK(compiler.column == 7);
  CHECK(MujocoErrorLocation("XML parse error 6: Line number=2: XMLElement", "f").line == 2);
  CHECK(MujocoErrorLocation("Error: line = 0, column = -1", "f").line == 0);
  CHECK(MujocoErrorLocation("no location", "f").line == 0);
}

// ---- Agreement with MuJoCo -----------------------------------------------------------------

/// Owns MuJoCo's model and data.
struct Mujoco {
  explicit Mujoco(const std::string& path) {
    char error[1000] = "";
    m = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
    INFO(error);
    REQUIRE(m != nullptr);
    d = mj_makeData(m);
  }
  ~Mujoco() {
    mj_deleteData(d);
    mj_deleteModel(m);
  }
  mjModel* m = nullptr;
  mjData* d = nullptr;
};

/// The largest differences found between csim and MuJoCo, and how much was compared.
struct Agreement {
  double position = 0, rotation = 0;  ///< body frames [m], rotation matrices [1]
  double mass_matrix = 0, bias = 0;   ///< absolute
  double mass_matrix_norm = 0, bias_norm = 0;  ///< largest |M| and |bias| seen
  int bodies = 0, dofs = 0;
};

/// Compares csim's `model` with MuJoCo's compile of `path` at `configurations` random
/// configurations: joints are matched by name, and every MuJoCo joint csim does not have
/// must be in `locks` (csim q, i.e. qpos - qpos0). Hinge angles in [-pi, pi], slides in
/// [-0.3, 0.3] m, ball joints uniform over the rotations.
Agreement CompareWithMujoco(const multibody::Model& model, const std::string& path,
                            const std::map<std::string, double>& locks, int configurations) {
  Mujoco mj(path);
  const mjModel* m = mj.m;
  mjData* d = mj.d;
  struct Coordinate {
    int csim_joint, mj_joint;
  };
  std::vector<Coordinate> coordinates;
  std::vector<int> csim_dof_to_mj(model.nv, -1);
  for (int j = 0; j < m->njnt; ++j) {
    const std::string name = mj_id2name(m, mjOBJ_JOINT, j);
    const int c = model.FindJoint(name);
    if (locks.count(name)) {
      CHECK((c < 0 || model.joints[c].nv == 0));
      continue;
    }
    INFO("MuJoCo joint " << name);
    REQUIRE(c >= 0);
    REQUIRE(m->jnt_type[j] != mjJNT_FREE);  // velocities in other frames: not compared
    coordinates.push_back({c, j});
    const multibody::Joint& joint = model.joints[c];
    REQUIRE(joint.nv == (m->jnt_type[j] == mjJNT_BALL ? 3 : 1));
    for (int k = 0; k < joint.nv; ++k) csim_dof_to_mj[joint.v_start + k] = m->jnt_dofadr[j] + k;
  }
  REQUIRE(std::find(csim_dof_to_mj.begin(), csim_dof_to_mj.end(), -1) == csim_dof_to_mj.end());

  Agreement result;
  result.dofs = model.nv;
  std::mt19937 random(20240611);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI), slide(-0.3, 0.3);
  std::normal_distribution<double> normal;
  multibody::Workspace ws = multibody::MakeWorkspace(model);
  std::vector<mjtNum> full_M(m->nv * m->nv);
  for (int n = 0; n < configurations; ++n) {
    Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq);
    for (int i = 0; i < m->nq; ++i) d->qpos[i] = m->qpos0[i];
    for (const auto& [name, value] : locks) {
      const int j = mj_name2id(m, mjOBJ_JOINT, name.c_str());
      REQUIRE(j >= 0);
      d->qpos[m->jnt_qposadr[j]] += value;
    }
    for (const Coordinate& c : coordinates) {
      const int adr = m->jnt_qposadr[c.mj_joint];
      const int q0 = model.joints[c.csim_joint].q_start;
      if (m->jnt_type[c.mj_joint] == mjJNT_BALL) {
        Eigen::Vector4d quat(normal(random), normal(random), normal(random), normal(random));
        quat.normalize();
        q.segment<4>(q0) = quat;
        for (int k = 0; k < 4; ++k) d->qpos[adr + k] = quat[k];
      } else {
        q[q0] = m->jnt_type[c.mj_joint] == mjJNT_HINGE ? angle(random) : slide(random);
        d->qpos[adr] += q[q0];
      }
    }
    for (int i = 0; i < m->nv; ++i) d->qvel[i] = 0;
    mj_forward(m, d);
    multibody::CalcKinematics(model, 0.0, q, Eigen::VectorXd::Zero(model.nv), ws);
    multibody::CalcMassMatrix(model, ws);
    multibody::CalcBiasForces(model, ws);

    result.bodies = 0;
    for (int b = 1; b < m->nbody; ++b) {
      const std::string name = mj_id2name(m, mjOBJ_BODY, b);
      // A body the expansion merged into its parent is a frame there.
      math::RigidTransform X_WC;
      if (const int c = model.FindBody(name); c >= 0) {
        X_WC = ws.X_WB[c];
      } else {
        const int f = model.FindFrame(name);
        INFO("MuJoCo body " << name);
        REQUIRE(f >= 0);
        const multibody::Frame& frame = model.frames[f];
        X_WC = (frame.body < 0 ? math::RigidTransform() : ws.X_WB[frame.body]) * frame.X_BF;
      }
      ++result.bodies;
      // csim's body frame sits at the anchor of the body's last joint (mjcf_import.h).
      Eigen::Vector3d anchor = Eigen::Vector3d::Zero();
      if (m->body_jntnum[b] > 0) {
        const int j = m->body_jntadr[b] + m->body_jntnum[b] - 1;
        anchor = Eigen::Map<const Eigen::Vector3d>(m->jnt_pos + 3 * j);
      }
      const math::RigidTransform X_WB =
          X_WC * math::RigidTransform{Eigen::Matrix3d::Identity(), -anchor};
      const Eigen::Vector3d xpos = Eigen::Map<const Eigen::Vector3d>(d->xpos + 3 * b);
      const Eigen::Matrix3d xmat =
          Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->xmat + 9 * b);
      result.position = std::max(result.position, (X_WB.p - xpos).cwiseAbs().maxCoeff());
      result.rotation = std::max(result.rotation, (X_WB.R - xmat).cwiseAbs().maxCoeff());
    }
    mj_fullM(m, full_M.data(), d->qM);
    const Eigen::MatrixXd M = ws.M.ToDense();
    for (int r = 0; r < model.nv; ++r) {
      const int mr = csim_dof_to_mj[r];
      result.bias = std::max(result.bias, std::abs(ws.bias[r] - d->qfrc_bias[mr]));
      result.bias_norm = std::max(result.bias_norm, std::abs(d->qfrc_bias[mr]));
      for (int k = 0; k < model.nv; ++k) {
        const double mj_M = full_M[mr * m->nv + csim_dof_to_mj[k]];
        result.mass_matrix = std::max(result.mass_matrix, std::abs(M(r, k) - mj_M));
        result.mass_matrix_norm = std::max(result.mass_matrix_norm, std::abs(mj_M));
      }
    }
  }
  return result;
}

/// A scene that holds the one model `file` attached to the world, with `options` (YAML
/// entries of the `models:` item, e.g. "lock: {x: 0.1}").
multibody::Model LoadModelScene(const std::string& file, const std::string& options) {
  const std::string text = "csim: 1\nmodels:\n  - {name: robot, file: '" + file +
                           "', attach: {parent: world}, " + options + "}\n";
  INFO(text);
  return LoadSceneFromText(text, "mjcf_import_test.yaml", {}).model;
}

/// The issue's tolerance, 1e-9 absolute on every compared quantity.
void CheckAgreement(const Agreement& a) {
  INFO("bodies " << a.bodies << ", dofs " << a.dofs << ": position " << a.position
                 << " m, rotation " << a.rotation << ", M " << a.mass_matrix << " (|M| up to "
                 << a.mass_matrix_norm << "), bias " << a.bias << " (up to " << a.bias_norm
                 << ")");
  CHECK(a.position <= 1e-9);
  CHECK(a.rotation <= 1e-9);
  CHECK(a.mass_matrix <= 1e-9);
  CHECK(a.bias <= 1e-9);
}

constexpr char kLinkage[] = R"(<mujoco model="linkage">
  <compiler angle="radian"/>
  <worldbody>
    <body name="arm" pos="0.1 0.2 1" quat="0.9 0.1 0.3 -0.2">
      <joint name="shoulder" type="hinge" axis="0.3 1 0.2" pos="0.05 -0.1 0.5" ref="0.3"
             armature="0.02"/>
      <inertial pos="0.1 0.02 -0.3" quat="0.8 0.2 0.1 0.4" mass="2" diaginertia="0.1 0.2 0.25"/>
      <body name="carriage" pos="0.5 0 -0.6" quat="0.7 0 0.7 0.1">
        <joint name="x" type="slide" axis="1 0 0"/>
        <joint name="y" type="slide" axis="0 1 0" pos="0.3 0 0"/>
        <joint name="spin" type="hinge" axis="0 0.6 0.8" pos="0.1 0.05 -0.02"/>
        <inertial pos="0.02 0.03 0.01" mass="0.7" diaginertia="0.01 0.02 0.015"/>
        <body name="wrist" pos="0 0.1 -0.2">
          <joint name="wrist_ball" type="ball" pos="0.02 0 0.05"/>
          <inertial pos="0 0.04 -0.1" quat="0.6 0.8 0 0" mass="0.4"
                    diaginertia="0.004 0.003 0.002"/>
          <body name="finger" pos="0.03 0 -0.2">
            <joint name="finger_slide" type="slide" axis="0.2 -0.4 1" pos="0.1 0.2 0.3" ref="0.05"/>
            <inertial pos="0.01 0 -0.02" mass="0.1" diaginertia="0.001 0.001 0.0005"/>
          </body>
        </body>
        <body name="plate" pos="0.05 0 0.1" quat="0.5 0.5 0.5 0.5">
          <inertial pos="0.01 0.02 0" mass="0.3" diaginertia="0.002 0.003 0.004"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

TEST_CASE("MJCF anchors, refs, chains and ball joints agree with MuJoCo", "[mjcf]") {
  const std::string path = WriteTemp("csim_mjcf_linkage.xml", kLinkage);
  const std::map<std::string, double> locks = {{"x", 0.12}, {"y", -0.07}};
  const multibody::Model model = LoadModelScene(path, "lock: {x: 0.12, y: -0.07}");
  const Agreement a = CompareWithMujoco(model, path, locks, 20);
  CHECK(a.dofs == 6);    // shoulder, spin, the ball's 3, finger_slide
  CHECK(a.bodies == 5);
  CheckAgreement(a);
}

/// tools/fetch-models.sh's Fetch MJCF, wrapped: robot.xml is a <worldbody> fragment for
/// OpenAI's task files, whose `range` without `limited` MuJoCo 2.2 refuses unless
/// autolimits is on. MuJoCo reads every file name of the wrapper (includes, mesh and
/// texture folders) relative to the wrapper's folder, even an absolute one.
std::string FetchWrapper() {
  namespace fs = std::filesystem;
  const std::string dest = csim::testing::FetchedModelsRoot();
  const std::string robotics =
      fs::relative(dest + "/usr/share/doc/dart/data/mjcf/openai/robotics",
                   fs::temp_directory_path())
          .string();
  const std::string fetch = robotics + "/fetch";
  return WriteTemp("csim_mjcf_fetch.xml",
                   "<mujoco model=\"fetch\">\n"
                   "  <compiler angle=\"radian\" coordinate=\"local\" meshdir=\"" + robotics +
                       "/stls/fetch\" texturedir=\"" + robotics +
                       "/textures\" autolimits=\"true\"/>\n"
                   "  <include file=\"" + fetch + "/shared.xml\"/>\n"
                   "  <worldbody>\n    <include file=\"" + fetch + "/robot.xml\"/>\n"
                   "  </worldbody>\n</mujoco>\n");
}

TEST_CASE("Debian's Fetch MJCF agrees with MuJoCo at 20 configurations", "[mjcf]") {
  const std::string path = FetchWrapper();
  std::vector<std::string> warnings;
  const ImportedModel imported = ImportMjcfFile(path, &warnings);
  CHECK(imported.bodies.size() == 31);  // 29 MuJoCo bodies and two for the base's slides
  // The sanitized program stops here: loading the whole robot into a scene and comparing it
  // takes it two minutes, and the test linkage above runs the same code of csim's.
  if (csim::testing::UnderAddressSanitizer()) return;
  // The base moves on three slides with damping 1e11: locked, at MuJoCo's qpos.
  const std::map<std::string, double> locks = {
      {"robot0:slide0", 0.3}, {"robot0:slide1", -0.2}, {"robot0:slide2", 0.01}};
  // Merged: its welded links, some of which have a mass but no inertia (estop_link).
  const multibody::Model model = LoadModelScene(
      path, "merge_fixed: true, lock: {'robot0:slide0': 0.3, 'robot0:slide1': -0.2, "
            "'robot0:slide2': 0.01}");
  const Agreement a = CompareWithMujoco(model, path, locks, 20);
  CHECK(a.dofs == 12);    // torso, head 2, arm 7, fingers 2
  CHECK(a.bodies == 29);  // every MuJoCo body, as a csim body or a merged frame
  CheckAgreement(a);
}

}  // namespace
}  // namespace csim::io
