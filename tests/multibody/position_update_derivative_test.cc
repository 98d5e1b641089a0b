// IntegratePositionsDerivative against the position update it differentiates: central
// differences of IntegratePositions along q0 (+) e dq0 and v_bar + e dv_bar read in the tangent
// at q1, the Taylor remainder's e^2 fall, the pieces a careless derivative would drop (the
// renormalization, W's dependence on v_bar), and no allocation.

#include "engine/multibody/position_update.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/multibody/configuration_tangent.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_models.h"

namespace csim::multibody {
namespace {

constexpr double kDt = 0.1;
// Velocities in [-3, 3] per coordinate: |w| dt up to 0.52 rad per step, so the update is far
// from its linearization.
constexpr double kSpeed = 3.0;

Eigen::VectorXd Uniform(int n, double size, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-size, size);
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = u(rng);
  return x;
}

// Every joint type the update distinguishes, prescribed and fixed ones included, with free
// and ball joints twice (RandomTree cycles through the types), and a chain of ball joints.
std::vector<std::pair<std::string, Model>> Models() {
  std::vector<std::pair<std::string, Model>> models;
  for (unsigned seed = 0; seed < 3; ++seed)
    models.emplace_back("random tree " + std::to_string(seed), testing::RandomTree(12, seed));
  models.emplace_back("ball chain", testing::BallChain(4, 1.0, 0.3, 0.4));
  return models;
}

// The update from q0 (+) e dq0 with v_bar + e dv_bar, read in the tangent at q1.
Eigen::VectorXd Moved(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& v_bar,
                      double theta, const Eigen::VectorXd& q1, const Eigen::VectorXd& dq0,
                      const Eigen::VectorXd& dv_bar, double e) {
  Eigen::VectorXd q0_e(model.nq), q1_e(model.nq), delta(model.nv);
  RetractConfiguration(model, q0, e * dq0, &q0_e);
  const Eigen::VectorXd v_e = v_bar + e * dv_bar;
  IntegratePositions(model, q0_e, v_e, kDt, theta, &q1_e);
  ConfigurationDifference(model, q1_e, q1, delta);
  return delta;
}

Eigen::VectorXd CentralDifference(const Model& model, const Eigen::VectorXd& q0,
                                  const Eigen::VectorXd& v_bar, double theta,
                                  const Eigen::VectorXd& q1, const Eigen::VectorXd& dq0,
                                  const Eigen::VectorXd& dv_bar, double e) {
  return (Moved(model, q0, v_bar, theta, q1, dq0, dv_bar, e) -
          Moved(model, q0, v_bar, theta, q1, dq0, dv_bar, -e)) /
         (2 * e);
}

double InfNorm(const Eigen::VectorXd& x) { return x.lpNorm<Eigen::Infinity>(); }

struct Case {
  Eigen::VectorXd q0, v_bar, q1, dq0, dv_bar, dq1;
};

Case MakeCase(const Model& model, double theta, std::mt19937& rng) {
  Case c;
  c.q0 = testing::RandomQ(model, rng);  // unit quaternions
  c.v_bar = Uniform(model.nv, kSpeed, rng);
  c.dq0 = Uniform(model.nv, 1.0, rng);
  c.dv_bar = Uniform(model.nv, kSpeed, rng);
  c.q1.resize(model.nq);
  IntegratePositions(model, c.q0, c.v_bar, kDt, theta, &c.q1);
  c.dq1.resize(model.nv);
  IntegratePositionsDerivative(model, c.q0, c.v_bar, kDt, theta, c.dq0, c.dv_bar, c.dq1);
  return c;
}

TEST_CASE("position update derivative: agrees with central differences of the update",
          "[multibody][sensitivity]") {
  std::mt19937 rng(17);
  for (const auto& [name, model] : Models()) {
    for (const double theta : {0.0, 0.5, 1.0}) {
      for (int trial = 0; trial < 3; ++trial) {
        INFO(name << ", theta " << theta << ", trial " << trial);
        const Case c = MakeCase(model, theta, rng);
        const Eigen::VectorXd fd =
            CentralDifference(model, c.q0, c.v_bar, theta, c.q1, c.dq0, c.dv_bar, 1e-5);
        const double relative = InfNorm(fd - c.dq1) / InfNorm(c.dq1);
        INFO("relative difference " << relative);
        CHECK(relative < 1e-8);
      }
    }
  }
}

TEST_CASE("position update derivative: the Taylor remainder falls as e^2",
          "[multibody][sensitivity]") {
  // |q1(e) (-) q1 - e dq1| = O(e^2) only for the exact derivative; a wrong one leaves O(e).
  std::mt19937 rng(23);
  for (const auto& [name, model] : Models()) {
    for (const double theta : {0.0, 0.5, 1.0}) {
      INFO(name << ", theta " << theta);
      const Case c = MakeCase(model, theta, rng);
      double last = 0.0;
      for (const double e : {1e-2, 1e-3, 1e-4}) {
        const double remainder =
            InfNorm(Moved(model, c.q0, c.v_bar, theta, c.q1, c.dq0, c.dv_bar, e) - e * c.dq1);
        if (last > 0.0) {
          const double slope = std::log10(last / remainder);
          INFO("e " << e << ", remainder " << remainder << ", slope " << slope);
          CHECK(std::abs(slope - 2.0) < 0.1);
        }
        last = remainder;
      }
    }
  }
}

TEST_CASE("position update derivative: carries the renormalization and the variation of W",
          "[multibody][sensitivity]") {
  // For theta != 1/2 the solve's |s| = sqrt((1 + a^2 |w|^2) / (1 + c^2 |w|^2)) differs from 1
  // (a = (1 - theta) dt / 2, c = theta dt / 2), so the renormalization scales the quaternion
  // tangents by 1 / |s|; and the angular part of dv_bar moves the quaternion through W. A
  // derivative without either misses the central difference by far more than its 1e-8. (At
  // theta = 1/2, the Cayley transform, |s| = 1 and the first test covers it.)
  std::mt19937 rng(29);
  const Model model = testing::RandomTree(12, 1);
  for (const double theta : {0.0, 1.0}) {
    INFO("theta " << theta);
    const Case c = MakeCase(model, theta, rng);
    const Eigen::VectorXd fd =
        CentralDifference(model, c.q0, c.v_bar, theta, c.q1, c.dq0, c.dv_bar, 1e-5);
    CHECK(InfNorm(fd - c.dq1) < 1e-8 * InfNorm(fd));
    // Without the renormalization's 1 / |s|: each quaternion tangent scaled by |s|.
    Eigen::VectorXd unnormalized = c.dq1;
    const double a = (1 - theta) * kDt / 2, cc = theta * kDt / 2;
    int quaternions = 0;
    for (const Joint& j : model.joints) {
      if (j.q_start < 0 || (j.type != JointType::kFree && j.type != JointType::kBall)) continue;
      const double w2 = c.v_bar.segment<3>(j.v_start).squaredNorm();
      unnormalized.segment<3>(j.v_start) *= std::sqrt((1 + a * a * w2) / (1 + cc * cc * w2));
      ++quaternions;
    }
    REQUIRE(quaternions == 4);
    const double without_renormalization = InfNorm(fd - unnormalized) / InfNorm(fd);
    // Without W's variation: the angular parts of dv_bar dropped from the quaternions.
    Eigen::VectorXd dv_linear = c.dv_bar;
    for (const Joint& j : model.joints)
      if (j.q_start >= 0 && (j.type == JointType::kFree || j.type == JointType::kBall))
        dv_linear.segment<3>(j.v_start).setZero();
    Eigen::VectorXd without_w(model.nv);
    IntegratePositionsDerivative(model, c.q0, c.v_bar, kDt, theta, c.dq0, dv_linear, without_w);
    const double without_dw = InfNorm(fd - without_w) / InfNorm(fd);
    INFO("without renormalization " << without_renormalization << ", without dW " << without_dw);
    CHECK(without_renormalization > 1e-3);
    CHECK(without_dw > 1e-2);
  }
}

TEST_CASE("position update derivative: columns of matrices in and out, without allocating",
          "[multibody][sensitivity]") {
  std::mt19937 rng(37);
  const Model model = testing::RandomTree(12, 2);
  const Eigen::VectorXd q0 = testing::RandomQ(model, rng);
  const Eigen::VectorXd v_bar = Uniform(model.nv, kSpeed, rng);
  const int columns = 3;
  Eigen::MatrixXd dq0(model.nv, columns), dv_bar(model.nv, columns), dq1(model.nv, columns);
  for (int k = 0; k < columns; ++k) {
    dq0.col(k) = Uniform(model.nv, 1.0, rng);
    dv_bar.col(k) = Uniform(model.nv, kSpeed, rng);
  }
  const std::size_t before = testing::AllocationCount();
  for (int k = 0; k < columns; ++k)
    IntegratePositionsDerivative(model, q0, v_bar, kDt, 1.0, dq0.col(k), dv_bar.col(k),
                                 dq1.col(k));
  CHECK(testing::AllocationCount() - before == 0);
  // The same as one vector at a time, and linear in the direction.
  Eigen::VectorXd one(model.nv), sum(model.nv);
  IntegratePositionsDerivative(model, q0, v_bar, kDt, 1.0, Eigen::VectorXd(dq0.col(1)),
                               Eigen::VectorXd(dv_bar.col(1)), one);
  CHECK(InfNorm(one - dq1.col(1)) == 0.0);
  IntegratePositionsDerivative(model, q0, v_bar, kDt, 1.0, dq0.col(0) + dq0.col(2),
                               dv_bar.col(0) + dv_bar.col(2), sum);
  CHECK(InfNorm(sum - dq1.col(0) - dq1.col(2)) < 1e-14 * InfNorm(sum));
}

}  // namespace
}  // namespace csim::multibody
