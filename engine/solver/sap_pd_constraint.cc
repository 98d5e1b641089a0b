#include "engine/solver/sap_pd_constraint.h"

#include <algorithm>
#include <cmath>

#include "engine/common/check.h"
#include "engine/solver/clamped_impulse_row.h"

namespace csim::solver {

const char* SapPdParametersError(const SapPdParameters& p) {
  if (!std::isfinite(p.kp) || !std::isfinite(p.kd)) return "gains must be finite";
  if (p.kp < 0.0 || p.kd < 0.0) return "gains must be non-negative";
  if (p.kp + p.kd <= 0.0) return "kp and kd must not both be zero";
  if (!(p.effort_limit > 0.0)) return "the effort limit must be positive";
  if (!(p.theta_q >= 0.0 && p.theta_q <= 1.0)) return "theta_q must lie in [0, 1]";
  if (!std::isfinite(p.q0) || !std::isfinite(p.v0) || !std::isfinite(p.q_target) ||
      !std::isfinite(p.v_target) || !std::isfinite(p.feedforward))
    return "states, targets and feed-forward must be finite";
  if (!(p.near_rigid_threshold > 0.0) || !std::isfinite(p.near_rigid_threshold))
    return "the near-rigid threshold must be positive and finite";
  return nullptr;
}

SapPdConstraint::SapPdConstraint(const SapPdParameters& parameters) : parameters_(parameters) {
  CSIM_CHECK(SapPdParametersError(parameters) == nullptr);
}

void SapPdConstraint::Prepare(double dt, double delassus) {
  CSIM_CHECK(dt > 0.0 && delassus > 0.0);
  const SapPdParameters& p = parameters_;
  dt_ = dt;
  kp_ = p.kp;
  kd_ = p.kd;
  gains_clamped_ = false;
  impulse_limit_ = dt * p.effort_limit;
  // The position the scheme reaches with v = 0 (docs/design/actuators-and-constraints.md
  // §2.1), so that y(v) = y(0) - c v.
  const double q_at_zero_velocity = p.q0 + dt * (1.0 - p.theta_q) * p.v0;
  double c = dt * p.theta_q * kp_ + kd_;
  explicit_ = c == 0.0;
  if (explicit_) {
    // §2.4: y does not depend on v; the actuator is a clamped explicit impulse.
    const double y = -kp_ * (q_at_zero_velocity - p.q_target) + p.feedforward;
    explicit_gamma_ = dt * std::clamp(y, -p.effort_limit, p.effort_limit);
    explicit_saturated_ = std::abs(y) > p.effort_limit;
    R_ = std::numeric_limits<double>::infinity();
    v_hat_ = 0.0;
    return;
  }
  // §2.3: scale both gains by R / R_nr when R = 1 / (dt c) falls below the near-rigid floor.
  constexpr double kFourPiSquared = 4.0 * M_PI * M_PI;
  const double beta = p.near_rigid_threshold;
  const double R_near_rigid = beta * beta / kFourPiSquared * delassus;
  const double R_gains = 1.0 / (dt * c);
  if (R_gains < R_near_rigid) {
    const double scale = R_gains / R_near_rigid;
    kp_ *= scale;
    kd_ *= scale;
    c = dt * p.theta_q * kp_ + kd_;
    gains_clamped_ = true;
  }
  R_ = 1.0 / (dt * c);
  CSIM_CHECK(R_ > 0.0 && std::isfinite(R_));
  // §2.2: y(v) = c (v_hat - v).
  v_hat_ = (p.feedforward - kp_ * (q_at_zero_velocity - p.q_target) + kd_ * p.v_target) / c;
}

double SapPdConstraint::Calc(const double* v_c, double* gamma, double* G, int* piece) const {
  if (explicit_) {
    gamma[0] = explicit_gamma_;
    if (G != nullptr) G[0] = 0.0;
    if (piece != nullptr) *piece = 0;
    return -explicit_gamma_ * v_c[0];
  }
  const ClampedRowValues row =
      EvaluateClampedRow(v_c[0], v_hat_, R_, -impulse_limit_, impulse_limit_);
  gamma[0] = row.gamma;
  if (G != nullptr) G[0] = row.G;
  if (piece != nullptr) *piece = static_cast<int>(row.piece);
  return row.cost;
}

double SapPdConstraint::CalcAlong(const double* v_c, const double* dv_c, double* gamma,
                                  double* curvature, int* piece, double* /*scratch*/) const {
  double G = 0.0;
  const double cost = Calc(v_c, gamma, &G, piece);
  *curvature = G * dv_c[0] * dv_c[0];
  return cost;
}

double SapPdConstraint::EffortAt(double v_c) const {
  double gamma = 0.0;
  Calc(&v_c, &gamma, nullptr, nullptr);
  return gamma / dt_;
}

bool SapPdConstraint::SaturatedAt(double v_c) const {
  if (explicit_) return explicit_saturated_;
  const double Y = (v_hat_ - v_c) / R_;
  return ClampedRowPieceOf(Y, -impulse_limit_, impulse_limit_) != ClampedRowPiece::kInside;
}

}  // namespace csim::solver
