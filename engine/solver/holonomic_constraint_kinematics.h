#pragma once
// The constraint function g and Jacobian J of the coupler, distance, ball and weld
// constraints (docs/design/actuators-and-constraints.md §5), from world positions, rotations
// and velocity Jacobians, so that the solver needs no multibody model: the problem builder
// evaluates the bodies' kinematics at q0 and passes them here, then hands g0 and J to a
// SapHolonomicConstraint.
//
// Velocity Jacobians map the velocities of the cliques involved (n columns) to world
// quantities: Jw_A (3 x n) gives body A's angular velocity, Jv_WP (3 x n) the velocity of a
// point P fixed on a body, both in world axes. Every J below is linear in them, so for a
// constraint across two cliques a caller may pass the columns of one clique (the other
// body's Jacobian zero) to get that clique's block.
// Conventions: P is on body A and Q on body B; g and gamma act on B relative to A (a
// positive ball impulse pushes Q along +x of the world and P along -x).

#include <Eigen/Dense>

namespace csim::solver {

using Vector6d = Eigen::Matrix<double, 6, 1>;

/// Coupler q_a = ratio q_b + offset between two coordinates with q_dot = v:
/// g = q_a - ratio q_b - offset [rad or m].
double CouplerFunction(double q_a, double q_b, double ratio, double offset);

/// The coupler's row J = e_a^T - ratio e_b^T when both coordinates are in one clique
/// (dof_a != dof_b, indices in the clique): writes the 1 x n row J (zeroed first).
void CouplerJacobian(int dof_a, int dof_b, double ratio, Eigen::Ref<Eigen::MatrixXd> J);

/// The same row split over two cliques: J_a (1 x n_a) gets +1 at dof_a, J_b (1 x n_b) gets
/// -ratio at dof_b (both zeroed first).
void CouplerJacobians(int dof_a, int dof_b, double ratio, Eigen::Ref<Eigen::MatrixXd> J_a,
                      Eigen::Ref<Eigen::MatrixXd> J_b);

/// The distance constraint's data at q0: d = |p_WQ - p_WP|, g = d - length, and the unit
/// direction phat_W = (p_WQ - p_WP) / d.
struct DistanceKinematics {
  double g = 0.0;                                  ///< d - length [m]
  Eigen::Vector3d phat_W = Eigen::Vector3d::Zero();  ///< from P to Q, world axes [1]
};

/// Distance between P (on A) and Q (on B) held at `length` [m] > 0. Precondition: the points
/// are apart (d > 0; the direction is undefined otherwise and the caller must not add the
/// constraint for the step).
DistanceKinematics CalcDistanceKinematics(const Eigen::Vector3d& p_WP, const Eigen::Vector3d& p_WQ,
                                          double length);

/// J = phat_W^T (Jv_WQ - Jv_WP) (1 x n) of the distance constraint.
void CalcDistanceJacobian(const Eigen::Vector3d& phat_W,
                          const Eigen::Ref<const Eigen::MatrixXd>& Jv_WP,
                          const Eigen::Ref<const Eigen::MatrixXd>& Jv_WQ,
                          Eigen::Ref<Eigen::MatrixXd> J);

/// Ball constraint (P on A and Q on B coincide): g = p_WQ - p_WP [m] (3 rows, world axes).
Eigen::Vector3d BallFunction(const Eigen::Vector3d& p_WP, const Eigen::Vector3d& p_WQ);

/// J = Jv_WQ - Jv_WP (3 x n) of the ball constraint.
void CalcBallJacobian(const Eigen::Ref<const Eigen::MatrixXd>& Jv_WP,
                      const Eigen::Ref<const Eigen::MatrixXd>& Jv_WQ,
                      Eigen::Ref<Eigen::MatrixXd> J);

/// Weld constraint (frame P on A and frame Q on B coincide):
/// g = [a_W; p_PoQo_W] (6 rows), a_W the rotation vector (angle times axis, |a| <= pi) of
/// R_PQ = R_WP^T R_WQ expressed in world axes [rad], p_PoQo_W = p_WQo - p_WPo [m].
Vector6d WeldFunction(const Eigen::Matrix3d& R_WP, const Eigen::Vector3d& p_WPo,
                      const Eigen::Matrix3d& R_WQ, const Eigen::Vector3d& p_WQo);

/// The weld's J (6 x n): v_c = [w_B - w_A; v_Bm - v_Am], with M the midpoint of Po and Qo and
/// A_m, B_m the points of A and B at M. Inputs: A's angular Jacobian Jw_A and the velocity
/// Jacobian Jv_WPo of the point of A at Po; the same for B at Qo. J is the derivative of
/// WeldFunction where g = 0 and differs from it by O(|g|) elsewhere (§5.4).
void CalcWeldJacobian(const Eigen::Vector3d& p_WPo, const Eigen::Ref<const Eigen::MatrixXd>& Jw_A,
                      const Eigen::Ref<const Eigen::MatrixXd>& Jv_WPo,
                      const Eigen::Vector3d& p_WQo, const Eigen::Ref<const Eigen::MatrixXd>& Jw_B,
                      const Eigen::Ref<const Eigen::MatrixXd>& Jv_WQo,
                      Eigen::Ref<Eigen::MatrixXd> J);

}  // namespace csim::solver
