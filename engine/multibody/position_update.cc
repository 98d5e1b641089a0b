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

void NormalizeQuaternions(const Model& model, Eigen::VectorXd* q) {
  for (const Joint& j : model.joints)
    if (HasQuaternion(j)) q->segment<4>(j.q_start).normalize();
}

}  // namespace csim::multibody
