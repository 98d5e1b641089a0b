#include "engine/io/constraint_reader.h"

#include <string>

#include "engine/io/model_builder.h"

namespace csim::io {
namespace {

using multibody::HolonomicConstraint;
using multibody::HolonomicType;

HolonomicType ReadType(const NodeReader& node) {
  const std::string type = node.AsString();
  if (type == "coupler") return HolonomicType::kCoupler;
  if (type == "distance") return HolonomicType::kDistance;
  if (type == "ball") return HolonomicType::kBall;
  if (type == "weld") return HolonomicType::kWeld;
  node.Fail("unknown constraint type '" + type + "' (expected coupler, distance, ball or weld)");
}

// A body by name; `world` is -1.
int ReadBody(const NodeReader& node, const multibody::Model& model) {
  const std::string name = node.AsString();
  if (name == "world") return -1;
  const int body = model.FindBody(name);
  if (body < 0) node.Fail("unknown body '" + name + "'");
  return body;
}

// A joint that owns exactly one coordinate, by name.
int ReadCoupledJoint(const NodeReader& node, const multibody::Model& model) {
  const std::string name = node.AsString();
  const int joint = model.FindJoint(name);
  if (joint < 0) node.Fail("unknown joint '" + name + "'");
  const multibody::Joint& j = model.joints[joint];
  if (j.prescribed || j.type == multibody::JointType::kFixed)
    node.Fail("a coupler needs a joint with a coordinate of its own; '" + name + "' is " +
              (j.prescribed ? "prescribed" : "fixed"));
  if (j.nv != 1 || j.nq != 1)
    node.Fail("a coupler joins one-coordinate joints (revolute, prismatic); '" + name +
              "' is " + multibody::JointTypeName(j.type) + " with " + std::to_string(j.nv) +
              " coordinates");
  return joint;
}

void ReadCoupler(const NodeReader& node, const multibody::Model& model, HolonomicConstraint* c) {
  node.CheckKeys({"type", "name", "joint", "follows", "ratio", "offset"});
  c->joint = ReadCoupledJoint(node.Get("joint"), model);
  const NodeReader follows = node.Get("follows");
  c->follows = ReadCoupledJoint(follows, model);
  if (c->follows == c->joint) follows.Fail("a coupler joins two different joints");
  c->ratio = node.DoubleOr("ratio", c->ratio);
  c->offset = node.DoubleOr("offset", c->offset);
}

// body_a and body_b, which must differ.
void ReadBodies(const NodeReader& node, const multibody::Model& model, HolonomicConstraint* c) {
  c->body_a = ReadBody(node.Get("body_a"), model);
  const NodeReader body_b = node.Get("body_b");
  c->body_b = ReadBody(body_b, model);
  if (c->body_a == c->body_b)
    body_b.Fail("a constraint joins two different bodies (body_a is the same)");
}

void ReadPoints(const NodeReader& node, HolonomicConstraint* c) {
  if (const auto p = node.Find("point_a")) c->X_AP.p = p->AsVector3();
  if (const auto p = node.Find("point_b")) c->X_BQ.p = p->AsVector3();
}

HolonomicConstraint ReadConstraint(const NodeReader& node, const multibody::Model& model,
                                   int index) {
  node.ExpectMap();
  HolonomicConstraint c;
  c.type = ReadType(node.Get("type"));
  switch (c.type) {
    case HolonomicType::kCoupler:
      ReadCoupler(node, model, &c);
      break;
    case HolonomicType::kDistance: {
      node.CheckKeys({"type", "name", "body_a", "point_a", "body_b", "point_b", "length",
                      "stiffness", "damping"});
      ReadBodies(node, model, &c);
      ReadPoints(node, &c);
      const NodeReader length = node.Get("length");
      if (length.AsDouble() <= 0.0) length.Fail("the length must be positive [m]");
      c.length = length.AsDouble();
      if (const auto k = node.Find("stiffness")) {
        if (k->AsDouble(true) <= 0.0) k->Fail("the stiffness must be positive (.inf: rigid) [N/m]");
        c.stiffness = k->AsDouble(true);
      }
      if (const auto d = node.Find("damping")) {
        if (d->AsDouble() < 0.0) d->Fail("the damping must not be negative [N s/m]");
        c.damping = d->AsDouble();
      }
      break;
    }
    case HolonomicType::kBall:
      node.CheckKeys({"type", "name", "body_a", "point_a", "body_b", "point_b", "collide"});
      ReadBodies(node, model, &c);
      ReadPoints(node, &c);
      c.collide = node.BoolOr("collide", false);
      break;
    case HolonomicType::kWeld:
      node.CheckKeys({"type", "name", "body_a", "pose_a", "body_b", "pose_b", "collide"});
      ReadBodies(node, model, &c);
      if (const auto pose = node.Find("pose_a")) c.X_AP = ReadScenePose(*pose);
      if (const auto pose = node.Find("pose_b")) c.X_BQ = ReadScenePose(*pose);
      c.collide = node.BoolOr("collide", false);
      break;
  }
  if (const auto name = node.Find("name")) {
    c.name = ReadName(*name, "a constraint");
  } else {
    c.name = std::string(multibody::HolonomicTypeName(c.type)) + std::to_string(index);
  }
  return c;
}

}  // namespace

std::vector<HolonomicConstraint> ReadConstraints(const NodeReader& root,
                                                 const multibody::Model& model) {
  std::vector<HolonomicConstraint> constraints;
  const auto list = root.Find("constraints");
  if (!list) return constraints;
  const std::vector<NodeReader> items = list->Items();
  for (size_t i = 0; i < items.size(); ++i) {
    HolonomicConstraint c = ReadConstraint(items[i], model, static_cast<int>(i));
    for (const HolonomicConstraint& earlier : constraints)
      if (earlier.name == c.name) {
        const auto name = items[i].Find("name");
        (name ? *name : items[i]).Fail("duplicate constraint name '" + c.name + "'");
      }
    constraints.push_back(std::move(c));
  }
  return constraints;
}

}  // namespace csim::io
