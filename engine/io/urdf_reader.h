#pragma once
// Reading a URDF robot description into a plain struct (UrdfModel), with every rejection a
// csim::InputError and every warning a string, both `FILE:LINE:COL: message`.
//
// csim reads URDF itself, with tinyxml2, rather than through urdfdom: urdfdom reports its
// errors to a console logger without a line and returns only "null model", and drops
// whatever it does not know without a word. Here the semantics and defaults are urdfdom
// 3.0.1's (the tests check the robots read against it), and:
//   - Location: tinyxml2 knows the line of each element and attribute; the column is found
//     in the text (the `<` of an element, the first letter of an attribute's name), the
//     first such match on that line when the same tag appears twice on one line. A file
//     that is not well-formed XML is rejected at the element tinyxml2 names (a start tag
//     left open, a malformed attribute), else at column 1 of the line it reports.
//   - Nothing is dropped silently: an unknown element or attribute, a second copy of an
//     element urdfdom reads once (it takes the first), each <gazebo> block, an axis on a
//     fixed or floating joint, a transmission other than a SimpleTransmission: each is a
//     warning and is otherwise ignored.
//   - Additions: <capsule radius length> (length of the cylindrical part, between the two
//     hemispheres' centres, as csim's own capsule and Gazebo's); <transmission>
//     (SimpleTransmission, in ROS's old and new formats) is kept, urdfdom leaves it out.
//   - Further checks (located errors), most of which urdfdom does not make: a joint axis
//     of zero length (the axis is normalised; an <axis> without xyz, which urdfdom reads
//     as zero, is one too), a negative box size, radius or length, a link that is the
//     child of two joints, links not connected to the root, a mimic or transmission naming
//     a joint that does not exist. Inertia: mass <= 0 or a tensor that is not positive definite is
//     an error (no rigid body has it, and the simulator would divide by it); a tensor that
//     breaks the triangle inequality of its principal moments (I1 <= I2 + I3) by more than
//     1e-9 of its largest moment is only a warning, since such a body still simulates and
//     CAD exports round thin parts into it. A limit with lower > upper, a <dynamics> with
//     neither damping nor friction (an urdfdom error) and a robot version other than 1.0
//     are warnings.
// Out of scope: resolving mesh file names (`package://...` stays as written) and turning
// the model into csim bodies and joints.

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace csim::io {

/// A frame as URDF writes it: translation xyz [m] and fixed-axis roll, pitch, yaw [rad].
struct UrdfPose {
  Eigen::Vector3d xyz = Eigen::Vector3d::Zero();
  Eigen::Vector3d rpy = Eigen::Vector3d::Zero();
};

/// URDF's rotation of roll-pitch-yaw angles: R = Rz(yaw) Ry(pitch) Rx(roll), mapping
/// vectors of the rotated frame into the frame it is given in.
Eigen::Matrix3d UrdfRotation(const Eigen::Vector3d& rpy);

enum class UrdfShape { kBox, kSphere, kCylinder, kCapsule, kMesh };

/// One <geometry>: the fields its shape uses, the others left at their defaults.
struct UrdfGeometry {
  UrdfShape shape = UrdfShape::kBox;
  Eigen::Vector3d size = Eigen::Vector3d::Zero();  ///< box: full edge lengths [m]
  double radius = 0.0;                             ///< sphere, cylinder, capsule [m]
  double length = 0.0;                             ///< cylinder, capsule: along z [m]
  std::string filename;                            ///< mesh: as written in the file
  Eigen::Vector3d scale = Eigen::Vector3d::Ones(); ///< mesh
  int line = 0;                                    ///< of the shape's element
};

/// A <material>: at robot level, or inside a <visual> (where it may only name one).
struct UrdfMaterial {
  std::string name;
  std::optional<Eigen::Vector4d> rgba;  ///< <color rgba>
  std::string texture;                  ///< <texture filename>
  int line = 0;
};

struct UrdfVisual {
  std::string name;  ///< optional in URDF
  UrdfPose origin;   ///< in the link frame
  UrdfGeometry geometry;
  std::optional<UrdfMaterial> material;
  int line = 0;
};

struct UrdfCollision {
  std::string name;  ///< optional in URDF
  UrdfPose origin;   ///< in the link frame
  UrdfGeometry geometry;
  int line = 0;
};

struct UrdfInertial {
  UrdfPose origin;  ///< of the centre of mass and the inertia's axes, in the link frame
  double mass = 0.0;
  /// About the centre of mass, in the frame rotated by origin.rpy (ixx..izz as written).
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  int line = 0;
};

struct UrdfLink {
  std::string name;
  std::optional<UrdfInertial> inertial;  ///< none: urdfdom's "no inertial" (massless)
  std::vector<UrdfVisual> visuals;
  std::vector<UrdfCollision> collisions;
  int parent_joint = -1;          ///< index into UrdfModel::joints; -1 for the root
  std::vector<int> child_joints;  ///< in file order
  int line = 0;
};

enum class UrdfJointType { kRevolute, kContinuous, kPrismatic, kFixed, kFloating, kPlanar };

/// "revolute", "continuous", ... as URDF spells them.
const char* UrdfJointTypeName(UrdfJointType type);

struct UrdfLimit {
  double lower = 0.0, upper = 0.0;  ///< [rad] or [m]; urdfdom's default 0 each
  double effort = 0.0;              ///< [N m] or [N]; required
  double velocity = 0.0;            ///< [rad/s] or [m/s]; required
  int line = 0;
};

struct UrdfDynamics {
  double damping = 0.0;
  double friction = 0.0;
};

struct UrdfMimic {
  std::string joint;  ///< the joint followed: q = multiplier * q_joint + offset
  int joint_index = -1;
  double multiplier = 1.0;
  double offset = 0.0;
  int line = 0;
};

struct UrdfSafetyController {
  double soft_lower_limit = 0.0, soft_upper_limit = 0.0;
  double k_position = 0.0;
  double k_velocity = 0.0;  ///< required
};

struct UrdfCalibration {
  std::optional<double> rising, falling;
};

struct UrdfJoint {
  std::string name;
  UrdfJointType type = UrdfJointType::kFixed;
  UrdfPose origin;  ///< joint frame in the parent link's frame (= child link frame at q = 0)
  std::string parent, child;
  int parent_link = -1, child_link = -1;  ///< indices into UrdfModel::links
  /// Unit vector in the joint frame: the rotation or translation axis, a planar joint's
  /// normal. (1, 0, 0) when not given.
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();
  std::optional<UrdfLimit> limit;  ///< always present for revolute and prismatic joints
  UrdfDynamics dynamics;
  std::optional<UrdfMimic> mimic;
  std::optional<UrdfSafetyController> safety_controller;
  std::optional<UrdfCalibration> calibration;
  int line = 0;
};

/// A SimpleTransmission: one actuator driving one joint through a gear ratio.
struct UrdfTransmission {
  std::string name;
  std::string type;  ///< as written, e.g. "transmission_interface/SimpleTransmission"
  std::string joint;
  int joint_index = -1;
  std::string actuator;
  double mechanical_reduction = 1.0;
  std::vector<std::string> hardware_interfaces;  ///< of the joint, as written
  int line = 0;
};

struct UrdfModel {
  std::string name;
  std::string file;  ///< as given for messages
  std::vector<UrdfLink> links;
  std::vector<UrdfJoint> joints;
  std::vector<UrdfMaterial> materials;  ///< robot-level, by name
  std::vector<UrdfTransmission> transmissions;
  int root = -1;  ///< the one link that is no joint's child

  /// Index of the link or joint named `name`, or -1.
  int FindLink(const std::string& name) const;
  int FindJoint(const std::string& name) const;
};

/// The link's inertia about its centre of mass, expressed in the link frame:
/// R I R^T with R = UrdfRotation(inertial.origin.rpy).
Eigen::Matrix3d InertiaInLinkFrame(const UrdfInertial& inertial);

/// Reads the URDF document `text`; messages name `path_for_messages`. Throws InputError at
/// the first error; appends each warning to `warnings` (may be null: then dropped).
UrdfModel ReadUrdfText(const std::string& text, const std::string& path_for_messages,
                       std::vector<std::string>* warnings);

/// Reads the URDF file at `path`. Throws IoError if it cannot be read, else as ReadUrdfText.
UrdfModel ReadUrdfFile(const std::string& path, std::vector<std::string>* warnings);

}  // namespace csim::io
