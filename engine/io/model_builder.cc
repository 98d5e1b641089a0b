#include "engine/io/model_builder.h"

#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/geometry/mass_properties.h"
#include "engine/io/actuator_reader.h"
#include "engine/io/collision_filter_reader.h"
#include "engine/io/constraint_reader.h"
#include "engine/io/geometry_reader.h"
#include "engine/io/load_reader.h"
#include "engine/io/signal_reader.h"
#include "engine/io/trajectory_reader.h"
#include "engine/math/rotation.h"
#include "engine/multibody/energy.h"
#include "engine/multibody/kinematics.h"

namespace csim::io {
namespace {

using geometry::Geometry;
using geometry::ShapeType;
using multibody::Body;
using multibody::Joint;
using multibody::JointType;

/// A body as read from the file, before topological sorting.
struct BodySpec {
  NodeReader node;
  Body body;
  std::optional<NodeReader> pose, velocity;  ///< free bodies only
};

/// Where a body's initial state was set, for located messages: who owns it ("body 'ball'"
/// for a free body, "joint 'hinge'" otherwise), the node of its position (`initial.q` of a
/// joint or `pose` of a free body when given, else the joint or body itself) and of its
/// velocity (`initial.v` or `velocity`) if given.
struct StateSource {
  std::string owner;
  NodeReader position;
  std::optional<NodeReader> velocity;
};

/// A joint as read from the file, with the file-order indices of its bodies.
struct JointSpec {
  NodeReader node;
  Joint joint;
  int parent = -1;  ///< file-order body index, -1 world
  int child = -1;   ///< file-order body index
};

// ---- Small readers ------------------------------------------------------------------------

/// `name` with control characters shown as \xNN, so that a message stays one printable line.
std::string Printable(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    out += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
  }
  return out;
}

}  // namespace

// Names are addressed by `--set` paths (`bodies.ball.mass`, scene_overrides.h) and written
// to the output, so a name must not be empty, nor contain '.' (separates path elements),
// '[' or ']' (list indices), '=' (ends the path), '/' (separates HDF5 and file paths) or a
// control character (yaml-cpp keeps an escaped NUL, "a\0b", inside a scalar).
std::string ReadName(const NodeReader& node, const std::string& what) {
  const std::string name = node.AsString();
  if (name.empty()) node.Fail(what + " name must not be empty");
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    const bool control = u < 0x20 || u == 0x7f;
    if (!control && std::string(".[]=/").find(c) == std::string::npos) continue;
    node.Fail(what + " name '" + Printable(name) + "' must not contain " +
              (control ? "a control character" : "'" + std::string(1, c) + "'") +
              " (names are used in --set paths)");
  }
  return name;
}

namespace {

/// Reads a quaternion [w, x, y, z] and normalises it; a zero quaternion is rejected.
Eigen::Vector4d ReadQuaternion(const NodeReader& node) {
  const Eigen::Vector4d q = node.AsVector(4);
  if (q.norm() < 1e-12) node.Fail("quaternion must not be zero");
  return q.normalized();
}

/// `{position, rpy | quaternion}` -> X_AB.
math::RigidTransform ReadPose(const NodeReader& node) {
  node.CheckKeys({"position", "rpy", "quaternion"});
  math::RigidTransform X;
  if (auto p = node.Find("position")) X.p = p->AsVector3();
  const auto rpy = node.Find("rpy");
  const auto quat = node.Find("quaternion");
  if (rpy && quat) quat->Fail("give either rpy or quaternion, not both");
  if (rpy) X.R = math::RotationFromRpy(rpy->AsVector3());
  if (quat) X.R = math::RotationFromQuaternion(ReadQuaternion(*quat));
  return X;
}

/// A vector of `size` numbers, each at least `lower`; a scalar is accepted when size is 1.
Eigen::VectorXd ReadVectorAtLeast(const NodeReader& node, int size, double lower) {
  const Eigen::VectorXd v = node.AsVector(size, true);
  if (node.IsSequence()) {
    const std::vector<NodeReader> items = node.Items();
    for (int i = 0; i < v.size(); ++i)
      if (v[i] < lower) items[i].Fail("must not be negative");
  } else if (v.size() == 1 && v[0] < lower) {
    node.Fail("must not be negative");
  }
  return v;
}


// ---- Bodies -------------------------------------------------------------------------------

/// Rejects an inertia that is not positive definite or whose principal moments violate the
/// triangle inequality (a physical rigid body has I1 + I2 >= I3 for every permutation).
void CheckInertia(const Eigen::Matrix3d& I, const NodeReader& at, const std::string& body) {
  const Eigen::Vector3d e = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I).eigenvalues();
  std::ostringstream list;
  list << e[0] << ", " << e[1] << ", " << e[2];
  const std::string prefix = "body '" + body + "': inertia ";
  if (!(e.minCoeff() > 0)) {
    at.Fail(prefix + "is not positive definite (eigenvalues " + list.str() + ")");
  }
  const double slack = 1e-9 * e.sum();  // round-off allowance for thin rods and plates
  if (e[0] + e[1] < e[2] - slack) {
    at.Fail(prefix + "violates the triangle inequality (principal moments " + list.str() + ")");
  }
}

/// `[ixx, iyy, izz, ixy, ixz, iyz]` -> symmetric 3x3.
Eigen::Matrix3d ReadInertia(const NodeReader& node) {
  const Eigen::VectorXd v = node.AsVector(6);
  Eigen::Matrix3d I;
  I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
  return I;
}

/// "sphere", "mesh 'meshes/rock.obj'": a geometry's shape, for messages.
std::string DescribeShape(const Geometry& g) {
  std::string text = geometry::ShapeTypeName(g.type);
  if (g.type == ShapeType::kMesh && !g.mesh.file.empty()) text += " '" + g.mesh.file + "'";
  return text;
}

/// Fails at the first collision geometry of `spec` (halfspaces aside) whose volume is zero
/// or infinite: the mass rules divide by the volume, and a shape whose sizes underflow
/// (`radius: 1e-300`) or overflow in double precision would add nothing, or infinity.
void CheckGeometryVolumes(const BodySpec& spec) {
  const std::vector<Geometry>& geometry = spec.body.geometry;
  for (size_t g = 0; g < geometry.size(); ++g) {
    if (!geometry[g].collide || geometry[g].type == ShapeType::kHalfspace) continue;
    // 0 when it underflows; infinite, or NaN (inf - inf in a mesh's products), when it
    // overflows.
    const double volume = geometry::UnitShapeMassProperties(geometry[g]).mass;
    if (volume > 0 && std::isfinite(volume)) continue;
    spec.node.Get("geometry").Items()[g].Fail(
        "body '" + spec.body.name + "': geometry " + std::to_string(g) + " (" +
        DescribeShape(geometry[g]) + ") " +
        (volume == 0 ? "has no volume: its size is too small for its mass properties"
                     : "is too large: its volume overflows"));
  }
}

/// Applies the mass rules of scene-format.md "bodies" to `spec.body` (geometry read).
void ResolveMassProperties(BodySpec& spec) {
  const NodeReader& b = spec.node;
  Body& body = spec.body;
  const auto mass = b.Find("mass");
  const auto density = b.Find("density");
  const auto com = b.Find("com");
  const auto inertia = b.Find("inertia");
  if (mass && density) density->Fail("body '" + body.name + "': give mass or density, not both");
  if (!mass && !density) b.Fail("body '" + body.name + "' needs a mass or a density");
  const double given = mass ? mass->AsPositive() : density->AsPositive();
  if (density || !inertia) CheckGeometryVolumes(spec);
  const geometry::MassProperties unit = geometry::UnitGeometryMassProperties(body.geometry);
  const bool has_volume = unit.mass > 0;
  if (density && !has_volume) {
    density->Fail("body '" + body.name + "': density needs collision geometry with a volume");
  }
  if (mass && !has_volume && !inertia) {
    mass->Fail("body '" + body.name +
               "': with mass alone the inertia is unknown; add collision geometry with a "
               "volume (a halfspace has none) or inertia");
  }
  body.mass = mass ? given : given * unit.mass;
  const geometry::MassProperties scaled = geometry::ScaledToMass(unit, body.mass);
  body.com = com ? com->AsVector3() : scaled.com;
  if (inertia) {
    body.inertia = ReadInertia(*inertia);
  } else {
    // Geometric inertia, moved to an explicit com by the parallel-axis theorem if needed.
    body.inertia = geometry::ShiftInertia(scaled.inertia, body.mass, scaled.com, body.com);
  }
  CheckInertia(body.inertia, inertia ? *inertia : b, body.name);
  body.mass_source = density   ? multibody::MassSource::kDensity
                     : inertia ? multibody::MassSource::kMassAndInertia
                               : multibody::MassSource::kMass;
}

BodySpec ReadBody(const NodeReader& b, const MaterialIndex& materials, int default_material,
                  const std::string& scene_dir) {
  b.CheckKeys({"name", "mass", "com", "inertia", "density", "geometry", "pose", "velocity"});
  BodySpec spec{b, Body{}, b.Find("pose"), b.Find("velocity")};
  spec.body.name = ReadName(b.Get("name"), "body");
  if (spec.body.name == "world") b.Get("name").Fail("'world' is reserved and cannot name a body");
  spec.body.geometry = ReadGeometryList(b, materials, default_material, scene_dir);
  return spec;
}

std::vector<BodySpec> ReadBodies(const NodeReader& root, const MaterialIndex& materials,
                                 int default_material, const std::string& scene_dir) {
  std::vector<BodySpec> specs;
  std::map<std::string, int> seen;
  const auto list = root.Find("bodies");
  if (!list) return specs;
  for (const NodeReader& b : list->Items()) {
    specs.push_back(ReadBody(b, materials, default_material, scene_dir));
    const std::string& name = specs.back().body.name;
    if (!seen.emplace(name, static_cast<int>(specs.size()) - 1).second) {
      b.Get("name").Fail("duplicate body name '" + name + "'");
    }
  }
  return specs;
}

// ---- Joints -------------------------------------------------------------------------------

JointType ReadJointType(const NodeReader& node) {
  const std::string name = node.AsString();
  for (JointType t : {JointType::kFixed, JointType::kRevolute, JointType::kPrismatic,
                      JointType::kPlanar, JointType::kBall, JointType::kFree}) {
    if (name == multibody::JointTypeName(t)) return t;
  }
  node.Fail("unknown joint type '" + name +
            "' (expected fixed, revolute, prismatic, planar, ball or free)");
}

/// True for the types whose coordinates are plain numbers (springs, limits, prescribed).
bool IsScalarCoordinateType(JointType t) {
  return t == JointType::kRevolute || t == JointType::kPrismatic || t == JointType::kPlanar;
}

/// Fails at `node` unless joint type `t` supports the feature `what`.
void RequireScalarCoordinates(const NodeReader& node, JointType t, const std::string& what) {
  if (!IsScalarCoordinateType(t)) {
    node.Fail(what + " is allowed only on revolute, prismatic and planar joints, not on " +
              multibody::JointTypeName(t) + " joints");
  }
}

/// Reads `initial: {q, v}`; quaternions (ball, free) are normalised.
void ReadInitial(const NodeReader& node, Joint& j) {
  node.CheckKeys({"q", "v"});
  if (auto q = node.Find("q")) {
    j.q_initial = q->AsVector(j.nq, true);
    if (j.type == JointType::kBall || j.type == JointType::kFree) {
      const Eigen::Vector4d quat = j.q_initial.head<4>();
      if (quat.norm() < 1e-12) q->Fail("quaternion must not be zero");
      j.q_initial.head<4>() = quat.normalized();
    }
  }
  if (auto v = node.Find("v")) j.v_initial = v->AsVector(j.nv, true);
}

/// Default initial state: zeros, identity quaternion for ball and free joints.
void SetDefaultInitial(Joint& j) {
  j.q_initial = Eigen::VectorXd::Zero(j.nq);
  j.v_initial = Eigen::VectorXd::Zero(j.nv);
  if (j.type == JointType::kBall || j.type == JointType::kFree) j.q_initial[0] = 1.0;
}

void ReadSpring(const NodeReader& node, Joint& j) {
  RequireScalarCoordinates(node, j.type, "a spring");
  node.CheckKeys({"stiffness", "rest"});
  j.spring_stiffness = ReadVectorAtLeast(node.Get("stiffness"), j.nv, 0.0);
  j.spring_rest = Eigen::VectorXd::Zero(j.nv);
  if (auto rest = node.Find("rest")) j.spring_rest = rest->AsVector(j.nv, true);
}

void ReadLimits(const NodeReader& node, Joint& j) {
  RequireScalarCoordinates(node, j.type, "limits");
  node.CheckKeys({"lower", "upper"});
  j.lower = node.Get("lower").AsVector(j.nv, true);
  j.upper = node.Get("upper").AsVector(j.nv, true);
  for (int i = 0; i < j.nv; ++i) {
    if (j.lower[i] > j.upper[i]) {
      node.Fail("joint '" + j.name + "': lower limit " + std::to_string(j.lower[i]) +
                " is above upper limit " + std::to_string(j.upper[i]) + " (coordinate " +
                std::to_string(i) + ")");
    }
  }
}

/// Reads `armature` or `friction` (named `what`): a number >= 0 per coordinate, a plain
/// number for a one-coordinate joint.
Eigen::VectorXd ReadPerCoordinate(const NodeReader& node, const Joint& j,
                                  const std::string& what) {
  RequireScalarCoordinates(node, j.type, what);
  return ReadVectorAtLeast(node, j.nv, 0.0);
}

void ReadPrescribed(const NodeReader& node, Joint& j) {
  RequireScalarCoordinates(node, j.type, "prescribed motion");
  const NodeReader type = node.Get("type");
  j.prescribed = true;
  if (type.AsString() == "table") {  // resolved once trajectories are read: ResolveTables
    node.CheckKeys({"type", "trajectory"});
    node.Get("trajectory").AsString();
    j.motion.kind = multibody::PrescribedKind::kTable;
    return;
  }
  node.CheckKeys({"type", "amplitude", "frequency", "phase"});
  if (type.AsString() != "sine") type.Fail("unknown prescribed motion '" + type.AsString() +
                                           "' (expected sine or table)");
  j.motion.amplitude = node.Get("amplitude").AsVector(j.nv, true);
  j.motion.frequency = node.Get("frequency").AsNonNegative();
  j.motion.phase = node.DoubleOr("phase", 0.0);
}

/// Reads the optional force elements and motion of a joint whose type is known.
void ReadJointOptions(const NodeReader& n, Joint& j) {
  if (auto pose = n.Find("pose")) j.X_PJ = ReadPose(*pose);
  if (auto axis = n.Find("axis")) {
    if (j.type != JointType::kRevolute && j.type != JointType::kPrismatic) {
      axis->Fail("axis is allowed only on revolute and prismatic joints");
    }
    const Eigen::Vector3d a = axis->AsVector3();
    if (a.norm() < 1e-12) axis->Fail("joint '" + j.name + "': axis must not be zero");
    j.axis = a.normalized();
  }
  j.collide = n.BoolOr("collide", false);
  if (auto initial = n.Find("initial")) ReadInitial(*initial, j);
  if (auto spring = n.Find("spring")) ReadSpring(*spring, j);
  if (auto damping = n.Find("damping")) {
    if (j.nv == 0) damping->Fail("a fixed joint has no coordinates to damp");
    j.damping = ReadVectorAtLeast(*damping, j.nv, 0.0);
  }
  if (auto limits = n.Find("limits")) ReadLimits(*limits, j);
  const auto armature = n.Find("armature");
  if (armature) j.armature = ReadPerCoordinate(*armature, j, "armature");
  const auto friction = n.Find("friction");
  if (friction) j.friction = ReadPerCoordinate(*friction, j, "friction");
  if (auto prescribed = n.Find("prescribed")) {
    ReadPrescribed(*prescribed, j);
    if (auto initial = n.Find("initial")) {
      initial->Fail("a prescribed joint takes no initial state (its motion is imposed)");
    }
    // Both act on the joint's own coordinates, which a prescribed joint does not have.
    for (const auto& [node, what] :
         {std::pair{armature, "armature"}, std::pair{friction, "friction"}}) {
      if (node) {
        node->Fail(std::string(what) +
                   " is not allowed on a prescribed joint (its motion is imposed)");
      }
    }
  }
}

/// Body index (file order) named by `node`; "world" is -1.
int ResolveBody(const NodeReader& node, const std::map<std::string, int>& bodies, bool child) {
  const std::string name = node.AsString();
  if (name == "world") {
    if (child) node.Fail("the world cannot be the child of a joint");
    return -1;
  }
  const auto it = bodies.find(name);
  if (it == bodies.end()) node.Fail("unknown body '" + name + "'");
  return it->second;
}

JointSpec ReadJoint(const NodeReader& n, const std::map<std::string, int>& bodies) {
  n.CheckKeys({"name", "type", "parent", "child", "pose", "axis", "initial", "spring",
               "damping", "armature", "friction", "limits", "prescribed", "collide"});
  JointSpec spec{n, Joint{}, -1, -1};
  Joint& j = spec.joint;
  j.name = ReadName(n.Get("name"), "joint");
  j.type = ReadJointType(n.Get("type"));
  j.nq = multibody::JointNq(j.type);
  j.nv = multibody::JointNv(j.type);
  SetDefaultInitial(j);
  spec.parent = ResolveBody(n.Get("parent"), bodies, false);
  spec.child = ResolveBody(n.Get("child"), bodies, true);
  if (spec.parent == spec.child) n.Get("child").Fail("a joint cannot join a body to itself");
  ReadJointOptions(n, j);
  return spec;
}

std::vector<JointSpec> ReadJoints(const NodeReader& root, const std::vector<BodySpec>& bodies) {
  std::map<std::string, int> body_index;
  for (size_t i = 0; i < bodies.size(); ++i) body_index[bodies[i].body.name] = i;
  std::vector<JointSpec> specs;
  std::map<std::string, int> seen;
  const auto list = root.Find("joints");
  if (!list) return specs;
  for (const NodeReader& n : list->Items()) {
    specs.push_back(ReadJoint(n, body_index));
    if (!seen.emplace(specs.back().joint.name, 0).second) {
      n.Get("name").Fail("duplicate joint name '" + specs.back().joint.name + "'");
    }
  }
  return specs;
}

// ---- Topology -----------------------------------------------------------------------------

/// inboard[b] = index into `joints` of the joint whose child is body b, or -1.
std::vector<int> InboardJoints(const std::vector<JointSpec>& joints, int num_bodies,
                               const std::vector<BodySpec>& bodies) {
  std::vector<int> inboard(num_bodies, -1);
  for (size_t k = 0; k < joints.size(); ++k) {
    const int c = joints[k].child;
    if (inboard[c] >= 0) {
      joints[k].node.Get("child").Fail("body '" + bodies[c].body.name +
                                       "' is already the child of joint '" +
                                       joints[inboard[c]].joint.name + "'");
    }
    inboard[c] = static_cast<int>(k);
  }
  return inboard;
}

/// Rejects parent chains that never reach the world, at the first such joint in file order.
void CheckNoCycles(const std::vector<JointSpec>& joints, const std::vector<int>& inboard) {
  const int n = static_cast<int>(inboard.size());
  for (const JointSpec& j : joints) {
    int body = j.child;
    for (int steps = 0; body >= 0 && steps <= n; ++steps) {
      body = inboard[body] >= 0 ? joints[inboard[body]].parent : -1;
    }
    if (body >= 0) {
      j.node.Get("parent").Fail("joint '" + j.joint.name +
                                "' closes a cycle: joints must form trees rooted at the world");
    }
  }
}

/// Depth-first preorder of the forest: roots (children of the world) in file order, each
/// followed by its whole subtree, children in file order. It is topological (parent
/// first), and it keeps every tree's coordinates contiguous in q and v, so a tree is one
/// diagonal block of the mass matrix and one clique of the contact problem.
std::vector<int> TopologicalOrder(const std::vector<JointSpec>& joints,
                                  const std::vector<int>& inboard) {
  const int n = static_cast<int>(inboard.size());
  std::vector<std::vector<int>> children(n + 1);  // children[n]: roots
  for (int b = 0; b < n; ++b) {
    const int parent = inboard[b] >= 0 ? joints[inboard[b]].parent : -1;
    children[parent < 0 ? n : parent].push_back(b);
  }
  std::vector<int> order, stack(children[n].rbegin(), children[n].rend());
  while (!stack.empty()) {
    const int b = stack.back();
    stack.pop_back();
    order.push_back(b);
    stack.insert(stack.end(), children[b].rbegin(), children[b].rend());
  }
  return order;
}

/// The free joint of a body that is nobody's child, initial state from pose/velocity.
Joint MakeFreeJoint(const BodySpec& spec) {
  Joint j;
  j.name = spec.body.name;
  j.type = JointType::kFree;
  j.nq = 7;
  j.nv = 6;
  math::RigidTransform X_WB;
  if (spec.pose) X_WB = ReadPose(*spec.pose);
  j.q_initial.resize(7);
  j.q_initial << math::QuaternionFromRotation(X_WB.R), X_WB.p;
  j.v_initial = Eigen::VectorXd::Zero(6);
  if (spec.velocity) {
    spec.velocity->CheckKeys({"linear", "angular"});
    if (auto w = spec.velocity->Find("angular")) j.v_initial.head<3>() = w->AsVector3();
    if (auto v = spec.velocity->Find("linear")) j.v_initial.tail<3>() = v->AsVector3();
  }
  return j;
}

/// Fails if a free body's pose/velocity is set although it is the child of joint `k`.
void CheckNoFreeState(const BodySpec& spec, const JointSpec& inboard) {
  const char* key = spec.pose ? "pose" : spec.velocity ? "velocity" : nullptr;
  if (!key) return;
  spec.node.Get(key).Fail("body '" + spec.body.name + "' is the child of joint '" +
                          inboard.joint.name + "': set its initial state there, not with " +
                          key);
}

/// Fails if the free joint named after `spec`'s body clashes with an explicit joint.
void CheckFreeJointName(const BodySpec& spec, const std::vector<JointSpec>& joints) {
  for (const JointSpec& j : joints) {
    if (j.joint.name == spec.body.name) {
      spec.node.Get("name").Fail("the free joint of body '" + spec.body.name +
                                 "' would duplicate the name of joint '" + j.joint.name + "'");
    }
  }
}

/// Where `joint`'s initial state was set (`initial.q`, `initial.v`).
StateSource JointStateSource(const JointSpec& joint) {
  const auto initial = joint.node.Find("initial");
  const auto q = initial ? initial->Find("q") : std::nullopt;
  return StateSource{"joint '" + joint.joint.name + "'", q ? *q : joint.node,
                     initial ? initial->Find("v") : std::nullopt};
}

/// Where a free body's initial state was set (`pose`, `velocity`).
StateSource BodyStateSource(const BodySpec& body) {
  return StateSource{"body '" + body.body.name + "'", body.pose ? *body.pose : body.node,
                     body.velocity};
}

/// Fills model.bodies / model.joints in topological order (`inboard` from InboardJoints);
/// returns, in that order, where each joint's initial state was set.
std::vector<StateSource> Assemble(std::vector<BodySpec>& bodies, std::vector<JointSpec>& joints,
                                  const std::vector<int>& inboard, multibody::Model& model) {
  const std::vector<int> order = TopologicalOrder(joints, inboard);
  std::vector<int> new_index(bodies.size());
  for (size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<int>(i);
  std::vector<StateSource> sources;
  for (size_t i = 0; i < order.size(); ++i) {
    BodySpec& spec = bodies[order[i]];
    const int k = inboard[order[i]];
    Joint joint;
    if (k >= 0) {
      CheckNoFreeState(spec, joints[k]);
      joint = joints[k].joint;
      joint.parent = joints[k].parent < 0 ? -1 : new_index[joints[k].parent];
      sources.push_back(JointStateSource(joints[k]));
    } else {
      CheckFreeJointName(spec, joints);
      joint = MakeFreeJoint(spec);
      sources.push_back(BodyStateSource(spec));
    }
    joint.child = static_cast<int>(i);
    model.bodies.push_back(std::move(spec.body));
    model.joints.push_back(std::move(joint));
  }
  return sources;
}

/// True if body `b` (file order) is welded to the world by a chain of fixed joints.
bool IsWelded(int b, const std::vector<JointSpec>& joints, const std::vector<int>& inboard) {
  for (; b >= 0; b = joints[inboard[b]].parent) {
    if (inboard[b] < 0 || joints[inboard[b]].joint.type != JointType::kFixed) return false;
  }
  return true;
}

/// Rejects a halfspace on a body that is not welded to the world by fixed joints, in file
/// order. It runs before the mass rules, which would otherwise report such a body (with
/// `mass` alone) for the lesser reason that a halfspace has no volume.
void CheckHalfspaces(const std::vector<BodySpec>& bodies, const std::vector<JointSpec>& joints,
                     const std::vector<int>& inboard) {
  for (size_t b = 0; b < bodies.size(); ++b) {
    const std::vector<Geometry>& geometry = bodies[b].body.geometry;
    for (size_t g = 0; g < geometry.size(); ++g) {
      if (geometry[g].type != ShapeType::kHalfspace) continue;
      if (IsWelded(static_cast<int>(b), joints, inboard)) break;
      bodies[b].node.Get("geometry").Items()[g].Get("shape").Fail(
          "body '" + bodies[b].body.name +
          "' can move: a halfspace is allowed only on the world or on bodies welded to it");
    }
  }
}

/// "1e+160 m/s", "3 rad/s", "1e+160 m/s and 3 rad/s" for a free joint (its linear and
/// angular speeds); "[1e+160, 0]" for another joint's v.
std::string DescribeVelocity(const Joint& j) {
  std::ostringstream text;
  if (j.type == JointType::kFree) {
    // stableNorm: the plain norm squares first and would print 1e160 m/s as inf.
    const double w = j.v_initial.head<3>().stableNorm(), v = j.v_initial.tail<3>().stableNorm();
    if (v > 0) text << v << " m/s";
    if (v > 0 && w > 0) text << " and ";
    if (w > 0) text << w << " rad/s";
    return text.str();
  }
  text << "[";
  for (int k = 0; k < j.nv; ++k) text << (k ? ", " : "") << j.v_initial[k];
  text << "]";
  return text.str();
}

/// The `bodies` list, or the root when a scene has none, to locate a message about them all.
NodeReader BodiesOrRoot(const NodeReader& root) {
  const auto bodies = root.Find("bodies");
  return bodies ? *bodies : root;
}

/// Rejects an initial state whose kinetic energy overflows: the first step would turn it
/// into non-finite numbers, and the run would record nothing (the recorder refuses a state
/// whose energy is not finite). When the total overflows, the joints' velocities are added
/// one at a time, in order, and the one that makes it overflow is reported (only then: the
/// search costs one kinematics pass per joint); the `bodies` list when none does
/// (prescribed motion). `initial` holds the kinematics of the initial state.
void CheckInitialKineticEnergy(const multibody::Model& model,
                               const std::vector<StateSource>& sources, const NodeReader& root,
                               const multibody::Workspace& initial) {
  if (std::isfinite(multibody::CalcKineticEnergy(model, initial))) return;
  multibody::Workspace ws = multibody::MakeWorkspace(model);
  const Eigen::VectorXd q = model.InitialQ(), v = model.InitialV();
  const auto energy_is_finite = [&](const Eigen::VectorXd& v_trial) {
    multibody::CalcKinematics(model, 0.0, q, v_trial, ws);
    return std::isfinite(multibody::CalcKineticEnergy(model, ws));
  };
  Eigen::VectorXd partial = Eigen::VectorXd::Zero(model.nv);
  if (energy_is_finite(partial)) {
    for (int i = 0; i < model.num_bodies(); ++i) {
      const Joint& j = model.joints[i];
      if (j.v_start < 0 || !sources[i].velocity) continue;
      partial.segment(j.v_start, j.nv) = v.segment(j.v_start, j.nv);
      if (energy_is_finite(partial)) continue;
      sources[i].velocity->Fail(sources[i].owner + ": initial velocity " + DescribeVelocity(j) +
                                ": its kinetic energy overflows");
    }
  }
  BodiesOrRoot(root).Fail(
      "the kinetic energy of the initial state (prescribed motion at t = 0 included) overflows");
}

/// Rejects an initial state whose potential energy (gravity and springs) overflows, for
/// the reason above: a body at 1e308 m, or a spring stretched by 1e160 (found by fuzzing:
/// the run recorded no row at all). Blames the first body, in topological order, whose
/// own term or whose addition to the sum overflows: its position or its spring. `ws` holds
/// the kinematics of the initial state.
void CheckInitialPotentialEnergy(const multibody::Model& model,
                                 const std::vector<StateSource>& sources, const NodeReader& root,
                                 const multibody::Workspace& ws) {
  if (std::isfinite(multibody::CalcPotentialEnergy(model, ws))) return;
  double sum = 0.0;
  for (int i = 0; i < model.num_bodies(); ++i) {
    sum += multibody::CalcGravityEnergy(model, ws, i);
    if (!std::isfinite(sum)) {
      const Eigen::Vector3d p_com = ws.X_WB[i] * model.bodies[i].com;
      std::ostringstream where;
      where << sources[i].owner << ": the centre of mass of body '" << model.bodies[i].name
            << "' starts at [" << p_com.x() << ", " << p_com.y() << ", " << p_com.z()
            << "] m: its potential energy in gravity overflows";
      sources[i].position.Fail(where.str());
    }
    for (int k = 0; k < model.joints[i].spring_stiffness.size(); ++k) {
      sum += multibody::CalcSpringEnergy(model, ws, i, k);
      if (std::isfinite(sum)) continue;
      std::ostringstream where;
      where << sources[i].owner << ": its spring is stretched by "
            << ws.q_j[i][k] - model.joints[i].spring_rest[k]
            << " at the start: the spring's energy overflows";
      sources[i].position.Fail(where.str());
    }
  }
  BodiesOrRoot(root).Fail("the potential energy of the initial state overflows");
}

// ---- Frames, signals, trajectories, loads -------------------------------------------------

/// The scene's `frames:`, resolved to the final (sorted) bodies. A frame's name is unique
/// among frames and bodies alike, because a trajectory's `frame:` may name either.
std::vector<multibody::Frame> ReadFrames(const NodeReader& root, const multibody::Model& model) {
  std::vector<multibody::Frame> frames;
  const auto list = root.Find("frames");
  if (!list) return frames;
  for (const NodeReader& n : list->Items()) {
    n.CheckKeys({"name", "body", "pose"});
    multibody::Frame frame;
    const NodeReader name = n.Get("name");
    frame.name = ReadName(name, "frame");
    if (frame.name == "world") name.Fail("'world' is reserved and cannot name a frame");
    if (model.FindBody(frame.name) >= 0)
      name.Fail("frame name '" + frame.name + "' is already the name of a body");
    for (const multibody::Frame& other : frames)
      if (other.name == frame.name) name.Fail("duplicate frame name '" + frame.name + "'");
    const NodeReader body = n.Get("body");
    const std::string body_name = body.AsString();
    if (body_name != "world") {
      frame.body = model.FindBody(body_name);
      if (frame.body < 0) body.Fail("unknown body '" + body_name + "'");
    }
    if (auto pose = n.Find("pose")) frame.X_BF = ReadPose(*pose);
    frames.push_back(std::move(frame));
  }
  return frames;
}

/// Points every `prescribed: {type: table, trajectory: NAME}` joint at its columns of
/// trajectory NAME, which must list the joint.
void ResolveTables(const std::vector<JointSpec>& specs, multibody::Model& model) {
  for (const JointSpec& spec : specs) {
    const Joint& read = spec.joint;
    if (!read.prescribed || read.motion.kind != multibody::PrescribedKind::kTable) continue;
    const NodeReader node = spec.node.Get("prescribed").Get("trajectory");
    const std::string name = node.AsString();
    const int index = model.FindTrajectory(name);
    if (index < 0) node.Fail("unknown trajectory '" + name + "'");
    const multibody::JointTrajectory& trajectory = model.trajectories[index];
    const int joint = model.FindJoint(read.name);
    int column = -1;
    for (size_t k = 0; k < trajectory.joints.size(); ++k)
      if (trajectory.joints[k] == joint) column = trajectory.first_column[k];
    if (column < 0) {
      node.Fail("trajectory '" + name + "' has no column for joint '" + read.name +
                "' (add the joint to its joints)");
    }
    model.joints[joint].motion.trajectory = index;
    model.joints[joint].motion.first_column = column;
  }
}

}  // namespace

math::RigidTransform ReadScenePose(const NodeReader& node) { return ReadPose(node); }

multibody::Model BuildModel(const NodeReader& root, const std::string& scene_dir,
                            const std::optional<Eigen::Vector3d>& gravity,
                            std::vector<std::string>* warnings) {
  multibody::Model model;
  if (gravity) model.gravity = *gravity;
  const MaterialIndex materials = ReadMaterials(root, model);
  if (auto world = root.Find("world")) {
    world->CheckKeys({"geometry"});
    model.world_geometry =
        ReadGeometryList(*world, materials, model.default_material, scene_dir);
  }
  std::vector<BodySpec> bodies = ReadBodies(root, materials, model.default_material, scene_dir);
  std::vector<JointSpec> joints = ReadJoints(root, bodies);
  const std::vector<int> inboard = InboardJoints(joints, bodies.size(), bodies);
  CheckNoCycles(joints, inboard);
  CheckHalfspaces(bodies, joints, inboard);
  for (BodySpec& spec : bodies) ResolveMassProperties(spec);
  const std::vector<StateSource> sources = Assemble(bodies, joints, inboard, model);
  multibody::AssignCoordinates(model);
  model.frames = ReadFrames(root, model);
  model.excluded_collisions = ReadCollisionFilter(root, model);
  model.signals = ReadSignals(root);
  std::vector<std::string> trajectory_warnings;
  model.trajectories = ReadTrajectories(root, model, &trajectory_warnings);
  ResolveTables(joints, model);
  model.loads = ReadLoads(root, model);
  model.constraints = ReadConstraints(root, model);
  model.actuators = ReadActuators(root, model);
  if (warnings) warnings->insert(warnings->end(), trajectory_warnings.begin(),
                                 trajectory_warnings.end());
  // One kinematics pass at the initial state serves both checks (positions do not depend
  // on the velocities).
  multibody::Workspace initial = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, model.InitialQ(), model.InitialV(), initial);
  CheckInitialKineticEnergy(model, sources, root, initial);
  CheckInitialPotentialEnergy(model, sources, root, initial);
  return model;
}

}  // namespace csim::io
