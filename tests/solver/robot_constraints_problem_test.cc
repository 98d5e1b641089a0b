// The PD actuator, joint friction and holonomic kinds together in one SAP problem
// (docs/design/actuators-and-constraints.md): the solution balances momentum with the kinds'
// own impulses, and a warmed-up build and solve, and the holonomic kinematics, allocate
// nothing.

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/solver/holonomic_constraint_kinematics.h"
#include "engine/solver/sap_holonomic_constraint.h"
#include "engine/solver/sap_joint_friction_constraint.h"
#include "engine/solver/sap_pd_constraint.h"
#include "engine/solver/sap_solver.h"
#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Three coordinates of one tree: a PD servo on 0, friction on 1, and 1 and 2 coupled as the
// fingers of a parallel gripper (q_1 = -q_2).
struct Gripper {
  double dt = 0.01;
  MatrixXd A = (MatrixXd(3, 3) << 2.0, 0.2, 0.1, 0.2, 0.5, 0.05, 0.1, 0.05, 0.5).finished();
  VectorXd v_star = (VectorXd(3) << 0.3, 0.8, -0.5).finished();
  VectorXd q = (VectorXd(3) << 0.1, 0.02, -0.021).finished();

  void Build(ContactProblem* problem) const {
    problem->Clear(dt);
    problem->AddClique(A);
    problem->SetFreeMotionVelocity(v_star);
    SapPdParameters pd;
    pd.kp = 100.0;
    pd.kd = 10.0;
    pd.effort_limit = 5.0;
    pd.q0 = q[0];
    pd.q_target = 0.5;
    AddPdActuator(problem, 0, 0, pd);
    SapJointFrictionParameters friction;
    friction.friction = 0.3;
    AddJointFriction(problem, 0, 1, friction);
    SapHolonomicParameters coupler;
    coupler.g0[0] = CouplerFunction(q[1], q[2], -1.0, 0.0);
    problem->AddConstraintWith(
        0, [](Eigen::Map<MatrixXd> J) { CouplerJacobian(1, 2, -1.0, J); },
        SapHolonomicConstraint(coupler));
  }
};

TEST_CASE("Actuator, friction and coupler: the solution balances momentum", "[robots]") {
  Gripper gripper;
  ContactProblem problem;
  gripper.Build(&problem);
  SapSolver solver;
  SapSolverResult r;
  REQUIRE(solver.Solve(problem, VectorXd::Zero(3), &r).ok());
  // A (v - v*) = sum_k J_k^T gamma_k(J_k v), each gamma_k from the kind itself.
  VectorXd generalized_impulse = VectorXd::Zero(3);
  int row = 0;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const MatrixXd J = problem.DenseJacobian(k, 0);
    const VectorXd v_c = J * r.v;
    VectorXd gamma(J.rows());
    problem.constraint(k).Calc(v_c.data(), gamma.data(), nullptr, nullptr);
    CHECK((gamma - r.gamma.segment(row, J.rows())).norm() <= 1e-12 * (1.0 + gamma.norm()));
    generalized_impulse += J.transpose() * gamma;
    row += static_cast<int>(J.rows());
  }
  const VectorXd momentum = gripper.A * (r.v - gripper.v_star);
  CHECK((momentum - generalized_impulse).norm() <= 1e-6 * momentum.norm());
  // The coupler nearly closes its violation: g1 = g0 + dt (v_1 + v_2) about half of g0.
  const double g0 = gripper.q[1] + gripper.q[2];
  CHECK(std::abs(g0 + gripper.dt * (r.v[1] + r.v[2])) < 0.6 * std::abs(g0));
}

TEST_CASE("Actuator, friction and coupler: a warmed-up step does not allocate", "[robots]") {
  Gripper gripper;
  ContactProblem problem;
  SapSolver solver;
  SapSolverResult r;
  gripper.Build(&problem);
  REQUIRE(solver.Solve(problem, VectorXd::Zero(3), &r).ok());
  gripper.q += gripper.dt * r.v;
  const VectorXd guess = r.v;
  const std::size_t before = testing::AllocationCount();
  gripper.Build(&problem);
  const StepStatus status = solver.Solve(problem, guess, &r);
  const std::size_t after = testing::AllocationCount();
  REQUIRE(status.ok());
  CHECK(after - before == 0);
}

TEST_CASE("Holonomic kinematics do not allocate", "[robots]") {
  const int n = 12;
  const MatrixXd Jw_A = MatrixXd::Random(3, n), Jv_P = MatrixXd::Random(3, n);
  const MatrixXd Jw_B = MatrixXd::Random(3, n), Jv_Q = MatrixXd::Random(3, n);
  MatrixXd J1(1, n), J3(3, n), J6(6, n);
  const Eigen::Vector3d p_WP(0.1, 0.2, 0.3), p_WQ(0.3, -0.1, 0.2);
  const Eigen::Matrix3d R_WP = Eigen::Matrix3d::Identity();
  const Eigen::Matrix3d R_WQ = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const std::size_t before = testing::AllocationCount();
  const DistanceKinematics distance = CalcDistanceKinematics(p_WP, p_WQ, 0.2);
  CalcDistanceJacobian(distance.phat_W, Jv_P, Jv_Q, J1);
  CalcBallJacobian(Jv_P, Jv_Q, J3);
  const Vector6d g = WeldFunction(R_WP, p_WP, R_WQ, p_WQ);
  CalcWeldJacobian(p_WP, Jw_A, Jv_P, p_WQ, Jw_B, Jv_Q, J6);
  CouplerJacobian(0, 5, 2.0, J1);
  const std::size_t after = testing::AllocationCount();
  CHECK(after - before == 0);
  CHECK(std::isfinite(g.norm() + J6.norm() + J3.norm() + J1.norm()));
}

}  // namespace
}  // namespace csim::solver
