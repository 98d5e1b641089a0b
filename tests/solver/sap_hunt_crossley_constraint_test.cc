// SapHuntCrossleyConstraint against docs/design/contact-models.md §3, with expected values derived
// from the spec rather than the implementation: the per-step data n0, eps_s, v_hat and the
// near-rigid k (docs/design/contact-models.md §3.5, §3.8); the normal impulse n(v) and its
// antiderivative N against their closed forms (docs/design/contact-models.md §3.2, §3.3); for both
// the lagged (§3.6) and the similar (§3.7) approximation, impulse = minus the cost gradient and G =
// minus the impulse's Jacobian by finite differences, G symmetric PSD, convexity, the Coulomb bound
// and the direction of friction (with a kinematic bias), the zero-cost piece, the steady lagged
// slip of docs/design/reference-cases.md §5.5 and the similar model's normal impulse at z = v_n -
// mu ||v_t||_s; the lagged stuck prediction (the soft norm's quadratic) against its definition, its
// derivatives and convexity, and when it is offered (sliding contacts only), holds and is crossed.

#include "engine/solver/sap_hunt_crossley_constraint.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

namespace csim::solver {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using Approximation = HuntCrossleyApproximation;

// docs/design/contact-models.md §3.2: n(v) = dt (k x(v))_+ (1 - d v)_+, each factor clamped, with
// the penetration predicted at the end of the step x(v) = x0 - dt (theta v + (1 - theta) v_n0), the
// one the position update q = q0 + dt N v^theta makes ([ICF] eq. 6 and
// docs/design/contact-models.md §3.2: theta = 1).
double ClosedFormImpulse(double dt, double k, double d, double x0, double v, double theta = 1.0,
                         double v_n0 = 0.0) {
  const double x = x0 - dt * (theta * v + (1 - theta) * v_n0);
  return dt * std::max(0.0, k * x) * std::max(0.0, 1.0 - d * v);
}

// docs/design/contact-models.md §3.3: N+(v) = dt [f v - 1/2 c v^2 - 1/2 d f v^2 + 1/3 d c v^3] for
// n = dt (f - c v) (1 - d v): f = k (x0 - dt (1 - theta) v_n0), c = theta dt k.
double ClosedFormPotential(double dt, double k, double d, double x0, double v, double theta = 1.0,
                           double v_n0 = 0.0) {
  const double f = k * (x0 - dt * (1 - theta) * v_n0), c = theta * dt * k;
  return dt * (f * v - 0.5 * c * v * v - 0.5 * d * f * v * v + d * c * v * v * v / 3);
}

// docs/design/contact-models.md §3.4: ||v_t||_s = sqrt(|v_t|^2 + eps^2) - eps, on the tangential
// part of u.
double SoftNorm(const Vector3d& u, double eps) { return std::hypot(u[0], u[1], eps) - eps; }

SapHuntCrossleyConstraint Prepared(const SapHuntCrossleyParameters& p, double dt, double w) {
  SapHuntCrossleyConstraint c(p);
  c.Prepare(dt, w);
  return c;
}

double Cost(const SapHuntCrossleyConstraint& c, const Vector3d& v_c, Vector3d* gamma = nullptr,
            Matrix3d* G = nullptr, int* piece = nullptr) {
  Vector3d g;
  Matrix3d H;
  const double cost = c.Calc(v_c.data(), g.data(), G != nullptr ? H.data() : nullptr, piece);
  if (gamma != nullptr) *gamma = g;
  if (G != nullptr) *G = H;
  return cost;
}

// A contact in overlap that is approaching (v_n0 < 0), with damping and a kinematic bias.
// dt = 0.01: f_e0 = 7.5 N, v_x = x0/dt = 0.15, 1/d = 0.1 => v_hat = 0.1 m/s
// (docs/design/contact-models.md §3.2); n0 = dt f_e0 (1 - d v_n0) = 0.075 * 1.2 = 0.09 N s
// (docs/design/contact-models.md §3.5).
SapHuntCrossleyParameters Params(Approximation approximation) {
  SapHuntCrossleyParameters p;
  p.near_rigid_threshold = 1.0;
  p.position_theta = 1.0;
  p.approximation = approximation;
  p.mu = 0.6;
  p.stiffness = 5e3;
  p.hunt_crossley = 10.0;
  p.phi0 = -1.5e-3;
  p.v_n0 = -0.02;
  p.stiction_tolerance = 1e-4;
  p.stiction_sigma = 1e-3;
  p.bias_velocity = Vector3d(3e-3, -2e-3, 1e-2);
  return p;
}

// A v_c whose total velocity u = v_c + v_b has |u_t| at 1e-3, 1 or 1e3 times eps_s (random
// direction) and u_n within 1e-2, 0.3 or 3 times v_hat of v_hat, on either side.
Vector3d RandomVelocity(const SapHuntCrossleyConstraint& c, std::mt19937& rng) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const double t_scales[] = {1e-3, 1.0, 1e3}, n_scales[] = {1e-2, 0.3, 3.0};
  const double r = t_scales[rng() % 3] * c.epsilon_s() * (0.5 + U(rng)), a = 2 * M_PI * U(rng);
  const double u_n = c.v_hat() * (1.0 + n_scales[rng() % 3] * (2 * U(rng) - 1));
  return Vector3d(r * std::cos(a), r * std::sin(a), u_n) - c.parameters().bias_velocity;
}

TEST_CASE("Hunt & Crossley Prepare: n0, eps_s, v_hat and the near-rigid stiffness", "[solver]") {
  const double dt = 0.01, w = 2.0;
  SapHuntCrossleyParameters p;
  p.near_rigid_threshold = 1.0;
  p.position_theta = 1.0;
  p.mu = 0.5;
  p.stiffness = 1e4;
  p.phi0 = -2e-3;          // f_e0 = k x0 = 20 N, dt f_e0 = 0.2 N s, x0/dt = 0.2 m/s
  p.hunt_crossley = 20.0;  // 1/d = 0.05 m/s
  p.v_n0 = 0.01;           // 1 - d v_n0 = 0.8
  p.stiction_tolerance = 1e-4;
  p.stiction_sigma = 0.0;
  SapHuntCrossleyConstraint c = Prepared(p, dt, w);
  CHECK(c.stiffness() == p.stiffness);
  CHECK(c.n0() == Approx(0.2 * 0.8).epsilon(1e-14));  // docs/design/contact-models.md §3.5
  CHECK(c.v_hat() == Approx(0.05).epsilon(1e-14));    // min(0.2, 1/d): the damping root binds
  CHECK(c.epsilon_s() == 1e-4);                       // sigma = 0: eps_s = v_s
  // sigma > 0: eps_s = max(v_s, mu sigma w n0), mu sigma w n0 = 0.5 * 1e-3 * 2 * 0.16 = 1.6e-4.
  p.stiction_sigma = 1e-3;
  CHECK(Prepared(p, dt, w).epsilon_s() == Approx(1.6e-4).epsilon(1e-14));
  p.stiction_tolerance = 1e-3;  // now v_s is the larger one
  CHECK(Prepared(p, dt, w).epsilon_s() == 1e-3);
  p.stiction_tolerance = 1e-4;
  // d = 2: 1/d = 0.5 > x0/dt, the elastic root binds; n0 = 0.2 * (1 - 0.02).
  p.hunt_crossley = 2.0;
  CHECK(Prepared(p, dt, w).v_hat() == Approx(0.2).epsilon(1e-14));
  CHECK(Prepared(p, dt, w).n0() == Approx(0.196).epsilon(1e-14));
  p.hunt_crossley = 0.0;  // no damping root: v_hat = -phi0/dt, n0 = dt k x0
  CHECK(Prepared(p, dt, w).v_hat() == Approx(0.2).epsilon(1e-14));
  CHECK(Prepared(p, dt, w).n0() == Approx(0.2).epsilon(1e-14));
  p.hunt_crossley = 20.0;
  p.v_n0 = -0.5;  // approaching: 1 - d v_n0 = 11
  CHECK(Prepared(p, dt, w).n0() == Approx(2.2).epsilon(1e-14));
  p.v_n0 = 0.06;  // separating faster than 1/d: the damping factor clamps to 0
  CHECK(Prepared(p, dt, w).n0() == 0.0);
  CHECK(Prepared(p, dt, w).epsilon_s() == 1e-4);  // n0 = 0: v_s alone
  p.phi0 = 1e-3;  // apart: f_e0 < 0, n0 = 0 even though both unclamped factors are negative
  CHECK(Prepared(p, dt, w).n0() == 0.0);
  CHECK(Prepared(p, dt, w).v_hat() == Approx(-0.1).epsilon(1e-14));  // -phi0/dt < 1/d
  p.v_n0 = 0.0;
  CHECK(Prepared(p, dt, w).n0() == 0.0);

  // Infinite stiffness: k = 4 pi^2 / (beta^2 w dt^2) (docs/design/contact-models.md §3.8, header),
  // and n0 uses that k.
  p.phi0 = -2e-3;
  p.v_n0 = 0.01;
  p.stiffness = std::numeric_limits<double>::infinity();
  for (double beta : {1.0, 0.5}) {
    p.near_rigid_threshold = beta;
    const SapHuntCrossleyConstraint rigid = Prepared(p, dt, w);
    const double k = 4 * M_PI * M_PI / (beta * beta * w * dt * dt);
    CHECK(rigid.stiffness() == Approx(k).epsilon(1e-14));
    CHECK(rigid.n0() == Approx(dt * k * 2e-3 * 0.8).epsilon(1e-14));
    CHECK(rigid.v_hat() == Approx(0.05).epsilon(1e-14));  // x0/dt is independent of k
  }
}

TEST_CASE("Hunt & Crossley normal impulse n(v) and potential N(v)", "[solver]") {
  const double dt = 0.01, k = 1e4;
  struct Case {
    double x0, d, v_hat, theta = 1.0, v_n0 = 0.0;
  };
  // v_hat = min(x(v) = 0, 1/d): elastic root binds, damping root binds (1/d < x0/dt), no
  // damping. theta = 1/2 (midpoint), approaching: x(v) = 1.25e-3 - 0.005 v, root 0.25 m/s
  // below 1/d = 0.5; separating: x(v) = 1.5e-3 - 0.005 v, root 0.3 beyond 1/d = 0.05.
  // theta = 0 (explicit Euler: positions ignore v) keeps theta = 1's x0 - dt v.
  for (const Case& cs : {Case{1e-3, 2.0, 0.1}, Case{2e-3, 20.0, 0.05}, Case{1e-3, 0.0, 0.1},
                         Case{1e-3, 2.0, 0.25, 0.5, -0.05}, Case{2e-3, 20.0, 0.05, 0.5, 0.1},
                         Case{1e-3, 2.0, 0.1, 0.0, -0.05}}) {
    INFO("x0 " << cs.x0 << ", d " << cs.d << ", theta " << cs.theta << ", v_n0 " << cs.v_n0);
    SapHuntCrossleyParameters p;
    p.stiction_tolerance = 1.0e-4;
    p.near_rigid_threshold = 1.0;
    p.stiffness = k;
    p.phi0 = -cs.x0;
    p.hunt_crossley = cs.d;
    p.position_theta = cs.theta;
    p.v_n0 = cs.v_n0;
    const SapHuntCrossleyConstraint c = Prepared(p, dt, 1.0);
    REQUIRE(c.v_hat() == Approx(cs.v_hat).epsilon(1e-14));
    const double theta = cs.theta > 0.0 ? cs.theta : 1.0;  // theta = 0 is [ICF]'s model
    const auto n = [&](double v) {
      return ClosedFormImpulse(dt, k, cs.d, cs.x0, v, theta, cs.v_n0);
    };
    CHECK(c.NormalPotential(0.0) == 0.0);  // N(0) = 0 (v_hat > 0)
    // Constant beyond v_hat, and N(v_hat) > 0 = N(0) because n > 0 on (0, v_hat).
    CHECK(c.NormalPotential(1.5 * cs.v_hat) == c.NormalPotential(cs.v_hat));
    CHECK(c.NormalPotential(10 * cs.v_hat) == c.NormalPotential(cs.v_hat));
    CHECK(c.NormalPotential(cs.v_hat) > 0.0);
    // With d = 20, 0.15 lies between the roots (damping factor < 0, elastic > 0) and 0.5 beyond
    // both (product of the unclamped factors > 0): n = 0 at both.
    for (double s : {-3.0, -1.0, -0.5, 0.0, 0.3, 0.7, 0.99, 1.01, 1.5, 3.0, 10.0}) {
      const double v = s * cs.v_hat, h = 1e-6;
      double dn = 0.0;
      CHECK(c.NormalImpulse(v, &dn) == Approx(n(v)).epsilon(1e-12).margin(1e-15));
      if (v >= cs.v_hat) CHECK(c.NormalImpulse(v, &dn) == 0.0);
      // n' against central differences of the closed form (n is quadratic below v_hat).
      CHECK(dn == Approx((n(v + h) - n(v - h)) / (2 * h)).epsilon(1e-6).margin(1e-8));
      // N' = n, by central differences of N (cubic below v_hat, constant above).
      const double dN = (c.NormalPotential(v + h) - c.NormalPotential(v - h)) / (2 * h);
      CHECK(dN == Approx(c.NormalImpulse(v, &dn)).epsilon(1e-6).margin(1e-10));
      // N(v) = int_0^min(v, v_hat) n, by Simpson's rule (exact: n is quadratic there), and the
      // docs/design/contact-models.md §3.3 polynomial.
      const double u = std::min(v, cs.v_hat);
      const double simpson = u / 6 * (n(0.0) + 4 * n(u / 2) + n(u));
      CHECK(c.NormalPotential(v) == Approx(simpson).epsilon(1e-12).margin(1e-15));
      CHECK(c.NormalPotential(v) ==
            Approx(ClosedFormPotential(dt, k, cs.d, cs.x0, u, theta, cs.v_n0))
                .epsilon(1e-12)
                .margin(1e-15));
    }
  }
}

TEST_CASE("Hunt & Crossley impulse and G are the cost's derivatives, G is PSD", "[solver]") {
  std::mt19937 rng(41);
  for (Approximation approximation : {Approximation::kLagged, Approximation::kSimilar}) {
    // v_s = 1e-4 wins over mu sigma w n0 = 9.2e-5; with v_s = 1e-5 the n0 term wins.
    // theta_q = 1/2: the midpoint rule's gap prediction (the header), n0 unchanged.
    for (auto [v_s, theta] : {std::pair{1e-4, 1.0}, std::pair{1e-5, 1.0}, std::pair{1e-4, 0.5}}) {
      INFO("v_s " << v_s << ", theta_q " << theta);
      SapHuntCrossleyParameters p = Params(approximation);
      p.stiction_tolerance = v_s;
      p.position_theta = theta;
      const SapHuntCrossleyConstraint c = Prepared(p, 0.01, 1.7);
      REQUIRE(c.epsilon_s() == Approx(std::max(v_s, 0.6 * 1e-3 * 1.7 * 0.09)).epsilon(1e-14));
      int sides[2] = {0, 0};  // points checked below / beyond the kink
      for (int trial = 0; trial < 600; ++trial) {
        const Vector3d v_c = RandomVelocity(c, rng);
        const Vector3d u = v_c + p.bias_velocity;
        // Steps: tangential relative to the soft norm's scale sqrt(|u_t|^2 + eps_s^2), normal
        // 1e-5 v_hat (n is quadratic in its argument, so only roundoff matters there).
        const double root = std::hypot(u[0], u[1], c.epsilon_s());
        const Vector3d h(1e-5 * root, 1e-5 * root, 1e-5 * c.v_hat());
        // The kink of n at v_hat, in the argument of n: v_n (lagged) or z (similar).
        const double arg = approximation == Approximation::kLagged
                               ? u[2]
                               : u[2] - p.mu * SoftNorm(u, c.epsilon_s());
        if (std::abs(arg - c.v_hat()) < 2 * (h[0] + h[2])) continue;
        ++sides[arg < c.v_hat() ? 0 : 1];
        Vector3d gamma;
        Matrix3d G;
        const double cost = Cost(c, v_c, &gamma, &G);
        // Roundoff of a difference quotient: a few ulps of the cost's terms (<= N(v_hat) +
        // cost) or of gamma, divided by the step.
        const double ulps = 8 * std::numeric_limits<double>::epsilon();
        const double cost_scale = c.NormalPotential(c.v_hat()) + cost;
        for (int j = 0; j < 3; ++j) {
          Vector3d vp = v_c, vm = v_c, gp, gm;
          vp[j] += h[j];
          vm[j] -= h[j];
          const double grad_fd = (Cost(c, vp, &gp) - Cost(c, vm, &gm)) / (2 * h[j]);
          const Vector3d dgamma_fd = (gp - gm) / (2 * h[j]);
          // gamma = -d ell / d v_c and G = -d gamma / d v_c, column by column.
          CHECK(std::abs(gamma[j] + grad_fd) <= 1e-6 * gamma.norm() + ulps * cost_scale / h[j]);
          CHECK((G.col(j) + dgamma_fd).norm() <= 1e-6 * G.norm() + ulps * gamma.norm() / h[j]);
        }
        CHECK((G - G.transpose()).norm() <= 1e-14 * G.norm());
        CHECK(Eigen::SelfAdjointEigenSolver<Matrix3d>(G).eigenvalues().minCoeff() >=
              -1e-12 * G.norm());
      }
      CHECK(sides[0] > 100);
      CHECK(sides[1] > 50);
    }
  }
}

TEST_CASE("Hunt & Crossley cost is convex along segments and nonnegative", "[solver]") {
  std::mt19937 rng(43);
  for (Approximation approximation : {Approximation::kLagged, Approximation::kSimilar}) {
    const SapHuntCrossleyConstraint c = Prepared(Params(approximation), 0.01, 1.7);
    for (int trial = 0; trial < 1000; ++trial) {
      const Vector3d a = RandomVelocity(c, rng), b = RandomVelocity(c, rng);
      const double cost_a = Cost(c, a), cost_b = Cost(c, b), cost_mid = Cost(c, 0.5 * (a + b));
      CHECK(cost_mid <= 0.5 * (cost_a + cost_b) + 1e-14 * (1.0 + cost_a + cost_b));
      CHECK(cost_a >= 0.0);  // the cost is offset by ell(separated), its minimum (header)
    }
  }
}

TEST_CASE("Hunt & Crossley friction: Coulomb bound and opposing the total slip", "[solver]") {
  for (Approximation approximation : {Approximation::kLagged, Approximation::kSimilar}) {
    const SapHuntCrossleyParameters p = Params(approximation);
    const SapHuntCrossleyConstraint c = Prepared(p, 0.01, 1.7);
    const double eps = c.epsilon_s(), mu_n0 = p.mu * c.n0();
    REQUIRE(c.n0() == Approx(0.09).epsilon(1e-14));
    // |u_t| from far below eps_s (where v_c_t ~ -v_b_t: the bias decides the direction) to
    // far above it; u_n = v_hat / 2, in contact.
    for (double r : {1e-3 * eps, 0.1 * eps, eps, 10 * eps, 1e3 * eps, 1e4 * eps}) {
      const Vector3d u(r * std::cos(2.0), r * std::sin(2.0), 0.5 * c.v_hat());
      Vector3d gamma;
      Cost(c, u - p.bias_velocity, &gamma);
      const double ratio = r / std::hypot(r, eps);    // f_r(|v_t|/eps_s) of docs/design/contact-models.md §3.4, < 1
      CHECK(gamma.head<2>().dot(u.head<2>()) < 0.0);  // opposes the total slip u_t
      if (approximation == Approximation::kLagged) {
        // docs/design/contact-models.md §3.6: gamma_t = -mu n0 u_t / sqrt(|u_t|^2 + eps_s^2); its
        // norm < mu n0, -> mu n0.
        const Eigen::Vector2d expected = -mu_n0 / std::hypot(r, eps) * u.head<2>();
        CHECK((gamma.head<2>() - expected).norm() <= 1e-12 * mu_n0);
        CHECK(gamma.head<2>().norm() < mu_n0);
        CHECK(gamma.head<2>().norm() / mu_n0 == Approx(ratio).epsilon(1e-12));
        if (r >= 1e3 * eps) CHECK(1.0 - gamma.head<2>().norm() / mu_n0 <= 1e-6);
      } else {
        // docs/design/contact-models.md §3.7: |gamma_t| = mu n(z) f_r <= mu gamma_n.
        CHECK(gamma[2] > 0.0);
        CHECK(gamma.head<2>().norm() <= p.mu * gamma[2]);
        CHECK(gamma.head<2>().norm() == Approx(p.mu * gamma[2] * ratio).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("Hunt & Crossley cost is zero where the contact carries nothing, pieces", "[solver]") {
  SapHuntCrossleyParameters p = Params(Approximation::kLagged);
  p.phi0 = -2e-3;  // x0/dt = 0.2, 1/d = 0.1: v_hat = 0.1
  p.v_n0 = 0.2;    // separating faster than 1/d: n0 = 0 (docs/design/contact-models.md §3.5)
  const double dt = 0.01, k = p.stiffness, d = p.hunt_crossley, x0 = -p.phi0;
  const double v_hat = 0.1, N_hat = ClosedFormPotential(dt, k, d, x0, v_hat);
  for (Approximation approximation : {Approximation::kLagged, Approximation::kSimilar}) {
    const bool similar = approximation == Approximation::kSimilar;
    for (double v_n0 : {0.2, 0.0}) {  // n0 = 0, then n0 = dt k x0 > 0
      p.approximation = approximation;
      p.v_n0 = v_n0;
      const SapHuntCrossleyConstraint c = Prepared(p, dt, 1.7);
      REQUIRE(c.v_hat() == Approx(v_hat).epsilon(1e-14));
      const double mu_n0 = p.mu * c.n0(), eps = c.epsilon_s();
      for (double r : {0.0, 1e-4, 0.05}) {
        for (double delta : {-0.5, -0.05, -1e-3, 1e-6, 1e-3, 0.05, 1.0}) {
          Vector3d u(0.6 * r, -0.8 * r, 0.0);
          // delta = distance of the argument of n (v_n or z) beyond v_hat.
          const double shift = similar ? p.mu * SoftNorm(u, eps) : 0.0;
          u[2] = c.v_hat() + shift + delta;
          const Vector3d v_c = u - p.bias_velocity;
          Vector3d gamma;
          Matrix3d G;
          int piece = -2, piece_without_G = -2;
          const double cost = Cost(c, v_c, &gamma, &G, &piece);
          Cost(c, v_c, nullptr, nullptr, &piece_without_G);
          CHECK(piece_without_G == piece);  // Calc's piece is QuadraticPieceAt's, with G or not
          CHECK(c.QuadraticPieceAt(v_c.data()) == piece);
          // ell - ell(separated) = N(v_hat) - N(min(arg, v_hat)) [+ mu n0 ||u_t||_s]
          // (docs/design/contact-models.md §3.6-§3.7).
          const double arg = std::min(u[2] - shift, v_hat);
          double expected = N_hat - ClosedFormPotential(dt, k, d, x0, arg);
          if (!similar) expected += mu_n0 * SoftNorm(u, eps);
          CHECK(cost == Approx(expected).epsilon(1e-10).margin(1e-15));
          CHECK(cost >= 0.0);
          if (delta > 0 && (similar || c.n0() == 0.0 || r == 0.0)) {  // carries nothing
            CHECK(cost == 0.0);
            CHECK(gamma == Vector3d::Zero());
          }
          // Piece 1 exactly where the cost is constant: arg >= v_hat and no lagged friction.
          CHECK(piece == (delta > 0 && (similar || c.n0() == 0.0) ? 1 : -1));
        }
      }
    }
  }
}

TEST_CASE("Hunt & Crossley lagged: steady slip under a force (docs/design/reference-cases.md §5.5)", "[solver]") {
  // A resting mass: phi0 = -m g / k, d = 0, v_n0 = 0 => n0 = dt k (-phi0) = m g dt
  // (docs/design/contact-models.md §3.5), and n(0) = dt f_e0 = m g dt too. At slip v along x the
  // friction impulse is mu n0 v / sqrt(v^2 + eps_s^2) (docs/design/contact-models.md §3.6), which
  // equals dt F at v = eps_s s / sqrt(1 - s^2), s = F/(mu m g).
  const double m = 2.0, g = 9.81, dt = 0.01;
  SapHuntCrossleyParameters p;
  p.near_rigid_threshold = 1.0;
  p.position_theta = 1.0;
  p.mu = 0.5;
  p.stiffness = 1e4;
  p.phi0 = -m * g / p.stiffness;
  p.hunt_crossley = 0.0;
  p.v_n0 = 0.0;
  for (double sigma : {0.0, 1e-3}) {
    p.stiction_sigma = sigma;
    p.stiction_tolerance = sigma == 0.0 ? 1e-4 : 1e-6;  // so that mu sigma w n0 wins
    const double w = 1 / (std::sqrt(3.0) * m);          // docs/design/reference-cases.md §5
    const SapHuntCrossleyConstraint c = Prepared(p, dt, w);
    CHECK(c.n0() == Approx(m * g * dt).epsilon(1e-12));
    const double eps = sigma == 0.0 ? 1e-4 : p.mu * sigma * w * m * g * dt;
    CHECK(c.epsilon_s() == Approx(eps).epsilon(1e-12));
    for (double s : {0.1, 0.5, 0.9, 0.999}) {
      const double F = s * p.mu * m * g, v = eps * s / std::sqrt(1 - s * s);
      Vector3d gamma;
      Cost(c, Vector3d(v, 0.0, 0.0), &gamma);
      CHECK(gamma[0] == Approx(-dt * F).epsilon(1e-12));  // opposes the slip, balances dt F
      CHECK(gamma[1] == 0.0);
      CHECK(gamma[2] == Approx(m * g * dt).epsilon(1e-12));  // the weight's impulse at v_n = 0
    }
  }
}

TEST_CASE("Hunt & Crossley similar: the normal impulse is n(z), z = v_n - mu ||v_t||_s",
          "[solver]") {
  SapHuntCrossleyParameters p;
  p.stiction_tolerance = 1.0e-4;
  p.near_rigid_threshold = 1.0;
  p.position_theta = 1.0;
  p.mu = 0.5;
  p.stiffness = 1e4;
  p.phi0 = -1e-3;
  p.hunt_crossley = 5.0;
  p.v_n0 = -0.1;
  const double dt = 0.01;
  p.approximation = Approximation::kSimilar;
  const SapHuntCrossleyConstraint similar = Prepared(p, dt, 1.0);
  p.approximation = Approximation::kLagged;
  const SapHuntCrossleyConstraint lagged = Prepared(p, dt, 1.0);
  const double eps = similar.epsilon_s();
  const Vector3d v_c(0.6, 0.8, 0.0);  // v_n = 0, |v_t| = 1 m/s >> eps_s
  Vector3d gamma_s, gamma_l;
  Cost(similar, v_c, &gamma_s);
  Cost(lagged, v_c, &gamma_l);
  const double z = -p.mu * (std::sqrt(1 + eps * eps) - eps);  // sliding pushes z below v_n
  const double n_z = ClosedFormImpulse(dt, p.stiffness, p.hunt_crossley, 1e-3, z);
  CHECK(gamma_s[2] == Approx(n_z).epsilon(1e-12));
  // The lagged normal impulse is n(v_n) = n(0) = dt k x0, smaller since n is decreasing.
  const double n_0 = ClosedFormImpulse(dt, p.stiffness, p.hunt_crossley, 1e-3, 0.0);
  CHECK(gamma_l[2] == Approx(n_0).epsilon(1e-12));
  CHECK(gamma_s[2] > 1.5 * gamma_l[2]);
  // Friction -mu n(z) t_hat_s (docs/design/contact-models.md §3.7).
  const Eigen::Vector2d expected = -p.mu * n_z / std::sqrt(1 + eps * eps) * v_c.head<2>();
  CHECK((gamma_s.head<2>() - expected).norm() <= 1e-12 * n_z);
}

// The stuck model of the lagged friction (the header's CalcPredicted): the soft norm's
// quadratic |u_t|^2 / (2 eps_s), i.e. friction -mu n0 u_t / eps_s with G_t = mu n0 / eps_s I,
// and the true normal impulse n(u_n); written from that definition, not from the code.
Vector3d StuckImpulse(const SapHuntCrossleyConstraint& c, const Vector3d& v_c) {
  const SapHuntCrossleyParameters& p = c.parameters();
  const Vector3d u = v_c + p.bias_velocity;
  const double x0 = -p.phi0, dt = 0.01;  // the tests' time step (Prepared(p, 0.01, w))
  Vector3d gamma;
  gamma.head<2>() = -p.mu * c.n0() / c.epsilon_s() * u.head<2>();
  gamma[2] = ClosedFormImpulse(dt, p.stiffness, p.hunt_crossley, x0, u[2]);
  return gamma;
}

bool Predicted(const SapHuntCrossleyConstraint& c, const Vector3d& v_c, bool crossed,
               Vector3d* gamma = nullptr, Matrix3d* G = nullptr) {
  Vector3d g = Vector3d::Constant(-7.0);
  Matrix3d H = Matrix3d::Constant(-7.0);
  const bool offered = c.CalcPredicted(v_c.data(), crossed, g.data(), H.data());
  if (!offered) {  // nothing written (the interface's contract)
    CHECK(g == Vector3d::Constant(-7.0));
    CHECK(H == Matrix3d::Constant(-7.0));
  }
  if (gamma != nullptr) *gamma = g;
  if (G != nullptr) *G = H;
  return offered;
}

TEST_CASE("Hunt & Crossley lagged stuck prediction: the soft norm's quadratic, convex",
          "[solver]") {
  SapHuntCrossleyParameters p = Params(Approximation::kLagged);
  p.was_stuck = true;
  const SapHuntCrossleyConstraint c = Prepared(p, 0.01, 1.7);
  REQUIRE(c.n0() > 0.0);
  const double G_t = p.mu * c.n0() / c.epsilon_s();
  std::mt19937 rng(47);
  int sliding = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Vector3d v_c = RandomVelocity(c, rng);
    const Vector3d u = v_c + p.bias_velocity;
    if (std::abs(u[2] - c.v_hat()) < 1e-3 * c.v_hat()) continue;  // n's kink at v_hat
    Vector3d gamma;
    Matrix3d G;
    if (u.head<2>().norm() <= c.epsilon_s()) {
      // Within eps_s the true model stands (the header): nothing is offered.
      CHECK_FALSE(Predicted(c, v_c, false));
      CHECK_FALSE(Predicted(c, v_c, true));
      continue;
    }
    ++sliding;
    REQUIRE(Predicted(c, v_c, false, &gamma, &G));
    const Vector3d expected = StuckImpulse(c, v_c);
    CHECK((gamma - expected).norm() <= 1e-12 * expected.norm());
    // G = -d gamma / d v_c (finite differences; the model is quadratic in u_t, cubic in u_n),
    // with steps that keep the slip outside eps_s.
    for (int j = 0; j < 3; ++j) {
      const double h = j < 2 ? 1e-4 * c.epsilon_s() : 1e-6 * c.v_hat();
      Vector3d vp = v_c, vm = v_c, gp, gm;
      vp[j] += h;
      vm[j] -= h;
      REQUIRE(Predicted(c, vp, false, &gp));
      REQUIRE(Predicted(c, vm, false, &gm));
      CHECK((G.col(j) + (gp - gm) / (2 * h)).norm() <= 1e-6 * G.norm());
    }
    CHECK(G(0, 0) == Approx(G_t).epsilon(1e-14));
    CHECK(G(1, 1) == Approx(G_t).epsilon(1e-14));
    CHECK(G(0, 1) == 0.0);
    CHECK((G - G.transpose()).norm() == 0.0);
    CHECK(Eigen::SelfAdjointEigenSolver<Matrix3d>(G).eigenvalues().minCoeff() >= 0.0);
  }
  CHECK(sliding > 100);
}

TEST_CASE("Hunt & Crossley stuck prediction: when it is offered, holds and is crossed",
          "[solver]") {
  SapHuntCrossleyParameters p = Params(Approximation::kLagged);
  const Vector3d b = p.bias_velocity;
  auto at_slip = [&](double x, double y) -> Vector3d { return Vector3d(x, y, 0.0) - b; };
  const double eps0 = Prepared(p, 0.01, 1.7).epsilon_s();
  const Vector3d sliding = at_slip(5 * eps0, 0.0);
  SECTION("offered for a sliding lagged contact remembered stuck, or crossed in this solve") {
    const SapHuntCrossleyConstraint forgotten = Prepared(p, 0.01, 1.7);
    CHECK_FALSE(Predicted(forgotten, sliding, false));
    CHECK(Predicted(forgotten, sliding, true));
    p.was_stuck = true;
    const SapHuntCrossleyConstraint remembered = Prepared(p, 0.01, 1.7);
    CHECK(Predicted(remembered, sliding, false));
    CHECK_FALSE(Predicted(remembered, at_slip(0.0, 0.9 * eps0), false));  // stuck already
  }
  SECTION("not offered without a friction impulse, nor for the similar approximation") {
    p.was_stuck = true;
    SapHuntCrossleyParameters apart = p;
    apart.phi0 = 1e-3;  // apart at the start of the step: n0 = 0
    CHECK(Prepared(apart, 0.01, 1.7).n0() == 0.0);
    CHECK_FALSE(Predicted(Prepared(apart, 0.01, 1.7), sliding, true));
    SapHuntCrossleyParameters frictionless = p;
    frictionless.mu = 0.0;
    CHECK_FALSE(Predicted(Prepared(frictionless, 0.01, 1.7), sliding, true));
    SapHuntCrossleyParameters similar = p;
    similar.approximation = Approximation::kSimilar;
    const SapHuntCrossleyConstraint s = Prepared(similar, 0.01, 1.7);
    CHECK_FALSE(Predicted(s, sliding, true));
    const Vector3d from = at_slip(20 * s.epsilon_s(), 0.0);
    const Vector3d through(-40 * s.epsilon_s(), 0.0, 0.0);
    CHECK_FALSE(s.StepCrossesPredictedRegion(from.data(), through.data()));
  }
  const SapHuntCrossleyConstraint c = Prepared(p, 0.01, 1.7);
  const double eps = c.epsilon_s();
  SECTION("holds where the total slip (bias included) is within eps_s") {
    CHECK(c.PredictionHoldsAt(at_slip(0.0, 0.0).data()));
    CHECK(c.PredictionHoldsAt(at_slip(0.6 * eps, -0.7 * eps).data()));
    CHECK_FALSE(c.PredictionHoldsAt(at_slip(0.8 * eps, -0.7 * eps).data()));
    const Vector3d zero = Vector3d::Zero();
    CHECK_FALSE(c.PredictionHoldsAt(zero.data()));  // u_t = b_t, |b_t| >> eps
    CHECK(c.StuckAt(at_slip(0.0, 0.99 * eps).data()));
    CHECK_FALSE(c.StuckAt(at_slip(0.0, 1.01 * eps).data()));
  }
  SECTION("a step from a slide crosses when its slip comes within eps_s of zero") {
    REQUIRE(SapHuntCrossleyConstraint::kCrossingSlipFactor == 10.0);
    const Vector3d from = at_slip(20 * eps, 0.0);
    auto crosses = [&](double dx, double dy) {
      const Vector3d dv(dx, dy, 0.3);  // the normal part plays no role
      return c.StepCrossesPredictedRegion(from.data(), dv.data());
    };
    CHECK(crosses(-40 * eps, 0.0));              // through zero slip
    CHECK(crosses(-40 * eps, 1.8 * eps));        // passes 0.9 eps beside it
    CHECK_FALSE(crosses(-40 * eps, 2.2 * eps));  // passes 1.1 eps beside it
    CHECK(crosses(-19.5 * eps, 0.0));            // ends within eps_s
    CHECK_FALSE(crosses(-18.5 * eps, 0.0));      // stops short
    CHECK_FALSE(crosses(5 * eps, 0.0));          // away from it
    CHECK_FALSE(crosses(0.0, 0.0));
    // A creep below kCrossingSlipFactor eps_s does not count, even through zero slip.
    const Vector3d creeping = at_slip(8 * eps, 0.0), through(-16 * eps, 0.0, 0.0);
    CHECK_FALSE(c.StepCrossesPredictedRegion(creeping.data(), through.data()));
    const Vector3d stuck = at_slip(0.5 * eps, 0.0), dv(-eps, 0.0, 0.0);
    CHECK_FALSE(c.StepCrossesPredictedRegion(stuck.data(), dv.data()));
  }
}

}  // namespace
}  // namespace csim::solver
