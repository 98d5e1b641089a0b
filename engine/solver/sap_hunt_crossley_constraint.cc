#include "engine/solver/sap_hunt_crossley_constraint.h"

#include <algorithm>
#include <cmath>

#include "engine/common/check.h"

namespace csim::solver {
namespace {

constexpr double kTwoPi = 2.0 * M_PI;

// The tangential velocity's soft norm (docs/design/contact-models.md §3.4) and the root its
// derivatives divide by (CalcWith forms the direction v_t / root from it).
struct SoftNorm {
  double value = 0.0;  // ||v_t||_s = sqrt(|v_t|^2 + eps^2) - eps
  double root = 0.0;   // sqrt(|v_t|^2 + eps^2) = ||v_t||_s + eps
};

SoftNorm CalcSoftNorm(const Eigen::Vector2d& v_t, double eps) {
  SoftNorm s;
  const double v2 = v_t.squaredNorm();
  s.root = std::sqrt(v2 + eps * eps);
  // |v_t|^2 / (root + eps) = root - eps without the cancellation when |v_t| << eps.
  s.value = v2 / (s.root + eps);
  return s;
}

}  // namespace

SapHuntCrossleyConstraint::SapHuntCrossleyConstraint(const SapHuntCrossleyParameters& parameters)
    : parameters_(parameters) {
  CSIM_CHECK(parameters.mu >= 0.0);
  CSIM_CHECK(parameters.stiffness > 0.0);
  CSIM_CHECK(parameters.hunt_crossley >= 0.0);
  CSIM_CHECK(parameters.stiction_tolerance > 0.0);
  CSIM_CHECK(parameters.stiction_sigma >= 0.0);
  CSIM_CHECK(std::isfinite(parameters.phi0) && std::isfinite(parameters.v_n0));
  CSIM_CHECK(!std::isinf(parameters.stiffness) || parameters.near_rigid_threshold > 0.0);
  CSIM_CHECK(parameters.position_theta >= 0.0 && parameters.position_theta <= 1.0);
}

void SapHuntCrossleyConstraint::Prepare(double dt, double delassus) {
  const SapHuntCrossleyParameters& p = parameters_;
  dt_ = dt;
  // Near-rigid: the stiffness whose R_n = 1 / (dt^2 k) equals beta^2 w / (4 pi^2).
  const double beta = p.near_rigid_threshold;
  k_ = std::isinf(p.stiffness) ? kTwoPi * kTwoPi / (beta * beta * delassus * dt * dt)
                               : p.stiffness;
  CSIM_CHECK(k_ > 0.0 && std::isfinite(k_));
  f_e0_ = -k_ * p.phi0;
  // The penetration predicted at the end of the step (see the header); theta_q = 0 keeps
  // [ICF]'s x0 - dt v, since an explicit position update gives the model nothing to follow.
  const double theta_q = p.position_theta > 0.0 ? p.position_theta : 1.0;
  f_x0_ = k_ * (-p.phi0 - dt * (1.0 - theta_q) * p.v_n0);
  theta_q_ = theta_q;
  k_v_ = theta_q * dt * k_;
  const double d = p.hunt_crossley;
  // docs/design/contact-models.md §3.5: both factors clamped, so a separating or not yet touching
  // pair has n0 = 0.
  n0_ = std::max(0.0, dt * f_e0_) * std::max(0.0, 1.0 - d * p.v_n0);
  eps_s_ = std::max(p.stiction_tolerance, p.mu * p.stiction_sigma * delassus * n0_);
  const double v_x = f_x0_ / k_v_;  // where the predicted penetration reaches zero
  const double v_d = d > 0.0 ? 1.0 / d : std::numeric_limits<double>::infinity();
  v_hat_ = std::min(v_x, v_d);
  N_hat_ = NormalPotential(v_hat_);  // needs v_hat_ (and the rest) set above
}

double SapHuntCrossleyConstraint::NormalImpulse(double v, double* derivative) const {
  if (!(v < v_hat_)) {  // past either root: (.)_+ clamps to zero
    *derivative = 0.0;
    return 0.0;
  }
  const double d = parameters_.hunt_crossley;
  const double elastic = f_x0_ - k_v_ * v;  // > 0 below v_x
  const double damping = 1.0 - d * v;        // > 0 below 1/d
  *derivative = -dt_ * (k_v_ * damping + d * elastic);
  return dt_ * elastic * damping;
}

double SapHuntCrossleyConstraint::NormalPotential(double v) const {
  const double u = std::min(v, v_hat_);
  const double d = parameters_.hunt_crossley;
  // N+(u) = dt [f_x0 u - 1/2 k_v u^2 - 1/2 d f_x0 u^2 + 1/3 d k_v u^3]
  // (docs/design/contact-models.md §3.3 with f_e0 -> f_x0 and dt k -> k_v = theta_q dt k; the same
  // for theta_q = 1). (d theta_q dt) k, not d k_v: for theta_q = 1 it rounds as [ICF]'s d dt k
  // does.
  return dt_ * u * (f_x0_ - u * (0.5 * (k_v_ + d * f_x0_) - u * (d * theta_q_ * dt_ * k_ / 3.0)));
}

double SapHuntCrossleyConstraint::Calc(const double* v_c, double* gamma, double* G,
                                       int* piece) const {
  const Eigen::Vector3d u = Eigen::Map<const Eigen::Vector3d>(v_c) + parameters_.bias_velocity;
  const SoftNorm s = CalcSoftNorm(u.head<2>(), eps_s_);
  return CalcWith(u, s.value, s.root, false, gamma, G, piece);
}

double SapHuntCrossleyConstraint::CalcWith(const Eigen::Vector3d& u, double value, double root,
                                           bool quadratic, double* gamma, double* G,
                                           int* piece) const {
  const SapHuntCrossleyParameters& p = parameters_;
  const Eigen::Vector2d t_hat = u.head<2>() / root;  // the gradient of the tangential term
  const double mu = p.mu;
  Eigen::Map<Eigen::Vector3d> gamma_out(gamma);
  double cost = 0.0, n = 0.0, dn = 0.0, friction = 0.0;
  if (p.approximation == HuntCrossleyApproximation::kLagged) {
    // docs/design/contact-models.md §3.6: the friction impulse's magnitude is mu n0, fixed within
    // the step.
    n = NormalImpulse(u[2], &dn);
    friction = mu * n0_;
    cost = N_hat_ - NormalPotential(u[2]) + friction * value;
    if (piece != nullptr) *piece = friction == 0.0 && !(u[2] < v_hat_) ? 1 : -1;
  } else {
    // docs/design/contact-models.md §3.7: one argument z = v_n - mu ||v_t||_s for both impulses.
    const double z = u[2] - mu * value;
    n = NormalImpulse(z, &dn);
    friction = mu * n;
    cost = N_hat_ - NormalPotential(z);
    if (piece != nullptr) *piece = !(z < v_hat_) ? 1 : -1;
  }
  gamma_out.head<2>() = -friction * t_hat;
  gamma_out[2] = n;
  if (G != nullptr) {
    Eigen::Map<Eigen::Matrix3d> G_out(G);
    G_out.setZero();
    // d t_hat / d v_t = (I - t_hat t_hat^T) / root (docs/design/contact-models.md §3.4); I / eps_s
    // for the quadratic.
    if (quadratic) {
      G_out.topLeftCorner<2, 2>() = (friction / root) * Eigen::Matrix2d::Identity();
    } else {
      G_out.topLeftCorner<2, 2>() =
          (friction / root) * (Eigen::Matrix2d::Identity() - t_hat * t_hat.transpose());
    }
    G_out(2, 2) = -dn;
    if (p.approximation == HuntCrossleyApproximation::kSimilar) {
      // The friction magnitude mu n(z) also varies through z (docs/design/contact-models.md §3.7).
      G_out.topLeftCorner<2, 2>() -= (mu * mu * dn) * t_hat * t_hat.transpose();
      G_out.topRightCorner<2, 1>() = (mu * dn) * t_hat;
      G_out.bottomLeftCorner<1, 2>() = (mu * dn) * t_hat.transpose();
    }
  }
  return cost;
}

bool SapHuntCrossleyConstraint::CalcPredicted(const double* v_c, bool crossed, double* gamma,
                                              double* G) const {
  // Only the lagged friction, only one that acts, and only where the contact slides: within
  // eps_s the true model is smooth and Newton converges on it (see the header).
  if (parameters_.approximation != HuntCrossleyApproximation::kLagged) return false;
  if (!parameters_.was_stuck && !crossed) return false;
  if (!(n0_ > 0.0 && parameters_.mu > 0.0)) return false;
  const Eigen::Vector3d u = Eigen::Map<const Eigen::Vector3d>(v_c) + parameters_.bias_velocity;
  if (WithinStuckRegion(u.head<2>())) return false;
  CalcWith(u, 0.5 * u.head<2>().squaredNorm() / eps_s_, eps_s_, true, gamma, G, nullptr);
  return true;
}

Eigen::Vector2d SapHuntCrossleyConstraint::TotalSlip(const double* v_c) const {
  return Eigen::Map<const Eigen::Vector2d>(v_c) + parameters_.bias_velocity.head<2>();
}

bool SapHuntCrossleyConstraint::WithinStuckRegion(const Eigen::Vector2d& slip) const {
  return slip.squaredNorm() <= eps_s_ * eps_s_;
}

bool SapHuntCrossleyConstraint::StuckAt(const double* v_c) const {
  return WithinStuckRegion(TotalSlip(v_c));
}

bool SapHuntCrossleyConstraint::PredictionHoldsAt(const double* v_c) const {
  return StuckAt(v_c);
}

bool SapHuntCrossleyConstraint::StepCrossesPredictedRegion(const double* v_c,
                                                           const double* dv_c) const {
  // Only where CalcPredicted offers the stuck model, and only from a real slide (header).
  if (parameters_.approximation != HuntCrossleyApproximation::kLagged) return false;
  const Eigen::Vector2d u_t = TotalSlip(v_c);
  const double sliding = kCrossingSlipFactor * eps_s_;
  if (u_t.squaredNorm() < sliding * sliding) return false;
  const Eigen::Map<const Eigen::Vector2d> dv_t(dv_c);
  const double dv_t2 = dv_t.squaredNorm();
  if (!(dv_t2 > 0.0)) return false;
  // The point of smallest slip on the step.
  const double t = std::clamp(-u_t.dot(dv_t) / dv_t2, 0.0, 1.0);
  return WithinStuckRegion(u_t + t * dv_t);
}

int SapHuntCrossleyConstraint::QuadraticPieceAt(const double* v_c) const {
  double gamma[3];
  int piece = -1;
  Calc(v_c, gamma, nullptr, &piece);
  return piece;
}

}  // namespace csim::solver
