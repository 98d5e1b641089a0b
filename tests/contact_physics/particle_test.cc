// docs/design/reference-cases.md §5: closed-form single-body checks of the SAP contact model
// (docs/design/sap-problem.md §5, §3, §5.3), run through the whole pipeline (scene -> geometry ->
// problem builder -> SAP -> recorder).   1. compliant equilibrium phi0 = -m g / k, independent of
// tau_d, and an exact fixed point;   2. near-rigid equilibrium phi0 = -m g dt (dt + tau_d) R_n, R_n
// = beta^2 w / (4 pi^2);   3. stiction creep under a tangential load F: slip v_t = R_t dt F (R_t =
// sigma w);   4. sliding: |f_t| = mu |f_n| to round-off, acceleration F/m - mu g_n, gliding gap.
// The tangential load is gravity tilted by a on a flat halfspace (a particle on an
// incline): F = m g sin a along +x, normal load N = m g cos a.
// w is this file's own Delassus estimate (physics_helpers.h, Drake's recipe of
// docs/design/sap-problem.md §4.1) for the actual contact points, which for a sphere or a box
// include the rotational dofs.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "engine/integrator/contact_step.h"
#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

using Eigen::Vector3d;

constexpr double kG = 9.81;

// A sphere (radius 0.05 m, mass M) on the halfspace; both materials given, so the
// combined stiffness is K_BALL K_GROUND / (K_BALL + K_GROUND) (series, scene-format.md).
const char* kSphere = R"(
csim: 1
settings: {time_step: DT, duration: DURATION, near_rigid_threshold: BETA, solver: {relative_tolerance: 1.0e-10}}
materials:
  ground: {stiffness: K_GROUND, dissipation_time: TAU, friction: 0.5}
  ball: {stiffness: K_BALL, dissipation_time: TAU, friction: 0.5}
world: {geometry: [{shape: halfspace, material: ground}]}
bodies:
  - name: ball
    mass: MASS
    geometry: [{shape: sphere, radius: 0.05, material: ball}]
    pose: {position: [0, 0, Z0]}
)";

struct SphereCase {
  double dt = 1e-3, duration = 1.0, beta = 1.0, tau = 0.0, mass = 1.0, z0 = 0.05;
  std::string k_ground = "2.0e5", k_ball = "2.0e5";
};

std::string SphereScene(const SphereCase& c) {
  std::string s = kSphere;
  s = Fill(s, "DURATION", Num(c.duration));
  s = Fill(s, "DT", Num(c.dt));
  s = Fill(s, "BETA", Num(c.beta));
  s = Fill(s, "K_GROUND", c.k_ground);
  s = Fill(s, "K_BALL", c.k_ball);
  s = Fill(s, "TAU", Num(c.tau));
  s = Fill(s, "MASS", Num(c.mass));
  return Fill(s, "Z0", Num(c.z0));
}

TEST_CASE("particle: compliant equilibrium penetration is -m g / k, independent of tau_d",
          "[contact-physics]") {
  // k = 2e5 in series with 2e5 = 1e5 N/m, m = 1 kg: phi = -9.81e-5 m. Compliant regime:
  // 1/(dt k (dt + tau_d)) >= 1/(1e-3 1e5 1.01e-2) ~ 1 >> beta^2 w / (4 pi^2) ~ 0.04.
  const double k = 1e5, m = 1.0;
  for (double tau : {0.0, 0.01}) {
    SphereCase c;
    c.tau = tau;
    // Settling: omega_n = sqrt(k/m) = 316 rad/s; the SAP step damps with an effective
    // time (dt + tau_d) (R_n = 1/(dt k (dt + tau_d))), zeta = omega (dt + tau) / 2 >= 0.16,
    // decay rate >= 50 /s: after 1 s the transient is e^-50 of its start.
    const SceneRun run = RunScene(SphereScene(c));
    const sim::Row& last = run.rows.back();
    REQUIRE(last.contacts.size() == 1);
    const double phi = last.contacts[0].signed_distance;
    // 1e-5: the solver stops at a relative momentum residual eps_r = 1e-6 per step, which
    // offsets the resting impulse, hence phi, by ~1e-6 relative; 10x margin.
    INFO("tau_d = " << tau << ": phi0 = " << phi << " vs " << -m * kG / k);
    Report("compliant phi0, tau_d = " + Num(tau), phi, -m * kG / k);
    CHECK(phi == Approx(-m * kG / k).epsilon(1e-5));
    // At rest: velocity at round-off/solver level compared with g dt = 1e-2 m/s.
    CHECK(last.v.norm() < 1e-8);
    // The contact force balances the weight (same 1e-5 argument).
    const Vector3d f = TotalForceOn(last, run.Body("ball"));
    CHECK(f.z() == Approx(m * kG).epsilon(1e-5));
    CHECK(std::abs(f.x()) + std::abs(f.y()) < 1e-9);
  }
}

TEST_CASE("particle: the compliant equilibrium is an exact fixed point (0 Newton iterations)",
          "[contact-physics]") {
  // Start exactly at phi0 = -m g / k with v = 0: v = 0 solves the step (the contact impulse
  // dt k (-phi0) equals m g dt), so the warm start v0 = 0 is optimal and SAP returns it
  // before any factorisation (docs/design/sap-solver.md §1), whatever tau_d is.
  const double k = 1e5, m = 1.0, dt = 1e-3;
  for (double tau : {0.0, 0.01, 0.1}) {
    SphereCase c;
    c.tau = tau;
    c.z0 = 0.05 - m * kG / k;
    const io::LoadedScene scene = io::LoadSceneFromText(SphereScene(c), "test.yaml", {});
    const multibody::Model& model = scene.model;
    integrator::StepWorkspace ws =
        integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
    integrator::ContactStepWorkspace cws(model);
    multibody::State s{0.0, model.InitialQ(), model.InitialV()};
    for (int n = 0; n < 10; ++n) {
      REQUIRE(integrator::StepWithContact(model, {0.0, 1.0, integrator::Gyroscopic::kImplicit}, {},
                                          {}, dt, true, s, ws, cws)
                  .ok());
      INFO("tau_d = " << tau << ", step " << n);
      CHECK(cws.stats.iterations == 0);
      // Round-off: the residual m g dt - dt k (-phi0) with phi0 computed from z in double.
      CHECK(s.v.norm() < 1e-12);
      REQUIRE(cws.contacts.size() == 1);
      CHECK(cws.contacts[0].force_on_b_W.norm() == Approx(m * kG).epsilon(1e-9));
    }
  }
}

TEST_CASE("particle: near-rigid equilibrium penetration is -m g dt (dt + tau_d) R_n",
          "[contact-physics]") {
  // Both stiffnesses infinite: R_n = beta^2 w / (4 pi^2) (SAP eq. 29). At rest gamma_n =
  // m g dt = v_hat_n / R_n with v_hat_n = -phi0 / (dt + tau_d) (docs/design/sap-problem.md §5.3).
  // The sphere's contact Jacobian includes its rotation: with d = p_C - p_com = (0, 0, -a),
  // a = r + |phi0|/2 (the contact point is midway between the surfaces),
  // W = diag(1/m + a^2/I, 1/m + a^2/I, 1/m), I = 2/5 m r^2: w ~ 1.683/m, not 1/(sqrt(3) m).
  struct Case {
    double beta, tau, dt, mass;
  };
  for (const Case& cs : {Case{1.0, 0.0, 1e-3, 1.0}, Case{1.0, 2e-3, 1e-3, 1.0},
                         Case{0.5, 0.0, 2e-3, 3.0}}) {
    SphereCase c;
    c.k_ground = c.k_ball = ".inf";
    c.beta = cs.beta;
    c.tau = cs.tau;
    c.dt = cs.dt;
    c.mass = cs.mass;
    c.duration = 0.5;  // overdamped (zeta ~ pi / sqrt(m w) > 2): settles in a few steps
    const SceneRun run = RunScene(SphereScene(c));
    const sim::Row& last = run.rows.back();
    REQUIRE(last.contacts.size() == 1);
    const double m = cs.mass, r = 0.05, I = 0.4 * m * r * r;
    const Vector3d d = last.contacts[0].point - run.rows[run.rows.size() - 2].body_position.col(0);
    const double w = FreeBodyDelassus(m, Vector3d(I, I, I), d);
    const double R_n = cs.beta * cs.beta * w / (4 * M_PI * M_PI);
    const double expected = -m * kG * cs.dt * (cs.dt + cs.tau) * R_n;
    const double phi = last.contacts[0].signed_distance;
    Report("near-rigid phi0, beta " + Num(cs.beta) + " tau " + Num(cs.tau) + " dt " + Num(cs.dt),
           phi, expected);
    INFO("beta " << cs.beta << " tau " << cs.tau << " dt " << cs.dt << ": m w = " << m * w
                 << ", phi0 = " << phi << " vs " << expected);
    // 1e-5: solver residual eps_r = 1e-6 (as above), 10x margin.
    CHECK(phi == Approx(expected).epsilon(1e-5));
    CHECK(m * w == Approx(std::sqrt(2 * 3.5 * 3.5 + 1) / 3).epsilon(1e-4));  // a = r(1 + O(1e-5))
  }
}

// A cube (edge 0.1 m, mass 1 kg) on the halfspace under gravity tilted by `a` about y:
// F = m g sin a along +x, N = m g cos a. Unlike a sphere a box cannot roll, so it is
// the particle of docs/design/reference-cases.md §5 with four corner contacts.
const char* kBox = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: DURATION, gravity: [GX, 0, GZ]}
materials:
  ground: {stiffness: .inf, friction: MU}
  box: {stiffness: .inf, friction: MU}
world: {geometry: [{shape: halfspace, material: ground}]}
bodies:
  - name: box
    mass: 1.0
    geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: box}]
    pose: {position: [0, 0, 0.05]}
)";

std::string BoxScene(double angle, double mu, double duration) {
  std::string s = Fill(kBox, "DURATION", Num(duration));
  s = Fill(s, "GX", Num(kG * std::sin(angle)));
  s = Fill(s, "GZ", Num(-kG * std::cos(angle)));
  return Fill(s, "MU", Num(mu));
}

TEST_CASE("particle: stiction creep of a box is v_t = R_t dt F", "[contact-physics]") {
  // mu = 0.5, tan a = 0.25: F / (mu N) = 0.5. Moment balance about the com moves load to
  // the downhill corners, N/4 (1 +- tan a) for a cube, so each corner's friction F/4 stays
  // inside its cone (0.25 <= 0.5 x 0.75). In steady creep the box translates without
  // rotating, every corner slips at the same v_t, and in stiction gamma_t,i = v_t / R_t,i
  // (docs/design/sap-problem.md §5) with sum_i gamma_t,i = F dt, so v_t = F dt / sum_i 1 / (sigma
  // w_i).
  const double angle = std::atan(0.25), m = 1.0, sigma = 1e-3, dt = 1e-3;
  const double F = m * kG * std::sin(angle);
  const SceneRun run = RunScene(BoxScene(angle, 0.5, 1.0));
  const int box = run.Body("box");
  const double I = m * (0.01 + 0.01) / 12;  // cube about its centre
  const sim::Row& last = run.rows.back();
  const sim::Row& before = run.rows[run.rows.size() - 2];  // state the contacts were found at
  REQUIRE(last.contacts.size() == 4);
  double inverse_sum = 0;
  for (const sim::ContactRow& c : last.contacts) {
    const Vector3d d = c.point - before.body_position.col(box);
    inverse_sum += 1.0 / (sigma * FreeBodyDelassus(m, Vector3d(I, I, I), d));
  }
  const double v_expected = F * dt / inverse_sum;
  // Over the last 0.5 s (initial transient long gone: the creep is reached within one step).
  const size_t half = run.rows.size() / 2;
  const double v_mean = (last.body_position(0, box) - run.rows[half].body_position(0, box)) /
                        (last.time - run.rows[half].time);
  Report("creep: mean box speed", v_mean, v_expected);
  Report("creep: recorded slip speed", last.contacts[0].slip_speed, v_expected);
  INFO("v_t expected " << v_expected << ", mean box speed " << v_mean << ", recorded slip "
                       << last.contacts[0].slip_speed);
  // Exact in steady creep; 1e-5 allows the solver's eps_r = 1e-6 with a 10x margin (the
  // w_i are evaluated at the recorded points, so no geometric error).
  CHECK(v_mean == Approx(v_expected).epsilon(1e-5));
  for (const sim::ContactRow& c : last.contacts) {
    CHECK(c.slip_speed == Approx(v_expected).epsilon(1e-5));
    // The friction on the box points uphill (-x), against F.
    CHECK(ForceOn(c, box).x() < 0);
  }
  // Force balance: total contact force = -m g_vec (1e-5: solver tolerance, 10x margin).
  const Vector3d f = TotalForceOn(last, box);
  CHECK(f.x() == Approx(-F).epsilon(1e-5));
  CHECK(f.z() == Approx(m * kG * std::cos(angle)).epsilon(1e-5));
  // No rotation (stiction holds the box square): angular speed at round-off level.
  CHECK(last.body_angular_velocity.col(box).norm() < 1e-6);
}

TEST_CASE("particle: a sliding box has |f_t| = mu |f_n| and accelerates at g (sin a - mu cos a)",
          "[contact-physics]") {
  // mu = 0.3, tan a = 0.5 > mu: sliding. The tipping moment moves load downhill,
  // N/4 (1 +- mu) per corner, so all corners stay loaded.
  const double angle = std::atan(0.5), mu = 0.3, dt = 1e-3;
  const SceneRun run = RunScene(BoxScene(angle, mu, 1.0));
  const int box = run.Body("box");
  const double a_expected = kG * (std::sin(angle) - mu * std::cos(angle));
  // Acceleration from the velocity change over [0.5, 1] s (vertical transients of the
  // first steps are long gone; symplectic Euler is exact for constant acceleration).
  const sim::Row& mid = run.rows[run.rows.size() / 2];
  const sim::Row& last = run.rows.back();
  const double a = (last.body_linear_velocity(0, box) - mid.body_linear_velocity(0, box)) /
                   (last.time - mid.time);
  INFO("a = " << a << " vs " << a_expected);
  Report("sliding box acceleration", a, a_expected);
  // 1e-6: the friction force is mu times the normal force exactly, and the normal force
  // equals m g cos a once the box rises at constant speed (see the gliding check below);
  // what is left is the solver tolerance eps_r = 1e-6.
  CHECK(a == Approx(a_expected).epsilon(1e-6));
  double worst = 0;
  for (size_t i = run.rows.size() / 2; i < run.rows.size(); ++i) {
    for (const sim::ContactRow& c : run.rows[i].contacts) {
      const double f_n = c.force.dot(c.normal);
      const double f_t = (c.force - f_n * c.normal).norm();
      // docs/design/contact-models.md §2.2: on the sliding branch gamma_t = mu gamma_n t_hat with
      // |t_hat| = y_r / sqrt(y_r^2 + eps^2), eps = 1e-7 N s, y_r = |v_t| / R_t ~ 1e2 N s here, so
      // |t_hat| = 1 - O(1e-18): the cone is met to round-off (a few ulps after the
      // rotation to world and the normal/tangent split; 1e-12 leaves a wide margin).
      CHECK(f_t == Approx(mu * f_n).epsilon(1e-12));
      worst = std::max(worst, std::abs(f_t / (mu * f_n) - 1));
    }
  }
  Report("sliding box max | |f_t| / (mu f_n) - 1 |", worst, 0.0);
  // Gliding (docs/design/sap-problem.md §5.2, docs/design/reference-cases.md §5.4): sliding bodies
  // float at the effective gap (dt + tau_d) mu |v_t|, so the box rises by dt mu dv while its speed
  // grows by dv.
  const double dz = last.body_position(2, box) - mid.body_position(2, box);
  const double dv = last.body_linear_velocity(0, box) - mid.body_linear_velocity(0, box);
  Report("sliding box rise (gliding)", dz, dt * mu * dv);
  INFO("rise " << dz << " vs dt mu dv = " << dt * mu * dv);
  // 1e-4: on top of the gliding offset, the resting penetration m g dt^2 R_n / 4 per corner
  // (~1e-7 m) changes only through w_i, i.e. by O(1e-3) of itself as the corners rise
  // (~1e-10 m against a 2.6e-4 m rise); plus the solver's eps_r = 1e-6.
  CHECK(dz == Approx(dt * mu * dv).epsilon(1e-4));
}

TEST_CASE("particle: a fast sliding box stays on the ground (SAP gliding vs contact margin)",
          "[contact-physics]") {
  // Physics: a box sliding down a flat incline never leaves it; it accelerates at
  // g (sin a - mu cos a) and its height stays put. The SAP model floats a sliding body at
  // the gap (dt + tau_d) mu |v_t| (docs/design/sap-problem.md §5). With a fixed contact_margin
  // (1e-3 m) that gap passes the margin at |v_t| = 1e-3 / (1e-3 x 0.3) = 3.3 m/s (t = 1.9 s here),
  // the pair would drop out of the contact set, the box fall back inside the margin and the
  // speculative contact launch it into hops. The problem builder therefore widens each
  // body's margin by the distance it can cover within the step
  // (contact_problem_builder.h), and the box must glide as predicted.
  const double angle = std::atan(0.5), mu = 0.3;
  const SceneRun run = RunScene(BoxScene(angle, mu, 3.0));
  const int box = run.Body("box");
  double max_rise = 0, max_vz = 0;
  int steps_without_contact = 0;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    max_rise = std::max(max_rise, row.body_position(2, box) - 0.05);
    max_vz = std::max(max_vz, std::abs(row.body_linear_velocity(2, box)));
    steps_without_contact += row.contacts.empty();
  }
  Report("fast sliding box: max rise above rest height [m]", max_rise, 0.0);
  Report("fast sliding box: max |v_z| [m/s]", max_vz, 0.0);
  INFO("max rise " << max_rise << " m, max |v_z| " << max_vz << " m/s, "
                   << steps_without_contact << " steps without contact");
  // Gliding itself is expected: at most (dt + tau_d) mu |v_t| = 1e-3 x 0.3 x 5.3 = 1.6e-3 m
  // by t = 3 s, rising at dt mu a = 5.3e-4 m/s. Allow 2x both.
  CHECK(max_rise < 3.2e-3);
  CHECK(max_vz < 1.1e-3);
  CHECK(steps_without_contact == 0);
  const double a_expected = kG * (std::sin(angle) - mu * std::cos(angle));
  CHECK(run.rows.back().body_linear_velocity(0, box) == Approx(a_expected * 3.0).epsilon(1e-3));
}

}  // namespace
}  // namespace csim::contact_physics
