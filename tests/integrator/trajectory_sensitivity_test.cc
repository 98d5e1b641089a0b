// Forward sensitivities of whole trajectories (docs/design/sensitivities.md §6-§8):
//   (a) a ballistic body: S_N against its closed form;
//   (b) Taylor tests: |x_N(p + h d) - x_N(p) - h S_N d| falls as h^2, h = 1e-2 ... 1e-5, and
//       to 1e-6 (four decades) for the sliding box, the bouncing sphere and the rolling
//       sphere, on scenes whose contact regions are the same at every h (checked);
//   (c) one step against central differences of full steps (solver tolerance 1e-13);
//   (d) the columns differenced on 1, 2 and 3 threads, and from the step's own problem, give the same bits;
// and a warmed-up Advance does not allocate (on one thread and on two).

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/contact/collision_setup.h"
#include "engine/integrator/contact_step.h"
#include "engine/integrator/trajectory_sensitivity.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/simulate.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_scenes.h"
#include "tests/support/tight_solver.h"

namespace csim::integrator {
namespace {

using contact::ContactModel;
using Kind = SensitivityParameter::Kind;
using solver::ContactParameter;

const ThetaParameters kSymplectic{0.0, 1.0, Gyroscopic::kImplicit};
// theta > 0: the general rule (the whole assembly differenced) even on lone free bodies.
const ThetaParameters kMidpoint{0.5, 0.5, Gyroscopic::kImplicit};


// A scene and how it is stepped.
struct Scenario {
  std::string yaml;
  ContactModel contact_model = ContactModel::kSap;
  ThetaParameters theta = kSymplectic;
  double dt = 1e-3;
  int steps = 50;
  // eps_a of the solves [sqrt(J)], over TightSolverParameters' 0: for islands whose momenta
  // are so small that eps_r alone cannot be met above their rounding.
  double absolute_tolerance = 0.0;
};

// The end of a run: x_N, the regions of its contacts with an impulse at every step (the
// pattern the Taylor test holds fixed), and, with sensitivities, S_N and its flags.
struct RunEnd {
  multibody::State x;
  std::vector<int> pattern;
  Eigen::MatrixXd dq, dv;
  int one_sided = 0, unmatched = 0, approximate = 0, pairwise = 0;
  double min_kink = 1.0;
};

RunEnd Run(const Scenario& s, const multibody::State* start,
           const std::vector<SensitivityParameter>* parameters) {
  const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  contact::ContactParameters cp = sim::ContactParametersFor(scene.settings);
  cp.contact_model = s.contact_model;
  cp.position_theta = s.theta.theta_q;
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  solver::SapSolverParameters solver_parameters = testing::TightSolverParameters();
  solver_parameters.absolute_tolerance = s.absolute_tolerance;
  cws.solver.set_parameters(solver_parameters);
  RunEnd end;
  end.x = start != nullptr ? *start : multibody::State{0.0, model.InitialQ(), model.InitialV()};
  std::unique_ptr<TrajectorySensitivity> sensitivity;
  if (parameters != nullptr) sensitivity = std::make_unique<TrajectorySensitivity>(model, *parameters);
  for (int n = 0; n < s.steps; ++n) {
    const multibody::State x0 = end.x;
    const StepStatus status = StepWithContact(model, s.theta, {}, cp, s.dt, false, end.x, ws, cws);
    INFO(status.reason);
    REQUIRE(status.ok());
    if (sensitivity != nullptr) {
      REQUIRE(sensitivity->Advance(model, s.theta, {}, cp, s.dt, x0, end.x).ok());
      end.min_kink = std::min(end.min_kink, sensitivity->last_step().min_kink_distance);
    }
    solver::ContactParameterDerivatives d;
    for (int k = 0; k < cws.problem.num_constraints(); ++k)
      if (solver::CalcContactParameterDerivativesOf(cws.problem, k, cws.result.v_c.data(), &d) &&
          d.region != solver::ContactRegion::kNone)
        // Hunt & Crossley: only the normal clamp is a kink (its stiction/sliding line is
        // smooth), so its contacts with an impulse count as one piece.
        end.pattern.push_back(n * 16 + (s.contact_model == ContactModel::kSap
                                            ? static_cast<int>(d.region)
                                            : 1));
  }
  if (sensitivity != nullptr) {
    end.dq = sensitivity->dq();
    end.dv = sensitivity->dv();
    end.one_sided = sensitivity->steps_one_sided();
    end.unmatched = sensitivity->steps_unmatched();
    end.approximate = sensitivity->steps_approximate_geometry();
    end.pairwise = sensitivity->steps_pairwise();
  }
  return end;
}

// x_a (-) x_b: the configuration's tangent difference and the velocities' difference.
Eigen::VectorXd StateDifference(const multibody::Model& model, const multibody::State& a,
                                const multibody::State& b) {
  Eigen::VectorXd d(2 * model.nv);
  multibody::ConfigurationDifference(model, a.q, b.q, d.head(model.nv));
  d.tail(model.nv) = a.v - b.v;
  return d;
}

double Slope(double h0, double e0, double h1, double e1) {
  return std::log(e0 / e1) / std::log(h0 / h1);
}

// The h of the Taylor tests: three decades, or four, to 1e-6.
const std::vector<double> kThreeDecades{1e-2, 1e-3, 1e-4, 1e-5};
const std::vector<double> kFourDecades{1e-2, 1e-3, 1e-4, 1e-5, 1e-6};

// The runs' rounding floor relative to the state: e(h) of the four-decade runs below at
// h = 1e-9, where the remainder is negligible, is below 5e-14, their states |x_N| 1 ... 20.
constexpr double kRounding = 5e-14;

// The Taylor test along d: `perturbed(h)` runs the scene at p + h d; s_d = S_N d (2 nv).
// Returns the slopes between consecutive h and checks that every run has the nominal's
// region pattern. Over four decades the remainder at the smallest h must stand at least 100
// times above the rounding floor, kRounding |x_N| (its slope is rounding otherwise): such a
// case lengthens its direction d until it does (the remainder grows as |d|^2 h^2, the
// rounding does not).
template <class Perturbed>
std::vector<double> TaylorSlopes(const multibody::Model& model, const RunEnd& nominal,
                                 const Eigen::VectorXd& s_d, Perturbed&& perturbed,
                                 const char* name,
                                 const std::vector<double>& hs = kThreeDecades) {
  std::vector<double> errors;
  for (const double h : hs) {
    const RunEnd end = perturbed(h);
    INFO(name << ", h = " << h);
    REQUIRE(end.pattern == nominal.pattern);
    errors.push_back((StateDifference(model, end.x, nominal.x) - h * s_d).norm());
  }
  std::vector<double> slopes;
  for (size_t i = 0; i + 1 < hs.size(); ++i)
    slopes.push_back(Slope(hs[i], errors[i], hs[i + 1], errors[i + 1]));
  std::printf("taylor %s: |S_N d| %.3e, errors", name, s_d.norm());
  for (const double e : errors) std::printf(" %.2e", e);
  std::printf(", slopes");
  for (const double s : slopes) std::printf(" %.3f", s);
  const double floor =
      kRounding * std::sqrt(nominal.x.q.squaredNorm() + nominal.x.v.squaredNorm());
  std::printf(", e(%.0e) / floor %.0f\n", hs.back(), errors.back() / floor);
  for (const double s : slopes) CHECK(std::abs(s - 2.0) < 0.2);
  if (hs.size() > kThreeDecades.size()) {
    INFO(name << ": e(" << hs.back() << ") = " << errors.back() << ", floor " << floor);
    CHECK(errors.back() >= 100 * floor);
  }
  return slopes;
}

Eigen::VectorXd Stacked(const RunEnd& end, const Eigen::VectorXd& d) {
  Eigen::VectorXd s(end.dq.rows() + end.dv.rows());
  s << end.dq * d, end.dv * d;
  return s;
}

// ---- Scenes ----

// A sphere (m = 1 kg, r = 0.05 m) on the ground with compliant contact, launched along x.
std::string SphereScene(double friction, double dissipation_time, double hunt_crossley,
                        const std::string& pose_and_velocity) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-3}
materials:
  default: {stiffness: 1.0e5, dissipation_time: %.17g, hunt_crossley: %.17g, friction: %.17g}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: ball, mass: 1.0, geometry: [{shape: sphere, radius: 0.05}], %s}
)",
                dissipation_time, hunt_crossley, friction, pose_and_velocity.c_str());
  return text;
}

const char* kSliding =
    "pose: {position: [0, 0, 0.0499]}, velocity: {linear: [1.0, 0, 0]}";
const char* kRolling =
    "pose: {position: [0, 0, 0.0499]}, velocity: {linear: [1.0, 0, 0], angular: [0, 20.0, 0]}";
const char* kDropping =
    "pose: {position: [0, 0, 0.0505]}, velocity: {linear: [0.2, 0, -1.0]}";

// A double pendulum of two capsule links (no contact geometry besides their own, which the
// joint filter keeps apart), released from `angle` at the first hinge.
std::string PendulumScene(double angle) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-3}
bodies:
  - {name: l0, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2, pose: {position: [0, 0, -0.15]}}]}
  - {name: l1, mass: 0.5, geometry: [{shape: capsule, radius: 0.02, length: 0.2, pose: {position: [0, 0, -0.15]}}]}
joints:
  - {name: j0, type: revolute, parent: world, child: l0, axis: [0, 1, 0], initial: {q: [%.17g]}}
  - {name: j1, type: revolute, parent: l0, child: l1, pose: {position: [0, 0, -0.3]},
     axis: [0, 1, 0], initial: {q: [0.3]}}
)",
                angle);
  return text;
}

// ---- (a) Ballistic ----

TEST_CASE("trajectory sensitivity: a ballistic body's S_N is the closed form",
          "[integrator][sensitivity]") {
  // Free flight (no ground), symplectic Euler: v_N = v0 + N dt g, p_N = p0 + dt sum v_n;
  // with omega0 = 0 a sphere keeps omega, and the orientation's tangent moves by dt domega
  // per step. So dx_N/dx0 = [[I, N dt I], [0, I]] exactly, in the tangent coordinates.
  Scenario s;
  s.yaml = R"(
csim: 1
settings: {time_step: 1.0e-2}
bodies:
  - {name: ball, mass: 2.0, geometry: [{shape: sphere, radius: 0.1}],
     pose: {position: [0, 0, 10.0]}, velocity: {linear: [1.0, -0.5, 2.0]}}
)";
  s.dt = 1e-2;
  s.steps = 50;
  std::vector<SensitivityParameter> parameters;
  for (int i = 0; i < 6; ++i) parameters.push_back({Kind::kInitialPosition, {}, i});
  for (int i = 0; i < 6; ++i) parameters.push_back({Kind::kInitialVelocity, {}, i});
  const RunEnd end = Run(s, nullptr, &parameters);
  Eigen::MatrixXd expected_dq(6, 12), expected_dv(6, 12);
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(6, 6);
  expected_dq << I, s.steps * s.dt * I;
  expected_dv << Eigen::MatrixXd::Zero(6, 6), I;
  const double dq_error = (end.dq - expected_dq).cwiseAbs().maxCoeff();
  const double dv_error = (end.dv - expected_dv).cwiseAbs().maxCoeff();
  std::printf("ballistic: max |S_N - closed form| dq %.2e, dv %.2e\n", dq_error, dv_error);
  CHECK(dq_error < 1e-9);
  CHECK(dv_error < 1e-9);
  CHECK(end.one_sided == 0);
  CHECK(end.unmatched == 0);
}

TEST_CASE("trajectory sensitivity: one pendulum step's state derivatives are the closed form",
          "[integrator][sensitivity]") {
  // A pendulum of mass m at l below the hinge (inertia I_c about its com), symplectic Euler:
  // v1 = v0 - dt m g l sin(q0) / I_p, I_p = I_c + m l^2, q1 = q0 + dt v1. So dv1/dq0 =
  // -dt m g l cos(q0) / I_p, dv1/dv0 = 1, dq1/dq0 = 1 + dt dv1/dq0, dq1/dv0 = dt: the
  // assembly's central difference of v*(q0) against the analytic derivative.
  const double m = 2.0, l = 0.4, I_c = 0.01, q0 = 0.7, dt = 1e-3, g = 9.81;
  Scenario s;
  s.dt = dt;
  s.steps = 1;
  s.yaml = R"(
csim: 1
settings: {time_step: 1.0e-3}
bodies:
  - {name: bob, mass: 2.0, com: [0, 0, -0.4], inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
joints:
  - {name: hinge, type: revolute, parent: world, child: bob, axis: [0, 1, 0], initial: {q: [0.7]}}
)";
  const std::vector<SensitivityParameter> parameters{{Kind::kInitialPosition, {}, 0},
                                                     {Kind::kInitialVelocity, {}, 0}};
  const RunEnd end = Run(s, nullptr, &parameters);
  const double I_p = I_c + m * l * l;
  const double dv_dq = -dt * m * g * l * std::cos(q0) / I_p;
  const double errors[] = {std::abs(end.dv(0, 0) - dv_dq) / std::abs(dv_dq),
                           std::abs(end.dv(0, 1) - 1.0), std::abs(end.dq(0, 0) - (1 + dt * dv_dq)),
                           std::abs(end.dq(0, 1) - dt) / dt};
  std::printf("pendulum step: relative errors dv/dq0 %.2e, dv/dv0 %.2e, dq/dq0 %.2e, dq/dv0 %.2e\n",
              errors[0], errors[1], errors[2], errors[3]);
  for (const double e : errors) CHECK(e < 1e-9);
}

// ---- (b) Taylor tests ----

TEST_CASE("trajectory sensitivity: Taylor test, a sphere sliding on the ground, d/dmu",
          "[integrator][sensitivity]") {
  // It slides for all 60 steps (it would roll after 2 v0 / (7 mu g) = 0.097 s).
  const double mu = 0.3, tau = 1e-3;
  Scenario s;
  s.steps = 60;
  s.yaml = SphereScene(mu, tau, 0.0, kSliding);
  const std::vector<SensitivityParameter> parameters{{Kind::kContact, ContactParameter::kMu, -1}};
  const RunEnd nominal = Run(s, nullptr, &parameters);
  const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
  const Eigen::VectorXd s_d = Stacked(nominal, Eigen::VectorXd::Constant(1, mu));
  REQUIRE(s_d.norm() > 1e-3);
  CHECK(nominal.approximate == 0);
  CHECK(nominal.unmatched == 0);
  TaylorSlopes(scene.model, nominal, s_d, [&](double h) {
    Scenario p = s;
    p.yaml = SphereScene(mu * (1 + h), tau, 0.0, kSliding);
    return Run(p, nullptr, nullptr);
  }, "sliding sphere d/dmu");
}

// The near-rigid box of scenes/sliding_box.yaml (1 kg, 10 cm edge, on its four corners;
// stiffness .inf, tau_d = 0, dt = 1e-2 s, launched at 1 m/s along x with its bottom face
// dt mu v0 = 5 mm above the ground, contact_margin 2 cm), with friction `friction`.
std::string SlidingBoxScene(double friction) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-2, contact_margin: 0.02}
materials:
  default: {stiffness: .inf, dissipation_time: 0.0, friction: %.17g}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: box, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}],
     pose: {position: [0, 0, 0.055]}, velocity: {linear: [1.0, 0, 0]}}
)",
                friction);
  return text;
}

TEST_CASE("trajectory sensitivity: Taylor test, a box sliding on its four corners, d/dmu and "
          "initial velocity", "[integrator][sensitivity]") {
  // The box of the run-level test (tests/sim/sensitivity_run_test.cc) for 15 steps, 0.15 s:
  // all four corners slide at every step and every h (it stops at v0 / (mu g) = 0.2 s).
  // Near-rigid rather than compliant: a compliant box (k = 1e5 N/m, tau_d = 1e-3 s,
  // dt = 1e-3 s, at rest on its corners' static overlap) changes its corners' pattern at
  // h = 1e-2 already along d = mu. Its corners are differenced through the narrow phase
  // (approximate geometry, exact while the corners hold the contacts). Four decades, the
  // floor 5e-14 |x_N| = 5.2e-14:
  //  - d/dmu along 20 mu. The run is nearly linear in mu (v_x = v0 - mu g t; the sinking
  //    v_z = -dt mu^2 g is not): a unit direction's remainder, 0.044 h^2, would be 4e-14 at
  //    h = 1e-6, at the floor; 20 mu puts it at 1.8e-11, 340 floors (at h = 1e-2, mu = 0.6:
  //    it stops at 0.17 s, after the run). Along -20 mu the pattern changes at h = 1e-2.
  //  - the initial velocity along (d v_x, d v_y) = 10 (1, 1) m/s. Along x alone the run is
  //    nearly linear in v0 (x = v0 t - mu g t^2 / 2, the glide gap dt mu |v_t|: a unit
  //    direction's remainder is 3.4e-7 h^2, below the floor over most of the range); the
  //    sideways part turns the slide, quadratically: e(1e-6) = 8.1e-11, 1600 floors (at
  //    h = 1e-2, v0 = (1.1, 0.1) m/s). Along 30 (1, 1) the pattern changes at h = 1e-2.
  const double mu = 0.5;
  Scenario s;
  s.dt = 1e-2;
  s.steps = 15;
  s.yaml = SlidingBoxScene(mu);
  const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  // The free joint: v = [angular; linear].
  const std::vector<SensitivityParameter> parameters{{Kind::kContact, ContactParameter::kMu, -1},
                                                     {Kind::kInitialVelocity, {}, 3},
                                                     {Kind::kInitialVelocity, {}, 4}};
  const RunEnd nominal = Run(s, nullptr, &parameters);
  REQUIRE(nominal.pattern.size() == 4u * s.steps);  // four corners with an impulse a step
  REQUIRE(nominal.x.v[3] > 0.2);                    // still sliding
  CHECK(nominal.approximate == s.steps);
  CHECK(nominal.unmatched == 0);
  const double friction_scale = 20.0, velocity_scale = 10.0;
  TaylorSlopes(model, nominal, Stacked(nominal, Eigen::Vector3d(friction_scale * mu, 0, 0)),
               [&](double h) {
                 Scenario p = s;
                 p.yaml = SlidingBoxScene(mu * (1 + friction_scale * h));
                 return Run(p, nullptr, nullptr);
               },
               "sliding box d/dmu, direction 20 mu", kFourDecades);
  TaylorSlopes(model, nominal,
               Stacked(nominal, Eigen::Vector3d(0, velocity_scale, velocity_scale)),
               [&](double h) {
                 multibody::State start{0.0, model.InitialQ(), model.InitialV()};
                 start.v[3] += h * velocity_scale;
                 start.v[4] += h * velocity_scale;
                 return Run(s, &start, nullptr);
               },
               "sliding box, initial velocity, direction 10 (1, 1) m/s", kFourDecades);
}

TEST_CASE("trajectory sensitivity: Taylor test, a bouncing sphere, d/dtau_d (sap) and "
          "d/dhunt_crossley (lagged)", "[integrator][sensitivity]") {
  // Dropped onto the ground at 1 m/s, sliding at 0.2 m/s: approach, impact and release
  // all within the 40 steps. Four decades, h = 1e-2 ... 1e-6, along lengthened directions
  // (p moves by s h p): with s = 1 the remainder at 1e-6 would be 8e-14 (SAP) and 9e-13
  // (lagged), against a floor of 1.5e-13 (|x_N| = 3). SAP: s = 20, e(1e-6) = 3.3e-11 (the
  // pattern holds at h = 1e-2 up to s = 25). Lagged: the window is narrow. The remainder
  // reaches 100 floors from |s| = 4.1 on; with s > 0 its slope at h = 1e-2 leaves 2 +- 0.2
  // from s = 3.5 (1.78: higher-order terms); with s < 0 it stays within (2.09 at
  // s = -4.5), but from s = -5 the release moves by a step at h = 1e-2 (the pattern
  // changes). A longer run reaches the second impact, whose step moves with d at h = 1e-2
  // as well. So s = -4.5: 120 floors; at h = 1e-2 d moves by 4.5 %, and the pattern changes
  // between 4.9 % and 5 %.
  for (const ContactModel model : {ContactModel::kSap, ContactModel::kLagged}) {
    const bool sap = model == ContactModel::kSap;
    const double mu = 0.2, tau = 2e-3, d = 2.0;
    const double scale = sap ? 20.0 : -4.5;
    Scenario s;
    s.contact_model = model;
    s.steps = 40;
    s.yaml = SphereScene(mu, tau, d, kDropping);
    const std::vector<SensitivityParameter> parameters{
        {Kind::kContact, sap ? ContactParameter::kDissipationTime : ContactParameter::kHuntCrossley,
         -1}};
    const RunEnd nominal = Run(s, nullptr, &parameters);
    const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
    const double p = sap ? tau : d;
    const Eigen::VectorXd s_d = Stacked(nominal, Eigen::VectorXd::Constant(1, scale * p));
    REQUIRE(s_d.norm() > 1e-3);
    CHECK(nominal.unmatched == 0);
    std::printf("bouncing sphere %s: min kink distance %.2e, one-sided steps %d\n",
                sap ? "sap" : "lagged", nominal.min_kink, nominal.one_sided);
    TaylorSlopes(scene.model, nominal, s_d, [&](double h) {
      Scenario q = s;
      q.yaml = sap ? SphereScene(mu, tau * (1 + scale * h), d, kDropping)
                   : SphereScene(mu, tau, d * (1 + scale * h), kDropping);
      return Run(q, nullptr, nullptr);
    }, sap ? "bouncing sphere d/dtau_d (sap), direction 20 tau_d"
           : "bouncing sphere d/dhunt_crossley (lagged), direction -4.5 d", kFourDecades);
  }
}

// A sphere of material `ball` on a floor of material `floor`: the combination weighs the
// two (k 1e5 and 2e5 N/m in series, tau_d and friction mixed).
std::string TwoMaterialScene(double ball_friction, double ball_dissipation,
                             const std::string& pose_and_velocity) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-3}
materials:
  ball: {stiffness: 1.5e5, dissipation_time: %.17g, friction: %.17g}
  floor: {stiffness: 3.0e5, dissipation_time: 2.0e-3, friction: 0.6}
world:
  geometry: [{shape: halfspace, material: floor}]
bodies:
  - {name: ball, mass: 1.0, geometry: [{shape: sphere, radius: 0.05, material: ball}], %s}
)",
                ball_dissipation, ball_friction, pose_and_velocity.c_str());
  return text;
}

TEST_CASE("trajectory sensitivity: Taylor test, one material's friction and dissipation time",
          "[integrator][sensitivity]") {
  // Material columns: the contact's combined mu and tau_d move by the combination's
  // derivative in the ball's values. Friction on a sphere sliding at 0.5 m/s (combined
  // mu = 0.4: it slides for the 30 steps, rolling only after 2 v0 / (7 mu g) = 0.036 s), the
  // dissipation time on the dropped one (which sticks soon after its impact: its mu column
  // would be 0 there, stiction).
  const double mu = 0.3, tau = 1e-3;
  const io::LoadedScene scene =
      io::LoadSceneFromText(TwoMaterialScene(mu, tau, kDropping), "scene.yaml", {});
  int ball = -1, floor = -1;
  for (int m = 0; m < static_cast<int>(scene.model.materials.size()); ++m)
    (scene.model.materials[m].name == "ball" ? ball : floor) = m;
  REQUIRE(ball >= 0);
  REQUIRE(floor >= 0);
  const std::vector<SensitivityParameter> parameters{
      {Kind::kMaterial, ContactParameter::kMu, ball},
      {Kind::kMaterial, ContactParameter::kDissipationTime, ball},
      {Kind::kMaterial, ContactParameter::kMu, floor}};
  const char* kSlow = "pose: {position: [0, 0, 0.0499]}, velocity: {linear: [0.5, 0, 0]}";
  for (const char* start : {kSlow, kDropping}) {
    const bool sliding = start == kSlow;
    Scenario s;
    s.steps = sliding ? 30 : 40;
    s.yaml = TwoMaterialScene(mu, tau, start);
    const RunEnd nominal = Run(s, nullptr, &parameters);
    const Eigen::VectorXd s_d =
        Stacked(nominal, sliding ? Eigen::Vector3d(mu, 0, 0) : Eigen::Vector3d(0, tau, 0));
    REQUIRE(s_d.norm() > 1e-3);
    TaylorSlopes(scene.model, nominal, s_d, [&](double h) {
      Scenario p = s;
      p.yaml = sliding ? TwoMaterialScene(mu * (1 + h), tau, start)
                       : TwoMaterialScene(mu, tau * (1 + h), start);
      return Run(p, nullptr, nullptr);
    }, sliding ? "sliding sphere, two materials, d/dmu_ball"
               : "bouncing sphere, two materials, d/dtau_d,ball");
    // The floor's friction 0.6 against the ball's 0.3: d mu / d mu_floor = 2 0.3^2 / 0.9^2,
    // d mu / d mu_ball = 2 0.6^2 / 0.9^2, so the floor's column is the ball's times 1/4.
    CHECK((nominal.dq.col(2) - 0.25 * nominal.dq.col(0)).norm() <=
          1e-9 * std::max(1.0, nominal.dq.col(0).norm()));
    CHECK((nominal.dv.col(2) - 0.25 * nominal.dv.col(0)).norm() <=
          1e-9 * std::max(1.0, nominal.dv.col(0).norm()));
  }
}

// A compliant hydroelastic ball (material `ball`) dropped on a compliant slab (material
// `slab`, three times its modulus): each polygon's dissipation weighs the two materials' by
// the pressure fields' slopes (hydroelastic.md §5), so each material's column is a share.
std::string HydroelasticScene(double tau_ball, double d_ball) {
  char text[1536];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-3}
materials:
  ball: {hydroelastic_modulus: 1.0e5, dissipation_time: %.17g, hunt_crossley: %.17g, friction: 0.3}
  slab: {hydroelastic_modulus: 3.0e5, dissipation_time: 5.0e-3, hunt_crossley: 8.0, friction: 0.3}
world:
  geometry:
    - {shape: box, size: [1, 1, 0.1], pose: {position: [0, 0, -0.05]}, material: slab,
       hydroelastic: {compliance: compliant}}
bodies:
  - {name: ball, mass: 0.5, pose: {position: [0, 0, 0.0498]}, velocity: {linear: [0.1, 0, -0.4]},
     geometry: [{shape: sphere, radius: 0.05, material: ball,
                 hydroelastic: {compliance: compliant, resolution_hint: 0.02}}]}
)",
                tau_ball, d_ball);
  return text;
}

TEST_CASE("trajectory sensitivity: Taylor test, a hydroelastic ball, a material's dissipation",
          "[integrator][sensitivity]") {
  // The ball's dissipation_time (SAP) and hunt_crossley (lagged) columns on its polygons:
  // the combined value moves by the slope weight of the ball's side, not 0.
  const double tau = 2e-3, d = 3.0;
  const io::LoadedScene scene = io::LoadSceneFromText(HydroelasticScene(tau, d), "scene.yaml", {});
  int ball = -1;
  for (int m = 0; m < static_cast<int>(scene.model.materials.size()); ++m)
    if (scene.model.materials[m].name == "ball") ball = m;
  REQUIRE(ball >= 0);
  for (const ContactModel model : {ContactModel::kSap, ContactModel::kLagged}) {
    const bool sap = model == ContactModel::kSap;
    const std::vector<SensitivityParameter> parameters{
        {Kind::kMaterial, sap ? ContactParameter::kDissipationTime : ContactParameter::kHuntCrossley,
         ball}};
    Scenario s;
    s.contact_model = model;
    s.steps = 30;
    s.yaml = HydroelasticScene(tau, d);
    const RunEnd nominal = Run(s, nullptr, &parameters);
    REQUIRE(nominal.approximate > 0);  // polygons: flagged, as every hydroelastic step
    const Eigen::VectorXd s_d = Stacked(nominal, Eigen::Matrix<double, 1, 1>(sap ? tau : d));
    REQUIRE(s_d.norm() > 1e-4);
    TaylorSlopes(scene.model, nominal, s_d, [&](double h) {
      Scenario p = s;
      p.yaml = sap ? HydroelasticScene(tau * (1 + h), d) : HydroelasticScene(tau, d * (1 + h));
      return Run(p, nullptr, nullptr);
    }, sap ? "hydroelastic ball, d/dtau_d,ball (sap)" : "hydroelastic ball, d/dd_ball (lagged)");
  }
}

// A sphere of material `ball` (stiffness k_ball) on a floor of material `floor` with both
// dissipations given: the combination weighs tau_d and d by the other side's stiffness, so a
// finite k_ball moves the series k and both weighted dissipations.
std::string StiffnessScene(double k_ball, const std::string& floor_stiffness,
                           const std::string& pose_and_velocity) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-3}
materials:
  ball: {stiffness: %.17g, dissipation_time: 1.0e-3, hunt_crossley: 2.0, friction: 0.2}
  floor: {stiffness: %s, dissipation_time: 4.0e-3, hunt_crossley: 6.0, friction: 0.2}
world:
  geometry: [{shape: halfspace, material: floor}]
bodies:
  - {name: ball, mass: 1.0, geometry: [{shape: sphere, radius: 0.05, material: ball}], %s}
)",
                k_ball, floor_stiffness.c_str(), pose_and_velocity.c_str());
  return text;
}

TEST_CASE("trajectory sensitivity: Taylor test, a bouncing sphere, a material's stiffness",
          "[integrator][sensitivity]") {
  // The ball's stiffness k_b = 1e5 N/m against a floor of 3e5 N/m (series k = 7.5e4 N/m,
  // compliant: SAP's R_n from k, not the near-rigid term), SAP and lagged Hunt & Crossley
  // (tau_d, resp. d, weighted by the stiffnesses: both move with k_b); and against a rigid
  // floor (k = k_b, the finite side's dissipation: the weights do not move). It falls from
  // 1.5 mm at 0.5 m/s (3 steps of flight) into a contact of about 10 ms; the run ends in the
  // rebound, before the release, whose step moves with k (at h = 1e-2 by one step).
  const double k = 1e5;
  const char* kApproaching =
      "pose: {position: [0, 0, 0.0515]}, velocity: {linear: [0.2, 0, -0.5]}";
  struct Case {
    ContactModel contact_model;
    const char* floor;
    const char* name;
  };
  const Case cases[] = {
      {ContactModel::kSap, "3.0e5", "bouncing sphere d/dk_ball (sap)"},
      {ContactModel::kLagged, "3.0e5", "bouncing sphere d/dk_ball (lagged)"},
      {ContactModel::kSap, ".inf", "bouncing sphere d/dk_ball, rigid floor (sap)"}};
  for (const Case& c : cases) {
    Scenario s;
    s.contact_model = c.contact_model;
    s.steps = 12;
    s.yaml = StiffnessScene(k, c.floor, kApproaching);
    const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
    int ball = -1;
    for (int m = 0; m < static_cast<int>(scene.model.materials.size()); ++m)
      if (scene.model.materials[m].name == "ball") ball = m;
    REQUIRE(ball >= 0);
    const std::vector<SensitivityParameter> parameters{
        {Kind::kMaterial, ContactParameter::kStiffness, ball}};
    const RunEnd nominal = Run(s, nullptr, &parameters);
    const Eigen::VectorXd s_d = Stacked(nominal, Eigen::VectorXd::Constant(1, k));
    REQUIRE(s_d.norm() > 1e-3);
    CHECK(nominal.unmatched == 0);
    TaylorSlopes(scene.model, nominal, s_d, [&](double h) {
      Scenario p = s;
      p.yaml = StiffnessScene(k * (1 + h), c.floor, kApproaching);
      return Run(p, nullptr, nullptr);
    }, c.name);
  }
}

TEST_CASE("trajectory sensitivity: a near-rigid contact's stiffness column is exactly 0",
          "[integrator][sensitivity]") {
  // k = 1e12 N/m (finite) on both sides: SAP's R_n is the near-rigid term of SAP eq. 29,
  // which reads no k (physics: the step resolves no compliance that stiff). With one
  // material on both sides the weighted tau_d stays its own value, so dgamma/dk_m = 0 on
  // every contact and the column stays 0, exactly. With two (tau_d 1e-3 s and 4e-3 s), the
  // weight still moves tau_d, which sets v_hat_n = -phi0 / (dt + tau_d) even there: the
  // column is the ball's tau_d column times d tau_d/dk_b / (d tau_d/dtau_b) =
  // (tau_f - tau_b) / (k_b + k_f).
  const double k = 1e12;
  Scenario s;
  s.steps = 40;
  const std::string two_materials = StiffnessScene(k, "1.0e12", kSliding);
  std::string one_material = two_materials;
  const std::string floor =
      "floor: {stiffness: 1.0e12, dissipation_time: 4.0e-3, hunt_crossley: 6.0,";
  const size_t at = one_material.find(floor);
  REQUIRE(at != std::string::npos);
  one_material.replace(at, floor.size(),
                       "floor: {stiffness: 1.0e12, dissipation_time: 1.0e-3, hunt_crossley: 2.0,");
  for (const std::string& yaml : {two_materials, one_material}) {
    s.yaml = yaml;
    const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
    int ball = -1;
    for (int m = 0; m < static_cast<int>(scene.model.materials.size()); ++m)
      if (scene.model.materials[m].name == "ball") ball = m;
    REQUIRE(ball >= 0);
    const std::vector<SensitivityParameter> parameters{
        {Kind::kMaterial, ContactParameter::kStiffness, ball},
        {Kind::kMaterial, ContactParameter::kDissipationTime, ball}};
    const RunEnd nominal = Run(s, nullptr, &parameters);
    REQUIRE(!nominal.pattern.empty());  // in contact
    if (yaml == one_material) {
      CHECK(nominal.dq.col(0).norm() == 0.0);
      CHECK(nominal.dv.col(0).norm() == 0.0);
    } else {
      const double ratio = (4e-3 - 1e-3) / (2 * k);
      REQUIRE(nominal.dv.col(1).norm() > 1e-6);  // tau_d acts
      CHECK((nominal.dv.col(0) - ratio * nominal.dv.col(1)).norm() <=
            1e-9 * ratio * nominal.dv.col(1).norm());
      CHECK((nominal.dq.col(0) - ratio * nominal.dq.col(1)).norm() <=
            1e-9 * ratio * std::max(nominal.dq.col(1).norm(), nominal.dv.col(1).norm()));
    }
  }
}

// A sphere of mass `mass` on the ground (compliant SAP, k = 1e5 N/m), its inertia from its
// geometry or, with `inertia`, given.
std::string MassScene(double mass, const char* inertia, const std::string& pose_and_velocity) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(
csim: 1
settings: {time_step: 1.0e-3}
materials:
  default: {stiffness: 1.0e5, dissipation_time: 2.0e-3, friction: 0.2}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: ball, mass: %.17g, %sgeometry: [{shape: sphere, radius: 0.05}], %s}
)",
                mass, inertia, pose_and_velocity.c_str());
  return text;
}

TEST_CASE("trajectory sensitivity: Taylor test, a bouncing sphere, a body's mass",
          "[integrator][sensitivity]") {
  // Dropped at 1 m/s and sliding at 0.2 m/s, 1 kg: the mass moves M (A, v*, gravity) and the
  // Delassus estimates behind R and v_hat. The scene's inertia scales with the mass when it
  // comes from the geometry (the loader's rule), and stays when given: both, each against
  // runs of the scene with its mass changed (and so its geometric inertia, by the loader).
  const double m = 1.0;
  for (const char* inertia : {"", "inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0], "}) {
    Scenario s;
    s.steps = 40;
    s.yaml = MassScene(m, inertia, kDropping);
    const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
    const std::vector<SensitivityParameter> parameters{{Kind::kBodyMass, {}, 0}};
    const RunEnd nominal = Run(s, nullptr, &parameters);
    const Eigen::VectorXd s_d = Stacked(nominal, Eigen::VectorXd::Constant(1, m));
    REQUIRE(s_d.norm() > 1e-3);
    CHECK(nominal.unmatched == 0);
    std::printf("bouncing sphere d/dm: one-sided steps %d\n", nominal.one_sided);
    TaylorSlopes(scene.model, nominal, s_d, [&](double h) {
      Scenario p = s;
      p.yaml = MassScene(m * (1 + h), inertia, kDropping);
      return Run(p, nullptr, nullptr);
    }, *inertia == '\0' ? "bouncing sphere d/dm (geometric inertia)"
                        : "bouncing sphere d/dm (given inertia)");
  }
}

TEST_CASE("trajectory sensitivity: Taylor test, a rolling sphere, initial velocity",
          "[integrator][sensitivity]") {
  // Rolling at 1 m/s along x (omega_y = v / r), in stiction throughout, along two
  // directions of (omega, v)_0 that keep it rolling at every h:
  //  - its speed, (d omega_y, d v_x) = 30 (1 / r, 1), over three decades. Rolling is nearly
  //    linear in its speed: the remainder of a unit direction is 1.2e-4 h^2, so the
  //    direction is lengthened to 30. Not over four: the remainder stays quadratic only
  //    while c h (c the direction's length) is below about 1 (the slope from c h = 1 to 0.1
  //    is 2.11, from 1.5 2.16; past c h = 2.6 the orientations' difference passes pi in the
  //    60 steps), where it is 1.6e-4; four decades further down it is 1.3e-12, about the
  //    rounding floor 5e-14 |x_N| = 1e-12 (omega_y = 20 rad/s), not 100 times above it;
  //  - its heading, (d omega_x, d v_y) = 50 (-1 / r, 1), over four decades: the run turns
  //    by 50 h rad (for small h), and the end state (speed, position, spin) moves with the
  //    turn quadratically. A unit direction's remainder, 0.13 h^2, would fall below the
  //    floor at h = 1e-6; 50 puts it at 3.4e-10, 300 floors (at h = 1e-2 the heading turns
  //    by 0.46 rad).
  Scenario s;
  s.steps = 60;
  s.yaml = SphereScene(0.5, 1e-3, 0.0, kRolling);
  const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  // The free joint: v = [angular; linear].
  const std::vector<SensitivityParameter> parameters{
      {Kind::kInitialVelocity, {}, 0}, {Kind::kInitialVelocity, {}, 1},
      {Kind::kInitialVelocity, {}, 3}, {Kind::kInitialVelocity, {}, 4}};
  const RunEnd nominal = Run(s, nullptr, &parameters);
  CHECK(nominal.approximate == 0);
  CHECK(nominal.unmatched == 0);
  const double r = 0.05;
  for (const bool heading : {false, true}) {
    Eigen::Vector4d d = Eigen::Vector4d::Zero();  // (omega_x, omega_y, v_x, v_y)
    if (heading) {
      d[0] = -50.0 / r;
      d[3] = 50.0;
    } else {
      d[1] = 30.0 / r;
      d[2] = 30.0;
    }
    const Eigen::VectorXd s_d = Stacked(nominal, d);
    TaylorSlopes(model, nominal, s_d, [&](double h) {
      multibody::State start{0.0, model.InitialQ(), model.InitialV()};
      start.v[0] += h * d[0];
      start.v[1] += h * d[1];
      start.v[3] += h * d[2];
      start.v[4] += h * d[3];
      return Run(s, &start, nullptr);
    }, heading ? "rolling sphere, initial heading" : "rolling sphere, initial rolling speed",
                 heading ? kFourDecades : kThreeDecades);
  }
}

TEST_CASE("trajectory sensitivity: Taylor test, a pendulum without contact, initial angle",
          "[integrator][sensitivity]") {
  for (const ThetaParameters theta : {kSymplectic, ThetaParameters{0.5, 0.5, Gyroscopic::kImplicit}}) {
    Scenario s;
    s.theta = theta;
    s.steps = 300;
    s.yaml = PendulumScene(0.8);
    const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
    const std::vector<SensitivityParameter> parameters{{Kind::kInitialPosition, {}, 0}};
    const RunEnd nominal = Run(s, nullptr, &parameters);
    const Eigen::VectorXd s_d = Stacked(nominal, Eigen::VectorXd::Ones(1));
    TaylorSlopes(scene.model, nominal, s_d, [&](double h) {
      Scenario p = s;
      p.yaml = PendulumScene(0.8 + h);
      return Run(p, nullptr, nullptr);
    }, theta.theta == 0.0 ? "pendulum, initial angle (symplectic Euler)"
                          : "pendulum, initial angle (midpoint)");
  }
}

// ---- (c) One step against central differences of full steps ----

// dx_1/dx0 along every state coordinate against (x1(x0 (+) e e_i) - x1(x0 (-) e e_i)) / 2e of
// full steps solved to 1e-13.
double OneStepError(const Scenario& s, const char* name, bool approximate_geometry = false) {
  const io::LoadedScene scene = io::LoadSceneFromText(s.yaml, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  const int nv = model.nv;
  std::vector<SensitivityParameter> parameters;
  for (int i = 0; i < nv; ++i) parameters.push_back({Kind::kInitialPosition, {}, i});
  for (int i = 0; i < nv; ++i) parameters.push_back({Kind::kInitialVelocity, {}, i});
  Scenario one = s;
  one.steps = 1;
  const RunEnd nominal = Run(one, nullptr, &parameters);
  const multibody::State x0{0.0, model.InitialQ(), model.InitialV()};
  double worst = 0.0;
  const double e = 1e-6;
  for (int i = 0; i < 2 * nv; ++i) {
    multibody::State plus = x0, minus = x0;
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(nv);
    if (i < nv) {
      delta[i] = e;
      multibody::RetractConfiguration(model, x0.q, delta, &plus.q);
      multibody::RetractConfiguration(model, x0.q, -delta, &minus.q);
    } else {
      plus.v[i - nv] += e;
      minus.v[i - nv] -= e;
    }
    const RunEnd a = Run(one, &plus, nullptr), b = Run(one, &minus, nullptr);
    REQUIRE(a.pattern == nominal.pattern);
    REQUIRE(b.pattern == nominal.pattern);
    const Eigen::VectorXd fd = StateDifference(model, a.x, b.x) / (2 * e);
    Eigen::VectorXd ift(2 * nv);
    ift << nominal.dq.col(i), nominal.dv.col(i);
    // Relative to the column's scale, at least the identity's 1 (dx1/dx0 = I + O(dt)).
    const double error = (ift - fd).norm() / std::max(1.0, fd.norm());
    INFO(name << ", coordinate " << i << ": ift " << ift.transpose() << "\nfd  " << fd.transpose());
    CHECK(error < 1e-5);
    worst = std::max(worst, error);
  }
  CHECK((nominal.approximate > 0) == approximate_geometry);
  std::printf("one step %s: max relative |S_1 - FD| %.2e (one-sided %d, unmatched %d, min kink "
              "distance %.1e)\n",
              name, worst, nominal.one_sided, nominal.unmatched, nominal.min_kink);
  return worst;
}

TEST_CASE("trajectory sensitivity: one step against central differences of full steps",
          "[integrator][sensitivity]") {
  Scenario s;
  s.yaml = SphereScene(0.3, 1e-3, 0.0, kSliding);
  OneStepError(s, "sliding sphere (sap)");
  s.theta = {0.5, 0.5, Gyroscopic::kImplicit};  // midpoint: the free motion iterates
  OneStepError(s, "sliding sphere (sap, midpoint)");
  s.theta = kSymplectic;
  s.yaml = SphereScene(0.5, 1e-3, 0.0, kRolling);
  OneStepError(s, "rolling sphere (sap)");
  s.contact_model = ContactModel::kLagged;
  s.yaml = SphereScene(0.3, 1e-3, 2.0, kSliding);
  OneStepError(s, "sliding sphere (lagged)");
  s.contact_model = ContactModel::kSap;
  s.yaml = R"(
csim: 1
settings: {time_step: 1.0e-3}
materials:
  default: {stiffness: 1.0e5, dissipation_time: 1.0e-3, friction: 0.3}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: box, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}],
     pose: {position: [0, 0, 0.0499], rpy: [0.01, 0.02, 0.0]}, velocity: {linear: [1.0, 0, 0]}}
)";
  OneStepError(s, "sliding box (sap, four corners)", /*approximate_geometry=*/true);
  s.yaml = PendulumScene(0.8);
  OneStepError(s, "pendulum");
}

TEST_CASE("trajectory sensitivity: bodies on fixed axes under midpoint and implicit Euler, "
          "S_N against central differences of whole runs",
          "[integrator][sensitivity]") {
  // testing::FixedAxisRigScene without the ball: a cylinder rolling on a planar joint, a box
  // sliding on a rail, a wheel's rim sliding on the floor, 40 steps of 2 ms; every step takes
  // the pairwise rule (fixed_axis_partials.h). Between compliant contacts on symmetric
  // shapes these runs are close to linear in the parameters, so a Taylor test's remainder
  // would sit at the rounding floor: instead each column is checked against the central
  // difference of two whole runs at p +- h e_j (h = 1e-5, relative for the material's
  // dissipation time), whose truncation is negligible here and whose rounding (the solves'
  // 1e-13 over h) about 1e-8 relative. A wrong term of the rule (a theta weight, a spring's
  // share, a lever) is off by far more than 1e-6.
  const io::LoadedScene scene =
      io::LoadSceneFromText(testing::FixedAxisRigScene(false), "scene.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.nv == 5);  // planar (x, y, angle), rail, axle
  const double tau = 0.02;
  const std::vector<SensitivityParameter> parameters{
      {Kind::kInitialPosition, {}, 0},  // the cylinder's x
      {Kind::kInitialVelocity, {}, 1},  // its vertical speed
      {Kind::kInitialVelocity, {}, 2},  // its spin
      {Kind::kInitialVelocity, {}, 3},  // the box's speed along the rail
      {Kind::kInitialPosition, {}, 4},  // the wheel's angle
      {Kind::kMaterial, ContactParameter::kDissipationTime, 0}};
  REQUIRE(model.materials.size() == 1);
  for (const ThetaParameters& theta :
       {ThetaParameters{0.5, 0.5, Gyroscopic::kImplicit}, ThetaParameters{1.0, 1.0, Gyroscopic::kImplicit}}) {
    Scenario s;
    s.yaml = testing::FixedAxisRigScene(false, tau);
    s.theta = theta;
    s.dt = 2e-3;
    s.steps = 40;
    // Without it a solve of this rig stalls at a momentum error of 1e-15 relative for all
    // 200 iterations: eps_r alone does not clear some island's rounding.
    s.absolute_tolerance = 1e-15;
    const RunEnd nominal = Run(s, nullptr, &parameters);
    CHECK(nominal.pairwise == s.steps);
    CHECK(nominal.one_sided == 0);
    CHECK(nominal.unmatched == 0);
    const double h = 1e-5;
    double worst = 0.0;
    for (size_t j = 0; j < parameters.size(); ++j) {
      RunEnd end[2];
      for (int side = 0; side < 2; ++side) {
        const double e = side == 0 ? h : -h;
        Scenario p = s;
        multibody::State start{0.0, model.InitialQ(), model.InitialV()};
        const SensitivityParameter& parameter = parameters[j];
        if (parameter.kind == Kind::kInitialPosition) start.q[parameter.index] += e;
        if (parameter.kind == Kind::kInitialVelocity) start.v[parameter.index] += e;
        if (parameter.kind == Kind::kMaterial) p.yaml = testing::FixedAxisRigScene(false, tau * (1 + e));
        end[side] = Run(p, &start, nullptr);
        REQUIRE(end[side].pattern == nominal.pattern);
      }
      const double scale = parameters[j].kind == Kind::kMaterial ? tau : 1.0;
      const Eigen::VectorXd expected =
          StateDifference(model, end[0].x, end[1].x) / (2 * h * scale);
      Eigen::VectorXd got(2 * model.nv);
      got << nominal.dq.col(j), nominal.dv.col(j);
      INFO("theta " << theta.theta << ", column " << j << "\n got      " << got.transpose()
                    << "\n expected " << expected.transpose());
      REQUIRE(expected.norm() > 1e-3);
      const double error = (got - expected).norm() / expected.norm();
      worst = std::max(worst, error);
      CHECK(error < 1e-6);
    }
    std::printf("fixed-axis rig, theta %.1f: S_N against whole runs, largest relative "
                "difference %.2e\n",
                theta.theta, worst);
  }
}

TEST_CASE("trajectory sensitivity: a contact entering on one side of the difference gives a "
          "flagged one-sided difference", "[integrator][sensitivity]") {
  // A sphere at rest just above the height where its ground contact enters the problem
  // (phi0 = contact_margin, found by bisection to 1e-13 m): moving it down by any of the
  // difference's steps adds the contact, moving it up does not. The step is free flight
  // either way (the entering contact is far apart), so the one-sided difference from the
  // matching side is exact: dv1/dz0 = 0, dq1/dz0 = 1. Under midpoint the whole assembly is
  // differenced and the entering contact flags the column one-sided; under symplectic Euler
  // the pairwise rule differences only the nominal contacts (none), exactly that piece's
  // derivative, with no flag (sensitivities.md §6.3).
  for (const ThetaParameters theta : {kMidpoint, kSymplectic}) {
  INFO("theta " << theta.theta);
  const std::string yaml = SphereScene(0.3, 1e-3, 0.0, "pose: {position: [0, 0, 0.06]}");
  io::LoadedScene scene = io::LoadSceneFromText(yaml, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  const contact::ContactParameters cp = sim::ContactParametersFor(scene.settings);
  multibody::State x{0.0, model.InitialQ(), model.InitialV()};
  const int z = 6;  // free joint q: quaternion (4), then position
  double below = 0.05, above = 0.06;  // contact at `below`, none at `above`
  while (above - below > 1e-13) {
    x.q[z] = 0.5 * (below + above);
    (contact::FindContactsAt(model, 0.0, x.q, cp.contact_margin).empty() ? above : below) = x.q[z];
  }
  x.q[z] = above;
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  TrajectorySensitivity sensitivity(model, {{Kind::kInitialPosition, {}, 5}});
  const multibody::State x0 = x;
  REQUIRE(StepWithContact(model, theta, {}, cp, 1e-3, false, x, ws, cws).ok());
  REQUIRE(cws.problem.num_constraints() == 0);
  REQUIRE(sensitivity.Advance(model, theta, {}, cp, 1e-3, x0, x).ok());
  const int flagged = theta.theta > 0.0 ? 1 : 0;
  CHECK(sensitivity.last_step().num_one_sided == flagged);
  CHECK(sensitivity.last_step().num_unmatched == 0);
  CHECK(sensitivity.steps_one_sided() == flagged);
  CHECK(std::abs(sensitivity.dv()(5, 0)) < 1e-9);
  CHECK(std::abs(sensitivity.dq()(5, 0) - 1.0) < 1e-9);
  }
}

// ---- (d) Threads ----

// Four bodies on a floor of its own material, stepped under SAP: a ball of material `ball`
// dropped while sliding, a tilted box dropped while sliding (its corners: approximate
// geometry, contacts entering), a sphere of the default material rolling, and one at rest
// above the floor (`hover`, its height set by the test).
const char* kFourBodies = R"(
csim: 1
settings: {time_step: 1.0e-3}
materials:
  ball: {stiffness: 1.5e5, dissipation_time: 1.0e-3, friction: 0.3}
  floor: {stiffness: 3.0e5, dissipation_time: 2.0e-3, friction: 0.6}
world:
  geometry: [{shape: halfspace, material: floor}]
bodies:
  - {name: ball, mass: 1.0, geometry: [{shape: sphere, radius: 0.05, material: ball}],
     pose: {position: [0, 0, 0.0505]}, velocity: {linear: [0.2, 0, -1.0]}}
  - {name: box, mass: 0.8, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}],
     pose: {position: [0.5, 0, 0.075], rpy: [0.3, 0.2, 0.0]}, velocity: {linear: [0.6, 0, -0.5]}}
  - {name: roller, mass: 0.5, geometry: [{shape: sphere, radius: 0.04}],
     pose: {position: [-0.5, 0, 0.0399]}, velocity: {linear: [1.0, 0, 0], angular: [0, 25.0, 0]}}
  - {name: hover, mass: 0.3, geometry: [{shape: sphere, radius: 0.03}],
     pose: {position: [1.5, 0, 0.05]}}
)";

// What a chain reports after each step of a run.
struct ChainRecord {
  std::vector<Eigen::MatrixXd> dq, dv;
  std::vector<int> one_sided, unmatched, approximate;
  std::vector<double> min_kink;
  std::vector<std::vector<int8_t>> regions;
  std::vector<std::vector<double>> kinks;
  int steps_one_sided = 0, steps_unmatched = 0, steps_approximate = 0, steps_pairwise = 0;
};

ChainRecord RunChain(const std::string& yaml, const multibody::State& start,
                     const std::vector<SensitivityParameter>& parameters, int steps,
                     int threads, bool solved_step = false,
                     const ThetaParameters& theta = kSymplectic) {
  const io::LoadedScene scene = io::LoadSceneFromText(yaml, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  const contact::ContactParameters cp = sim::ContactParametersFor(scene.settings);
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  TrajectorySensitivity chain(model, parameters, TreeSolver::kAuto, threads);
  multibody::State x = start;
  ChainRecord record;
  for (int n = 0; n < steps; ++n) {
    const multibody::State x0 = x;
    REQUIRE(StepWithContact(model, theta, {}, cp, 1e-3, false, x, ws, cws).ok());
    const SolvedStep solved{ws, cws};
    REQUIRE(chain
                .Advance(model, theta, {}, cp, 1e-3, x0, x, &cws.result.v_c,
                         solved_step ? &solved : nullptr)
                .ok());
    record.dq.push_back(chain.dq());
    record.dv.push_back(chain.dv());
    const SensitivityStepInfo& info = chain.last_step();
    record.one_sided.push_back(info.num_one_sided);
    record.unmatched.push_back(info.num_unmatched);
    record.approximate.push_back(info.approximate_geometry);
    record.min_kink.push_back(info.min_kink_distance);
    record.regions.push_back(chain.contact_regions());
    record.kinks.push_back(chain.contact_kink_distances());
  }
  record.steps_one_sided = chain.steps_one_sided();
  record.steps_unmatched = chain.steps_unmatched();
  record.steps_approximate = chain.steps_approximate_geometry();
  record.steps_pairwise = chain.steps_pairwise();
  return record;
}

bool SameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

TEST_CASE("trajectory sensitivity: the columns differenced on 1, 2 and 3 threads, and from the "
          "step's own problem, give the same bits", "[integrator][sensitivity]") {
  // Every kind of column (a contact parameter, a material's friction, dissipation time and
  // stiffness, a body's mass, an initial position and velocity) over 80 steps with impacts,
  // sliding, rolling and box corners: each thread count must give the same S, flags,
  // regions and kink distances after every step (the columns are reduced in column order;
  // docs/design/sensitivities.md §6.2). The resting `hover` sphere starts just above the
  // height where its ground contact enters the problem (found by bisection as in the
  // entering-contact test above), so that its height column is one-sided in the first step.
  const io::LoadedScene scene = io::LoadSceneFromText(kFourBodies, "scene.yaml", {});
  const multibody::Model& model = scene.model;
  int ball = -1, floor = -1;
  for (int m = 0; m < static_cast<int>(model.materials.size()); ++m)
    (model.materials[m].name == "ball" ? ball : floor) = m;
  REQUIRE(ball >= 0);
  REQUIRE(floor >= 0);
  const double margin = sim::ContactParametersFor(scene.settings).contact_margin;
  multibody::State start{0.0, model.InitialQ(), model.InitialV()};
  const int hover_z = 4 * 7 - 1;  // the fourth free joint's q: quaternion (4), position (3)
  const size_t others = contact::FindContactsAt(model, 0.0, start.q, margin).size();
  double below = 0.02, above = 0.05;  // the hover's contact at `below`, none at `above`
  while (above - below > 1e-13) {
    start.q[hover_z] = 0.5 * (below + above);
    (contact::FindContactsAt(model, 0.0, start.q, margin).size() == others ? above : below) =
        start.q[hover_z];
  }
  start.q[hover_z] = above;
  const std::vector<SensitivityParameter> parameters{
      {Kind::kContact, ContactParameter::kMu, -1},
      {Kind::kMaterial, ContactParameter::kMu, ball},
      {Kind::kMaterial, ContactParameter::kDissipationTime, floor},
      {Kind::kMaterial, ContactParameter::kStiffness, floor},
      {Kind::kBodyMass, {}, 1},
      {Kind::kInitialPosition, {}, 5},
      {Kind::kInitialVelocity, {}, 9},
      {Kind::kMaterial, ContactParameter::kDissipationTime, ball},
      {Kind::kInitialPosition, {}, 23}};  // the hover's height
  const int steps = 80;
  // Under midpoint the whole assembly is differenced (the hover's entering contact flags its
  // column one-sided in the first step); under symplectic Euler the pairwise rule
  // (sensitivities.md §6.3).
  for (const ThetaParameters theta : {kMidpoint, kSymplectic}) {
    INFO("theta " << theta.theta);
    const ChainRecord one = RunChain(kFourBodies, start, parameters, steps, 1, false, theta);
    // The run exercises what the reduction must keep in order: contacts, flags, S moving.
    int one_sided = 0;
    for (const int f : one.one_sided) one_sided += f;
    REQUIRE(one.dv.back().norm() > 0.0);
    REQUIRE(!one.regions.back().empty());
    REQUIRE(one.steps_approximate > 0);
    if (theta.theta > 0.0) REQUIRE(one.one_sided[0] >= 1);
    // Lone free bodies, point contacts only: every step takes the pairwise rule under
    // theta = 0, none under midpoint.
    CHECK(one.steps_pairwise == (theta.theta == 0.0 ? steps : 0));
    std::printf("threads bit-identity, theta %g: %d steps, %d columns, one-sided columns %d, "
                "steps one-sided %d, unmatched %d\n",
                theta.theta, steps, static_cast<int>(parameters.size()), one_sided,
                one.steps_one_sided, one.steps_unmatched);
    // Threads 2 and 3; then one thread reading the step's own problem (SolvedStep) instead
    // of rebuilding it: the same build at the same state, so the same bits too.
    for (const auto& [threads, solved_step] : {std::pair{2, false}, {3, false}, {1, true}}) {
      const ChainRecord other =
          RunChain(kFourBodies, start, parameters, steps, threads, solved_step, theta);
      for (int n = 0; n < steps; ++n) {
        INFO("threads " << threads << ", the step's own problem " << solved_step << ", step "
                        << n + 1);
        CHECK(SameBits(other.dq[n], one.dq[n]));
        CHECK(SameBits(other.dv[n], one.dv[n]));
        CHECK(other.one_sided[n] == one.one_sided[n]);
        CHECK(other.unmatched[n] == one.unmatched[n]);
        CHECK(other.approximate[n] == one.approximate[n]);
        CHECK(SameBits(std::vector<double>{other.min_kink[n]}, {one.min_kink[n]}));
        CHECK(other.regions[n] == one.regions[n]);
        CHECK(SameBits(other.kinks[n], one.kinks[n]));
      }
      CHECK(other.steps_one_sided == one.steps_one_sided);
      CHECK(other.steps_unmatched == one.steps_unmatched);
      CHECK(other.steps_approximate == one.steps_approximate);
    }
  }
}

TEST_CASE("trajectory sensitivity: a warmed-up Advance allocates nothing",
          "[integrator][sensitivity][allocation]") {
  // On one thread and on two: the allocation counter counts every thread of the process
  // (tests/support/allocation_counter.cc), the pool's workers included. A sliding sphere
  // (the pairwise rule with a lone free body) under symplectic Euler and the fixed-axis rig
  // (the pairwise rule with fixed-axis bodies) under midpoint.
  struct Case {
    std::string yaml;
    ThetaParameters theta;
    double dt;
  };
  for (const Case& test : {Case{SphereScene(0.3, 1e-3, 0.0, kSliding), kSymplectic, 1e-3},
                           Case{testing::FixedAxisRigScene(false), kMidpoint, 2e-3}}) {
    const io::LoadedScene scene = io::LoadSceneFromText(test.yaml, "scene.yaml", {});
    const multibody::Model& model = scene.model;
    const contact::ContactParameters cp = sim::ContactParametersFor(scene.settings);
    const ThetaParameters& theta = test.theta;
    const double dt = test.dt;
    for (const int threads : {1, 2}) {
      INFO("theta " << theta.theta << ", threads " << threads);
      StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
      ContactStepWorkspace cws(model);
      TrajectorySensitivity sensitivity(
          model,
          {{Kind::kContact, ContactParameter::kMu, -1},
           {Kind::kInitialVelocity, {}, 3},
           {Kind::kMaterial, ContactParameter::kStiffness, model.default_material},
           {Kind::kBodyMass, {}, 0}},
          TreeSolver::kAuto, threads);
      multibody::State x{0.0, model.InitialQ(), model.InitialV()}, x0 = x;
      for (int n = 0; n < 20; ++n) {
        x0 = x;
        REQUIRE(StepWithContact(model, theta, {}, cp, dt, false, x, ws, cws).ok());
        REQUIRE(sensitivity.Advance(model, theta, {}, cp, dt, x0, x, &cws.result.v_c).ok());
      }
      CHECK(sensitivity.steps_pairwise() == 20);
      const std::size_t before = testing::AllocationCount();
      const SolvedStep solved{ws, cws};
      for (int n = 0; n < 10; ++n) {  // rebuilding the nominal problem, then reading the step's
        x0 = x;
        StepWithContact(model, theta, {}, cp, dt, false, x, ws, cws);
        sensitivity.Advance(model, theta, {}, cp, dt, x0, x, &cws.result.v_c,
                            n % 2 == 0 ? nullptr : &solved);
      }
      CHECK(testing::AllocationCount() - before == 0);
    }
  }
}

}  // namespace
}  // namespace csim::integrator
