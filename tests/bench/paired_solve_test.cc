// csim_bench --compare (bench/paired_solve.h): the same contact problems solved with two
// solver settings. What must hold for the comparison to mean anything: A's re-solves are
// the steps' own solves, B really runs with its own settings, and B's solutions meet the
// same tolerance as A's.

#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "bench/paired_solve.h"
#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "tests/support/scene_stepping.h"

namespace csim::bench {
namespace {

// Two columns of boxes and spheres, tilted and a little apart, dropped onto the floor.
constexpr const char* kPile = R"(csim: 1
name: paired_pile
settings:
  time_step: 0.002
  duration: 1.0
materials:
  object: {stiffness: 1.0e8, dissipation_time: 0.002, friction: 1.0}
world:
  geometry:
    - {shape: halfspace, material: object}
bodies:
  - {name: b0, density: 1000.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: object}], pose: {position: [0.0, 0.0, 0.07], rpy: [0.1, 0.05, 0.2]}}
  - {name: s1, density: 1000.0, geometry: [{shape: sphere, radius: 0.05, material: object}], pose: {position: [0.02, 0.01, 0.2]}}
  - {name: b2, density: 1000.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: object}], pose: {position: [-0.01, 0.03, 0.33], rpy: [0.3, -0.2, 0.1]}}
  - {name: s3, density: 1000.0, geometry: [{shape: sphere, radius: 0.05, material: object}], pose: {position: [0.03, -0.02, 0.46]}}
  - {name: b4, density: 1000.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: object}], pose: {position: [0.12, 0.0, 0.07], rpy: [-0.2, 0.1, 0.4]}}
  - {name: b5, density: 1000.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: object}], pose: {position: [0.13, 0.02, 0.2], rpy: [0.25, 0.2, -0.3]}}
  - {name: s6, density: 1000.0, geometry: [{shape: sphere, radius: 0.05, material: object}], pose: {position: [0.11, -0.01, 0.33]}}
)";

// Steps the pile for `steps` steps with A = the scene's solver settings, handing every
// step's problem to each comparison.
void RunPile(int steps, std::vector<PairedSolve*> comparisons) {
  const io::LoadedScene scene = io::LoadSceneFromText(kPile, "paired_pile.yaml", {});
  const auto compare = [&](int step, const integrator::ContactStepWorkspace& cws) {
    // B first on every other step: whichever solves first, A must reproduce the step.
    for (PairedSolve* p : comparisons)
      p->Compare(cws.problem, cws.warm_start.guess, cws.result, step % 2 == 0);
  };
  testing::StepSceneWithContact(scene, steps, compare);
}

solver::SapSolverParameters PileParameters() {
  return io::LoadSceneFromText(kPile, "paired_pile.yaml", {}).settings.solver;
}

}  // namespace

TEST_CASE("paired solves reproduce the steps and run B with its own settings", "[bench][paired]") {
  const solver::SapSolverParameters a = PileParameters();
  solver::SapSolverParameters plain = a;  // SAP as in the paper: no predicted stiction
  plain.predict_stiction = false;
  solver::SapSolverParameters starved = a;  // a budget the collapse cannot meet
  starved.max_iterations = 2;
  PairedSolve same(a, a, 1), against_plain(a, plain, 1), against_starved(a, starved, 1);
  RunPile(250, {&same, &against_plain, &against_starved});

  // A against itself: the same bits, whichever ran first.
  const PairedSummary& s = same.summary();
  REQUIRE(s.problems > 200);
  CHECK(s.a_reproduces_steps);
  CHECK(s.a.rounds == s.b.rounds);
  CHECK(s.a.work == s.b.work);
  CHECK(s.max_velocity_difference == 0.0);
  CHECK(s.a.failures == 0);

  // Plain SAP: another path (other Newton rounds) to the same minimum, certified alike.
  const PairedSummary& p = against_plain.summary();
  CHECK(p.a_reproduces_steps);
  CHECK(p.problems == s.problems);
  CHECK(p.b.rounds != p.a.rounds);
  CHECK(p.b.failures == 0);
  CHECK(p.a.max_momentum_error <= a.relative_tolerance);
  CHECK(p.b.max_momentum_error <= a.relative_tolerance);
  // Both minimise the same strongly convex cost to eps_r = 1e-6 of the momentum scale, on
  // bodies moving at up to ~3 m/s (0.46 m of fall): their velocities agree far below 1 mm/s.
  CHECK(p.max_velocity_difference > 0.0);
  CHECK(p.max_velocity_difference < 1e-3);

  // B failing is counted as B's, and leaves A's side alone.
  const PairedSummary& f = against_starved.summary();
  CHECK(f.b.failures > 0);
  CHECK(f.a.failures == 0);
  CHECK(f.a_reproduces_steps);
  CHECK(f.a.rounds == s.a.rounds);
}

TEST_CASE("only solver settings can be compared on the same problems", "[bench][paired]") {
  CHECK_NOTHROW(CheckComparedSettings({"settings.solver.predict_stiction=false",
                                       "settings.solver.prediction_iterations=1"}));
  CHECK_NOTHROW(CheckComparedSettings({}));
  // They change the problem (its regularization, the contacts found), not only its solve.
  CHECK_THROWS_AS(CheckComparedSettings({"settings.stiction_sigma=1e-2"}), std::invalid_argument);
  CHECK_THROWS_AS(CheckComparedSettings({"settings.contact_margin=0"}), std::invalid_argument);
  // The warm start is the step's: both settings start from the run's guess.
  CHECK_THROWS_AS(CheckComparedSettings({"settings.solver.warm_start=previous"}),
                  std::invalid_argument);
  CHECK_THROWS_AS(CheckComparedSettings({"settings.solver.=1"}), std::invalid_argument);
  CHECK_THROWS_WITH(CheckComparedSettings({"settings.solver.max_iterations=5", "gravity=0"}),
                    Catch::Contains("--compare gravity=0"));
}

}  // namespace csim::bench
