// The Delassus estimate w of contacts on articulated trees (contact_problem_builder.h):
// with settings.delassus_estimate = articulated, a contact's w must be [P]'s per-tree
// recipe, ||sum_t J_t A_t^-1 J_t^T||_F / 3, with the exact inverse of the tree's block of A
// (here from Eigen's dense Cholesky, independent of both ways the builder has: the free
// motion's L D L^T factor of a small tree's block, and the articulated-body recursions,
// which every tree gets with TreeSolver::kArticulated) and, on a lone free body's side,
// Drake's diag(A)^-1; with `diagonal`, Drake's recipe everywhere (docs/design/sap-problem.md
// §4). Scene: a ball-jointed chain of three capsules lying on the floor, a free sphere
// resting on its last link, and a hinged arm whose tip rests on the chain's first link (a
// contact between two articulated trees).

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "engine/contact/contact_problem_builder.h"
#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/solver/delassus_estimate.h"

namespace csim::contact {
namespace {

const std::string kScene = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0, delassus_estimate: ESTIMATE}
world: {geometry: [{shape: halfspace}]}
bodies:
  - {name: l0, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: l1, mass: 0.2, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: l2, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: ball, mass: 0.05, geometry: [{shape: sphere, radius: 0.02}], pose: {position: [0, 0.25, 0.0398]}}
  - {name: arm, mass: 0.3, geometry: [{shape: sphere, radius: 0.015, pose: {position: [0, 0, -0.2]}}]}
joints:
  - {name: j0, type: ball, parent: world, child: l0, pose: {position: [0, 0, 0.0099]},
     initial: {q: [0.7071067811865476, 0.7071067811865475, 0, 0]}}
  - {name: j1, type: ball, parent: l0, child: l1, pose: {position: [0, 0, -0.1]}}
  - {name: j2, type: ball, parent: l1, child: l2, pose: {position: [0, 0, -0.1]}}
  - {name: hinge, type: revolute, parent: world, child: arm, axis: [1, 0, 0],
     pose: {position: [0, 0.05, 0.2339]}}
)";

struct Built {
  Built(io::LoadedScene loaded, integrator::TreeSolver tree_solver)
      : scene(std::move(loaded)),
        ws(integrator::MakeStepWorkspace(scene.model, tree_solver)),
        cws(scene.model) {}
  io::LoadedScene scene;
  integrator::StepWorkspace ws;
  integrator::ContactStepWorkspace cws;
};

// One symplectic Euler step (theta 0: A is M(q0) plus its diagonal terms, at the problem's
// configuration) of the scene with the given estimate; cws.problem is that step's problem.
std::unique_ptr<Built> StepOnce(const std::string& estimate, integrator::TreeSolver tree_solver) {
  std::string text = kScene;
  text.replace(text.find("ESTIMATE"), 8, estimate);
  io::LoadedScene scene = io::LoadSceneFromText(text, "tree_delassus.yaml", {});
  auto b = std::make_unique<Built>(std::move(scene), tree_solver);
  ContactParameters parameters;
  parameters.delassus_estimate = b->scene.settings.delassus_estimate;
  multibody::State s{0.0, b->scene.model.InitialQ(), b->scene.model.InitialV()};
  REQUIRE(integrator::StepWithContact(b->scene.model, {0.0, 1.0, integrator::Gyroscopic::kImplicit},
                                      {}, parameters, 1e-3, false, s, b->ws, b->cws)
              .ok());
  return b;
}

TEST_CASE("contacts on articulated trees get the per-tree Delassus estimate", "[contact][delassus]") {
  const std::unique_ptr<Built> articulated = StepOnce("articulated", integrator::TreeSolver::kAuto);
  const std::unique_ptr<Built> diagonal = StepOnce("diagonal", integrator::TreeSolver::kAuto);
  // The same step with every tree on the recursions: its cliques are matrix-free, so the
  // expected estimate comes from the first problem's blocks of A (the same q0).
  const std::unique_ptr<Built> recursions =
      StepOnce("articulated", integrator::TreeSolver::kArticulated);
  REQUIRE(articulated->scene.settings.delassus_estimate == DelassusEstimate::kArticulated);
  REQUIRE(diagonal->scene.settings.delassus_estimate == DelassusEstimate::kDiagonal);
  const solver::ContactProblem& p = articulated->cws.problem;
  const solver::ContactProblem& q = diagonal->cws.problem;
  const solver::ContactProblem& r = recursions->cws.problem;
  REQUIRE(p.num_constraints() == q.num_constraints());
  REQUIRE(p.num_constraints() == r.num_constraints());
  int world_tree = 0, tree_free = 0, tree_tree = 0;
  double largest_ratio = 1.0;
  for (int k = 0; k < p.num_constraints(); ++k) {
    const solver::ConstraintEntry& e = p.entry(k);
    if (e.point_contact >= 0) continue;  // free bodies only: Drake's recipe (other tests)
    Eigen::Matrix3d W = Eigen::Matrix3d::Zero();
    int trees = 0;
    for (int b = 0; b < e.num_cliques; ++b) {
      const Eigen::MatrixXd J = p.DenseJacobian(k, b);
      const Eigen::MatrixXd A = p.A(e.clique[b]);
      if (A.rows() == 6) {  // the ball, the scene's only lone free body: diag(A)^-1
        W += J * A.diagonal().cwiseInverse().asDiagonal() * J.transpose();
      } else {  // the chain (9 velocities) or the arm (1): the exact inverse
        ++trees;
        W += J * Eigen::LLT<Eigen::MatrixXd>(A).solve(J.transpose());
      }
    }
    const double expected = W.norm() / 3.0;
    INFO("constraint " << k << " on " << e.num_cliques << " cliques");
    CHECK(std::abs(e.delassus - expected) <= 1e-12 * expected);
    CHECK(std::abs(r.entry(k).delassus - expected) <= 1e-12 * expected);
    // Drake's recipe on the same constraint, from the same blocks.
    const double recipe = e.num_cliques == 1
                              ? solver::EstimateDelassus(q.A(e.clique[0]), q.DenseJacobian(k, 0))
                              : solver::EstimateDelassus(q.A(e.clique[0]), q.DenseJacobian(k, 0),
                                                         q.A(e.clique[1]), q.DenseJacobian(k, 1));
    CHECK(std::abs(q.entry(k).delassus - recipe) <= 1e-14 * recipe);
    largest_ratio = std::max({largest_ratio, expected / recipe, recipe / expected});
    if (e.num_cliques == 1) ++world_tree;
    if (e.num_cliques == 2 && trees == 1) ++tree_free;
    if (e.num_cliques == 2 && trees == 2) ++tree_tree;
  }
  CHECK(world_tree >= 3);  // the chain on the floor
  CHECK(tree_free >= 1);   // the ball on the chain
  CHECK(tree_tree >= 1);   // the arm on the chain
  // The two recipes differ on a chain (else this test could not tell them apart).
  CHECK(largest_ratio > 1.5);
}

}  // namespace
}  // namespace csim::contact
