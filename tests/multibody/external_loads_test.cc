// External loads as generalized forces (engine/multibody/external_loads.h). Oracle: the
// principle of virtual power. For every generalized velocity v, tau . v must be the power
// of the wrench: f . v_P + n . omega, with v_P the world velocity of the point of
// application and omega the body's angular velocity, both from the kinematics alone.

#include "engine/multibody/external_loads.h"

#include <catch2/catch.hpp>

#include <random>

#include "engine/control/signal.h"
#include "engine/multibody/kinematics.h"
#include "tests/support/test_models.h"

namespace csim::multibody {
namespace {

/// The power [W] of `load` (unscaled) at the kinematics in ws.
double WrenchPower(const ExternalLoad& load, const Workspace& ws) {
  const Eigen::Matrix3d& R = ws.X_WB[load.body].R;
  const Eigen::Vector3d f = load.body_axes ? Eigen::Vector3d(R * load.force) : load.force;
  const Eigen::Vector3d n = load.body_axes ? Eigen::Vector3d(R * load.torque) : load.torque;
  const Eigen::Vector3d omega = BodyAngularVelocityWorld(ws, load.body);
  const Eigen::Vector3d v_P = BodyOriginVelocityWorld(ws, load.body) + omega.cross(R * load.point);
  return f.dot(v_P) + n.dot(omega);
}

TEST_CASE("a load's generalized force delivers the wrench's power at every velocity",
          "[multibody][loads]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto random3 = [&] { return Eigen::Vector3d(uniform(rng), uniform(rng), uniform(rng)); };
  for (unsigned seed = 1; seed <= 4; ++seed) {
    Model model = testing::RandomTree(10, seed, /*with_prescribed=*/false);
    Workspace ws = MakeWorkspace(model);
    for (int trial = 0; trial < 10; ++trial) {
      ExternalLoad load;
      load.body = static_cast<int>(rng() % model.num_bodies());
      load.point = random3();
      load.force = random3();
      load.torque = random3();
      load.body_axes = trial % 2 == 1;
      model.loads = {load};
      const Eigen::VectorXd q = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
      CalcKinematics(model, 0.3, q, v, ws);
      Eigen::VectorXd tau;
      CalcExternalLoadForces(model, ws, 0.3, &tau);
      INFO("seed " << seed << ", trial " << trial << ", body " << load.body);
      REQUIRE(tau.size() == model.nv);
      const double power = WrenchPower(load, ws);
      CHECK(tau.dot(v) == Approx(power).margin(1e-12 * (1 + std::abs(power))));
    }
  }
}

TEST_CASE("a load's signal scales its generalized force", "[multibody][loads]") {
  Model model = testing::FreeBody({1.0, 2.0, 3.0}, Eigen::Vector3d::Zero());
  control::SignalSpec spec;
  spec.name = "gain";
  spec.definition = control::SquareSignal{-0.5, 2.5, 1.0, 0.5, 0.0};  // high on [0, 0.5)
  model.signals = *control::BuildSignalGraph({spec}).graph;
  ExternalLoad load;
  load.body = 0;
  load.point = Eigen::Vector3d(0, 0.2, 0);
  load.force = Eigen::Vector3d(0, 0, 3.0);
  load.signal = 0;
  model.loads = {load};
  Workspace ws = MakeWorkspace(model);
  CalcKinematics(model, 0.0, model.InitialQ(), model.InitialV(), ws);
  // At rest at the identity: [torque p x f about the origin; force], times the signal.
  Eigen::VectorXd expected(6);
  expected << 0.2 * 3.0, 0, 0, 0, 0, 3.0;
  Eigen::VectorXd tau;
  CalcExternalLoadForces(model, ws, 0.25, &tau);
  CHECK((tau - 2.5 * expected).norm() < 1e-15);
  CalcExternalLoadForces(model, ws, 0.75, &tau);
  CHECK((tau + 0.5 * expected).norm() < 1e-15);
}

}  // namespace
}  // namespace csim::multibody
