#include "engine/solver/sap_joint_friction_constraint.h"

#include <cmath>

#include "engine/common/check.h"
#include "engine/solver/clamped_impulse_row.h"

namespace csim::solver {

SapJointFrictionConstraint::SapJointFrictionConstraint(
    const SapJointFrictionParameters& parameters)
    : parameters_(parameters) {
  CSIM_CHECK(parameters.friction > 0.0 && std::isfinite(parameters.friction));
  CSIM_CHECK(parameters.near_rigid_threshold > 0.0 &&
             std::isfinite(parameters.near_rigid_threshold));
}

void SapJointFrictionConstraint::Prepare(double dt, double delassus) {
  CSIM_CHECK(dt > 0.0 && delassus > 0.0);
  // docs/design/actuators-and-constraints.md §3.1: the near-rigid regularization alone (a
  // velocity servo of infinite gain, clamped).
  constexpr double kFourPiSquared = 4.0 * M_PI * M_PI;
  const double beta = parameters_.near_rigid_threshold;
  R_ = beta * beta / kFourPiSquared * delassus;
  CSIM_CHECK(R_ > 0.0 && std::isfinite(R_));
  impulse_limit_ = dt * parameters_.friction;
}

double SapJointFrictionConstraint::Calc(const double* v_c, double* gamma, double* G,
                                        int* piece) const {
  const ClampedRowValues row =
      EvaluateClampedRow(v_c[0], /*v_hat=*/0.0, R_, -impulse_limit_, impulse_limit_);
  gamma[0] = row.gamma;
  if (G != nullptr) G[0] = row.G;
  if (piece != nullptr) *piece = static_cast<int>(row.piece);
  return row.cost;
}

double SapJointFrictionConstraint::CalcAlong(const double* v_c, const double* dv_c,
                                             double* gamma, double* curvature, int* piece,
                                             double* /*scratch*/) const {
  double G = 0.0;
  const double cost = Calc(v_c, gamma, &G, piece);
  *curvature = G * dv_c[0] * dv_c[0];
  return cost;
}

}  // namespace csim::solver
