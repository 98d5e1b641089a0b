#pragma once
// The SAP point-contact constraint (docs/design/contact-models.md §2, docs/design/sap-problem.md
// §3): 3 rows in the contact frame [t1, t2, n], n pointing from A into B; v_c = J v + v_b is the
// velocity of B relative to A (v_n > 0 separating); gamma is the impulse on B (gamma_n >= 0 pushes
// apart).
//
// Per step (Prepare, w the Delassus estimate): R_n = max(beta^2/(4 pi^2) w,
// 1/(dt k (dt + tau_d))) (SAP eq. 29), R_t = sigma w (SAP eq. 30),
// v_hat = (0, 0, -phi0 / (dt + tau_d)) (docs/design/sap-problem.md §3.1).
// Per evaluation: y = -R^{-1} (v_c - v_hat), gamma = P_F(y) (SAP eq. 23), cost
// ell = 1/2 ||gamma||_R^2 (SAP eq. 35), G = -d gamma / d v_c (SAP eq. 37).

#include <limits>

#include <Eigen/Dense>

#include "engine/solver/constraint.h"
#include "engine/solver/friction_cone_projection.h"
#include "engine/solver/stiction_prediction.h"

namespace csim::solver {

/// Physical parameters of one SAP point contact.
struct SapFrictionConeParameters {
  double mu = 0.5;  ///< Coulomb friction coefficient [1] >= 0
  /// Normal stiffness k [N/m] > 0; +inf means near-rigid (R_n from the near-rigid rule only).
  double stiffness = std::numeric_limits<double>::infinity();
  double dissipation_time = 0.0;       ///< tau_d [s] >= 0 (linear Kelvin-Voigt)
  double phi0 = 0.0;                   ///< signed distance at q0 [m], < 0 when overlapping
  /// beta [1] >= 0 (0 disables the near-rigid rule); no default: settings.near_rigid_threshold
  double near_rigid_threshold = std::numeric_limits<double>::quiet_NaN();
  /// sigma [1] > 0: R_t = sigma w; no default: settings.stiction_sigma
  double stiction_sigma = std::numeric_limits<double>::quiet_NaN();
  /// Kinematic bias v_b [m/s] in the contact frame, added to J v (e.g. conveyor speed).
  Eigen::Vector3d bias_velocity = Eigen::Vector3d::Zero();
  /// The same contact (geometry pair and manifold point) ended the previous step in
  /// stiction: CalcPredicted offers the stiction model (sap_solver.h).
  bool was_stuck = false;
};

/// SAP friction-cone contact constraint (3 rows), with stiction as its predicted region.
class SapFrictionConeConstraint final : public Constraint, public StictionPrediction {
 public:
  /// Stores the parameters; Prepare() must run before Calc().
  explicit SapFrictionConeConstraint(const SapFrictionConeParameters& parameters);

  int num_rows() const override { return 3; }

  /// Computes R_t, R_n, v_hat_n from dt [s] and the Delassus estimate w = delassus [1/kg].
  /// Aborts (CSIM_CHECK) if R_n or R_t is not positive and finite (e.g. k = inf, beta = 0).
  void Prepare(double dt, double delassus) override;

  /// gamma, cost and optionally G at v_c = J v (3 values; the bias is added here). The
  /// piece (QuadraticPieceAt) is 0 for stiction, 1 for no contact.
  double Calc(const double* v_c, double* gamma, double* G, int* piece) const override;
  /// Closed-form curvature (CalcFrictionConeCurvature): no 3 x 3 G is formed.
  double CalcAlong(const double* v_c, const double* dv_c, double* gamma, double* curvature,
                   int* piece, double* scratch) const override;
  /// The piece Calc reports: stiction (region I, gamma = y: quadratic) is piece 0, no
  /// contact (region III, zero) is piece 1; both regions are convex cones in y, hence
  /// convex in v_c. Sliding is not quadratic: -1.
  int QuadraticPieceAt(const double* v_c) const;

  /// With parameters().was_stuck or `crossed`, and a compressive un-projected impulse
  /// (y_n > 0): the stiction model gamma = y, G = R^{-1} (docs/design/contact-models.md §2.2,
  /// region I) at v_c, even where v_c lies in another region. Why: v0 is the previous solution, but
  /// the contact point and frame moved with the step, so J v0 carries a small slip that the
  /// tiny R_t = sigma w turns into a sliding impulse; Newton from v0 then rediscovers
  /// stiction one contact per iteration (short line-search steps). `crossed`: the same
  /// rediscovery within a solve (StepCrossesPredictedRegion). Otherwise returns false.
  bool CalcPredicted(const double* v_c, bool crossed, double* gamma, double* G) const override;
  /// v_c slides (region II) and the step's slip u_t + t du_t (u = v_c + bias), at the t in
  /// [0, 1] where it is smallest, lies in the stiction region: the Newton model of sliding
  /// has no curvature along the slip, so its step overshoots through stiction, where the
  /// cost's curvature jumps to 1 / R_t and the line search stops it. Also true for a near
  /// miss: the slip is smallest inside the step (0 < t < 1), and there compressive
  /// (y_n > 0) and at most kNearMissSlipFraction of |u_t| at the start. Such a step swings
  /// the slip past zero, through the sharp bend of the sliding cost (its curvature across
  /// the slip is mu gamma_n / |u_t|), which stops the line search just as stiction does,
  /// and a contact that one step nearly stops tends to be at rest at the solution.
  bool StepCrossesPredictedRegion(const double* v_c, const double* dv_c) const override;
  /// See StepCrossesPredictedRegion; chosen on the benchmark's contact problems
  /// (csim_bench --compare).
  static constexpr double kNearMissSlipFraction = 0.2;
  /// The stiction model holds where its impulse y is in the friction cone (region I).
  bool PredictionHoldsAt(const double* v_c) const override;

  /// Region of the projection at v_c (3 values, without the bias), for the next step's
  /// prediction.
  FrictionConeRegion RegionAt(const double* v_c) const;

  /// The effective stiction tolerance at normal impulse gamma_n [N s] ([ICF] eq. 42):
  /// the slip speed mu R_t gamma_n = mu sigma w gamma_n [m/s] at which the contact leaves
  /// the stiction region (|y_t| = |v_t| / R_t reaches mu y_n, y_n = gamma_n in stiction);
  /// its friction's stiffness there is mu gamma_n / v_s = 1 / R_t. 0 for a contact that
  /// carries nothing or has no friction. Valid after Prepare().
  double StictionTolerance(double gamma_n) const {
    return parameters_.mu * metric_.R_t * gamma_n;
  }

  const SapFrictionConeParameters& parameters() const { return parameters_; }
  double R_t() const { return metric_.R_t; }  ///< [1/kg], valid after Prepare()
  double R_n() const { return metric_.R_n; }  ///< [1/kg], valid after Prepare()
  double v_hat_n() const { return v_hat_n_; }  ///< [m/s], valid after Prepare()
  double dt() const { return dt_; }  ///< the time step [s] of the last Prepare()
  /// R_n is the near-rigid term of SAP eq. 29 (NearRigidTermWins), so it depends on neither
  /// k nor tau_d. Valid after Prepare().
  bool near_rigid() const { return near_rigid_; }
  const FrictionConeMetric& metric() const { return metric_; }

  /// The un-projected impulse y = -R^{-1} (v_c + v_b - v_hat) [N s] (docs/design/contact-models.md
  /// §2.1).
  Eigen::Vector3d CalcUnprojectedImpulse(const Eigen::Vector3d& v_c) const;

 private:
  SapFrictionConeParameters parameters_;
  FrictionConeMetric metric_;
  double v_hat_n_ = 0.0;
  double dt_ = 0.0;
  bool near_rigid_ = false;
};

}  // namespace csim::solver
