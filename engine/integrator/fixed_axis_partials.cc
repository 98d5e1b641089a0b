#include "engine/integrator/fixed_axis_partials.h"

#include "engine/common/check.h"
#include "engine/integrator/free_body_partials.h"
#include "engine/multibody/actuator_inputs.h"
#include "engine/multibody/tree_topology.h"

namespace csim::integrator {
namespace {

using Eigen::Vector3d;
using multibody::JointType;
using multibody::Model;

// How far the centre of mass may sit from the axis of turning [m]: a geometry's centroid
// computed on the axis lands there to rounding; a real offset is far larger.
constexpr double kOnAxis = 1e-12;

}  // namespace

bool IsFixedAxisBody(const Model& model, int b) {
  const multibody::Joint& joint = model.joints[b];
  if (model.parent[b] >= 0 || joint.v_start < 0 || joint.prescribed) return false;
  if (joint.type != JointType::kPrismatic && joint.type != JointType::kPlanar &&
      joint.type != JointType::kRevolute)
    return false;
  if (multibody::HasChildBody(model, b)) return false;
  const Vector3d& c = model.bodies[b].com;
  switch (joint.type) {
    case JointType::kPrismatic:
      return true;  // M = m + armature, the bias the weight along the axis: constant
    case JointType::kPlanar:
      // The body turns about J's z through its origin: M is constant, and the weight has no
      // moment about z, when the centre of mass is on z.
      return c.head<2>().norm() <= kOnAxis;
    case JointType::kRevolute: {
      // The axis through the origin (the joint's translation is zero): M = a^T I_o a is
      // constant; the weight's moment about the axis is (c x m g) . a, constant when c is on
      // the axis or g along it.
      const Vector3d off_axis = c - c.dot(joint.axis) * joint.axis;
      const Vector3d axis_W = joint.X_PJ.R * joint.axis;
      return off_axis.norm() <= kOnAxis ||
             axis_W.cross(model.gravity).norm() <= 1e-12 * model.gravity.norm();
    }
    default:
      return false;
  }
}

Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 3> FixedAxisTwistMap(const Model& model, int b) {
  CSIM_CHECK(IsFixedAxisBody(model, b));
  const multibody::Joint& joint = model.joints[b];
  // The joint's motion subspace is constant in J (the child turns about J's axis through
  // its own origin, or slides along J's axes), and J is fixed in the world.
  const Eigen::Matrix3d& R_WJ = joint.X_PJ.R;
  Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 3> map(6, joint.nv);
  map.setZero();
  switch (joint.type) {
    case JointType::kRevolute:
      map.block<3, 1>(0, 0) = R_WJ * joint.axis;
      break;
    case JointType::kPrismatic:
      map.block<3, 1>(3, 0) = R_WJ * joint.axis;
      break;
    case JointType::kPlanar:  // (x, y) rates along J's x and y, the angle's about J's z
      map.block<3, 1>(3, 0) = R_WJ.col(0);
      map.block<3, 1>(3, 1) = R_WJ.col(1);
      map.block<3, 1>(0, 2) = R_WJ.col(2);
      break;
    default:
      CSIM_CHECK(false);
  }
  return map;
}

Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3> SmallInverse(
    const Eigen::Ref<const Eigen::MatrixXd>& A) {
  const int n = static_cast<int>(A.rows());
  CSIM_CHECK(n >= 1 && n <= 3 && A.cols() == n);
  // Padded with the identity: the block diagonal's inverse holds A^-1 in its corner.
  Eigen::Matrix3d padded = Eigen::Matrix3d::Identity();
  padded.topLeftCorner(n, n) = A;
  return padded.inverse().topLeftCorner(n, n);
}

bool AllPairwiseBodies(const Model& model, bool* any_free) {
  *any_free = false;
  if (!model.loads.empty() || multibody::HasForceActuators(model)) return false;
  for (int b = 0; b < model.num_bodies(); ++b) {
    if (model.joints[b].v_start < 0 || IsFixedAxisBody(model, b)) continue;
    if (!IsLoneFreeBody(model, b)) return false;
    *any_free = true;
  }
  return true;
}

void PrepareFixedAxisPartials(const Model& model, const ThetaParameters& params, double dt,
                              const StepWorkspace& ws, FixedAxisFreeMotionPartials* partials) {
  if (!partials->listed) {
    for (int b = 0; b < model.num_bodies(); ++b)
      if (IsFixedAxisBody(model, b)) partials->fixed_axis.push_back(b);
    partials->listed = true;
  }
  partials->bodies.resize(partials->fixed_axis.size());
  const double theta = params.theta, theta_q = params.theta_q;
  int index = 0;
  for (const int b : partials->fixed_axis) {
    FixedAxisFreeMotionPartials::Body& s = partials->bodies[index++];
    const multibody::Joint& joint = model.joints[b];
    const int o = joint.v_start, n = joint.nv;
    s.v_start = o;
    s.nv = n;
    // The body is its tree: its blocks of M and A are the whole blocks at its velocities.
    const auto K = ws.K_diag.segment(o, n), D = ws.D_diag.segment(o, n);
    s.q_map.setZero(n, n);
    s.q_map.diagonal() = dt * K;
    s.v_map = -ws.mb.M.sub(o, o, n, n);
    s.v_map.diagonal() += (dt * dt * theta * (1 - theta_q)) * K + (dt * (1 - theta)) * D;
    s.A_inverse = SmallInverse(ws.A.sub(o, o, n, n));
  }
}

void ApplyFixedAxisPartials(const FixedAxisFreeMotionPartials& partials,
                            const Eigen::Ref<const Eigen::VectorXd>& dq,
                            const Eigen::Ref<const Eigen::VectorXd>& dv0,
                            Eigen::Ref<Eigen::VectorXd> dF, Eigen::Ref<Eigen::VectorXd> dv_star) {
  for (const FixedAxisFreeMotionPartials::Body& s : partials.bodies) {
    const int o = s.v_start, n = s.nv;
    auto F = dF.segment(o, n);
    F.noalias() = s.q_map * dq.segment(o, n);
    F.noalias() += s.v_map * dv0.segment(o, n);
    dv_star.segment(o, n).noalias() = -s.A_inverse * F;
  }
}

}  // namespace csim::integrator
