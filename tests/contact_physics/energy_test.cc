// No energy from nowhere: dissipative scenes (dominoes, a leaning stack, boxes tumbling onto
// boxes, rolling capsules, cylinders and spheres, convex meshes, ellipsoids) whose total
// mechanical energy E = kinetic + gravity, as the run loop records it for every step (the
// engine's CalcKineticEnergy and CalcPotentialEnergy, engine/multibody/energy.h), never
// rises by more than what the scheme can legitimately give back.
//
// The bound. Under the default scheme (symplectic Euler, SAP, near-rigid contact):
//  - Free flight loses energy: v1 = v0 - g dt, z1 = z0 + dt v1 change m v^2 / 2 + m g z by
//    -m g^2 dt^2 / 2 a step; a lone free body's rotation keeps its kinetic energy (implicit
//    gyroscopic torque, scene-format.md "Choosing an integrator").
//  - A near-rigid contact is a linear spring acting on the penetration predicted at the end
//    of the step, F = k x with x = -(phi0 + dt v_n) and k = 4 pi^2 / (beta^2 w dt^2) (SAP
//    eq. 29: R_n = beta^2 w / (4 pi^2), v_hat = -phi0 / dt without dissipation), solved
//    implicitly; friction is the projection onto the cone, which only dissipates. An
//    implicit (backward Euler) spring cannot gain energy: kinetic + gravity + elastic energy
//    never rises. The elastic part, F x / 2 per contact at the end of a step, is not in
//    /energy, and it is the only energy that can come back. Hence, for every pair of steps
//    n < m (not only consecutive ones, so that no slow pumping goes unseen):
//        E_m - E_n <= U_n = sum over the contacts of step n of F x / 2.
//    With near-rigid contact U is small: a resting body of mass m holds about
//    m g^2 dt^2 / (8 pi^2) (1.2e-6 J for 1 kg at dt = 1e-3); an impact stores at most
//    1 / (4 pi^2) of the kinetic energy it removes, most of which the implicit step then
//    dissipates. The test computes x from each row: phi0, and the normal velocity of the
//    contact point from the row's body velocities, taken at the previous row's positions
//    (where the solver evaluates its Jacobian). When sliding, SAP's normal force can exceed
//    k x; F x / 2 then overstates the elastic energy, which only loosens the bound.
//  - What the bound leaves out: the solver predicts the gap at first order, phi0 + dt v_n,
//    and misses dt^2 / 2 of the gap's second derivative. For the vertices, edges and faces of
//    boxes and meshes that is the centripetal drift of a point turning with its body: in a
//    lasting contact the body turns about that very point (a domino about its edge, a box
//    rocking on a corner), which then does not drift; in an impact the drift dt^2 w^2 r / 2
//    is a fraction w dt of the approach dt v_n, and the same impact dissipates the approach.
//    Cylinders, capsules and spheres rolling about their axes keep their gaps with the
//    ground exactly linear, and meet each other in impacts. An ellipsoid rolling or rocking
//    on its curved surface is different: its lowest point runs over radii of curvature up
//    to a^2 / c, the gap curves by up to w^2 (a^2 - c^2) / c, every step leaves dt^2 / 2 of
//    that as an overlap the next step pushes out, and the energy gain is a first-order
//    error of the scheme; its test allows the normal force's work through that overlap and
//    checks that the gain halves with dt.
//  - Round-off: E sums a few dozen terms; 1e-12 of the largest |kinetic| + |potential| of
//    the run is far above its rounding and far below every effect above.
// The domino row is also held to a plainer target, no one-step rise above 0.1 % of the
// initial energy; the bound above is tighter.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;
constexpr double kG = 9.81;

// Scene text ------------------------------------------------------------------------------

std::string Vec(const Vector3d& v) {
  return "[" + Num(v.x()) + ", " + Num(v.y()) + ", " + Num(v.z()) + "]";
}

// Scene header: ground halfspace, near-rigid contact (stiffness .inf) with friction mu,
// default settings but the step and the duration.
std::string Header(double duration, double mu, double dt = 1e-3) {
  return "csim: 1\nsettings: {time_step: " + Num(dt) + ", duration: " + Num(duration) +
         "}\nmaterials:\n  default: {stiffness: .inf, friction: " + Num(mu) +
         "}\nworld: {geometry: [{shape: halfspace}]}\nbodies:\n";
}

// One free body: `geometry` is a YAML flow map; pose by position and roll-pitch-yaw,
// initial velocity by the origin's linear and the angular velocity (world).
std::string Body(const std::string& name, double mass, const std::string& geometry,
                 const Vector3d& position, const Vector3d& rpy = Vector3d::Zero(),
                 const Vector3d& v = Vector3d::Zero(), const Vector3d& w = Vector3d::Zero()) {
  return "  - {name: " + name + ", mass: " + Num(mass) + ", geometry: [" + geometry +
         "], pose: {position: " + Vec(position) + ", rpy: " + Vec(rpy) +
         "}, velocity: {linear: " + Vec(v) + ", angular: " + Vec(w) + "}}\n";
}

std::string BoxShape(const Vector3d& size) { return "{shape: box, size: " + Vec(size) + "}"; }
std::string SphereShape(double r) { return "{shape: sphere, radius: " + Num(r) + "}"; }
std::string EllipsoidShape(const Vector3d& radii) {
  return "{shape: ellipsoid, radii: " + Vec(radii) + "}";
}
std::string AxialShape(const std::string& shape, double r, double length) {
  return "{shape: " + shape + ", radius: " + Num(r) + ", length: " + Num(length) + "}";
}
// A mesh of tests/data scaled by `scale`, its frame moved by `offset` (the unit cube's
// corner sits at its origin: -scale/2 centres it, so that its centre of mass is the body's
// origin like every other body here).
std::string MeshShape(const std::string& file, double scale, const Vector3d& offset) {
  return "{shape: mesh, file: " + std::string(CSIM_SOURCE_DIR) + "/tests/data/" + file +
         ", scale: " + Num(scale) + ", pose: {position: " + Vec(offset) + "}}";
}

// A domino of thickness t (along x), width w and height h standing on the ground with its
// centre at x; `omega` [rad/s] turns it about its front bottom edge, a pure rotation about
// that edge: its centre moves at omega x (centre - edge) = omega (h/2, 0, t/2).
std::string Domino(int i, double mass, double t, double w, double h, double x, double omega) {
  const Vector3d v(omega * h / 2, 0, omega * t / 2), spin(0, omega, 0);
  return Body("d" + std::to_string(i), mass, BoxShape({t, w, h}), {x, 0, h / 2},
              Vector3d::Zero(), v, spin);
}

// Whether a push at omega carries a domino over its front edge: the kinetic energy about
// that edge must lift its centre of mass from h/2 to half its diagonal.
bool TipsOver(double t, double h, double omega) {
  const double inertia_per_mass = (t * t + h * h) / 12 + (t * t + h * h) / 4;
  const double lift = std::hypot(t / 2, h / 2) - h / 2;
  return 0.5 * inertia_per_mass * omega * omega > kG * lift;
}

// A row of n equal dominoes with their centres `pitch` apart; the first one pushed.
struct DominoRowSpec {
  const char* name;
  int n;
  double t, w, h, pitch, omega, mass, duration;
};

std::string DominoRow(const DominoRowSpec& s) {
  REQUIRE(TipsOver(s.t, s.h, s.omega));
  std::string yaml = Header(s.duration, 0.6);
  for (int i = 0; i < s.n; ++i)
    yaml += Domino(i, s.mass, s.t, s.w, s.h, i * s.pitch, i == 0 ? s.omega : 0.0);
  return yaml;
}

// Energy audit ----------------------------------------------------------------------------

double TotalEnergy(const sim::Row& row) { return row.kinetic_energy + row.potential_energy; }

// Velocity [m/s] at the end of `row`'s step of the material point of body b at p_W,
// about the body's origin at the step's start (`previous`), where the contact solver
// evaluated the contact Jacobian. The world (-1) does not move.
Vector3d PointVelocity(const sim::Row& previous, const sim::Row& row, int b, const Vector3d& p_W) {
  if (b < 0) return Vector3d::Zero();
  return row.body_linear_velocity.col(b) +
         row.body_angular_velocity.col(b).cross(p_W - previous.body_position.col(b));
}

// Elastic energy [J] the contacts of `row`'s step hold at its end: F x / 2 per contact,
// F the normal force and x = -(phi0 + dt v_n) the penetration it acts on (see the top).
double ElasticEnergy(const sim::Row& previous, const sim::Row& row, double dt) {
  double energy = 0.0;
  for (const sim::ContactRow& c : row.contacts) {
    const double f_n = c.force.dot(c.normal);  // on b, along the normal from a into b
    const double v_n = c.normal.dot(PointVelocity(previous, row, c.body_b, c.point) -
                                    PointVelocity(previous, row, c.body_a, c.point));
    const double x = -(c.signed_distance + dt * v_n);
    if (f_n > 0 && x > 0) energy += 0.5 * f_n * x;
  }
  return energy;
}

// Work [J] the normal forces of `row`'s step can do through the overlap the first-order gap
// misses on curved bodies that turn: F dt^2 |w|^2 reach / 2 per contact and curved body,
// with reach[b] the bound on the gap's curvature per squared angular velocity [m] (0 for
// bodies whose gaps stay linear) and |w| the larger of the step's start and end rates.
double CurvatureWork(const sim::Row& previous, const sim::Row& row, double dt,
                     const std::vector<double>& reach) {
  double work = 0.0;
  for (const sim::ContactRow& c : row.contacts) {
    const double f_n = c.force.dot(c.normal);
    if (f_n <= 0) continue;
    for (const int b : {c.body_a, c.body_b}) {
      if (b < 0 || reach[b] == 0.0) continue;
      const double w2 = std::max(previous.body_angular_velocity.col(b).squaredNorm(),
                                 row.body_angular_velocity.col(b).squaredNorm());
      work += f_n * 0.5 * dt * dt * w2 * reach[b];
    }
  }
  return work;
}

struct EnergyAudit {
  double e0 = 0.0;                 ///< [J] initial energy
  double worst_step_rise = -std::numeric_limits<double>::infinity();  ///< [J] max E_{n+1} - E_n
  double worst_step_time = 0.0;    ///< [s] when (row n+1)
  /// [J] max over n < m of E_m - E_n - U_n - (curvature work of steps n+1..m) - round-off:
  /// positive when the bound fails.
  double worst_excess = -std::numeric_limits<double>::infinity();
  double worst_excess_time = 0.0;  ///< [s] row n of that excess
  /// max over n of (max_{m > n} E_m - E_n) / U_n where E rises after n: how much of the
  /// stored elastic energy the strict bound's worst case used (reported, not checked).
  double worst_share = 0.0;
  double largest_elastic = 0.0;    ///< [J] max U_n
};

// Audits a whole run (every step recorded). `reach` per body as in CurvatureWork; empty for
// the strict bound.
EnergyAudit AuditEnergy(const SceneRun& run, std::vector<double> reach = {}) {
  const std::vector<sim::Row>& rows = run.rows;
  const double dt = run.scene.settings.time_step;
  REQUIRE(run.scene.settings.output.every == 1);
  REQUIRE(rows.size() >= 2);
  if (reach.empty()) reach.assign(run.scene.model.num_bodies(), 0.0);
  const size_t n = rows.size();
  std::vector<double> E(n), U(n, 0.0), G(n);  // G = E less the curvature work so far
  double curvature_work = 0.0, scale = 0.0;
  for (size_t i = 0; i < n; ++i) {
    E[i] = TotalEnergy(rows[i]);
    scale = std::max(scale, std::abs(rows[i].kinetic_energy) + std::abs(rows[i].potential_energy));
    if (i > 0) {
      U[i] = ElasticEnergy(rows[i - 1], rows[i], dt);
      curvature_work += CurvatureWork(rows[i - 1], rows[i], dt, reach);
    }
    G[i] = E[i] - curvature_work;
  }
  const double round_off = 1e-12 * scale;
  EnergyAudit audit;
  audit.e0 = E[0];
  double later_G = -std::numeric_limits<double>::infinity();  // max of G over rows after i
  double later_E = -std::numeric_limits<double>::infinity();
  for (size_t i = n - 1; i-- > 0;) {
    later_G = std::max(later_G, G[i + 1]);
    later_E = std::max(later_E, E[i + 1]);
    if (E[i + 1] - E[i] > audit.worst_step_rise) {
      audit.worst_step_rise = E[i + 1] - E[i];
      audit.worst_step_time = rows[i + 1].time;
    }
    const double excess = later_G - G[i] - U[i] - round_off;
    if (excess > audit.worst_excess) {
      audit.worst_excess = excess;
      audit.worst_excess_time = rows[i].time;
    }
    if (later_E > E[i] && U[i] > 0)
      audit.worst_share = std::max(audit.worst_share, (later_E - E[i]) / U[i]);
    audit.largest_elastic = std::max(audit.largest_elastic, U[i]);
  }
  return audit;
}

void ReportAudit(const std::string& name, const EnergyAudit& a) {
  if (std::getenv("CSIM_PHYSICS_VERBOSE") == nullptr) return;
  std::printf("  %-34s E0 %.4e J; worst one-step rise %+.3e J (%+.1e E0) at t = %.3f s; "
              "worst later rise / stored elastic energy %.3f; largest stored %.2e J\n",
              name.c_str(), a.e0, a.worst_step_rise, a.worst_step_rise / a.e0,
              a.worst_step_time, a.worst_share, a.largest_elastic);
}

// Checks the bound at the top on a run and reports the audit.
EnergyAudit CheckNoEnergyFromNowhere(const std::string& name, const SceneRun& run,
                                     std::vector<double> reach = {}) {
  const EnergyAudit audit = AuditEnergy(run, std::move(reach));
  ReportAudit(name, audit);
  INFO(name << ": energy after t = " << audit.worst_excess_time << " s exceeds it by "
            << audit.worst_excess << " J beyond the elastic energy its contacts held");
  CHECK(audit.worst_excess <= 0.0);
  return audit;
}

// Scene helpers ---------------------------------------------------------------------------

// Angle [rad] between body b's z axis and the world's (from the row's quaternion w, x, y, z).
double Tilt(const sim::Row& row, int b) {
  const Eigen::Vector4d q = row.body_quaternion.col(b).normalized();
  const double cos_tilt = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
  return std::acos(std::clamp(cos_tilt, -1.0, 1.0));
}

// Steps in which bodies a and b (names; "world" for the ground) pressed on each other.
int StepsInContact(const SceneRun& run, const std::string& a, const std::string& b) {
  const int ia = a == "world" ? -1 : run.Body(a), ib = b == "world" ? -1 : run.Body(b);
  int steps = 0;
  for (const sim::Row& row : run.rows) {
    steps += std::any_of(row.contacts.begin(), row.contacts.end(), [&](const sim::ContactRow& c) {
      return ((c.body_a == ia && c.body_b == ib) || (c.body_a == ib && c.body_b == ia)) &&
             c.force.dot(c.normal) > 0;
    });
  }
  return steps;
}

std::string ReadSceneFile(const std::string& name) {
  std::ifstream in(std::string(CSIM_SOURCE_DIR) + "/scenes/" + name);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// scenes/domino_row.yaml ------------------------------------------------------------------

TEST_CASE("energy: scenes/domino_row.yaml topples in order, comes to rest leaning at acos(t/p), "
          "and gains no energy", "[contact-physics][energy]") {
  const SceneRun run = RunScene(ReadSceneFile("domino_row.yaml"));
  const int n = 10;
  const double t = 0.01, h = 0.1, p = 0.05, m = 0.04;
  REQUIRE(run.scene.model.num_bodies() == n);

  // The energy bound, and the plainer target: no step gains 0.1 % of the initial energy.
  const EnergyAudit audit = CheckNoEnergyFromNowhere("domino_row.yaml", run);
  CHECK(audit.worst_step_rise <= 1e-3 * audit.e0);

  // In order: each domino passes 10 degrees of tilt after the one before it, all within the
  // first second.
  std::vector<double> toppled(n, -1.0);
  for (const sim::Row& row : run.rows)
    for (int i = 0; i < n; ++i)
      if (toppled[i] < 0 && Tilt(row, run.Body("d" + std::to_string(i))) > 10 * kPi / 180)
        toppled[i] = row.time;
  for (int i = 0; i < n; ++i) {
    INFO("domino " << i << " passed 10 degrees at t = " << toppled[i] << " s");
    CHECK(toppled[i] > 0);
    CHECK(toppled[i] < 1.0);
    if (i > 0) CHECK(toppled[i] > toppled[i - 1]);
  }

  // At rest, leaning at acos(t / p) on the next one, the last one flat. The pivots slide a
  // little on the ground (friction 0.6 against the push of the next domino), which changes
  // the angles by a degree or so.
  const sim::Row& last = run.rows.back();
  const double lean = std::acos(t / p);
  for (int i = 0; i < n; ++i) {
    const double tilt = Tilt(last, run.Body("d" + std::to_string(i)));
    Report("domino_row: final tilt of d" + std::to_string(i) + " [deg]", tilt * 180 / kPi,
           (i < n - 1 ? lean : kPi / 2) * 180 / kPi);
    CHECK(tilt == Approx(i < n - 1 ? lean : kPi / 2).margin(2 * kPi / 180));
  }
  const double leaning_height = h / 2 * std::cos(lean) + t / 2 * std::sin(lean);
  const double e_final = m * kG * ((n - 1) * leaning_height + t / 2);
  Report("domino_row: final energy [J]", TotalEnergy(last), e_final);
  CHECK(TotalEnergy(last) == Approx(e_final).epsilon(0.02));
  CHECK(last.kinetic_energy < 1e-6 * audit.e0);
}

// Dominoes of other sizes and spacings ----------------------------------------------------

TEST_CASE("energy: domino rows of other sizes and spacings topple without gaining energy",
          "[contact-physics][energy]") {
  // name, n, thickness, width, height, pitch [m], push [rad/s], mass [kg], duration [s]
  const DominoRowSpec rows[] = {
      {"half size", 6, 0.005, 0.025, 0.05, 0.025, 4.3, 0.005, 0.8},
      {"dense (pitch 3 cm)", 6, 0.01, 0.05, 0.1, 0.03, 3.0, 0.04, 0.8},
      {"wide (pitch 8 cm)", 6, 0.01, 0.05, 0.1, 0.08, 3.0, 0.04, 1.0},
      {"double size", 6, 0.02, 0.1, 0.2, 0.1, 2.2, 0.3, 1.2},
      {"thick (2 x 5 x 8 cm)", 6, 0.02, 0.05, 0.08, 0.05, 6.0, 0.06, 0.8},
  };
  for (const DominoRowSpec& s : rows) {
    INFO(s.name);
    const SceneRun run = RunScene(DominoRow(s));
    CheckNoEnergyFromNowhere(std::string("dominoes, ") + s.name, run);
    // Every domino but the last leans on the next at acos(t / p), the last lies flat, and
    // the row is at rest (see scenes/domino_row.yaml).
    const sim::Row& last = run.rows.back();
    for (int i = 0; i < s.n; ++i) {
      INFO("domino " << i);
      const double expected = i < s.n - 1 ? std::acos(s.t / s.pitch) : kPi / 2;
      CHECK(Tilt(last, run.Body("d" + std::to_string(i))) ==
            Approx(expected).margin(3 * kPi / 180));
    }
    CHECK(last.kinetic_energy < 1e-6 * TotalEnergy(run.rows.front()));
  }
}

TEST_CASE("energy: a row of growing dominoes (each 1.4 times the last) topples without gaining "
          "energy", "[contact-physics][energy]") {
  // A domino topples one 1.4 times its size when the next stands within its reach: here
  // half its height further on. Mass follows volume (650 kg/m^3); the 6 cm first domino
  // is pushed at 4 rad/s, the fifth is 23 cm tall and 120 times as heavy.
  const int n = 5;
  std::string yaml = Header(2.0, 0.6);
  double t = 0.006, w = 0.03, h = 0.06, x = 0.0;
  REQUIRE(TipsOver(t, h, 4.0));
  for (int i = 0; i < n; ++i) {
    yaml += Domino(i, 650 * t * w * h, t, w, h, x, i == 0 ? 4.0 : 0.0);
    x += h / 2;
    t *= 1.4, w *= 1.4, h *= 1.4;
  }
  const SceneRun run = RunScene(yaml);
  CheckNoEnergyFromNowhere("dominoes, growing", run);
  const sim::Row& last = run.rows.back();
  for (int i = 0; i < n; ++i) {
    INFO("domino " << i);
    CHECK(Tilt(last, run.Body("d" + std::to_string(i))) > 60 * kPi / 180);  // all down
  }
  CHECK(last.kinetic_energy < 1e-6 * TotalEnergy(run.rows.front()));
}

// Stacks, tumbling boxes, rolling bodies, meshes ----------------------------------------------

TEST_CASE("energy: a leaning stack of boxes topples without gaining energy",
          "[contact-physics][energy]") {
  // Five 10 x 10 x 4 cm slabs of 0.5 kg, each 2.2 cm further along x than the one below:
  // the four upper ones have their centre of mass 5.5 cm out, beyond the bottom slab's
  // edge at 5 cm, so the stack topples over that edge and the slabs slide and tumble
  // onto each other and the ground.
  std::string yaml = Header(1.0, 0.5);
  for (int i = 0; i < 5; ++i)
    yaml += Body("s" + std::to_string(i), 0.5, BoxShape({0.1, 0.1, 0.04}),
                 {0.022 * i, 0.003 * i, 0.02 + 0.04 * i});
  const SceneRun run = RunScene(yaml);
  CheckNoEnergyFromNowhere("leaning stack", run);
  CHECK(run.rows.back().body_position(2, run.Body("s4")) < 0.1);  // the top slab came down
  CHECK(StepsInContact(run, "world", "s4") > 0);
}

TEST_CASE("energy: boxes tumbling onto boxes gain no energy", "[contact-physics][energy]") {
  // Three 10 cm cubes of 0.8 kg side by side on the ground; three flatter boxes of 0.3 kg
  // dropped onto them from 0.2-0.4 m, tilted and spinning: corner, edge and face impacts
  // on the cubes and the ground.
  std::string yaml = Header(0.8, 0.5);
  for (int i = 0; i < 3; ++i)
    yaml += Body("base" + std::to_string(i), 0.8, BoxShape({0.1, 0.1, 0.1}), {0.105 * i, 0, 0.05});
  const std::string top = BoxShape({0.08, 0.06, 0.04});
  const Vector3d still = Vector3d::Zero();
  yaml += Body("top0", 0.3, top, {0.03, 0.01, 0.22}, {0.3, 0.5, 0.2}, still, {3, -2, 1});
  yaml += Body("top1", 0.3, top, {0.13, -0.02, 0.30}, {0.9, 0.1, 0.4}, still, {-2, 4, 0});
  yaml += Body("top2", 0.3, top, {0.19, 0.02, 0.40}, {0.2, 1.1, -0.3}, still, {1, 1, 5});
  const SceneRun run = RunScene(yaml);
  CheckNoEnergyFromNowhere("boxes tumbling onto boxes", run);
  CHECK(StepsInContact(run, "base0", "top0") > 0);
  CHECK(StepsInContact(run, "base1", "top1") > 0);
  CHECK(StepsInContact(run, "base2", "top2") > 0);
}

TEST_CASE("energy: capsules, cylinders and spheres rolling into each other gain no energy",
          "[contact-physics][energy]") {
  // Lanes along x on the ground, bodies lying with their axes along y and rolling without
  // slipping (w = v / r): a capsule and a cylinder head-on; a cylinder into a resting
  // cylinder; a capsule into a resting capsule turned by 0.3 rad; a sphere into a resting
  // cylinder; a sphere into a resting sphere. r = 3 cm (the last sphere 2.5 cm), 10 cm long.
  const double r = 0.03, roll = kPi / 2;
  auto lying = [&](const std::string& name, const std::string& shape, double x, double y,
                   double v, double yaw) {
    return Body(name, 0.2, AxialShape(shape, r, 0.1), {x, y, r}, {roll, 0, yaw}, {v, 0, 0},
                {0, v / r, 0});
  };
  std::string yaml = Header(0.8, 0.6);
  yaml += lying("cap0", "capsule", -0.25, 0.0, 1.0, 0);
  yaml += lying("cyl0", "cylinder", 0.25, 0.0, -1.0, 0);
  yaml += lying("cyl1", "cylinder", -0.2, 0.15, 0.8, 0);
  yaml += lying("cyl2", "cylinder", 0.1, 0.16, 0, 0);
  yaml += lying("cap1", "capsule", -0.2, 0.3, 0.8, 0);
  yaml += lying("cap2", "capsule", 0.05, 0.3, 0, 0.3);
  yaml += Body("ball0", 0.15, SphereShape(r), {-0.2, 0.45, r}, Vector3d::Zero(), {0.9, 0, 0},
               {0, 0.9 / r, 0});
  yaml += lying("cyl3", "cylinder", 0.05, 0.46, 0, 0);
  yaml += Body("ball1", 0.15, SphereShape(r), {-0.2, -0.15, r}, Vector3d::Zero(), {0.8, 0, 0},
               {0, 0.8 / r, 0});
  yaml += Body("ball2", 0.1, SphereShape(0.025), {0.05, -0.16, 0.025});
  const SceneRun run = RunScene(yaml);
  CheckNoEnergyFromNowhere("rolling capsules, cylinders, spheres", run);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"cap0", "cyl0"}, {"cyl1", "cyl2"}, {"cap1", "cap2"}, {"ball0", "cyl3"}, {"ball1", "ball2"}};
  for (const auto& [a, b] : pairs) {
    INFO(a << " - " << b);
    CHECK(StepsInContact(run, a, b) > 0);
  }
}

TEST_CASE("energy: convex meshes falling onto meshes gain no energy", "[contact-physics][energy]") {
  // Two 8 cm cubes from tests/data/unit_cube.obj, one on the ground and one dropped tilted
  // onto it, and two octahedra (tests/data/octahedron.obj, vertices 5 cm from the centre),
  // one spinning, dropped onto the cubes and the ground.
  const std::string cube = MeshShape("unit_cube.obj", 0.08, Vector3d::Constant(-0.04));
  const std::string octahedron = MeshShape("octahedron.obj", 0.05, Vector3d::Zero());
  std::string yaml = Header(0.8, 0.5);
  yaml += Body("c0", 0.5, cube, {0, 0, 0.04});
  yaml += Body("c1", 0.5, cube, {0.03, 0.01, 0.16}, {0.4, 0.3, 0.2});
  yaml += Body("o0", 0.3, octahedron, {-0.02, 0.02, 0.30}, {0.2, 0.7, 0.1}, Vector3d::Zero(),
               {0, 0, 3});
  yaml += Body("o1", 0.3, octahedron, {0.12, -0.03, 0.12}, {0.5, 0.1, 0.3});
  const SceneRun run = RunScene(yaml);
  CheckNoEnergyFromNowhere("meshes on meshes", run);
  CHECK(StepsInContact(run, "c0", "c1") > 0);
  CHECK(StepsInContact(run, "c1", "o0") > 0);
}

TEST_CASE("energy: an octahedron released on an edge tips onto a face without gaining energy",
          "[contact-physics][energy]") {
  // Both ends of the edge must be contacts: with one only, the other end sinks unresisted
  // and is then pushed out of an overlap no force had stored. The face next to the edge is
  // 6.5 degrees from the ground, just outside the support-feature tolerance, where a face's
  // third vertex 7 mm up competes with the edge's other end (the pair itself:
  // tests/geometry/narrow_phase_energy_pairs_test.cc).
  // The octahedron of tests/data/octahedron.obj, s = 5 cm, 0.3 kg, at rest on its edge from
  // (0, s, 0) to (0, 0, s) with its face towards (-s, 0, 0) 6.5 degrees from the ground:
  // it tips onto that face and comes to rest with its centre at the inradius s / sqrt(3).
  const double s = 0.05, m = 0.3;
  const double beta = std::atan(1 / std::sqrt(2.0)) - 6.5 * kPi / 180;
  const Vector3d e = Vector3d(0, -1, 1).normalized();  // along the edge
  const Vector3d d = std::cos(beta) * Vector3d(0, 1, 1).normalized() +
                     std::sin(beta) * Vector3d(-1, 0, 0);  // down, in the octahedron's frame
  Eigen::Matrix3d frame;  // octahedron-frame directions that become world x, y, z
  frame << e.cross(-d), e, -d;
  const Eigen::Quaterniond q(Eigen::Matrix3d(frame.transpose()));
  const std::string yaml =
      Header(0.6, 0.5) + "  - {name: o0, mass: " + Num(m) + ", geometry: [" +
      MeshShape("octahedron.obj", s, Vector3d::Zero()) + "], pose: {position: " +
      Vec({0, 0, s * std::cos(beta) / std::sqrt(2.0)}) + ", quaternion: [" + Num(q.w()) + ", " +
      Num(q.x()) + ", " + Num(q.y()) + ", " + Num(q.z()) + "]}}\n";
  const SceneRun run = RunScene(yaml);
  CheckNoEnergyFromNowhere("octahedron on an edge", run);
  const sim::Row& last = run.rows.back();
  CHECK(last.body_position(2, 0) == Approx(s / std::sqrt(3.0)).margin(1e-5));
  CHECK(last.kinetic_energy < 1e-6 * TotalEnergy(run.rows.front()));
}

// Ellipsoids ------------------------------------------------------------------------------

// An ellipsoid of radii a > b > c dropped spinning onto the ground, where it rocks and
// rolls on its curved side.
std::string RockingEllipsoid(double dt) {
  return Header(0.8, 0.6, dt) + Body("e0", 0.3, EllipsoidShape({0.06, 0.03, 0.02}),
                                     {0, 0, 0.10}, {0.3, 0.5, 0.2}, {0.3, 0, 0}, {0, 2, 5});
}

TEST_CASE("energy: an ellipsoid rocking on the ground gains energy only at first order in dt",
          "[contact-physics][energy]") {
  // The ground contact is exact (the ellipsoid's lowest point), so what the strict bound
  // misses here is the scheme's own first-order gap (see the top): with the work of the
  // normal force through the overlap it leaves, F dt^2 w^2 (a^2 - c^2) / (2 c) a step, the
  // bound holds at every dt, and the gain beyond the stored elastic energy halves with dt.
  const double a = 0.06, c = 0.02;
  const std::vector<double> dts = {1e-3, 5e-4, 2.5e-4};
  std::vector<double> gains;
  for (const double dt : dts) {
    INFO("dt " << dt);
    const SceneRun run = RunScene(RockingEllipsoid(dt));
    const std::string name = "rocking ellipsoid, dt " + std::to_string(dt * 1e3) + " ms";
    CheckNoEnergyFromNowhere(name, run, {(a * a - c * c) / c});
    const EnergyAudit strict = AuditEnergy(run);
    gains.push_back(strict.worst_excess);
    Report(name + ": gain beyond the stored elastic energy [J]", strict.worst_excess, 0.0);
  }
  for (const double gain : gains) CHECK(gain > 0);  // the effect is there to be measured
  if (gains.front() > 0 && gains.back() > 0) CHECK(FitOrder(dts, gains) == Approx(1.0).margin(0.2));
}

TEST_CASE("energy: ellipsoids resting on spheres gain no energy",
          "[contact-physics][energy]") {
  // Shallow sphere-ellipsoid and ellipsoid-ellipsoid overlaps (1e-7 to 1e-5 m) must be
  // overlaps with the normal out of A: a gap with the normal reversed lets the ellipsoid
  // sink in, then pushes it out of an overlap no force had stored (the pair itself:
  // tests/geometry/narrow_phase_energy_pairs_test.cc).
  // Three spheres of 0.3 kg on the ground, two ellipsoids dropped nearly flat onto them,
  // without spin, so that they settle slowly (no fast rocking: the strict bound applies).
  std::string yaml = Header(0.8, 0.6);
  yaml += Body("s0", 0.3, SphereShape(0.04), {0, 0, 0.04});
  yaml += Body("s1", 0.3, SphereShape(0.04), {0.085, 0, 0.04});
  yaml += Body("s2", 0.3, SphereShape(0.04), {0.0425, 0.075, 0.04});
  yaml += Body("e0", 0.2, EllipsoidShape({0.06, 0.04, 0.02}), {0.04, 0.03, 0.12}, {0.05, 0.1, 0.3});
  yaml += Body("e1", 0.1, EllipsoidShape({0.03, 0.02, 0.015}), {0.05, 0.02, 0.20}, {0.4, 0.2, 0.0});
  const SceneRun run = RunScene(yaml);
  CheckNoEnergyFromNowhere("ellipsoids on spheres", run);
  CHECK(StepsInContact(run, "s0", "e0") > 0);
  CHECK(StepsInContact(run, "e0", "e1") > 0);
}

}  // namespace
}  // namespace csim::contact_physics
