#include "engine/solver/sap_limit_constraint.h"

#include <algorithm>
#include <cmath>

#include "engine/common/check.h"

namespace csim::solver {

SapLimitConstraint::SapLimitConstraint(const SapLimitParameters& parameters)
    : parameters_(parameters) {
  has_lower_ = std::isfinite(parameters.lower);
  has_upper_ = std::isfinite(parameters.upper);
  num_rows_ = (has_lower_ ? 1 : 0) + (has_upper_ ? 1 : 0);
  CSIM_CHECK(num_rows_ >= 1);
  CSIM_CHECK(!(has_lower_ && has_upper_) || parameters.lower < parameters.upper);
  CSIM_CHECK(parameters.stiffness > 0.0);
  CSIM_CHECK(parameters.limit_near_rigid_threshold >= 0.0);
}

void SapLimitConstraint::Prepare(double dt, double delassus) {
  const SapLimitParameters& p = parameters_;
  const double tau_d = std::isnan(p.dissipation_time) ? dt : p.dissipation_time;
  CSIM_CHECK(tau_d >= 0.0);
  R_ = NearRigidRegularization(dt, p.stiffness, tau_d, p.limit_near_rigid_threshold, delassus);
  CSIM_CHECK(R_ > 0.0 && std::isfinite(R_));
  // g = [q0 - q_l ; q_u - q0], v_hat = -g / (dt + tau_d) (docs/design/joint-limits.md).
  int r = 0;
  if (has_lower_) v_hat_[r++] = -(p.q0 - p.lower) / (dt + tau_d);
  if (has_upper_) v_hat_[r++] = -(p.upper - p.q0) / (dt + tau_d);
}

double SapLimitConstraint::Calc(const double* v_c, double* gamma, double* G, int* piece) const {
  double cost = 0.0;
  int mask = 0;
  if (G != nullptr) std::fill(G, G + num_rows_ * num_rows_, 0.0);
  for (int r = 0; r < num_rows_; ++r) {
    // gamma = max(0, y), ell = 1/2 R gamma^2.
    const double y = UnprojectedImpulse(r, v_c);
    gamma[r] = y > 0.0 ? y : 0.0;
    if (y > 0.0) mask |= 1 << r;  // QuadraticPieceAt's bit
    cost += 0.5 * R_ * gamma[r] * gamma[r];
    if (G != nullptr && y > 0.0) G[r * num_rows_ + r] = 1.0 / R_;
  }
  if (piece != nullptr) *piece = mask;
  return cost;
}

int SapLimitConstraint::QuadraticPieceAt(const double* v_c) const {
  int mask = 0;
  for (int r = 0; r < num_rows_; ++r)
    if (UnprojectedImpulse(r, v_c) > 0.0) mask |= 1 << r;
  return mask;
}

}  // namespace csim::solver
