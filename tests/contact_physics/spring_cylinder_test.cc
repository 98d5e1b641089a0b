// docs/design/reference-cases.md §4, the spring-cylinder of the SAP paper (§VI-B): a solid
// cylinder, R = 0.05 m, m = 0.5 kg, lying on the ground with its axis along y, moves in the
// vertical x-z plane on a planar joint; a spring k_s = 100 N/m on the joint's x coordinate pulls it
// back to x = 0. Ground contact k = 1e4 N/m, tau_d = 0.02 s; released at rest from x0 = 0.1 m.
//   mu = 0: frictionless, a spring-mass: x = x0 cos(omega t), omega = sqrt(k_s / m);
//   mu = 1: rolling, m_eff = m + I / R^2 = 1.5 m, period 2 pi sqrt(1.5 m / k_s).
// And the convergence orders of e_q (docs/design/accuracy-metrics.md §5.1, RMS of the x error over
// 5 s) against a reference run at a much smaller step: midpoint 2, symplectic and implicit
// Euler 1 (SAP paper Fig. 6). Needs the theta theta_q dt^2 K_s term of A (docs/design/time-step.md
// §4.2).
//
// Geometry: the cylinder lies on a side line; the halfspace contact gives its two end
// points, each a point contact of stiffness k, so the cylinder rests at
// phi = -m g / (2 k) = -2.45e-4 m; it starts there (z0 = R + phi) to skip the drop.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tests/contact_physics/physics_helpers.h"
#include "tests/support/build_variant.h"

namespace csim::contact_physics {
namespace {

constexpr double kR = 0.05, kM = 0.5, kKs = 100.0, kK = 1e4, kX0 = 0.1, kG = 9.81;
constexpr double kPhi = -kM * kG / (2 * kK);  // resting penetration, two contact points

// The joint frame is rotated by roll = pi/2, so its x-y plane is the world x-z plane:
// q = [x (world x), z (height), angle about joint z = world -y].
const char* kScene = R"(
csim: 1
settings: {time_step: DT, duration: DURATION, integrator: INTEGRATOR, solver: {relative_tolerance: 1.0e-10}}
materials:
  ground: {stiffness: 1.0e4, dissipation_time: 0.02, friction: MU}
  cylinder: {stiffness: .inf, dissipation_time: 0.02, friction: MU}
world: {geometry: [{shape: halfspace, material: ground}]}
bodies:
  - name: cylinder
    mass: 0.5
    geometry: [{shape: cylinder, radius: 0.05, length: 0.1, material: cylinder}]
joints:
  - name: plane
    type: planar
    parent: world
    child: cylinder
    pose: {rpy: [1.5707963267948966, 0, 0]}
    initial: {q: [0.1, Z0, 0.0], v: [0.0, 0.0, 0.0]}
    spring: {stiffness: [100.0, 0.0, 0.0], rest: [0.0, 0.0, 0.0]}
    collide: true   # the parent is the world: without it the ground is filtered out
)";

std::string Scene(double mu, double dt, double duration, const std::string& integrator) {
  std::string s = Fill(kScene, "DURATION", Num(duration));
  s = Fill(s, "DT", Num(dt));
  s = Fill(s, "INTEGRATOR", integrator);
  s = Fill(s, "MU", Num(mu));
  return Fill(s, "Z0", Num(kR + kPhi));
}

// Times of the zero crossings of x (linear interpolation between rows; at a crossing
// x'' = -omega^2 x = 0, so the interpolation error is O(dt^3)).
std::vector<double> ZeroCrossings(const SceneRun& run) {
  std::vector<double> t;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const double a = run.rows[i - 1].q[0], b = run.rows[i].q[0];
    if ((a > 0) != (b > 0))
      t.push_back(run.rows[i - 1].time + (run.rows[i].time - run.rows[i - 1].time) * a / (a - b));
  }
  return t;
}

TEST_CASE("spring-cylinder, mu = 0: a spring-mass, x = x0 cos(omega t)", "[contact-physics]") {
  const double dt = 1e-3;
  const SceneRun run = RunScene(Scene(0.0, dt, 2.0, "midpoint"));
  const double omega = std::sqrt(kKs / kM);
  // The midpoint rule on a linear oscillator is the Cayley transform: a rotation of
  // (x, v / omega) by theta_d = 2 atan(omega dt / 2) per step, so x_n = x0 cos(n theta_d)
  // exactly (an independent closed form of the discrete solution).
  const double theta_d = 2 * std::atan(omega * dt / 2);
  double worst_continuous = 0, worst_discrete = 0;
  for (size_t n = 0; n < run.rows.size(); ++n) {
    const double x = run.rows[n].q[0];
    worst_continuous = std::max(worst_continuous, std::abs(x - kX0 * std::cos(omega * run.rows[n].time)));
    worst_discrete = std::max(worst_discrete, std::abs(x - kX0 * std::cos(n * theta_d)));
  }
  Report("mu = 0: max |x - x0 cos(omega t)| / x0", worst_continuous / kX0, 0.0);
  Report("mu = 0: max |x - x0 cos(n theta_d)| / x0", worst_discrete / kX0, 0.0);
  // Continuous: the midpoint phase error is omega t (omega dt)^2 / 12 = 4.7e-4 rad at 2 s,
  // so |x - x0 cos| <= 4.7e-4 x0; bound 1e-3 x0.
  CHECK(worst_continuous < 1e-3 * kX0);
  // Discrete: no friction, so x feels only the spring. With mu = 0, gamma_t = 0 and the
  // tangential block of G vanishes (docs/design/contact-models.md §2.2), so SAP's Newton step
  // leaves v_x = v*_x exactly and the free-motion Newton solve of a linear spring converges in one
  // step: round-off only, a few ulps a step; bound 1e-12 x0 over the 2000 steps.
  CHECK(worst_discrete < 1e-12 * kX0);
  // Frictionless contact exerts no torque: the cylinder does not turn.
  CHECK(std::abs(run.rows.back().q[2]) < 1e-12);
}

TEST_CASE("spring-cylinder, mu = 1: it rolls with period 2 pi sqrt(1.5 m / k_s)",
          "[contact-physics]") {
  const double dt = 1e-3;
  const SceneRun run = RunScene(Scene(1.0, dt, 2.0, "midpoint"));
  const std::vector<double> t = ZeroCrossings(run);
  REQUIRE(t.size() >= 5);
  // Period from the first and fifth crossing (two full periods).
  const double period = (t[4] - t[0]) / 2;
  const double T_textbook = 2 * M_PI * std::sqrt(1.5 * kM / kKs);
  // The discrete rolling constraint acts at the contact points, midway into the overlap,
  // so the lever arm is d = R + phi/2 (point_contact.h), and m_eff = m + I / d^2 with
  // I = m R^2 / 2: 1.6e-3 heavier than 1.5 m, 8e-4 longer period. The midpoint rule
  // stretches the period by omega / omega_d, omega_d dt = 2 atan(omega dt / 2).
  const double d = kR + kPhi / 2;
  const double omega = std::sqrt(kKs / (kM + 0.5 * kM * kR * kR / (d * d)));
  const double T_model = 2 * M_PI / (2 / dt * std::atan(omega * dt / 2));
  Report("mu = 1: period vs 2 pi sqrt(1.5 m / k_s)", period, T_textbook);
  Report("mu = 1: period vs lever arm R + phi/2, midpoint", period, T_model);
  // 1e-3 against the textbook period, which the lever-arm artifact (8e-4 of it) stays inside.
  CHECK(period == Approx(T_textbook).epsilon(1e-3));
  // Against the model's rolling body: 1e-5. The stiction creep acts as a stiff damper
  // (force = slip / (R_t dt)), which shifts the frequency only at second order in its tiny
  // damping ratio; the crossings' interpolation error is O(dt^3).
  CHECK(period == Approx(T_model).epsilon(1e-5));
  // Rolling: the angle follows x, angle rate = -x rate / d (angle about world -y).
  const sim::Row& last = run.rows.back();
  CHECK(std::abs(last.v[2] * d + last.v[0]) < 1e-4 * std::abs(last.v[0]) + 1e-9);
}

// e_q = sqrt(1/T int (x - x_ref)^2 dt) over [0, T], sampled at the rows of the coarser of
// the two runs (one step divides the other).
double RmsError(const SceneRun& run, const SceneRun& ref) {
  const double dt = run.rows[1].time - run.rows[0].time;
  const double dt_ref = ref.rows[1].time - ref.rows[0].time;
  const bool run_coarser = dt >= dt_ref;
  const long stride = run_coarser ? std::lround(dt / dt_ref) : std::lround(dt_ref / dt);
  const std::vector<sim::Row>& coarse = run_coarser ? run.rows : ref.rows;
  const std::vector<sim::Row>& fine = run_coarser ? ref.rows : run.rows;
  REQUIRE((coarse.size() - 1) * stride == fine.size() - 1);
  double sum = 0;
  for (size_t n = 1; n < coarse.size(); ++n) {
    const double e = coarse[n].q[0] - fine[n * stride].q[0];
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(coarse.size() - 1));
}

TEST_CASE("spring-cylinder, mu = 1: convergence orders of e_q", "[contact-physics]") {
  // The sanitized program leaves this study (30 s under the sanitizers) to the plain one:
  // the period and energy cases above run the same scene through the same code.
  if (csim::testing::UnderAddressSanitizer()) return;
  const double T = 5.0;
  // Reference: midpoint at dt = 1.5625e-4, 1/16 of the finest midpoint step fitted here, so
  // its own second-order e_q is 1/256 of that step's, and smaller still against the
  // first-order schemes' errors (results/spring_cylinder_convergence.csv has e_q per step).
  const double dt_ref = 0.0025 / 16;
  const SceneRun ref = RunScene(Scene(1.0, dt_ref, T, "midpoint"));
  struct Study {
    const char* integrator;
    std::vector<double> dts;
    double min_order, max_order;
  };
  // Step ranges (local orders over a wider range: results/spring_cylinder_convergence.csv).
  // Midpoint: 0.02 ... 0.0025, from the paper's step down, all in its asymptotic range.
  // The first-order schemes are fitted where their leading error term dominates:
  //  - symplectic Euler has only a phase error, O(dt) per unit time, but its O(dt^2) terms
  //    still show at the larger steps, so fit 2.5e-3 ... 6.25e-4;
  //  - implicit Euler damps the amplitude by exp(-omega^2 dt t / 2), i.e. by
  //    exp(-333 dt) over T = 5 s (omega^2 = 133 /s^2): its e_q saturates at the size of the
  //    motion unless 333 dt << 1, so fit 3.125e-4 ... 7.8e-5 (333 dt <= 0.1).
  // Bounds: >= 1.8 for midpoint; first order within +-0.1 of 1, room for the residual
  // curvature of these ranges.
  const std::vector<Study> studies = {
      {"midpoint", {0.02, 0.01, 0.005, 0.0025}, 1.8, 2.2},
      {"symplectic_euler", {0.0025, 0.00125, 0.000625}, 0.9, 1.1},
      {"implicit_euler", {0.0003125, 0.00015625, 0.000078125}, 0.9, 1.1},
  };
  for (const Study& study : studies) {
    std::vector<double> errors;
    for (double dt : study.dts) {
      const SceneRun run = RunScene(Scene(1.0, dt, T, study.integrator));
      errors.push_back(RmsError(run, ref));
      Report(std::string(study.integrator) + " e_q at dt = " + Num(dt), errors.back(), 0.0);
    }
    const double order = FitOrder(study.dts, errors);
    Report(std::string(study.integrator) + " measured order of e_q", order, 0.0);
    INFO(study.integrator << ": order " << order);
    CHECK(order >= study.min_order);
    CHECK(order <= study.max_order);
    // Errors decrease monotonically with dt (no floor from the reference or the solver).
    for (size_t i = 1; i < errors.size(); ++i) CHECK(errors[i] < errors[i - 1]);
  }
}

}  // namespace
}  // namespace csim::contact_physics
