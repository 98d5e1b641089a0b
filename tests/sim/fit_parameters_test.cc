// The parameters of `csim fit` (engine/sim/fit_parameters.h): shared start values read from
// the scene by path, a rotation offset fitted in one component only (the other two tangents
// asked for as columns of no parameter, and skipped where the initial state is set), and
// the rotation Jacobian's identities J_l(d) d = d and J_r(d) = J_l(d)^T.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/fit_coordinates.h"
#include "engine/sim/fit_parameters.h"

namespace csim::sim {
namespace {

const std::string kSphere = std::string(CSIM_SOURCE_DIR) + "/scenes/falling_sphere.yaml";

TEST_CASE("a shared parameter starts at the scene's value", "[fit][sim]") {
  const io::LoadedScene scene = io::LoadScene(kSphere, {"materials.ground.friction=0.35"});
  CHECK(SharedStartValue(scene.model, "materials.ground.friction") == 0.35);
  CHECK(SharedStartValue(scene.model, "materials.ground.dissipation_time") == 1.0e-3);
  CHECK(SharedStartValue(scene.model, "materials.steel.hunt_crossley") == 500.0);
  CHECK(SharedStartValue(scene.model, "bodies.sphere.mass") == 0.5);
}

TEST_CASE("a rotation offset fitted in one component sets only that component",
          "[fit][sim]") {
  const io::LoadedScene scene = io::LoadScene(kSphere, {});
  const multibody::Model& model = scene.model;
  TrajectoryFitOptions options;
  options.parameters = {"joints.sphere.q[1]"};
  RequestedParameters requested = ParseFitParameters(model, options);
  REQUIRE(requested.shared.empty());
  REQUIRE(requested.initial_state.size() == 1);
  std::vector<FitParameter> params = requested.initial_state;
  params[0].run = 0;
  std::vector<int> columns = {0};
  std::vector<std::string> paths = {params[0].path};
  const std::vector<RotationOffset> rotations =
      AddRotationOffsets(model, params, 0, &columns, &paths);
  REQUIRE(rotations.size() == 1);
  CHECK(columns == std::vector<int>{0, -1, -1});
  CHECK(paths == std::vector<std::string>{"joints.sphere.q[1]", "joints.sphere.q[0]",
                                          "joints.sphere.q[2]"});
  CHECK(rotations[0].param[1] == 0);
  CHECK(rotations[0].param[0] == -1);
  CHECK(rotations[0].column[0] == 1);

  const Eigen::VectorXd q_ref = model.InitialQ(), v_ref = model.InitialV();
  Eigen::VectorXd p(1);
  p << 0.3;
  Eigen::VectorXd q0, v0;
  InitialStateAt(model, DescribeCoordinates(model), params, columns, q_ref, v_ref, p, &q0,
                 &v0);
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(model.nv);
  delta[1] = 0.3;
  Eigen::VectorXd expected(model.nq);
  multibody::RetractConfiguration(model, q_ref, delta, &expected);
  CHECK((q0 - expected).norm() < 1e-15);
  CHECK(v0 == v_ref);
}

TEST_CASE("the rotation Jacobians fix their rotation vector and transpose each other",
          "[fit][sim]") {
  for (const Eigen::Vector3d& d : {Eigen::Vector3d(0.3, -0.2, 0.9), Eigen::Vector3d(1e-9, 0, 0)}) {
    const Eigen::Matrix3d left = RotationJacobian(d, false);
    const Eigen::Matrix3d right = RotationJacobian(d, true);
    CHECK((left * d - d).norm() < 1e-15);
    CHECK((right - left.transpose()).norm() < 1e-15);
  }
}

}  // namespace
}  // namespace csim::sim
