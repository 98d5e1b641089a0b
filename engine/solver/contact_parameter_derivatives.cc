#include "engine/solver/contact_parameter_derivatives.h"

#include <algorithm>
#include <cmath>

#include "engine/solver/friction_cone_projection.h"

namespace csim::solver {
namespace {

// The parameters, in the order of ContactParameterDerivatives' fields.
enum Parameter { kMu, kStiffness, kDissipationTime, kHuntCrossley, kPhi0, kNumParameters };

Eigen::Vector3d& FieldOf(ContactParameterDerivatives& r, int p) {
  switch (p) {
    case kMu:
      return r.d_mu;
    case kStiffness:
      return r.d_stiffness;
    case kDissipationTime:
      return r.d_dissipation_time;
    case kHuntCrossley:
      return r.d_hunt_crossley;
    default:
      return r.d_phi0;
  }
}

ContactRegion RegionOf(FrictionConeRegion region) {
  switch (region) {
    case FrictionConeRegion::kStiction:
      return ContactRegion::kStiction;
    case FrictionConeRegion::kSliding:
      return ContactRegion::kSliding;
    case FrictionConeRegion::kNoContact:
      break;
  }
  return ContactRegion::kNone;
}

// ---- SAP (docs/design/sensitivities.md §2.1) ----

// How one parameter moves mu and the per-step data Prepare derives from it, R_n [1/kg] and
// v_hat_n [m/s] (R_t = sigma w reads none of the parameters).
struct SapDataDerivative {
  double mu = 0.0;
  double R_n = 0.0;
  double v_hat_n = 0.0;
};

SapDataDerivative SapDataDerivativeFor(const SapFrictionConeConstraint& c, int p) {
  const SapFrictionConeParameters& q = c.parameters();
  const double T = c.dt() + q.dissipation_time;  // dt + tau_d [s]
  // R_n = 1 / (dt k (dt + tau_d)) unless the near-rigid term of SAP eq. 29 won Prepare's max,
  // which reads neither k nor tau_d; v_hat_n = -phi0 / (dt + tau_d)
  // (docs/design/sap-problem.md §3.1).
  const bool compliant = !c.near_rigid();
  SapDataDerivative d;
  switch (p) {
    case kMu:
      d.mu = 1.0;
      break;
    case kStiffness:
      if (compliant) d.R_n = -c.R_n() / q.stiffness;
      break;
    case kDissipationTime:
      if (compliant) d.R_n = -c.R_n() / T;
      d.v_hat_n = -c.v_hat_n() / T;
      break;
    case kPhi0:
      d.v_hat_n = -1.0 / T;
      break;
    default:
      break;  // d (Hunt & Crossley) is not read by SAP
  }
  return d;
}

// d gamma for the derivative `d` of (mu, R_n, v_hat_n), on the projection's region.
// Stiction (region I): gamma = y, gamma_n = (v_hat_n - u_n) / R_n, gamma_t = -u_t / R_t.
// Sliding (region II, SAP eq. 27): with s = R_t y_r [m/s] (the soft slip speed) and
// D = R_n + mu^2 R_t, gamma_n = f (y_n + mu_hat y_r) = (v_hat_n - u_n + mu s) / D and
// gamma_t = mu gamma_n t_hat, t_hat = y_t / y_r fixed at fixed v_c.
Eigen::Vector3d SapGammaDerivative(const FrictionConeMetric& m, const FrictionConeProjection& pr,
                                   const SapDataDerivative& d) {
  Eigen::Vector3d dgamma = Eigen::Vector3d::Zero();
  const double gamma_n = pr.gamma[2];
  switch (pr.region) {
    case FrictionConeRegion::kStiction:
      dgamma[2] = (d.v_hat_n - gamma_n * d.R_n) / m.R_n;
      break;
    case FrictionConeRegion::kSliding: {
      const double s = m.R_t * pr.y_r;
      const double D = m.R_n + m.mu * m.mu * m.R_t;
      const double dgamma_n =
          (d.v_hat_n + d.mu * s - gamma_n * (d.R_n + 2.0 * m.mu * d.mu * m.R_t)) / D;
      dgamma.head<2>() = (d.mu * gamma_n + m.mu * dgamma_n) * pr.t_hat;
      dgamma[2] = dgamma_n;
      break;
    }
    case FrictionConeRegion::kNoContact:
      break;
  }
  return dgamma;
}

// The sine of the angle, in the (y_r, y_n) half-plane, between y and the nearest boundary ray
// of its region: the cone y_r = mu y_n and the polar cone y_n = -mu_hat y_r
// (docs/design/sensitivities.md §3). (mu y_n - y_r) / ||y|| is that sine times sqrt(1 + mu^2),
// (y_n + mu_hat y_r) / ||y|| times sqrt(1 + mu_hat^2). With mu = 0 the cone is the ray y_r = 0,
// which the soft norm never reaches, and gamma is smooth across y_t = 0: only the polar cone.
double SapKinkDistance(const FrictionConeMetric& m, const Eigen::Vector3d& y,
                       FrictionConeRegion region) {
  const double y_r = std::hypot(y[0], y[1], kFrictionConeSoftNorm);  // the region test's y_r
  const double y_n = y[2];
  const double norm = std::hypot(y_r, y_n);
  const double to_cone = std::abs(m.mu * y_n - y_r) / (std::hypot(1.0, m.mu) * norm);
  const double to_polar = std::abs(y_n + m.mu_hat * y_r) / (std::hypot(1.0, m.mu_hat) * norm);
  switch (region) {
    case FrictionConeRegion::kStiction:
      return to_cone;
    case FrictionConeRegion::kSliding:
      return m.mu > 0.0 ? std::min(to_cone, to_polar) : to_polar;
    case FrictionConeRegion::kNoContact:
      break;
  }
  return to_polar;
}

// ---- Hunt & Crossley (docs/design/sensitivities.md §2.2) ----

// The quantities of Calc at v_c that the derivatives reuse.
struct HuntCrossleyPoint {
  Eigen::Vector2d u_t = Eigen::Vector2d::Zero();  // slip with the bias [m/s]
  double root = 0.0;   // sqrt(|u_t|^2 + eps_s^2) [m/s]
  double soft = 0.0;   // ||u_t||_s = root - eps_s [m/s]
  Eigen::Vector2d t_hat = Eigen::Vector2d::Zero();  // u_t / root
  double arg = 0.0;    // the normal impulse's argument: u_n (lagged) or z (similar) [m/s]
  double n = 0.0;      // n(arg) [N s]
  double dn = 0.0;     // n'(arg) [kg]
  bool active = false;  // arg < v_hat: NormalImpulse's unclamped branch
};

HuntCrossleyPoint HuntCrossleyPointAt(const SapHuntCrossleyConstraint& c, const double* v_c) {
  const SapHuntCrossleyParameters& q = c.parameters();
  const Eigen::Vector3d u = Eigen::Map<const Eigen::Vector3d>(v_c) + q.bias_velocity;
  HuntCrossleyPoint x;
  x.u_t = u.head<2>();
  const double eps = c.epsilon_s(), v2 = x.u_t.squaredNorm();
  x.root = std::sqrt(v2 + eps * eps);
  x.soft = v2 / (x.root + eps);  // as Calc: root - eps without the cancellation
  x.t_hat = x.u_t / x.root;
  x.arg = q.approximation == HuntCrossleyApproximation::kLagged ? u[2] : u[2] - q.mu * x.soft;
  x.n = c.NormalImpulse(x.arg, &x.dn);
  x.active = x.arg < c.v_hat();  // NormalImpulse's own test
  return x;
}

// How one parameter moves, at fixed v_c: mu itself, the normal impulse n at a fixed argument
// (the explicit partial), and the lagged impulse n0 of Prepare. With n = dt E (1 - d w),
// E = k x(w) = k (x0 - dt (1 - theta_q) v_n0 - theta_q dt w)
// (docs/design/contact-models.md §3.2), and n0 = (dt k x0)_+ (1 - d v_n0)_+ (§3.5); zero on
// clamped pieces.
struct HuntCrossleyDataDerivative {
  double mu = 0.0;
  double n = 0.0;
  double n0 = 0.0;
};

HuntCrossleyDataDerivative HuntCrossleyDataDerivativeFor(const SapHuntCrossleyConstraint& c,
                                                         const HuntCrossleyPoint& x, int p) {
  const SapHuntCrossleyParameters& q = c.parameters();
  const double dt = c.dt(), k = c.stiffness(), d = q.hunt_crossley, n0 = c.n0();
  const bool lagged_active = n0 > 0.0;  // both of n0's factors positive
  HuntCrossleyDataDerivative r;
  switch (p) {
    case kMu:
      r.mu = 1.0;
      break;
    case kStiffness:
      // n and n0 are linear in k; an infinite stiffness takes the near-rigid k (§3.8),
      // which the parameter does not move.
      if (std::isfinite(q.stiffness)) {
        r.n = x.active ? x.n / k : 0.0;
        r.n0 = n0 / k;
      }
      break;
    case kHuntCrossley:
      r.n = x.active ? -dt * c.ElasticForce(x.arg) * x.arg : 0.0;
      r.n0 = lagged_active ? -dt * (-k * q.phi0) * q.v_n0 : 0.0;  // -dt f_e0 v_n0
      break;
    case kPhi0:
      r.n = x.active ? -dt * k * (1.0 - d * x.arg) : 0.0;
      r.n0 = lagged_active ? -dt * k * (1.0 - d * q.v_n0) : 0.0;
      break;
    default:
      break;  // tau_d (SAP) is not read by Hunt & Crossley
  }
  return r;
}

// d gamma of the Hunt & Crossley contact for the derivative `d` of (mu, n, n0).
// eps_s = max(v_s, mu sigma w n0) moves on its second branch only, as eps_s (d mu / mu +
// d n0 / n0); then ||u_t||_s moves by -(||u_t||_s / root) d eps_s and t_hat by
// -t_hat eps_s / root^2 d eps_s (docs/design/contact-models.md §3.4). Lagged (§3.6):
// gamma_n = n(u_n), gamma_t = -mu n0 t_hat. Similar (§3.7): gamma_n = n(z),
// z = u_n - mu ||u_t||_s, gamma_t = -mu n(z) t_hat.
Eigen::Vector3d HuntCrossleyGammaDerivative(const SapHuntCrossleyConstraint& c,
                                            const HuntCrossleyPoint& x,
                                            const HuntCrossleyDataDerivative& d) {
  const SapHuntCrossleyParameters& q = c.parameters();
  const double mu = q.mu, n0 = c.n0(), eps = c.epsilon_s();
  const bool regularized = eps > q.stiction_tolerance;  // std::max took mu sigma w n0
  const double d_eps = regularized ? eps * (d.mu / mu + d.n0 / n0) : 0.0;
  const Eigen::Vector2d d_t_hat = -(eps / (x.root * x.root) * d_eps) * x.t_hat;
  double d_gamma_n = 0.0, friction = 0.0, d_friction = 0.0;
  if (q.approximation == HuntCrossleyApproximation::kLagged) {
    d_gamma_n = d.n;
    friction = mu * n0;
    d_friction = d.mu * n0 + mu * d.n0;
  } else {
    const double d_soft = -(x.soft / x.root) * d_eps;
    const double d_z = -(d.mu * x.soft + mu * d_soft);
    d_gamma_n = d.n + x.dn * d_z;  // both zero where n is clamped
    friction = mu * x.n;
    d_friction = d.mu * x.n + mu * d_gamma_n;
  }
  Eigen::Vector3d dgamma;
  dgamma.head<2>() = -(d_friction * x.t_hat + friction * d_t_hat);
  dgamma[2] = d_gamma_n;
  return dgamma;
}

// Calc's zero-impulse piece (QuadraticPieceAt == 1): no contact; otherwise stuck or sliding
// by the slip test the next step's prediction uses (StuckAt).
ContactRegion HuntCrossleyRegion(const SapHuntCrossleyConstraint& c, const HuntCrossleyPoint& x,
                                 const double* v_c) {
  const SapHuntCrossleyParameters& q = c.parameters();
  const bool lagged = q.approximation == HuntCrossleyApproximation::kLagged;
  const bool no_friction = !lagged || q.mu * c.n0() == 0.0;  // similar's friction is mu n(z)
  if (!x.active && no_friction) return ContactRegion::kNone;
  return c.StuckAt(v_c) ? ContactRegion::kStiction : ContactRegion::kSliding;
}

// |v_hat - w| / max(|v_hat|, |w|, eps_s) for the normal impulse's argument w: the relative
// distance to its clamp, the only kink of gamma in v_c (the soft norm is smooth). eps_s, the
// friction's velocity resolution, keeps it defined at v_hat = w = 0.
double HuntCrossleyKinkDistance(const SapHuntCrossleyConstraint& c, const HuntCrossleyPoint& x) {
  const double v_hat = c.v_hat();
  const double scale = std::max({std::abs(v_hat), std::abs(x.arg), c.epsilon_s()});
  return std::abs(v_hat - x.arg) / scale;
}

}  // namespace

ContactPiece CalcContactPiece(const SapFrictionConeConstraint& c, const double* v_c,
                              bool with_kink_distance) {
  const Eigen::Vector3d y = c.CalcUnprojectedImpulse(Eigen::Map<const Eigen::Vector3d>(v_c));
  const FrictionConeMetric& m = c.metric();
  // The projection's own region test (ProjectOntoFrictionCone classifies by the same
  // function), without forming gamma.
  const FrictionConeRegion region = ClassifyFrictionCone(m, y);
  ContactPiece r;
  r.region = RegionOf(region);
  if (with_kink_distance) r.kink_distance = SapKinkDistance(m, y, region);
  r.normal_clamped = region == FrictionConeRegion::kNoContact;
  return r;
}

ContactPiece CalcContactPiece(const SapHuntCrossleyConstraint& c, const double* v_c,
                              bool with_kink_distance) {
  const HuntCrossleyPoint x = HuntCrossleyPointAt(c, v_c);
  ContactPiece r;
  r.region = HuntCrossleyRegion(c, x, v_c);
  if (with_kink_distance) r.kink_distance = HuntCrossleyKinkDistance(c, x);
  r.normal_clamped = !x.active;
  return r;
}

ContactParameterDerivatives CalcContactParameterDerivatives(const SapFrictionConeConstraint& c,
                                                            const double* v_c) {
  const Eigen::Vector3d y = c.CalcUnprojectedImpulse(Eigen::Map<const Eigen::Vector3d>(v_c));
  const FrictionConeMetric& m = c.metric();
  const FrictionConeProjection pr = ProjectOntoFrictionCone(m, y);  // Calc's own projection
  ContactParameterDerivatives r;
  r.region = RegionOf(pr.region);
  r.kink_distance = SapKinkDistance(m, y, pr.region);
  r.normal_clamped = pr.region == FrictionConeRegion::kNoContact;
  r.near_rigid = c.near_rigid();
  for (int p = 0; p < kNumParameters; ++p)
    FieldOf(r, p) = SapGammaDerivative(m, pr, SapDataDerivativeFor(c, p));
  return r;
}

ContactParameterDerivatives CalcContactParameterDerivatives(const SapHuntCrossleyConstraint& c,
                                                            const double* v_c) {
  const HuntCrossleyPoint x = HuntCrossleyPointAt(c, v_c);
  ContactParameterDerivatives r;
  r.region = HuntCrossleyRegion(c, x, v_c);
  r.kink_distance = HuntCrossleyKinkDistance(c, x);
  r.normal_clamped = !x.active;
  r.near_rigid = std::isinf(c.parameters().stiffness);
  for (int p = 0; p < kNumParameters; ++p)
    FieldOf(r, p) = HuntCrossleyGammaDerivative(c, x, HuntCrossleyDataDerivativeFor(c, x, p));
  return r;
}

}  // namespace csim::solver
