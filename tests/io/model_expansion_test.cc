// The `models:` key (engine/io/model_expansion.h, urdf_import.h): a URDF expanded into scene
// nodes keeps the file's physics. The fixture tests/data/urdf/gripper_arm.urdf has round
// numbers, so merged mass properties and locked poses are checked against values worked by
// hand here; tests/data/urdf/dae_box.urdf gives its collision mesh as COLLADA; the Barrett
// WAM of Debian's dart-doc is loaded whole.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/workspace.h"
#include "tests/contact_physics/physics_helpers.h"
#include "tests/support/fetched_models.h"

namespace csim::io {
namespace {

const std::string kFixture = std::string(CSIM_SOURCE_DIR) + "/tests/data/urdf/gripper_arm.urdf";

/// A scene with one models entry on the fixture; `options` are further keys of the entry
/// (each line indented 4 spaces), `rest` further top-level text.
std::string Scene(const std::string& options, const std::string& rest = "") {
  return "csim: 1\nsettings: {time_step: 0.001, duration: 0.2}\nmodels:\n  - name: arm\n"
         "    file: " + kFixture + "\n" + options + rest;
}

LoadedScene Load(const std::string& text) { return LoadSceneFromText(text, "test.yaml", {}); }

const multibody::Body& BodyNamed(const multibody::Model& m, const std::string& name) {
  const int b = m.FindBody(name);
  REQUIRE(b >= 0);
  return m.bodies[b];
}

TEST_CASE("models: a URDF becomes bodies, joints, a coupler and an actuator", "[models]") {
  const LoadedScene scene = Load(Scene("    prefix: r_\n"));
  const multibody::Model& m = scene.model;
  // world is ROS's world link; the massless tool_tip folds into the palm as a frame.
  CHECK(m.num_bodies() == 5);
  for (const char* name : {"r_base", "r_arm", "r_palm", "r_finger_left", "r_finger_right"})
    CHECK(m.FindBody(name) >= 0);
  const int tip = m.FindFrame("r_tool_tip");
  REQUIRE(tip >= 0);
  CHECK(m.frames[tip].body == m.FindBody("r_palm"));
  CHECK((m.frames[tip].X_BF.p - Eigen::Vector3d(0.1, 0, 0)).norm() < 1e-15);
  // The leading '/' of "/mount" is dropped; the root is welded to the world through it.
  const multibody::Joint& mount = m.joints[m.FindJoint("r_mount")];
  CHECK(mount.type == multibody::JointType::kFixed);
  CHECK(mount.parent == -1);
  CHECK((mount.X_PJ.p - Eigen::Vector3d(0, 0, 0.1)).norm() < 1e-15);
  const multibody::Joint& shoulder = m.joints[m.FindJoint("r_shoulder")];
  CHECK(shoulder.type == multibody::JointType::kRevolute);
  CHECK(shoulder.lower[0] == -1.5);
  CHECK(shoulder.upper[0] == 1.5);
  CHECK(shoulder.damping[0] == 0.5);
  CHECK(shoulder.friction[0] == 0.1);
  REQUIRE(m.constraints.size() == 1);
  CHECK(m.constraints[0].type == multibody::HolonomicType::kCoupler);
  // The transmission's actuator carries the joint's effort limit.
  REQUIRE(m.actuators.size() == 1);
  CHECK(m.actuators[0].name == "r_shoulder_motor");
  CHECK(m.actuators[0].effort_limit == 30);
  // The model's bodies do not collide with each other, and the arm's mass is the file's.
  CHECK(BodyNamed(m, "r_arm").mass == 1.0);
  CHECK((BodyNamed(m, "r_arm").com - Eigen::Vector3d(0.25, 0, 0)).norm() < 1e-15);
  CHECK(m.excluded_collisions.size() == 10);
}

TEST_CASE("models: the expanded scene loads to the same model", "[models]") {
  std::string expanded;
  const LoadedScene scene =
      LoadSceneFromText(Scene("    merge_fixed: true\n"), "test.yaml", {}, &expanded);
  const LoadedScene again = Load(expanded);
  REQUIRE(again.model.num_bodies() == scene.model.num_bodies());
  for (int b = 0; b < scene.model.num_bodies(); ++b) {
    CHECK(again.model.bodies[b].name == scene.model.bodies[b].name);
    CHECK(again.model.bodies[b].mass == scene.model.bodies[b].mass);
    CHECK((again.model.bodies[b].inertia - scene.model.bodies[b].inertia).norm() == 0);
    CHECK((again.model.joints[b].X_PJ.R - scene.model.joints[b].X_PJ.R).norm() == 0);
    CHECK((again.model.joints[b].X_PJ.p - scene.model.joints[b].X_PJ.p).norm() == 0);
  }
  CHECK(again.model.excluded_collisions == scene.model.excluded_collisions);
}

TEST_CASE("models: an MJCF mesh loads from beside the tree and --expand prints it inline",
          "[models]") {
  // A wedge given by its vertices (MJCF): the expansion keeps the compiled vertices beside
  // the YAML tree, and --expand writes them into the mesh node; that text loads to the
  // same mesh, pose and mass properties.
  const std::string xml = (std::filesystem::temp_directory_path() / "csim_wedge_test.xml").string();
  std::ofstream(xml) << R"(<mujoco>
  <asset>
    <mesh name="wedge" vertex="0 0 0  2 0 0  0 1 0  0 0 0.5  2 0 0.5  0 1 0.5"/>
  </asset>
  <worldbody>
    <body name="holder" pos="0 0 1">
      <freejoint/>
      <geom type="mesh" mesh="wedge" pos="0.1 0.2 0.3"/>
    </body>
  </worldbody>
</mujoco>
)";
  const std::string text = "csim: 1\nmodels:\n  - {name: w, file: " + xml + "}\n";
  std::string expanded;
  const LoadedScene scene = LoadSceneFromText(text, "test.yaml", {}, &expanded);
  const multibody::Body& holder = BodyNamed(scene.model, "holder");
  REQUIRE(holder.geometry.size() == 1);
  const geometry::ConvexMesh& mesh = holder.geometry[0].mesh;
  CHECK(mesh.vertices.size() == 6);  // the wedge's six corners
  CHECK(mesh.triangles.size() == 8);
  CHECK_THAT(expanded, Catch::Contains("vertices:"));
  CHECK_THAT(expanded, Catch::Contains("triangles:"));
  const LoadedScene again = Load(expanded);
  const multibody::Body& reloaded = BodyNamed(again.model, "holder");
  REQUIRE(reloaded.geometry.size() == 1);
  CHECK(reloaded.geometry[0].mesh.vertices == mesh.vertices);
  CHECK(reloaded.geometry[0].mesh.triangles == mesh.triangles);
  CHECK((reloaded.geometry[0].X_BG.p - holder.geometry[0].X_BG.p).norm() == 0);
  CHECK(reloaded.mass == holder.mass);
  CHECK((reloaded.inertia - holder.inertia).norm() == 0);
}

TEST_CASE("models: merge_fixed adds mass properties by the parallel-axis rule", "[models]") {
  const multibody::Model m = Load(Scene("    merge_fixed: true\n")).model;
  // The palm (0.5 kg at x = 0.5) folds into the arm (1 kg at x = 0.25).
  CHECK(m.FindBody("palm") < 0);
  const multibody::Body& arm = BodyNamed(m, "arm");
  CHECK(arm.mass == Approx(1.5).epsilon(1e-15));
  const double c = (1.0 * 0.25 + 0.5 * 0.5) / 1.5;
  CHECK((arm.com - Eigen::Vector3d(c, 0, 0)).norm() < 1e-15);
  // Izz = 0.02 + 0.001 + m1 (0.25 - c)^2 + m2 (0.5 - c)^2; Ixx adds no offset term.
  const double izz = 0.02 + 0.001 + 1.0 * std::pow(0.25 - c, 2) + 0.5 * std::pow(0.5 - c, 2);
  CHECK(arm.inertia(2, 2) == Approx(izz).epsilon(1e-14));
  CHECK(arm.inertia(1, 1) == Approx(izz).epsilon(1e-14));
  CHECK(arm.inertia(0, 0) == Approx(0.002).epsilon(1e-14));
  // The fingers now hang on the arm, 0.5 m further out.
  const multibody::Joint& left = m.joints[m.FindJoint("finger_left_joint")];
  CHECK(left.parent == m.FindBody("arm"));
  CHECK((left.X_PJ.p - Eigen::Vector3d(0.55, 0.02, 0)).norm() < 1e-15);
  CHECK(m.frames[m.FindFrame("palm")].body == m.FindBody("arm"));
}

TEST_CASE("models: a locked joint is welded at its coordinate", "[models]") {
  const double q = 0.7;
  const multibody::Model locked =
      Load(Scene("    lock: {shoulder: " + std::to_string(q) + "}\n")).model;
  CHECK(locked.joints[locked.FindJoint("shoulder")].type == multibody::JointType::kFixed);
  CHECK(locked.actuators.empty());  // the transmission's joint is locked
  multibody::Workspace ws = multibody::MakeWorkspace(locked);
  multibody::CalcKinematics(locked, 0.0, locked.InitialQ(), locked.InitialV(), ws);
  // The palm sits 0.5 m out along the arm, turned by q about z, 0.2 m above the floor.
  const Eigen::Vector3d palm = ws.X_WB[locked.FindBody("palm")].p;
  CHECK((palm - Eigen::Vector3d(0.5 * std::cos(0.7), 0.5 * std::sin(0.7), 0.2)).norm() < 1e-6);
}

TEST_CASE("models: what names a locked or excluded joint is dropped with a located warning",
          "[models]") {
  const auto warned = [](const LoadedScene& scene, const std::string& text) {
    for (const std::string& w : scene.warnings)
      if (w.find(text) != std::string::npos && w.find(kFixture + ":") == 0) return true;
    return false;
  };
  // Locking the left finger leaves the mimic coupler nothing to move; locking the shoulder
  // takes its transmission's joint.
  const LoadedScene locked = Load(Scene("    lock: {finger_left_joint: 0, shoulder: 0}\n"));
  CHECK(locked.model.constraints.empty());
  CHECK(locked.model.actuators.empty());
  CHECK(warned(locked, "constraint 'finger_right_joint_mimic' is dropped: it names a locked joint"));
  CHECK(warned(locked, "actuator 'shoulder_motor' is dropped: it names a locked joint"));
  // Excluding the arm takes the shoulder (its joint), the fingers and their coupler along.
  const LoadedScene excluded = Load(Scene("    exclude_bodies: [arm]\n"));
  CHECK(excluded.model.constraints.empty());
  CHECK(excluded.model.actuators.empty());
  CHECK(warned(excluded, "constraint 'finger_right_joint_mimic' is dropped: it names an excluded"));
  CHECK(warned(excluded, "actuator 'shoulder_motor' is dropped: it names an excluded"));
}

TEST_CASE("models: mimic fingers stay coupled while one is pushed", "[models]") {
  // The left finger (0.05 kg) is pushed along +y by 1 N; the right one (0.05 kg) follows at
  // -q through the coupler, so the pair accelerates as 0.1 kg: q = t^2 / (2 * 0.1 kg) * 1 N.
  const std::string text = "csim: 1\nsettings: {time_step: 0.001, duration: 0.05, "
                           "gravity: [0, 0, 0]}\nmodels:\n  - name: arm\n    file: " +
                           kFixture + "\n    lock: {shoulder: 0}\n"
                           "loads:\n  - {body: finger_left, force: [0, 1, 0]}\n";
  const auto run = contact_physics::RunScene(text);
  const multibody::Model& m = run.scene.model;
  const int l = m.joints[m.FindJoint("finger_left_joint")].q_start;
  const int r = m.joints[m.FindJoint("finger_right_joint")].q_start;
  double worst = 0;
  for (const sim::Row& row : run.rows) worst = std::max(worst, std::abs(row.q[r] + row.q[l]));
  const double t = run.rows.back().time;
  CHECK(run.rows.back().q[l] == Approx(0.5 * t * t / 0.1).epsilon(0.03));
  CHECK(worst < 1e-3 * run.rows.back().q[l]);
}

TEST_CASE("models: errors are located in the model file or the scene entry", "[models]") {
  auto error = [](const std::string& text) {
    try {
      Load(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    FAIL("the scene loaded");
    return std::string();
  };
  CHECK_THAT(error(Scene("    lock: {elbow: 0}\n")),
             Catch::Contains("test.yaml:6:19: the model has no joint 'elbow' to lock"));
  CHECK_THAT(error(Scene("    exclude_bodies: [hand]\n")),
             Catch::Contains("the model has no body 'hand' to exclude"));
  CHECK_THAT(error("csim: 1\nmodels:\n  - {name: x, file: nowhere.urdf}\n"),
             Catch::Contains("test.yaml:3:21: model file 'nowhere.urdf' does not exist"));
  CHECK_THAT(error(Scene("    meshes: sometimes\n")), Catch::Contains("unknown meshes mode"));
  // A package nobody maps is reported at the mesh element of the WAM's URDF.
  const std::string wam = csim::testing::DartUrdfDir() + "/wam/wam.urdf";
  CHECK_THAT(error("csim: 1\nmodels:\n  - {name: wam, file: " + wam + "}\n"),
             Catch::Contains(wam + ":30: 'package://herb_description/meshes/wam/"
                                   "wam_base_collision.STL' names package 'herb_description'"));
}

TEST_CASE("models: a URDF collision mesh given as COLLADA loads", "[models][mesh_file]") {
  // tests/data/urdf/dae_box.urdf: a millimetre COLLADA cube, scaled by the URDF's <mesh scale>.
  const LoadedScene scene = Load("csim: 1\nmodels:\n  - name: box\n    file: " +
                                 std::string(CSIM_SOURCE_DIR) + "/tests/data/urdf/dae_box.urdf\n");
  const multibody::Body& box = BodyNamed(scene.model, "box");
  REQUIRE(box.geometry.size() == 1);
  const geometry::ConvexMesh& mesh = box.geometry[0].mesh;
  CHECK(box.geometry[0].type == geometry::ShapeType::kMesh);
  CHECK(mesh.vertices.size() == 8);
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(INFINITY);
  Eigen::Vector3d hi = -lo;
  for (const Eigen::Vector3d& p : mesh.vertices) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  CHECK((lo - Eigen::Vector3d(0.1, 0, 0)).norm() < 1e-7);
  CHECK((hi - Eigen::Vector3d(0.2, 0.2, 0.3)).norm() < 1e-7);
  CHECK(scene.warnings.empty());
}

/// The geometry of `body` that is visual only (collide false), in order.
std::vector<geometry::Geometry> Visuals(const multibody::Body& body) {
  std::vector<geometry::Geometry> out;
  for (const geometry::Geometry& g : body.geometry)
    if (!g.collide) out.push_back(g);
  return out;
}

/// R_x(a), R_y(a), R_z(a).
Eigen::Matrix3d Turn(const Eigen::Vector3d& axis, double a) {
  return Eigen::AngleAxisd(a, axis).toRotationMatrix();
}

TEST_CASE("models: URDF visuals are visual-only geometry at their origins", "[models][urdf]") {
  // tests/data/urdf/visual_arm.urdf; poses, sizes and the mesh's scale are the file's.
  const std::string urdf = std::string(CSIM_SOURCE_DIR) + "/tests/data/urdf/visual_arm.urdf";
  const std::string entry =
      "csim: 1\nmodels:\n  - {name: arm, file: " + urdf + ", density: 1000";
  std::string expanded;
  const LoadedScene scene = LoadSceneFromText(entry + "}\n", "test.yaml", {}, &expanded);
  const multibody::Model& m = scene.model;
  const double half_pi = M_PI / 2;

  const std::vector<geometry::Geometry> base = Visuals(BodyNamed(m, "base"));
  REQUIRE(base.size() == 1);
  CHECK(base[0].type == geometry::ShapeType::kBox);
  CHECK(base[0].size == Eigen::Vector3d(0.2, 0.1, 0.1));
  CHECK((base[0].X_BG.p - Eigen::Vector3d(0, 0, 0.05)).norm() < 1e-15);
  CHECK((base[0].X_BG.R - Turn(Eigen::Vector3d::UnitZ(), half_pi)).norm() < 1e-15);

  // The arm's four visuals, then the camera's, folded in from its fixed joint.
  const std::vector<geometry::Geometry> arm = Visuals(BodyNamed(m, "arm"));
  REQUIRE(arm.size() == 5);
  const geometry::Geometry& shell = arm[0];
  CHECK(shell.type == geometry::ShapeType::kMesh);
  CHECK(shell.mesh.file.size() > 15);
  CHECK(shell.mesh.file.compare(shell.mesh.file.size() - 15, 15, "notched_box.obj") == 0);
  CHECK(shell.mesh.scale == Eigen::Vector3d(0.1, 0.1, 0.2));
  CHECK(shell.mesh.vertices.empty());  // a reference: never read, hulled or integrated
  CHECK((shell.X_BG.p - Eigen::Vector3d(0.1, 0.2, 0.3)).norm() < 1e-15);
  CHECK((shell.X_BG.R - Turn(Eigen::Vector3d::UnitX(), 0.5)).norm() < 1e-15);
  CHECK(arm[1].type == geometry::ShapeType::kSphere);
  CHECK(arm[1].size[0] == 0.04);
  CHECK((arm[1].X_BG.p - Eigen::Vector3d(0.5, 0, 0)).norm() < 1e-15);
  CHECK(arm[2].type == geometry::ShapeType::kCylinder);
  CHECK(arm[2].size.head<2>() == Eigen::Vector2d(0.02, 0.5));
  CHECK((arm[2].X_BG.R - Turn(Eigen::Vector3d::UnitY(), half_pi)).norm() < 1e-15);
  CHECK(arm[3].type == geometry::ShapeType::kCapsule);
  CHECK(arm[3].size.head<2>() == Eigen::Vector2d(0.03, 0.1));
  // The camera's box: its origin (0.01, 0, 0) in the camera frame, which sits at
  // (0.5, 0, 0.1) turned by pi/2 about z in the arm: (0.5, 0.01, 0.1).
  CHECK(arm[4].type == geometry::ShapeType::kBox);
  CHECK((arm[4].X_BG.p - Eigen::Vector3d(0.5, 0.01, 0.1)).norm() < 1e-15);
  CHECK((arm[4].X_BG.R - Turn(Eigen::Vector3d::UnitZ(), half_pi)).norm() < 1e-15);

  // Mass properties: the file's, and for the tool the density times its collision box
  // (0.1 m cube, 1 kg; inertia m a^2 / 6), not its visual sphere of radius 0.2 m.
  CHECK(BodyNamed(m, "arm").mass == 1.0);
  const multibody::Body& tool = BodyNamed(m, "tool");
  CHECK(tool.mass == Approx(1.0).epsilon(1e-12));
  CHECK(tool.inertia(0, 0) == Approx(1.0 * 0.01 / 6).epsilon(1e-12));
  CHECK(Visuals(tool).size() == 1);
  // The non-convex visual mesh is not warned about (nothing is: the rest is convex).
  CHECK(scene.warnings.empty());

  SECTION("visuals: false leaves them out, and nothing else changes") {
    const LoadedScene without = Load(entry + ", visuals: false}\n");
    REQUIRE(without.model.num_bodies() == m.num_bodies());
    for (int b = 0; b < m.num_bodies(); ++b) {
      CHECK(Visuals(without.model.bodies[b]).empty());
      CHECK(without.model.bodies[b].geometry.size() ==
            m.bodies[b].geometry.size() - Visuals(m.bodies[b]).size());
      CHECK(without.model.bodies[b].mass == m.bodies[b].mass);
      CHECK(without.model.bodies[b].com == m.bodies[b].com);
      CHECK(without.model.bodies[b].inertia == m.bodies[b].inertia);
    }
  }
  SECTION("a run is the same bit for bit without them") {
    // A box dropped onto the arm (its collision box's top is at z = 0.125 m): contact with
    // a body that carries visuals, which must neither touch nor change anything.
    const std::string rest =
        "settings: {time_step: 0.01, duration: 0.3}\n"
        "bodies:\n  - {name: drop, mass: 0.1, geometry: [{shape: box, size: [0.05, 0.05, 0.05]}],"
        " pose: {position: [0.25, 0, 0.3]}}\n";
    const contact_physics::SceneRun with = contact_physics::SimulateLoadedScene(
        Load(entry + "}\n" + rest));
    const contact_physics::SceneRun without = contact_physics::SimulateLoadedScene(
        Load(entry + ", visuals: false}\n" + rest));
    REQUIRE(with.rows.size() == without.rows.size());
    size_t contacts = 0;
    for (size_t i = 0; i < with.rows.size(); ++i) {
      CHECK(with.rows[i].q == without.rows[i].q);
      CHECK(with.rows[i].v == without.rows[i].v);
      CHECK(with.rows[i].contacts.size() == without.rows[i].contacts.size());
      contacts += with.rows[i].contacts.size();
    }
    CHECK(contacts > 0);  // the box has landed on the arm
  }
  SECTION("the expanded scene names the visual mesh file and loads to the same visuals") {
    CHECK_THAT(expanded, Catch::Contains("notched_box.obj"));
    const LoadedScene again = Load(expanded);
    for (int b = 0; b < m.num_bodies(); ++b) {
      const std::vector<geometry::Geometry> a = Visuals(m.bodies[b]);
      const std::vector<geometry::Geometry> c = Visuals(again.model.bodies[b]);
      REQUIRE(a.size() == c.size());
      for (size_t k = 0; k < a.size(); ++k) {
        CHECK(c[k].type == a[k].type);
        CHECK(c[k].mesh.file == a[k].mesh.file);
        CHECK(c[k].mesh.scale == a[k].mesh.scale);
        CHECK((c[k].X_BG.p - a[k].X_BG.p).norm() == 0);
      }
    }
  }
}

TEST_CASE("models: a visual mesh that cannot be found fails unless visuals: false",
          "[models][urdf]") {
  const std::string urdf =
      (std::filesystem::temp_directory_path() / "csim_missing_visual.urdf").string();
  std::ofstream(urdf) << R"(<robot name="r">
  <link name="body">
    <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual>
      <geometry><mesh filename="meshes/gone.dae"/></geometry>
    </visual>
  </link>
</robot>
)";
  const std::string entry = "csim: 1\nmodels:\n  - {name: r, file: " + urdf;
  try {
    Load(entry + "}\n");
    FAIL("the scene loaded");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains(urdf + ":5:"));  // the <mesh> element
    CHECK_THAT(e.what(), Catch::Contains("meshes/gone.dae"));
  }
  CHECK(Load(entry + ", visuals: false}\n").model.num_bodies() == 1);
}

TEST_CASE("models: the Barrett WAM from Debian's dart-doc loads whole", "[models]") {
  const std::string dir = csim::testing::DartUrdfDir() + "/wam";
  const LoadedScene scene = Load("csim: 1\nmodels:\n  - name: wam\n    file: " + dir +
                                 "/wam.urdf\n    packages: {herb_description: " + dir + "}\n");
  const multibody::Model& m = scene.model;
  CHECK(m.num_bodies() == 8);
  CHECK(m.nv == 7);
  double mass = 0;
  for (const multibody::Body& b : m.bodies) mass += b.mass;
  // The sum of the eight <mass> values of wam.urdf.
  CHECK(mass == Approx(9.97059584 + 10.76768767 + 3.87493756 + 1.80228141 + 2.40016804 +
                       0.12376019 + 0.41797364 + 0.06864753).epsilon(1e-14));
  // Each link: its collision mesh and its visual mesh, a COLLADA file kept as a reference.
  for (const multibody::Body& b : m.bodies) {
    REQUIRE(b.geometry.size() == 2);
    CHECK(b.geometry[0].collide);
    CHECK(!b.geometry[1].collide);
    CHECK(b.geometry[1].mesh.file.substr(b.geometry[1].mesh.file.size() - 4) == ".dae");
    CHECK(b.geometry[1].mesh.vertices.empty());
  }
  // The collision hulls stand for their meshes: only those whose hull exceeds the mesh by
  // more than 5 % are reported (wam3: 1.51, wam4: 1.29; wam1: 1.04 is not).
  int hull_warnings = 0;
  for (const std::string& w : scene.warnings) {
    if (w.find("is not convex") == std::string::npos) continue;
    ++hull_warnings;
    CHECK((w.find("wam3_collision") != std::string::npos ||
           w.find("wam4_collision") != std::string::npos));
  }
  CHECK(hull_warnings == 2);
}

}  // namespace
}  // namespace csim::io

namespace csim::io {
namespace {

TEST_CASE("poses: a scene pose is a keyframe q of every trajectory listing its joints",
          "[models][trajectory_reader]") {
  const std::string scene = R"(csim: 1
bodies:
  - {name: a, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}
  - {name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}
joints:
  - {name: ja, type: revolute, parent: world, child: a}
  - {name: jb, type: prismatic, parent: a, child: b}
poses:
  bent: {ja: 0.5, jb: 0.2}
  lone: {ja: 1.0}
trajectories:
  both:
    joints: [jb, ja]
    keyframes: [{t: 0, q: [0, 0]}, {t: 1, q: bent}]
  degrees:
    joints: [ja]
    units: deg
    keyframes: [{t: 0, q: 0}, {t: 1, q: lone}]
)";
  const multibody::Model m = Load(scene).model;
  // Columns in the trajectory's order (jb first); the degree table gets 1 rad back as 1 rad.
  CHECK(m.trajectories[0].table.Evaluate(0, 1.0).q == Approx(0.2).epsilon(1e-15));
  CHECK(m.trajectories[0].table.Evaluate(1, 1.0).q == Approx(0.5).epsilon(1e-15));
  CHECK(m.trajectories[1].table.Evaluate(0, 1.0).q == Approx(1.0).epsilon(1e-14));
  // A pose that misses a listed joint is not one of that trajectory's poses.
  std::string missing = scene;
  missing.replace(missing.find("q: bent"), 7, "q: lone");
  CHECK_THROWS_WITH(Load(missing), Catch::Contains("unknown pose 'lone'"));
  std::string unknown = scene;
  unknown.replace(unknown.find("jb: 0.2"), 7, "jc: 0.2");
  CHECK_THROWS_WITH(Load(unknown), Catch::Contains("test.yaml:9:19: unknown joint 'jc'"));
}

}  // namespace
}  // namespace csim::io

namespace csim::io {
namespace {

TEST_CASE("models: an MJCF keyframe becomes a scene pose that trajectories use", "[models]") {
  // A hinge with ref 0.3: csim's q is MuJoCo's qpos - qpos0 (mjcf_import.h), so the
  // keyframe qpos 1.0 is the pose q = 0.7.
  const std::string xml = (std::filesystem::temp_directory_path() / "csim_pose_test.xml").string();
  std::ofstream(xml) << R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="link">
      <joint name="hinge" type="hinge" axis="0 1 0" ref="0.3"/>
      <geom type="box" size="0.1 0.02 0.02" pos="0.1 0 0" mass="1"/>
    </body>
  </worldbody>
  <keyframe><key name="raised" qpos="1.0"/></keyframe>
</mujoco>
)";
  std::string expanded;
  const LoadedScene scene = LoadSceneFromText(
      "csim: 1\nmodels:\n  - {name: arm, file: " + xml +
          ", prefix: arm_}\ntrajectories:\n  lift:\n    joints: [arm_hinge]\n"
          "    keyframes: [{t: 0, q: 0}, {t: 1, q: arm_raised}]\n",
      "test.yaml", {}, &expanded);
  CHECK(scene.model.trajectories[0].table.Evaluate(0, 1.0).q == Approx(0.7).epsilon(1e-15));
  CHECK_THAT(expanded, Catch::Contains("arm_raised: {arm_hinge: "));
}

}  // namespace
}  // namespace csim::io
