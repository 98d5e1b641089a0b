#include "engine/solver/sap_holonomic_constraint.h"

#include <algorithm>
#include <cmath>

#include "engine/common/check.h"
#include "engine/solver/clamped_impulse_row.h"

namespace csim::solver {

const char* SapHolonomicParametersError(const SapHolonomicParameters& p) {
  if (p.num_rows < 1 || p.num_rows > SapHolonomicParameters::kMaxRows)
    return "the number of rows must lie in [1, 6]";
  for (int e = 0; e < p.num_rows; ++e) {
    if (!std::isfinite(p.g0[e]) || !std::isfinite(p.bias[e]))
      return "g0 and the bias must be finite";
    if (!(p.stiffness[e] > 0.0)) return "the stiffness must be positive (or infinite)";
    if (!(p.relaxation_time[e] >= 0.0) || !std::isfinite(p.relaxation_time[e]))
      return "the relaxation time must be non-negative and finite";
    if (std::isnan(p.impulse_lower[e]) || std::isnan(p.impulse_upper[e]) ||
        p.impulse_lower[e] > p.impulse_upper[e] ||
        p.impulse_lower[e] == SapHolonomicParameters::kInf ||
        p.impulse_upper[e] == -SapHolonomicParameters::kInf)
      return "the impulse bounds must satisfy gamma_l <= gamma_u, gamma_l < inf, gamma_u > -inf";
  }
  if (!(p.near_rigid_threshold > 0.0) || !std::isfinite(p.near_rigid_threshold))
    return "the near-rigid threshold must be positive and finite";
  return nullptr;
}

SapHolonomicParameters RigidHolonomicParameters(const Eigen::Ref<const Eigen::VectorXd>& g) {
  CSIM_CHECK(g.size() >= 1 && g.size() <= SapHolonomicParameters::kMaxRows);
  SapHolonomicParameters p;
  p.num_rows = static_cast<int>(g.size());
  for (int e = 0; e < p.num_rows; ++e) p.g0[e] = g[e];
  return p;
}

SapHolonomicConstraint::SapHolonomicConstraint(const SapHolonomicParameters& parameters)
    : parameters_(parameters) {
  CSIM_CHECK(SapHolonomicParametersError(parameters) == nullptr);
}

void SapHolonomicConstraint::Prepare(double dt, double delassus) {
  CSIM_CHECK(dt > 0.0 && delassus > 0.0);
  const SapHolonomicParameters& p = parameters_;
  constexpr double kFourPiSquared = 4.0 * M_PI * M_PI;
  const double beta = p.near_rigid_threshold;
  const double R_near_rigid = beta * beta / kFourPiSquared * delassus;
  for (int e = 0; e < p.num_rows; ++e) {
    // docs/design/actuators-and-constraints.md §4.2: the compliant R (0 for k = inf)
    // floored at the near-rigid one; a near-rigid row relaxes with tau = dt whatever its own.
    const double tau = p.relaxation_time[e];
    const double R_compliant = 1.0 / (dt * (dt + tau) * p.stiffness[e]);
    near_rigid_[e] = R_compliant < R_near_rigid;
    R_[e] = std::max(R_compliant, R_near_rigid);
    CSIM_CHECK(R_[e] > 0.0 && std::isfinite(R_[e]));
    const double tau_used = near_rigid_[e] ? dt : tau;
    v_hat_[e] = -p.g0[e] / (dt + tau_used) - p.bias[e];
  }
}

double SapHolonomicConstraint::Calc(const double* v_c, double* gamma, double* G,
                                    int* piece) const {
  const int n = parameters_.num_rows;
  if (G != nullptr) std::fill(G, G + n * n, 0.0);
  ClampedRowsPieceId id;
  double cost = 0.0;
  for (int e = 0; e < n; ++e) {
    const ClampedRowValues row = EvaluateClampedRow(
        v_c[e], v_hat_[e], R_[e], parameters_.impulse_lower[e], parameters_.impulse_upper[e]);
    gamma[e] = row.gamma;
    if (G != nullptr) G[e * n + e] = row.G;
    id.Add(row.piece);
    cost += row.cost;
  }
  if (piece != nullptr) *piece = id.id();
  return cost;
}

double SapHolonomicConstraint::CalcAlong(const double* v_c, const double* dv_c, double* gamma,
                                         double* curvature, int* piece,
                                         double* /*scratch*/) const {
  ClampedRowsPieceId id;
  double cost = 0.0, sum = 0.0;
  for (int e = 0; e < parameters_.num_rows; ++e) {
    const ClampedRowValues row = EvaluateClampedRow(
        v_c[e], v_hat_[e], R_[e], parameters_.impulse_lower[e], parameters_.impulse_upper[e]);
    gamma[e] = row.gamma;
    sum += row.G * dv_c[e] * dv_c[e];
    id.Add(row.piece);
    cost += row.cost;
  }
  *curvature = sum;
  if (piece != nullptr) *piece = id.id();
  return cost;
}

}  // namespace csim::solver
