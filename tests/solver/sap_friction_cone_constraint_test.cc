// SapFrictionConeConstraint: the parameterisation of docs/design/sap-problem.md §3 (R_n with the
// near-rigid rule, R_t = sigma w, v_hat_n), impulse = minus the cost gradient and G = minus the
// impulse's Jacobian by finite differences in all three regions, G symmetric PSD, and the
// kinematic bias.

#include "engine/solver/sap_friction_cone_constraint.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/solver/constraint.h"

namespace csim::solver {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

SapFrictionConeParameters Compliant() {
  SapFrictionConeParameters p;
  p.near_rigid_threshold = 1.0;
  p.stiction_sigma = 1.0e-3;
  p.mu = 0.7;
  p.stiffness = 1e4;
  p.dissipation_time = 0.01;
  p.phi0 = -1e-3;
  return p;
}

double Cost(const SapFrictionConeConstraint& c, const Vector3d& v_c, Vector3d* gamma = nullptr,
            Matrix3d* G = nullptr) {
  Vector3d g;
  Matrix3d H;
  const double cost = c.Calc(v_c.data(), g.data(), G != nullptr ? H.data() : nullptr, nullptr);
  if (gamma != nullptr) *gamma = g;
  if (G != nullptr) *G = H;
  return cost;
}

TEST_CASE("SAP contact parameters follow the compliant and near-rigid rules", "[solver]") {
  const double dt = 0.01, w = 2.0;
  SapFrictionConeParameters p = Compliant();
  SapFrictionConeConstraint compliant(p);
  compliant.Prepare(dt, w);
  // R_n = 1 / (dt k (dt + tau_d)) = 1/(0.01 * 1e4 * 0.02) = 0.5 > beta^2 w / (4 pi^2).
  CHECK(compliant.R_n() == Approx(0.5).epsilon(1e-14));
  CHECK(compliant.R_t() == Approx(1e-3 * w).epsilon(1e-14));  // SAP eq. 30
  CHECK(compliant.v_hat_n() == Approx(1e-3 / 0.02).epsilon(1e-14));  // -phi0 / (dt + tau_d)
  CHECK(compliant.metric().mu_hat == Approx(0.7 * 2e-3 / 0.5));

  // Infinite stiffness: the near-rigid term alone, R_n = beta^2 w / (4 pi^2) (SAP eq. 29).
  p.stiffness = std::numeric_limits<double>::infinity();
  SapFrictionConeConstraint rigid(p);
  rigid.Prepare(dt, w);
  CHECK(rigid.R_n() == Approx(w / (4 * M_PI * M_PI)).epsilon(1e-14));
  p.near_rigid_threshold = 0.5;
  SapFrictionConeConstraint rigid_half(p);
  rigid_half.Prepare(dt, w);
  CHECK(rigid_half.R_n() == Approx(0.25 * w / (4 * M_PI * M_PI)).epsilon(1e-14));
  CHECK(NearRigidRegularization(dt, 1e20, dt, 1.0, w) == Approx(w / (4 * M_PI * M_PI)));
  CHECK(NearRigidRegularization(dt, 1e4, dt, 0.0, w) == Approx(0.5));
}

// v_c whose un-projected impulse y falls in the requested region (away from its borders).
Vector3d VelocityInRegion(const SapFrictionConeConstraint& c, FrictionConeRegion region,
                          std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const FrictionConeMetric& m = c.metric();
  const double angle = 2 * M_PI * u(rng), y_r = 0.05 + u(rng);
  const double lo = -m.mu_hat * y_r, hi = y_r / m.mu;
  double y_n = 0.0;
  if (region == FrictionConeRegion::kStiction) y_n = hi * (1.1 + u(rng));
  if (region == FrictionConeRegion::kSliding) y_n = lo + (hi - lo) * (0.1 + 0.8 * u(rng));
  if (region == FrictionConeRegion::kNoContact) y_n = lo - (0.1 + u(rng)) * (hi - lo);
  const Vector3d y(y_r * std::cos(angle), y_r * std::sin(angle), y_n);
  // Invert y = -R^{-1} (v_c + v_b - v_hat).
  const Vector3d u_c(-m.R_t * y[0], -m.R_t * y[1], c.v_hat_n() - m.R_n * y[2]);
  return u_c - c.parameters().bias_velocity;
}

TEST_CASE("SAP contact impulse and G are the cost's derivatives", "[solver]") {
  std::mt19937 rng(17);
  SapFrictionConeParameters p = Compliant();
  p.bias_velocity = Vector3d(0.01, -0.02, 0.003);
  SapFrictionConeConstraint c(p);
  c.Prepare(0.01, 1.3);
  for (FrictionConeRegion region : {FrictionConeRegion::kStiction, FrictionConeRegion::kSliding,
                                    FrictionConeRegion::kNoContact}) {
    for (int trial = 0; trial < 100; ++trial) {
      const Vector3d v_c = VelocityInRegion(c, region, rng);
      Vector3d gamma;
      Matrix3d G;
      Cost(c, v_c, &gamma, &G);
      const double h = 1e-7 * c.metric().R_t;  // well inside every region
      Vector3d grad_fd;
      Matrix3d dgamma_fd;
      for (int j = 0; j < 3; ++j) {
        Vector3d vp = v_c, vm = v_c;
        vp[j] += h;
        vm[j] -= h;
        Vector3d gp, gm;
        grad_fd[j] = (Cost(c, vp, &gp) - Cost(c, vm, &gm)) / (2 * h);
        dgamma_fd.col(j) = (gp - gm) / (2 * h);
      }
      CHECK((gamma + grad_fd).norm() <= 1e-6 * (1e-6 + gamma.norm()));  // gamma = -d ell/d v_c
      CHECK((G + dgamma_fd).norm() <= 1e-6 * (1.0 + G.norm()));         // G = -d gamma/d v_c
      CHECK((G - G.transpose()).norm() <= 1e-12 * (1.0 + G.norm()));
      CHECK(Eigen::SelfAdjointEigenSolver<Matrix3d>(G).eigenvalues().minCoeff() >=
            -1e-10 * (1.0 + G.norm()));
      // Calc reports QuadraticPieceAt's piece, with G or without (the line search freezes a
      // constraint by it: a wrong piece would freeze a sliding contact), -1 when sliding.
      int with_G = -2, without_G = -2;
      c.Calc(v_c.data(), gamma.data(), G.data(), &with_G);
      c.Calc(v_c.data(), gamma.data(), nullptr, &without_G);
      CHECK(with_G == c.QuadraticPieceAt(v_c.data()));
      CHECK(without_G == with_G);
      CHECK((with_G == -1) == (region == FrictionConeRegion::kSliding));
    }
  }
}

TEST_CASE("SAP contact along a line search: CalcAlong equals Calc and d^T G d", "[solver]") {
  // The override (closed-form curvature) against the interface's default (Calc forming G,
  // then the quadratic form), called non-virtually on the same object, in every region.
  std::mt19937 rng(23);
  std::normal_distribution<double> n(0.0, 1.0);
  SapFrictionConeParameters p = Compliant();
  p.bias_velocity = Vector3d(-0.02, 0.01, 0.004);
  SapFrictionConeConstraint c(p);
  c.Prepare(0.01, 0.8);
  for (FrictionConeRegion region : {FrictionConeRegion::kStiction, FrictionConeRegion::kSliding,
                                    FrictionConeRegion::kNoContact}) {
    for (int trial = 0; trial < 50; ++trial) {
      const Vector3d v_c = VelocityInRegion(c, region, rng);
      const Vector3d dv(n(rng), n(rng), n(rng));
      Vector3d gamma_fast, gamma_default;
      double curvature_fast = -1, curvature_default = -1;
      Matrix3d scratch;
      int piece_fast = -2, piece_default = -2;
      const double cost_fast = c.CalcAlong(v_c.data(), dv.data(), gamma_fast.data(),
                                           &curvature_fast, &piece_fast, scratch.data());
      const double cost_default = c.Constraint::CalcAlong(v_c.data(), dv.data(), gamma_default.data(),
                                                          &curvature_default, &piece_default,
                                                          scratch.data());
      CHECK(cost_fast == cost_default);
      CHECK(gamma_fast == gamma_default);
      CHECK(piece_fast == piece_default);
      CHECK(piece_fast == (region == FrictionConeRegion::kStiction    ? 0
                           : region == FrictionConeRegion::kNoContact ? 1
                                                                      : -1));
      CHECK(curvature_fast == Approx(curvature_default).epsilon(1e-12).margin(1e-12 * scratch.norm() * dv.squaredNorm()));
    }
  }
}

TEST_CASE("SAP contact: the cost is one quadratic between two points of the same piece",
          "[solver]") {
  // What the exact line search relies on (SapFrictionConeConstraint::QuadraticPieceAt):
  // stiction and no contact are convex in v_c and the cost is a quadratic on each, so on a
  // segment whose ends share a piece the cost at every point is the Taylor polynomial of
  // degree two from one end, with the curvature there. Segments whose ends lie in different pieces
  // are skipped.
  std::mt19937 rng(29);
  std::normal_distribution<double> n(0.0, 1.0);
  SapFrictionConeParameters p = Compliant();
  p.bias_velocity = Vector3d(0.01, -0.02, 0.003);
  SapFrictionConeConstraint c(p);
  c.Prepare(0.01, 0.8);
  int segments[2] = {0, 0};
  for (FrictionConeRegion region : {FrictionConeRegion::kStiction, FrictionConeRegion::kNoContact}) {
    for (int trial = 0; trial < 400; ++trial) {
      const Vector3d a = VelocityInRegion(c, region, rng);
      const Vector3d b = VelocityInRegion(c, region, rng);
      const int piece = c.QuadraticPieceAt(a.data());
      REQUIRE(piece >= 0);
      if (c.QuadraticPieceAt(b.data()) != piece) continue;
      ++segments[piece];
      const Vector3d d = b - a;
      Vector3d gamma_a;
      double curvature = 0.0;
      int piece_a = -2;
      Matrix3d scratch;
      const double cost_a = c.CalcAlong(a.data(), d.data(), gamma_a.data(), &curvature, &piece_a,
                                        scratch.data());
      CHECK(piece_a == piece);
      for (double t : {0.1, 0.37, 0.5, 0.81, 1.0}) {
        const Vector3d x = a + t * d;
        Vector3d gamma;
        const double cost = Cost(c, x, &gamma);
        // d ell / d t = -d . gamma (gamma = -d ell / d v_c).
        const double taylor = cost_a - t * d.dot(gamma_a) + 0.5 * t * t * curvature;
        CHECK(cost == Approx(taylor).epsilon(1e-10).margin(1e-12));
        CHECK(c.QuadraticPieceAt(x.data()) == piece);
      }
    }
  }
  CHECK(segments[0] > 50);  // both pieces were exercised
  CHECK(segments[1] > 50);
}

TEST_CASE("SAP contact at rest on its compliant equilibrium", "[solver]") {
  // Stiction with v_c = 0 gives gamma_n = v_hat_n / R_n = dt k (-phi0) (docs/design/sap-problem.md
  // §5).
  SapFrictionConeParameters p = Compliant();
  SapFrictionConeConstraint c(p);
  c.Prepare(0.01, 1.0);
  Vector3d gamma;
  Cost(c, Vector3d::Zero(), &gamma);
  CHECK(gamma[2] == Approx(0.01 * 1e4 * 1e-3).epsilon(1e-12));
  CHECK(gamma.head<2>().norm() <= 1e-12);
  // The bias shifts the velocity: v_c = -v_b is the rest state.
  p.bias_velocity = Vector3d(0.5, 0.0, 0.0);
  SapFrictionConeConstraint biased(p);
  biased.Prepare(0.01, 1.0);
  Vector3d gamma_b;
  Cost(biased, Vector3d(-0.5, 0.0, 0.0), &gamma_b);
  CHECK(gamma_b.isApprox(gamma));
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

TEST_CASE("predicted stiction is the stiction model extended to every region", "[solver]") {
  SapFrictionConeParameters p = Compliant();
  const double dt = 1e-3, w = 0.5;
  SapFrictionConeConstraint plain(p);
  plain.Prepare(dt, w);
  Vector3d gamma;
  Matrix3d G;
  // Without the flag there is no prediction.
  CHECK_FALSE(plain.CalcPredicted(Vector3d(0.01, 0, 0).data(), false, gamma.data(), G.data()));

  p.was_stuck = true;
  SapFrictionConeConstraint predicted(p);
  predicted.Prepare(dt, w);
  // Inside the stiction region the prediction is the true model: same gamma and G as Calc.
  const Vector3d stuck(1e-7, -2e-7, 0.0);  // tiny creep, compressed (v_hat_n > 0)
  REQUIRE(predicted.RegionAt(stuck.data()) == FrictionConeRegion::kStiction);
  Vector3d gamma_true;
  Matrix3d G_true;
  Cost(predicted, stuck, &gamma_true, &G_true);
  REQUIRE(predicted.CalcPredicted(stuck.data(), false, gamma.data(), G.data()));
  CHECK((gamma - gamma_true).norm() <= 1e-12 * gamma_true.norm());
  CHECK((G - G_true).norm() <= 1e-12 * G_true.norm());
  // Sliding at v_c (1 cm/s slip): the prediction is the un-projected impulse y and R^{-1},
  // i.e. the quadratic of region I continued outside the cone.
  const Vector3d slipping(0.01, 0.0, 0.0);
  REQUIRE(predicted.RegionAt(slipping.data()) == FrictionConeRegion::kSliding);
  REQUIRE(predicted.CalcPredicted(slipping.data(), false, gamma.data(), G.data()));
  const Vector3d y = predicted.CalcUnprojectedImpulse(slipping);
  CHECK((gamma - y).norm() == 0.0);
  CHECK(G.isApprox(Vector3d(1 / predicted.R_t(), 1 / predicted.R_t(), 1 / predicted.R_n())
                       .asDiagonal().toDenseMatrix()));
  Cost(predicted, slipping, &gamma_true);
  CHECK(gamma.head<2>().norm() > 10 * gamma_true.head<2>().norm());  // y is far outside the cone
  // Separating fast (y_n <= 0): stiction would pull, so no prediction.
  CHECK_FALSE(predicted.CalcPredicted(Vector3d(0, 0, 1.0).data(), false, gamma.data(), G.data()));
  // The prediction holds exactly where the true region is stiction: y in the friction cone.
  CHECK(predicted.PredictionHoldsAt(stuck.data()));
  CHECK_FALSE(predicted.PredictionHoldsAt(slipping.data()));
  CHECK_FALSE(predicted.PredictionHoldsAt(Vector3d(0, 0, 1.0).data()));
  // On the cone's edge: a slip whose y_t has norm mu y_n (just inside, just outside).
  const double y_n = predicted.CalcUnprojectedImpulse(Vector3d::Zero())[2];
  const double edge_slip = p.mu * y_n * predicted.R_t();  // |y_t| = slip / R_t
  CHECK(predicted.PredictionHoldsAt(Vector3d(0.999 * edge_slip, 0, 0).data()));
  CHECK_FALSE(predicted.PredictionHoldsAt(Vector3d(1.001 * edge_slip, 0, 0).data()));
  for (const Vector3d& v_c : {stuck, slipping, Vector3d(0.999 * edge_slip, 0, 0),
                              Vector3d(1.001 * edge_slip, 0, 0)})
    CHECK(predicted.PredictionHoldsAt(v_c.data()) ==
          (predicted.RegionAt(v_c.data()) == FrictionConeRegion::kStiction));
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

TEST_CASE("a sliding contact whose step passes through stiction crosses its predicted region",
          "[solver]") {
  SapFrictionConeParameters p = Compliant();
  const double dt = 1e-3, w = 0.5;
  SapFrictionConeConstraint c(p);
  c.Prepare(dt, w);
  const double y_n = c.CalcUnprojectedImpulse(Vector3d::Zero())[2];
  REQUIRE(y_n > 0.0);
  const double edge = p.mu * y_n * c.R_t();  // the slip on the cone's edge: |y_t| = mu y_n
  const Vector3d sliding(100 * edge, 0, 0);
  REQUIRE(c.RegionAt(sliding.data()) == FrictionConeRegion::kSliding);
  auto crosses = [&](const SapFrictionConeConstraint& k, const Vector3d& v_c, const Vector3d& dv) {
    return k.StepCrossesPredictedRegion(v_c.data(), dv.data());
  };
  // Through zero slip at t = 1/2, and ending in stiction at t = 1.
  CHECK(crosses(c, sliding, Vector3d(-200 * edge, 0, 0)));
  CHECK(crosses(c, sliding, Vector3d(-100 * edge, 0, 0)));
  // Stopping short of the cone (smallest slip 50 edges, at t = 1): no crossing. Passing
  // beside it half an edge away (inside the cone's edge), 5 or 15 edges away (near misses:
  // the smallest slip, near t = 1/2, is 5 % and 15 % of the 100 edges at the start), but
  // not 29 edges away (29 %, above SapFrictionConeConstraint::kNearMissSlipFraction).
  CHECK_FALSE(crosses(c, sliding, Vector3d(-50 * edge, 0, 0)));
  CHECK(crosses(c, sliding, Vector3d(-200 * edge, edge, 0)));
  CHECK(crosses(c, sliding, Vector3d(-200 * edge, 10 * edge, 0)));
  CHECK(crosses(c, sliding, Vector3d(-200 * edge, 30 * edge, 0)));
  CHECK_FALSE(crosses(c, sliding, Vector3d(-200 * edge, 60 * edge, 0)));
  // Slip decreasing to 20 % of its start, but only at the step's end (t = 1): not a miss
  // inside the step, so no crossing.
  CHECK_FALSE(crosses(c, sliding, Vector3d(-80 * edge, 0, 0)));
  // Through zero slip while separating (y_n < 0 there): no stiction to cross into, and no
  // near miss either.
  CHECK_FALSE(crosses(c, sliding, Vector3d(-200 * edge, 0, 2.0 * c.v_hat_n() + 1.0)));
  CHECK_FALSE(crosses(c, sliding, Vector3d(-200 * edge, 10 * edge, 2.0 * c.v_hat_n() + 1.0)));
  // Already stuck, or no tangential motion: nothing to cross.
  CHECK_FALSE(crosses(c, Vector3d(0.5 * edge, 0, 0), Vector3d(-edge, 0, 0)));
  CHECK_FALSE(crosses(c, sliding, Vector3d(0, 0, -1e-3)));
  // The slip the impulse sees includes the bias: with a belt speed of 100 edges along x,
  // the slip at v_c = 0 is already 100 edges, and a step of -150 edges takes it through
  // zero; from v_c = 100 edges (slip 200) the same step ends 50 edges short of zero, while
  // for the unbiased contact (slip 100 -> -50 edges) it crosses.
  SapFrictionConeParameters belt = p;
  belt.bias_velocity = Vector3d(100 * edge, 0, 0);
  SapFrictionConeConstraint b(belt);
  b.Prepare(dt, w);
  CHECK(crosses(b, Vector3d::Zero(), Vector3d(-150 * edge, 0, 0)));
  CHECK_FALSE(crosses(b, sliding, Vector3d(-150 * edge, 0, 0)));  // slip 200 -> 50 edges
  CHECK(crosses(c, sliding, Vector3d(-150 * edge, 0, 0)));        // slip 100 -> -50 edges
  // A crossing is a prediction on its own: the stiction model, without the previous
  // step's flag (Compliant() has none), and still none while separating.
  REQUIRE_FALSE(p.was_stuck);
  Vector3d gamma;
  Matrix3d G;
  CHECK_FALSE(c.CalcPredicted(sliding.data(), false, gamma.data(), G.data()));
  REQUIRE(c.CalcPredicted(sliding.data(), true, gamma.data(), G.data()));
  CHECK((gamma - c.CalcUnprojectedImpulse(sliding)).norm() == 0.0);
  CHECK(G.isApprox(Vector3d(1 / c.R_t(), 1 / c.R_t(), 1 / c.R_n()).asDiagonal().toDenseMatrix()));
  CHECK_FALSE(c.CalcPredicted(Vector3d(0, 0, 1.0).data(), true, gamma.data(), G.data()));
}

TEST_CASE("the effective stiction tolerance is where stiction ends", "[solver][condition]") {
  // v_s = mu sigma w gamma_n (irrotational-contact-fields paper, eq. 42): a contact in
  // stiction with normal impulse gamma_n stays there up to the slip v_s and slides beyond.
  const double dt = 0.01, w = 2.0;
  const SapFrictionConeParameters p = Compliant();
  SapFrictionConeConstraint c(p);
  c.Prepare(dt, w);
  // In stiction the normal impulse is y_n = (v_hat_n - v_n) / R_n; at v_n = 0:
  const double gamma_n = c.v_hat_n() / c.R_n();
  const double v_s = c.StictionTolerance(gamma_n);
  CHECK(v_s == Approx(p.mu * p.stiction_sigma * w * gamma_n).epsilon(1e-14));
  CHECK(c.RegionAt(Vector3d(0.999 * v_s, 0, 0).data()) == FrictionConeRegion::kStiction);
  CHECK(c.RegionAt(Vector3d(1.001 * v_s, 0, 0).data()) == FrictionConeRegion::kSliding);
  CHECK(c.StictionTolerance(0.0) == 0.0);
}

}  // namespace
}  // namespace csim::solver
