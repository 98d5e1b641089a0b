// The builder's stiction memory (contact_problem_builder.h): contacts that ended a step in
// stiction are offered to the next step's solve as was_stuck, matched by geometry
// pair and manifold point; sliding contacts are not. The same with the Hunt & Crossley
// models, where stuck means a slip within eps_s.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_hunt_crossley_constraint.h"

namespace csim::contact {
namespace {

// 1 kg, 10 cm boxes on the ground (4 corner contacts each), 1 m apart along y, box k with
// initial horizontal speed vx[k].
std::string BoxesScene(const std::vector<double>& vx, const std::string& model = "sap") {
  std::string scene = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0, contact_model: )" + model + R"(}
materials:
  ground: {stiffness: 1.0e6, dissipation_time: 0.01, friction: 0.3}
world: {geometry: [{shape: halfspace, material: ground}]}
bodies:
)";
  for (size_t b = 0; b < vx.size(); ++b) {
    scene += "  - name: box" + std::to_string(b) + R"(
    mass: 1.0
    geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: ground}]
    pose: {position: [0, )" + std::to_string(b) + R"(, 0.0499]}
    velocity: {linear: [)" + std::to_string(vx[b]) + R"(, 0, 0]}
)";
  }
  return scene;
}

// was_stuck of every contact constraint of the last Build.
std::vector<bool> Predictions(const integrator::ContactStepWorkspace& cws) {
  std::vector<bool> out;
  for (int k = 0; k < cws.problem.num_constraints(); ++k) {
    const solver::Constraint* c = cws.problem.entry(k).constraint;
    if (const auto* cone = dynamic_cast<const solver::SapFrictionConeConstraint*>(c))
      out.push_back(cone->parameters().was_stuck);
    if (const auto* hc = dynamic_cast<const solver::SapHuntCrossleyConstraint*>(c))
      out.push_back(hc->parameters().was_stuck);
  }
  return out;
}

std::vector<bool> StepTwice(const std::string& text) {
  const io::LoadedScene scene = io::LoadSceneFromText(text, "box.yaml", {});
  const multibody::Model& model = scene.model;
  integrator::StepWorkspace ws =
      integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(model);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  for (int i = 0; i < 2; ++i)
    REQUIRE(integrator::StepWithContact(model, {0.0, 1.0, integrator::Gyroscopic::kImplicit}, {},
                                        {}, 1e-3, false, s, ws, cws)
                .ok());
  return Predictions(cws);
}

TEST_CASE("contacts in stiction are predicted stuck at the next step", "[contact]") {
  SECTION("a box at rest: its four corners stick and are predicted stuck") {
    const std::vector<bool> p = StepTwice(BoxesScene({0.0}));
    REQUIRE(p.size() == 4);
    for (bool b : p) CHECK(b);
  }
  SECTION("a box sliding at 1 m/s: no corner is predicted stuck") {
    const std::vector<bool> p = StepTwice(BoxesScene({1.0}));
    REQUIRE(p.size() == 4);
    for (bool b : p) CHECK_FALSE(b);
  }
  SECTION("resting, sliding and resting boxes: each contact keeps its own memory") {
    // Contacts come pair by pair (ground-box0, ground-box1, ground-box2), four corners each;
    // a memory matched to the wrong contact shifts the pattern.
    const std::vector<bool> p = StepTwice(BoxesScene({0.0, 1.0, 0.0}));
    REQUIRE(p.size() == 12);
    for (int k = 0; k < 12; ++k) CHECK(p[k] == (k < 4 || k >= 8));
  }
}

TEST_CASE("Hunt & Crossley contacts with slip within eps_s are predicted stuck", "[contact]") {
  // The lagged model's friction is mu n0 u_t / sqrt(|u_t|^2 + v_s^2): a box at rest creeps
  // at far less than v_s = 1e-4 m/s, one launched at 1 m/s slides.
  for (const char* model : {"lagged", "similar"}) {
    INFO(model);
    const std::vector<bool> p = StepTwice(BoxesScene({0.0, 1.0, 0.0}, model));
    REQUIRE(p.size() == 12);
    for (int k = 0; k < 12; ++k) CHECK(p[k] == (k < 4 || k >= 8));
  }
}

}  // namespace
}  // namespace csim::contact
