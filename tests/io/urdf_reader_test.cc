// csim's URDF reader (engine/io/urdf_reader.h): a hand-written robot read field by field,
// each error and warning located at the element or attribute at fault (the marker string
// in each fixture names it), and three robots of Debian's dart-doc read as urdfdom 3.0.1,
// the oracle, reads them.

#include "engine/io/urdf_reader.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <urdf_parser/urdf_parser.h>

#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "tests/support/fetched_models.h"

namespace csim::io {
namespace {

constexpr char kFile[] = "robot.urdf";
constexpr double kPi = 3.14159265358979323846;

/// "robot.urdf:LINE:COL" of the first occurrence of `marker` in `text`.
std::string LocationOf(const std::string& text, const std::string& marker) {
  const std::size_t at = text.find(marker);
  INFO("marker: " << marker);
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = text.rfind('\n', at) == std::string::npos
                                     ? 0
                                     : text.rfind('\n', at) + 1;
  const long line = 1 + std::count(text.begin(), text.begin() + at, '\n');
  return std::string(kFile) + ":" + std::to_string(line) + ":" +
         std::to_string(at - line_start + 1);
}

/// The message of the InputError reading `text` must raise.
std::string Rejection(const std::string& text) {
  try {
    ReadUrdfText(text, kFile, nullptr);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("accepted:\n" << text);
  return "";
}

/// `text` is rejected at the first occurrence of `marker` with a message containing `what`.
void CheckRejectedAt(const std::string& text, const std::string& marker,
                     const std::string& what) {
  const std::string message = Rejection(text);
  INFO(message);
  CHECK(message.rfind(LocationOf(text, marker) + ": ", 0) == 0);
  CHECK_THAT(message, Catch::Contains(what));
}

std::vector<std::string> Warnings(const std::string& text) {
  std::vector<std::string> warnings;
  ReadUrdfText(text, kFile, &warnings);
  return warnings;
}

/// `text` is read with exactly `count` warnings, one of them at the first occurrence of
/// `marker` and containing `what`.
void CheckWarnsAt(const std::string& text, const std::string& marker, const std::string& what,
                  std::size_t count = 1) {
  const std::vector<std::string> warnings = Warnings(text);
  const std::string where = LocationOf(text, marker) + ": ";
  bool found = false;
  std::string all;
  for (const std::string& w : warnings) {
    found = found || (w.rfind(where, 0) == 0 && w.find(what) != std::string::npos);
    all += "\n  " + w;
  }
  INFO("expected at " << where << what << "; the warnings:" << all);
  CHECK(found);
  CHECK(warnings.size() == count);
}

/// A robot of `body`, whose first line is line 2.
std::string Robot(const std::string& body) {
  return "<robot name=\"r\">\n" + body + "</robot>\n";
}

/// Two links a -> b joined by `joint` (its element), plus `extra`.
std::string TwoLinks(const std::string& joint, const std::string& extra = "") {
  return Robot("  <link name=\"a\"/>\n  <link name=\"b\"/>\n" + joint + extra);
}

std::string Revolute(const std::string& inside) {
  return "  <joint name=\"j\" type=\"revolute\">\n    <parent link=\"a\"/>\n"
         "    <child link=\"b\"/>\n" + inside + "  </joint>\n";
}

constexpr char kLimit[] = "    <limit lower=\"-1\" upper=\"1\" effort=\"5\" velocity=\"3\"/>\n";

/// A link whose <inertial> has `mass` and `inertia` attributes.
std::string Inertial(const std::string& mass, const std::string& inertia) {
  return Robot("  <link name=\"a\">\n    <inertial>\n      <mass value=\"" + mass +
               "\"/>\n      <inertia " + inertia + "/>\n    </inertial>\n  </link>\n");
}

Eigen::Matrix3d Rx(double a) {
  Eigen::Matrix3d R;
  R << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
  return R;
}
Eigen::Matrix3d Ry(double a) {
  Eigen::Matrix3d R;
  R << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  return R;
}
Eigen::Matrix3d Rz(double a) {
  Eigen::Matrix3d R;
  R << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return R;
}

TEST_CASE("URDF's rpy is R = Rz(yaw) Ry(pitch) Rx(roll)", "[urdf]") {
  const Eigen::Vector3d rpy(0.3, -0.7, 2.1);
  CHECK((UrdfRotation(rpy) - Rz(2.1) * Ry(-0.7) * Rx(0.3)).norm() < 1e-15);
  // A quarter turn of yaw takes the x axis to y.
  CHECK((UrdfRotation({0, 0, kPi / 2}) * Eigen::Vector3d::UnitX() - Eigen::Vector3d::UnitY())
            .norm() < 1e-15);
}

TEST_CASE("a hand-written robot is read as written, with urdfdom's defaults", "[urdf]") {
  std::vector<std::string> warnings;
  const std::string path = std::string(CSIM_SOURCE_DIR) + "/tests/data/urdf/six_links.urdf";
  const UrdfModel m = ReadUrdfFile(path, &warnings);
  CHECK(warnings.empty());
  CHECK(m.name == "six_links");
  CHECK(m.file == path);
  REQUIRE(m.links.size() == 6);
  REQUIRE(m.joints.size() == 5);
  CHECK(m.root == 0);

  REQUIRE(m.materials.size() == 1);
  CHECK(m.materials[0].name == "steel");
  CHECK(*m.materials[0].rgba == Eigen::Vector4d(0.5, 0.5, 0.6, 1));
  CHECK(m.materials[0].line == 5);

  const UrdfLink& base = m.links[0];
  CHECK(base.name == "base");
  CHECK(base.line == 8);
  CHECK(base.parent_joint == -1);
  CHECK(base.child_joints == std::vector<int>{0});
  REQUIRE(base.inertial);
  CHECK(base.inertial->mass == 4.5);
  CHECK(base.inertial->origin.xyz == Eigen::Vector3d(0.1, 0, 0.05));
  CHECK(base.inertial->origin.rpy == Eigen::Vector3d(0, 0, 1.5707963267948966));
  Eigen::Matrix3d I;
  I << 0.03, 0.001, -0.002, 0.001, 0.04, 0.003, -0.002, 0.003, 0.05;
  CHECK(base.inertial->inertia == I);
  // A quarter turn about z, by hand: the inertial frame's x is the link's y, its y the
  // link's -x, so Ixx and Iyy trade places and the terms with one x or y change sign.
  Eigen::Matrix3d I_link;
  I_link << 0.04, -0.001, -0.003, -0.001, 0.03, -0.002, -0.003, -0.002, 0.05;
  CHECK((InertiaInLinkFrame(*base.inertial) - I_link).norm() < 1e-15);
  REQUIRE(base.visuals.size() == 1);
  CHECK(base.visuals[0].name == "base_visual");
  CHECK(base.visuals[0].origin.xyz == Eigen::Vector3d(0, 0, 0.05));
  CHECK(base.visuals[0].origin.rpy == Eigen::Vector3d::Zero());
  CHECK(base.visuals[0].geometry.shape == UrdfShape::kBox);
  CHECK(base.visuals[0].geometry.size == Eigen::Vector3d(0.4, 0.3, 0.1));
  REQUIRE(base.visuals[0].material);
  CHECK(base.visuals[0].material->name == "steel");
  CHECK_FALSE(base.visuals[0].material->rgba);
  REQUIRE(base.collisions.size() == 1);
  CHECK(base.collisions[0].name.empty());
  CHECK(base.collisions[0].origin.xyz == Eigen::Vector3d::Zero());

  const UrdfLink& arm = m.links[1];
  REQUIRE(arm.inertial);
  CHECK(arm.inertial->origin.xyz == Eigen::Vector3d::Zero());  // no <origin>
  CHECK(arm.inertial->origin.rpy == Eigen::Vector3d::Zero());
  CHECK(arm.inertial->inertia.diagonal() == Eigen::Vector3d(0.02, 0.021, 0.004));
  CHECK(InertiaInLinkFrame(*arm.inertial) == arm.inertial->inertia);
  REQUIRE(arm.collisions.size() == 1);
  const UrdfCollision& capsule = arm.collisions[0];
  CHECK(capsule.name == "arm_capsule");
  CHECK(capsule.origin.rpy == Eigen::Vector3d(0.1, 0.2, 0.3));
  CHECK(capsule.geometry.shape == UrdfShape::kCapsule);
  CHECK(capsule.geometry.radius == 0.04);
  CHECK(capsule.geometry.length == 0.3);
  REQUIRE(arm.visuals.size() == 1);
  CHECK(arm.visuals[0].geometry.shape == UrdfShape::kMesh);
  CHECK(arm.visuals[0].geometry.filename == "package://six_links/meshes/arm.stl");
  CHECK(arm.visuals[0].geometry.scale == Eigen::Vector3d(0.001, 0.001, 0.002));
  CHECK(*arm.visuals[0].material->rgba == Eigen::Vector4d(1, 0, 0, 1));

  const UrdfLink& slider = m.links[2];
  CHECK_FALSE(slider.inertial);
  CHECK(slider.collisions[0].geometry.shape == UrdfShape::kCylinder);
  CHECK(slider.collisions[0].geometry.radius == 0.02);
  CHECK(slider.collisions[0].geometry.length == 0.1);
  CHECK(slider.visuals[0].geometry.scale == Eigen::Vector3d::Ones());  // urdfdom's default
  CHECK(slider.child_joints == (std::vector<int>{2, 3, 4}));
  CHECK(m.links[3].collisions[0].geometry.shape == UrdfShape::kSphere);
  CHECK(m.links[3].collisions[0].geometry.radius == 0.01);
  CHECK(m.links[4].visuals.empty());
  CHECK(m.links[4].collisions.empty());

  const UrdfJoint& shoulder = m.joints[0];
  CHECK(shoulder.name == "shoulder");
  CHECK(shoulder.type == UrdfJointType::kRevolute);
  CHECK(shoulder.origin.xyz == Eigen::Vector3d(0, 0, 0.1));
  CHECK(shoulder.origin.rpy == Eigen::Vector3d(0, 0, 0.5));
  CHECK(shoulder.parent == "base");
  CHECK(shoulder.child == "upper_arm");
  CHECK(shoulder.parent_link == 0);
  CHECK(shoulder.child_link == 1);
  CHECK(m.links[1].parent_joint == 0);
  CHECK(shoulder.axis == Eigen::Vector3d(0, 0, 1));  // normalised from 0 0 2
  REQUIRE(shoulder.limit);
  CHECK(shoulder.limit->lower == -1.5);
  CHECK(shoulder.limit->upper == 1.25);
  CHECK(shoulder.limit->effort == 30);
  CHECK(shoulder.limit->velocity == 2);
  CHECK(shoulder.dynamics.damping == 0.5);
  CHECK(shoulder.dynamics.friction == 0.1);
  REQUIRE(shoulder.safety_controller);
  CHECK(shoulder.safety_controller->soft_lower_limit == -1.4);
  CHECK(shoulder.safety_controller->soft_upper_limit == 1.2);
  CHECK(shoulder.safety_controller->k_position == 10);
  CHECK(shoulder.safety_controller->k_velocity == 5);
  REQUIRE(shoulder.calibration);
  CHECK(shoulder.calibration->rising == 0.2);
  CHECK_FALSE(shoulder.calibration->falling);
  CHECK_FALSE(shoulder.mimic);

  const UrdfJoint& extend = m.joints[1];
  CHECK(extend.type == UrdfJointType::kPrismatic);
  CHECK(extend.limit->lower == 0);  // urdfdom's default
  CHECK(extend.limit->upper == 0.2);
  CHECK(extend.dynamics.damping == 0);
  CHECK(extend.dynamics.friction == 0);

  const UrdfJoint& left = m.joints[2];
  CHECK(left.type == UrdfJointType::kContinuous);
  CHECK(left.axis == Eigen::Vector3d(1, 0, 0));  // urdfdom's default
  CHECK_FALSE(left.limit);
  CHECK(left.origin.xyz == Eigen::Vector3d::Zero());

  const UrdfJoint& right = m.joints[3];
  CHECK(right.axis == Eigen::Vector3d(0, 1, 0));
  REQUIRE(right.mimic);
  CHECK(right.mimic->joint == "left_finger_joint");
  CHECK(right.mimic->joint_index == 2);
  CHECK(right.mimic->multiplier == -1);
  CHECK(right.mimic->offset == 0.25);

  CHECK(m.joints[4].type == UrdfJointType::kFixed);
  CHECK(m.joints[4].child_link == 5);

  REQUIRE(m.transmissions.size() == 2);
  const UrdfTransmission& t0 = m.transmissions[0];
  CHECK(t0.name == "shoulder_transmission");
  CHECK(t0.type == "transmission_interface/SimpleTransmission");
  CHECK(t0.joint == "shoulder");
  CHECK(t0.joint_index == 0);
  CHECK(t0.actuator == "shoulder_motor");
  CHECK(t0.mechanical_reduction == 50);
  CHECK(t0.hardware_interfaces ==
        std::vector<std::string>{"hardware_interface/EffortJointInterface"});
  const UrdfTransmission& t1 = m.transmissions[1];  // ROS's old format
  CHECK(t1.type == "pr2_mechanism_model/SimpleTransmission");
  CHECK(t1.joint_index == 1);
  CHECK(t1.actuator == "extend_motor");
  CHECK(t1.mechanical_reduction == 2.5);
}

TEST_CASE("URDF files that cannot be read raise IoError", "[urdf]") {
  CHECK_THROWS_AS(ReadUrdfFile("/nonexistent/robot.urdf", nullptr), IoError);
  CHECK_THROWS_AS(ReadUrdfFile(std::string(CSIM_SOURCE_DIR) + "/tests/data/urdf", nullptr),
                  IoError);
}

TEST_CASE("URDF errors are located at the element or attribute at fault", "[urdf]") {
  SECTION("XML and the robot element") {
    const std::string broken = "<robot name=\"r\">\n  <link name=\"a\">\n</robot>\n";
    const std::string message = Rejection(broken);
    INFO(message);
    // tinyxml2 reports the element left open, at its start tag.
    CHECK(message == "robot.urdf:2:3: not well-formed XML (XML_ERROR_MISMATCHED_ELEMENT: "
                     "XMLElement name=link)");
    // An attribute without its quotes: at the element holding it.
    CheckRejectedAt("<robot name=\"r\">\n  <link name=a/>\n</robot>\n", "<link",
                    "not well-formed XML (XML_ERROR_PARSING_ATTRIBUTE");
    // Nothing to point at: line 1.
    CheckRejectedAt("", "", "not well-formed XML (XML_ERROR_EMPTY_DOCUMENT");
    CheckRejectedAt("<?xml version=\"1.0\"?>\n<sdf version=\"1.6\"/>\n", "<sdf",
                    "the document's element is <sdf>, not <robot>");
    CheckRejectedAt("<robot>\n  <link name=\"a\"/>\n</robot>\n", "<robot",
                    "<robot> has no attribute 'name'");
    CheckRejectedAt(Robot(""), "<robot", "robot 'r' has no <link>");
  }
  SECTION("numbers") {
    CheckRejectedAt(TwoLinks(Revolute("    <limit upper=\"1.o\" effort=\"1\" velocity=\"1\"/>\n")),
                    "upper=", "attribute 'upper' of <limit>: '1.o' is not a finite number");
    CheckRejectedAt(TwoLinks(Revolute("    <origin xyz=\"1 2\"/>\n" + std::string(kLimit))),
                    "xyz=", "attribute 'xyz' of <origin> needs 3 numbers, got '1 2'");
    CheckRejectedAt(TwoLinks(Revolute("    <origin rpy=\"0 nan 0\"/>\n" + std::string(kLimit))),
                    "rpy=", "'nan' is not a finite number");
  }
  SECTION("joints") {
    CheckRejectedAt(TwoLinks("  <joint name=\"j\" type=\"ball\">\n    <parent link=\"a\"/>\n"
                             "    <child link=\"b\"/>\n  </joint>\n"),
                    "type=\"ball", "joint 'j' has unknown type 'ball' (expected revolute");
    CheckRejectedAt(TwoLinks(Revolute("")), "<joint",
                    "joint 'j' is revolute but has no <limit>");
    CheckRejectedAt(TwoLinks("  <joint name=\"j\" type=\"prismatic\">\n    <parent link=\"a\"/>\n"
                             "    <child link=\"b\"/>\n  </joint>\n"),
                    "<joint", "joint 'j' is prismatic but has no <limit>");
    CheckRejectedAt(TwoLinks(Revolute("    <limit lower=\"-1\" upper=\"1\" velocity=\"3\"/>\n")),
                    "<limit", "<limit> has no attribute 'effort'");
    CheckRejectedAt(TwoLinks(Revolute("    <limit lower=\"-1\" upper=\"1\" effort=\"3\"/>\n")),
                    "<limit", "<limit> has no attribute 'velocity'");
    CheckRejectedAt(TwoLinks(Revolute("    <axis xyz=\"0 0 0\"/>\n" + std::string(kLimit))),
                    "xyz=", "the axis of joint 'j' is zero");
    CheckRejectedAt(TwoLinks("  <joint name=\"j\" type=\"fixed\">\n    <child link=\"b\"/>\n"
                             "  </joint>\n"),
                    "<joint", "joint 'j' has no <parent link=");
    CheckRejectedAt(TwoLinks(Revolute(std::string(kLimit) + "    <mimic multiplier=\"2\"/>\n")),
                    "<mimic", "<mimic> has no attribute 'joint'");
  }
  SECTION("links, geometry and inertia") {
    CheckRejectedAt(Robot("  <link name=\"a\">\n    <visual>\n      <origin/>\n    </visual>\n"
                          "  </link>\n"),
                    "<visual", "<visual> has no <geometry>");
    CheckRejectedAt(Robot("  <link name=\"a\">\n    <collision>\n      <geometry>\n"
                          "      </geometry>\n    </collision>\n  </link>\n"),
                    "<geometry", "<geometry> has no shape");
    CheckRejectedAt(Robot("  <link name=\"a\">\n    <collision>\n      <geometry>\n"
                          "        <cone radius=\"1\"/>\n      </geometry>\n    </collision>\n"
                          "  </link>\n"),
                    "<cone", "unknown shape <cone> (expected box, sphere, cylinder, capsule");
    CheckRejectedAt(Robot("  <link name=\"a\">\n    <visual>\n      <geometry>\n"
                          "        <mesh scale=\"1 1 1\"/>\n      </geometry>\n    </visual>\n"
                          "  </link>\n"),
                    "<mesh", "<mesh> has no attribute 'filename'");
    CheckRejectedAt(Robot("  <link name=\"a\">\n    <visual>\n      <geometry>\n"
                          "        <cylinder length=\"1\" radius=\"-0.1\"/>\n      </geometry>\n"
                          "    </visual>\n  </link>\n"),
                    "radius=", "attribute 'radius' of <cylinder> must not be negative");
    const std::string inertia = "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"";
    CheckRejectedAt(Inertial("0", inertia), "value=", "mass of link 'a' must be positive, got 0");
    CheckRejectedAt(Inertial("-2", inertia), "value=", "mass of link 'a' must be positive");
    CheckRejectedAt(Robot("  <link name=\"a\">\n    <inertial>\n      <inertia " + inertia +
                          "/>\n    </inertial>\n  </link>\n"),
                    "<inertial", "<inertial> of link 'a' has no <mass>");
    CheckRejectedAt(Inertial("1", "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" izz=\"1\""), "<inertia ",
                    "<inertia> has no attribute 'iyz'");
    // Off-diagonal terms too large for the diagonal: eigenvalues 1 - 2 < 0.
    CheckRejectedAt(Inertial("1", "ixx=\"1\" ixy=\"2\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\""),
                    "<inertia ", "inertia of link 'a' is not positive definite");
    CheckRejectedAt(Inertial("1", "ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\""),
                    "<inertia ", "inertia of link 'a' is not positive definite");
  }
  SECTION("the tree, names") {
    const std::string twice = Robot("  <link name=\"a\"/>\n  <link  name=\"a\"/>\n");
    CheckRejectedAt(twice, "<link  name", "link 'a' is defined twice (first defined at line 2)");
    CheckRejectedAt(TwoLinks(Revolute(kLimit), "  <joint  name=\"j\" type=\"fixed\">\n"
                                               "    <parent link=\"a\"/>\n"
                                               "    <child link=\"b\"/>\n  </joint>\n"),
                    "<joint  name", "joint 'j' is defined twice (first defined at line 4)");
    CheckRejectedAt(TwoLinks("  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"x\"/>\n"
                             "    <child link=\"b\"/>\n  </joint>\n"),
                    "<parent", "joint 'j': parent link 'x' is not defined");
    CheckRejectedAt(TwoLinks("  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/>\n"
                             "    <child link=\"y\"/>\n  </joint>\n"),
                    "<child", "joint 'j': child link 'y' is not defined");
    CheckRejectedAt(TwoLinks("  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/>\n"
                             "    <child link=\"a\"/>\n  </joint>\n"),
                    "<child", "joint 'j' connects link 'a' to itself");
  }
  SECTION("the tree, shape") {
    const std::string fixed = "  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/>\n"
                              "    <child link=\"b\"/>\n  </joint>\n";
    // b is the child of j and of k (whose <child> is the marker).
    CheckRejectedAt(Robot("  <link name=\"a\"/>\n  <link name=\"b\"/>\n  <link name=\"c\"/>\n" +
                          fixed +
                          "  <joint name=\"k\" type=\"fixed\">\n    <parent link=\"c\"/>\n"
                          "    <child  link=\"b\"/>\n  </joint>\n"),
                    "<child  link", "link 'b' is the child of two joints: 'j' (line 5) and 'k'");
    CheckRejectedAt(Robot("  <link name=\"a\"/>\n  <link name=\"b\"/>\n  <link name=\"c\"/>\n" +
                          fixed),
                    "<link name=\"c", "two root links, 'a' (line 2) and 'c'");
    // a -> b -> a: no root.
    CheckRejectedAt(TwoLinks(fixed, "  <joint name=\"k\" type=\"fixed\">\n"
                                    "    <parent link=\"b\"/>\n"
                                    "    <child link=\"a\"/>\n  </joint>\n"),
                    "<robot", "no root link: every link is the child of a joint");
    // r is the root; a -> b -> a is a cycle beside it.
    CheckRejectedAt(Robot("  <link name=\"r\"/>\n  <link name=\"a\"/>\n  <link name=\"b\"/>\n" +
                          fixed +
                          "  <joint name=\"k\" type=\"fixed\">\n    <parent link=\"b\"/>\n"
                          "    <child link=\"a\"/>\n  </joint>\n"),
                    "<link name=\"a", "link 'a' is not connected to the root link 'r'");
  }
  SECTION("mimic and transmission names") {
    CheckRejectedAt(TwoLinks(Revolute(std::string(kLimit) + "    <mimic joint=\"k\"/>\n")),
                    "<mimic", "joint 'j' mimics joint 'k', which is not defined");
    CheckRejectedAt(TwoLinks(Revolute(std::string(kLimit) + "    <mimic joint=\"j\"/>\n")),
                    "<mimic", "joint 'j' mimics itself");
    CheckRejectedAt(TwoLinks(Revolute(kLimit),
                             "  <transmission name=\"t\">\n"
                             "    <type>transmission_interface/SimpleTransmission</type>\n"
                             "    <joint name=\"k\"/>\n    <actuator name=\"m\"/>\n"
                             "  </transmission>\n"),
                    "<joint name=\"k", "transmission 't' drives joint 'k', which is not defined");
  }
}

TEST_CASE("URDF warnings: nothing unknown is dropped without a word", "[urdf]") {
  CheckWarnsAt(Robot("  <link name=\"a\">\n    <sensor name=\"s\"/>\n  </link>\n"), "<sensor",
               "unknown element <sensor> in <link>: ignored");
  CheckWarnsAt(Robot("  <link name=\"a\" colour=\"red\"/>\n"), "colour=",
               "unknown attribute 'colour' of <link>: ignored");
  // The WAM's inertias carry iyx, izx and izy too: one warning per element.
  CheckWarnsAt(Robot("  <link name=\"a\">\n    <inertial>\n      <mass value=\"1\"/>\n"
                     "      <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyx=\"0\" iyy=\"1\" iyz=\"0\" "
                     "izx=\"0\" izy=\"0\" izz=\"1\"/>\n    </inertial>\n  </link>\n"),
               "iyx=", "unknown attributes 'iyx', 'izx', 'izy' of <inertia>: ignored (the tensor "
                       "is symmetric");
  const std::string gazebo = Robot("  <link name=\"a\"/>\n  <gazebo reference=\"a\">\n"
                                   "    <mu1>0.2</mu1>\n  </gazebo>\n  <gazebo>\n"
                                   "    <plugin name=\"p\"/>\n  </gazebo>\n");
  CheckWarnsAt(gazebo, "<gazebo reference", "<gazebo> ignored", 2);
  CheckWarnsAt(gazebo, "<gazebo>", "<gazebo> ignored", 2);
  CheckWarnsAt(TwoLinks(Revolute("    <origin xyz=\"1 0 0\"/>\n    <origin  xyz=\"2 0 0\"/>\n" +
                                 std::string(kLimit))),
               "<origin  xyz", "second <origin> in <joint>: ignored, only the first one counts");
  CheckWarnsAt(TwoLinks("  <joint name=\"j\" type=\"fixed\">\n    <parent link=\"a\"/>\n"
                        "    <child link=\"b\"/>\n    <axis xyz=\"0 0 1\"/>\n  </joint>\n"),
               "<axis", "a fixed joint has no axis");
  CheckWarnsAt(TwoLinks(Revolute("    <limit lower=\"1\" upper=\"-1\" effort=\"5\" "
                                 "velocity=\"3\"/>\n")),
               "<limit", "joint 'j': lower limit 1 is above upper limit -1");
  CheckWarnsAt(TwoLinks(Revolute(kLimit), "  <transmission name=\"t\">\n"
                                          "    <type>transmission_interface/"
                                          "DifferentialTransmission</type>\n"
                                          "  </transmission>\n"),
               "<transmission", "transmission 't' of type 'transmission_interface/"
                                "DifferentialTransmission' ignored");
  CheckWarnsAt(Robot("  <link name=\"a\">\n    <visual>\n      <geometry>\n"
                     "        <sphere radius=\"1\"/>\n        <box size=\"1 1 1\"/>\n"
                     "      </geometry>\n    </visual>\n  </link>\n"),
               "<box", "second shape <box> in <geometry>: ignored");
  // 1 + 1 < 3: the largest principal moment exceeds the sum of the two others.
  CheckWarnsAt(Inertial("1", "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"3\""),
               "<inertia ", "inertia of link 'a' breaks the triangle inequality");
  // On the boundary, a flat plate's 1 + 1 = 2 (up to the eigensolver's rounding): no warning.
  CHECK(Warnings(Inertial("1", "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
                               "izz=\"2\"")).empty());
}

// ---- The robots of Debian's dart-doc, against urdfdom ----------------------------------

/// The dart-doc URDF folder (tests/support/fetched_models.h), with a trailing '/'.
std::string ModelsDir() { return csim::testing::DartUrdfDir() + "/"; }

Eigen::Vector3d ToEigen(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }
Eigen::Matrix3d ToEigen(const urdf::Rotation& q) {
  return Eigen::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
}
void CheckPose(const UrdfPose& pose, const urdf::Pose& oracle) {
  CHECK((pose.xyz - ToEigen(oracle.position)).norm() <= 1e-12);
  CHECK((UrdfRotation(pose.rpy) - ToEigen(oracle.rotation)).norm() <= 1e-12);
}

UrdfJointType OracleType(int type) {
  switch (type) {
    case urdf::Joint::REVOLUTE: return UrdfJointType::kRevolute;
    case urdf::Joint::CONTINUOUS: return UrdfJointType::kContinuous;
    case urdf::Joint::PRISMATIC: return UrdfJointType::kPrismatic;
    case urdf::Joint::FLOATING: return UrdfJointType::kFloating;
    case urdf::Joint::PLANAR: return UrdfJointType::kPlanar;
    default: return UrdfJointType::kFixed;
  }
}

/// Reads `file` with csim and with urdfdom and checks that both agree on everything
/// urdfdom reads; returns csim's model.
UrdfModel CheckAgainstUrdfdom(const std::string& file, std::vector<std::string>* warnings) {
  INFO(file);
  const UrdfModel model = ReadUrdfFile(file, warnings);
  const urdf::ModelInterfaceSharedPtr oracle = urdf::parseURDFFile(file);
  REQUIRE(oracle);
  CHECK(model.name == oracle->getName());
  REQUIRE(model.links.size() == oracle->links_.size());
  REQUIRE(model.joints.size() == oracle->joints_.size());
  CHECK(model.links[model.root].name == oracle->getRoot()->name);

  for (const UrdfLink& link : model.links) {
    INFO("link " << link.name);
    const urdf::LinkConstSharedPtr o = oracle->getLink(link.name);
    REQUIRE(o);
    if (link.parent_joint < 0) {
      CHECK(!o->parent_joint);
    } else {
      REQUIRE(o->parent_joint);
      CHECK(model.joints[link.parent_joint].name == o->parent_joint->name);
    }
    CHECK(link.child_joints.size() == o->child_joints.size());
    REQUIRE(link.inertial.has_value() == (o->inertial != nullptr));
    if (link.inertial) {
      CHECK(std::abs(link.inertial->mass - o->inertial->mass) <= 1e-12);
      CheckPose(link.inertial->origin, o->inertial->origin);
      Eigen::Matrix3d I;
      I << o->inertial->ixx, o->inertial->ixy, o->inertial->ixz, o->inertial->ixy,
          o->inertial->iyy, o->inertial->iyz, o->inertial->ixz, o->inertial->iyz,
          o->inertial->izz;
      CHECK((link.inertial->inertia - I).norm() <= 1e-12);
    }
    REQUIRE(link.visuals.size() == o->visual_array.size());
    REQUIRE(link.collisions.size() == o->collision_array.size());
    for (std::size_t i = 0; i < link.collisions.size(); ++i) {
      const UrdfCollision& c = link.collisions[i];
      CheckPose(c.origin, o->collision_array[i]->origin);
      const auto* mesh = dynamic_cast<const urdf::Mesh*>(o->collision_array[i]->geometry.get());
      REQUIRE(mesh);  // these robots' collision shapes are all meshes
      CHECK(c.geometry.shape == UrdfShape::kMesh);
      CHECK(c.geometry.filename == mesh->filename);
      CHECK((c.geometry.scale - ToEigen(mesh->scale)).norm() == 0);
    }
    for (std::size_t i = 0; i < link.visuals.size(); ++i) {
      CheckPose(link.visuals[i].origin, o->visual_array[i]->origin);
    }
  }

  for (const UrdfJoint& joint : model.joints) {
    INFO("joint " << joint.name);
    const urdf::JointConstSharedPtr o = oracle->getJoint(joint.name);
    REQUIRE(o);
    CHECK(joint.type == OracleType(o->type));
    CHECK(joint.parent == o->parent_link_name);
    CHECK(joint.child == o->child_link_name);
    CHECK(model.links[joint.parent_link].name == o->parent_link_name);
    CHECK(model.links[joint.child_link].name == o->child_link_name);
    CheckPose(joint.origin, o->parent_to_joint_origin_transform);
    if (joint.type != UrdfJointType::kFixed && joint.type != UrdfJointType::kFloating) {
      CHECK((joint.axis - ToEigen(o->axis).normalized()).norm() <= 1e-12);
    }
    REQUIRE(joint.limit.has_value() == (o->limits != nullptr));
    if (joint.limit) {
      CHECK(joint.limit->lower == o->limits->lower);
      CHECK(joint.limit->upper == o->limits->upper);
      CHECK(joint.limit->effort == o->limits->effort);
      CHECK(joint.limit->velocity == o->limits->velocity);
    }
    CHECK(joint.dynamics.damping == (o->dynamics ? o->dynamics->damping : 0.0));
    CHECK(joint.dynamics.friction == (o->dynamics ? o->dynamics->friction : 0.0));
    REQUIRE(joint.mimic.has_value() == (o->mimic != nullptr));
    if (joint.mimic) {
      CHECK(joint.mimic->joint == o->mimic->joint_name);
      CHECK(joint.mimic->multiplier == o->mimic->multiplier);
      CHECK(joint.mimic->offset == o->mimic->offset);
    }
  }
  return model;
}

TEST_CASE("the Barrett WAM of dart-doc is read as urdfdom reads it", "[urdf]") {
  std::vector<std::string> warnings;
  const std::string file = ModelsDir() + "wam/wam.urdf";
  const UrdfModel wam = CheckAgainstUrdfdom(file, &warnings);
  CHECK(wam.links.size() == 9);
  CHECK(wam.joints.size() == 8);
  // Each of its 8 inertias names iyx, izx and izy, which URDF does not have.
  CHECK(warnings.size() == 8);
  for (const std::string& w : warnings) CHECK_THAT(w, Catch::Contains("'iyx', 'izx', 'izy'"));

  // 6 of its 8 inertial frames are rotated; the inertia about the centre of mass in the
  // link frame is R I R^T, R = Rz(y) Ry(p) Rx(r), here for /wam1 (rpy = -1.570796 0 0).
  int rotated = 0;
  for (const UrdfLink& link : wam.links) {
    rotated += link.inertial && link.inertial->origin.rpy != Eigen::Vector3d::Zero();
  }
  CHECK(rotated == 6);
  const int wam1_index = wam.FindLink("/wam1");
  REQUIRE(wam1_index >= 0);
  const UrdfLink& wam1 = wam.links[wam1_index];
  REQUIRE(wam1.inertial);
  const urdf::InertialSharedPtr o = urdf::parseURDFFile(file)->getLink("/wam1")->inertial;
  Eigen::Matrix3d I;
  I << o->ixx, o->ixy, o->ixz, o->ixy, o->iyy, o->iyz, o->ixz, o->iyz, o->izz;
  const Eigen::Matrix3d R = Rx(-1.570796);
  CHECK(wam1.inertial->origin.rpy == Eigen::Vector3d(-1.570796, 0, 0));
  CHECK((InertiaInLinkFrame(*wam1.inertial) - R * I * R.transpose()).norm() <= 1e-12);
  // A turn of almost -90 degrees about x: the inertial frame's z is the link's y.
  CHECK(std::abs(InertiaInLinkFrame(*wam1.inertial)(1, 1) - o->izz) < 1e-6);
}

TEST_CASE("the KUKA KR5 of dart-doc is read as urdfdom reads it", "[urdf]") {
  std::vector<std::string> warnings;
  // A space in the file name.
  const UrdfModel kr5 = CheckAgainstUrdfdom(ModelsDir() + "KR5/KR5 sixx R650.urdf", &warnings);
  CHECK(kr5.joints.size() == 7);
  CHECK(warnings.empty());
}

TEST_CASE("the DRC-Hubo of dart-doc is read as urdfdom reads it", "[urdf]") {
  std::vector<std::string> warnings;
  const UrdfModel hubo = CheckAgainstUrdfdom(ModelsDir() + "drchubo/drchubo.urdf", &warnings);
  CHECK(hubo.links.size() == 52);
  CHECK(hubo.joints.size() == 51);
  CHECK(warnings.empty());
}

}  // namespace
}  // namespace csim::io
