// Warm start of the active set (sap_solver.h, SapSolverParameters::predict_stiction): a
// stale warm start whose small slip makes plain SAP see sliding contacts converges in one
// Newton iteration when the contacts are predicted stuck, to the same solution; a wrong
// prediction (the contacts really slide) costs no correctness.

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_solver.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::Vector4d;
using Eigen::VectorXd;

// A planar-rotating disk on three ground contacts (the pizza saver of
// docs/design/reference-cases.md §1): generalized velocities (x, y, z, theta), m = 3 kg, I = m R^2,
// R = 1.5 m, dt = 0.01 s, compliant contacts (k = 1e4 N/m, tau_d = 0.01 s) at zero distance,
// friction mu. `push` is a horizontal generalized force along x [N].
void BuildDisk(double mu, double push, bool predict_stiction, ContactProblem* problem) {
  const double dt = 0.01, m = 3.0, radius = 1.5, g = 10.0;
  const Vector4d M_diag(m, m, m, m * radius * radius);
  problem->Clear(dt);
  problem->AddClique(MatrixXd(M_diag.asDiagonal()));
  const Vector4d tau(push, 0, -m * g, 0);
  problem->SetFreeMotionVelocity(dt * M_diag.cwiseInverse().cwiseProduct(tau));
  SapFrictionConeParameters params;
  params.stiction_sigma = 1.0e-3;
  params.mu = mu;
  params.stiffness = 1e4;
  params.dissipation_time = 0.01;
  params.phi0 = 0.0;
  params.near_rigid_threshold = 0.0;  // compliant: R from k and tau_d
  params.was_stuck = predict_stiction;
  for (int i = 0; i < 3; ++i) {
    const double angle = 2.0 * M_PI * i / 3.0 + 0.3;
    const double px = radius * std::cos(angle), py = radius * std::sin(angle);
    MatrixXd J(3, 4);
    J << 1, 0, 0, -py, 0, 1, 0, px, 0, 0, 1, 0;
    problem->AddConstraint(0, J, SapFrictionConeConstraint(params));
  }
}

// Solves `problem` from `guess` with parameters p; the solve must meet SAP eq. 26.
SapSolverResult SolveToOptimality(const ContactProblem& problem, const SapSolverParameters& p,
                                  const VectorXd& guess) {
  SapSolver solver(p);
  SapSolverResult r;
  REQUIRE(solver.Solve(problem, guess, &r).ok());
  REQUIRE(r.stats.termination == SapTermination::kOptimality);
  return r;
}

SapSolverResult SolveDisk(double mu, double push, bool predicted, const VectorXd& guess,
                          int prediction_iterations = 8) {
  ContactProblem problem;
  BuildDisk(mu, push, predicted, &problem);
  SapSolverParameters p;
  p.predict_stiction = true;  // the constraints decide whether they predict
  p.predict_crossings = predicted;  // plain SAP: no predictions learnt within the solve either
  p.prediction_iterations = prediction_iterations;
  const SapSolverResult r = SolveToOptimality(problem, p, guess);
  CHECK(r.stats.momentum_error <= 1e-6);
  return r;
}

TEST_CASE("predicted stiction: one Newton iteration from a stale, slipping warm start",
          "[solver]") {
  // The previous step's solution seen through moved contact frames: 1-2 mm/s of slip, and
  // sinking into the ground (compressive contacts).
  const VectorXd stale = Vector4d(2e-3, -1e-3, -0.03, 1e-3);
  const SapSolverResult plain = SolveDisk(1.0, 0.0, false, stale);
  const SapSolverResult predicted = SolveDisk(1.0, 0.0, true, stale);
  INFO("iterations plain " << plain.stats.iterations << ", predicted "
                           << predicted.stats.iterations);
  // At rest under gravity every contact sticks, so the stiction model is exact: its Newton
  // step lands on the solution.
  CHECK(predicted.stats.iterations == 1);
  CHECK(predicted.stats.predicted_islands == 1);
  CHECK(predicted.stats.prediction_fallbacks == 0);
  CHECK(plain.stats.iterations >= 3);  // plain SAP rediscovers stiction contact by contact
  // Same solution up to the stopping tolerance; stuck: tangential creep only.
  CHECK((predicted.v - plain.v).norm() <= 1e-6 * plain.v.norm());
  CHECK(predicted.v.head<2>().norm() < 1e-6);
  CHECK((predicted.gamma - plain.gamma).norm() <= 1e-6 * plain.gamma.norm());
}

TEST_CASE("a wrong stiction prediction changes the path, not the solution", "[solver]") {
  // Pushed with 2x the friction limit, the disk slides: the contacts are predicted stuck
  // (as if they had stuck at the previous step), yet the solve converges to the sliding
  // solution of plain SAP.
  const double mu = 0.5, push = 2.0 * mu * 3.0 * 10.0;
  const VectorXd sinking = Vector4d(0.0, 0.0, -0.03, 0.0);  // compressive: a prediction applies
  const SapSolverResult plain = SolveDisk(mu, push, false, sinking);
  // Predicted in the first direction only, in the first 8, and in every direction up to
  // the iteration limit: the fallback to the plain direction (a predicted direction that
  // is not a descent direction of the true cost) still reaches the sliding solution.
  for (int k : {1, 8, 100}) {
    INFO("prediction_iterations " << k);
    const SapSolverResult predicted = SolveDisk(mu, push, true, sinking, k);
    CHECK((predicted.v - plain.v).norm() <= 1e-6 * plain.v.norm());
    CHECK(predicted.v[0] > 0.01);  // it slides
    CHECK(predicted.stats.iterations > 1);
    CHECK(predicted.stats.predicted_islands == 1);  // counted once, not per iteration
    // Refuted by its own model after the first predicted step (or stopped by the full step):
    // the wrong prediction costs no more than one iteration over plain SAP.
    CHECK(predicted.stats.iterations <= plain.stats.iterations + 1);
    for (int i = 0; i < 3; ++i)
      CHECK(std::hypot(predicted.gamma[3 * i], predicted.gamma[3 * i + 1]) ==
            Approx(mu * predicted.gamma[3 * i + 2]).epsilon(1e-6));
  }
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

TEST_CASE("the extrapolated warm start refines an optimal guess once, an exact guess stands",
          "[solver]") {
  ContactProblem problem;
  BuildDisk(1.0, 0.0, false, &problem);
  SapSolverParameters p;
  p.warm_start = WarmStart::kExtrapolated;  // min_iterations() = 1
  SapSolver refining(p);
  SapSolverParameters sap;
  sap.warm_start = WarmStart::kPrevious;  // min_iterations() = 0: SAP's rule
  SapSolver plain(sap);
  SapSolverResult exact, r0, r1;
  // The solution to round-off, from a tight solve.
  SapSolverParameters tight;
  tight.relative_tolerance = 1e-13;
  SapSolver(tight).Solve(problem, Vector4d(0, 0, -0.03, 0), &exact);
  // A guess that meets eps_r = 1e-6 but is off by ~1e-10 relative (stiction is stiff: a
  // velocity error of 1e-7 relative already fails the momentum test).
  const VectorXd guess = exact.v + 1e-10 * exact.v.norm() * Vector4d(1, -1, 0.5, 0.2);
  REQUIRE(plain.Solve(problem, guess, &r0).ok());
  REQUIRE(refining.Solve(problem, guess, &r1).ok());
  CHECK(r0.stats.iterations == 0);  // accepted as is: error ~1e-10
  CHECK(r1.stats.iterations == 1);  // one Newton step on the (quadratic) stiction piece
  CHECK((r0.v - exact.v).norm() > 1e-11 * exact.v.norm());
  CHECK((r1.v - exact.v).norm() < 1e-13 * exact.v.norm());
  // Starting exactly at the solution, the refining step has nothing to do and must not
  // fail (no descent direction, no line-search progress).
  SapSolverResult r2;
  REQUIRE(refining.Solve(problem, exact.v, &r2).ok());
  CHECK(r2.stats.termination == SapTermination::kOptimality);
  CHECK((r2.v - exact.v).norm() <= 1e-12 * exact.v.norm());
}

TEST_CASE("an exact guess stands without the refining step, one merely within eps_r does not",
          "[solver]") {
  ContactProblem problem;
  BuildDisk(1.0, 0.0, false, &problem);
  SapSolverParameters tight;
  tight.relative_tolerance = 1e-13;
  SapSolverResult exact;
  SapSolver(tight).Solve(problem, Vector4d(0, 0, -0.03, 0), &exact);
  // The tight solution meets eps_r = 1e-6 to ~1e-7 of it (its own tolerance is 1e-13); a
  // guess off by 1e-10 relative meets it only to ~1e-3 of it (see the test above).
  const VectorXd close = exact.v + 1e-10 * exact.v.norm() * Vector4d(1, -1, 0.5, 0.2);
  auto iterations = [&](double fraction, const VectorXd& guess, VectorXd* v) {
    SapSolverParameters p;
    p.warm_start = WarmStart::kExtrapolated;
    p.exact_guess_fraction = fraction;
    SapSolverResult r;
    REQUIRE(SapSolver(p).Solve(problem, guess, &r).ok());
    REQUIRE(r.stats.termination == SapTermination::kOptimality);
    if (v != nullptr) *v = r.v;
    return r.stats.iterations;
  };
  VectorXd accepted, refined;
  CHECK(SapSolverParameters().exact_guess_fraction == 1e-6);
  CHECK(iterations(1e-6, exact.v, &accepted) == 0);   // exact: stands as it is
  CHECK(accepted == exact.v);
  CHECK(iterations(0.0, exact.v, &refined) == 1);     // 0: every guess refined
  // What standing costs: nothing a Newton step would have changed beyond round-off.
  CHECK((refined - accepted).norm() < 1e-12 * exact.v.norm());
  CHECK(iterations(1e-6, close, nullptr) == 1);       // within eps_r only: refined
  CHECK(iterations(1.0, close, nullptr) == 0);        // 1: any optimal guess stands (SAP)
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

// The disk of BuildDisk with a fourth, unpredicted contact that is open at the guess (a
// step `gap` [m] above the ground under a point on the rim) and closes during the step: the
// line search stops the first predicted step where that contact engages.
SapSolverResult SolveDiskWithStep(double gap, int prediction_iterations, const VectorXd& guess) {
  ContactProblem problem;
  BuildDisk(1.0, 0.0, true, &problem);
  SapFrictionConeParameters step;
  step.stiction_sigma = 1.0e-3;
  step.mu = 1.0;
  step.stiffness = 1e4;
  step.dissipation_time = 0.01;
  step.phi0 = gap;
  step.near_rigid_threshold = 0.0;
  MatrixXd J(3, 4);
  J << 1, 0, 0, 0, 0, 1, 0, 1.5, 0, 0, 1, 0;  // the rim point at angle 0
  problem.AddConstraint(0, J, SapFrictionConeConstraint(step));
  SapSolverParameters p;
  p.prediction_iterations = prediction_iterations;
  return SolveToOptimality(problem, p, guess);
}

TEST_CASE("a predicted step cut short by a contact closing in", "[solver]") {
  // A stale guess slipping by up to 0.1 m/s and sinking at 0.3 m/s: along the predicted
  // step the fourth contact (2 mm below the rim) engages and the line search stops short of
  // the full step. Predicted once or in up to 8 directions, the solution is the same, and
  // predicting more never costs iterations here.
  const VectorXd stale = Vector4d(0.1, -0.05, -0.3, 0.05);
  const SapSolverResult once = SolveDiskWithStep(2e-3, 1, stale);
  const SapSolverResult again = SolveDiskWithStep(2e-3, 8, stale);
  INFO("iterations predicted once " << once.stats.iterations << ", again "
                                    << again.stats.iterations);
  CHECK(again.stats.iterations <= once.stats.iterations);
  CHECK(again.stats.prediction_fallbacks == 0);
  CHECK((again.v - once.v).norm() <= 1e-6 * once.v.norm());
  // Physics: the disk rests on its three feet, stuck and pressed; the step below stays
  // open (it only stopped the line search on the way).
  double sum_n = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double gamma_n = again.gamma[3 * i + 2];
    CHECK(gamma_n > 0.0);
    CHECK(std::hypot(again.gamma[3 * i], again.gamma[3 * i + 1]) < gamma_n);
    sum_n += gamma_n;
  }
  CHECK(again.gamma.tail<3>().norm() == 0.0);
  // The feet carry the weight over the step: sum gamma_n = m (v_z - v*_z), v*_z = -g dt.
  const double m = 3.0, g = 10.0, dt = 0.01;
  CHECK(sum_n == Approx(m * g * dt + m * again.v[2]).epsilon(1e-6));
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

// The disk of BuildDisk without the previous step's prediction (the contacts were sliding
// before), at rest under gravity: every contact sticks at the solution.
SapSolverResult SolveDiskLearning(bool predict_stiction, bool predict_crossings,
                                  const VectorXd& guess, int prediction_iterations = 20) {
  ContactProblem problem;
  BuildDisk(1.0, 0.0, false, &problem);
  SapSolverParameters p;
  p.predict_stiction = predict_stiction;
  p.predict_crossings = predict_crossings;
  p.prediction_iterations = prediction_iterations;
  const SapSolverResult r = SolveToOptimality(problem, p, guess);
  CHECK(r.stats.momentum_error <= 1e-6);
  return r;
}

TEST_CASE("contacts a cut step carries through stiction are predicted stuck", "[solver]") {
  // Guesses sliding at 1 cm/s to 1 m/s in three directions, sinking slowly or fast, and
  // spinning either way. The first plain Newton steps overshoot through stiction (the
  // sliding model has no curvature along the slip) and the line search stops them there.
  int saved_two_or_more = 0, predicted = 0, paths = 0;
  for (double slip : {0.01, 0.05, 0.2, 1.0})
    for (double ratio : {-0.5, 0.0, 0.4})
      for (double sink : {-0.03, -0.3})
        for (double spin : {0.0, 0.02, -0.1}) {
          const VectorXd guess = Vector4d(slip, ratio * slip, sink, spin);
          INFO("guess " << guess.transpose());
          const SapSolverResult sap = SolveDiskLearning(false, true, guess);
          const SapSolverResult plain = SolveDiskLearning(true, false, guess);
          const SapSolverResult learning = SolveDiskLearning(true, true, guess);
          const SapSolverResult budget = SolveDiskLearning(true, true, guess, 1);
          INFO("iterations plain " << plain.stats.iterations << ", learning "
                                   << learning.stats.iterations);
          // Nothing is predicted from the previous step: without crossings, or with a budget
          // of one predicted direction (the first, which has nothing to predict), this is
          // SAP's own path, bit for bit.
          CHECK(plain.stats.predicted_islands == 0);
          CHECK(plain.v == sap.v);
          CHECK(budget.v == sap.v);
          CHECK(budget.stats.iterations == sap.stats.iterations);
          // The same solution up to the stopping tolerance: at rest, every contact stuck.
          CHECK((learning.v - plain.v).norm() <= 1e-6 * plain.v.norm());
          CHECK(learning.v.head<2>().norm() < 1e-6);
          for (int i = 0; i < 3; ++i)
            CHECK(std::hypot(learning.gamma[3 * i], learning.gamma[3 * i + 1]) <
                  learning.gamma[3 * i + 2]);
          // A prediction learnt from one cut step may be late (the plain step would have
          // landed anyway): it costs at most that one iteration.
          CHECK(learning.stats.iterations <= plain.stats.iterations + 1);
          saved_two_or_more += learning.stats.iterations <= plain.stats.iterations - 2;
          predicted += learning.stats.predicted_islands;  // the disk is one island
          ++paths;
        }
  // Crossings are predicted on most of these paths, and on some they cut the rediscovery
  // short by two iterations or more. On a three-contact disk that
  // is all there is to win; a pile's islands, which rediscover stiction contact by contact,
  // gain more (results/paired_solver_options.md).
  INFO(predicted << " of " << paths << " paths predicted, " << saved_two_or_more
                 << " shortened by two iterations or more");
  CHECK(2 * predicted > paths);
  CHECK(saved_two_or_more >= 1);
}

}  // namespace
}  // namespace csim::solver
