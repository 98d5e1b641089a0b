// PairwiseContactDerivatives (engine/integrator/pairwise_contact_derivatives.h): the contact
// part of the step residual's state derivative, by the chain rule through each pair's
// differenced narrow phase, against the whole assembly's central difference minus the free
// motion's at h = 1e-6. They agree to that difference's truncation (h^2: about 1e-8 relative
// here under SAP, 1.5e-7 under the Hunt & Crossley models, 100 times more at h = 1e-5) and
// rounding; a missed dependence (the Delassus
// estimate's rotation, a lever, the frame's turn, the lagged v_n0) shows as a difference of
// the size of that term, far above 1e-6.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/pairwise_contact_derivatives.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/simulate.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/step_sensitivity.h"
#include "tests/support/state_directions.h"

namespace csim::integrator {
namespace {

const ThetaParameters kSymplectic{0.0, 1.0, Gyroscopic::kImplicit};

// A box resting on a box on the floor, a sphere on the top box, a ball rolling on the floor
// against the lower box and a second ball, a tilted box landing on a corner, a capsule lying
// on the floor, a drum rolling on its side, a coin spinning on its rim, a box turning on a
// box's face (SAT's normal from two edges' cross product, within round-off of the faces'),
// and a box's edge across another's (a ridge): body-body and
// body-world pairs, faces, corners and round shapes, moving; every closed form of the narrow
// phase's derivative (contact_point_derivatives.h) and the differenced pairs.
std::string Pile(const std::string& model) {
  return R"(
csim: 1
settings: {time_step: 1.0e-3, contact_model: )" +
         model + R"(}
materials:
  soft: {stiffness: 2.0e5, dissipation_time: 1.0e-3, hunt_crossley: 0.5, friction: 0.4}
  floor: {stiffness: 1.0e6, dissipation_time: 2.0e-3, hunt_crossley: 0.2, friction: 0.7}
world:
  geometry: [{shape: halfspace, material: floor}]
bodies:
  - {name: low, mass: 1.0, geometry: [{shape: box, size: [0.2, 0.2, 0.1], material: soft}],
     pose: {position: [0, 0, 0.0499]}, velocity: {linear: [0.1, 0, 0]}}
  - {name: high, mass: 0.5, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: soft}],
     pose: {position: [0.02, 0.01, 0.1498], rpy: [0, 0, 0.3]}, velocity: {angular: [0, 0, 1.0]}}
  - {name: top, mass: 0.2, geometry: [{shape: sphere, radius: 0.03, material: soft}],
     pose: {position: [0.03, 0.0, 0.2297]}}
  - {name: ball, mass: 0.3, geometry: [{shape: sphere, radius: 0.04, material: soft}],
     pose: {position: [-0.139, 0, 0.0399]}, velocity: {linear: [0.8, 0, 0], angular: [0, 20.0, 0]}}
  - {name: ball2, mass: 0.2, geometry: [{shape: sphere, radius: 0.03, material: soft}],
     pose: {position: [-0.139, 0.0699, 0.0299]}, velocity: {linear: [0, -0.3, 0]}}
  - {name: pill, mass: 0.3, geometry: [{shape: capsule, radius: 0.02, length: 0.1, material: soft}],
     pose: {position: [0.2, 0.4, 0.0199], rpy: [0.02, 1.5707963, 0.3]}, velocity: {angular: [0.5, 0, 1.0]}}
  - {name: corner, mass: 0.4, geometry: [{shape: box, size: [0.08, 0.06, 0.05], material: soft}],
     pose: {position: [0.5, 0, 0.048], rpy: [0.5, 0.4, 0.1]}, velocity: {linear: [0.3, 0, -0.4], angular: [2, -1, 3]}}
  - {name: drum, mass: 0.3, geometry: [{shape: cylinder, radius: 0.03, length: 0.08, material: soft}],
     pose: {position: [-0.4, 0, 0.0299], rpy: [1.5707963, 0, 0.2]}, velocity: {linear: [0.3, 0, 0], angular: [0.5, 10, 0]}}
  - {name: base, mass: 1.0, geometry: [{shape: box, size: [0.2, 0.2, 0.1], material: soft}],
     pose: {position: [0.4, -0.4, 0.0499]}}
  - {name: twisted, mass: 0.4, geometry: [{shape: box, size: [0.1, 0.1, 0.06], material: soft}],
     pose: {position: [0.42, -0.4, 0.1298], rpy: [0, 0, 0.4]}, velocity: {linear: [0.1, 0, 0], angular: [0, 0, 1.0]}}
  - {name: ridge, mass: 0.3, geometry: [{shape: box, size: [0.3, 0.06, 0.06], material: soft}],
     pose: {position: [-0.4, -0.4, 0.0423], rpy: [0.7853982, 0, 0]}}
  - {name: cross, mass: 0.2, geometry: [{shape: box, size: [0.06, 0.3, 0.06], material: soft}],
     pose: {position: [-0.4, -0.4, 0.1268], rpy: [0, 0.7853982, 0]}, velocity: {angular: [0, 0, 0.5]}}
  - {name: coin, mass: 0.2, geometry: [{shape: cylinder, radius: 0.04, length: 0.02, material: soft}],
     pose: {position: [-0.4, 0.4, 0.0279], rpy: [0.5, 0, 0]}, velocity: {linear: [0, 0.2, 0], angular: [1, 0, 3]}}
)";
}

TEST_CASE("pairwise contact derivatives: the whole assembly's difference less the free "
          "motion's", "[integrator][sensitivity]") {
  for (const std::string contact_model : {"sap", "lagged", "similar", "lagged_regularized"}) {
    INFO("contact model " << contact_model);
    const io::LoadedScene scene = io::LoadSceneFromText(Pile(contact_model), "scene.yaml", {});
    const multibody::Model& model = scene.model;
    const contact::ContactParameters cp = sim::ContactParametersFor(scene.settings);
    const double dt = scene.settings.time_step;
    StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
    ContactStepWorkspace cws(model);
    StepWorkspace ws_n = MakeStepWorkspace(model, TreeSolver::kAuto);
    StepWorkspace ws_x = MakeStepWorkspace(model, TreeSolver::kAuto);
    ContactStepWorkspace cws_n(model), cws_x(model);
    PairwiseContactDerivatives pairwise(model);
    PairwiseContactDerivatives::Scratch scratch;
    solver::SapWorkspace products;
    std::mt19937 random(7);
    multibody::State x{0.0, model.InitialQ(), model.InitialV()};
    double worst = 0.0, worst_closed = 0.0;
    int checked = 0;
    for (int n = 1; n <= 40; ++n) {
      const multibody::State x0 = x;
      REQUIRE(StepWithContact(model, kSymplectic, {}, cp, dt, false, x, ws, cws).ok());
      if (n % 8 != 0) continue;
      // The nominal build, its kinds and pieces at the solver's v_c.
      REQUIRE(BuildStepProblem(model, kSymplectic, {}, cp, dt, x0, ws_n, cws_n).ok());
      const solver::ContactProblem& problem = cws_n.problem;
      REQUIRE(problem.num_constraint_rows() == cws.result.v_c.size());
      std::vector<solver::ContactKind> kind(problem.num_constraints());
      std::vector<int> piece(problem.num_constraints());
      for (int k = 0; k < problem.num_constraints(); ++k) {
        kind[k] = solver::ContactKindOf(problem.constraint(k));
        solver::ContactPiece p;
        solver::CalcContactPieceOf(problem, k, kind[k], cws.result.v_c.data(), &p);
        piece[k] = solver::ContactPieceCode(kind[k], p);
      }
      REQUIRE(pairwise.Prepare(cp, 0.0, cws_n, kind));
      std::vector<solver::ContactParameterDerivatives> derivatives(problem.num_constraints());
      for (int k = 0; k < problem.num_constraints(); ++k)
        solver::CalcContactParameterDerivativesOf(problem, k, cws.result.v_c.data(),
                                                  &derivatives[k]);
      REQUIRE(pairwise.Linearize(cws_n, ws_n.mb, dt, x0, x.v, cws.result.v_c, derivatives));
      REQUIRE(problem.num_constraints() >= 6);
      const Eigen::VectorXd& v = x.v;
      const std::vector<char> participating = testing::ConstrainedVelocities(problem);
      for (int trial = 0; trial < 3; ++trial) {
        Eigen::VectorXd dq, dv0;
        testing::RandomStateDirection(random, model.nv, &dq, &dv0);
        const double h = 1e-6;  // h |D| ~ 5e-8 m, rad: the rule's scale (sensitivities.md §6.2)
        // The whole assembly, and the free motion alone, at x0 +- h D.
        Eigen::VectorXd r[2], f[2];
        bool same = true;
        for (int side = 0; side < 2; ++side) {
          const double s = side == 0 ? h : -h;
          multibody::State xs = x0;
          multibody::RetractConfiguration(model, x0.q, s * dq, &xs.q);
          xs.v = x0.v + s * dv0;
          REQUIRE(BuildStepProblem(model, kSymplectic, {}, cp, dt, xs, ws_x, cws_x).ok());
          same = same && cws_x.problem.num_constraints() == problem.num_constraints();
          r[side].resize(model.nv);
          solver::CalcOptimalityResidual(cws_x.problem, v, &products, r[side]);
          f[side].resize(model.nv);
          ws_x.A.Multiply(v - ws_x.v_star, f[side]);
        }
        REQUIRE(same);
        Eigen::VectorXd expected = (r[0] - r[1] - (f[0] - f[1])) / (2 * h);
        Eigen::VectorXd got = Eigen::VectorXd::Zero(model.nv);
        const PairwiseContactDerivatives::Outcome outcome = pairwise.AddDerivative(
            cws_n, ws_n.mb, dq, dv0, h, scratch, got);
        CHECK(outcome.one_sided == 0);
        CHECK(outcome.unmatched == 0);
        // The closed-form pairs differenced instead: the same derivative to the differences'
        // truncation.
        Eigen::VectorXd differenced = Eigen::VectorXd::Zero(model.nv);
        pairwise.set_analytic_geometry(false);
        pairwise.AddDerivative(cws_n, ws_n.mb, dq, dv0, h, scratch, differenced);
        pairwise.set_analytic_geometry(true);
        for (int i = 0; i < model.nv; ++i)
          if (!participating[i]) expected[i] = got[i] = differenced[i] = 0.0;
        if (got.norm() > 0.0) {
          const double closed = (got - differenced).norm() / got.norm();
          worst_closed = std::max(worst_closed, closed);
          CHECK(closed < 1e-6);
        }
        if (expected.norm() == 0.0 && got.norm() == 0.0) continue;  // nothing in contact moves
        const double error = (got - expected).norm() / expected.norm();
        worst = std::max(worst, error);
        ++checked;
        INFO("step " << n << " trial " << trial << " |expected| " << expected.norm());
        CHECK(expected.norm() > 1.0);
        CHECK(error < 1e-6);
      }
    }
    std::printf("pairwise contact derivatives, %s: %d directions, largest relative "
                "difference %.2e; closed-form geometry against differenced %.2e\n",
                contact_model.c_str(), checked, worst, worst_closed);
  }
}

}  // namespace
}  // namespace csim::integrator
