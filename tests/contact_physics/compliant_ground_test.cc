// docs/design/reference-cases.md §2, rigid body on compliant ground (after Drake's
// compliant_contact_manager test): a sphere (radius 0.02 m) on two prismatic joints, z then x, on a
// halfspace of stiffness 1e4 N/m (the body's material is rigid, so the series combination is
// exactly 1e4), g = 10 m/s^2, dt = 1e-3 s, mu = 0.5. The z slider carries a 1 kg carriage and the
// ball 9 kg: the contact carries N = 10 kg x 10 = 100 N, while the x joint moves only the
// ball (9 kg), so a horizontal load (tilted gravity g_x) is F = 9 g_x.
// The ball cannot rotate: it is exactly the point mass of docs/design/reference-cases.md §5, with
// W = diag(1/9, 0, 1/10) (x, y, z) and w = ||W||_F / 3.

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/integrator/contact_step.h"
#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

using Eigen::Vector3d;

constexpr double kMu = 0.5, kK = 1e4, kRadius = 0.02, kMassCarriage = 1.0, kMassBall = 9.0;
constexpr double kMass = kMassCarriage + kMassBall, kGz = 10.0, kDt = 1e-3;
constexpr double kWeight = kMass * kGz;  // 100 N

// tau_d = 0.05 s: omega_n = sqrt(k / 10 kg) = 31.6 rad/s, zeta = omega (dt + tau) / 2 ~ 0.8.
const char* kScene = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: DURATION, gravity: [GX, 0, -10]}
materials:
  ground: {stiffness: 1.0e4, dissipation_time: 0.05, friction: 0.5}
  rigid: {stiffness: .inf, dissipation_time: 0.05, friction: 0.5}
world: {geometry: [{shape: halfspace, material: ground}]}
bodies:
  - {name: carriage, mass: 1.0, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: ball, mass: 9.0, geometry: [{shape: sphere, radius: 0.02, material: rigid}]}
joints:
  - {name: z, type: prismatic, parent: world, child: carriage, axis: [0, 0, 1],
     initial: {q: [Z0], v: [0]}}
  - {name: x, type: prismatic, parent: carriage, child: ball, axis: [1, 0, 0]}
)";

std::string Scene(double gx, double z0, double duration) {
  std::string s = Fill(kScene, "DURATION", Num(duration));
  s = Fill(s, "GX", Num(gx));
  return Fill(s, "Z0", Num(z0));
}

// Equilibrium height of the ball's centre: radius minus the static penetration W / k.
constexpr double kZEquilibrium = kRadius - kWeight / kK;  // 0.01 m

TEST_CASE("compliant ground: equilibrium height r - W/k and contact force = -m g",
          "[contact-physics]") {
  SECTION("started at the analytic equilibrium, the state is an exact fixed point") {
    const io::LoadedScene scene = io::LoadSceneFromText(Scene(0, kZEquilibrium, 1), "t.yaml", {});
    const multibody::Model& model = scene.model;
    integrator::StepWorkspace ws =
        integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
    integrator::ContactStepWorkspace cws(model);
    multibody::State s{0.0, model.InitialQ(), model.InitialV()};
    const int ball = model.FindBody("ball");
    for (int n = 0; n < 50; ++n) {
      REQUIRE(integrator::StepWithContact(model, {0.0, 1.0, integrator::Gyroscopic::kImplicit}, {},
                                          {}, kDt, true, s, ws, cws)
                  .ok());
      REQUIRE(cws.contacts.size() == 1);
      const contact::ContactReport& c = cws.contacts[0];
      const Vector3d f = c.body_b == ball ? c.force_on_b_W : Vector3d(-c.force_on_b_W);
      // Drake's test uses 1e-15 relative; the impulse dt k (-phi0) with phi0 = z - r
      // computed in double carries ~1e-16 / 1e-2 relative round-off: 1e-12.
      CHECK(f.z() == Approx(kWeight).epsilon(1e-12));
      CHECK(f.head<2>().norm() < 1e-12 * kWeight);
      CHECK(cws.stats.iterations == 0);  // the warm start v0 = 0 is optimal
    }
    CHECK(s.q[0] == Approx(kZEquilibrium).epsilon(1e-12));
  }
  SECTION("dropped from 5 mm above contact, it settles there") {
    const SceneRun run = RunScene(Scene(0, kRadius + 0.005, 1.5));
    const sim::Row& last = run.rows.back();
    // zeta ~ 0.8 at 31.6 rad/s: after 1.5 s the transient is below e^-35.
    Report("compliant ground: equilibrium z", last.q[0], kZEquilibrium);
    // 1e-6 relative of 1e-2 m: the resting impulse is within the solver's eps_r = 1e-6,
    // so the penetration (1e-2 m) is too.
    CHECK(last.q[0] == Approx(kZEquilibrium).epsilon(1e-6));
    const Vector3d f = TotalForceOn(last, run.Body("ball"));
    Report("compliant ground: contact force z", f.z(), kWeight);
    CHECK(f.z() == Approx(kWeight).epsilon(1e-6));
    CHECK(f.head<2>().norm() < 1e-9);
  }
}

TEST_CASE("compliant ground: stiction under a push of 0.1 mu N holds with force balance",
          "[contact-physics]") {
  // F = 0.1 mu N = 5 N applied to the ball through g_x = F / 9 kg.
  const double F = 0.1 * kMu * kWeight, gx = F / kMassBall;
  const SceneRun run = RunScene(Scene(gx, kZEquilibrium, 0.05));  // 50 steps, as Drake
  const int ball = run.Body("ball");
  const sim::Row& last = run.rows.back();
  const Vector3d f = TotalForceOn(last, ball);
  // Force balance of the ball: contact force = -(applied + weight) = (-F, 0, +W) (the
  // carriage's x load goes into its joint). Drake's tolerance 1e-5 relative.
  Report("stiction: contact force x", f.x(), -F);
  CHECK(f.x() == Approx(-F).epsilon(1e-5));
  CHECK(f.z() == Approx(kWeight).epsilon(1e-5));
  // Slip: stiction creep v_t = R_t dt F = sigma w dt F (docs/design/reference-cases.md §5.3) for
  // this point mass, w = ||diag(1/9, 0, 1/10)||_F / 3; Drake's bound is v <= sigma mu dt g.
  const double w = std::sqrt(1.0 / (kMassBall * kMassBall) + 1.0 / (kMass * kMass)) / 3;
  const double v_creep = 1e-3 * w * kDt * F;
  REQUIRE(last.contacts.size() == 1);
  Report("stiction: creep speed", last.v[1], v_creep);
  // Exact in steady creep, reached within a step (the creep "damper" 1/(R_t dt) acts on
  // 9 kg with time constant ~ sigma dt); 1e-5: eps_r = 1e-6 with a 10x margin.
  CHECK(last.v[1] == Approx(v_creep).epsilon(1e-5));
  CHECK(last.contacts[0].slip_speed == Approx(v_creep).epsilon(1e-5));
  CHECK(last.v[1] <= 1e-3 * kMu * kDt * kGz);
}

TEST_CASE("compliant ground: above the friction limit it slides on the cone at the analytic rate",
          "[contact-physics]") {
  // F = (mu + 0.05) N = 55 N on the 9 kg ball: a = (F - mu N) / 9 kg = 5/9 m/s^2.
  const double F = (kMu + 0.05) * kWeight, gx = F / kMassBall;
  const double a_expected = (F - kMu * kWeight) / kMassBall;
  const SceneRun run = RunScene(Scene(gx, kZEquilibrium, 0.8));
  const int ball = run.Body("ball");
  // The cone after 10 steps onwards, to round-off (Drake: tolerance 0 for SAP; here a few
  // ulps from rotating the impulse to world and splitting it again).
  for (size_t i = 10; i < run.rows.size(); ++i) {
    REQUIRE(run.rows[i].contacts.size() == 1);
    const Vector3d f = ForceOn(run.rows[i].contacts[0], ball);
    CHECK(std::abs(f.x()) == Approx(kMu * f.z()).epsilon(1e-12));
  }
  // Acceleration over [0.5, 0.8] s. A sliding body floats up at the gliding rate
  // (dt + tau_d) mu a = 0.014 m/s (docs/design/sap-problem.md §5): once a is constant that is a
  // constant vertical speed and the normal force is W again. The onset of this ramp excites the
  // vertical oscillator (a few % of W), which decays as e^(-zeta omega t), zeta omega ~
  // 25 /s: below 1e-6 of W after 0.5 s, while it is still visible early in the slide. So
  // 1e-5: eps_r = 1e-6 with a 10x margin.
  const sim::Row& mid = run.rows[500];
  const sim::Row& last = run.rows.back();
  const double a = (last.v[1] - mid.v[1]) / (last.time - mid.time);
  Report("sliding: acceleration", a, a_expected);
  CHECK(a == Approx(a_expected).epsilon(1e-5));
}

}  // namespace
}  // namespace csim::contact_physics
