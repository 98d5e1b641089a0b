// The theta-method against analytic solutions, conservation laws and measured convergence
// orders (docs/design/time-step.md §2: explicit, symplectic and implicit Euler first order,
// midpoint second; the energy behaviour of the SAP paper's Fig. 5).

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/integrator/theta_method.h"
#include "engine/math/rotation.h"
#include "engine/multibody/energy.h"
#include "engine/multibody/kinematics.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_models.h"
#include "tests/support/build_variant.h"

namespace csim::integrator {
namespace {

using Eigen::VectorXd;
using multibody::Model;
using multibody::State;

constexpr Gyroscopic kTorque = Gyroscopic::kImplicit;  // theta = 0 only
const ThetaParameters kExplicit{0.0, 0.0, kTorque}, kSymplectic{0.0, 1.0, kTorque},
    kImplicit{1.0, 1.0, kTorque}, kMidpoint{0.5, 0.5, kTorque};

// Runs `steps` steps; returns the states at t = 0, dt, ..., steps dt.
std::vector<State> Run(const Model& model, const ThetaParameters& p, double dt, int steps) {
  StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  State s{0.0, model.InitialQ(), model.InitialV()};
  std::vector<State> out{s};
  for (int n = 0; n < steps; ++n) {
    const StepStatus status = StepFreeMotion(model, p, FreeMotionSettings{}, dt, s, ws);
    REQUIRE(status.ok());
    out.push_back(s);
  }
  return out;
}

// Pendulum theta'' = -(g/L) sin(theta) by classical RK4 at a fine step: an independent
// reference. Returns theta at multiples of `stride` fine steps.
std::vector<double> PendulumReference(double g, double L, double theta0, double h, int steps, int stride) {
  auto f = [&](const Eigen::Vector2d& y) { return Eigen::Vector2d(y[1], -g / L * std::sin(y[0])); };
  Eigen::Vector2d y(theta0, 0.0);
  std::vector<double> out{y[0]};
  for (int n = 1; n <= steps; ++n) {
    const Eigen::Vector2d k1 = f(y), k2 = f(y + h / 2 * k1), k3 = f(y + h / 2 * k2), k4 = f(y + h * k3);
    y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    if (n % stride == 0) out.push_back(y[0]);
  }
  return out;
}

// Least-squares slope of log(error) against log(dt).
double FitOrder(const std::vector<double>& dts, const std::vector<double>& errors) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < dts.size(); ++i) mx += std::log(dts[i]), my += std::log(errors[i]);
  mx /= dts.size(), my /= dts.size();
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < dts.size(); ++i) {
    sxy += (std::log(dts[i]) - mx) * (std::log(errors[i]) - my);
    sxx += (std::log(dts[i]) - mx) * (std::log(dts[i]) - mx);
  }
  return sxy / sxx;
}

// Complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean.
double EllipticK(double k) {
  double a = 1.0, b = std::sqrt(1 - k * k);
  for (int i = 0; i < 30; ++i) {
    const double an = (a + b) / 2;
    b = std::sqrt(a * b);
    a = an;
  }
  return M_PI / (2 * a);
}

double Energy(const Model& model, const State& s) {
  // Spring-mass: 1/2 m v^2 + 1/2 k x^2 with the model's own parameters.
  const double m = model.bodies[0].mass, k = model.joints[0].spring_stiffness[0];
  return 0.5 * m * s.v[0] * s.v[0] + 0.5 * k * s.q[0] * s.q[0];
}

TEST_CASE("pendulum period matches the exact large-amplitude formula", "[integrator][pendulum]") {
  const double g = 9.81, L = 1.0, theta0 = 1.0, dt = 1e-3;
  const Model model = testing::Pendulum(1.0, L, g, theta0);
  const std::vector<State> run = Run(model, kMidpoint, dt, 8000);
  std::vector<double> crossings;  // downward zero crossings of theta, linearly interpolated
  for (size_t n = 1; n < run.size(); ++n)
    if (run[n - 1].q[0] > 0 && run[n].q[0] <= 0)
      crossings.push_back(run[n - 1].t + dt * run[n - 1].q[0] / (run[n - 1].q[0] - run[n].q[0]));
  REQUIRE(crossings.size() >= 3);
  const double measured = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  const double exact = 4 * std::sqrt(L / g) * EllipticK(std::sin(theta0 / 2));
  INFO("measured " << measured << " exact " << exact);
  CHECK(std::abs(measured - exact) / exact < 1e-5);
  // The small-angle period is 3.9 % shorter: the test distinguishes the two.
  CHECK(std::abs(2 * M_PI * std::sqrt(L / g) - exact) / exact > 0.03);
}

TEST_CASE("measured convergence orders of the four schemes", "[integrator][convergence]") {
  const double g = 9.81, L = 1.0, theta0 = 1.0, duration = 2.0, h_ref = 1e-5;
  const Model model = testing::Pendulum(1.0, L, g, theta0);
  const std::vector<double> dts{0.01, 0.005, 0.0025, 0.00125};
  struct Case { const char* name; ThetaParameters p; double order; };
  for (const Case& c : {Case{"explicit Euler", kExplicit, 1.0}, Case{"symplectic Euler", kSymplectic, 1.0},
                        Case{"implicit Euler", kImplicit, 1.0}, Case{"midpoint", kMidpoint, 2.0}}) {
    std::vector<double> errors;
    for (double dt : dts) {
      const int steps = static_cast<int>(std::lround(duration / dt));
      const int stride = static_cast<int>(std::lround(dt / h_ref));
      const std::vector<double> ref = PendulumReference(g, L, theta0, h_ref, steps * stride, stride);
      const std::vector<State> run = Run(model, c.p, dt, steps);
      double sum = 0;  // e_q: RMS over time of the position error
      for (int n = 0; n <= steps; ++n) sum += std::pow(run[n].q[0] - ref[n], 2);
      errors.push_back(std::sqrt(sum / (steps + 1)));
    }
    const double order = FitOrder(dts, errors);
    INFO(c.name << ": e_q = " << errors[0] << " .. " << errors.back() << ", order " << order);
    CHECK(std::abs(order - c.order) < 0.12);
  }
}

TEST_CASE("spring-mass energy: implicit decays, symplectic bounded, midpoint conserved", "[integrator][energy]") {
  const double m = 1.0, k = 4 * M_PI * M_PI, dt = 0.01;  // period 1 s, 100 steps per period
  const Model model = testing::SpringMass(m, k, 0.1);
  const int steps = 2000;
  const double E0 = 0.5 * k * 0.01;
  auto band = [&](const std::vector<State>& run, int from, int to) {
    double lo = INFINITY, hi = -INFINITY;
    for (int n = from; n <= to; ++n) lo = std::min(lo, Energy(model, run[n])), hi = std::max(hi, Energy(model, run[n]));
    return std::make_pair(lo / E0, hi / E0);
  };
  SECTION("implicit Euler dissipates monotonically") {
    const auto run = Run(model, kImplicit, dt, steps);
    for (int n = 1; n <= steps; ++n) REQUIRE(Energy(model, run[n]) <= Energy(model, run[n - 1]) * (1 + 1e-12));
    // Per step the energy shrinks by 1/(1 + (w dt)^2): after 20 periods about e^-7.9.
    CHECK(Energy(model, run[steps]) / E0 == Approx(std::pow(1 + k / m * dt * dt, -steps)).epsilon(1e-6));
  }
  SECTION("symplectic Euler oscillates in a band that does not drift") {
    const auto run = Run(model, kSymplectic, dt, steps);
    const auto first = band(run, 0, 100), last = band(run, steps - 100, steps);
    // The modified energy is conserved: the band has width about w dt and stays put.
    CHECK(first.second - first.first > 0.5 * std::sqrt(k / m) * dt);
    CHECK(first.second - first.first < 1.5 * std::sqrt(k / m) * dt);
    CHECK(std::abs(last.first - first.first) < 1e-3);
    CHECK(std::abs(last.second - first.second) < 1e-3);
  }
  SECTION("midpoint conserves energy to round-off") {
    const auto run = Run(model, kMidpoint, dt, steps);
    const auto all = band(run, 0, steps);
    CHECK(all.first > 1 - 1e-11);
    CHECK(all.second < 1 + 1e-11);
  }
  SECTION("explicit Euler gains energy") {
    const auto run = Run(model, kExplicit, dt, steps);
    CHECK(Energy(model, run[steps]) / E0 == Approx(std::pow(1 + k / m * dt * dt, steps)).epsilon(1e-6));
  }
}

// World angular momentum R I R^T w and kinetic energy of the free body of FreeBody().
Eigen::Vector3d AngularMomentum(const Model& model, const State& s) {
  const Eigen::Matrix3d R = math::RotationFromQuaternion(s.q.head<4>());
  return R * model.bodies[0].inertia * R.transpose() * s.v.head<3>();
}

TEST_CASE("torque-free body: midpoint conserves momentum and energy, the intermediate axis flips", "[integrator][free-body]") {
  const Eigen::Vector3d I(1.0, 2.0, 3.0), w0(0.01, 3.0, 0.01);
  const Model model = testing::FreeBody(I, w0);
  auto drift = [&](double dt, double duration, double* energy_drift, bool* flipped) {
    const auto run = Run(model, kMidpoint, dt, static_cast<int>(std::lround(duration / dt)));
    const Eigen::Vector3d L0 = AngularMomentum(model, run[0]);
    const double E0 = 0.5 * w0.dot(I.asDiagonal() * w0);
    double worst = 0;
    *energy_drift = 0;
    *flipped = false;
    for (const State& s : run) {
      worst = std::max(worst, (AngularMomentum(model, s) - L0).norm() / L0.norm());
      const Eigen::Vector3d w_B = math::RotationFromQuaternion(s.q.head<4>()).transpose() * s.v.head<3>();
      *energy_drift = std::max(*energy_drift, std::abs(0.5 * w_B.dot(I.asDiagonal() * w_B) - E0) / E0);
      if (w_B.y() < -0.9 * w0.y()) *flipped = true;  // spinning the other way about y
    }
    return worst;
  };
  double e1, e2;
  bool flipped1, flipped2;
  const double l1 = drift(2e-3, 12.0, &e1, &flipped1);
  const double l2 = drift(1e-3, 12.0, &e2, &flipped2);
  INFO("momentum drift " << l1 << " -> " << l2 << ", energy drift " << e1 << " -> " << e2);
  CHECK(l2 < 1e-5);
  CHECK(e2 < 1e-5);
  CHECK(flipped2);
  CHECK(flipped1);
}

TEST_CASE("free fall: midpoint is exact, symplectic Euler lags by g t dt / 2", "[integrator][free-body]") {
  Model model = testing::FreeBody(Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(0.3, -0.2, 0.5));
  model.gravity = Eigen::Vector3d(0, 0, -9.81);
  model.joints[0].v_initial.tail<3>() = Eigen::Vector3d(1, 0, 2);
  const double dt = 0.01;
  const auto mid = Run(model, kMidpoint, dt, 100), sym = Run(model, kSymplectic, dt, 100);
  for (int n : {10, 50, 100}) {
    const double t = n * dt;
    const Eigen::Vector3d exact = Eigen::Vector3d(1, 0, 2) * t + 0.5 * model.gravity * t * t;
    CHECK((mid[n].q.tail<3>() - exact).norm() < 1e-12);
    // Symplectic Euler: p_n = v0 t + g dt^2 n (n + 1) / 2 = exact + g t dt / 2.
    CHECK((sym[n].q.tail<3>() - (exact + 0.5 * model.gravity * t * dt)).norm() < 1e-12);
  }
}

TEST_CASE("implicit step reports non-convergence instead of returning a wrong state", "[integrator]") {
  const Model model = testing::Pendulum(1.0, 1.0, 9.81, 1.0);
  StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  State s{0.0, model.InitialQ(), model.InitialV()};
  const State before = s;
  FreeMotionSettings one_iteration;
  one_iteration.max_iterations = 1;
  const StepStatus status = StepFreeMotion(model, kMidpoint, one_iteration, 0.05, s, ws);
  CHECK(status.outcome == StepOutcome::kNotConverged);
  CHECK(status.reason.find("did not converge") != std::string::npos);
  CHECK(s.q == before.q);
  CHECK(s.t == before.t);
}

// At max_iterations an iteration that is still contracting is accepted when its residual is
// within the stall's bar (stalled_tolerance, SAP's eps_r) and fails above it: the pendulum's
// midpoint step at dt 0.05 needs several iterations for 1e-12; capped earlier, the first cap
// whose residual is within 1e-6 succeeds with that residual, and fails when the bar is the
// tolerance itself.
TEST_CASE("implicit step at max_iterations is accepted only within the stall's bar", "[integrator]") {
  const Model model = testing::Pendulum(1.0, 1.0, 9.81, 1.0);
  StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  const State start{0.0, model.InitialQ(), model.InitialV()};
  State full = start;
  REQUIRE(StepFreeMotion(model, kMidpoint, FreeMotionSettings{}, 0.05, full, ws).ok());
  const int needed = ws.iterations;
  int accepted_below_needed = 0;
  for (int cap = 1; cap < needed; ++cap) {
    FreeMotionSettings capped;
    capped.max_iterations = cap;
    State s = start;
    const StepStatus status = StepFreeMotion(model, kMidpoint, capped, 0.05, s, ws);
    INFO("cap " << cap << " of " << needed << ": " << status.reason << ", residual "
                << ws.momentum_error);
    if (status.ok()) {
      CHECK(ws.momentum_error <= capped.stalled_tolerance);
      CHECK(ws.momentum_error > capped.relative_tolerance);
      ++accepted_below_needed;
      capped.stalled_tolerance = capped.relative_tolerance;  // no bar: the cap fails
      State t = start;
      CHECK(StepFreeMotion(model, kMidpoint, capped, 0.05, t, ws).outcome ==
            StepOutcome::kNotConverged);
    } else {
      CHECK(status.outcome == StepOutcome::kNotConverged);
      CHECK(ws.momentum_error > capped.stalled_tolerance);
    }
  }
  CHECK(accepted_below_needed >= 1);
}

// A rope of 100 ball-jointed links: the momentum residual's rounding grows like n^2 eps
// (FreeMotionSettings), so it stalls above the 1e-12 tolerance. The implicit schemes must
// stop at that floor instead of reporting no convergence, and midpoint, which conserves
// energy to second order, must still do so on the released rope.
TEST_CASE("implicit steps of a 100-link rope stop at the round-off floor and conserve energy", "[integrator][chain]") {
  const Model model = testing::BallChain(100, 0.1, 0.1, 0.6);
  multibody::Workspace mb = multibody::MakeWorkspace(model);
  auto energy = [&](const State& s) {
    multibody::CalcKinematics(model, s.t, s.q, s.v, mb);
    return multibody::CalcKineticEnergy(model, mb) + multibody::CalcPotentialEnergy(model, mb);
  };
  for (const ThetaParameters& p : {kImplicit, kMidpoint}) {
    StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
    State s{0.0, model.InitialQ(), model.InitialV()};
    const double E0 = energy(s);
    double worst_error = 0.0;
    const int steps = 30;
    for (int n = 0; n < steps; ++n) {
      const StepStatus status = StepFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s, ws);
      INFO("theta " << p.theta << ", step " << n + 1 << ": " << status.reason);
      REQUIRE(status.ok());
      worst_error = std::max(worst_error, ws.momentum_error);
    }
    const double E = energy(s), kinetic = multibody::CalcKineticEnergy(model, mb);
    INFO("theta " << p.theta << ": worst scaled residual " << worst_error << ", energy " << E0
                  << " -> " << E << " J, kinetic " << kinetic << " J");
    CHECK(worst_error <= FreeMotionSettings{}.stalled_tolerance);
    CHECK(worst_error < 1e-8);  // the round-off floor; a stall far above it is not one
    // Midpoint keeps the total to 1e-6 J, far below the kinetic energy the rope gains in
    // these 30 ms; implicit Euler dissipates.
    if (p.theta == 0.5) CHECK(std::abs(E - E0) < 1e-6);
    if (p.theta == 1.0) CHECK(E < E0);
  }
}

// The free-motion solve factorizes 6 x 6 blocks of A (free bodies) with fixed-size kernels
// and the others with the dense L D L^T loops: both factors reproduce A, and the explicit step's v*
// satisfies M (v* - v0) = dt k to round-off.
TEST_CASE("free-motion factors reproduce every block of A, 6 x 6 or not", "[integrator][free-body]") {
  int six = 0, other = 0;
  std::vector<Model> models;  // one tree each: a spinning free body, random trees
  models.push_back(testing::FreeBody(Eigen::Vector3d(1.0, 2.0, 3.0), Eigen::Vector3d(0.01, 3.0, 0.5)));
  models.back().gravity = Eigen::Vector3d(0, 0, -9.81);
  for (unsigned seed = 1; seed <= 3; ++seed) models.push_back(testing::RandomTree(12, seed));
  for (const Model& model : models) {
    for (const ThetaParameters& p : {kSymplectic, kMidpoint}) {
      StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kDense);
      const State s{0.0, model.InitialQ(), model.InitialV()};
      REQUIRE(CalcFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s, ws).ok());
      for (int k = 0; k < ws.A.num_blocks(); ++k) {
        const Eigen::MatrixXd A = ws.A.block(k);
        Eigen::MatrixXd LLt;
        if (A.rows() == 6) {
          const Eigen::MatrixXd L = ws.A_six[k].triangularView<Eigen::Lower>();
          LLt = L * L.transpose();
          ++six;
        } else {
          // L D L^T with unit L below the diagonal and 1 / D on it (solver/dense_ldlt.h).
          const Eigen::MatrixXd& F = ws.A_factor[k];
          const Eigen::MatrixXd L = F.triangularView<Eigen::UnitLower>();
          LLt = L * F.diagonal().cwiseInverse().asDiagonal() * L.transpose();
          ++other;
        }
        INFO("model " << &model - models.data() << ", block " << k << " (" << A.rows() << " velocities)");
        CHECK((LLt - A).norm() <= 1e-13 * A.norm());
      }
      if (p.theta == 0.0) CHECK(ws.momentum_error < 1e-14);
    }
  }
  INFO(six << " blocks of 6 velocities, " << other << " others");
  CHECK(six > 0);
  CHECK(other > 0);
}

// A new workspace copies like a value (sanitized build: a copy of anything uninitialised
// stops the test under UBSan), its dense factors already of their blocks' sizes (so the
// step does not allocate them), and a copy steps as the original does.
TEST_CASE("a new workspace copies like a value, its dense factors sized", "[integrator]") {
  const Model model = testing::RandomTree(12, 1);
  const StepWorkspace original = MakeStepWorkspace(model, TreeSolver::kDense);
  StepWorkspace ws = original;
  StepWorkspace copy = original;
  int dense = 0;
  for (int k = 0; k < ws.A.num_blocks(); ++k) {
    if (ws.A.range(k).size == 6) continue;
    ++dense;
    CHECK(copy.A_factor[k].rows() == ws.A.range(k).size);
    CHECK(copy.A_factor[k].cols() == ws.A.range(k).size);
  }
  CHECK(dense > 0);
  State s{0.0, model.InitialQ(), model.InitialV()}, s_copy = s;
  REQUIRE(StepFreeMotion(model, kMidpoint, FreeMotionSettings{}, 1e-3, s, ws).ok());
  REQUIRE(StepFreeMotion(model, kMidpoint, FreeMotionSettings{}, 1e-3, s_copy, copy).ok());
  CHECK(s_copy.q == s.q);
  CHECK(s_copy.v == s.v);
}

TEST_CASE("a warmed-up step allocates nothing", "[integrator][allocation]") {
  const Model model = testing::RandomTree(12, 3);
  for (const TreeSolver tree_solve : {TreeSolver::kDense, TreeSolver::kArticulated})
    for (const ThetaParameters& p : {kSymplectic, kMidpoint, kImplicit}) {
      StepWorkspace ws = MakeStepWorkspace(model, tree_solve);
      State s{0.0, model.InitialQ(), model.InitialV()};
      REQUIRE(StepFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s, ws).ok());
      const std::size_t before = testing::AllocationCount();
      for (int n = 0; n < 20; ++n) StepFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s, ws);
      CHECK(testing::AllocationCount() - before == 0);
    }
}

// The articulated-body solves of A give the dense Cholesky's steps: on random forests with
// every joint type (prescribed ones among them: seeds 1-4, one with springs and dampers on
// its scalar joints, which enter A's diagonal), to round-off, and on the 100-link rope,
// where the dense solve itself resolves only about 1e-7 (M's condition number is about
// 5e10: tests/multibody/articulated_body_test.cc), to a few times that over 30 steps.
// Both leave the same A for the contact solve, formed at the end of the free-motion solve
// (on the rope up to the difference of the two v*). The cost rule picks the recursions for
// the rope and the 6 x 6 Cholesky for a free body.
TEST_CASE("articulated-body solves of A step as the dense Cholesky does", "[integrator][aba]") {
  std::vector<Model> models;
  for (unsigned seed = 1; seed <= 4; ++seed) models.push_back(testing::RandomTree(12, seed));
  for (multibody::Joint& joint : models[1].joints) {  // scalar joints, as the loader allows
    if (joint.v_start < 0 || joint.nq != joint.nv) continue;
    joint.spring_stiffness = VectorXd::Constant(joint.nv, 40.0);
    joint.spring_rest = VectorXd::Zero(joint.nv);
    joint.damping = VectorXd::Constant(joint.nv, 0.5);
  }
  models.push_back(testing::BallChain(100, 0.1, 0.1, 0.6));
  for (const Model& model : models) {
    const bool rope = model.num_bodies() == 100;
    for (const ThetaParameters& p : {kSymplectic, kMidpoint, kImplicit}) {
      StepWorkspace dense = MakeStepWorkspace(model, TreeSolver::kDense);
      StepWorkspace articulated = MakeStepWorkspace(model, TreeSolver::kArticulated);
      State s_dense{0.0, model.InitialQ(), model.InitialV()}, s_articulated = s_dense;
      double worst = 0.0;
      // Fewer steps under the sanitizers, where the 100-link rope's dense factor is slow.
      const int steps = csim::testing::UnderAddressSanitizer() ? 8 : 30;
      for (int n = 0; n < steps; ++n) {
        REQUIRE(StepFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s_dense, dense).ok());
        REQUIRE(StepFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s_articulated, articulated).ok());
        worst = std::max(worst, (s_dense.v - s_articulated.v).norm() / s_dense.v.norm());
      }
      INFO("model " << &model - models.data() << ", theta " << p.theta << ": worst relative "
                    "velocity difference " << worst);
      CHECK(worst < (rope ? 5e-6 : 1e-12));
      // The contact solve reads A: the articulated path forms it once, at the end of the
      // free-motion solve, and must give the dense path's A there.
      const State s0{0.0, model.InitialQ(), model.InitialV()};
      REQUIRE(CalcFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s0, dense).ok());
      REQUIRE(CalcFreeMotion(model, p, FreeMotionSettings{}, 1e-3, s0, articulated).ok());
      const Eigen::MatrixXd A_dense = dense.A.ToDense(), A_articulated = articulated.A.ToDense();
      CHECK((A_dense - A_articulated).norm() <= (rope ? 1e-7 : 1e-12) * A_dense.norm());
    }
  }
  CHECK(MakeStepWorkspace(models.back(), TreeSolver::kAuto).articulated[0]);
  // The threshold is lower for a tree that can touch something (its Newton block of the
  // contact solve is factored by the same choice): 8 ball-jointed links (nv 24) without
  // collision geometry are factored densely, with it (or with visual geometry only: dense)
  // by the recursions.
  Model short_rope = testing::BallChain(8, 0.1, 0.1, 0.6);
  CHECK_FALSE(MakeStepWorkspace(short_rope, integrator::TreeSolver::kAuto).articulated[0]);
  geometry::Geometry capsule;
  capsule.type = geometry::ShapeType::kCapsule;
  capsule.size = Eigen::Vector3d(0.01, 0.08, 0.0);
  capsule.collide = false;
  short_rope.bodies.back().geometry.push_back(capsule);
  CHECK_FALSE(MakeStepWorkspace(short_rope, integrator::TreeSolver::kAuto).articulated[0]);
  short_rope.bodies.back().geometry.back().collide = true;
  CHECK(MakeStepWorkspace(short_rope, integrator::TreeSolver::kAuto).articulated[0]);
  const Model free_body = testing::FreeBody(Eigen::Vector3d(1.0, 2.0, 3.0), Eigen::Vector3d(0.01, 3.0, 0.5));
  CHECK_FALSE(MakeStepWorkspace(free_body, integrator::TreeSolver::kAuto).articulated[0]);
}

}  // namespace
}  // namespace csim::integrator

namespace csim::integrator {
namespace {

// A pendulum (point bob, rod L about +y) hanging from a cart whose x motion is prescribed,
// x_c = A sin(2 pi f t). Lagrange: theta'' = (x_c'' cos(theta) - g sin(theta)) / L.
TEST_CASE("pendulum on a prescribed cart follows the driven equation of motion", "[integrator][prescribed]") {
  const double A = 0.2, f = 1.5, g = 9.81, L = 0.5, dt = 1e-3, duration = 2.0;
  Model model = testing::Pendulum(1.0, L, g, 0.3);
  multibody::Joint cart;
  cart.name = "cart";
  cart.type = multibody::JointType::kPrismatic;
  cart.parent = -1;
  cart.child = 0;
  cart.axis = Eigen::Vector3d::UnitX();
  cart.prescribed = true;
  cart.motion.amplitude = Eigen::VectorXd::Constant(1, A);
  cart.motion.frequency = f;
  multibody::Body cart_body;
  cart_body.name = "cart";
  cart_body.mass = 3.0;
  cart_body.inertia = Eigen::Matrix3d::Identity();
  // The cart becomes body 0 and the pendulum hangs from it.
  model.bodies.insert(model.bodies.begin(), cart_body);
  model.joints.insert(model.joints.begin(), cart);
  model.joints[1].parent = 0;
  model.joints[1].child = 1;
  multibody::AssignCoordinates(model);
  REQUIRE(model.nv == 1);

  const double w = 2 * M_PI * f;
  auto rhs = [&](double t, const Eigen::Vector2d& y) {
    const double xdd = -A * w * w * std::sin(w * t);
    return Eigen::Vector2d(y[1], (xdd * std::cos(y[0]) - g * std::sin(y[0])) / L);
  };
  // RK4 reference at dt / 20.
  const int sub = 20, steps = static_cast<int>(duration / dt);
  const double h = dt / sub;
  Eigen::Vector2d y(0.3, 0.0);
  std::vector<double> ref{y[0]};
  for (int n = 0; n < steps * sub; ++n) {
    const double t = n * h;
    const Eigen::Vector2d k1 = rhs(t, y), k2 = rhs(t + h / 2, y + h / 2 * k1),
                          k3 = rhs(t + h / 2, y + h / 2 * k2), k4 = rhs(t + h, y + h * k3);
    y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    if ((n + 1) % sub == 0) ref.push_back(y[0]);
  }
  const auto run = Run(model, kMidpoint, dt, steps);
  double worst = 0;
  for (int n = 0; n <= steps; ++n) worst = std::max(worst, std::abs(run[n].q[0] - ref[n]));
  INFO("max |theta - theta_ref| = " << worst);
  CHECK(worst < 1e-4);
  // Without the cart's acceleration the answer differs by far more: the test sees it.
  double free_swing = 0;
  const auto still = Run(testing::Pendulum(1.0, L, g, 0.3), kMidpoint, dt, steps);
  for (int n = 0; n <= steps; ++n) free_swing = std::max(free_swing, std::abs(still[n].q[0] - ref[n]));
  CHECK(free_swing > 100 * worst);
}

}  // namespace
}  // namespace csim::integrator

namespace csim::integrator {
namespace {

// Underdamped oscillator m x'' + c x' + k x = 0 from x0 at rest:
// x = x0 e^(-z w t) (cos(wd t) + z w / wd sin(wd t)), wd = w sqrt(1 - z^2).
TEST_CASE("damped joint spring follows the analytic damped oscillation", "[integrator][damping]") {
  const double m = 1.0, k = 100.0, c = 2.0, x0 = 0.1, dt = 1e-3;
  Model model = testing::SpringMass(m, k, x0);
  model.joints[0].damping = Eigen::VectorXd::Constant(1, c);
  const double w = std::sqrt(k / m), z = c / (2 * std::sqrt(k * m)), wd = w * std::sqrt(1 - z * z);
  auto exact = [&](double t) { return x0 * std::exp(-z * w * t) * (std::cos(wd * t) + z * w / wd * std::sin(wd * t)); };
  auto max_error = [&](const ThetaParameters& p, double h) {
    double worst = 0;
    for (const State& s : Run(model, p, h, static_cast<int>(std::lround(3.0 / h))))
      worst = std::max(worst, std::abs(s.q[0] - exact(s.t)));
    return worst;
  };
  for (const ThetaParameters& p : {kMidpoint, kImplicit, kSymplectic}) {
    const double e1 = max_error(p, dt), e2 = max_error(p, dt / 2);
    INFO("theta " << p.theta << " theta_q " << p.theta_q << ": max error " << e1 << " -> " << e2);
    // The error falls by 2^order when dt halves: 4 for midpoint, 2 for the Euler schemes.
    const double order = std::log2(e1 / e2);
    CHECK(std::abs(order - (p.theta == 0.5 ? 2.0 : 1.0)) < 0.1);
    // And it is small: (w dt)^2 ~ 1e-4 resp. w dt ~ 1e-2 relative to x0 over ~5 periods.
    CHECK(e1 < (p.theta == 0.5 ? 1e-5 : 5e-3));
  }
}

}  // namespace
}  // namespace csim::integrator
