// The coupler, distance, ball and weld functions and Jacobians
// (docs/design/actuators-and-constraints.md §5): each J against central differences of g
// along rigid motions of two bodies built here, the weld's rotation vector against a known
// rotation, and frame invariance.

#include "engine/solver/holonomic_constraint_kinematics.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/math/rotation.h"

namespace csim::solver {
namespace {

using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

// A rigid body's pose; moving it with velocity (w, v_o) (world axes: angular velocity, and
// the velocity of its origin) for time h gives R(h) = exp(h [w]) R, p_o(h) = p_o + h v_o.
struct Pose {
  Matrix3d R_WB = Matrix3d::Identity();
  Vector3d p_WBo = Vector3d::Zero();
  Pose Moved(const Vector3d& w, const Vector3d& v_o, double h) const {
    Pose out = *this;
    if (w.norm() > 0.0) out.R_WB = math::RotationAboutAxis(w.normalized(), h * w.norm()) * R_WB;
    out.p_WBo = p_WBo + h * v_o;
    return out;
  }
  Vector3d Point(const Vector3d& p_BP) const { return p_WBo + R_WB * p_BP; }
};

// Two bodies A and B; the velocity vector is (w_A, v_Ao, w_B, v_Bo), 12 values.
struct TwoBodies {
  Pose A, B;
  TwoBodies Moved(const VectorXd& velocity, double h) const {
    return {A.Moved(velocity.segment<3>(0), velocity.segment<3>(3), h),
            B.Moved(velocity.segment<3>(6), velocity.segment<3>(9), h)};
  }
  // Angular velocity Jacobian of body b (0: A, 1: B), 3 x 12.
  static MatrixXd AngularJacobian(int b) {
    MatrixXd J = MatrixXd::Zero(3, 12);
    J.block<3, 3>(0, 6 * b).setIdentity();
    return J;
  }
  // Velocity Jacobian of the point fixed on body b at p_B (body frame): v = v_o + w x r.
  MatrixXd PointJacobian(int b, const Vector3d& p_B) const {
    const Pose& pose = b == 0 ? A : B;
    MatrixXd J = MatrixXd::Zero(3, 12);
    J.block<3, 3>(0, 6 * b) = -math::Skew(pose.R_WB * p_B);
    J.block<3, 3>(0, 6 * b + 3).setIdentity();
    return J;
  }
};

Matrix3d RandomRotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  const Vector3d axis(n(rng), n(rng), n(rng));
  return math::RotationAboutAxis(axis.normalized(), 2.0 * n(rng));
}

// J delta against (g(+h) - g(-h)) / (2 h) along `trials` random velocities delta.
template <class Function>
double WorstDifferenceError(const TwoBodies& bodies, const MatrixXd& J, Function g,
                            std::mt19937& rng, int trials = 20) {
  std::normal_distribution<double> n(0.0, 1.0);
  const double h = 1e-5;
  double worst = 0.0;
  for (int t = 0; t < trials; ++t) {
    VectorXd delta(12);
    for (int i = 0; i < 12; ++i) delta[i] = n(rng);
    const VectorXd difference = (g(bodies.Moved(delta, h)) - g(bodies.Moved(delta, -h))) / (2 * h);
    worst = std::max(worst, (J * delta - difference).norm() / delta.norm());
  }
  return worst;
}

TEST_CASE("Coupler function and rows", "[robots]") {
  CHECK(CouplerFunction(0.3, 0.2, -1.0, 0.05) == Approx(0.3 + 0.2 - 0.05));
  // g(q + h e) - g(q) along each coordinate: the row's entries.
  MatrixXd J(1, 4);
  CouplerJacobian(1, 3, 2.5, J);
  const double h = 0.1;
  CHECK(J(0, 1) == Approx((CouplerFunction(0.3 + h, 0.2, 2.5, 0.0) - CouplerFunction(0.3, 0.2, 2.5, 0.0)) / h));
  CHECK(J(0, 3) == Approx((CouplerFunction(0.3, 0.2 + h, 2.5, 0.0) - CouplerFunction(0.3, 0.2, 2.5, 0.0)) / h));
  CHECK(J(0, 0) == 0.0);
  CHECK(J(0, 2) == 0.0);
  MatrixXd J_a(1, 2), J_b(1, 3);
  CouplerJacobians(0, 2, 2.5, J_a, J_b);
  CHECK(J_a(0, 0) == 1.0);
  CHECK(J_b(0, 2) == -2.5);
  CHECK(J_a.cwiseAbs().sum() + J_b.cwiseAbs().sum() == 3.5);
}

TEST_CASE("Distance and ball Jacobians are the derivatives of g", "[robots]") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    TwoBodies bodies;
    bodies.A = {RandomRotation(rng), Vector3d(0.1, -0.2, 0.3)};
    bodies.B = {RandomRotation(rng), Vector3d(0.5, 0.4, -0.1)};
    const Vector3d p_AP(0.2, 0.0, -0.1), p_BQ(-0.1, 0.3, 0.05);
    const MatrixXd Jv_WP = bodies.PointJacobian(0, p_AP), Jv_WQ = bodies.PointJacobian(1, p_BQ);

    const double length = 0.4;
    const DistanceKinematics distance =
        CalcDistanceKinematics(bodies.A.Point(p_AP), bodies.B.Point(p_BQ), length);
    CHECK(distance.g == Approx((bodies.B.Point(p_BQ) - bodies.A.Point(p_AP)).norm() - length));
    CHECK(distance.phat_W.norm() == Approx(1.0));
    MatrixXd J_distance(1, 12);
    CalcDistanceJacobian(distance.phat_W, Jv_WP, Jv_WQ, J_distance);
    auto g_distance = [&](const TwoBodies& b) {
      return VectorXd::Constant(
          1, CalcDistanceKinematics(b.A.Point(p_AP), b.B.Point(p_BQ), length).g);
    };
    CHECK(WorstDifferenceError(bodies, J_distance, g_distance, rng) < 1e-8);

    MatrixXd J_ball(3, 12);
    CalcBallJacobian(Jv_WP, Jv_WQ, J_ball);
    auto g_ball = [&](const TwoBodies& b) {
      return VectorXd(BallFunction(b.A.Point(p_AP), b.B.Point(p_BQ)));
    };
    CHECK(WorstDifferenceError(bodies, J_ball, g_ball, rng) < 1e-8);
  }
}

// Bodies whose weld frames P (on A) and Q (on B) differ by `rotation` and `offset` (world).
struct WeldSetup {
  TwoBodies bodies;
  Matrix3d R_AP, R_BQ;
  Vector3d p_AP, p_BQ;
  Vector6d g(const TwoBodies& b) const {
    return WeldFunction(b.A.R_WB * R_AP, b.A.Point(p_AP), b.B.R_WB * R_BQ, b.B.Point(p_BQ));
  }
  MatrixXd J() const {
    MatrixXd out(6, 12);
    CalcWeldJacobian(bodies.A.Point(p_AP), TwoBodies::AngularJacobian(0),
                     bodies.PointJacobian(0, p_AP), bodies.B.Point(p_BQ),
                     TwoBodies::AngularJacobian(1), bodies.PointJacobian(1, p_BQ), out);
    return out;
  }
};

WeldSetup MakeWeld(std::mt19937& rng, const Matrix3d& rotation, const Vector3d& offset) {
  WeldSetup s;
  s.bodies.A = {RandomRotation(rng), Vector3d(0.1, -0.2, 0.3)};
  s.R_AP = RandomRotation(rng);
  s.p_AP = Vector3d(0.2, 0.1, -0.1);
  // B is placed so that R_WQ = rotation R_WP and p_WQo = p_WPo + offset.
  const Matrix3d R_WP = s.bodies.A.R_WB * s.R_AP;
  const Vector3d p_WPo = s.bodies.A.Point(s.p_AP);
  s.R_BQ = RandomRotation(rng);
  s.p_BQ = Vector3d(-0.3, 0.2, 0.1);
  s.bodies.B.R_WB = rotation * R_WP * s.R_BQ.transpose();
  s.bodies.B.p_WBo = p_WPo + offset - s.bodies.B.R_WB * s.p_BQ;
  return s;
}

TEST_CASE("Weld function: the rotation vector and offset in world axes", "[robots]") {
  std::mt19937 rng(9);
  const Vector3d axis_W = Vector3d(1.0, -2.0, 0.5).normalized();
  const double angle = 0.7;
  const Vector3d offset(0.01, -0.02, 0.03);
  const WeldSetup s = MakeWeld(rng, math::RotationAboutAxis(axis_W, angle), offset);
  const Vector6d g = s.g(s.bodies);
  CHECK((g.head<3>() - angle * axis_W).norm() < 1e-12);
  CHECK((g.tail<3>() - offset).norm() < 1e-12);
  // Frame invariance: turning the whole scene by R0 turns g by R0.
  const Matrix3d R0 = RandomRotation(rng);
  TwoBodies turned = s.bodies;
  turned.A = {R0 * s.bodies.A.R_WB, R0 * s.bodies.A.p_WBo};
  turned.B = {R0 * s.bodies.B.R_WB, R0 * s.bodies.B.p_WBo};
  const Vector6d g_turned = s.g(turned);
  CHECK((g_turned.head<3>() - R0 * g.head<3>()).norm() < 1e-12);
  CHECK((g_turned.tail<3>() - R0 * g.tail<3>()).norm() < 1e-12);
}

TEST_CASE("Weld Jacobian is the derivative of g where the frames coincide", "[robots]") {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 10; ++trial) {
    const WeldSetup s = MakeWeld(rng, Matrix3d::Identity(), Vector3d::Zero());
    REQUIRE(s.g(s.bodies).norm() < 1e-12);
    auto g = [&](const TwoBodies& b) { return VectorXd(s.g(b)); };
    CHECK(WorstDifferenceError(s.bodies, s.J(), g, rng) < 1e-8);
  }
  // Away from g = 0 the weld's J departs from dg/dq by O(|g|) (§5.4): shrinking the
  // violation tenfold shrinks the mismatch about tenfold.
  std::mt19937 rng_far(17), rng_near(17);
  const Vector3d axis = Vector3d(0.3, 1.0, -0.2).normalized(), offset(0.02, 0.01, -0.03);
  const WeldSetup far = MakeWeld(rng_far, math::RotationAboutAxis(axis, 0.05), offset);
  const WeldSetup near = MakeWeld(rng_near, math::RotationAboutAxis(axis, 0.005), offset / 10);
  std::mt19937 rng_a(1), rng_b(1);
  auto g_far = [&](const TwoBodies& b) { return VectorXd(far.g(b)); };
  auto g_near = [&](const TwoBodies& b) { return VectorXd(near.g(b)); };
  const double error_far = WorstDifferenceError(far.bodies, far.J(), g_far, rng_a);
  const double error_near = WorstDifferenceError(near.bodies, near.J(), g_near, rng_b);
  CHECK(error_far > 1e-4);
  CHECK(error_near == Approx(error_far / 10).epsilon(0.2));
}

}  // namespace
}  // namespace csim::solver
