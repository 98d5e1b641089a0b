// The builder's factored contact Jacobians (solver::PointContactJacobian, made for contacts
// whose bodies are free bodies or the world): for any velocity, the block of each body
// applied to that body's velocities must give the contact point's velocity, in the contact
// frame, that the multibody kinematics gives (multibody::CalcPointVelocity), so that the
// factored form's assumption about a free body's velocities (world-frame angular velocity,
// velocity of the body origin) holds. Bodies on other joints keep the dense path.

#include <catch2/catch.hpp>

#include <random>

#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/contact/contact_problem_builder.h"
#include "engine/multibody/jacobians.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/tree_topology.h"

namespace csim::contact {
namespace {

// Two boxes stacked on the ground, yawed and tilted a little, the lower one with its
// geometry and centre of mass off its origin; a pendulum (a revolute joint to the world)
// resting its ball on the upper box, which keeps the dense path for that contact.
const char* kScene = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0}
materials:
  m: {stiffness: 1.0e6, dissipation_time: 0.001, friction: 0.5}
world: {geometry: [{shape: halfspace, material: m}]}
bodies:
  - name: lower
    mass: 1.0
    com: [0.01, -0.02, 0.005]
    geometry: [{shape: box, size: [0.2, 0.2, 0.1], material: m, pose: {position: [0.01, 0, 0]}}]
    pose: {position: [0, 0, 0.0499], rpy: [0, 0, 0.3]}
    velocity: {linear: [0.1, 0, -0.2], angular: [0.5, -0.3, 1.0]}
  - name: upper
    mass: 1.0
    geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: m}]
    pose: {position: [0.02, 0.01, 0.1497], rpy: [0.001, -0.002, 1.1]}
    velocity: {linear: [0, 0.3, -0.5], angular: [0, 0, -2.0]}
  - name: bob
    mass: 0.5
    geometry: [{shape: sphere, radius: 0.03, material: m, pose: {position: [0, 0, -0.3]}}]
joints:
  - {name: pivot, type: revolute, parent: world, child: bob, axis: [1, 0, 0],
     pose: {position: [0.02, 0.01, 0.5297]}}
)";

TEST_CASE("factored contact Jacobians give the contact points' velocities", "[contact]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kScene, "stack.yaml", {});
  const multibody::Model& model = scene.model;
  integrator::StepWorkspace ws =
      integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(model);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  const Eigen::VectorXd q0 = s.q;
  REQUIRE(integrator::StepWithContact(model, {0.0, 1.0, integrator::Gyroscopic::kImplicit}, {}, {},
                                      1e-3, false, s, ws, cws)
              .ok());
  const solver::ContactProblem& problem = cws.problem;

  // Kinematics at the configuration the problem was built at, with a random velocity.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd v(s.v.size());
  for (int i = 0; i < v.size(); ++i) v[i] = u(rng);
  multibody::Workspace kin = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, q0, v, kin);
  const multibody::TreeTopology topology = multibody::CalcTreeTopology(model);

  // Every contact became one constraint, in order (no joint limits in the scene).
  const std::vector<geometry::PointContact>& contacts = cws.builder.contacts();
  REQUIRE(problem.num_constraints() == static_cast<int>(contacts.size()));
  int factored = 0, two_bodies = 0, dense = 0;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const solver::ConstraintEntry& e = problem.entry(k);
    if (e.point_contact < 0) {
      ++dense;
      continue;
    }
    ++factored;
    two_bodies += e.num_cliques == 2;
    // v_c = R_WC^T (v_B - v_A) at the contact point, from the kinematics alone.
    const geometry::PointContact& c = contacts[k];
    const Eigen::Matrix3d R_WC = ContactFrame(c.nhat_AB_W);
    CHECK((problem.point_contact(k).R_WC - R_WC).norm() == 0.0);
    const auto point_velocity = [&](int body) {
      return body < 0 ? Eigen::Vector3d::Zero().eval()
                      : multibody::CalcPointVelocity(model, kin, body, c.p_WC);
    };
    const Eigen::Vector3d expected =
        R_WC.transpose() * (point_velocity(c.body_b) - point_velocity(c.body_a));
    Eigen::Vector3d actual = Eigen::Vector3d::Zero();
    for (int b = 0; b < e.num_cliques; ++b)
      actual += problem.DenseJacobian(k, b) * v.segment(topology.tree_v_start[e.clique[b]], 6);
    CHECK((actual - expected).norm() <= 1e-13 * (1.0 + expected.norm()));
  }
  // Ground-lower and lower-upper contacts are factored; the pendulum's is not.
  CHECK(factored >= 5);
  CHECK(two_bodies >= 1);
  CHECK(dense >= 1);
}

}  // namespace
}  // namespace csim::contact
