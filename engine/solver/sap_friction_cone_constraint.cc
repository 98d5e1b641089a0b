#include "engine/solver/sap_friction_cone_constraint.h"

#include <algorithm>
#include <cmath>

#include "engine/common/check.h"

namespace csim::solver {

SapFrictionConeConstraint::SapFrictionConeConstraint(const SapFrictionConeParameters& parameters)
    : parameters_(parameters) {
  CSIM_CHECK(parameters.mu >= 0.0);
  CSIM_CHECK(parameters.stiffness > 0.0);
  CSIM_CHECK(parameters.dissipation_time >= 0.0);
  CSIM_CHECK(parameters.near_rigid_threshold >= 0.0);
  CSIM_CHECK(parameters.stiction_sigma > 0.0);
}

void SapFrictionConeConstraint::Prepare(double dt, double delassus) {
  const SapFrictionConeParameters& p = parameters_;
  // SAP eq. 29 (near-rigid rule) and eq. 30 (R_t = sigma w); docs/design/sap-problem.md §4: w_t =
  // w_n = w.
  const double R_n = NearRigidRegularization(dt, p.stiffness, p.dissipation_time,
                                             p.near_rigid_threshold, delassus);
  const double R_t = p.stiction_sigma * delassus;
  CSIM_CHECK(R_n > 0.0 && std::isfinite(R_n));
  CSIM_CHECK(R_t > 0.0 && std::isfinite(R_t));
  dt_ = dt;
  near_rigid_ = NearRigidTermWins(dt, p.stiffness, p.dissipation_time, p.near_rigid_threshold,
                                  delassus);
  metric_ = MakeFrictionConeMetric(p.mu, R_t, R_n);
  // docs/design/sap-problem.md §3.1: v_hat_n = -phi0 / (dt + tau_d).
  v_hat_n_ = -p.phi0 / (dt + p.dissipation_time);
}

Eigen::Vector3d SapFrictionConeConstraint::CalcUnprojectedImpulse(
    const Eigen::Vector3d& v_c) const {
  // y = -R^{-1} (v_c + v_b - v_hat), v_hat = (0, 0, v_hat_n) (docs/design/contact-models.md §2.1).
  const Eigen::Vector3d u = v_c + parameters_.bias_velocity;
  return Eigen::Vector3d(-u[0] / metric_.R_t, -u[1] / metric_.R_t,
                         (v_hat_n_ - u[2]) / metric_.R_n);
}

namespace {

int QuadraticPieceOf(FrictionConeRegion region) {
  switch (region) {
    case FrictionConeRegion::kStiction:
      return 0;
    case FrictionConeRegion::kNoContact:
      return 1;
    case FrictionConeRegion::kSliding:
      break;
  }
  return -1;
}

}  // namespace

double SapFrictionConeConstraint::Calc(const double* v_c, double* gamma, double* G,
                                       int* piece) const {
  const Eigen::Vector3d y = CalcUnprojectedImpulse(Eigen::Map<const Eigen::Vector3d>(v_c));
  const FrictionConeProjection p = ProjectOntoFrictionCone(metric_, y);
  Eigen::Map<Eigen::Vector3d> gamma_out(gamma);
  gamma_out = p.gamma;
  if (G != nullptr) {
    Eigen::Map<Eigen::Matrix3d> G_out(G);
    G_out = CalcFrictionConeHessian(metric_, p);
  }
  if (piece != nullptr) *piece = QuadraticPieceOf(p.region);
  return p.cost;
}

double SapFrictionConeConstraint::CalcAlong(const double* v_c, const double* dv_c,
                                            double* gamma, double* curvature, int* piece,
                                            double* scratch) const {
  (void)scratch;
  const Eigen::Vector3d y = CalcUnprojectedImpulse(Eigen::Map<const Eigen::Vector3d>(v_c));
  const FrictionConeProjection p = ProjectOntoFrictionCone(metric_, y);
  Eigen::Map<Eigen::Vector3d> gamma_out(gamma);
  gamma_out = p.gamma;
  *curvature = CalcFrictionConeCurvature(metric_, p, Eigen::Map<const Eigen::Vector3d>(dv_c));
  *piece = QuadraticPieceOf(p.region);
  return p.cost;
}

int SapFrictionConeConstraint::QuadraticPieceAt(const double* v_c) const {
  return QuadraticPieceOf(RegionAt(v_c));
}

bool SapFrictionConeConstraint::CalcPredicted(const double* v_c, bool crossed, double* gamma,
                                              double* G) const {
  if (!parameters_.was_stuck && !crossed) return false;
  const Eigen::Vector3d y = CalcUnprojectedImpulse(Eigen::Map<const Eigen::Vector3d>(v_c));
  if (!(y[2] > 0.0)) return false;  // separating: stiction would pull, keep the true model
  Eigen::Map<Eigen::Vector3d> gamma_out(gamma);
  gamma_out = y;
  Eigen::Map<Eigen::Matrix3d> G_out(G);
  G_out.setZero();
  G_out.diagonal() << 1.0 / metric_.R_t, 1.0 / metric_.R_t, 1.0 / metric_.R_n;
  return true;
}

bool SapFrictionConeConstraint::StepCrossesPredictedRegion(const double* v_c,
                                                           const double* dv_c) const {
  if (RegionAt(v_c) != FrictionConeRegion::kSliding) return false;
  // The slip the impulse sees includes the bias (CalcUnprojectedImpulse).
  const Eigen::Map<const Eigen::Vector3d> v(v_c), dv(dv_c);
  const Eigen::Vector2d u_t = v.head<2>() + parameters_.bias_velocity.head<2>();
  const double dv_t2 = dv.head<2>().squaredNorm();
  if (!(dv_t2 > 0.0)) return false;
  const double t_smallest = -u_t.dot(dv.head<2>()) / dv_t2;  // along the whole line
  const double t = std::clamp(t_smallest, 0.0, 1.0);
  // The un-projected impulse where the step's slip is smallest (RegionAt's own test).
  const Eigen::Vector3d y = CalcUnprojectedImpulse(v + t * dv);
  if (ClassifyFrictionCone(metric_, y) == FrictionConeRegion::kStiction) return true;
  // A near miss: the slip passes its smallest inside the step (there t = t_smallest), below
  // kNearMissSlipFraction of the slip at its start, while compressive (as stiction would be).
  return t_smallest > 0.0 && t_smallest < 1.0 &&
         (u_t + t * dv.head<2>()).norm() <= kNearMissSlipFraction * u_t.norm() && y[2] > 0.0;
}

bool SapFrictionConeConstraint::PredictionHoldsAt(const double* v_c) const {
  // The projection's own region test (soft norm and all), not a second copy of it.
  return RegionAt(v_c) == FrictionConeRegion::kStiction;
}

FrictionConeRegion SapFrictionConeConstraint::RegionAt(const double* v_c) const {
  return ClassifyFrictionCone(metric_,
                              CalcUnprojectedImpulse(Eigen::Map<const Eigen::Vector3d>(v_c)));
}

}  // namespace csim::solver
