#include "engine/multibody/joint_motion.h"

#include <cmath>

#include "engine/common/check.h"
#include "engine/math/rotation.h"

namespace csim::multibody {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

// The linear part of a child-frame velocity expressed in rotating coordinates changes at
// -w x v even at constant rates: d/dt (R^T u) = R^T udot - w_C x R^T u.
math::Vector6 RotatingFrameBias(const Vector3d& w_C, const Vector3d& v_C) {
  math::Vector6 cJ = math::Vector6::Zero();
  cJ.tail<3>() = -w_C.cross(v_C);
  return cJ;
}

void Revolute(const Joint& j, const JointVector& q, JointKinematics* out) {
  out->X_JC = {math::RotationAboutAxis(j.axis, q[0]), Vector3d::Zero()};
  out->S.resize(6, 1);
  out->S << j.axis, Vector3d::Zero();
}

void Prismatic(const Joint& j, const JointVector& q, JointKinematics* out) {
  out->X_JC = {Matrix3d::Identity(), j.axis * q[0]};
  out->S.resize(6, 1);
  out->S << Vector3d::Zero(), j.axis;
}

void Planar(const JointVector& q, const JointVector& v, JointKinematics* out) {
  const Matrix3d R = math::RotationAboutAxis(Vector3d::UnitZ(), q[2]);
  out->X_JC = {R, Vector3d(q[0], q[1], 0.0)};
  out->S.setZero(6, 3);
  out->S.block<3, 2>(3, 0) = R.transpose().leftCols<2>();  // (x, y) rates in J, seen in C
  out->S(2, 2) = 1.0;
  const Vector3d w_C(0, 0, v[2]);
  const Vector3d v_C = out->S.block<3, 2>(3, 0) * v.head<2>();
  out->cJ = RotatingFrameBias(w_C, v_C);
}

void Ball(const JointVector& q, JointKinematics* out) {
  out->X_JC = {math::RotationFromQuaternion(q.head<4>()), Vector3d::Zero()};
  out->S.setZero(6, 3);
  out->S.topRows<3>().setIdentity();
}

void Free(const JointVector& q, const JointVector& v, JointKinematics* out) {
  const Matrix3d R = math::RotationFromQuaternion(q.head<4>());
  out->X_JC = {R, q.segment<3>(4)};
  out->S.setZero(6, 6);
  out->S.topLeftCorner<3, 3>() = R.transpose();
  out->S.bottomRightCorner<3, 3>() = R.transpose();
  const Vector3d w_C = R.transpose() * v.head<3>();
  const Vector3d v_C = R.transpose() * v.segment<3>(3);
  out->cJ = RotatingFrameBias(w_C, v_C);
}

}  // namespace

void CalcJointKinematics(const Joint& joint, const JointVector& q_j, const JointVector& v_j,
                         JointKinematics* out) {
  out->cJ.setZero();
  switch (joint.type) {
    case JointType::kFixed:
      out->X_JC = math::RigidTransform::Identity();
      out->S.resize(6, 0);
      return;
    case JointType::kRevolute: return Revolute(joint, q_j, out);
    case JointType::kPrismatic: return Prismatic(joint, q_j, out);
    case JointType::kPlanar: return Planar(q_j, v_j, out);
    case JointType::kBall: return Ball(q_j, out);
    case JointType::kFree: return Free(q_j, v_j, out);
  }
  CSIM_CHECK(false);
}

void CalcPrescribedMotion(const Model& model, const Joint& joint, double t, JointVector* q_j,
                          JointVector* v_j, JointVector* a_j) {
  CSIM_CHECK(joint.nq == joint.nv);  // prescribed motion only on joints with qdot = v
  if (joint.motion.kind == PrescribedKind::kTable) {
    const control::Trajectory& table = model.trajectories[joint.motion.trajectory].table;
    q_j->resize(joint.nq);
    v_j->resize(joint.nv);
    a_j->resize(joint.nv);
    for (int k = 0; k < joint.nv; ++k) {
      const control::TrajectoryPoint p = table.Evaluate(joint.motion.first_column + k, t);
      (*q_j)[k] = p.q;
      (*v_j)[k] = p.v;
      (*a_j)[k] = p.a;
    }
    return;
  }
  const double omega = 2.0 * M_PI * joint.motion.frequency;
  const double s = std::sin(omega * t + joint.motion.phase);
  const double c = std::cos(omega * t + joint.motion.phase);
  *q_j = joint.motion.amplitude * s;
  *v_j = joint.motion.amplitude * (omega * c);
  *a_j = joint.motion.amplitude * (-omega * omega * s);
}

}  // namespace csim::multibody
