// StepSensitivitySolver (step_sensitivity.h): dv/dp and dgamma/dp of one contact solve by the
// implicit function theorem at the optimum, against central finite differences of the full
// solve (docs/design/sensitivities.md §5.3): the problem re-built with every affected
// contact's parameter at p +- h, h = 1e-6 max(|p|, p_ref), each solved to SAP eq. 26 with
// eps_r = 1e-13, eps_a = 0, the cost criterion off and a dense factorization; agreement to
// 1e-5 relative to the larger of the difference and 1e-3 of the natural scale |v| / p
// (|gamma| / p for the impulses), the floor for derivatives that are zero or nearly so. A
// direction whose +-h solves put some contact on another piece (SAP's region, Hunt &
// Crossley's normal clamp) is skipped and counted. Cases: a sphere in stiction under a
// sideways push (d/dmu = 0 exactly), the same sliding, frictionless; Hunt & Crossley lagged,
// lagged_regularized and similar; a box on its four corners, stuck and sliding; two islands
// (a Hunt & Crossley sphere; a box carrying a sliding box) beside a free body, with
// per-contact directions. Also: dense and block-sparse factorizations agree, and a second call
// of the same size does not allocate; on a chain lying on the floor (a loaded scene whose
// tree's island goes to the articulated-body factorization, with body Jacobians), the result
// equals a dense oracle H^{-1} J^T dgamma/dp formed from the problem's dense blocks.

#include "engine/solver/step_sensitivity.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_hunt_crossley_constraint.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_scenes.h"
#include "tests/support/tight_solver.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;
using Approximation = HuntCrossleyApproximation;

constexpr double kDt = 0.01;   // [s]
constexpr double kG = 9.81;    // [m/s^2]
constexpr double kMu = 0.5;
constexpr double kStiffness = 1e4;  // [N/m]: R_n from k, not the near-rigid term (checked)
constexpr double kRelativeStep = 1e-6;
constexpr double kTolerance = 1e-5;
// The relative differences are taken against at least this fraction of the natural scale
// max(|v|, |v*|) / p of dv/dp (|gamma| / p of dgamma/dp): the finite differences carry the
// solves' error, about eps_r / 1e-6 of that scale, which would otherwise dominate a
// derivative that is zero (d/dmu in stiction) or nearly so.
constexpr double kFloor = 1e-3;

// A free rigid body: one clique of six velocities (angular, linear; world axes, about the
// centre of mass), A = diag(I, m, m, m), pushed by `force` and `torque` besides gravity.
struct Body {
  double m = 1.0;                    // [kg]
  Vector3d I = Vector3d::Ones();     // principal inertia [kg m^2]
  Vector3d force = Vector3d::Zero();   // [N]
  Vector3d torque = Vector3d::Zero();  // [N m]
  Vector3d v0 = Vector3d::Zero();      // linear velocity at the start of the step [m/s]
};

// One point contact (PointContactJacobian), on the ground (c1 = -1) or between two bodies.
struct Contact {
  int c0 = 0, c1 = -1;
  PointContactJacobian f;
  bool factored = true;  // else added with its dense blocks
  bool hunt_crossley = false;
  SapFrictionConeParameters sap;
  SapHuntCrossleyParameters hc;
};

struct Case {
  std::vector<Body> bodies;
  std::vector<Contact> contacts;
};

// A parameter direction: every contact's parameter moves by scale[k] dp (empty: by dp).
struct Direction {
  ContactParameter parameter;
  std::vector<double> scale;
};

const char* Name(ContactParameter p) {
  switch (p) {
    case ContactParameter::kMu:
      return "mu";
    case ContactParameter::kStiffness:
      return "k";
    case ContactParameter::kDissipationTime:
      return "tau_d";
    case ContactParameter::kHuntCrossley:
      return "d";
    case ContactParameter::kPhi0:
      break;
  }
  return "phi0";
}

// p_ref of h = 1e-6 max(|p|, p_ref), as contact_parameter_derivatives_test.cc.
double ReferenceScale(ContactParameter p) {
  switch (p) {
    case ContactParameter::kMu:
      return 0.1;
    case ContactParameter::kStiffness:
      return 1.0;
    case ContactParameter::kDissipationTime:
      return kDt;
    case ContactParameter::kHuntCrossley:
      return 1.0;
    case ContactParameter::kPhi0:
      break;
  }
  return 1e-4;
}

// The contact's field for p, or nullptr when its kind does not read p.
double* Field(Contact& c, ContactParameter p) {
  switch (p) {
    case ContactParameter::kMu:
      return c.hunt_crossley ? &c.hc.mu : &c.sap.mu;
    case ContactParameter::kStiffness:
      return c.hunt_crossley ? &c.hc.stiffness : &c.sap.stiffness;
    case ContactParameter::kDissipationTime:
      return c.hunt_crossley ? nullptr : &c.sap.dissipation_time;
    case ContactParameter::kHuntCrossley:
      return c.hunt_crossley ? &c.hc.hunt_crossley : nullptr;
    case ContactParameter::kPhi0:
      break;
  }
  return c.hunt_crossley ? &c.hc.phi0 : &c.sap.phi0;
}

double ScaleOf(const Direction& d, int k) { return d.scale.empty() ? 1.0 : d.scale[k]; }

// Block b of the contact's Jacobian, sign_b R^T [-[r_b]x I] (PointContactJacobian).
Eigen::Matrix<double, 3, 6> Block(const PointContactJacobian& f, int b) {
  Eigen::Matrix<double, 3, 6> J;
  for (int i = 0; i < 3; ++i) {
    const Vector3d R_i = f.sign[b] * f.R_WC.col(i);
    J.block<1, 3>(i, 0) = f.r_W[b].cross(R_i).transpose();
    J.block<1, 3>(i, 3) = R_i.transpose();
  }
  return J;
}

// The problem of `c` with every contact's parameter p moved by delta scale[k].
void Build(const Case& c, ContactProblem* problem, const Direction* d = nullptr,
           double delta = 0.0) {
  problem->Clear(kDt);
  VectorXd v_star(6 * c.bodies.size());
  for (size_t b = 0; b < c.bodies.size(); ++b) {
    const Body& body = c.bodies[b];
    Eigen::Matrix<double, 6, 6> A = Eigen::Matrix<double, 6, 6>::Zero();
    A.diagonal() << body.I, body.m, body.m, body.m;
    problem->AddClique(A);
    v_star.segment<3>(6 * b) = kDt * body.torque.cwiseQuotient(body.I);
    v_star.segment<3>(6 * b + 3) = body.v0 + kDt * (body.force / body.m - kG * Vector3d::UnitZ());
  }
  problem->SetFreeMotionVelocity(v_star);
  for (size_t k = 0; k < c.contacts.size(); ++k) {
    Contact contact = c.contacts[k];
    if (d != nullptr)
      if (double* p = Field(contact, d->parameter)) *p += delta * ScaleOf(*d, k);
    const int c0 = contact.c0, c1 = contact.c1;
    auto add = [&](const auto& constraint) {
      if (contact.factored) {
        problem->AddPointContact(c0, c1, contact.f, constraint);
      } else if (c1 < 0) {
        problem->AddConstraint(c0, Block(contact.f, 0), constraint);
      } else {
        problem->AddConstraint(c0, Block(contact.f, 0), c1, Block(contact.f, 1), constraint);
      }
    };
    if (contact.hunt_crossley) {
      add(SapHuntCrossleyConstraint(contact.hc));
    } else {
      add(SapFrictionConeConstraint(contact.sap));
    }
  }
}

// ---- Scenes ----

SapFrictionConeParameters Sap(double load, double k = kStiffness) {
  SapFrictionConeParameters q;
  q.mu = kMu;
  q.stiffness = k;
  q.dissipation_time = 0.01;
  q.phi0 = -load / k;  // about the static penetration
  q.near_rigid_threshold = 1.0;
  q.stiction_sigma = 1e-3;
  return q;
}

SapHuntCrossleyParameters HuntCrossley(Approximation approximation, double load) {
  SapHuntCrossleyParameters q;
  q.approximation = approximation;
  q.mu = kMu;
  q.stiffness = kStiffness;
  q.hunt_crossley = 2.0;
  q.phi0 = -load / kStiffness;
  q.v_n0 = -0.02;  // still closing a little: n0 reads d
  q.stiction_tolerance = 1e-4;
  q.near_rigid_threshold = 1.0;
  q.position_theta = 1.0;
  return q;
}

Body Sphere(double m, double radius) {
  Body b;
  b.m = m;
  b.I = Vector3d::Constant(0.4 * m * radius * radius);
  return b;
}

Body Box(double m, const Vector3d& half) {
  Body b;
  b.m = m;
  const Vector3d s = half.cwiseProduct(half);
  b.I = m / 3.0 * Vector3d(s.y() + s.z(), s.x() + s.z(), s.x() + s.y());
  return b;
}

// A ground contact of body `c0` at r_W from its centre of mass, its tangents turned by
// `angle` about the normal +z.
Contact GroundContact(int c0, const Vector3d& r_W, double angle) {
  Contact contact;
  contact.c0 = c0;
  contact.f.R_WC = Eigen::AngleAxisd(angle, Vector3d::UnitZ()).toRotationMatrix();
  contact.f.r_W = {r_W, Vector3d::Zero()};
  contact.f.sign = {1.0, 1.0};
  return contact;
}

// A sphere (1 kg, radius 5 cm) on the ground with a SAP contact (dense Jacobian), pushed
// sideways by `push` m g. Rolling needs |gamma_t| = 2/7 of the push: it sticks below
// 3.5 mu m g and slides above. Its penetration is 80 % of the static one, so that it sinks
// in during the step (u_n != 0): at the exact equilibrium u_n = 0, where gamma reads
// neither tau_d nor, for Hunt & Crossley, d.
Case SapSphere(double push, double mu = kMu) {
  Case c;
  c.bodies.push_back(Sphere(1.0, 0.05));
  c.bodies[0].force = Vector3d(push * kG, 0.2 * push * kG, 0.0);
  Contact contact = GroundContact(0, Vector3d(0, 0, -0.05), 0.3);
  contact.factored = false;
  contact.sap = Sap(0.8 * kG);
  contact.sap.mu = mu;
  c.contacts.push_back(contact);
  return c;
}

Case HuntCrossleySphere(Approximation approximation, double push, double sigma) {
  Case c = SapSphere(push);
  c.contacts[0].hunt_crossley = true;
  c.contacts[0].hc = HuntCrossley(approximation, 0.8 * kG);
  c.contacts[0].hc.stiction_sigma = sigma;
  return c;
}

// The four bottom corners of a box (half sizes `half`) of body c0 on the ground, each
// carrying about `load` [N] (spread by +-15 % so that no two are alike).
void AddCornerContacts(int c0, const Vector3d& half, double load, Case* c) {
  int i = 0;
  for (const double sx : {-1.0, 1.0})
    for (const double sy : {-1.0, 1.0}) {
      Contact contact = GroundContact(c0, Vector3d(sx * half.x(), sy * half.y(), -half.z()),
                                      0.2 * i);
      contact.sap = Sap(load * (0.85 + 0.1 * i));
      c->contacts.push_back(contact);
      ++i;
    }
}

// A box (2 kg) on its four corners (factored Jacobians), pushed by `push` m g along x and
// twisted a little about z.
Case BoxOnCorners(double push) {
  Case c;
  const Vector3d half(0.1, 0.07, 0.05);
  c.bodies.push_back(Box(2.0, half));
  c.bodies[0].force = Vector3d(push * 2.0 * kG, 0.0, 0.0);
  c.bodies[0].torque = Vector3d(0.0, 0.0, 0.05 * push * 2.0 * kG);
  AddCornerContacts(0, half, 2.0 * kG / 4.0, &c);
  return c;
}

// Two islands and a free body: a Hunt & Crossley (lagged) sphere sliding on the ground
// (clique 0); a box on its corners (clique 1, pushed, stuck) carrying a smaller box that
// slides on it (clique 2, four two-clique contacts); a body in free flight (clique 3).
Case TwoIslands() {
  Case c = HuntCrossleySphere(Approximation::kLagged, 5.0 * kMu, 0.0);
  const Vector3d half(0.1, 0.07, 0.05), top_half(0.05, 0.05, 0.03);
  const double m = 2.0, m_top = 0.5;
  c.bodies.push_back(Box(m, half));
  c.bodies.back().force = Vector3d(0.3 * kMu * (m + m_top) * kG, 0.0, 0.0);
  c.bodies.push_back(Box(m_top, top_half));
  c.bodies.back().v0 = Vector3d(0.2, 0.05, 0.0);
  Body flying = Sphere(0.3, 0.02);
  flying.v0 = Vector3d(1.0, 0.0, 2.0);
  c.bodies.push_back(flying);
  AddCornerContacts(1, half, (m + m_top) * kG / 4.0, &c);
  // The top box's centre of mass at p_top from the bottom one's.
  const Vector3d p_top(0.02, 0.0, half.z() + top_half.z());
  int i = 0;
  for (const double sx : {-1.0, 1.0})
    for (const double sy : {-1.0, 1.0}) {
      const Vector3d r_top(sx * top_half.x(), sy * top_half.y(), -top_half.z());
      Contact contact = GroundContact(2, r_top, 0.1 * i);
      contact.c1 = 1;
      contact.f.r_W = {r_top, p_top + r_top};
      contact.f.sign = {1.0, -1.0};  // the normal +z points from the bottom box into the top
      contact.factored = i % 2 == 0;  // half with dense blocks
      // A softer k: the light box's large Delassus estimate would make R_n near-rigid.
      contact.sap = Sap(m_top * kG / 4.0 * (0.9 + 0.05 * i), 4e3);
      c.contacts.push_back(contact);
      ++i;
    }
  return c;
}

// ---- The finite-difference check ----

SapSolverParameters TightParameters() {
  SapSolverParameters p = testing::TightSolverParameters();
  p.warm_start = WarmStart::kPrevious;
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

// The piece of each contact at v_c: SAP's region, Hunt & Crossley's normal clamp (its
// stiction/sliding line is no kink: the soft norm is smooth across it).
std::vector<int> Pieces(const ContactProblem& problem, const VectorXd& v_c) {
  std::vector<int> pieces;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    ContactParameterDerivatives d;
    REQUIRE(CalcContactParameterDerivativesOf(problem, k, v_c.data(), &d));
    const bool hc =
        dynamic_cast<const SapHuntCrossleyConstraint*>(&problem.constraint(k)) != nullptr;
    pieces.push_back(hc ? 10 + d.normal_clamped : static_cast<int>(d.region));
  }
  return pieces;
}

std::vector<ContactRegion> Regions(const ContactProblem& problem, const VectorXd& v_c) {
  std::vector<ContactRegion> regions;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    ContactParameterDerivatives d;
    REQUIRE(CalcContactParameterDerivativesOf(problem, k, v_c.data(), &d));
    CHECK_FALSE(d.near_rigid);
    regions.push_back(d.region);
  }
  return regions;
}

// max(|p_k|, p_ref) over the contacts the direction moves.
double ParameterScale(const Case& c, const Direction& d) {
  double scale = ReferenceScale(d.parameter);
  for (size_t k = 0; k < c.contacts.size(); ++k) {
    Contact contact = c.contacts[k];
    const double* p = Field(contact, d.parameter);
    if (p != nullptr && ScaleOf(d, k) != 0.0) scale = std::max(scale, std::abs(*p));
  }
  return scale;
}

struct Agreement {
  int checked = 0, skipped = 0;
  double dv = 0.0, dgamma = 0.0;  // largest relative differences IFT vs FD
  StepSensitivityResult ift;      // the analytic sensitivities, column per direction
  SapSolverResult solution;
};

Agreement CheckAgainstFiniteDifferences(const char* name, const Case& c,
                                        const std::vector<Direction>& directions) {
  Agreement a;
  ContactProblem problem;
  Build(c, &problem);
  a.solution = SolveTight(problem, problem.v_star());
  const SapSolverResult& r = a.solution;
  const int n_p = static_cast<int>(directions.size());
  MatrixXd partial(problem.num_constraint_rows(), n_p);
  for (int j = 0; j < n_p; ++j) {
    const Direction& d = directions[j];
    CalcContactParameterDirection(problem, r.v_c.data(), d.parameter,
                                  d.scale.empty() ? nullptr : d.scale.data(), partial.col(j));
  }
  StepSensitivitySolver sensitivity;
  REQUIRE(sensitivity.Solve(problem, r, partial, &a.ift).ok());
  const std::vector<int> pieces = Pieces(problem, r.v_c);
  const double v_scale = std::max(r.v.norm(), problem.v_star().norm());
  for (int j = 0; j < n_p; ++j) {
    const Direction& d = directions[j];
    const double P = ParameterScale(c, d), h = kRelativeStep * P;
    ContactProblem plus, minus;
    Build(c, &plus, &d, h);
    Build(c, &minus, &d, -h);
    const SapSolverResult rp = SolveTight(plus, r.v), rm = SolveTight(minus, r.v);
    if (Pieces(plus, rp.v_c) != pieces || Pieces(minus, rm.v_c) != pieces) {
      ++a.skipped;
      continue;
    }
    ++a.checked;
    const VectorXd fd_v = (rp.v - rm.v) / (2.0 * h);
    const VectorXd fd_gamma = (rp.gamma - rm.gamma) / (2.0 * h);
    const double e_v =
        (a.ift.dv_dp.col(j) - fd_v).norm() / std::max(fd_v.norm(), kFloor * v_scale / P);
    const double e_gamma = (a.ift.dgamma_dp.col(j) - fd_gamma).norm() /
                           std::max(fd_gamma.norm(), kFloor * r.gamma.norm() / P);
    INFO(name << ", direction " << j << " (" << Name(d.parameter) << "): |dv/dp| "
              << fd_v.norm() << ", |dgamma/dp| " << fd_gamma.norm());
    CHECK(e_v < kTolerance);
    CHECK(e_gamma < kTolerance);
    a.dv = std::max(a.dv, e_v);
    a.dgamma = std::max(a.dgamma, e_gamma);
  }
  std::printf("step sensitivity %-28s directions %d checked %d skipped %d  max rel. diff "
              "dv %.1e dgamma %.1e\n",
              name, n_p, a.checked, a.skipped, a.dv, a.dgamma);
  return a;
}

std::vector<Direction> Shared(std::initializer_list<ContactParameter> parameters) {
  std::vector<Direction> directions;
  for (const ContactParameter p : parameters) directions.push_back({p, {}});
  return directions;
}

using P = ContactParameter;

TEST_CASE("step sensitivity: a sphere in stiction under a sideways push",
          "[solver][sensitivity]") {
  const Case c = SapSphere(0.3 * kMu);
  const Agreement a = CheckAgainstFiniteDifferences(
      "SAP sphere, stiction", c, Shared({P::kMu, P::kStiffness, P::kDissipationTime, P::kPhi0}));
  ContactProblem problem;
  Build(c, &problem);
  CHECK(Regions(problem, a.solution.v_c) == std::vector<ContactRegion>{ContactRegion::kStiction});
  CHECK(a.checked == 4);
  // In stiction gamma does not read mu: the step does not move with it at all.
  CHECK(a.ift.dv_dp.col(0).norm() == 0.0);
  CHECK(a.ift.dgamma_dp.col(0).norm() == 0.0);
  CHECK(a.ift.dv_dp.col(1).norm() > 0.0);
  CHECK(a.ift.dv_dp.col(2).norm() > 0.0);
}

TEST_CASE("step sensitivity: a sphere sliding under a push above 3.5 mu m g",
          "[solver][sensitivity]") {
  const Case c = SapSphere(5.0 * kMu);
  const Agreement a = CheckAgainstFiniteDifferences(
      "SAP sphere, sliding", c, Shared({P::kMu, P::kStiffness, P::kDissipationTime, P::kPhi0}));
  ContactProblem problem;
  Build(c, &problem);
  CHECK(Regions(problem, a.solution.v_c) == std::vector<ContactRegion>{ContactRegion::kSliding});
  CHECK(a.checked == 4);
  CHECK(a.ift.dv_dp.col(0).norm() > 0.0);
}

TEST_CASE("step sensitivity: a frictionless sphere", "[solver][sensitivity]") {
  // mu = 0 is mu's lower bound (no central difference there): k, tau_d and phi0.
  const Case c = SapSphere(0.5, /*mu=*/0.0);
  const Agreement a = CheckAgainstFiniteDifferences(
      "SAP sphere, frictionless", c, Shared({P::kStiffness, P::kDissipationTime, P::kPhi0}));
  CHECK(a.checked == 3);
  // The normal impulse passes through the centre: no parameter turns the sphere.
  CHECK(a.ift.dv_dp.topRows(3).norm() <= 1e-12 * a.ift.dv_dp.norm());
}

TEST_CASE("step sensitivity: Hunt & Crossley contacts", "[solver][sensitivity]") {
  const auto directions = Shared({P::kMu, P::kStiffness, P::kHuntCrossley, P::kPhi0});
  SECTION("lagged, stuck") {
    const Case c = HuntCrossleySphere(Approximation::kLagged, 0.3 * kMu, 0.0);
    const Agreement a = CheckAgainstFiniteDifferences("H&C lagged, stuck", c, directions);
    CHECK(a.checked == 4);
  }
  SECTION("lagged, sliding") {
    const Case c = HuntCrossleySphere(Approximation::kLagged, 5.0 * kMu, 0.0);
    CHECK(CheckAgainstFiniteDifferences("H&C lagged, sliding", c, directions).checked == 4);
  }
  SECTION("lagged_regularized, sliding") {
    const Case c = HuntCrossleySphere(Approximation::kLagged, 5.0 * kMu, 1e-2);
    ContactProblem problem;
    Build(c, &problem);
    const auto& hc = static_cast<const SapHuntCrossleyConstraint&>(problem.constraint(0));
    REQUIRE(hc.epsilon_s() > 2.0 * hc.parameters().stiction_tolerance);  // eps_s = mu sigma w n0
    CHECK(CheckAgainstFiniteDifferences("H&C lagged_regularized", c, directions).checked == 4);
  }
  SECTION("similar, stuck and sliding") {
    for (const double push : {0.3 * kMu, 5.0 * kMu}) {
      const Case c = HuntCrossleySphere(Approximation::kSimilar, push, 0.0);
      const char* name = push < 1.0 ? "H&C similar, stuck" : "H&C similar, sliding";
      CHECK(CheckAgainstFiniteDifferences(name, c, directions).checked == 4);
    }
  }
}

TEST_CASE("step sensitivity: a box on its four corners", "[solver][sensitivity]") {
  const auto directions = Shared({P::kMu, P::kStiffness, P::kDissipationTime, P::kPhi0});
  // One corner's phi0 alone, and mu of two corners: per-contact directions.
  std::vector<Direction> more = directions;
  more.push_back({P::kPhi0, {0.0, 0.0, 1.0, 0.0}});
  more.push_back({P::kMu, {1.0, 0.0, 0.0, 1.0}});
  SECTION("stuck") {
    const Case c = BoxOnCorners(0.3 * kMu);
    const Agreement a = CheckAgainstFiniteDifferences("SAP box corners, stuck", c, more);
    ContactProblem problem;
    Build(c, &problem);
    CHECK(Regions(problem, a.solution.v_c) ==
          std::vector<ContactRegion>(4, ContactRegion::kStiction));
    CHECK(a.checked == 6);
    CHECK(a.ift.dv_dp.col(0).norm() == 0.0);
  }
  SECTION("sliding") {
    const Case c = BoxOnCorners(2.0 * kMu);
    const Agreement a = CheckAgainstFiniteDifferences("SAP box corners, sliding", c, more);
    ContactProblem problem;
    Build(c, &problem);
    CHECK(Regions(problem, a.solution.v_c) ==
          std::vector<ContactRegion>(4, ContactRegion::kSliding));
    CHECK(a.checked == 6);
  }
}

TEST_CASE("step sensitivity: two islands and a body in free flight", "[solver][sensitivity]") {
  const Case c = TwoIslands();
  std::vector<Direction> directions = Shared(
      {P::kMu, P::kStiffness, P::kDissipationTime, P::kHuntCrossley, P::kPhi0});
  std::vector<double> top(c.contacts.size(), 0.0), one(c.contacts.size(), 0.0);
  for (size_t k = 5; k < c.contacts.size(); ++k) top[k] = 1.0;  // the top box's contacts
  one[6] = 1.0;
  directions.push_back({P::kMu, top});
  directions.push_back({P::kPhi0, one});
  const Agreement a = CheckAgainstFiniteDifferences("two islands", c, directions);
  CHECK(a.checked == 7);
  ContactProblem problem;
  Build(c, &problem);
  const std::vector<ContactRegion> regions = Regions(problem, a.solution.v_c);
  CHECK(regions[0] == ContactRegion::kSliding);  // the sphere
  for (int k = 1; k < 5; ++k) CHECK(regions[k] == ContactRegion::kStiction);  // the bottom box
  for (int k = 5; k < 9; ++k) CHECK(regions[k] == ContactRegion::kSliding);   // the top box
  // The body in free flight does not move with any contact parameter; tau_d (SAP contacts
  // only) and d (the Hunt & Crossley sphere only) each move one island alone.
  CHECK(a.ift.dv_dp.bottomRows(6).norm() == 0.0);
  CHECK(a.ift.dv_dp.block(0, 2, 6, 1).norm() == 0.0);
  CHECK(a.ift.dv_dp.block(6, 3, 12, 1).norm() == 0.0);
  CHECK(a.ift.dv_dp.block(0, 3, 6, 1).norm() > 0.0);
}

TEST_CASE("step sensitivity: dense and block-sparse factorizations agree and allocate nothing",
          "[solver][sensitivity]") {
  const Case c = TwoIslands();
  ContactProblem problem;
  Build(c, &problem);
  const SapSolverResult r = SolveTight(problem, problem.v_star());
  constexpr ContactParameter kAll[] = {P::kMu, P::kStiffness, P::kDissipationTime,
                                       P::kHuntCrossley, P::kPhi0};
  MatrixXd partial(problem.num_constraint_rows(), 5);
  for (int j = 0; j < 5; ++j)
    CalcContactParameterDirection(problem, r.v_c.data(), kAll[j], nullptr, partial.col(j));
  StepSensitivitySolver sparse(0), dense(1000);
  StepSensitivityResult s, d;
  REQUIRE(sparse.Solve(problem, r, partial, &s).ok());
  REQUIRE(dense.Solve(problem, r, partial, &d).ok());
  CHECK(sparse.islands().num_islands == 2);
  for (int j = 0; j < 5; ++j) {
    CHECK((s.dv_dp.col(j) - d.dv_dp.col(j)).norm() <= 1e-10 * d.dv_dp.col(j).norm());
    CHECK((s.dgamma_dp.col(j) - d.dgamma_dp.col(j)).norm() <= 1e-10 * d.dgamma_dp.col(j).norm());
  }
  for (StepSensitivitySolver* solver : {&sparse, &dense}) {
    const std::size_t before = testing::AllocationCount();
    for (int j = 0; j < 5; ++j)
      CalcContactParameterDirection(problem, r.v_c.data(), kAll[j], nullptr, partial.col(j));
    const StepStatus status = solver->Solve(problem, r, partial, &s);
    const std::size_t after = testing::AllocationCount();
    CHECK(status.ok());
    CHECK(after - before == 0);
  }
}

TEST_CASE("step sensitivity: a problem without constraints", "[solver][sensitivity]") {
  Case c;
  c.bodies.push_back(Sphere(1.0, 0.1));
  ContactProblem problem;
  Build(c, &problem);
  const SapSolverResult r = SolveTight(problem, problem.v_star());
  StepSensitivitySolver solver;
  StepSensitivityResult s;
  REQUIRE(solver.Solve(problem, r, MatrixXd(0, 2), &s).ok());
  CHECK(s.dv_dp.rows() == 6);
  CHECK(s.dv_dp.cols() == 2);
  CHECK(s.dv_dp.norm() == 0.0);
  CHECK(s.dgamma_dp.size() == 0);
}

// H = A + J^T G J formed densely over all velocities from the problem's dense blocks and
// each constraint's G at v_c, with J^T partial (an independent oracle).
MatrixXd DenseNewtonMatrix(const ContactProblem& p, const VectorXd& v_c, const MatrixXd& partial,
                           MatrixXd* JT_partial) {
  const int nv = p.num_velocities();
  MatrixXd H = MatrixXd::Zero(nv, nv);
  *JT_partial = MatrixXd::Zero(nv, partial.cols());
  for (int c = 0; c < p.num_cliques(); ++c) {
    const int o = p.clique_offset(c), m = p.clique_size(c);
    H.block(o, o, m, m) = p.DenseA(c);
  }
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    MatrixXd G(e.num_rows, e.num_rows);
    VectorXd gamma(e.num_rows);
    p.constraint(k).Calc(v_c.data() + e.row_offset, gamma.data(), G.data(), nullptr);
    for (int a = 0; a < e.num_cliques; ++a) {
      const int ca = e.clique[a], oa = p.clique_offset(ca), ma = p.clique_size(ca);
      const MatrixXd Ja = p.DenseJacobian(k, a);
      JT_partial->middleRows(oa, ma) +=
          Ja.transpose() * partial.middleRows(e.row_offset, e.num_rows);
      for (int b = 0; b < e.num_cliques; ++b) {
        const int cb = e.clique[b];
        H.block(oa, p.clique_offset(cb), ma, p.clique_size(cb)) +=
            Ja.transpose() * G * p.DenseJacobian(k, b);
      }
    }
  }
  return H;
}

// dv/dp = H^{-1} J^T dgamma/dp|_vc from DenseNewtonMatrix.
MatrixXd DenseOracle(const ContactProblem& p, const VectorXd& v_c, const MatrixXd& partial) {
  MatrixXd JT_partial;
  const MatrixXd H = DenseNewtonMatrix(p, v_c, partial, &JT_partial);
  return H.ldlt().solve(JT_partial);
}

TEST_CASE("step sensitivity: a small problem's right-hand sides by the direct dense route",
          "[solver][sensitivity]") {
  // Two islands and a body in free flight: 12 touched velocities, within the direct route's
  // (SolveRightHandSides forms H densely instead of setting up islands). Against the dense
  // Newton matrix of this file; the body in free flight's rows stay 0; no allocation once
  // warmed up.
  const Case c = TwoIslands();
  ContactProblem problem;
  Build(c, &problem);
  const SapSolverResult r = SolveTight(problem, problem.v_star());
  const int nv = problem.num_velocities();
  MatrixXd JT_partial;
  const MatrixXd H = DenseNewtonMatrix(problem, r.v_c, MatrixXd::Zero(problem.num_constraint_rows(), 1),
                                       &JT_partial);
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  MatrixXd rhs(nv, 4);
  for (int i = 0; i < rhs.size(); ++i) rhs.data()[i] = normal(rng);
  // The free body's block of H is its A alone: the touched rows solve on their own.
  const int touched = nv - 6;
  const MatrixXd expected =
      H.topLeftCorner(touched, touched).ldlt().solve(rhs.topRows(touched));
  StepSensitivitySolver solver;
  MatrixXd dv;
  REQUIRE(solver.SolveRightHandSides(problem, r, rhs, &dv).ok());
  CHECK((dv.topRows(touched) - expected).norm() <= 1e-10 * expected.norm());
  CHECK(dv.bottomRows(6).norm() == 0.0);
  const std::size_t before = testing::AllocationCount();
  const StepStatus status = solver.SolveRightHandSides(problem, r, rhs, &dv);
  CHECK(testing::AllocationCount() - before == 0);
  CHECK(status.ok());
}

TEST_CASE("step sensitivity: a chain on the floor through the articulated-body factorization",
          "[solver][sensitivity]") {
  using integrator::ThetaParameters;
  // Compliant contacts (R_n from k: d/dk != 0), the chain still settling after 30 steps.
  std::string yaml = testing::BallChainOnTheFloorScene();
  yaml.insert(yaml.find("settings:"),
              "materials:\n  default: {stiffness: 200.0, dissipation_time: 0.01, friction: 0.3}\n");
  io::LoadedScene scene = io::LoadSceneFromText(yaml, "scene.yaml", {});
  const ThetaParameters symplectic{0.0, 1.0, integrator::Gyroscopic::kImplicit};
  integrator::StepWorkspace ws =
      integrator::MakeStepWorkspace(scene.model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(scene.model);
  multibody::State state{0.0, scene.model.InitialQ(), scene.model.InitialV()};
  contact::ContactParameters contact;
  contact.position_theta = symplectic.theta_q;
  for (int n = 0; n < 30; ++n)
    REQUIRE(integrator::StepWithContact(scene.model, symplectic, {}, contact, 1e-3, false, state,
                                        ws, cws)
                .ok());
  const ContactProblem& problem = cws.problem;
  REQUIRE(problem.clique_solver(0) != nullptr);  // theta = 0: the tree's own factorization
  int body_contacts = 0;  // contacts whose J is W B_body: the body maps' products
  for (int k = 0; k < problem.num_constraints(); ++k)
    body_contacts += problem.entry(k).body_jacobian >= 0;
  REQUIRE(body_contacts > 0);
  const VectorXd& v_c = cws.result.v_c;
  constexpr ContactParameter kAll[] = {P::kMu, P::kStiffness, P::kDissipationTime, P::kPhi0};
  MatrixXd partial(problem.num_constraint_rows(), 4);
  for (int j = 0; j < 4; ++j)
    CalcContactParameterDirection(problem, v_c.data(), kAll[j], nullptr, partial.col(j));
  const MatrixXd oracle = DenseOracle(problem, v_c, partial);
  for (const int dense_threshold : {0, 1000}) {
    INFO("dense_threshold " << dense_threshold);
    StepSensitivitySolver solver(dense_threshold);
    StepSensitivityResult s;
    REQUIRE(solver.Solve(problem, cws.result, partial, &s).ok());
    for (int j = 0; j < 4; ++j) {
      INFO(Name(kAll[j]));
      CHECK(oracle.col(j).norm() > 0.0);
      CHECK((s.dv_dp.col(j) - oracle.col(j)).norm() <= 1e-8 * oracle.col(j).norm());
    }
  }
  // The generalized right-hand sides (brick 3's state directions): H^{-1} rhs for random
  // rhs against the dense H; the products J^T x and J v and the residual r(v) against the
  // dense blocks.
  const int nv = problem.num_velocities(), rows = problem.num_constraint_rows();
  MatrixXd JT_partial;
  const MatrixXd H = DenseNewtonMatrix(problem, v_c, partial, &JT_partial);
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  MatrixXd rhs(nv, 3);
  for (int i = 0; i < rhs.size(); ++i) rhs.data()[i] = normal(rng);
  const MatrixXd expected = H.ldlt().solve(rhs);
  for (const int dense_threshold : {0, 1000}) {
    INFO("dense_threshold " << dense_threshold);
    StepSensitivitySolver solver(dense_threshold);
    MatrixXd dv;
    REQUIRE(solver.SolveRightHandSides(problem, cws.result, rhs, &dv).ok());
    CHECK((dv - expected).norm() <= 1e-8 * expected.norm());
  }
  MatrixXd J = MatrixXd::Zero(rows, nv);
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const ConstraintEntry& e = problem.entry(k);
    for (int b = 0; b < e.num_cliques; ++b)
      J.block(e.row_offset, problem.clique_offset(e.clique[b]), e.num_rows,
              problem.clique_size(e.clique[b])) = problem.DenseJacobian(k, b);
  }
  SapWorkspace products;
  VectorXd JT_x(nv), Jv(rows), r(nv), gamma(rows);
  CalcJTransposeTimes(problem, partial.col(0).data(), &products, JT_x);
  CHECK((JT_x - J.transpose() * partial.col(0)).norm() <= 1e-12 * JT_x.norm());
  const VectorXd& v = cws.result.v;
  CalcConstraintVelocities(problem, v, &products, Jv);
  CHECK((Jv - J * v).norm() <= 1e-12 * std::max(1.0, Jv.norm()));
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const int o = problem.entry(k).row_offset;
    problem.constraint(k).Calc(Jv.data() + o, gamma.data() + o, nullptr, nullptr);
  }
  MatrixXd A = MatrixXd::Zero(nv, nv);
  for (int c = 0; c < problem.num_cliques(); ++c)
    A.block(problem.clique_offset(c), problem.clique_offset(c), problem.clique_size(c),
            problem.clique_size(c)) = problem.DenseA(c);
  const VectorXd r_dense = A * (v - problem.v_star()) - J.transpose() * gamma;
  CalcOptimalityResidual(problem, v, &products, r);
  CHECK((r - r_dense).norm() <= 1e-10 * (A * v).norm());
}

}  // namespace
}  // namespace csim::solver
