#pragma once
// A robot model read from a URDF or MJCF file, already in csim's terms (bodies, joints with
// csim's joint types and frame conventions, geometry, constraints, actuators, named poses),
// before a scene's `models:` entry places it (model_expansion.h). One struct for both
// formats, so that prefixing, attaching, locking, excluding and merging are written once.
//
// Conventions are the scene format's: a joint's frame J is given in its parent body's frame
// (X_PJ), and at q = 0 the child body's frame coincides with J; axes are unit vectors in J;
// inertia is about the centre of mass in body axes. Every element carries the location in
// the model file it came from, so that a problem found later is reported there.

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/common/input_error.h"
#include "engine/math/spatial.h"
#include "engine/multibody/model.h"

namespace csim::io {

enum class ImportedShape { kBox, kSphere, kCylinder, kCapsule, kEllipsoid, kMesh, kPlane };

struct ImportedGeometry {
  std::string name;  ///< may be empty
  ImportedShape shape = ImportedShape::kBox;
  Eigen::Vector3d size = Eigen::Vector3d::Zero();   ///< box: full edge lengths [m]
  double radius = 0.0;                              ///< sphere, cylinder, capsule [m]
  double length = 0.0;  ///< cylinder: full length; capsule: between cap centres [m]; along z
  Eigen::Vector3d radii = Eigen::Vector3d::Zero();  ///< ellipsoid semi-axes [m]
  /// Mesh from a file (OBJ, STL or COLLADA), resolved to a path csim can open, and its
  /// per-axis scale. A visual mesh (collide false) stays a reference to the file.
  std::string mesh_file;
  Eigen::Vector3d scale = Eigen::Vector3d::Ones();
  /// Mesh given by its vertices [m] and triangles (when mesh_file is empty), e.g. as MuJoCo
  /// compiled it.
  std::vector<Eigen::Vector3d> vertices;
  std::vector<Eigen::Vector3i> triangles;
  math::RigidTransform pose;  ///< geometry frame in the body frame
  bool collide = true;        ///< false: visual only
  /// Colour (red, green, blue, alpha in [0, 1]) the file gives: an MJCF geom's, a URDF
  /// visual's material's. The scene format has no colour key: it goes no further.
  std::optional<Eigen::Vector4d> rgba;
  SourceLocation source;
};

struct ImportedBody {
  std::string name;
  double mass = 0.0;  ///< [kg]; 0 with has_inertial false: the file gave none
  Eigen::Vector3d com = Eigen::Vector3d::Zero();      ///< in the body frame [m]
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();  ///< about com, body axes [kg m^2]
  bool has_inertial = false;
  std::vector<ImportedGeometry> geometry;
  SourceLocation source;
};

struct ImportedJoint {
  std::string name;
  multibody::JointType type = multibody::JointType::kFixed;
  int parent = -1;  ///< index into ImportedModel::bodies; -1: the model's base (world or attach parent)
  int child = -1;   ///< index into ImportedModel::bodies
  math::RigidTransform X_PJ;  ///< joint frame in the parent body's frame (base frame if parent -1)
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  ///< revolute, prismatic: unit, in J
  std::optional<double> lower, upper;  ///< position limits [rad or m] (one-coordinate joints)
  double effort_limit = std::numeric_limits<double>::infinity();  ///< [N m or N]
  double damping = 0.0;    ///< [N m s/rad or N s/m]
  double friction = 0.0;   ///< dry friction [N m or N]
  double armature = 0.0;   ///< [kg m^2 or kg]
  double stiffness = 0.0;  ///< joint spring [N m/rad or N/m]
  double spring_rest = 0.0;
  Eigen::VectorXd q_initial;  ///< empty: the joint's zero configuration
  SourceLocation source;
};

enum class ImportedConstraintType { kCoupler, kBall, kWeld };

/// A holonomic constraint in the scene's `constraints:` terms.
struct ImportedConstraint {
  ImportedConstraintType type = ImportedConstraintType::kCoupler;
  std::string name;  ///< may be empty
  // coupler: q[joint] = ratio q[follows] + offset
  std::string joint, follows;
  double ratio = 1.0, offset = 0.0;
  // ball, weld: body names ("" for the base), points or frames in them
  std::string body_a, body_b;
  Eigen::Vector3d point_a = Eigen::Vector3d::Zero(), point_b = Eigen::Vector3d::Zero();
  math::RigidTransform pose_a, pose_b;
  SourceLocation source;
};

/// An actuator on a one-coordinate joint: a position servo (kp > 0) or a force actuator.
struct ImportedActuator {
  std::string name;
  std::string joint;
  double kp = 0.0, kd = 0.0;
  double effort_limit = std::numeric_limits<double>::infinity();
  SourceLocation source;
};

/// A named configuration (MJCF keyframe): q of each listed joint.
struct ImportedPose {
  std::string name;
  std::vector<std::string> joints;
  std::vector<Eigen::VectorXd> q;  ///< per listed joint, its nq values
  SourceLocation source;
};

/// A named frame fixed on a body (a merged fixed link, an MJCF site).
struct ImportedFrame {
  std::string name;
  std::string body;  ///< "" for the base
  math::RigidTransform X_BF;
  SourceLocation source;
};

struct ImportedModel {
  std::string name;
  std::string file;  ///< the model file as given, for messages
  std::vector<ImportedBody> bodies;
  /// At most one inboard joint per body. A body that is no joint's child is a root: the
  /// scene entry's `attach` decides its joint (a weld at attach.pose, or free).
  std::vector<ImportedJoint> joints;
  std::vector<ImportedGeometry> base_geometry;  ///< welded to the base (MJCF worldbody geoms)
  std::vector<ImportedConstraint> constraints;
  std::vector<ImportedActuator> actuators;
  std::vector<ImportedPose> poses;
  std::vector<ImportedFrame> frames;
  /// Collision pairs the model excludes (MJCF <contact><exclude>), by body name.
  std::vector<std::pair<std::string, std::string>> excluded_pairs;
};

}  // namespace csim::io
