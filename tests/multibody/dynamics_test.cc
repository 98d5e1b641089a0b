// Mass matrix, bias forces, Jacobians and the kinematic map N(q), checked against finite
// differences of kinematics and energy on random trees that mix every joint type
// (revolute, prismatic, planar, ball, free, fixed, prescribed). Derivatives with respect to
// q are taken in exponential local coordinates (tests/support/test_models.h), so the
// quaternion joints are covered too.

#include <catch2/catch.hpp>

#include <random>

#include "engine/multibody/crba.h"
#include "engine/multibody/energy.h"
#include "engine/multibody/jacobians.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/position_update.h"
#include "engine/multibody/rnea.h"
#include "tests/support/test_models.h"

namespace csim::multibody {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

struct Lagrangian {
  const Model& model;
  Workspace& ws;
  const VectorXd& q0;
  // Kinetic and potential energy at local coordinates xi, local rates xi_dot, time t.
  double T(const VectorXd& xi, const VectorXd& xi_dot, double t) const {
    CalcKinematics(model, t, testing::Retract(model, q0, xi), testing::LocalToVelocity(model, xi, xi_dot), ws);
    return CalcKineticEnergy(model, ws);
  }
  double U(const VectorXd& xi, double t) const {
    CalcKinematics(model, t, testing::Retract(model, q0, xi), VectorXd::Zero(model.nv), ws);
    return CalcPotentialEnergy(model, ws);
  }
  // dT/dxi_dot_i: T is quadratic in xi_dot, so a central difference is exact.
  double Momentum(int i, const VectorXd& xi, const VectorXd& xi_dot, double t) const {
    VectorXd plus = xi_dot, minus = xi_dot;
    plus[i] += 1.0;
    minus[i] -= 1.0;
    return (T(xi, plus, t) - T(xi, minus, t)) / 2.0;
  }
};

double RelativeError(const VectorXd& a, const VectorXd& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

// Seeds 1-3, and the first seeds from 4 on whose tree has a free joint at a root (CRBA's
// short cut for it, every body of a clutter), carrying children or not.
std::vector<unsigned> MassMatrixSeeds() {
  std::vector<unsigned> seeds = {1u, 2u, 3u};
  int free_roots = 0;
  for (unsigned seed = 4; seed < 200 && free_roots < 3; ++seed) {
    const Model model = testing::RandomTree(12, seed);
    bool has = false;
    for (int i = 0; i < model.num_bodies(); ++i)
      has = has || (model.parent[i] < 0 && model.joints[i].type == JointType::kFree);
    if (has) seeds.push_back(seed), ++free_roots;
  }
  REQUIRE(free_roots == 3);
  return seeds;
}

TEST_CASE("mass matrix is SPD and equals the Hessian of kinetic energy", "[multibody][crba]") {
  for (unsigned seed : MassMatrixSeeds()) {
    const Model model = testing::RandomTree(12, seed);
    std::mt19937 rng(seed);
    const VectorXd q = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
    Workspace ws = MakeWorkspace(model);
    CalcKinematics(model, 0.4, q, v, ws);
    CalcMassMatrix(model, ws);
    const MatrixXd M = ws.M.ToDense();
    REQUIRE((M - M.transpose()).norm() <= 1e-12 * M.norm());
    REQUIRE(Eigen::SelfAdjointEigenSolver<MatrixXd>(M).eigenvalues().minCoeff() > 0);
    // T(v) = 1/2 v^T M v + (prescribed terms linear in v) + const: second differences are exact.
    auto T = [&](const VectorXd& vv) { CalcKinematics(model, 0.4, q, vv, ws); return CalcKineticEnergy(model, ws); };
    MatrixXd H(model.nv, model.nv);
    for (int i = 0; i < model.nv; ++i)
      for (int j = 0; j < model.nv; ++j) {
        VectorXd vpp = v, vpm = v, vmp = v, vmm = v;
        vpp[i] += 1; vpp[j] += 1; vpm[i] += 1; vpm[j] -= 1;
        vmp[i] -= 1; vmp[j] += 1; vmm[i] -= 1; vmm[j] -= 1;
        H(i, j) = (T(vpp) - T(vpm) - T(vmp) + T(vmm)) / 4.0;
      }
    CHECK((H - M).norm() <= 1e-10 * M.norm());
  }
}

TEST_CASE("RNEA bias equals the Lagrangian's by finite differences", "[multibody][rnea]") {
  for (unsigned seed : {4u, 5u, 6u}) {
    const Model model = testing::RandomTree(9, seed);
    std::mt19937 rng(seed);
    const VectorXd q0 = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
    const double t = 0.3;
    Workspace ws = MakeWorkspace(model);
    CalcKinematics(model, t, q0, v, ws);
    CalcBiasForces(model, ws);
    const VectorXd bias = ws.bias;

    // Euler-Lagrange at xi = 0, xi_dot = v, xi_ddot = 0:
    // bias_i = d/dxi (dL/dxi_dot_i) . v + d/dt (dL/dxi_dot_i) - dL/dxi_i, L = T - U.
    const Lagrangian L{model, ws, q0};
    const VectorXd zero = VectorXd::Zero(model.nv);
    const double h = 1e-5;
    VectorXd expected(model.nv);
    for (int i = 0; i < model.nv; ++i) {
      const double dp_dxi = (L.Momentum(i, h * v, v, t) - L.Momentum(i, -h * v, v, t)) / (2 * h);
      const double dp_dt = (L.Momentum(i, zero, v, t + h) - L.Momentum(i, zero, v, t - h)) / (2 * h);
      VectorXd e = zero;
      e[i] = h;
      const double dL_dxi = (L.T(e, v, t) - L.U(e, t) - L.T(-e, v, t) + L.U(-e, t)) / (2 * h);
      expected[i] = dp_dxi + dp_dt - dL_dxi;
    }
    INFO("seed " << seed << " bias " << bias.transpose() << "\nexpected " << expected.transpose());
    CHECK(RelativeError(bias, expected) < 1e-6);
  }
}

TEST_CASE("CRBA and RNEA agree: M a + bias = inverse dynamics", "[multibody][rnea][crba]") {
  const Model model = testing::RandomTree(15, 7);
  std::mt19937 rng(7);
  const VectorXd q = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
  const VectorXd a = testing::RandomV(model, rng);
  Workspace ws = MakeWorkspace(model);
  CalcKinematics(model, 1.1, q, v, ws);
  CalcMassMatrix(model, ws);
  CalcBiasForces(model, ws);
  VectorXd tau(model.nv);
  CalcInverseDynamics(model, a, ws, &tau);
  CHECK(RelativeError(ws.M.ToDense() * a + ws.bias, tau) < 1e-12);
}

TEST_CASE("armature adds diag(armature) to M, counts in the kinetic energy, and CRBA and RNEA "
          "agree with it", "[multibody][rnea][crba][armature]") {
  for (unsigned seed : MassMatrixSeeds()) {
    const Model plain = testing::RandomTree(12, seed);
    Model geared = plain;
    std::mt19937 rng(seed);
    const VectorXd armature = testing::AddRandomArmature(&geared, rng);
    REQUIRE(armature.maxCoeff() > 0.0);
    const VectorXd q = testing::RandomQ(plain, rng), v = testing::RandomV(plain, rng);
    const VectorXd a = testing::RandomV(plain, rng);
    Workspace ws_plain = MakeWorkspace(plain), ws = MakeWorkspace(geared);
    CalcKinematics(plain, 0.4, q, v, ws_plain);
    CalcMassMatrix(plain, ws_plain);
    CalcKinematics(geared, 0.4, q, v, ws);
    CalcMassMatrix(geared, ws);
    const MatrixXd M = ws.M.ToDense();
    // The rotors' inertia lies on the diagonal alone.
    CHECK((M - ws_plain.M.ToDense() - MatrixXd(armature.asDiagonal())).norm() <= 1e-12 * M.norm());
    // Their kinetic energy 1/2 armature v^2 adds to the bodies'.
    CHECK(CalcKineticEnergy(geared, ws) - CalcKineticEnergy(plain, ws_plain) ==
          Approx(0.5 * armature.dot(v.cwiseProduct(v))).epsilon(1e-12));
    // Inverse dynamics carries armature a and no velocity term: M a + bias with the bias of
    // the model without armature.
    CalcBiasForces(geared, ws);
    CalcBiasForces(plain, ws_plain);
    CHECK(ws.bias == ws_plain.bias);
    VectorXd tau(geared.nv);
    CalcInverseDynamics(geared, a, ws, &tau);
    CHECK(RelativeError(M * a + ws.bias, tau) < 1e-12);
  }
}

TEST_CASE("point and frame Jacobians match finite differences of kinematics", "[multibody][jacobian]") {
  const Model model = testing::RandomTree(12, 8);
  std::mt19937 rng(8);
  const VectorXd q0 = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
  const double t = 0.2, h = 1e-6;
  Workspace ws = MakeWorkspace(model);
  for (int b = 0; b < model.num_bodies(); ++b) {
    CalcKinematics(model, t, q0, v, ws);
    const Eigen::Vector3d p_B(0.1, -0.2, 0.3);
    const Eigen::Vector3d p_W = ws.X_WB[b] * p_B;
    Eigen::Matrix<double, 6, Eigen::Dynamic> Jf(6, model.nv);
    Eigen::Matrix3Xd Jp(3, model.nv);
    CalcFrameJacobian(model, ws, b, p_W, Jf);
    CalcPointJacobian(model, ws, b, p_W, Jp);
    // Move along xi = s v with the clock frozen (prescribed joints do not move).
    CalcKinematics(model, t, testing::Retract(model, q0, h * v), v, ws);
    const math::RigidTransform X_plus = ws.X_WB[b];
    CalcKinematics(model, t, testing::Retract(model, q0, -h * v), v, ws);
    const math::RigidTransform X_minus = ws.X_WB[b];
    const Eigen::Vector3d v_fd = (X_plus * p_B - X_minus * p_B) / (2 * h);
    // dR/ds R^T = [w]x.
    CalcKinematics(model, t, q0, v, ws);
    const Eigen::Matrix3d W = (X_plus.R - X_minus.R) / (2 * h) * ws.X_WB[b].R.transpose();
    const Eigen::Vector3d w_fd(W(2, 1), W(0, 2), W(1, 0));
    INFO("body " << b);
    CHECK((Jp * v - v_fd).norm() < 1e-7 * std::max(1.0, v_fd.norm()));
    CHECK((Jf.bottomRows<3>() * v - v_fd).norm() < 1e-7 * std::max(1.0, v_fd.norm()));
    CHECK((Jf.topRows<3>() * v - w_fd).norm() < 1e-7 * std::max(1.0, w_fd.norm()));
    // With the clock running too, prescribed joints move: the total point velocity.
    CalcKinematics(model, t + h, testing::Retract(model, q0, h * v), v, ws);
    const Eigen::Vector3d p_plus = ws.X_WB[b] * p_B;
    CalcKinematics(model, t - h, testing::Retract(model, q0, -h * v), v, ws);
    const Eigen::Vector3d p_minus = ws.X_WB[b] * p_B;
    CalcKinematics(model, t, q0, v, ws);
    const Eigen::Vector3d total_fd = (p_plus - p_minus) / (2 * h);
    CHECK((CalcPointVelocity(model, ws, b, p_W) - total_fd).norm() < 1e-7 * std::max(1.0, total_fd.norm()));
  }
}

TEST_CASE("kinematic map N(q) matches the derivative of the configuration", "[multibody][kinematic-map]") {
  const Model model = testing::RandomTree(12, 9);
  std::mt19937 rng(9);
  const VectorXd q0 = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
  VectorXd qdot(model.nq);
  CalcQDot(model, q0, v, &qdot);
  const double h = 1e-6;
  const VectorXd fd = (testing::Retract(model, q0, h * v) - testing::Retract(model, q0, -h * v)) / (2 * h);
  CHECK(RelativeError(qdot, fd) < 1e-8);
}

TEST_CASE("exact quaternion update: midpoint preserves norm, explicit matches q0 + dt N v", "[multibody][kinematic-map]") {
  const Model model = testing::RandomTree(12, 10, false);
  std::mt19937 rng(10);
  const VectorXd q0 = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
  const double dt = 0.05;
  VectorXd q(model.nq), qdot(model.nq);
  IntegratePositions(model, q0, v, dt, 0.0, &q);
  CalcQDot(model, q0, v, &qdot);
  VectorXd explicit_q = q0 + dt * qdot;
  NormalizeQuaternions(model, &explicit_q);
  CHECK(RelativeError(q, explicit_q) < 1e-14);
  // Midpoint: q - q0 = dt N((q + q0)/2) v holds exactly (the Cayley form solves it).
  IntegratePositions(model, q0, v, dt, 0.5, &q);
  CalcQDot(model, 0.5 * (q + q0), v, &qdot);
  CHECK(RelativeError(q - q0, dt * qdot) < 1e-13);
}

}  // namespace
}  // namespace csim::multibody
