#include "engine/io/model_expansion.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "engine/geometry/mesh_convexity.h"
#include "engine/geometry/mesh_file.h"
#include "engine/io/imported_model.h"
#include "engine/io/mjcf_import.h"
#include "engine/io/model_builder.h"
#include "engine/io/model_uri.h"
#include "engine/io/urdf_import.h"
#include "engine/io/urdf_reader.h"
#include "engine/math/rotation.h"

namespace csim::io {
namespace {

using multibody::JointType;

// ---- The entry's options ------------------------------------------------------------------

struct Attach {
  std::string parent = "world";
  math::RigidTransform pose;
  bool free = false;
};

struct EntryOptions {
  std::string name;
  std::string file;  ///< resolved against the scene folder
  std::string prefix;
  Attach attach;
  std::optional<NodeReader> attach_parent_node;
  std::map<std::string, std::string> packages;
  std::vector<std::pair<std::string, NodeReader>> lock;  ///< joint name (file's), its value node
  std::vector<NodeReader> exclude_bodies;
  bool merge_fixed = false;
  bool self_collide = false;
  bool visuals = true;  ///< import the model's visual-only geometry
  bool strict_meshes = false;
  std::string material;
  double density = 0.0;  ///< [kg/m^3]; 0: none given
};

std::string DirectoryOf(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir;
}

std::string JoinScene(const std::string& scene_dir, const std::string& file) {
  if (scene_dir.empty() || std::filesystem::path(file).is_absolute()) return file;
  return (std::filesystem::path(scene_dir) / file).string();
}

EntryOptions ReadEntry(const NodeReader& e, const std::string& scene_dir,
                       const YAML::Node& root) {
  e.CheckKeys({"name", "file", "prefix", "attach", "packages", "lock", "exclude_bodies",
               "merge_fixed", "meshes", "material", "density", "self_collide", "visuals"});
  EntryOptions o;
  o.name = ReadName(e.Get("name"), "model");
  o.file = JoinScene(scene_dir, e.Get("file").AsString());
  if (auto prefix = e.Find("prefix")) {
    o.prefix = prefix->AsString();
    if (!o.prefix.empty()) ReadName(*prefix, "prefix");  // the same character rules
  }
  if (auto attach = e.Find("attach")) {
    attach->CheckKeys({"parent", "pose", "free"});
    o.attach.free = attach->BoolOr("free", false);
    if (auto parent = attach->Find("parent")) {
      if (o.attach.free) parent->Fail("give either parent (a weld) or free: true, not both");
      o.attach.parent = parent->AsString();
      o.attach_parent_node = *parent;
    }
    if (auto pose = attach->Find("pose")) o.attach.pose = ReadScenePose(*pose);
  }
  if (auto packages = e.Find("packages")) {
    for (const auto& [key, value] : packages->Entries()) o.packages[key.AsString()] = value.AsString();
  }
  if (auto lock = e.Find("lock")) {
    for (const auto& [key, value] : lock->Entries()) o.lock.emplace_back(key.AsString(), value);
  }
  if (auto exclude = e.Find("exclude_bodies")) o.exclude_bodies = exclude->Items();
  o.merge_fixed = e.BoolOr("merge_fixed", false);
  o.self_collide = e.BoolOr("self_collide", false);
  o.visuals = e.BoolOr("visuals", true);
  if (auto meshes = e.Find("meshes")) {
    const std::string mode = meshes->AsString();
    if (mode != "convex_hull" && mode != "strict")
      meshes->Fail("unknown meshes mode '" + mode + "' (expected convex_hull or strict)");
    o.strict_meshes = mode == "strict";
  }
  if (auto material = e.Find("material")) {
    o.material = material->AsString();
    const YAML::Node& materials = root["materials"];
    if (!materials.IsMap() || !materials[o.material])
      material->Fail("unknown material '" + o.material + "' (define it under materials:)");
  }
  if (e.Has("density")) o.density = e.Get("density").AsPositive();
  return o;
}

ImportedModel LoadModelFile(const EntryOptions& o, const NodeReader& file_node,
                            const std::string& scene_dir, std::vector<std::string>* warnings) {
  std::string extension = std::filesystem::path(o.file).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.file, ec))
    file_node.Fail("model file '" + o.file + "' does not exist or is not a file");
  try {
    if (extension == ".urdf") {
      const UrdfModel urdf = ReadUrdfFile(o.file, warnings);
      ModelUriContext uris;
      uris.model_dir = DirectoryOf(o.file);
      uris.scene_dir = scene_dir;
      uris.packages = o.packages;
      if (const char* ros = std::getenv("ROS_PACKAGE_PATH")) uris.ros_package_path = ros;
      return ImportUrdf(urdf, uris, o.visuals, warnings);
    }
    if (extension == ".xml" || extension == ".mjcf") return ImportMjcfFile(o.file, warnings);
  } catch (const IoError& e) {
    file_node.Fail(e.what());
  }
  file_node.Fail("model file '" + o.file + "': unknown format (expected .urdf, or .xml for MJCF)");
}

// ---- Editing the imported tree ------------------------------------------------------------

/// The index of the inboard joint of each body, -1 for a root.
std::vector<int> InboardJoints(const ImportedModel& m) {
  std::vector<int> inboard(m.bodies.size(), -1);
  for (size_t j = 0; j < m.joints.size(); ++j) inboard[m.joints[j].child] = static_cast<int>(j);
  return inboard;
}

int FindBody(const ImportedModel& m, const std::string& name) {
  for (size_t i = 0; i < m.bodies.size(); ++i)
    if (m.bodies[i].name == name) return static_cast<int>(i);
  return -1;
}

int FindJoint(const ImportedModel& m, const std::string& name) {
  for (size_t i = 0; i < m.joints.size(); ++i)
    if (m.joints[i].name == name) return static_cast<int>(i);
  return -1;
}

/// Whether a joint or body of the model (by its file name) is still there.
using NameTest = std::function<bool(const std::string&)>;

/// Drops the constraints and actuators that name a joint failing `joint_kept` or a body
/// failing `body_kept` (the base, "", always stays), each with a warning at its element
/// ("actuator 'a' is dropped: WHY"): they were part of the model's behaviour.
void DropDependents(ImportedModel& m, const NameTest& joint_kept, const NameTest& body_kept,
                    const std::string& why, std::vector<std::string>* warnings) {
  const auto warn = [&](const std::string& what, const std::string& name,
                        const SourceLocation& where) {
    if (warnings)
      warnings->push_back(FormatLocated(where, what + " '" + name + "' is dropped: " + why));
  };
  const auto body_there = [&](const std::string& name) { return name.empty() || body_kept(name); };
  std::vector<ImportedConstraint> constraints;
  for (ImportedConstraint& c : m.constraints) {
    const bool kept = c.type == ImportedConstraintType::kCoupler
                          ? joint_kept(c.joint) && joint_kept(c.follows)
                          : body_there(c.body_a) && body_there(c.body_b);
    if (kept) {
      constraints.push_back(std::move(c));
    } else {
      warn("constraint", c.name, c.source);
    }
  }
  m.constraints = std::move(constraints);
  std::vector<ImportedActuator> actuators;
  for (ImportedActuator& a : m.actuators) {
    if (joint_kept(a.joint)) {
      actuators.push_back(std::move(a));
    } else {
      warn("actuator", a.name, a.source);
    }
  }
  m.actuators = std::move(actuators);
}

/// Keeps the bodies with keep[b] and the joints whose child is kept; renumbers. Joints,
/// constraints, actuators and frames that name something dropped go too, with a warning
/// for constraints and actuators (they were part of the model's behaviour).
void KeepBodies(ImportedModel& m, const std::vector<bool>& keep, const std::string& why,
                std::vector<std::string>* warnings) {
  std::vector<int> index(m.bodies.size(), -1);
  std::vector<ImportedBody> bodies;
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    if (!keep[b]) continue;
    index[b] = static_cast<int>(bodies.size());
    bodies.push_back(std::move(m.bodies[b]));
  }
  std::set<std::string> kept_bodies, kept_joints;
  for (const ImportedBody& b : bodies) kept_bodies.insert(b.name);
  std::vector<ImportedJoint> joints;
  for (ImportedJoint& j : m.joints) {
    if (index[j.child] < 0) continue;
    j.child = index[j.child];
    j.parent = j.parent < 0 ? -1 : index[j.parent];
    kept_joints.insert(j.name);
    joints.push_back(std::move(j));
  }
  m.bodies = std::move(bodies);
  m.joints = std::move(joints);
  const auto body_kept = [&](const std::string& name) { return kept_bodies.count(name) > 0; };
  DropDependents(
      m, [&](const std::string& name) { return kept_joints.count(name) > 0; }, body_kept, why,
      warnings);
  std::vector<ImportedFrame> frames;
  for (ImportedFrame& f : m.frames)
    if (f.body.empty() || body_kept(f.body)) frames.push_back(std::move(f));
  m.frames = std::move(frames);
}

void ExcludeBodies(ImportedModel& m, const std::vector<NodeReader>& names,
                   std::vector<std::string>* warnings) {
  if (names.empty()) return;
  std::vector<bool> keep(m.bodies.size(), true);
  for (const NodeReader& n : names) {
    const int b = FindBody(m, n.AsString());
    if (b < 0) n.Fail("the model has no body '" + n.AsString() + "' to exclude");
    keep[b] = false;
  }
  // Bodies are not sorted: propagate down the joints until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const ImportedJoint& j : m.joints) {
      if (j.parent >= 0 && !keep[j.parent] && keep[j.child]) {
        keep[j.child] = false;
        changed = true;
      }
    }
  }
  KeepBodies(m, keep, "it names an excluded body or a joint of one", warnings);
}

/// The joint's motion at coordinates q (revolute, prismatic): X_J(q).
math::RigidTransform JointMotion(const ImportedJoint& j, double q) {
  math::RigidTransform X;
  if (j.type == JointType::kRevolute) {
    X.R = Eigen::AngleAxisd(q, j.axis).toRotationMatrix();
  } else {
    X.p = q * j.axis;
  }
  return X;
}

void LockJoints(ImportedModel& m, const std::vector<std::pair<std::string, NodeReader>>& lock,
                std::vector<std::string>* warnings) {
  std::set<std::string> locked;
  for (const auto& [name, value] : lock) {
    const int k = FindJoint(m, name);
    if (k < 0) value.Fail("the model has no joint '" + name + "' to lock");
    ImportedJoint& j = m.joints[k];
    if (j.type != JointType::kRevolute && j.type != JointType::kPrismatic)
      value.Fail("joint '" + name + "' is " + multibody::JointTypeName(j.type) +
                 ": only revolute and prismatic joints can be locked");
    const double q = value.AsVector(1, true)[0];
    j.X_PJ = j.X_PJ * JointMotion(j, q);
    j.type = JointType::kFixed;
    j.lower.reset();
    j.upper.reset();
    locked.insert(name);
  }
  if (locked.empty()) return;
  DropDependents(
      m, [&](const std::string& name) { return locked.count(name) == 0; },
      [](const std::string&) { return true; }, "it names a locked joint", warnings);
}

/// Drops the visual-only geometry (collide false) of every body and of the base: the entry
/// says `visuals: false` (an MJCF model's; a URDF's visuals are not imported then).
void DropVisuals(ImportedModel& m) {
  const auto visual = [](const ImportedGeometry& g) { return !g.collide; };
  for (ImportedBody& b : m.bodies)
    b.geometry.erase(std::remove_if(b.geometry.begin(), b.geometry.end(), visual),
                     b.geometry.end());
  m.base_geometry.erase(
      std::remove_if(m.base_geometry.begin(), m.base_geometry.end(), visual),
      m.base_geometry.end());
}

/// Adds body `child`'s mass properties, at pose X_PC in P, to `parent`'s.
void AddMassProperties(ImportedBody& parent, const ImportedBody& child,
                       const math::RigidTransform& X_PC) {
  if (child.mass <= 0) return;
  const double m1 = parent.mass, m2 = child.mass, m = m1 + m2;
  const Eigen::Vector3d c1 = parent.com, c2 = X_PC * child.com;
  const Eigen::Vector3d c = (m1 * c1 + m2 * c2) / m;
  auto shift = [&](double mass, const Eigen::Vector3d& d) {
    return mass * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
  };
  parent.inertia = parent.inertia + shift(m1, c1 - c) +
                   X_PC.R * child.inertia * X_PC.R.transpose() + shift(m2, c2 - c);
  parent.mass = m;
  parent.com = c;
  parent.has_inertial = true;
}

/// Folds body c, fixed to its parent p (-1: the base) at X_PC, into p.
void FoldInto(ImportedModel& m, int c, int p, const math::RigidTransform& X_PC) {
  ImportedBody& child = m.bodies[c];
  std::vector<ImportedGeometry>& target =
      p >= 0 ? m.bodies[p].geometry : m.base_geometry;
  for (ImportedGeometry g : child.geometry) {
    g.pose = X_PC * g.pose;
    target.push_back(std::move(g));
  }
  child.geometry.clear();
  if (p >= 0) AddMassProperties(m.bodies[p], child, X_PC);
  const std::string parent_name = p >= 0 ? m.bodies[p].name : "";
  for (ImportedFrame& f : m.frames) {
    if (f.body != child.name) continue;
    f.body = parent_name;
    f.X_BF = X_PC * f.X_BF;
  }
  m.frames.push_back({child.name, parent_name, X_PC, child.source});
  for (ImportedJoint& j : m.joints) {
    if (j.parent != c) continue;
    j.parent = p;
    j.X_PJ = X_PC * j.X_PJ;
  }
  for (ImportedConstraint& k : m.constraints) {
    if (k.body_a == child.name) {
      k.body_a = parent_name;
      k.point_a = X_PC * k.point_a;
      k.pose_a = X_PC * k.pose_a;
    }
    if (k.body_b == child.name) {
      k.body_b = parent_name;
      k.point_b = X_PC * k.point_b;
      k.pose_b = X_PC * k.pose_b;
    }
  }
}

bool Massless(const ImportedBody& b) { return !b.has_inertial || b.mass <= 0; }

/// A body csim cannot hold as a body of its own: no mass, or an inertia that is not positive
/// definite (CAD exports write zero tensors for tiny parts). Welded, it folds into its parent.
bool Degenerate(const ImportedBody& b) {
  if (Massless(b)) return true;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(b.inertia, Eigen::EigenvaluesOnly);
  return !(eigen.eigenvalues().minCoeff() > 0);
}

/// Folds fixed children into their parents: degenerate ones always (csim bodies have mass
/// and a positive definite inertia), every one with merge_fixed, except into the base (the
/// world or the attach parent), which takes only degenerate ones.
void MergeFixed(ImportedModel& m, bool merge_fixed, bool attach_free) {
  std::vector<bool> keep(m.bodies.size(), true);
  // Repeat until nothing folds: folding re-parents the child's own children, which may fold
  // in turn (every pass folds at least one body, so this ends).
  for (bool changed = true; changed;) {
    changed = false;
    const std::vector<int> inboard = InboardJoints(m);
    for (size_t c = 0; c < m.bodies.size(); ++c) {
      if (!keep[c]) continue;
      const int j = inboard[c];
      const bool welded = j >= 0 ? m.joints[j].type == JointType::kFixed : !attach_free;
      if (!welded || !(merge_fixed || Degenerate(m.bodies[c]))) continue;
      const int p = j >= 0 ? m.joints[j].parent : -1;
      // A body with mass stays a body even welded to the base: as world geometry it would
      // leave the model's collision group and be tested against every link near it.
      if (p < 0 && !Degenerate(m.bodies[c])) continue;
      const math::RigidTransform X_PC = j >= 0 ? m.joints[j].X_PJ : math::RigidTransform{};
      if (p >= 0 && !keep[p]) continue;  // its parent folds first
      FoldInto(m, static_cast<int>(c), p, X_PC);
      keep[c] = false;
      changed = true;
    }
    // Remove folded bodies now, so that indices stay valid for the next pass.
    if (changed) {
      KeepBodies(m, keep, "it names a folded body", nullptr);
      keep.assign(m.bodies.size(), true);
    }
  }
}

// ---- Names --------------------------------------------------------------------------------

/// A model file's name as a csim name: leading '/' dropped (ROS namespaces), the characters
/// a csim name cannot hold replaced by '_'.
std::string CsimName(const std::string& prefix, const std::string& name) {
  size_t start = 0;
  while (start < name.size() && name[start] == '/') ++start;
  std::string out = prefix + name.substr(start);
  for (char& c : out) {
    if (c == '.' || c == '[' || c == ']' || c == '=' || c == '/' ||
        static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '_';
  }
  return out;
}

// ---- Emission -----------------------------------------------------------------------------

YAML::Node Vector(const Eigen::VectorXd& v) {
  YAML::Node n(YAML::NodeType::Sequence);
  for (int i = 0; i < v.size(); ++i) n.push_back(v[i]);
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}

YAML::Node Pose(const math::RigidTransform& X) {
  YAML::Node n(YAML::NodeType::Map);
  n.SetStyle(YAML::EmitterStyle::Flow);
  if (!X.p.isZero(0)) n["position"] = Vector(X.p);
  if (!X.R.isIdentity(0)) {
    const Eigen::Quaterniond q(X.R);
    n["quaternion"] = Vector(Eigen::Vector4d(q.w(), q.x(), q.y(), q.z()));
  }
  return n;
}

bool IsIdentity(const math::RigidTransform& X) { return X.p.isZero(0) && X.R.isIdentity(0); }

std::string SceneRelative(const std::string& path, const std::string& scene_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  const fs::path base = fs::absolute(scene_dir.empty() ? "." : scene_dir, ec);
  const fs::path rel = abs.lexically_normal().lexically_relative(base.lexically_normal());
  // Below the scene's folder: relative, so that the expanded scene moves with its files.
  if (rel.empty() || *rel.begin() == "..") return abs.lexically_normal().string();
  return rel.string();
}

YAML::Node GeometryNode(const ImportedGeometry& g, const EntryOptions& o,
                        const std::string& scene_dir) {
  YAML::Node n(YAML::NodeType::Map);
  switch (g.shape) {
    case ImportedShape::kBox: n["shape"] = "box"; n["size"] = Vector(g.size); break;
    case ImportedShape::kSphere: n["shape"] = "sphere"; n["radius"] = g.radius; break;
    case ImportedShape::kCylinder:
      n["shape"] = "cylinder";
      n["radius"] = g.radius;
      n["length"] = g.length;
      break;
    case ImportedShape::kCapsule:
      n["shape"] = "capsule";
      n["radius"] = g.radius;
      n["length"] = g.length;
      break;
    case ImportedShape::kEllipsoid: n["shape"] = "ellipsoid"; n["radii"] = Vector(g.radii); break;
    case ImportedShape::kPlane: n["shape"] = "halfspace"; break;
    case ImportedShape::kMesh:
      n["shape"] = "mesh";
      // A mesh without a file keeps its vertices and triangles beside the tree
      // (Emitter::AddGeometry; yaml_reader.h says why).
      if (!g.mesh_file.empty()) {
        n["file"] = SceneRelative(g.mesh_file, scene_dir);
        if (g.scale != Eigen::Vector3d::Ones()) n["scale"] = Vector(g.scale);
      }
      break;
  }
  // An imported collision mesh stands for its convex hull (the `meshes: convex_hull` rule).
  if (g.shape == ImportedShape::kMesh && g.collide && !o.strict_meshes) n["hull"] = true;
  if (!IsIdentity(g.pose)) n["pose"] = Pose(g.pose);
  if (!o.material.empty()) n["material"] = o.material;
  if (!g.collide) n["collide"] = false;
  return n;
}

/// Fails at the mesh's model element when `meshes: strict` and the mesh is not convex.
void CheckStrictMesh(const ImportedGeometry& g) {
  if (g.shape != ImportedShape::kMesh || g.mesh_file.empty() || !g.collide) return;
  geometry::ConvexMesh mesh;
  std::string error;
  if (!geometry::ReadMeshFile(g.mesh_file, g.scale, &mesh, &error))
    throw InputError(g.source, "mesh '" + g.mesh_file + "': " + error);
  const geometry::MeshConvexity c = geometry::CheckMeshConvexity(mesh);
  if (!c.convex())
    throw InputError(g.source, "mesh '" + g.mesh_file + "' is not convex (its hull has " +
                                   std::to_string(c.hull_ratio()) +
                                   " times its volume) and the models entry says meshes: "
                                   "strict; give convex pieces, or meshes: convex_hull");
}

/// The value of `key` in the map `parent` (the scene's root, a section or an item of it),
/// made an empty node of `kind` when absent or null, for generated nodes to be added to.
YAML::Node SceneChild(YAML::Node parent, const char* key, YAML::NodeType::value kind) {
  const YAML::Node& existing = parent;  // the non-const operator[] would add the key
  if (!existing[key] || existing[key].IsNull()) parent[key] = YAML::Node(kind);
  return parent[key];
}

/// The list under `key` of `parent`, created when absent.
YAML::Node SceneList(YAML::Node parent, const char* key) {
  return SceneChild(parent, key, YAML::NodeType::Sequence);
}

/// The map under `key` of `parent`, created when absent.
YAML::Node SceneMap(YAML::Node parent, const char* key) {
  return SceneChild(parent, key, YAML::NodeType::Map);
}

class Emitter {
 public:
  Emitter(YAML::Node& root, SourceMap* sources, const EntryOptions& o,
          const std::string& scene_dir)
      : root_(root), sources_(sources), o_(o), scene_dir_(scene_dir) {}

  std::string Name(const std::string& file_name) const { return CsimName(o_.prefix, file_name); }
  /// The scene name of body `name` of the model ("" is the base: the attach parent).
  std::string BodyName(const std::string& name) const {
    return name.empty() ? o_.attach.parent : Name(name);
  }
  /// A pose in the base frame, in the attach parent's frame.
  math::RigidTransform FromBase(const math::RigidTransform& X) const { return o_.attach.pose * X; }

  void Append(const char* list, YAML::Node node, const SourceLocation& where) {
    YAML::Node seq = SceneList(root_, list);
    sources_->AddGenerated(IndexPath(list, static_cast<int>(seq.size())), where);
    seq.push_back(node);
  }

  void Body(const ImportedBody& b, const std::optional<math::RigidTransform>& free_pose) {
    YAML::Node n(YAML::NodeType::Map);
    n["name"] = Name(b.name);
    if (b.has_inertial && b.mass > 0) {
      n["mass"] = b.mass;
      n["com"] = Vector(b.com);
      const Eigen::Matrix3d& I = b.inertia;
      n["inertia"] = Vector((Eigen::VectorXd(6) << I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2),
                             I(1, 2)).finished());
    } else {
      n["density"] = o_.density;
    }
    if (free_pose && !IsIdentity(*free_pose)) n["pose"] = Pose(*free_pose);
    const int index = static_cast<int>(SceneList(root_, "bodies").size());
    Append("bodies", n, b.source);
    if (b.geometry.empty()) return;
    YAML::Node body = SceneList(root_, "bodies")[index];
    for (const ImportedGeometry& g : b.geometry)
      AddGeometry(body, IndexPath("bodies", index), g);
  }

  void Joint(const ImportedJoint& j, const ImportedModel& m) {
    YAML::Node n(YAML::NodeType::Map);
    n["name"] = Name(j.name);
    n["type"] = multibody::JointTypeName(j.type);
    n["parent"] = j.parent >= 0 ? Name(m.bodies[j.parent].name) : o_.attach.parent;
    n["child"] = Name(m.bodies[j.child].name);
    const math::RigidTransform X = j.parent >= 0 ? j.X_PJ : FromBase(j.X_PJ);
    if (!IsIdentity(X)) n["pose"] = Pose(X);
    if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
      n["axis"] = Vector(j.axis);
      if (j.lower && j.upper) {
        YAML::Node limits(YAML::NodeType::Map);
        limits.SetStyle(YAML::EmitterStyle::Flow);
        limits["lower"] = *j.lower;
        limits["upper"] = *j.upper;
        n["limits"] = limits;
      }
      if (j.damping > 0) n["damping"] = j.damping;
      if (j.friction > 0) n["friction"] = j.friction;
      if (j.armature > 0) n["armature"] = j.armature;
      if (j.stiffness > 0) {
        YAML::Node spring(YAML::NodeType::Map);
        spring.SetStyle(YAML::EmitterStyle::Flow);
        spring["stiffness"] = j.stiffness;
        spring["rest"] = j.spring_rest;
        n["spring"] = spring;
      }
    }
    if (j.q_initial.size() > 0) {
      YAML::Node initial(YAML::NodeType::Map);
      initial.SetStyle(YAML::EmitterStyle::Flow);
      initial["q"] = Vector(j.q_initial);
      n["initial"] = initial;
    }
    Append("joints", n, j.source);
  }

  void Weld(const ImportedBody& root_body) {
    YAML::Node n(YAML::NodeType::Map);
    n["name"] = Name(root_body.name) + "_attach";
    n["type"] = "fixed";
    n["parent"] = o_.attach.parent;
    n["child"] = Name(root_body.name);
    if (!IsIdentity(o_.attach.pose)) n["pose"] = Pose(o_.attach.pose);
    Append("joints", n, root_body.source);
  }

  void Constraint(const ImportedConstraint& c) {
    YAML::Node n(YAML::NodeType::Map);
    if (!c.name.empty()) n["name"] = Name(c.name);
    switch (c.type) {
      case ImportedConstraintType::kCoupler:
        n["type"] = "coupler";
        n["joint"] = Name(c.joint);
        n["follows"] = Name(c.follows);
        n["ratio"] = c.ratio;
        n["offset"] = c.offset;
        break;
      case ImportedConstraintType::kBall:
        n["type"] = "ball";
        n["body_a"] = BodyName(c.body_a);
        n["point_a"] = Vector(c.body_a.empty() ? FromBase({}) * c.point_a : c.point_a);
        n["body_b"] = BodyName(c.body_b);
        n["point_b"] = Vector(c.body_b.empty() ? FromBase({}) * c.point_b : c.point_b);
        break;
      case ImportedConstraintType::kWeld:
        n["type"] = "weld";
        n["body_a"] = BodyName(c.body_a);
        n["pose_a"] = Pose(c.body_a.empty() ? FromBase(c.pose_a) : c.pose_a);
        n["body_b"] = BodyName(c.body_b);
        n["pose_b"] = Pose(c.body_b.empty() ? FromBase(c.pose_b) : c.pose_b);
        break;
    }
    Append("constraints", n, c.source);
  }

  void Frame(const ImportedFrame& f) {
    YAML::Node n(YAML::NodeType::Map);
    n["name"] = Name(f.name);
    n["body"] = BodyName(f.body);
    const math::RigidTransform X = f.body.empty() ? FromBase(f.X_BF) : f.X_BF;
    if (!IsIdentity(X)) n["pose"] = Pose(X);
    Append("frames", n, f.source);
  }

  /// A named configuration (MJCF keyframe) as a scene pose, over the joints that still move
  /// (locked and excluded ones are gone).
  void NamedPose(const ImportedPose& p, const ImportedModel& m) {
    YAML::Node joints(YAML::NodeType::Map);
    joints.SetStyle(YAML::EmitterStyle::Flow);
    for (size_t k = 0; k < p.joints.size(); ++k) {
      const int j = FindJoint(m, p.joints[k]);
      if (j < 0) continue;
      const JointType type = m.joints[j].type;
      if (type != JointType::kRevolute && type != JointType::kPrismatic &&
          type != JointType::kPlanar)
        continue;
      joints[Name(p.joints[k])] = p.q[k].size() == 1 ? YAML::Node(p.q[k][0]) : Vector(p.q[k]);
    }
    YAML::Node poses = SceneMap(root_, "poses");
    const std::string name = Name(p.name);
    if (static_cast<const YAML::Node&>(poses)[name])
      throw InputError(p.source, "pose '" + name + "' is already a pose of the scene (give the "
                                 "models entry a prefix)");
    sources_->AddGenerated(JoinPath("poses", name), p.source);
    poses[name] = joints;
  }

  /// Without self_collide, one group of all the model's bodies (hulls of neighbouring links
  /// overlap at rest); the model's own excluded pairs always.
  void CollisionFilter(const ImportedModel& m) {
    const bool group = !o_.self_collide && m.bodies.size() > 1;
    if (!group && m.excluded_pairs.empty()) return;
    YAML::Node filter = SceneMap(root_, "collision_filter");
    const SourceLocation file{m.file, 0, 0};
    if (group) {
      YAML::Node bodies(YAML::NodeType::Sequence);
      bodies.SetStyle(YAML::EmitterStyle::Flow);
      for (const ImportedBody& b : m.bodies) bodies.push_back(Name(b.name));
      YAML::Node groups = SceneList(filter, "groups");
      sources_->AddGenerated(JoinPath("collision_filter", IndexPath("groups", static_cast<int>(groups.size()))), file);
      groups.push_back(bodies);
    }
    for (const auto& [a, b] : m.excluded_pairs) {
      // A pair naming a body left out or folded into its parent goes with it.
      if ((!a.empty() && FindBody(m, a) < 0) || (!b.empty() && FindBody(m, b) < 0)) continue;
      YAML::Node pair(YAML::NodeType::Sequence);
      pair.SetStyle(YAML::EmitterStyle::Flow);
      pair.push_back(BodyName(a));
      pair.push_back(BodyName(b));
      YAML::Node exclude = SceneList(filter, "exclude");
      sources_->AddGenerated(JoinPath("collision_filter", IndexPath("exclude", static_cast<int>(exclude.size()))), file);
      exclude.push_back(pair);
    }
  }

  /// Base geometry goes to the world, or to the attach parent's body node.
  void BaseGeometry(const ImportedGeometry& g) {
    ImportedGeometry placed = g;
    placed.pose = FromBase(g.pose);
    if (o_.attach.parent == "world") {
      AddGeometry(SceneMap(root_, "world"), "world", placed);
      return;
    }
    YAML::Node bodies = SceneList(root_, "bodies");
    for (size_t i = 0; i < bodies.size(); ++i) {
      YAML::Node body = bodies[i];
      if (!body.IsMap() || !body["name"] || body["name"].Scalar() != o_.attach.parent) continue;
      AddGeometry(body, IndexPath("bodies", static_cast<int>(i)), placed);
      return;
    }
    o_.attach_parent_node->Fail("attach parent '" + o_.attach.parent +
                                "' must be world or a body listed before this models entry");
  }

 private:
  /// Appends g to the `geometry` list of `owner` (the world or a body node, at key path
  /// `owner_path`), located at g's element of the model file; a mesh without a file gets
  /// its vertices and triangles attached beside the tree (yaml_reader.h).
  void AddGeometry(YAML::Node owner, const std::string& owner_path, const ImportedGeometry& g) {
    YAML::Node list = SceneList(owner, "geometry");
    const std::string path =
        JoinPath(owner_path, IndexPath("geometry", static_cast<int>(list.size())));
    sources_->AddGenerated(path, g.source);
    if (g.shape == ImportedShape::kMesh && g.mesh_file.empty())
      sources_->AddGeneratedMesh(path, {g.vertices, g.triangles});
    list.push_back(GeometryNode(g, o_, scene_dir_));
  }

  YAML::Node& root_;
  SourceMap* sources_;
  const EntryOptions& o_;
  std::string scene_dir_;
};

/// The written scene actuators by joint name, for the rule that the scene's actuator on an
/// imported joint wins over the model's and takes the joint's effort limit.
/// The written scene actuators by joint name, with their index in `actuators:`.
std::map<std::string, std::pair<int, YAML::Node>> WrittenActuators(const YAML::Node& root) {
  std::map<std::string, std::pair<int, YAML::Node>> out;
  const YAML::Node list = root["actuators"];
  if (!list || !list.IsSequence()) return out;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node a = list[i];
    if (a.IsMap() && a["joint"] && a["joint"].IsScalar())
      out.emplace(a["joint"].Scalar(), std::make_pair(static_cast<int>(i), a));
  }
  return out;
}

void ExpandEntry(const NodeReader& entry, YAML::Node& root, SourceMap* sources,
                 const std::string& scene_dir, std::vector<std::string>* warnings) {
  const EntryOptions o = ReadEntry(entry, scene_dir, root);
  ImportedModel m = LoadModelFile(o, entry.Get("file"), scene_dir, warnings);
  if (!o.visuals) DropVisuals(m);
  ExcludeBodies(m, o.exclude_bodies, warnings);
  LockJoints(m, o.lock, warnings);
  MergeFixed(m, o.merge_fixed, o.attach.free);

  // Every remaining body has mass, or gets the entry's density from its geometry.
  for (const ImportedBody& b : m.bodies) {
    if (!Massless(b) || o.density > 0) continue;
    throw InputError(b.source, "body '" + b.name + "' has no mass (no <inertial>) but moves: "
                               "give it an inertial, or the models entry a density to compute "
                               "its mass from its collision geometry");
  }
  if (o.strict_meshes) {
    for (const ImportedBody& b : m.bodies)
      for (const ImportedGeometry& g : b.geometry) CheckStrictMesh(g);
    for (const ImportedGeometry& g : m.base_geometry) CheckStrictMesh(g);
  }

  Emitter emit(root, sources, o, scene_dir);
  const std::vector<int> inboard = InboardJoints(m);
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const bool free_root = inboard[b] < 0 && o.attach.free;
    emit.Body(m.bodies[b], free_root ? std::optional(o.attach.pose) : std::nullopt);
  }
  for (const ImportedGeometry& g : m.base_geometry) emit.BaseGeometry(g);
  for (size_t b = 0; b < m.bodies.size(); ++b)
    if (inboard[b] < 0 && !o.attach.free) emit.Weld(m.bodies[b]);
  for (const ImportedJoint& j : m.joints) emit.Joint(j, m);
  for (const ImportedConstraint& c : m.constraints) emit.Constraint(c);
  for (const ImportedFrame& f : m.frames) emit.Frame(f);
  emit.CollisionFilter(m);
  for (const ImportedPose& p : m.poses) emit.NamedPose(p, m);

  // Actuators: the scene's own on imported joints take the effort limit; the model's are
  // added where the scene has none.
  std::map<std::string, std::pair<int, YAML::Node>> written = WrittenActuators(root);
  for (const ImportedJoint& j : m.joints) {
    auto it = written.find(emit.Name(j.name));
    if (it == written.end() || !std::isfinite(j.effort_limit)) continue;
    YAML::Node actuator = it->second.second;
    if (static_cast<const YAML::Node&>(actuator)["effort_limit"]) continue;
    actuator["effort_limit"] = j.effort_limit;
    sources->AddGenerated(JoinPath(IndexPath("actuators", it->second.first), "effort_limit"),
                          j.source);
  }
  for (const ImportedActuator& a : m.actuators) {
    if (written.count(emit.Name(a.joint))) continue;
    YAML::Node n(YAML::NodeType::Map);
    n["name"] = emit.Name(a.name);
    n["joint"] = emit.Name(a.joint);
    if (a.kp > 0) n["kp"] = a.kp;
    if (a.kd > 0) n["kd"] = a.kd;
    if (std::isfinite(a.effort_limit)) n["effort_limit"] = a.effort_limit;
    emit.Append("actuators", n, a.source);
  }
}

/// Writes the mesh attached to geometry node `g` (at `path`), if any, into it.
void WriteAttachedMesh(YAML::Node g, const std::string& path, const SourceMap& sources) {
  const GeneratedMesh* mesh = sources.FindGeneratedMesh(path);
  if (!mesh) return;
  YAML::Node vertices(YAML::NodeType::Sequence), triangles(YAML::NodeType::Sequence);
  for (const Eigen::Vector3d& v : mesh->vertices) vertices.push_back(Vector(v));
  for (const Eigen::Vector3i& t : mesh->triangles) {
    YAML::Node triangle(YAML::NodeType::Sequence);
    triangle.SetStyle(YAML::EmitterStyle::Flow);
    for (int k = 0; k < 3; ++k) triangle.push_back(t[k]);
    triangles.push_back(triangle);
  }
  g["vertices"] = vertices;
  g["triangles"] = triangles;
}

/// WriteAttachedMesh for every geometry of `owner` (the world or a body, at `owner_path`).
void WriteAttachedMeshes(YAML::Node owner, const std::string& owner_path,
                         const SourceMap& sources) {
  const YAML::Node& const_owner = owner;  // the non-const operator[] would add the key
  if (!owner.IsMap() || !const_owner["geometry"] || !const_owner["geometry"].IsSequence())
    return;
  YAML::Node list = owner["geometry"];
  for (size_t k = 0; k < list.size(); ++k)
    WriteAttachedMesh(list[k], JoinPath(owner_path, IndexPath("geometry", static_cast<int>(k))),
                      sources);
}

}  // namespace

YAML::Node PlainExpandedScene(const YAML::Node& root, const SourceMap& sources) {
  YAML::Node plain = YAML::Clone(root);
  const YAML::Node& const_plain = plain;  // the non-const operator[] would add the key
  if (!plain.IsMap()) return plain;
  if (const_plain["world"]) WriteAttachedMeshes(plain["world"], "world", sources);
  if (const_plain["bodies"] && const_plain["bodies"].IsSequence()) {
    YAML::Node bodies = plain["bodies"];
    for (size_t i = 0; i < bodies.size(); ++i)
      WriteAttachedMeshes(bodies[i], IndexPath("bodies", static_cast<int>(i)), sources);
  }
  return plain;
}

void ExpandModels(YAML::Node& root, SourceMap* sources, const std::string& scene_dir,
                  std::vector<std::string>* warnings) {
  const YAML::Node& const_root = root;
  if (!root.IsMap() || !const_root["models"]) return;
  const NodeReader models(const_root["models"], "models", sources);
  const std::vector<NodeReader> entries = models.Items();
  std::set<std::string> names;
  for (const NodeReader& entry : entries) {
    entry.ExpectMap();
    if (!names.insert(entry.Get("name").AsString()).second)
      entry.Get("name").Fail("a second model named '" + entry.Get("name").AsString() + "'");
    ExpandEntry(entry, root, sources, scene_dir, warnings);
  }
  root.remove("models");
}

}  // namespace csim::io
