#include "engine/io/actuator_reader.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "engine/io/model_builder.h"
#include "engine/multibody/crba.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/rnea.h"
#include "engine/multibody/workspace.h"

namespace csim::io {
namespace {

using multibody::Actuator;
using multibody::JointType;

/// The mass matrix's diagonal (armature included) and the generalized force that holds the
/// model still, both at the initial q with v = 0 (the bias forces there: gravity, and the
/// known motion of prescribed joints).
struct InitialDynamics {
  Eigen::VectorXd M_diagonal;  ///< (nv) [kg or kg m^2]
  Eigen::VectorXd hold;        ///< (nv) [N or N m]
};

InitialDynamics CalcInitialDynamics(const multibody::Model& model) {
  multibody::Workspace ws = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, model.InitialQ(), Eigen::VectorXd::Zero(model.nv), ws);
  multibody::CalcMassMatrix(model, ws);
  multibody::CalcBiasForces(model, ws);
  InitialDynamics d;
  d.M_diagonal.resize(model.nv);
  ws.M.Diagonal(d.M_diagonal);
  d.hold = ws.bias;
  return d;
}

/// The joint an actuator drives, with its coordinate: dof, q_index, q_hold filled.
void ReadJointAndCoordinate(const NodeReader& node, const multibody::Model& model, Actuator* a) {
  const NodeReader joint_node = node.Get("joint");
  const std::string joint_name = joint_node.AsString();
  a->joint = model.FindJoint(joint_name);
  if (a->joint < 0) joint_node.Fail("unknown joint '" + joint_name + "'");
  const multibody::Joint& joint = model.joints[a->joint];
  if (joint.type != JointType::kRevolute && joint.type != JointType::kPrismatic &&
      joint.type != JointType::kPlanar) {
    joint_node.Fail("joint '" + joint_name + "' is " + multibody::JointTypeName(joint.type) +
                    ": an actuator drives a revolute, prismatic or planar joint");
  }
  if (joint.prescribed) {
    joint_node.Fail("joint '" + joint_name +
                    "' is prescribed: its motion is given, an actuator cannot drive it");
  }
  const auto coordinate = node.Find("coordinate");
  if (joint.type == JointType::kPlanar) {
    if (!coordinate) {
      node.Fail("missing required key 'coordinate' (joint '" + joint_name +
                "' is planar: 0 = x, 1 = y, 2 = rotation)");
    }
    a->coordinate = coordinate->AsInt();
    if (a->coordinate < 0 || a->coordinate >= joint.nv) {
      coordinate->Fail("coordinate " + std::to_string(a->coordinate) +
                       " is out of range (a planar joint has coordinates 0, 1, 2)");
    }
  } else if (coordinate) {
    coordinate->Fail("'coordinate' is for planar joints only (joint '" + joint_name + "' is " +
                     multibody::JointTypeName(joint.type) + ")");
  }
  a->dof = joint.v_start + a->coordinate;
  a->q_index = joint.q_start + a->coordinate;
  a->q_hold = joint.q_initial[a->coordinate];
}

/// kp, kd or damping_ratio; sets pd when either gain is given.
void ReadGains(const NodeReader& node, const InitialDynamics& initial, Actuator* a) {
  const auto kp = node.Find("kp");
  const auto kd = node.Find("kd");
  const auto ratio = node.Find("damping_ratio");
  if (kp) a->kp = kp->AsNonNegative();
  if (kd) a->kd = kd->AsNonNegative();
  if (ratio) {
    if (kd) ratio->Fail("give kd or damping_ratio, not both");
    if (!kp) ratio->Fail("damping_ratio needs kp (kd = 2 damping_ratio sqrt(kp A_jj))");
    const double zeta = ratio->AsNonNegative();
    a->kd = 2.0 * zeta * std::sqrt(a->kp * initial.M_diagonal[a->dof]);
  }
  a->pd = (kp || kd || ratio) && (a->kp > 0.0 || a->kd > 0.0);
  if ((kp || kd || ratio) && !a->pd && node.Find("target")) {
    (kp ? *kp : kd ? *kd : *ratio)
        .Fail("kp and kd are both zero: the target would have no effect");
  }
}

/// `target`: a trajectory that lists the actuator's joint.
void ReadTarget(const NodeReader& node, const multibody::Model& model, Actuator* a) {
  const auto target = node.Find("target");
  if (!target) return;
  const std::string name = target->AsString();
  if (!a->pd) target->Fail("a target needs a gain: give kp or kd");
  a->target = model.FindTrajectory(name);
  if (a->target < 0) target->Fail("unknown trajectory '" + name + "'");
  const multibody::JointTrajectory& trajectory = model.trajectories[a->target];
  for (size_t k = 0; k < trajectory.joints.size(); ++k)
    if (trajectory.joints[k] == a->joint)
      a->target_column = trajectory.first_column[k] + a->coordinate;
  if (a->target_column < 0) {
    target->Fail("trajectory '" + name + "' has no column for joint '" +
                 model.joints[a->joint].name + "' (add the joint to its joints)");
  }
}

/// Whether a scalar's text reads as a number (then it is read as one, with its checks).
bool LooksNumeric(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0';
}

/// `feedforward`: a number, `gravity` or a signal's name.
void ReadFeedforward(const NodeReader& node, const multibody::Model& model,
                     const InitialDynamics& initial, Actuator* a) {
  const auto ff = node.Find("feedforward");
  if (!ff) return;
  if (!ff->IsScalar()) ff->AsString();  // fails with the reader's message
  const std::string text = ff->node().Scalar();
  if (text == "gravity") {
    a->feedforward_kind = multibody::FeedforwardKind::kGravity;
    a->feedforward = initial.hold[a->dof];
  } else if (LooksNumeric(text) || text == ".inf" || text == "-.inf" || text == ".nan") {
    a->feedforward_kind = multibody::FeedforwardKind::kConstant;
    a->feedforward = ff->AsDouble();
  } else {
    a->signal = model.signals.Find(text);
    if (a->signal < 0) {
      ff->Fail("unknown signal '" + text + "' (feedforward is a number, a signal name or "
               "gravity)");
    }
    a->feedforward_kind = multibody::FeedforwardKind::kSignal;
  }
}

Actuator ReadActuator(const NodeReader& node, const multibody::Model& model,
                      const InitialDynamics& initial) {
  node.CheckKeys({"name", "joint", "coordinate", "effort_limit", "kp", "kd", "damping_ratio",
                  "target", "feedforward"});
  Actuator a;
  a.name = ReadName(node.Get("name"), "actuator");
  ReadJointAndCoordinate(node, model, &a);
  if (const auto limit = node.Find("effort_limit")) a.effort_limit = limit->AsPositive(true);
  ReadGains(node, initial, &a);
  ReadTarget(node, model, &a);
  ReadFeedforward(node, model, initial, &a);
  return a;
}

}  // namespace

std::vector<Actuator> ReadActuators(const NodeReader& root, const multibody::Model& model) {
  std::vector<Actuator> actuators;
  const auto list = root.Find("actuators");
  if (!list) return actuators;
  const std::vector<NodeReader> items = list->Items();
  if (items.empty()) return actuators;
  const InitialDynamics initial = CalcInitialDynamics(model);
  for (const NodeReader& item : items) {
    Actuator a = ReadActuator(item, model, initial);
    for (const Actuator& other : actuators) {
      if (other.name == a.name) item.Get("name").Fail("duplicate actuator name '" + a.name + "'");
      if (other.dof == a.dof) {
        item.Get("joint").Fail("actuators '" + other.name + "' and '" + a.name +
                               "' drive the same coordinate of joint '" +
                               model.joints[a.joint].name + "'");
      }
    }
    actuators.push_back(std::move(a));
  }
  return actuators;
}

}  // namespace csim::io
