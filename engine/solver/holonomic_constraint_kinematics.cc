#include "engine/solver/holonomic_constraint_kinematics.h"

#include "engine/common/check.h"

namespace csim::solver {

double CouplerFunction(double q_a, double q_b, double ratio, double offset) {
  return q_a - ratio * q_b - offset;
}

void CouplerJacobian(int dof_a, int dof_b, double ratio, Eigen::Ref<Eigen::MatrixXd> J) {
  CSIM_CHECK(J.rows() == 1 && dof_a != dof_b && dof_a >= 0 && dof_b >= 0 &&
             dof_a < J.cols() && dof_b < J.cols());
  J.setZero();
  J(0, dof_a) = 1.0;
  J(0, dof_b) = -ratio;
}

void CouplerJacobians(int dof_a, int dof_b, double ratio, Eigen::Ref<Eigen::MatrixXd> J_a,
                      Eigen::Ref<Eigen::MatrixXd> J_b) {
  CSIM_CHECK(J_a.rows() == 1 && J_b.rows() == 1 && dof_a >= 0 && dof_a < J_a.cols() &&
             dof_b >= 0 && dof_b < J_b.cols());
  J_a.setZero();
  J_b.setZero();
  J_a(0, dof_a) = 1.0;
  J_b(0, dof_b) = -ratio;
}

DistanceKinematics CalcDistanceKinematics(const Eigen::Vector3d& p_WP, const Eigen::Vector3d& p_WQ,
                                          double length) {
  const Eigen::Vector3d p_PQ_W = p_WQ - p_WP;
  const double d = p_PQ_W.norm();
  CSIM_CHECK(d > 0.0);
  DistanceKinematics out;
  out.g = d - length;
  out.phat_W = p_PQ_W / d;
  return out;
}

void CalcDistanceJacobian(const Eigen::Vector3d& phat_W,
                          const Eigen::Ref<const Eigen::MatrixXd>& Jv_WP,
                          const Eigen::Ref<const Eigen::MatrixXd>& Jv_WQ,
                          Eigen::Ref<Eigen::MatrixXd> J) {
  CSIM_CHECK(J.rows() == 1 && Jv_WP.rows() == 3 && Jv_WQ.rows() == 3 &&
             Jv_WP.cols() == J.cols() && Jv_WQ.cols() == J.cols());
  // d/dt |p_Q - p_P| = phat^T (v_Q - v_P), column by column (no temporary).
  for (int j = 0; j < J.cols(); ++j) J(0, j) = phat_W.dot(Jv_WQ.col(j) - Jv_WP.col(j));
}

Eigen::Vector3d BallFunction(const Eigen::Vector3d& p_WP, const Eigen::Vector3d& p_WQ) {
  return p_WQ - p_WP;
}

void CalcBallJacobian(const Eigen::Ref<const Eigen::MatrixXd>& Jv_WP,
                      const Eigen::Ref<const Eigen::MatrixXd>& Jv_WQ,
                      Eigen::Ref<Eigen::MatrixXd> J) {
  CSIM_CHECK(J.rows() == 3 && Jv_WP.rows() == 3 && Jv_WQ.rows() == 3 &&
             Jv_WP.cols() == J.cols() && Jv_WQ.cols() == J.cols());
  J = Jv_WQ - Jv_WP;
}

Vector6d WeldFunction(const Eigen::Matrix3d& R_WP, const Eigen::Vector3d& p_WPo,
                      const Eigen::Matrix3d& R_WQ, const Eigen::Vector3d& p_WQo) {
  // The rotation vector of R_PQ, in P's axes, through the quaternion (Eigen's AngleAxis uses
  // atan2, accurate near the identity where the weld lives), then re-expressed in W.
  const Eigen::AngleAxisd a_PQ(Eigen::Quaterniond(R_WP.transpose() * R_WQ));
  Vector6d g;
  g.head<3>() = R_WP * (a_PQ.angle() * a_PQ.axis());
  g.tail<3>() = p_WQo - p_WPo;
  return g;
}

void CalcWeldJacobian(const Eigen::Vector3d& p_WPo, const Eigen::Ref<const Eigen::MatrixXd>& Jw_A,
                      const Eigen::Ref<const Eigen::MatrixXd>& Jv_WPo,
                      const Eigen::Vector3d& p_WQo, const Eigen::Ref<const Eigen::MatrixXd>& Jw_B,
                      const Eigen::Ref<const Eigen::MatrixXd>& Jv_WQo,
                      Eigen::Ref<Eigen::MatrixXd> J) {
  const int n = static_cast<int>(J.cols());
  CSIM_CHECK(J.rows() == 6 && Jw_A.rows() == 3 && Jv_WPo.rows() == 3 && Jw_B.rows() == 3 &&
             Jv_WQo.rows() == 3 && Jw_A.cols() == n && Jv_WPo.cols() == n &&
             Jw_B.cols() == n && Jv_WQo.cols() == n);
  // The midpoint M seen from each origin: v_Am = v_Po + w_A x p_PoM, v_Bm = v_Qo + w_B x p_QoM.
  const Eigen::Vector3d p_PoM_W = 0.5 * (p_WQo - p_WPo);
  const Eigen::Vector3d p_QoM_W = -p_PoM_W;
  for (int j = 0; j < n; ++j) {
    const Eigen::Vector3d w_A = Jw_A.col(j), w_B = Jw_B.col(j);
    J.block<3, 1>(0, j) = w_B - w_A;
    J.block<3, 1>(3, j) =
        (Jv_WQo.col(j) + w_B.cross(p_QoM_W)) - (Jv_WPo.col(j) + w_A.cross(p_PoM_W));
  }
}

}  // namespace csim::solver
