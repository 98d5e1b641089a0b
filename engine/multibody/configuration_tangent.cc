#include "engine/multibody/configuration_tangent.h"

#include <cmath>

namespace csim::multibody {
namespace {

Eigen::Quaterniond ToEigen(const Eigen::Vector4d& q) { return {q[0], q[1], q[2], q[3]}; }

Eigen::Vector4d FromEigen(const Eigen::Quaterniond& q) { return {q.w(), q.x(), q.y(), q.z()}; }

bool HasQuaternion(const Joint& j) {
  return j.q_start >= 0 && (j.type == JointType::kFree || j.type == JointType::kBall);
}

}  // namespace

Eigen::Vector4d QuaternionExp(const Eigen::Vector3d& d) {
  const double angle = d.norm();
  // sin(a/2)/a by its series below 1e-4 rad: its error, a^4/3840, is below the rounding.
  const double s = angle < 1e-4 ? 0.5 - angle * angle / 48.0 : std::sin(angle / 2) / angle;
  return {std::cos(angle / 2), s * d[0], s * d[1], s * d[2]};
}

Eigen::Vector3d QuaternionLog(const Eigen::Vector4d& q_wxyz) {
  // q and -q are one rotation: take w >= 0, so the angle 2 atan2(|xyz|, w) is within pi.
  const double sign = q_wxyz[0] < 0.0 ? -1.0 : 1.0;
  const double w = sign * q_wxyz[0];
  const Eigen::Vector3d u = sign * q_wxyz.tail<3>();
  const double s = u.norm();
  if (s < 1e-12) return 2.0 * u / w;  // angle 2 s / w to first order; s^3 terms below eps
  return (2.0 * std::atan2(s, w) / s) * u;
}

void RetractConfiguration(const Model& model, const Eigen::VectorXd& q,
                          const Eigen::Ref<const Eigen::VectorXd>& delta,
                          Eigen::VectorXd* q_out) {
  *q_out = q;
  for (const Joint& j : model.joints) {
    if (j.q_start < 0) continue;
    if (!HasQuaternion(j)) {
      q_out->segment(j.q_start, j.nq) += delta.segment(j.v_start, j.nv);
      continue;
    }
    const Eigen::Quaterniond q0 = ToEigen(q.segment<4>(j.q_start));
    const Eigen::Quaterniond e = ToEigen(QuaternionExp(delta.segment<3>(j.v_start)));
    q_out->segment<4>(j.q_start) = FromEigen(j.type == JointType::kFree ? e * q0 : q0 * e);
    if (j.type == JointType::kFree)
      q_out->segment<3>(j.q_start + 4) += delta.segment<3>(j.v_start + 3);
  }
}

void ConfigurationDifference(const Model& model, const Eigen::VectorXd& q_a,
                             const Eigen::VectorXd& q_b, Eigen::Ref<Eigen::VectorXd> delta) {
  delta.setZero();
  for (const Joint& j : model.joints) {
    if (j.q_start < 0) continue;
    if (!HasQuaternion(j)) {
      delta.segment(j.v_start, j.nv) = q_a.segment(j.q_start, j.nv) - q_b.segment(j.q_start, j.nv);
      continue;
    }
    const Eigen::Quaterniond a = ToEigen(q_a.segment<4>(j.q_start)).normalized();
    const Eigen::Quaterniond b = ToEigen(q_b.segment<4>(j.q_start)).normalized();
    // free: a = Exp(d) b, d = Log(a b^-1); ball: a = b Exp(d), d = Log(b^-1 a).
    const Eigen::Quaterniond e = j.type == JointType::kFree ? a * b.conjugate() : b.conjugate() * a;
    delta.segment<3>(j.v_start) = QuaternionLog(FromEigen(e));
    if (j.type == JointType::kFree)
      delta.segment<3>(j.v_start + 3) = q_a.segment<3>(j.q_start + 4) - q_b.segment<3>(j.q_start + 4);
  }
}

}  // namespace csim::multibody
