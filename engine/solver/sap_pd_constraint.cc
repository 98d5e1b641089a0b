#include "engine/solver/sap_pd_constraint.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

PdRowGainTerms CalcPdRowGainTerms(const SapPdParameters& p, double dt) {
  constexpr double kFourPiSquared = 4.0 * M_PI * M_PI;
  PdRowGainTerms terms;
  terms.c = dt * p.theta_q * p.kp + p.kd;
  terms.R = terms.c != 0.0 ? 1.0 / (dt * terms.c) : std::numeric_limits<double>::infinity();
  const double beta = p.near_rigid_threshold;
  terms.near_rigid_per_delassus = beta * beta / kFourPiSquared;
  return terms;
}

PdRowCoefficients CalcPdRow(const SapPdParameters& p, double dt, double delassus) {
  return CalcPdRow(p, dt, delassus, CalcPdRowGainTerms(p, dt));
}

PdRowCoefficients CalcPdRow(const SapPdParameters& p, double dt, double delassus,
                            const PdRowGainTerms& terms) {
  CSIM_CHECK(dt > 0.0 && delassus > 0.0);
  PdRowCoefficients row;
  row.kp = p.kp;
  row.kd = p.kd;
  row.impulse_limit = dt * p.effort_limit;
  // The position the scheme reaches with v = 0 (docs/design/actuators-and-constraints.md
  // §2.1), so that y(v) = y(0) - c v.
  const double q_at_zero_velocity = p.q0 + dt * (1.0 - p.theta_q) * p.v0;
  double c = terms.c;
  row.is_explicit = c == 0.0;
  if (row.is_explicit) {
    // §2.4: y does not depend on v; the actuator is a clamped explicit impulse.
    const double y = -row.kp * (q_at_zero_velocity - p.q_target) + p.feedforward;
    row.explicit_gamma = dt * std::clamp(y, -p.effort_limit, p.effort_limit);
    row.explicit_saturated = std::abs(y) > p.effort_limit;
    return row;
  }
  // §2.3: scale both gains by R / R_nr when R = 1 / (dt c) falls below the near-rigid floor.
  const double R_near_rigid = terms.near_rigid_per_delassus * delassus;
  row.R = terms.R;
  if (row.R < R_near_rigid) {
    const double scale = row.R / R_near_rigid;
    row.kp *= scale;
    row.kd *= scale;
    c = dt * p.theta_q * row.kp + row.kd;
    row.gains_clamped = true;
    row.R = 1.0 / (dt * c);
  }
  CSIM_CHECK(row.R > 0.0 && std::isfinite(row.R));
  // §2.2: y(v) = c (v_hat - v).
  row.v_hat =
      (p.feedforward - row.kp * (q_at_zero_velocity - p.q_target) + row.kd * p.v_target) / c;
  return row;
}

void SapPdConstraint::Prepare(double dt, double delassus) {
  dt_ = dt;
  row_ = CalcPdRow(parameters_, dt, delassus);
}

double SapPdConstraint::Calc(const double* v_c, double* gamma, double* G, int* piece) const {
  if (row_.is_explicit) {
    gamma[0] = row_.explicit_gamma;
    if (G != nullptr) G[0] = 0.0;
    if (piece != nullptr) *piece = 0;
    return -row_.explicit_gamma * v_c[0];
  }
  const ClampedRowValues row =
      EvaluateClampedRow(v_c[0], row_.v_hat, row_.R, -row_.impulse_limit, row_.impulse_limit);
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
  if (row_.is_explicit) return row_.explicit_saturated;
  const double Y = (row_.v_hat - v_c) / row_.R;
  return ClampedRowPieceOf(Y, -row_.impulse_limit, row_.impulse_limit) != ClampedRowPiece::kInside;
}

}  // namespace csim::solver
