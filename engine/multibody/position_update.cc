#include "engine/multibody/position_update.h"

#include "engine/math/rotation.h"

namespace csim::multibody {
namespace {

// 4x4 quaternion rate matrix W with qdot = 1/2 W q for this joint's angular velocity.
Eigen::Matrix4d QuaternionRateMatrix(const Joint& j, const Eigen::Vector3d& w) {
  return j.type == JointType::kFree ? math::OmegaLeft(w) : math::OmegaRight(w);
}

bool HasQuaternion(const Joint& j) {
  return j.q_start >= 0 && (j.type == JointType::kFree || j.type == JointType::kBall);
}

}  // namespace

void CalcQDot(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
              Eigen::VectorXd* qdot) {
  for (const Joint& j : model.joints) {
    if (j.q_start < 0) continue;
    if (!HasQuaternion(j)) {
      qdot->segment(j.q_start, j.nq) = v.segment(j.v_start, j.nv);
      continue;
    }
    const Eigen::Vector3d w = v.segment<3>(j.v_start);
    qdot->segment<4>(j.q_start) = 0.5 * QuaternionRateMatrix(j, w) * q.segment<4>(j.q_start);
    if (j.type == JointType::kFree) qdot->segment<3>(j.q_start + 4) = v.segment<3>(j.v_start + 3);
  }
}

void IntegratePositions(const Model& model, const Eigen::VectorXd& q0,
                        const Eigen::VectorXd& v_bar, double dt, double theta,
                        Eigen::VectorXd* q) {
  for (const Joint& j : model.joints) {
    if (j.q_start < 0) continue;
    if (!HasQuaternion(j)) {
      q->segment(j.q_start, j.nq) = q0.segment(j.q_start, j.nq) + dt * v_bar.segment(j.v_start, j.nv);
      continue;
    }
    q->segment<4>(j.q_start) =
        IntegrateQuaternion(j, q0.segment<4>(j.q_start), v_bar.segment<3>(j.v_start), dt, theta);
    if (j.type == JointType::kFree)
      q->segment<3>(j.q_start + 4) = q0.segment<3>(j.q_start + 4) + dt * v_bar.segment<3>(j.v_start + 3);
  }
}

Eigen::Vector4d IntegrateQuaternion(const Joint& joint, const Eigen::Vector4d& q0,
                                    const Eigen::Vector3d& w, double dt, double theta) {
  const Eigen::Matrix4d W = QuaternionRateMatrix(joint, w);
  const Eigen::Vector4d rhs = q0 + ((1 - theta) * dt / 2) * (W * q0);
  // Solve (I - c W) q = rhs, c = theta dt / 2. W is the matrix of a product with the pure
  // quaternion (0, w), so W^2 = -|w|^2 I and (I - c W)^-1 = (I + c W) / (1 + c^2 |w|^2):
  // always invertible, and in closed form, cheaper than an LU of the 4 x 4.
  const double c = theta * dt / 2;
  const Eigen::Vector4d solution = (rhs + c * (W * rhs)) / (1.0 + c * c * w.squaredNorm());
  return solution.normalized();
}

void IntegratePositionsDerivative(const Model& model, const Eigen::VectorXd& q0,
                                  const Eigen::VectorXd& v_bar, double dt, double theta,
                                  const Eigen::Ref<const Eigen::VectorXd>& dq0,
                                  const Eigen::Ref<const Eigen::VectorXd>& dv_bar,
                                  Eigen::Ref<Eigen::VectorXd> dq1) {
  for (const Joint& j : model.joints) {
    if (j.q_start < 0) continue;
    if (!HasQuaternion(j)) {  // q1 = q0 + dt v_bar, and the tangent is q's own (N = I)
      dq1.segment(j.v_start, j.nv) =
          dq0.segment(j.v_start, j.nv) + dt * dv_bar.segment(j.v_start, j.nv);
      continue;
    }
    if (j.type == JointType::kFree)
      dq1.segment<3>(j.v_start + 3) =
          dq0.segment<3>(j.v_start + 3) + dt * dv_bar.segment<3>(j.v_start + 3);
    // A direction that leaves the rotation alone (a column not yet touching this body): the
    // variation is linear in (dq0, dv_bar), so exactly 0, without the products below.
    if (!dq0.segment<3>(j.v_start).any() && !dv_bar.segment<3>(j.v_start).any()) {
      dq1.segment<3>(j.v_start).setZero();
      continue;
    }
    // IntegrateQuaternion's steps, each followed by its variation: rhs = (I + a W) q0,
    // S s = rhs with S = I - c W, q1 = s / |s|.
    const double a = (1 - theta) * dt / 2, c = theta * dt / 2;
    const Eigen::Vector3d w = v_bar.segment<3>(j.v_start);
    const Eigen::Matrix4d W = QuaternionRateMatrix(j, w);
    // W is linear in w: its variation is the rate matrix of dw.
    const Eigen::Matrix4d dW = QuaternionRateMatrix(j, dv_bar.segment<3>(j.v_start));
    const double inv_det = 1.0 / (1.0 + c * c * w.squaredNorm());  // S^-1 = (I + c W) / det
    const Eigen::Vector4d quat0 = q0.segment<4>(j.q_start);
    const Eigen::Vector4d rhs = quat0 + a * (W * quat0);
    const Eigen::Vector4d s = inv_det * (rhs + c * (W * rhs));
    // The tangent d at q0 moves the quaternion as the velocity d would, 1/2 W(d) q0:
    // 1/2 (0, d) (x) q0 for a free joint, 1/2 q0 (x) (0, d) for a ball joint.
    const Eigen::Vector4d dquat0 =
        0.5 * (QuaternionRateMatrix(j, dq0.segment<3>(j.v_start)) * quat0);
    const Eigen::Vector4d drhs = dquat0 + a * (dW * quat0 + W * dquat0);
    // S s = rhs varied: S ds = drhs - dS s, dS = -c dW.
    const Eigen::Vector4d y = drhs + c * (dW * s);
    const Eigen::Vector4d ds = inv_det * (y + c * (W * y));
    // The renormalization: d(s/|s|) = (I - q1 q1^T) ds / |s|. The tangent map below drops
    // the part along q1 by itself, but the 1 / |s| stays (|s| != 1 unless theta = 1/2).
    const double norm = s.norm();
    const Eigen::Vector4d quat1 = s / norm;
    const Eigen::Vector4d dquat1 = (ds - quat1.dot(ds) * quat1) / norm;
    // Back to the tangent at q1, inverting dquat1 = 1/2 W(d1) q1 for the unit q1 as
    // ConfigurationDifference reads it: d1 = vec(2 dquat1 (x) q1*) for a free joint,
    // vec(2 q1* (x) dquat1) for a ball joint.
    const Eigen::Quaterniond q(quat1[0], quat1[1], quat1[2], quat1[3]);
    const Eigen::Quaterniond dq(dquat1[0], dquat1[1], dquat1[2], dquat1[3]);
    const Eigen::Quaterniond d1 =
        j.type == JointType::kFree ? dq * q.conjugate() : q.conjugate() * dq;
    dq1.segment<3>(j.v_start) = 2.0 * d1.vec();
  }
}

void NormalizeQuaternions(const Model& model, Eigen::VectorXd* q) {
  for (const Joint& j : model.joints)
    if (HasQuaternion(j)) q->segment<4>(j.q_start).normalize();
}

}  // namespace csim::multibody
