// The constrained step as a whole: the contact problem is assembled and solved every step,
// and its bookkeeping does not allocate once the contact set has been seen, with every
// contact model, also when the solver's islands run on two threads.

#include <catch2/catch.hpp>

#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_scenes.h"

namespace csim::integrator {
namespace {

const ThetaParameters kSymplectic{0.0, 1.0, Gyroscopic::kImplicit};

const char* kRestingPile = R"(
csim: 1
settings: {time_step: 2.0e-3}
materials:
  default: {stiffness: 1.0e6, dissipation_time: 2.0e-3, hunt_crossley: 5.0, friction: 0.8}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: ball, mass: 0.5, geometry: [{shape: sphere, radius: 0.05}], pose: {position: [0, 0, 0.0499]}}
  - {name: brick, mass: 1.0, geometry: [{shape: box, size: [0.2, 0.1, 0.05]}], pose: {position: [0.3, 0, 0.0249]}}
  - {name: top, mass: 0.3, geometry: [{shape: box, size: [0.1, 0.1, 0.05]}], pose: {position: [0.3, 0, 0.0748]}}
)";

TEST_CASE("a warmed-up contact step allocates nothing", "[integrator][contact][allocation]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kRestingPile, "pile.yaml", {});
  const multibody::Model& model = scene.model;
  using contact::ContactModel;
  for (const ContactModel kind : {ContactModel::kSap, ContactModel::kLagged,
                                  ContactModel::kLaggedRegularized, ContactModel::kSimilar})
  for (const ThetaParameters& p : {ThetaParameters{0.0, 1.0, Gyroscopic::kImplicit},
                                   ThetaParameters{0.5, 0.5, Gyroscopic::kImplicit}}) {
    INFO("contact model " << static_cast<int>(kind) << ", theta " << p.theta);
    StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
    ContactStepWorkspace cws(model);
    multibody::State s{0.0, model.InitialQ(), model.InitialV()};
    contact::ContactParameters cp;
    cp.contact_model = kind;
    cp.position_theta = p.theta_q;
    for (int n = 0; n < 200; ++n)
      REQUIRE(StepWithContact(model, p, {}, cp, 2e-3, true, s, ws, cws).ok());
    REQUIRE(cws.stats.num_constraints >= 9);  // ball 1 point, brick 4, top on brick 4
    const std::size_t before = testing::AllocationCount();
    for (int n = 0; n < 50; ++n) StepWithContact(model, p, {}, cp, 2e-3, true, s, ws, cws);
    CHECK(testing::AllocationCount() - before == 0);
    // The pile is at rest: every body's speed is at the stiction-creep level (SAP: sigma w
    // dt F; Hunt & Crossley: below v_s = 1e-4 m/s).
    CHECK(s.v.lpNorm<Eigen::Infinity>() < 1e-3);
  }
}

TEST_CASE("a warmed-up contact step of a chain on the floor allocates nothing",
          "[integrator][contact][allocation]") {
  // Its contacts get the per-tree Delassus estimate and, under theta = 0 with the tree
  // solved by the recursions, the articulated-body factorization of its Newton block.
  const io::LoadedScene scene =
      io::LoadSceneFromText(testing::BallChainOnTheFloorScene(), "chain.yaml", {});
  const multibody::Model& model = scene.model;
  for (const ThetaParameters& p : {ThetaParameters{0.0, 1.0, Gyroscopic::kImplicit},
                                   ThetaParameters{0.5, 0.5, Gyroscopic::kImplicit}}) {
    INFO("theta " << p.theta);
    StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kArticulated);
    ContactStepWorkspace cws(model);
    multibody::State s{0.0, model.InitialQ(), model.InitialV()};
    for (int n = 0; n < 200; ++n) REQUIRE(StepWithContact(model, p, {}, {}, 1e-3, true, s, ws, cws).ok());
    REQUIRE(cws.stats.num_constraints >= 10);  // two points per capsule
    REQUIRE((cws.problem.clique_solver(0) != nullptr) == (p.theta == 0.0));
    const std::size_t before = testing::AllocationCount();
    for (int n = 0; n < 50; ++n) StepWithContact(model, p, {}, {}, 1e-3, true, s, ws, cws);
    CHECK(testing::AllocationCount() - before == 0);
  }
}

// Three hinged links swinging down, each hinge with a rotor (armature) and dry friction: the
// friction constraints enter every step, with or without contact.
const char* kFrictionChain = R"(
csim: 1
settings: {time_step: 1.0e-3}
bodies:
  - {name: l0, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2, pose: {position: [0, 0, -0.15]}}]}
  - {name: l1, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2, pose: {position: [0, 0, -0.15]}}]}
  - {name: l2, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2, pose: {position: [0, 0, -0.15]}}]}
joints:
  - {name: j0, type: revolute, parent: world, child: l0, axis: [0, 1, 0], initial: {q: [1.2]},
     armature: 0.01, friction: 0.2}
  - {name: j1, type: revolute, parent: l0, child: l1, pose: {position: [0, 0, -0.3]},
     axis: [0, 1, 0], armature: 0.01, friction: 0.2}
  - {name: j2, type: revolute, parent: l1, child: l2, pose: {position: [0, 0, -0.3]},
     axis: [0, 1, 0], armature: 0.01, friction: 0.2}
)";

// For both tree solvers and both integrators (symplectic Euler, midpoint): 100 warm-up
// steps, `warmed` on the workspace, then 50 steps that must allocate nothing, then `after`.
template <class Warmed, class After>
void CheckWarmedUpStepsAllocateNothing(const multibody::Model& model, Warmed warmed, After after) {
  for (const TreeSolver tree : {TreeSolver::kDense, TreeSolver::kArticulated})
    for (const ThetaParameters& p : {ThetaParameters{0.0, 1.0, Gyroscopic::kImplicit},
                                     ThetaParameters{0.5, 0.5, Gyroscopic::kImplicit}}) {
      INFO("tree solver " << static_cast<int>(tree) << ", theta " << p.theta);
      StepWorkspace ws = MakeStepWorkspace(model, tree);
      ContactStepWorkspace cws(model);
      multibody::State s{0.0, model.InitialQ(), model.InitialV()};
      contact::ContactParameters cp;
      cp.position_theta = p.theta_q;
      for (int n = 0; n < 100; ++n)
        REQUIRE(StepWithContact(model, p, {}, cp, 1e-3, true, s, ws, cws).ok());
      warmed(cws);
      const std::size_t before = testing::AllocationCount();
      for (int n = 0; n < 50; ++n) StepWithContact(model, p, {}, cp, 1e-3, true, s, ws, cws);
      CHECK(testing::AllocationCount() - before == 0);
      after(cws);
    }
}

TEST_CASE("a warmed-up step with joint friction and armature allocates nothing",
          "[integrator][contact][allocation][joint-friction]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kFrictionChain, "chain.yaml", {});
  const multibody::Model& model = scene.model;
  CheckWarmedUpStepsAllocateNothing(model, [](const ContactStepWorkspace& cws) {
    REQUIRE(cws.stats.num_constraints == 3);  // one friction row per hinge
  }, [](const ContactStepWorkspace& cws) {
    // Each coordinate's friction effort stays within its limit.
    CHECK(cws.joint_friction.lpNorm<Eigen::Infinity>() <= 0.2 * (1 + 1e-12));
  });
}

// Every constraint kind and block layout: a chain closed by a ball to the world (one tree),
// a weld and a distance between free bodies (two trees), a coupler across two trees.
const char* kConstrained = R"(
csim: 1
settings: {time_step: 1.0e-3}
bodies:
  - {name: l0, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2, pose: {position: [0, 0, -0.15]}}]}
  - {name: l1, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2, pose: {position: [0, 0, -0.15]}}]}
  - {name: a, mass: 1, geometry: [{shape: sphere, radius: 0.05}], pose: {position: [1, 0, 0]}}
  - {name: b, mass: 1, geometry: [{shape: sphere, radius: 0.05}], pose: {position: [1.2, 0, 0]}}
  - {name: c, mass: 1, geometry: [{shape: sphere, radius: 0.05}], pose: {position: [1.2, 0, -0.5]}}
  - {name: f, mass: 0.2, geometry: [{shape: box, size: [0.02, 0.02, 0.02]}]}
joints:
  - {name: j0, type: revolute, parent: world, child: l0, axis: [0, 1, 0], initial: {q: [0.5]}}
  - {name: j1, type: revolute, parent: l0, child: l1, pose: {position: [0, 0, -0.3]},
     axis: [0, 1, 0], initial: {q: [-1.0]}}
  - {name: slide, type: prismatic, parent: world, child: f, axis: [1, 0, 0],
     pose: {position: [-1, 0, 0]}}
constraints:
  - {type: distance, body_a: l1, point_a: [0, 0, -0.3], body_b: world, point_b: [0.1, 0, -0.5], length: 0.2}
  - {type: weld, body_a: a, pose_a: {position: [0.2, 0, 0]}, body_b: b}
  - {type: distance, body_a: b, body_b: c, length: 0.5, stiffness: 1000, damping: 1}
  - {type: coupler, joint: slide, follows: j0, ratio: 0.1}
)";

TEST_CASE("a warmed-up step with holonomic constraints allocates nothing",
          "[integrator][contact][allocation][constraints]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kConstrained, "constrained.yaml", {});
  const multibody::Model& model = scene.model;
  CheckWarmedUpStepsAllocateNothing(model, [](const ContactStepWorkspace& cws) {
    REQUIRE(cws.stats.num_constraints == 4);
    REQUIRE(cws.constraint_impulse.size() == 1 + 6 + 1 + 1);
  }, [](const ContactStepWorkspace& cws) { CHECK(cws.constraint_impulse.allFinite()); });
}

TEST_CASE("a warmed-up contact step on two threads allocates nothing",
          "[integrator][contact][allocation][threads]") {
  const io::LoadedScene scene = io::LoadSceneFromText(kRestingPile, "pile.yaml", {});
  const multibody::Model& model = scene.model;
  StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  cws.solver.set_num_threads(2);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  const contact::ContactParameters cp;
  for (int n = 0; n < 200; ++n)
    REQUIRE(StepWithContact(model, kSymplectic, {}, cp, 2e-3, true, s, ws, cws).ok());
  REQUIRE(cws.result.stats.num_islands == 2);  // the ball; the brick with the top on it
  const std::size_t before = testing::AllocationCount();
  for (int n = 0; n < 50; ++n) StepWithContact(model, kSymplectic, {}, cp, 2e-3, true, s, ws, cws);
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::integrator
