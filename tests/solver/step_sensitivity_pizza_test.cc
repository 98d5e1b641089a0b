// One step's derivatives by the implicit function theorem (docs/design/sensitivities.md §5-§6)
// against central differences of full solves, on two reference cases:
//   - the pizza saver of docs/design/reference-cases.md §1 (the problem written by hand, fed
//     to SapSolver and StepSensitivitySolver directly), in its three moving rows: stiction
//     under a torque below mu m g R, spinning above it, and sliding without friction. At every
//     step of each row's run, every contact parameter direction (mu, k, tau_d, phi0, shared by
//     the three contacts and per contact) and every state column (x, y, z, theta and their
//     velocities, through SolveRightHandSides) is checked; in the frictionless row mu = 0 is
//     mu's bound, checked by one-sided second-order differences into mu > 0;
//   - the planar ellipse of scenes/ellipse_drop.yaml at the first step its contact pushes
//     (frictionless, as the scene, and with friction 0.5, sliding at 0.5 m/s), through
//     integrator::TrajectorySensitivity (one Advance) against full steps of StepWithContact
//     at x0 +- eps e_i and at material parameters p (1 +- 1e-6): every state column, the
//     ellipse's dissipation time and friction, and the contact stiffness.
// Every solve to SAP eq. 26 with eps_r = 1e-13, eps_a = 0, the cost criterion off and the
// dense factorization; agreement to 1e-5 relative, as tests/solver/step_sensitivity_test.cc.
// A direction whose +-h solves put some contact on another region is skipped and counted;
// each case says how many it may skip (none). Each case prints its largest relative
// differences (`pizza sensitivity ...`, `ellipse impact ...`).

#include "engine/solver/step_sensitivity.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/trajectory_sensitivity.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/simulate.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "tests/support/tight_solver.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::Vector4d;
using Eigen::VectorXd;

constexpr double kRelativeStep = 1e-6;
constexpr double kTolerance = 1e-5;
// The relative differences are taken against at least this fraction of the natural scale
// (as tests/solver/step_sensitivity_test.cc): the finite differences carry the solves' error,
// about eps_r / 1e-6 of that scale, which would otherwise dominate a derivative that is zero
// (d/dmu in stiction, d/dx of a problem that does not read x) or nearly so.
constexpr double kFloor = 1e-3;

SapSolverParameters TightParameters() {
  SapSolverParameters p = testing::TightSolverParameters();
  // At least one Newton iteration from the guess (min_iterations()): a perturbed problem's
  // solve starts from the nominal solution, which may already meet the tolerance where a
  // direction barely acts (tau_d at rest, u_n ~ 0) and would be returned unrefined, a finite
  // difference of exactly 0; one Newton step from within O(h) of the optimum lands within
  // O(h^2) of it. A cold start instead ends only as close as its last step, which a stuck
  // contact's impulse amplifies by 1 / R_t.
  p.warm_start = WarmStart::kExtrapolated;
  return p;
}

// ---- The pizza saver ----

// docs/design/reference-cases.md §1, as tests/solver/sap_solver_test.cc: m = 3 kg,
// circumradius R = 1.5 m, I = m R^2, g = 10 m/s^2, q = (x, y, z, theta) with v = qdot, one
// clique of four velocities, a ground contact at each vertex with phi0 = z. Each contact has
// its own parameters here, so that one contact's can move alone.
struct Pizza {
  double dt = 0.01, m = 3.0, radius = 1.5, g = 10.0;
  double beta = std::numeric_limits<double>::epsilon(), sigma = 1e-3;
  double mu[3] = {1.0, 1.0, 1.0};
  double k[3] = {1e4, 1e4, 1e4};
  double tau_d[3] = {0.01, 0.01, 0.01};
  double phi0_offset[3] = {0.0, 0.0, 0.0};  // contact i's phi0 is z + phi0_offset[i]
  Vector4d tau = Vector4d(0, 0, -30, 0);    // applied generalized force, gravity included
  Vector4d q = Vector4d(0, 0, 0, M_PI / 5);
  Vector4d v = Vector4d::Zero();

  Vector4d Mass() const { return Vector4d(m, m, m, m * radius * radius); }

  // The contact Jacobians at theta: rows t1 = x, t2 = y, n = z of the vertex's velocity.
  void Jacobians(double theta, MatrixXd J[3]) const {
    const double c = std::cos(theta), s = std::sin(theta);
    const Vector3d p_B[3] = {radius * Vector3d(-std::sqrt(3.0) / 2, -0.5, 0),
                             radius * Vector3d(std::sqrt(3.0) / 2, -0.5, 0),
                             radius * Vector3d(0, 1, 0)};
    for (int i = 0; i < 3; ++i) {
      const double px = c * p_B[i].x() - s * p_B[i].y(), py = s * p_B[i].x() + c * p_B[i].y();
      J[i].resize(3, 4);
      J[i] << 1, 0, 0, -py, 0, 1, 0, px, 0, 0, 1, 0;
    }
  }

  void Build(ContactProblem* problem) const {
    problem->Clear(dt);
    const Vector4d M = Mass();
    problem->AddClique(MatrixXd(M.asDiagonal()));
    problem->SetFreeMotionVelocity(v + dt * tau.cwiseQuotient(M));
    MatrixXd J[3];
    Jacobians(q[3], J);
    for (int i = 0; i < 3; ++i) {
      SapFrictionConeParameters params;
      params.mu = mu[i];
      params.stiffness = k[i];
      params.dissipation_time = tau_d[i];
      params.phi0 = q[2] + phi0_offset[i];
      params.near_rigid_threshold = beta;
      params.stiction_sigma = sigma;
      problem->AddConstraint(0, J[i], SapFrictionConeConstraint(params));
    }
  }
};

// The rows of docs/design/reference-cases.md §1 that move, with their run lengths in
// tests/solver/sap_solver_test.cc.
Pizza StictionRow() {  // a torque of 20 N m below mu m g R = 30 N m
  Pizza p;
  for (int i = 0; i < 3; ++i) p.mu[i] = 2.0 / 3.0, p.tau_d[i] = 2 * p.dt;
  p.beta = 1.0;
  p.tau[3] = 20.0;
  return p;
}
Pizza SlidingRow() {  // a torque of 40 N m above mu m g R: it spins
  Pizza p;
  for (int i = 0; i < 3; ++i) p.mu[i] = 2.0 / 3.0;
  p.tau[3] = 40.0;
  return p;
}
Pizza FrictionlessRow() {  // mu = 0 and a horizontal force of 1 N: v_x = dt F / m per step
  Pizza p;
  for (int i = 0; i < 3; ++i) p.mu[i] = 0.0;
  p.tau[0] = 1.0;
  return p;
}

SapSolverResult SolveTight(const ContactProblem& problem, const VectorXd& guess) {
  SapSolver solver(TightParameters());
  SapSolverResult r;
  const StepStatus status = solver.Solve(problem, guess, &r);
  INFO(status.reason);
  REQUIRE(status.ok());
  return r;
}

// A perturbed problem's solve, from the nominal solution.
SapSolverResult SolvePerturbed(const Pizza& pizza, const VectorXd& guess) {
  ContactProblem problem;
  pizza.Build(&problem);
  return SolveTight(problem, guess);
}

std::vector<ContactRegion> Regions(const ContactProblem& problem, const VectorXd& v_c) {
  std::vector<ContactRegion> regions;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    ContactParameterDerivatives d;
    REQUIRE(CalcContactParameterDerivativesOf(problem, k, v_c.data(), &d));
    regions.push_back(d.region);
  }
  return regions;
}

std::vector<ContactRegion> Regions(const Pizza& pizza, const VectorXd& v) {
  ContactProblem problem;
  pizza.Build(&problem);
  MatrixXd J[3];
  pizza.Jacobians(pizza.q[3], J);
  VectorXd v_c(9);
  for (int i = 0; i < 3; ++i) v_c.segment<3>(3 * i) = J[i] * v;
  return Regions(problem, v_c);
}

// A contact-parameter direction: `parameter` of the contacts with mask[i] = 1.
struct Direction {
  ContactParameter parameter;
  Vector3d mask;
  std::string name;
};

// The field of contact i that `parameter` names, and p_ref of h = 1e-6 max(|p|, p_ref)
// (as tests/solver/contact_parameter_derivatives_test.cc).
double* Field(Pizza& p, ContactParameter parameter, int i) {
  switch (parameter) {
    case ContactParameter::kMu:
      return &p.mu[i];
    case ContactParameter::kStiffness:
      return &p.k[i];
    case ContactParameter::kDissipationTime:
      return &p.tau_d[i];
    default:
      break;
  }
  return &p.phi0_offset[i];
}
double ReferenceScale(ContactParameter parameter, const Pizza& p) {
  switch (parameter) {
    case ContactParameter::kMu:
      return 0.1;
    case ContactParameter::kStiffness:
      return 1.0;
    case ContactParameter::kDissipationTime:
      return p.dt;
    default:
      break;
  }
  return 1e-4;
}
// phi0's value is z + offset: the scale of h is |z|.
double Value(const Pizza& p, ContactParameter parameter, int i) {
  if (parameter == ContactParameter::kPhi0) return p.q[2] + p.phi0_offset[i];
  Pizza copy = p;
  return *Field(copy, parameter, i);
}

Pizza Moved(const Pizza& p, const Direction& d, double delta) {
  Pizza moved = p;
  for (int i = 0; i < 3; ++i) *Field(moved, d.parameter, i) += delta * d.mask[i];
  return moved;
}

std::vector<Direction> ContactDirections(bool with_mu) {
  std::vector<Direction> directions;
  const std::pair<ContactParameter, const char*> parameters[] = {
      {ContactParameter::kMu, "mu"},
      {ContactParameter::kStiffness, "k"},
      {ContactParameter::kDissipationTime, "tau_d"},
      {ContactParameter::kPhi0, "phi0"}};
  for (const auto& [parameter, name] : parameters) {
    if (parameter == ContactParameter::kMu && !with_mu) continue;
    directions.push_back({parameter, Vector3d::Ones(), std::string(name) + " (all)"});
    for (int i = 0; i < 3; ++i)
      directions.push_back(
          {parameter, Vector3d::Unit(i), std::string(name) + " (contact " + std::to_string(i) + ")"});
  }
  return directions;
}

struct Tally {
  int checked = 0, skipped = 0;
  double dv = 0.0, dgamma = 0.0, state = 0.0;  // largest relative differences
  std::string worst_dgamma;                     // where dgamma's was
};

// Step `pizza` (its problem at its state), contact-parameter directions: IFT against central
// differences of full solves.
void CheckContactDirections(const Pizza& pizza, const std::vector<Direction>& directions,
                            const char* row, int step, Tally* tally) {
  ContactProblem problem;
  pizza.Build(&problem);
  const SapSolverResult r = SolveTight(problem, problem.v_star());
  const std::vector<ContactRegion> regions = Regions(problem, r.v_c);
  const int n_p = static_cast<int>(directions.size());
  MatrixXd partial(problem.num_constraint_rows(), n_p);
  std::vector<double> scale(3);
  for (int j = 0; j < n_p; ++j) {
    for (int i = 0; i < 3; ++i) scale[i] = directions[j].mask[i];
    CalcContactParameterDirection(problem, r.v_c.data(), directions[j].parameter, scale.data(),
                                  partial.col(j));
  }
  StepSensitivitySolver sensitivity(1000);
  StepSensitivityResult ift;
  REQUIRE(sensitivity.Solve(problem, r, partial, &ift).ok());
  const double v_scale = std::max(r.v.norm(), problem.v_star().norm());
  for (int j = 0; j < n_p; ++j) {
    const Direction& d = directions[j];
    double P = ReferenceScale(d.parameter, pizza);
    for (int i = 0; i < 3; ++i)
      if (d.mask[i] != 0.0) P = std::max(P, std::abs(Value(pizza, d.parameter, i)));
    const double h = kRelativeStep * P;
    const Pizza plus = Moved(pizza, d, h), minus = Moved(pizza, d, -h);
    const SapSolverResult rp = SolvePerturbed(plus, r.v), rm = SolvePerturbed(minus, r.v);
    if (Regions(plus, rp.v) != regions || Regions(minus, rm.v) != regions) {
      ++tally->skipped;
      continue;
    }
    ++tally->checked;
    const VectorXd fd_v = (rp.v - rm.v) / (2.0 * h);
    const VectorXd fd_gamma = (rp.gamma - rm.gamma) / (2.0 * h);
    const double e_v =
        (ift.dv_dp.col(j) - fd_v).norm() / std::max(fd_v.norm(), kFloor * v_scale / P);
    const double e_gamma = (ift.dgamma_dp.col(j) - fd_gamma).norm() /
                           std::max(fd_gamma.norm(), kFloor * r.gamma.norm() / P);
    INFO(row << ", step " << step << ", " << d.name << ": ift dv " << ift.dv_dp.col(j).transpose()
             << "\nfd dv " << fd_v.transpose());
    CHECK(e_v < kTolerance);
    CHECK(e_gamma < kTolerance);
    tally->dv = std::max(tally->dv, e_v);
    if (e_gamma > tally->dgamma)
      tally->worst_dgamma = d.name + ", step " + std::to_string(step);
    tally->dgamma = std::max(tally->dgamma, e_gamma);
  }
}

// One-sided second-order differences in mu from mu = 0 (the frictionless row: mu's lower
// bound), f'(0) = (-3 f(0) + 4 f(h) - f(2h)) / 2h: the IFT at mu = 0 takes the sliding
// region's derivative, which is the one-sided derivative into mu > 0.
void CheckFrictionFromZero(const Pizza& pizza, int step, Tally* tally) {
  ContactProblem problem;
  pizza.Build(&problem);
  const SapSolverResult r = SolveTight(problem, problem.v_star());
  const std::vector<ContactRegion> regions = Regions(problem, r.v_c);
  MatrixXd partial(problem.num_constraint_rows(), 1);
  CalcContactParameterDirection(problem, r.v_c.data(), ContactParameter::kMu, nullptr,
                                partial.col(0));
  StepSensitivitySolver sensitivity(1000);
  StepSensitivityResult ift;
  REQUIRE(sensitivity.Solve(problem, r, partial, &ift).ok());
  const Direction all{ContactParameter::kMu, Vector3d::Ones(), "mu (all)"};
  const double P = 0.1, h = kRelativeStep * P;
  const Pizza p1 = Moved(pizza, all, h), p2 = Moved(pizza, all, 2 * h);
  const SapSolverResult r1 = SolvePerturbed(p1, r.v), r2 = SolvePerturbed(p2, r.v);
  if (Regions(p1, r1.v) != regions || Regions(p2, r2.v) != regions) {
    ++tally->skipped;
    return;
  }
  ++tally->checked;
  const VectorXd fd_v = (-3.0 * r.v + 4.0 * r1.v - r2.v) / (2.0 * h);
  const VectorXd fd_gamma = (-3.0 * r.gamma + 4.0 * r1.gamma - r2.gamma) / (2.0 * h);
  const double v_scale = std::max(r.v.norm(), problem.v_star().norm());
  const double e_v = (ift.dv_dp.col(0) - fd_v).norm() / std::max(fd_v.norm(), kFloor * v_scale / P);
  const double e_gamma = (ift.dgamma_dp.col(0) - fd_gamma).norm() /
                         std::max(fd_gamma.norm(), kFloor * r.gamma.norm() / P);
  INFO("step " << step << ": d/dmu from 0, ift dv " << ift.dv_dp.col(0).transpose() << "\nfd dv "
               << fd_v.transpose());
  CHECK(fd_v.norm() > 0.01);  // friction slows the slide: dv_x/dmu = -sum gamma_n / m
  CHECK(e_v < kTolerance);
  CHECK(e_gamma < kTolerance);
  tally->dv = std::max(tally->dv, e_v);
  tally->dgamma = std::max(tally->dgamma, e_gamma);
}

// The state columns of the step: dv/dx0 for x0 = (q, v), by SolveRightHandSides with
// -dr/dx0 D written from the hand-built problem: r = A (v - v*(v0)) - J(theta)^T
// gamma(J(theta) v; phi0 = z), so
//   x, y: r does not read them, dv = 0;
//   z:    -dr/dz = J^T dgamma/dphi0|_vc (the shared phi0 direction);
//   theta: -dr/dtheta at the fixed v, a central difference of the residual of the problem
//          built at theta +- h (J, and the Delassus estimates behind R, move with it);
//   v_i:  -dr/dv0_i = A dv*/dv0_i = A e_i.
// Against central differences of full solves from x0 +- eps e_i, eps = 1e-6.
void CheckStateColumns(const Pizza& pizza, const char* row, int step, Tally* tally) {
  ContactProblem problem;
  pizza.Build(&problem);
  const SapSolverResult r = SolveTight(problem, problem.v_star());
  const std::vector<ContactRegion> regions = Regions(problem, r.v_c);
  MatrixXd rhs = MatrixXd::Zero(4, 8);
  VectorXd dgamma(problem.num_constraint_rows()), jt(4);
  SapWorkspace products;
  CalcContactParameterDirection(problem, r.v_c.data(), ContactParameter::kPhi0, nullptr, dgamma);
  CalcJTransposeTimes(problem, dgamma.data(), &products, jt);
  rhs.col(2) = jt;
  {
    const double h = 1e-6;
    Pizza a = pizza, b = pizza;
    a.q[3] += h;
    b.q[3] -= h;
    ContactProblem pa, pb;
    a.Build(&pa);
    b.Build(&pb);
    VectorXd ra(4), rb(4), vca(9), vcb(9);
    CalcOptimalityResidual(pa, r.v, &products, ra);
    CalcOptimalityResidual(pb, r.v, &products, rb);
    // At the fixed v both sides must keep every contact's region (the difference is that of
    // one piece).
    CalcConstraintVelocities(pa, r.v, &products, vca);
    CalcConstraintVelocities(pb, r.v, &products, vcb);
    REQUIRE(Regions(pa, vca) == regions);
    REQUIRE(Regions(pb, vcb) == regions);
    rhs.col(3) = -(ra - rb) / (2.0 * h);
  }
  rhs.rightCols(4) = MatrixXd(pizza.Mass().asDiagonal());
  StepSensitivitySolver sensitivity(1000);
  MatrixXd dv;
  REQUIRE(sensitivity.SolveRightHandSides(problem, r, rhs, &dv).ok());
  const double eps = 1e-6;
  const char* names[] = {"x", "y", "z", "theta", "vx", "vy", "vz", "omega"};
  for (int i = 0; i < 8; ++i) {
    Pizza plus = pizza, minus = pizza;
    if (i < 4) {
      plus.q[i] += eps;
      minus.q[i] -= eps;
    } else {
      plus.v[i - 4] += eps;
      minus.v[i - 4] -= eps;
    }
    const SapSolverResult rp = SolvePerturbed(plus, r.v), rm = SolvePerturbed(minus, r.v);
    if (Regions(plus, rp.v) != regions || Regions(minus, rm.v) != regions) {
      ++tally->skipped;
      continue;
    }
    ++tally->checked;
    const VectorXd fd = (rp.v - rm.v) / (2.0 * eps);
    // Relative to the column's scale, at least 1e-3 (dv/dv0 = I + O(dt)).
    const double e = (dv.col(i) - fd).norm() / std::max(fd.norm(), kFloor);
    INFO(row << ", step " << step << ", state column " << names[i] << ": ift "
             << dv.col(i).transpose() << "\nfd  " << fd.transpose());
    CHECK(e < kTolerance);
    tally->state = std::max(tally->state, e);
  }
  CHECK(dv.col(0).norm() == 0.0);
  CHECK(dv.col(1).norm() == 0.0);
}

// Runs a row for `steps` steps (each solved tightly, q += dt v as in sap_solver_test.cc),
// checking every step; returns the last step's regions.
std::vector<ContactRegion> CheckRow(Pizza pizza, int steps, const char* row, Tally* tally) {
  const bool frictionless = pizza.mu[0] == 0.0;
  const std::vector<Direction> directions = ContactDirections(!frictionless);
  std::vector<ContactRegion> regions;
  for (int n = 1; n <= steps; ++n) {
    CheckContactDirections(pizza, directions, row, n, tally);
    if (frictionless) CheckFrictionFromZero(pizza, n, tally);
    CheckStateColumns(pizza, row, n, tally);
    ContactProblem problem;
    pizza.Build(&problem);
    const SapSolverResult r = SolveTight(problem, problem.v_star());
    regions = Regions(pizza, r.v);
    pizza.v = r.v;
    pizza.q += pizza.dt * pizza.v;
  }
  std::printf("pizza sensitivity %-12s steps %2d checked %4d skipped %d  max rel. diff dv/dp "
              "%.1e dgamma/dp %.1e (%s) dv/dx0 %.1e\n",
              row, steps, tally->checked, tally->skipped, tally->dv, tally->dgamma,
              tally->worst_dgamma.c_str(), tally->state);
  return regions;
}

TEST_CASE("pizza saver sensitivity: stiction under a torque below mu m g R",
          "[solver][sensitivity]") {
  Tally tally;
  const std::vector<ContactRegion> regions = CheckRow(StictionRow(), 40, "stiction", &tally);
  CHECK(regions == std::vector<ContactRegion>(3, ContactRegion::kStiction));
  CHECK(tally.skipped == 0);
  CHECK(tally.checked == 40 * (16 + 8));
}

TEST_CASE("pizza saver sensitivity: spinning under a torque above mu m g R",
          "[solver][sensitivity]") {
  Tally tally;
  const std::vector<ContactRegion> regions = CheckRow(SlidingRow(), 10, "sliding", &tally);
  CHECK(regions == std::vector<ContactRegion>(3, ContactRegion::kSliding));
  CHECK(tally.skipped == 0);
  CHECK(tally.checked == 10 * (16 + 8));
}

TEST_CASE("pizza saver sensitivity: no friction, sliding under a horizontal force",
          "[solver][sensitivity]") {
  Tally tally;
  const std::vector<ContactRegion> regions = CheckRow(FrictionlessRow(), 30, "frictionless", &tally);
  CHECK(regions == std::vector<ContactRegion>(3, ContactRegion::kSliding));
  CHECK(tally.skipped == 0);
  CHECK(tally.checked == 30 * (12 + 1 + 8));
}

}  // namespace
}  // namespace csim::solver

namespace csim::integrator {
namespace {

using Kind = SensitivityParameter::Kind;
using solver::ContactParameter;

// The regions (solver::ContactRegion) of the step's contacts at its converged v, in
// constraint order: the pattern a finite difference must keep.
std::vector<int> StepRegions(const ContactStepWorkspace& cws) {
  std::vector<int> regions;
  for (int k = 0; k < cws.problem.num_constraints(); ++k) {
    solver::ContactParameterDerivatives d;
    if (solver::CalcContactParameterDerivativesOf(cws.problem, k, cws.result.v_c.data(), &d))
      regions.push_back(static_cast<int>(d.region));
  }
  return regions;
}

// One step of `scene` from x0, solved tightly; its regions into *regions.
multibody::State TightStep(const io::LoadedScene& scene, const multibody::State& x0,
                           std::vector<int>* regions) {
  const multibody::Model& model = scene.model;
  const sim::Settings& s = scene.settings;
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  cws.solver.set_parameters(solver::TightParameters());
  multibody::State x = x0;
  const ThetaParameters theta{s.integrator.theta, s.integrator.theta_q, s.gyroscopic};
  const StepStatus status = StepWithContact(model, theta, {}, sim::ContactParametersFor(s),
                                            s.time_step, false, x, ws, cws);
  INFO(status.reason);
  REQUIRE(status.ok());
  *regions = StepRegions(cws);
  return x;
}

Eigen::VectorXd StateDifference(const multibody::Model& model, const multibody::State& a,
                                const multibody::State& b) {
  Eigen::VectorXd d(2 * model.nv);
  multibody::ConfigurationDifference(model, a.q, b.q, d.head(model.nv));
  d.tail(model.nv) = a.v - b.v;
  return d;
}

const std::string kEllipse = std::string(CSIM_SOURCE_DIR) + "/scenes/ellipse_drop.yaml";

struct ImpactTally {
  int checked = 0, skipped = 0;
  double state = 0.0, parameters = 0.0;  // largest relative differences
  double min_kink = 1.0;
  int first_contact_step = 0;
};

// The ellipse of scenes/ellipse_drop.yaml (with `overrides`), run to the first step whose
// contact pushes (a region other than none at the converged v; the contact enters the
// problem earlier, within the contact margin), then that one step: TrajectorySensitivity's
// Advance for every state column and the material columns `materials` (each with its
// scene path) against central differences of full steps at x0 +- eps e_i (eps = 1e-6) and
// at p (1 +- 1e-6).
ImpactTally CheckEllipseImpact(const std::vector<std::string>& overrides,
                               const std::vector<std::pair<SensitivityParameter, std::string>>&
                                   materials,
                               const char* name) {
  const io::LoadedScene scene = io::LoadScene(kEllipse, overrides);
  const multibody::Model& model = scene.model;
  const sim::Settings& settings = scene.settings;
  const ThetaParameters theta{settings.integrator.theta, settings.integrator.theta_q,
                              settings.gyroscopic};
  const contact::ContactParameters cp = sim::ContactParametersFor(settings);
  const double dt = settings.time_step;
  ImpactTally tally;
  // To the first pushing step (the touch is at 20 ms = step 2000).
  StepWorkspace ws = MakeStepWorkspace(model, TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  cws.solver.set_parameters(solver::TightParameters());
  multibody::State x{0.0, model.InitialQ(), model.InitialV()}, x0 = x;
  std::vector<int> regions;
  for (int n = 1; n <= 3000; ++n) {
    x0 = x;
    REQUIRE(StepWithContact(model, theta, {}, cp, dt, false, x, ws, cws).ok());
    regions = StepRegions(cws);
    if (std::count_if(regions.begin(), regions.end(), [](int r) { return r != 0; }) > 0) {
      tally.first_contact_step = n;
      break;
    }
  }
  REQUIRE(tally.first_contact_step > 0);
  const multibody::State x1 = x;
  // The sensitivities of that step.
  const int nv = model.nv;
  std::vector<SensitivityParameter> parameters;
  for (int i = 0; i < nv; ++i) parameters.push_back({Kind::kInitialPosition, {}, i});
  for (int i = 0; i < nv; ++i) parameters.push_back({Kind::kInitialVelocity, {}, i});
  for (const auto& m : materials) parameters.push_back(m.first);
  TrajectorySensitivity sensitivity(model, parameters);
  sensitivity.Reset();
  REQUIRE(sensitivity.Advance(model, theta, {}, cp, dt, x0, x1).ok());
  tally.min_kink = sensitivity.last_step().min_kink_distance;
  CHECK(sensitivity.last_step().num_one_sided == 0);
  CHECK(sensitivity.last_step().num_unmatched == 0);
  CHECK_FALSE(sensitivity.last_step().approximate_geometry);  // an ellipsoid on a halfspace
  std::vector<int> check;
  // The same step again from fresh workspaces (as every difference below is taken): the same
  // optimum, to the solve's tolerance (the run's workspaces warm-start and predict stiction
  // from the steps before).
  const multibody::State again = TightStep(scene, x0, &check);
  REQUIRE((again.v - x1.v).norm() <= 1e-12 * x1.v.norm());
  REQUIRE(check == regions);
  const double eps = 1e-6;
  for (int i = 0; i < 2 * nv; ++i) {
    multibody::State plus = x0, minus = x0;
    if (i < nv) {
      Eigen::VectorXd delta = Eigen::VectorXd::Zero(nv);
      delta[i] = eps;
      multibody::RetractConfiguration(model, x0.q, delta, &plus.q);
      multibody::RetractConfiguration(model, x0.q, -delta, &minus.q);
    } else {
      plus.v[i - nv] += eps;
      minus.v[i - nv] -= eps;
    }
    std::vector<int> rp, rm;
    const multibody::State a = TightStep(scene, plus, &rp), b = TightStep(scene, minus, &rm);
    if (rp != regions || rm != regions) {
      ++tally.skipped;
      continue;
    }
    ++tally.checked;
    const Eigen::VectorXd fd = StateDifference(model, a, b) / (2 * eps);
    Eigen::VectorXd ift(2 * nv);
    ift << sensitivity.dq().col(i), sensitivity.dv().col(i);
    // Relative to the column's scale, at least the identity's 1 (dx1/dx0 = I + O(dt)).
    const double error = (ift - fd).norm() / std::max(1.0, fd.norm());
    INFO(name << ", state column " << i << ": ift " << ift.transpose() << "\nfd  "
              << fd.transpose());
    CHECK(error < solver::kTolerance);
    tally.state = std::max(tally.state, error);
  }
  for (size_t j = 0; j < materials.size(); ++j) {
    const std::string& path = materials[j].second;
    // The parameter's value in the loaded scene.
    double value = 0.0;
    for (const geometry::Material& m : model.materials) {
      const std::string prefix = "materials." + m.name + ".";
      if (path == prefix + "friction") value = m.friction;
      if (path == prefix + "dissipation_time") value = m.dissipation_time;
      if (path == prefix + "stiffness") value = m.stiffness;
    }
    REQUIRE(value > 0.0);
    const double h = solver::kRelativeStep;
    auto at = [&](double factor, std::vector<int>* r) {
      std::vector<std::string> o = overrides;
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", value * factor);
      o.push_back(path + "=" + text);
      return TightStep(io::LoadScene(kEllipse, o), x0, r);
    };
    std::vector<int> rp, rm;
    const multibody::State a = at(1 + h, &rp), b = at(1 - h, &rm);
    if (rp != regions || rm != regions) {
      ++tally.skipped;
      continue;
    }
    ++tally.checked;
    // d x1 / d ln p against the difference in ln p.
    const Eigen::VectorXd fd = StateDifference(model, a, b) / (2 * h);
    const int c = 2 * nv + static_cast<int>(j);
    Eigen::VectorXd ift(2 * nv);
    ift << sensitivity.dq().col(c), sensitivity.dv().col(c);
    ift *= value;
    const double error =
        (ift - fd).norm() / std::max(fd.norm(), solver::kFloor * x1.v.norm());
    INFO(name << ", " << path << ": p dx/dp ift " << ift.transpose() << "\nfd  "
              << fd.transpose());
    CHECK(fd.norm() > 1e-3 * x1.v.norm());  // the parameter acts at the impact
    CHECK(error < solver::kTolerance);
    tally.parameters = std::max(tally.parameters, error);
  }
  std::printf("ellipse impact %-24s step %d, checked %d skipped %d, min kink distance %.1e, "
              "max rel. diff state columns %.1e, parameters %.1e\n",
              name, tally.first_contact_step, tally.checked, tally.skipped, tally.min_kink,
              tally.state, tally.parameters);
  return tally;
}

int MaterialIndex(const std::string& name) {
  const io::LoadedScene scene = io::LoadScene(kEllipse, {});
  for (size_t m = 0; m < scene.model.materials.size(); ++m)
    if (scene.model.materials[m].name == name) return static_cast<int>(m);
  return -1;
}

TEST_CASE("ellipse at impact: one step's sensitivities against central differences of full "
          "steps", "[integrator][sensitivity]") {
  const int pla = MaterialIndex("pla");
  REQUIRE(pla >= 0);
  const SensitivityParameter dissipation{Kind::kMaterial, ContactParameter::kDissipationTime,
                                         pla};
  // The ground is rigid (.inf): the contact's stiffness is the ellipse's, so the column of
  // every contact's k is d/dk of materials.pla.stiffness.
  const SensitivityParameter stiffness{Kind::kContact, ContactParameter::kStiffness, -1};
  SECTION("frictionless, as the scene") {
    const ImpactTally t = CheckEllipseImpact(
        {}, {{dissipation, "materials.pla.dissipation_time"},
             {stiffness, "materials.pla.stiffness"}},
        "(frictionless)");
    CHECK(t.skipped == 0);
    CHECK(t.checked == 6 + 2);
  }
  SECTION("with friction 0.5, sliding at 0.5 m/s") {
    const SensitivityParameter friction{Kind::kMaterial, ContactParameter::kMu, pla};
    const ImpactTally t = CheckEllipseImpact(
        {"materials.ground.friction=0.5", "materials.pla.friction=0.5"},
        {{dissipation, "materials.pla.dissipation_time"},
         {stiffness, "materials.pla.stiffness"},
         {friction, "materials.pla.friction"}},
        "(friction 0.5)");
    CHECK(t.skipped == 0);
    CHECK(t.checked == 6 + 3);
  }
}

}  // namespace
}  // namespace csim::integrator
