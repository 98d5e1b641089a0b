// CalcContactParameterDerivatives against central differences of Calc's gamma in each
// parameter (mu, k, tau_d, d, phi0), re-constructing and re-preparing the constraint at
// p +- h, h = 1e-6 max(|p|, p_ref) (docs/design/sensitivities.md §4): for SAP (compliant,
// near-rigid, frictionless, apart) and the Hunt & Crossley models (lagged, lagged_regularized,
// similar; midpoint gap, apart, near-rigid, no damping, the damping clamp), at random points
// of every region at least 1e-3 from a region boundary by the reported kink distance, on both
// sides of the Hunt & Crossley clamp. Also: the reported region is the piece Calc takes, the
// near-rigid d/dk = 0, the closed forms of the design notes' table, and the kink distance
// going to zero at the stick/slip, polar and clamp boundaries.

#include "engine/solver/contact_parameter_derivatives.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <utility>

namespace csim::solver {
namespace {

using Eigen::Vector3d;
using Approximation = HuntCrossleyApproximation;

constexpr double kDt = 0.01;        // [s]
constexpr double kDelassus = 2.0;   // w [1/kg]
constexpr double kMinKink = 1e-3;   // test points' distance to a region boundary
constexpr double kRelTol = 1e-6;
constexpr int kPointsPerRegion = 12;

enum class Param { kMu, kStiffness, kDissipationTime, kHuntCrossley, kPhi0 };
constexpr Param kParams[] = {Param::kMu, Param::kStiffness, Param::kDissipationTime,
                             Param::kHuntCrossley, Param::kPhi0};

const char* Name(Param p) {
  switch (p) {
    case Param::kMu:
      return "mu";
    case Param::kStiffness:
      return "stiffness";
    case Param::kDissipationTime:
      return "dissipation_time";
    case Param::kHuntCrossley:
      return "hunt_crossley";
    case Param::kPhi0:
      break;
  }
  return "phi0";
}

// p_ref of h = 1e-6 max(|p|, p_ref): the scale of a parameter that may be zero.
double ReferenceScale(Param p) {
  switch (p) {
    case Param::kMu:
      return 0.1;
    case Param::kStiffness:
      return 1.0;  // [N/m]; k > 0 always
    case Param::kDissipationTime:
      return kDt;
    case Param::kHuntCrossley:
      return 1.0;  // [s/m]
    case Param::kPhi0:
      break;
  }
  return 1e-4;  // [m]
}

// The parameter's field, or nullptr for one the kind does not read.
double* Field(SapFrictionConeParameters& q, Param p) {
  switch (p) {
    case Param::kMu:
      return &q.mu;
    case Param::kStiffness:
      return &q.stiffness;
    case Param::kDissipationTime:
      return &q.dissipation_time;
    case Param::kHuntCrossley:
      return nullptr;
    case Param::kPhi0:
      break;
  }
  return &q.phi0;
}

double* Field(SapHuntCrossleyParameters& q, Param p) {
  switch (p) {
    case Param::kMu:
      return &q.mu;
    case Param::kStiffness:
      return &q.stiffness;
    case Param::kDissipationTime:
      return nullptr;
    case Param::kHuntCrossley:
      return &q.hunt_crossley;
    case Param::kPhi0:
      break;
  }
  return &q.phi0;
}

const Vector3d& Analytic(const ContactParameterDerivatives& r, Param p) {
  switch (p) {
    case Param::kMu:
      return r.d_mu;
    case Param::kStiffness:
      return r.d_stiffness;
    case Param::kDissipationTime:
      return r.d_dissipation_time;
    case Param::kHuntCrossley:
      return r.d_hunt_crossley;
    case Param::kPhi0:
      break;
  }
  return r.d_phi0;
}

template <class Constraint, class Params>
Constraint Prepared(const Params& q) {
  Constraint c(q);
  c.Prepare(kDt, kDelassus);
  return c;
}

template <class Constraint, class Params>
Vector3d GammaAt(const Params& q, const Vector3d& v_c, int* piece = nullptr) {
  const Constraint c = Prepared<Constraint>(q);
  Vector3d gamma;
  c.Calc(v_c.data(), gamma.data(), nullptr, piece);
  return gamma;
}

// Central difference of gamma in parameter p (a new constraint prepared at p +- h); at a
// parameter's lower bound 0 (mu = 0, d = 0, which the constructor rejects below), the
// one-sided second-order difference.
template <class Constraint, class Params>
Vector3d FiniteDifference(Params q, Param p, const Vector3d& v_c) {
  double* field = Field(q, p);
  const double p0 = *field;
  const double h = 1e-6 * std::max(std::abs(p0), ReferenceScale(p));
  const auto gamma = [&](double value) {
    *field = value;
    return GammaAt<Constraint>(q, v_c);
  };
  if (p == Param::kPhi0 || p0 - h >= 0.0) return (gamma(p0 + h) - gamma(p0 - h)) / (2.0 * h);
  return (-3.0 * gamma(p0) + 4.0 * gamma(p0 + h) - gamma(p0 + 2.0 * h)) / (2.0 * h);
}

// Every parameter's analytic derivative against its finite difference, to kRelTol relative
// to the larger of the derivative and |gamma| / max(|p|, p_ref) (the floor for a derivative
// that is small next to the impulse). A parameter the kind does not read, or an infinite
// stiffness, has exactly zero derivatives.
template <class Constraint, class Params>
void CheckAgainstFiniteDifferences(const Params& q, const Vector3d& v_c,
                                   const ContactParameterDerivatives& r) {
  const double gamma_size = GammaAt<Constraint>(q, v_c).template lpNorm<Eigen::Infinity>();
  for (const Param p : kParams) {
    INFO("parameter " << Name(p) << ", v_c = " << v_c.transpose());
    const Vector3d& analytic = Analytic(r, p);
    Params copy = q;
    const double* field = Field(copy, p);
    if (field == nullptr || std::isinf(*field)) {
      CHECK(analytic.isZero(0.0));
      continue;
    }
    const Vector3d fd = FiniteDifference<Constraint>(q, p, v_c);
    const double floor = gamma_size / std::max(std::abs(*field), ReferenceScale(p));
    const double tolerance =
        kRelTol * std::max(analytic.lpNorm<Eigen::Infinity>(), floor);
    INFO("analytic " << analytic.transpose() << ", finite difference " << fd.transpose());
    CHECK((fd - analytic).lpNorm<Eigen::Infinity>() <= tolerance);
  }
}

// ---- SAP ----

SapFrictionConeParameters SapCompliant() {
  SapFrictionConeParameters q;
  q.near_rigid_threshold = 1.0;
  q.stiction_sigma = 1.0e-3;
  q.mu = 0.7;
  q.stiffness = 1e4;          // R_n = 1 / (dt k (dt + tau_d)) = 0.5 > w / (4 pi^2)
  q.dissipation_time = 0.01;
  q.phi0 = -1e-3;
  q.bias_velocity = Vector3d(0.02, -0.01, 0.005);
  return q;
}

// The v_c whose un-projected impulse is y: y = -R^{-1} (v_c + v_b - v_hat) inverted.
Vector3d SapVelocityFor(const SapFrictionConeConstraint& c, const Vector3d& y) {
  const Vector3d u(-c.R_t() * y[0], -c.R_t() * y[1], c.v_hat_n() - c.R_n() * y[2]);
  return u - c.parameters().bias_velocity;
}

ContactRegion RegionOfPiece(int piece) {
  if (piece == 0) return ContactRegion::kStiction;
  if (piece == 1) return ContactRegion::kNone;
  return ContactRegion::kSliding;
}

ContactRegion RegionOfProjection(FrictionConeRegion region) {
  if (region == FrictionConeRegion::kStiction) return ContactRegion::kStiction;
  if (region == FrictionConeRegion::kSliding) return ContactRegion::kSliding;
  return ContactRegion::kNone;
}

// Random points of every region (y up to 0.1 N s in each component) away from its borders:
// the reported region is Calc's piece and the projection's region, and the derivatives
// match finite differences. Returns the regions visited.
std::set<ContactRegion> CheckSapAtRandomPoints(const SapFrictionConeParameters& q,
                                               unsigned seed) {
  const SapFrictionConeConstraint c = Prepared<SapFrictionConeConstraint>(q);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-0.1, 0.1);
  int count[3] = {0, 0, 0};
  std::set<ContactRegion> visited;
  for (int trial = 0; trial < 20000; ++trial) {
    const Vector3d v_c = SapVelocityFor(c, Vector3d(uniform(rng), uniform(rng), uniform(rng)));
    const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
    int& n = count[static_cast<int>(r.region)];
    if (r.kink_distance < kMinKink || n >= kPointsPerRegion) continue;
    ++n;
    visited.insert(r.region);
    int piece = -2;
    GammaAt<SapFrictionConeConstraint>(q, v_c, &piece);
    CHECK(r.region == RegionOfPiece(piece));
    CHECK(r.region == RegionOfProjection(c.RegionAt(v_c.data())));
    CHECK(r.normal_clamped == (r.region == ContactRegion::kNone));
    CHECK(r.near_rigid == c.near_rigid());
    CheckAgainstFiniteDifferences<SapFrictionConeConstraint>(q, v_c, r);
  }
  return visited;
}

const std::set<ContactRegion> kAllRegions = {ContactRegion::kNone, ContactRegion::kStiction,
                                             ContactRegion::kSliding};

TEST_CASE("SAP contact: parameter derivatives match finite differences in every region",
          "[solver][sensitivity]") {
  SECTION("compliant") {
    const SapFrictionConeParameters q = SapCompliant();
    CHECK(!Prepared<SapFrictionConeConstraint>(q).near_rigid());
    CHECK(CheckSapAtRandomPoints(q, 1) == kAllRegions);
  }
  SECTION("compliant, apart (phi0 > 0, v_hat_n < 0)") {
    SapFrictionConeParameters q = SapCompliant();
    q.phi0 = 2e-4;
    CHECK(CheckSapAtRandomPoints(q, 2) == kAllRegions);
  }
  SECTION("near-rigid") {
    SapFrictionConeParameters q = SapCompliant();
    q.stiffness = 1e8;  // 1 / (dt k (dt + tau_d)) = 5e-5 < w / (4 pi^2)
    CHECK(Prepared<SapFrictionConeConstraint>(q).near_rigid());
    CHECK(CheckSapAtRandomPoints(q, 3) == kAllRegions);
  }
  SECTION("infinite stiffness") {
    SapFrictionConeParameters q = SapCompliant();
    q.stiffness = std::numeric_limits<double>::infinity();
    CHECK(CheckSapAtRandomPoints(q, 4) == kAllRegions);
  }
  SECTION("frictionless: no stiction region") {
    SapFrictionConeParameters q = SapCompliant();
    q.mu = 0.0;
    CHECK(CheckSapAtRandomPoints(q, 5) ==
          std::set<ContactRegion>{ContactRegion::kNone, ContactRegion::kSliding});
  }
}

TEST_CASE("SAP contact: near-rigid R_n gives d/dk = 0", "[solver][sensitivity]") {
  SapFrictionConeParameters q = SapCompliant();
  q.stiffness = 1e8;
  const SapFrictionConeConstraint c = Prepared<SapFrictionConeConstraint>(q);
  REQUIRE(c.near_rigid());
  // A stuck and a sliding point: the impulse is nonzero, and k does not move it.
  for (const Vector3d& y : {Vector3d(0.01, 0.0, 0.05), Vector3d(0.05, 0.02, 0.01)}) {
    const Vector3d v_c = SapVelocityFor(c, y);
    const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
    CHECK(r.near_rigid);
    CHECK(r.d_stiffness.isZero(0.0));
    CHECK(FiniteDifference<SapFrictionConeConstraint>(q, Param::kStiffness, v_c).isZero(0.0));
    CHECK(!r.d_phi0.isZero());  // phi0 still acts, through v_hat_n
    CHECK(!r.d_dissipation_time.isZero());
  }
}

TEST_CASE("SAP contact: derivatives equal the closed forms of the compliant regime",
          "[solver][sensitivity]") {
  // docs/design/sensitivities.md §2.1, with the bias in u = v_c + v_b and the soft slip
  // s = sqrt(|u_t|^2 + (R_t eps)^2).
  const SapFrictionConeParameters q = SapCompliant();
  const SapFrictionConeConstraint c = Prepared<SapFrictionConeConstraint>(q);
  const double k = q.stiffness, tau = q.dissipation_time, T = kDt + tau, mu = q.mu;
  const double R_t = c.R_t(), R_n = c.R_n(), v_hat = c.v_hat_n();
  {
    const Vector3d v_c = SapVelocityFor(c, Vector3d(0.01, -0.01, 0.05));
    const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
    REQUIRE(r.region == ContactRegion::kStiction);
    const double u_n = v_c[2] + q.bias_velocity[2];
    const double gamma_n = -kDt * k * (q.phi0 + T * u_n);
    CHECK(r.d_mu.isZero(0.0));
    CHECK(r.d_stiffness[2] == Approx(gamma_n / k).epsilon(1e-12));
    CHECK(r.d_dissipation_time[2] == Approx(-kDt * k * u_n).epsilon(1e-12));
    CHECK(r.d_phi0[2] == Approx(-kDt * k).epsilon(1e-12));
    CHECK(r.d_phi0.head<2>().isZero(0.0));
  }
  {
    const Vector3d v_c = SapVelocityFor(c, Vector3d(0.04, 0.03, 0.02));
    const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
    REQUIRE(r.region == ContactRegion::kSliding);
    const Vector3d u = v_c + q.bias_velocity;
    const double s = std::hypot(u[0], u[1], R_t * kFrictionConeSoftNorm);
    const double D = R_n + mu * mu * R_t;
    const double gamma_n = (v_hat - u[2] + mu * s) / D;
    const Eigen::Vector2d t_hat = -u.head<2>() / s;
    const double f = R_n / D;
    const double dmu_n = (s - 2.0 * mu * R_t * gamma_n) / D;
    CHECK(r.d_mu[2] == Approx(dmu_n).epsilon(1e-12));
    CHECK(r.d_mu[0] == Approx((gamma_n + mu * dmu_n) * t_hat[0]).epsilon(1e-12));
    CHECK(r.d_stiffness[2] == Approx(f * gamma_n / k).epsilon(1e-12));
    CHECK(r.d_dissipation_time[2] == Approx((R_n * gamma_n - v_hat) / (T * D)).epsilon(1e-12));
    CHECK(r.d_phi0[2] == Approx(-1.0 / (T * D)).epsilon(1e-12));
    CHECK(r.d_phi0[1] == Approx(mu * t_hat[1] * r.d_phi0[2]).epsilon(1e-12));
  }
}

TEST_CASE("SAP contact: the kink distance goes to zero at the region boundaries",
          "[solver][sensitivity]") {
  const SapFrictionConeParameters q = SapCompliant();
  const SapFrictionConeConstraint c = Prepared<SapFrictionConeConstraint>(q);
  const FrictionConeMetric& m = c.metric();
  const double y_r = std::hypot(0.03, 0.04, kFrictionConeSoftNorm);
  // y on the cone (y_r = mu y_n) and on the polar cone (y_n = -mu_hat y_r), moved off it along
  // y_n by a fraction s of |y_n| or y_r: inside (s > 0) and outside (s < 0).
  struct Boundary {
    Vector3d y;
    Vector3d direction;
    ContactRegion above, below;
  };
  const Boundary boundaries[] = {
      {Vector3d(0.03, 0.04, y_r / m.mu), Vector3d(0, 0, y_r / m.mu), ContactRegion::kStiction,
       ContactRegion::kSliding},
      {Vector3d(0.03, 0.04, -m.mu_hat * y_r), Vector3d(0, 0, y_r), ContactRegion::kSliding,
       ContactRegion::kNone}};
  for (const Boundary& b : boundaries) {
    double previous = std::numeric_limits<double>::infinity();
    for (double s = 1e-1; s >= 1e-9; s /= 10.0) {
      for (const double sign : {1.0, -1.0}) {
        const Vector3d v_c = SapVelocityFor(c, b.y + sign * s * b.direction);
        const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
        INFO("s = " << sign * s);
        CHECK(r.region == (sign > 0 ? b.above : b.below));
        // The sine of an angle of about s: proportional to s within the rounding of v_c.
        CHECK(r.kink_distance <= 2.0 * s);
        CHECK(r.kink_distance >= 0.2 * s);
        CHECK(r.kink_distance < previous);
        if (sign < 0) previous = r.kink_distance;
      }
    }
    CHECK(previous < 1e-8);
  }
}

// ---- Hunt & Crossley ----

// v_hat = min(f_x0 / (dt k), 1/d) = min(0.1, 0.5) = 0.1 m/s; n0 = dt k x0 (1 - d v_n0) = 0.12 N s.
SapHuntCrossleyParameters HuntCrossley(Approximation approximation) {
  SapHuntCrossleyParameters q;
  q.approximation = approximation;
  q.mu = 0.5;
  q.stiffness = 1e4;
  q.hunt_crossley = 2.0;
  q.phi0 = -1e-3;
  q.v_n0 = -0.1;
  q.stiction_tolerance = 1e-4;
  q.near_rigid_threshold = 1.0;
  q.position_theta = 1.0;
  q.bias_velocity = Vector3d(0.01, -0.02, 0.003);
  return q;
}

// lagged_regularized: eps_s = mu sigma w n0 = 1.2e-3 m/s > v_s.
SapHuntCrossleyParameters LaggedRegularized() {
  SapHuntCrossleyParameters q = HuntCrossley(Approximation::kLagged);
  q.stiction_sigma = 1e-2;
  return q;
}

// What a Hunt & Crossley test point is: its region and which side of the normal clamp.
using Piece = std::pair<ContactRegion, bool>;

// Random points on both sides of the clamp v_hat (u_n within max(|v_hat|, 0.01 m/s) of it) with
// slips from 0.01 to 100 eps_s, away from the clamp: the reported region and clamp are Calc's,
// the derivatives match finite differences. Returns the pieces visited.
std::set<Piece> CheckHuntCrossleyAtRandomPoints(const SapHuntCrossleyParameters& q,
                                                unsigned seed) {
  const SapHuntCrossleyConstraint c = Prepared<SapHuntCrossleyConstraint>(q);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double v_hat = c.v_hat(), scale = std::max(std::abs(v_hat), 0.01);
  std::set<Piece> visited;
  int count[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  for (int trial = 0; trial < 20000; ++trial) {
    const double slip = c.epsilon_s() * std::pow(10.0, -2.0 + 4.0 * uniform(rng));
    const double angle = 2.0 * M_PI * uniform(rng);
    const Vector3d u(slip * std::cos(angle), slip * std::sin(angle),
                     v_hat + scale * (2.0 * uniform(rng) - 1.0));
    const Vector3d v_c = u - q.bias_velocity;
    const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
    int& n = count[static_cast<int>(r.region)][r.normal_clamped];
    if (r.kink_distance < kMinKink || n >= kPointsPerRegion) continue;
    ++n;
    visited.insert({r.region, r.normal_clamped});
    int piece = -2;
    const Vector3d gamma = GammaAt<SapHuntCrossleyConstraint>(q, v_c, &piece);
    CHECK((piece == 1) == (r.region == ContactRegion::kNone));
    CHECK(r.normal_clamped == (gamma[2] == 0.0));
    if (r.region != ContactRegion::kNone)
      CHECK((r.region == ContactRegion::kStiction) == c.StuckAt(v_c.data()));
    CHECK(r.near_rigid == std::isinf(q.stiffness));
    CheckAgainstFiniteDifferences<SapHuntCrossleyConstraint>(q, v_c, r);
  }
  return visited;
}

const Piece kStuckActive{ContactRegion::kStiction, false};
const Piece kStuckClamped{ContactRegion::kStiction, true};
const Piece kSlidingActive{ContactRegion::kSliding, false};
const Piece kSlidingClamped{ContactRegion::kSliding, true};
const Piece kNone{ContactRegion::kNone, true};
// The lagged friction acts past the clamp too (mu n0 > 0): no kNone.
const std::set<Piece> kLaggedPieces = {kStuckActive, kStuckClamped, kSlidingActive,
                                       kSlidingClamped};
// Similar friction is mu n(z): clamped means no impulse at all.
const std::set<Piece> kSimilarPieces = {kStuckActive, kSlidingActive, kNone};

TEST_CASE("Hunt & Crossley contact: parameter derivatives match finite differences",
          "[solver][sensitivity]") {
  SECTION("lagged") {
    CHECK(CheckHuntCrossleyAtRandomPoints(HuntCrossley(Approximation::kLagged), 11) ==
          kLaggedPieces);
  }
  SECTION("lagged_regularized") {
    const SapHuntCrossleyParameters q = LaggedRegularized();
    REQUIRE(Prepared<SapHuntCrossleyConstraint>(q).epsilon_s() > 10 * q.stiction_tolerance);
    CHECK(CheckHuntCrossleyAtRandomPoints(q, 12) == kLaggedPieces);
  }
  SECTION("similar") {
    CHECK(CheckHuntCrossleyAtRandomPoints(HuntCrossley(Approximation::kSimilar), 13) ==
          kSimilarPieces);
  }
  SECTION("similar, damping clamp first (1/d < f_x0 / (dt k))") {
    SapHuntCrossleyParameters q = HuntCrossley(Approximation::kSimilar);
    q.hunt_crossley = 20.0;
    REQUIRE(Prepared<SapHuntCrossleyConstraint>(q).v_hat() == Approx(0.05));
    CHECK(CheckHuntCrossleyAtRandomPoints(q, 14) == kSimilarPieces);
  }
  SECTION("lagged, midpoint gap prediction (theta_q = 1/2)") {
    SapHuntCrossleyParameters q = HuntCrossley(Approximation::kLagged);
    q.position_theta = 0.5;
    CHECK(CheckHuntCrossleyAtRandomPoints(q, 15) == kLaggedPieces);
  }
  SECTION("lagged, no damping (d = 0)") {
    SapHuntCrossleyParameters q = HuntCrossley(Approximation::kLagged);
    q.hunt_crossley = 0.0;
    CHECK(CheckHuntCrossleyAtRandomPoints(q, 16) == kLaggedPieces);
  }
  SECTION("lagged, apart (phi0 > 0: n0 = 0, no friction past the clamp)") {
    SapHuntCrossleyParameters q = HuntCrossley(Approximation::kLagged);
    q.phi0 = 2e-4;
    REQUIRE(Prepared<SapHuntCrossleyConstraint>(q).n0() == 0.0);
    CHECK(CheckHuntCrossleyAtRandomPoints(q, 17) ==
          std::set<Piece>{kStuckActive, kSlidingActive, kNone});
  }
  SECTION("lagged_regularized, frictionless") {
    SapHuntCrossleyParameters q = LaggedRegularized();
    q.mu = 0.0;
    CHECK(CheckHuntCrossleyAtRandomPoints(q, 18) ==
          std::set<Piece>{kStuckActive, kSlidingActive, kNone});
  }
  SECTION("similar, lagged_regularized: infinite stiffness (near-rigid k)") {
    for (const SapHuntCrossleyParameters& base :
         {HuntCrossley(Approximation::kSimilar), LaggedRegularized()}) {
      SapHuntCrossleyParameters q = base;
      q.stiffness = std::numeric_limits<double>::infinity();
      const std::set<Piece> expected =
          q.approximation == Approximation::kSimilar ? kSimilarPieces : kLaggedPieces;
      CHECK(CheckHuntCrossleyAtRandomPoints(q, 19) == expected);
    }
  }
}

TEST_CASE("Hunt & Crossley contact: derivatives equal the closed forms of the normal impulse",
          "[solver][sensitivity]") {
  // docs/design/sensitivities.md §2.2 for theta_q = 1: n = dt (f_e0 - dt k v)(1 - d v),
  // n0 = dt f_e0 (1 - d v_n0), f_e0 = -k phi0; lagged gamma_t = -mu n0 t_hat.
  const SapHuntCrossleyParameters q = HuntCrossley(Approximation::kLagged);
  const SapHuntCrossleyConstraint c = Prepared<SapHuntCrossleyConstraint>(q);
  const double k = q.stiffness, d = q.hunt_crossley, f_e0 = -k * q.phi0;
  const Vector3d u(3e-4, -4e-4, 0.02);  // |u_t| = 5e-4 > eps_s = 1e-4: sliding
  const Vector3d v_c = u - q.bias_velocity;
  const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
  REQUIRE(r.region == ContactRegion::kSliding);
  REQUIRE(!r.normal_clamped);
  const double v = u[2], n = kDt * (f_e0 - kDt * k * v) * (1.0 - d * v);
  const Eigen::Vector2d t_hat = u.head<2>() / std::hypot(u[0], u[1], c.epsilon_s());
  CHECK(r.d_stiffness[2] == Approx(n / k).epsilon(1e-12));
  CHECK(r.d_hunt_crossley[2] == Approx(-kDt * (f_e0 - kDt * k * v) * v).epsilon(1e-12));
  CHECK(r.d_phi0[2] == Approx(-kDt * k * (1.0 - d * v)).epsilon(1e-12));
  CHECK(r.d_mu[2] == 0.0);
  CHECK(r.d_mu[0] == Approx(-c.n0() * t_hat[0]).epsilon(1e-12));
  // Through n0: d n0 / d k = n0 / k, d n0 / d d = -dt f_e0 v_n0,
  // d n0 / d phi0 = -dt k (1 - d v_n0).
  CHECK(r.d_stiffness[1] == Approx(-q.mu * c.n0() / k * t_hat[1]).epsilon(1e-12));
  CHECK(r.d_hunt_crossley[0] ==
        Approx(q.mu * kDt * f_e0 * q.v_n0 * t_hat[0]).epsilon(1e-12));
  CHECK(r.d_phi0[0] == Approx(q.mu * kDt * k * (1.0 - d * q.v_n0) * t_hat[0]).epsilon(1e-12));
  CHECK(r.d_dissipation_time.isZero(0.0));
}

TEST_CASE("Hunt & Crossley contact: the kink distance goes to zero at the clamp",
          "[solver][sensitivity]") {
  for (const Approximation approximation : {Approximation::kLagged, Approximation::kSimilar}) {
    const SapHuntCrossleyParameters q = HuntCrossley(approximation);
    const SapHuntCrossleyConstraint c = Prepared<SapHuntCrossleyConstraint>(q);
    // For similar the clamp is z = u_n - mu ||u_t||_s = v_hat: put u_n there for u_t = 0.
    const double v_hat = c.v_hat();
    double previous = std::numeric_limits<double>::infinity();
    for (double s = 1e-1; s >= 1e-9; s /= 10.0) {
      for (const double sign : {1.0, -1.0}) {
        const Vector3d u(0.0, 0.0, v_hat * (1.0 + sign * s));
        const Vector3d v_c = u - q.bias_velocity;
        const ContactParameterDerivatives r = CalcContactParameterDerivatives(c, v_c.data());
        INFO("s = " << sign * s);
        CHECK(r.normal_clamped == (sign > 0));
        CHECK(r.kink_distance == Approx(s / (1.0 + std::max(sign * s, 0.0))).epsilon(1e-6));
        CHECK(r.kink_distance < previous);
        if (sign < 0) previous = r.kink_distance;
      }
    }
    CHECK(previous < 1e-8);
  }
}

}  // namespace
}  // namespace csim::solver
