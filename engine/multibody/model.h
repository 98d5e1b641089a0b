#pragma once
// The immutable description of an articulated forest, built once by the loader
// (engine/io) and read by every algorithm. Nothing here changes during a run.
//
// Tree layout (Featherstone's convention): bodies are numbered 0..nb-1 in topological
// order, so parent(i) < i, with the world as parent -1. Every body has exactly one
// inboard joint, and joint i is the inboard joint of body i (a body that is the child of
// no joint in the scene got a free joint named after it). Joint i's coordinates are
// q[q_start .. q_start+nq) and v[v_start .. v_start+nv); a prescribed or fixed joint owns
// none (q_start = v_start = -1), its motion is a known function of time.

#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "engine/control/signal.h"
#include "engine/control/trajectory.h"
#include "engine/geometry/shape.h"
#include "engine/multibody/holonomic_constraint.h"
#include "engine/multibody/actuator.h"
#include "engine/math/spatial.h"

namespace csim::multibody {

enum class JointType { kFixed, kRevolute, kPrismatic, kPlanar, kBall, kFree };

/// Scene-format name of a joint type ("revolute", ...).
const char* JointTypeName(JointType type);
/// Number of position / velocity coordinates of a joint type (scene-format.md table).
int JointNq(JointType type);
int JointNv(JointType type);

/// Where a prescribed joint's q(t) comes from.
enum class PrescribedKind {
  kSine,   ///< `sine`: q = amplitude sin(2 pi frequency t + phase), elementwise
  kTable,  ///< `table`: the joint's columns of a keyframe trajectory (Model::trajectories)
};

/// Kinematic motion of a prescribed joint, a known function of time.
struct PrescribedMotion {
  PrescribedKind kind = PrescribedKind::kSine;
  Eigen::VectorXd amplitude;  ///< sine: per coordinate, units of q
  double frequency = 0.0;     ///< sine: [Hz]
  double phase = 0.0;         ///< sine: [rad]
  int trajectory = -1;        ///< table: index into Model::trajectories
  int first_column = 0;       ///< table: the column of the joint's first coordinate (nv columns)
};

struct Joint {
  std::string name;
  JointType type = JointType::kFixed;
  int parent = -1;                      ///< parent body index, -1 for world
  int child = -1;                       ///< child body index (== this joint's index)
  math::RigidTransform X_PJ;            ///< joint frame J in the parent body frame P
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  ///< unit axis in J (revolute, prismatic)
  bool collide = false;                 ///< parent and child may collide
  // Coordinates (a prescribed joint keeps its natural size in nq/nv but owns no slots).
  int nq = 0, nv = 0;                   ///< per JointNq/JointNv of type
  int q_start = -1, v_start = -1;       ///< offsets in q, v; -1 if fixed or prescribed
  Eigen::VectorXd q_initial, v_initial; ///< (nq), (nv): initial coordinates
  // Joint-space force elements, per velocity coordinate (empty when absent).
  Eigen::VectorXd spring_stiffness;     ///< [N/m] or [N m/rad]; size nv or 0
  Eigen::VectorXd spring_rest;          ///< units of q; size nv or 0
  Eigen::VectorXd damping;              ///< [N s/m] or [N m s/rad]; size nv or 0
  /// Reflected rotor inertia added to M's diagonal, per coordinate [kg or kg m^2] >= 0;
  /// size nv or 0 (revolute, prismatic, planar joints that own coordinates).
  Eigen::VectorXd armature;
  /// Dry friction limit f_s per coordinate [N or N m] >= 0, 0 meaning none; size nv or 0
  /// (revolute, prismatic, planar joints that own coordinates).
  Eigen::VectorXd friction;
  Eigen::VectorXd lower, upper;         ///< limits, units of q; size nv or 0
  bool prescribed = false;
  PrescribedMotion motion;              ///< meaningful when prescribed
};

/// What a scene gave of a body's mass properties (scene-format.md "bodies"), which decides
/// what a change of its mass moves (`--set bodies.NAME.mass=M`, the `bodies.NAME.mass`
/// sensitivity, docs/design/sensitivities.md §9).
enum class MassSource {
  kMassAndInertia,  ///< mass and inertia given (or imported, or built in code): the inertia
                    ///< stays when the mass changes
  kMass,            ///< mass alone: the inertia is the geometry's scaled to the mass, so it
                    ///< scales with it (the com, the geometry's or given, does not move)
  kDensity,         ///< density: the mass is density x volume and the inertia the
                    ///< geometry's; there is no mass entry to change
};

struct Body {
  std::string name;
  double mass = 0.0;                                   ///< [kg] > 0
  Eigen::Vector3d com = Eigen::Vector3d::Zero();       ///< centre of mass in B [m]
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();   ///< about com, B axes [kg m^2], SPD
  std::vector<geometry::Geometry> geometry;            ///< in the body frame
  MassSource mass_source = MassSource::kMassAndInertia;
};

/// A named frame fixed on a body (scene `frames:`): a tool point, a site or a merged fixed
/// link that trajectories and imports refer to by name instead of by a body and an offset.
struct Frame {
  std::string name;
  int body = -1;                 ///< the body it is fixed on, -1 for the world
  math::RigidTransform X_BF;     ///< the frame F in the body frame B
};

/// A named keyframe trajectory (scene `trajectories:`). Each listed joint (revolute,
/// prismatic or planar) owns nv consecutive columns, its coordinates in order, in the units
/// of q ([rad] or [m]; `units: deg` is converted when loading).
struct JointTrajectory {
  std::string name;
  std::vector<int> joints;        ///< the listed joints (joint = body index), in column order
  std::vector<int> first_column;  ///< the first column of each listed joint
  control::Trajectory table;      ///< num_columns() = the sum of the joints' nv
};

/// An external wrench on a body (scene `loads:`): a force applied at a point of the body and
/// a torque, both in world or body axes and optionally scaled by a signal. Applied
/// explicitly, as the generalized force J^T f at the start of each step
/// (multibody/external_loads.h).
struct ExternalLoad {
  int body = -1;                                     ///< the body it acts on
  Eigen::Vector3d point = Eigen::Vector3d::Zero();   ///< point of application in B [m]
  Eigen::Vector3d force = Eigen::Vector3d::Zero();   ///< [N], world or body axes
  Eigen::Vector3d torque = Eigen::Vector3d::Zero();  ///< [N m], world or body axes
  bool body_axes = false;  ///< force and torque in B's axes (rotate with it); else world's
  int signal = -1;         ///< index into Model::signals scaling both; -1: a constant 1
};

/// A whole forest. Built by io::BuildModel; validated there; read-only afterwards.
struct Model {
  std::vector<Body> bodies;                  ///< nb bodies in topological order
  std::vector<Joint> joints;                 ///< joints[i] is the inboard joint of bodies[i]
  std::vector<Frame> frames;                 ///< named frames (scene `frames:`), file order
  std::vector<int> parent;                   ///< parent[i] = joints[i].parent, -1 world
  std::vector<geometry::Geometry> world_geometry;  ///< geometry welded to the world
  std::vector<geometry::Material> materials; ///< named materials; index used by Geometry
  int default_material = -1;                 ///< index of the material named "default", or -1
  Eigen::Vector3d gravity{0, 0, -9.81};      ///< [m/s^2], world frame
  int nq = 0, nv = 0;
  control::SignalGraph signals;              ///< named signals (scene `signals:`); may be empty
  std::vector<JointTrajectory> trajectories; ///< named trajectories, in file order
  std::vector<ExternalLoad> loads;           ///< external wrenches, in file order
  std::vector<HolonomicConstraint> constraints;  ///< scene `constraints:`, in file order
  std::vector<Actuator> actuators;           ///< joint actuators (scene `actuators:`)
  /// Body pairs (-1: the world) that never collide, from the scene's `collision_filter:`,
  /// each (min, max); added to the joint and constraint rules of contact/collision_setup.h.
  std::vector<std::pair<int, int>> excluded_collisions;

  int num_bodies() const { return static_cast<int>(bodies.size()); }
  /// Index of the body with this name, or -1.
  int FindBody(const std::string& name) const;
  /// Index of the joint with this name, or -1.
  int FindJoint(const std::string& name) const;
  /// Index of the frame with this name, or -1.
  int FindFrame(const std::string& name) const;
  /// Index of the trajectory with this name, or -1.
  int FindTrajectory(const std::string& name) const;
  /// Initial q and v assembled from every joint's q_initial / v_initial.
  Eigen::VectorXd InitialQ() const;
  Eigen::VectorXd InitialV() const;
  /// True if some coordinate has joint friction (Joint::friction > 0).
  bool HasJointFriction() const;
  /// Whether some colliding geometry has a `hydroelastic:` block (contact surfaces possible).
  bool HasHydroelasticGeometry() const;
};

/// Assigns q_start/v_start to joints that own coordinates, in joint order, and sets
/// model.nq, model.nv and model.parent. Called by the loader after the joints are final.
void AssignCoordinates(Model& model);

}  // namespace csim::multibody
