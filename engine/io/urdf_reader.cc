#include "engine/io/urdf_reader.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <tinyxml2.h>

#include "engine/common/input_error.h"
#include "engine/common/io_error.h"
#include "engine/io/located_xml.h"

namespace csim::io {
namespace {

using xml::Context;
using xml::Element;
using xml::Locator;
using xml::Num;

// ---- Links ----------------------------------------------------------------------------

UrdfPose ReadPose(const Element& origin) {
  origin.CheckAttributes({"xyz", "rpy"});
  origin.CheckChildren({}, {});
  UrdfPose pose;
  pose.xyz = origin.Vector3Or("xyz", pose.xyz);
  pose.rpy = origin.Vector3Or("rpy", pose.rpy);
  return pose;
}

/// The <origin> child of `owner`, identity without one.
UrdfPose ReadOrigin(const Element& owner) {
  const auto origin = owner.Child("origin");
  return origin ? ReadPose(*origin) : UrdfPose{};
}

UrdfGeometry ReadGeometry(const Element& element) {
  element.CheckAttributes({});
  const std::vector<Element> shapes = element.AllChildren();
  if (shapes.empty()) {
    element.Fail("<geometry> has no shape (expected box, sphere, cylinder, capsule or mesh)");
  }
  for (std::size_t i = 1; i < shapes.size(); ++i) {
    shapes[i].Warn("second shape <" + shapes[i].Tag() +
                   "> in <geometry>: ignored, only the first one counts (as in urdfdom)");
  }
  const Element& shape = shapes.front();
  const std::string tag = shape.Tag();
  shape.CheckChildren({}, {});
  UrdfGeometry g;
  g.line = shape.Line();
  if (tag == "box") {
    shape.CheckAttributes({"size"});
    g.shape = UrdfShape::kBox;
    const std::vector<double> size = shape.Numbers("size", 3);
    g.size = {size[0], size[1], size[2]};
    if (g.size.minCoeff() < 0) {
      shape.Fail(shape.Attribute("size"), "attribute 'size' of <box> must not be negative");
    }
  } else if (tag == "sphere") {
    shape.CheckAttributes({"radius"});
    g.shape = UrdfShape::kSphere;
    g.radius = shape.NonNegative("radius");
  } else if (tag == "cylinder" || tag == "capsule") {
    shape.CheckAttributes({"radius", "length"});
    g.shape = tag == "cylinder" ? UrdfShape::kCylinder : UrdfShape::kCapsule;
    g.radius = shape.NonNegative("radius");
    g.length = shape.NonNegative("length");
  } else if (tag == "mesh") {
    shape.CheckAttributes({"filename", "scale"});
    g.shape = UrdfShape::kMesh;
    g.filename = shape.RequiredString("filename");
    g.scale = shape.Vector3Or("scale", g.scale);
  } else {
    shape.Fail("unknown shape <" + tag + "> (expected box, sphere, cylinder, capsule or mesh)");
  }
  return g;
}

UrdfMaterial ReadMaterial(const Element& element) {
  element.CheckAttributes({"name"});
  element.CheckChildren({"color", "texture"}, {});
  UrdfMaterial material;
  material.line = element.Line();
  material.name = element.RequiredString("name");
  if (const auto color = element.Child("color")) {
    color->CheckAttributes({"rgba"});
    color->CheckChildren({}, {});
    const std::vector<double> rgba = color->Numbers("rgba", 4);
    material.rgba = Eigen::Vector4d(rgba[0], rgba[1], rgba[2], rgba[3]);
  }
  if (const auto texture = element.Child("texture")) {
    texture->CheckAttributes({"filename"});
    texture->CheckChildren({}, {});
    material.texture = texture->RequiredString("filename");
  }
  return material;
}

UrdfVisual ReadVisual(const Element& element) {
  element.CheckAttributes({"name"});
  element.CheckChildren({"origin", "geometry", "material"}, {});
  UrdfVisual visual;
  visual.line = element.Line();
  visual.name = element.String("name").value_or("");
  visual.origin = ReadOrigin(element);
  visual.geometry = ReadGeometry(element.RequiredChild("geometry", "<visual>"));
  if (const auto material = element.Child("material")) visual.material = ReadMaterial(*material);
  return visual;
}

UrdfCollision ReadCollision(const Element& element) {
  element.CheckAttributes({"name"});
  element.CheckChildren({"origin", "geometry"}, {});
  UrdfCollision collision;
  collision.line = element.Line();
  collision.name = element.String("name").value_or("");
  collision.origin = ReadOrigin(element);
  collision.geometry = ReadGeometry(element.RequiredChild("geometry", "<collision>"));
  return collision;
}

/// Mass and inertia tensor, with the checks of the header comment.
UrdfInertial ReadInertial(const Element& element, const std::string& link) {
  element.CheckAttributes({});
  element.CheckChildren({"origin", "mass", "inertia"}, {});
  UrdfInertial inertial;
  inertial.line = element.Line();
  inertial.origin = ReadOrigin(element);
  const std::string owner = "<inertial> of link '" + link + "'";

  const Element mass = element.RequiredChild("mass", owner);
  mass.CheckAttributes({"value"});
  mass.CheckChildren({}, {});
  inertial.mass = mass.Number("value");
  if (!(inertial.mass > 0)) {
    mass.Fail(mass.Attribute("value"),
              "mass of link '" + link + "' must be positive, got " + Num(inertial.mass));
  }

  const Element inertia = element.RequiredChild("inertia", owner);
  inertia.CheckAttributes({"ixx", "ixy", "ixz", "iyy", "iyz", "izz"});
  inertia.CheckChildren({}, {});
  const double ixx = inertia.Number("ixx"), ixy = inertia.Number("ixy");
  const double ixz = inertia.Number("ixz"), iyy = inertia.Number("iyy");
  const double iyz = inertia.Number("iyz"), izz = inertia.Number("izz");
  inertial.inertia << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;

  const Eigen::Vector3d moments =
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertial.inertia, Eigen::EigenvaluesOnly)
          .eigenvalues();  // ascending
  const std::string listed = " (principal moments " + Num(moments[0]) + ", " + Num(moments[1]) +
                             ", " + Num(moments[2]) + ")";
  if (!(moments[0] > 0)) {
    inertia.Fail("inertia of link '" + link + "' is not positive definite" + listed);
  }
  if (moments[2] - (moments[0] + moments[1]) > 1e-9 * moments[2]) {
    inertia.Warn("inertia of link '" + link +
                 "' breaks the triangle inequality: the largest principal moment exceeds the "
                 "sum of the other two" + listed + "; no rigid body has it");
  }
  return inertial;
}

UrdfLink ReadLink(const Element& element) {
  element.CheckAttributes({"name"});
  element.CheckChildren({"inertial"}, {"visual", "collision"});
  UrdfLink link;
  link.line = element.Line();
  link.name = element.RequiredString("name");
  if (const auto inertial = element.Child("inertial")) {
    link.inertial = ReadInertial(*inertial, link.name);
  }
  for (const Element& visual : element.Children("visual")) {
    link.visuals.push_back(ReadVisual(visual));
  }
  for (const Element& collision : element.Children("collision")) {
    link.collisions.push_back(ReadCollision(collision));
  }
  return link;
}

// ---- Joints ---------------------------------------------------------------------------

constexpr UrdfJointType kJointTypes[] = {UrdfJointType::kRevolute, UrdfJointType::kContinuous,
                                         UrdfJointType::kPrismatic, UrdfJointType::kFixed,
                                         UrdfJointType::kFloating, UrdfJointType::kPlanar};

/// Where the names a joint refers to were written, for the tree's errors.
struct JointSources {
  SourceLocation parent, child, mimic;
};

/// The link named by a joint's <parent> or <child>.
std::string ReadLinkReference(const Element& joint, const char* tag, const std::string& name,
                              SourceLocation* where) {
  const auto element = joint.Child(tag);
  if (!element) joint.Fail("joint '" + name + "' has no <" + tag + " link=\"...\"/>");
  element->CheckAttributes({"link"});
  element->CheckChildren({}, {});
  *where = element->Where();
  return element->RequiredString("link");
}

UrdfLimit ReadLimit(const Element& element, const std::string& joint) {
  element.CheckAttributes({"lower", "upper", "effort", "velocity"});
  element.CheckChildren({}, {});
  UrdfLimit limit;
  limit.line = element.Line();
  limit.lower = element.NumberOr("lower", limit.lower);
  limit.upper = element.NumberOr("upper", limit.upper);
  limit.effort = element.Number("effort");
  limit.velocity = element.Number("velocity");
  if (limit.lower > limit.upper) {
    element.Warn("joint '" + joint + "': lower limit " + Num(limit.lower) +
                 " is above upper limit " + Num(limit.upper));
  }
  return limit;
}

UrdfJoint ReadJoint(const Element& element, JointSources* sources) {
  element.CheckAttributes({"name", "type"});
  element.CheckChildren({"origin", "parent", "child", "axis", "limit", "dynamics", "mimic",
                         "safety_controller", "calibration"},
                        {});
  UrdfJoint joint;
  joint.line = element.Line();
  joint.name = element.RequiredString("name");
  const std::string type = element.RequiredString("type");
  bool known = false;
  for (UrdfJointType t : kJointTypes) {
    if (type != UrdfJointTypeName(t)) continue;
    joint.type = t;
    known = true;
  }
  if (!known) {
    element.Fail(element.Attribute("type"),
                 "joint '" + joint.name + "' has unknown type '" + type +
                     "' (expected revolute, continuous, prismatic, fixed, floating or planar)");
  }
  joint.origin = ReadOrigin(element);
  joint.parent = ReadLinkReference(element, "parent", joint.name, &sources->parent);
  joint.child = ReadLinkReference(element, "child", joint.name, &sources->child);

  if (const auto axis = element.Child("axis")) {
    axis->CheckAttributes({"xyz"});
    axis->CheckChildren({}, {});
    const std::vector<double> v = axis->Numbers("xyz", 3);  // urdfdom: zero without xyz
    const Eigen::Vector3d xyz(v[0], v[1], v[2]);
    if (!(xyz.norm() > 0)) {
      axis->Fail(axis->Attribute("xyz"), "the axis of joint '" + joint.name + "' is zero");
    }
    joint.axis = xyz.normalized();
    if (joint.type == UrdfJointType::kFixed || joint.type == UrdfJointType::kFloating) {
      axis->Warn("a " + type + " joint has no axis: <axis> of joint '" + joint.name +
                 "' has no effect");
    }
  }

  if (const auto limit = element.Child("limit")) {
    joint.limit = ReadLimit(*limit, joint.name);
  } else if (joint.type == UrdfJointType::kRevolute ||
             joint.type == UrdfJointType::kPrismatic) {
    element.Fail("joint '" + joint.name + "' is " + type +
                 " but has no <limit> (required, with effort and velocity)");
  }

  if (const auto dynamics = element.Child("dynamics")) {
    dynamics->CheckAttributes({"damping", "friction"});
    dynamics->CheckChildren({}, {});
    if (!dynamics->Has("damping") && !dynamics->Has("friction")) {
      dynamics->Warn("<dynamics> of joint '" + joint.name +
                     "' gives neither damping nor friction");
    }
    joint.dynamics.damping = dynamics->NumberOr("damping", 0.0);
    joint.dynamics.friction = dynamics->NumberOr("friction", 0.0);
  }

  if (const auto mimic = element.Child("mimic")) {
    mimic->CheckAttributes({"joint", "multiplier", "offset"});
    mimic->CheckChildren({}, {});
    UrdfMimic m;
    m.line = mimic->Line();
    m.joint = mimic->RequiredString("joint");
    m.multiplier = mimic->NumberOr("multiplier", m.multiplier);
    m.offset = mimic->NumberOr("offset", m.offset);
    sources->mimic = mimic->Where();
    joint.mimic = m;
  }

  if (const auto safety = element.Child("safety_controller")) {
    safety->CheckAttributes({"soft_lower_limit", "soft_upper_limit", "k_position", "k_velocity"});
    safety->CheckChildren({}, {});
    UrdfSafetyController s;
    s.soft_lower_limit = safety->NumberOr("soft_lower_limit", 0.0);
    s.soft_upper_limit = safety->NumberOr("soft_upper_limit", 0.0);
    s.k_position = safety->NumberOr("k_position", 0.0);
    s.k_velocity = safety->Number("k_velocity");
    joint.safety_controller = s;
  }

  if (const auto calibration = element.Child("calibration")) {
    calibration->CheckAttributes({"rising", "falling"});
    calibration->CheckChildren({}, {});
    joint.calibration = UrdfCalibration{calibration->OptionalNumber("rising"),
                                        calibration->OptionalNumber("falling")};
  }
  return joint;
}

// ---- Transmissions --------------------------------------------------------------------

/// A SimpleTransmission, in ROS's old format (type attribute, mechanicalReduction under
/// <transmission>) or new one (<type> element, mechanicalReduction under <actuator>).
/// Other types: a warning, and nullopt. `joint_at` receives the location of its <joint>.
std::optional<UrdfTransmission> ReadTransmission(const Element& element,
                                                 SourceLocation* joint_at) {
  UrdfTransmission t;
  t.line = element.Line();
  t.name = element.RequiredString("name");
  if (const auto type = element.Child("type")) {
    t.type = type->Text();
  } else if (const auto attribute = element.String("type")) {
    t.type = *attribute;
  }
  const std::string simple = "SimpleTransmission";
  if (t.type.empty()) {
    element.Warn("transmission '" + t.name + "' has no type: ignored");
    return std::nullopt;
  }
  if (t.type.size() < simple.size() ||
      t.type.compare(t.type.size() - simple.size(), simple.size(), simple) != 0) {
    element.Warn("transmission '" + t.name + "' of type '" + t.type +
                 "' ignored: only SimpleTransmission is read");
    return std::nullopt;
  }
  element.CheckAttributes({"name", "type"});
  element.CheckChildren({"type", "joint", "actuator", "mechanicalReduction"}, {});

  const Element joint = element.RequiredChild("joint", "transmission '" + t.name + "'");
  joint.CheckAttributes({"name"});
  joint.CheckChildren({}, {"hardwareInterface"});
  t.joint = joint.RequiredString("name");
  *joint_at = joint.Where();
  for (const Element& hardware : joint.Children("hardwareInterface")) {
    t.hardware_interfaces.push_back(hardware.Text());
  }

  const Element actuator = element.RequiredChild("actuator", "transmission '" + t.name + "'");
  actuator.CheckAttributes({"name"});
  actuator.CheckChildren({"mechanicalReduction"}, {"hardwareInterface"});
  t.actuator = actuator.RequiredString("name");
  const auto reduction = actuator.Child("mechanicalReduction");
  const auto old_reduction = element.Child("mechanicalReduction");
  if (reduction) {
    t.mechanical_reduction = reduction->TextNumber();
  } else if (old_reduction) {
    t.mechanical_reduction = old_reduction->TextNumber();
  }
  if (reduction && old_reduction) {
    old_reduction->Warn("transmission '" + t.name +
                        "' gives mechanicalReduction twice: the <actuator>'s counts");
  }
  return t;
}

// ---- The robot and its tree -----------------------------------------------------------

/// Where the elements the tree's errors point at were written.
struct TreeSources {
  std::vector<SourceLocation> links;
  std::vector<JointSources> joints;
  std::vector<SourceLocation> transmission_joints;
};

/// Indices into `model` of each joint's links, each link's joints, the root, and the
/// names mimics and transmissions refer to; fails at the first broken rule.
void BuildTree(const Element& robot, const TreeSources& sources, UrdfModel* model) {
  const std::vector<JointSources>& joint_sources = sources.joints;
  auto line_of = [](int line) { return " (line " + std::to_string(line) + ")"; };

  for (std::size_t j = 0; j < model->joints.size(); ++j) {
    UrdfJoint& joint = model->joints[j];
    joint.parent_link = model->FindLink(joint.parent);
    if (joint.parent_link < 0) {
      throw InputError(joint_sources[j].parent, "joint '" + joint.name + "': parent link '" +
                                                    joint.parent + "' is not defined");
    }
    joint.child_link = model->FindLink(joint.child);
    if (joint.child_link < 0) {
      throw InputError(joint_sources[j].child, "joint '" + joint.name + "': child link '" +
                                                   joint.child + "' is not defined");
    }
    if (joint.child_link == joint.parent_link) {
      throw InputError(joint_sources[j].child,
                       "joint '" + joint.name + "' connects link '" + joint.child + "' to itself");
    }
    UrdfLink& child = model->links[joint.child_link];
    if (child.parent_joint >= 0) {
      const UrdfJoint& first = model->joints[child.parent_joint];
      throw InputError(joint_sources[j].child,
                       "link '" + child.name + "' is the child of two joints: '" + first.name +
                           "'" + line_of(first.line) + " and '" + joint.name + "'");
    }
    child.parent_joint = static_cast<int>(j);
    model->links[joint.parent_link].child_joints.push_back(static_cast<int>(j));
  }

  std::vector<int> roots;
  for (std::size_t i = 0; i < model->links.size(); ++i) {
    if (model->links[i].parent_joint < 0) roots.push_back(static_cast<int>(i));
  }
  if (roots.empty()) {
    robot.Fail("no root link: every link is the child of a joint, so the joints form a cycle");
  }
  if (roots.size() > 1) {
    const UrdfLink& first = model->links[roots[0]];
    const UrdfLink& second = model->links[roots[1]];
    throw InputError(
        sources.links[roots[1]],
        "two root links, '" + first.name + "'" + line_of(first.line) + " and '" + second.name +
            "': every link but one must be the child of a joint (" +
            std::to_string(roots.size()) + " links are not)");
  }
  model->root = roots.front();

  // With one root and one parent per link, a link the root does not reach lies on a cycle.
  std::vector<bool> reached(model->links.size(), false);
  std::vector<int> stack = {model->root};
  while (!stack.empty()) {
    const int link = stack.back();
    stack.pop_back();
    reached[link] = true;
    for (int j : model->links[link].child_joints) stack.push_back(model->joints[j].child_link);
  }
  for (std::size_t i = 0; i < model->links.size(); ++i) {
    if (reached[i]) continue;
    const UrdfLink& link = model->links[i];
    throw InputError(sources.links[i],
                     "link '" + link.name + "' is not connected to the root link '" +
                         model->links[model->root].name + "': its joints form a cycle");
  }

  for (std::size_t j = 0; j < model->joints.size(); ++j) {
    UrdfJoint& joint = model->joints[j];
    if (!joint.mimic) continue;
    joint.mimic->joint_index = model->FindJoint(joint.mimic->joint);
    if (joint.mimic->joint_index < 0) {
      throw InputError(joint_sources[j].mimic, "joint '" + joint.name + "' mimics joint '" +
                                                   joint.mimic->joint + "', which is not defined");
    }
    if (joint.mimic->joint_index == static_cast<int>(j)) {
      throw InputError(joint_sources[j].mimic, "joint '" + joint.name + "' mimics itself");
    }
  }
  for (std::size_t t = 0; t < model->transmissions.size(); ++t) {
    UrdfTransmission& transmission = model->transmissions[t];
    transmission.joint_index = model->FindJoint(transmission.joint);
    if (transmission.joint_index < 0) {
      throw InputError(sources.transmission_joints[t],
                       "transmission '" + transmission.name + "' drives joint '" +
                           transmission.joint + "', which is not defined");
    }
  }
}

/// "line N" of an earlier definition, for duplicate-name errors.
std::string FirstDefined(int line) {
  return " (first defined at line " + std::to_string(line) + ")";
}

UrdfModel ReadRobot(const Element& robot, const std::string& file) {
  robot.CheckAttributes({"name", "version"}, [](const char* name) {
    return std::strncmp(name, "xmlns", 5) == 0;  // xmlns:xacro and the like
  });
  robot.CheckChildren({}, {"link", "joint", "material", "transmission"});
  UrdfModel model;
  model.file = file;
  model.name = robot.RequiredString("name");
  if (const auto version = robot.String("version"); version && *version != "1.0") {
    robot.Warn("URDF version '" + *version + "' read as version 1.0");
  }

  TreeSources sources;
  std::map<std::string, int> links, joints, materials;
  for (const Element& element : robot.AllChildren()) {
    const std::string tag = element.Tag();
    if (tag == "link") {
      UrdfLink link = ReadLink(element);
      const auto [at, inserted] = links.emplace(link.name, static_cast<int>(model.links.size()));
      if (!inserted) {
        element.Fail("link '" + link.name + "' is defined twice" +
                     FirstDefined(model.links[at->second].line));
      }
      model.links.push_back(std::move(link));
      sources.links.push_back(element.Where());
    } else if (tag == "joint") {
      JointSources joint_sources;
      UrdfJoint joint = ReadJoint(element, &joint_sources);
      const auto [at, inserted] =
          joints.emplace(joint.name, static_cast<int>(model.joints.size()));
      if (!inserted) {
        element.Fail("joint '" + joint.name + "' is defined twice" +
                     FirstDefined(model.joints[at->second].line));
      }
      model.joints.push_back(std::move(joint));
      sources.joints.push_back(joint_sources);
    } else if (tag == "material") {
      UrdfMaterial material = ReadMaterial(element);
      const auto [at, inserted] =
          materials.emplace(material.name, static_cast<int>(model.materials.size()));
      if (!inserted) {
        element.Fail("material '" + material.name + "' is defined twice" +
                     FirstDefined(model.materials[at->second].line));
      }
      model.materials.push_back(std::move(material));
    } else if (tag == "transmission") {
      SourceLocation joint_at;
      if (auto transmission = ReadTransmission(element, &joint_at)) {
        model.transmissions.push_back(std::move(*transmission));
        sources.transmission_joints.push_back(joint_at);
      }
    }
  }
  if (model.links.empty()) robot.Fail("robot '" + model.name + "' has no <link>");
  BuildTree(robot, sources, &model);
  return model;
}

/// tinyxml2's ErrorStr() without its "Error=... ErrorID=... Line number=N" prefix.
std::string XmlErrorDetail(const tinyxml2::XMLDocument& document) {
  const std::string text = document.ErrorStr() ? document.ErrorStr() : "";
  const std::size_t line = text.find("Line number=");
  if (line == std::string::npos) return "";
  const std::size_t colon = text.find(": ", line);
  return colon == std::string::npos ? "" : text.substr(colon + 2);
}

}  // namespace

Eigen::Matrix3d UrdfRotation(const Eigen::Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

const char* UrdfJointTypeName(UrdfJointType type) {
  switch (type) {
    case UrdfJointType::kRevolute: return "revolute";
    case UrdfJointType::kContinuous: return "continuous";
    case UrdfJointType::kPrismatic: return "prismatic";
    case UrdfJointType::kFixed: return "fixed";
    case UrdfJointType::kFloating: return "floating";
    case UrdfJointType::kPlanar: return "planar";
  }
  return "?";
}

int UrdfModel::FindLink(const std::string& link_name) const {
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].name == link_name) return static_cast<int>(i);
  }
  return -1;
}

int UrdfModel::FindJoint(const std::string& joint_name) const {
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (joints[i].name == joint_name) return static_cast<int>(i);
  }
  return -1;
}

Eigen::Matrix3d InertiaInLinkFrame(const UrdfInertial& inertial) {
  const Eigen::Matrix3d R = UrdfRotation(inertial.origin.rpy);
  return R * inertial.inertia * R.transpose();
}

UrdfModel ReadUrdfText(const std::string& text, const std::string& path_for_messages,
                       std::vector<std::string>* warnings) {
  const Context context{Locator(text, path_for_messages), warnings};
  tinyxml2::XMLDocument document;
  if (document.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    const std::string detail = XmlErrorDetail(document);
    // Errors about an element ("XMLElement name=link": a start tag without its end tag)
    // are located at its start tag, the others at their line.
    const std::string element = "XMLElement name=";
    const SourceLocation where =
        detail.rfind(element, 0) == 0 && document.ErrorLineNum() > 0
            ? context.locator.StartTag(document.ErrorLineNum(), detail.substr(element.size()))
            : context.locator.AtLine(document.ErrorLineNum());
    throw InputError(where,
                     std::string("not well-formed XML (") + document.ErrorName() +
                         (detail.empty() ? "" : ": " + detail) + ")");
  }
  const tinyxml2::XMLElement* root = document.RootElement();
  if (!root) throw InputError(context.locator.AtLine(1), "no XML element in the file");
  const Element robot(root, &context);
  if (robot.Tag() != "robot") {
    robot.Fail("the document's element is <" + robot.Tag() + ">, not <robot>: not a URDF file");
  }
  for (const tinyxml2::XMLElement* e = root->NextSiblingElement(); e; e = e->NextSiblingElement()) {
    Element(e, &context).Warn("element <" + std::string(e->Name()) + "> after <robot>: ignored");
  }
  return ReadRobot(robot, path_for_messages);
}

UrdfModel ReadUrdfFile(const std::string& path, std::vector<std::string>* warnings) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw IoError("cannot read URDF file '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read URDF file '" + path + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw IoError("cannot read URDF file '" + path + "'");
  return ReadUrdfText(text.str(), path, warnings);
}

}  // namespace csim::io
