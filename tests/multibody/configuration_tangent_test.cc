// The configuration's tangent in velocity coordinates: RetractConfiguration against the
// test support's independent Retract (same conventions), ConfigurationDifference as its
// inverse, Exp and Log as inverses, and the position update's first-order agreement with
// q (+) dt v.

#include "engine/multibody/configuration_tangent.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/multibody/position_update.h"
#include "tests/support/test_models.h"

namespace csim::multibody {
namespace {

Eigen::VectorXd RandomTangent(int nv, double size, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-size, size);
  Eigen::VectorXd d(nv);
  for (int i = 0; i < nv; ++i) d[i] = u(rng);
  return d;
}

TEST_CASE("configuration tangent: retraction and difference are inverses on every joint type",
          "[multibody][sensitivity]") {
  std::mt19937 rng(11);
  for (unsigned seed = 0; seed < 5; ++seed) {
    const Model model = testing::RandomTree(8, seed);
    const Eigen::VectorXd q = testing::RandomQ(model, rng);
    for (const double size : {1e-9, 1e-3, 0.5}) {  // rotation vectors well within pi
      INFO("seed " << seed << ", size " << size);
      const Eigen::VectorXd delta = RandomTangent(model.nv, size, rng);
      Eigen::VectorXd q_out(model.nq), back(model.nv);
      RetractConfiguration(model, q, delta, &q_out);
      CHECK((q_out - testing::Retract(model, q, delta)).lpNorm<Eigen::Infinity>() < 1e-14);
      ConfigurationDifference(model, q_out, q, back);
      CHECK((back - delta).lpNorm<Eigen::Infinity>() < 1e-13 * std::max(1.0, size / 1e-3));
    }
  }
}

TEST_CASE("configuration tangent: QuaternionLog inverts QuaternionExp, also near 0 and for -q",
          "[multibody][sensitivity]") {
  std::mt19937 rng(3);
  for (const double size : {0.0, 1e-12, 1e-6, 1e-4, 0.3, 1.5}) {
    const Eigen::Vector3d d = RandomTangent(3, size, rng);
    const Eigen::Vector4d q = QuaternionExp(d);
    CHECK(std::abs(q.norm() - 1.0) < 1e-15);
    CHECK((QuaternionLog(q) - d).norm() <= 1e-15 + 1e-14 * d.norm());
    CHECK((QuaternionLog(-q) - d).norm() <= 1e-15 + 1e-14 * d.norm());
  }
}

TEST_CASE("configuration tangent: the position update moves q by dt v to first order",
          "[multibody][sensitivity]") {
  // (q1 (-) q0) / dt = v + O(dt) for IntegratePositions from q0 with velocity v: the tangent
  // is the velocity-like one of the kinematic map qdot = N(q) v.
  std::mt19937 rng(5);
  const Model model = testing::RandomTree(8, 2);
  const Eigen::VectorXd q0 = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
  double last = 0.0;
  for (const double dt : {1e-2, 1e-3, 1e-4}) {
    Eigen::VectorXd q1(model.nq), delta(model.nv);
    IntegratePositions(model, q0, v, dt, 0.0, &q1);
    ConfigurationDifference(model, q1, q0, delta);
    const double error = (delta / dt - v).lpNorm<Eigen::Infinity>();
    if (last > 0.0) CHECK(error < 0.2 * last);  // falls like dt
    last = error;
  }
  CHECK(last < 1e-3);
}

}  // namespace
}  // namespace csim::multibody
