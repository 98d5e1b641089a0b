// Fixed-axis bodies under the pairwise rule (engine/integrator/fixed_axis_partials.h,
// pairwise_contact_derivatives.h): which bodies qualify, and the step residual's whole state
// derivative (free motion by fixed_axis_partials, contacts by the chain rule) against the
// whole assembly's central difference at h = 1e-6, under midpoint, implicit Euler and, with
// a lone free body among them, symplectic Euler. They agree to the difference's truncation
// and rounding (about 1e-8 relative); a missed term (the spring's or damper's share of m_x,
// the theta weights, a fixed-axis lever or Delassus term) shows far above 1e-6.

#include <catch2/catch.hpp>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/fixed_axis_partials.h"
#include "engine/integrator/free_body_partials.h"
#include "engine/integrator/pairwise_contact_derivatives.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/simulate.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/step_sensitivity.h"
#include "tests/support/state_directions.h"
#include "tests/support/test_scenes.h"

namespace csim::integrator {
namespace {

multibody::Model Load(const std::string& yaml) {
  return io::LoadSceneFromText(yaml, "scene.yaml", {}).model;
}

// One body `b` on `joint` (a YAML flow map without name, parent and child) with `geometry`.
std::string OneJoint(const std::string& joint, const std::string& body_extra) {
  return R"(
csim: 1
bodies:
  - {name: b, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.2, 0.3]}])" + body_extra + R"(}
joints:
  - {name: j, parent: world, child: b, )" + joint + R"(}
)";
}

TEST_CASE("fixed-axis bodies: which bodies qualify", "[integrator][sensitivity]") {
  // Prismatic: always; planar and revolute: the centre of mass on the axis of turning.
  CHECK(IsFixedAxisBody(Load(OneJoint("type: prismatic, axis: [1, 0, 0]", "")), 0));
  CHECK(IsFixedAxisBody(Load(OneJoint("type: planar", "")), 0));
  CHECK(IsFixedAxisBody(Load(OneJoint("type: planar", ", com: [0, 0, 0.2]")), 0));
  CHECK_FALSE(IsFixedAxisBody(Load(OneJoint("type: planar", ", com: [0.01, 0, 0]")), 0));
  CHECK(IsFixedAxisBody(Load(OneJoint("type: revolute, axis: [0, 1, 0]", ", com: [0, 0.3, 0]")), 0));
  CHECK_FALSE(
      IsFixedAxisBody(Load(OneJoint("type: revolute, axis: [0, 1, 0]", ", com: [0.1, 0, 0]")), 0));
  // Off the axis, but the axis along gravity: the weight has no moment about it.
  CHECK(IsFixedAxisBody(Load(OneJoint("type: revolute, axis: [0, 0, 1]", ", com: [0.1, 0, 0]")), 0));
  // A prescribed joint, a ball joint, a free joint: not fixed-axis bodies.
  CHECK_FALSE(IsFixedAxisBody(
      Load(OneJoint("type: revolute, axis: [0, 1, 0], "
                    "prescribed: {type: sine, amplitude: [0.1], frequency: 1.0}",
                    "")),
      0));
  CHECK_FALSE(IsFixedAxisBody(Load(OneJoint("type: ball", "")), 0));
  // A child (even welded) makes the tree more than one body.
  const multibody::Model two = Load(R"(
csim: 1
bodies:
  - {name: a, mass: 1.0, geometry: [{shape: sphere, radius: 0.1}]}
  - {name: b, mass: 1.0, geometry: [{shape: sphere, radius: 0.1}]}
joints:
  - {name: j, type: prismatic, parent: world, child: a, axis: [1, 0, 0]}
  - {name: w, type: fixed, parent: a, child: b, pose: {position: [0, 0, 0.3]}}
)");
  CHECK_FALSE(IsFixedAxisBody(two, 0));
  bool any_free = true;
  CHECK_FALSE(AllPairwiseBodies(two, &any_free));
  // A model of fixed-axis bodies and a lone free body: covered, with a free body.
  const multibody::Model mixed = Load(R"(
csim: 1
bodies:
  - {name: a, mass: 1.0, geometry: [{shape: sphere, radius: 0.1}]}
  - {name: free, mass: 1.0, geometry: [{shape: sphere, radius: 0.1}]}
joints:
  - {name: j, type: prismatic, parent: world, child: a, axis: [1, 0, 0]}
)");
  CHECK(AllPairwiseBodies(mixed, &any_free));
  CHECK(any_free);
  // The twist map of a planar joint rotated by roll = pi/2 (the spring-cylinder's): x along
  // world x, y along world z, the angle about world -y.
  const multibody::Model planar = Load(OneJoint("type: planar, pose: {rpy: [1.5707963267948966, 0, 0]}", ""));
  const auto T = FixedAxisTwistMap(planar, 0);
  Eigen::Matrix<double, 6, 3> expected = Eigen::Matrix<double, 6, 3>::Zero();
  expected(3, 0) = 1.0;
  expected(5, 1) = 1.0;
  expected(1, 2) = -1.0;
  CHECK((T - expected).norm() < 1e-15);
}

TEST_CASE("fixed-axis bodies: the step residual's state derivative against the whole "
          "assembly's difference", "[integrator][sensitivity]") {
  struct Case {
    const char* name;
    ThetaParameters theta;
    bool ball;
  };
  for (const Case& test : {Case{"midpoint", {0.5, 0.5, Gyroscopic::kImplicit}, false},
                           Case{"implicit Euler", {1.0, 1.0, Gyroscopic::kImplicit}, false},
                           Case{"symplectic Euler with a ball", {0.0, 1.0, Gyroscopic::kImplicit},
                                true}}) {
    INFO(test.name);
    const io::LoadedScene scene = io::LoadSceneFromText(testing::FixedAxisRigScene(test.ball), "scene.yaml", {});
    const multibody::Model& model = scene.model;
    const contact::ContactParameters cp = sim::ContactParametersFor(scene.settings);
    const double dt = scene.settings.time_step;
    bool any_free = false;
    REQUIRE(AllPairwiseBodies(model, &any_free));
    CHECK(any_free == test.ball);
    StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
    StepWorkspace ws_n = MakeStepWorkspace(model, TreeSolver::kAuto);
    StepWorkspace ws_x = MakeStepWorkspace(model, TreeSolver::kAuto);
    ContactStepWorkspace cws(model), cws_n(model), cws_x(model);
    PairwiseContactDerivatives pairwise(model);
    PairwiseContactDerivatives::Scratch scratch;
    FixedAxisFreeMotionPartials fixed_axis;
    FreeBodyFreeMotionPartials free_body;
    solver::SapWorkspace products;
    std::mt19937 random(11);
    multibody::State x{0.0, model.InitialQ(), model.InitialV()};
    double worst = 0.0, worst_v_star = 0.0;
    int checked = 0, ball_contacts = 0;
    for (int n = 1; n <= 30; ++n) {
      const multibody::State x0 = x;
      REQUIRE(StepWithContact(model, test.theta, {}, cp, dt, false, x, ws, cws).ok());
      if (n % 6 != 0) continue;
      REQUIRE(BuildStepProblem(model, test.theta, {}, cp, dt, x0, ws_n, cws_n).ok());
      const solver::ContactProblem& problem = cws_n.problem;
      REQUIRE(problem.num_constraint_rows() == cws.result.v_c.size());
      std::vector<solver::ContactKind> kind(problem.num_constraints());
      for (int k = 0; k < problem.num_constraints(); ++k)
        kind[k] = solver::ContactKindOf(problem.constraint(k));
      REQUIRE(pairwise.Prepare(cp, test.theta.theta, cws_n, kind));
      std::vector<solver::ContactParameterDerivatives> derivatives(problem.num_constraints());
      for (int k = 0; k < problem.num_constraints(); ++k)
        solver::CalcContactParameterDerivativesOf(problem, k, cws.result.v_c.data(),
                                                  &derivatives[k]);
      const multibody::Workspace& kinematics = ProblemKinematics(test.theta, ws_n, cws_n);
      REQUIRE(pairwise.Linearize(cws_n, kinematics, dt, x0, x.v, cws.result.v_c, derivatives));
      PrepareFixedAxisPartials(model, test.theta, dt, ws_n, &fixed_axis);
      if (test.ball) PrepareFreeBodyPartials(model, test.theta, dt, x0, ws_n, &free_body);
      // Every fixed-axis body touches the floor (two rims, a box's four corners, a rim).
      REQUIRE(problem.num_constraints() >= 7);
      for (int k = 0; k < problem.num_constraints(); ++k)
        ball_contacts += problem.entry(k).num_cliques == 2;
      const Eigen::VectorXd& v = x.v;
      const std::vector<char> participating = testing::ConstrainedVelocities(problem);
      for (int trial = 0; trial < 3; ++trial) {
        Eigen::VectorXd dq, dv0;
        testing::RandomStateDirection(random, model.nv, &dq, &dv0);
        const double h = 1e-6;
        Eigen::VectorXd r[2], v_star[2];
        for (int side = 0; side < 2; ++side) {
          const double s = side == 0 ? h : -h;
          multibody::State xs = x0;
          multibody::RetractConfiguration(model, x0.q, s * dq, &xs.q);
          xs.v = x0.v + s * dv0;
          REQUIRE(BuildStepProblem(model, test.theta, {}, cp, dt, xs, ws_x, cws_x).ok());
          REQUIRE(cws_x.problem.num_constraints() == problem.num_constraints());
          r[side].resize(model.nv);
          solver::CalcOptimalityResidual(cws_x.problem, v, &products, r[side]);
          v_star[side] = ws_x.v_star;
        }
        Eigen::VectorXd expected = (r[0] - r[1]) / (2 * h);
        const Eigen::VectorXd expected_v_star = (v_star[0] - v_star[1]) / (2 * h);
        Eigen::VectorXd got = Eigen::VectorXd::Zero(model.nv);
        Eigen::VectorXd got_v_star = Eigen::VectorXd::Zero(model.nv);
        ApplyFixedAxisPartials(fixed_axis, dq, dv0, got, got_v_star);
        if (test.ball) ApplyFreeBodyPartials(free_body, v, dq, dv0, got, got_v_star);
        const PairwiseContactDerivatives::Outcome outcome =
            pairwise.AddDerivative(cws_n, kinematics, dq, dv0, h, scratch, got);
        CHECK(outcome.one_sided == 0);
        CHECK(outcome.unmatched == 0);
        for (int i = 0; i < model.nv; ++i)
          if (!participating[i]) expected[i] = got[i] = 0.0;
        const double error = (got - expected).norm() / expected.norm();
        const double error_v_star =
            (got_v_star - expected_v_star).norm() / expected_v_star.norm();
        worst = std::max(worst, error);
        worst_v_star = std::max(worst_v_star, error_v_star);
        ++checked;
        INFO("step " << n << " trial " << trial << " |expected| " << expected.norm());
        CHECK(error < 1e-6);
        CHECK(error_v_star < 1e-6);
      }
    }
    if (test.ball) CHECK(ball_contacts > 0);  // the ball lands on the box within the run
    std::printf("fixed-axis pairwise rule, %s: %d directions, largest relative difference of "
                "dr %.2e, of dv* %.2e\n",
                test.name, checked, worst, worst_v_star);
  }
}

}  // namespace
}  // namespace csim::integrator
