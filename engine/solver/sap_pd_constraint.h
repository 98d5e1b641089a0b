#pragma once
// A PD actuator with an effort limit on one coordinate j with q_dot = v, as one SAP constraint
// (docs/design/actuators-and-constraints.md §2): Drake's PD controller constraint written for
// csim's theta-method, with both gains implicit.
//
// One row, v_c = v_j (J = e_j^T); the generalized impulse on coordinate j is +gamma.
// With the scheme's own position update q(v) = q0 + dt ((1 - theta_q) v0 + theta_q v):
//   y(v)  = -Kp (q(v) - q_d) - Kd (v - v_d) + u0          the un-clamped effort [N m or N]
//   c     = dt theta_q Kp + Kd,     y(v) = c (v_hat - v)
//   gamma = dt clamp(y, -e, e),     ell = (dt / c) Phi_e(y),     G = dt c inside the band
// which is the clamped row of clamped_impulse_row.h with R = 1 / (dt c), bounds +-dt e
// (§2.2). The reported effort is gamma / dt.
// Near-rigid gain clamp (§2.3): when R < R_nr = beta^2 / (4 pi^2) w, both gains are scaled by
// R / R_nr, which keeps Kd / Kp (Kp = 0 stays a velocity servo) and gives R = R_nr.
// c = 0 (Kd = 0 with theta_q = 0: the effort does not depend on v) is an explicit force:
// gamma = dt clamp(y(v0), -e, e) whatever v_c, with the linear cost -gamma v_c (§2.4).
// The targets q_d, v_d and the feed-forward u0 are the builder's (sampled at the end of the
// step, §2.5); u0 is not clamped before it enters y.

#include <limits>

#include <Eigen/Dense>

#include "engine/solver/constraint.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/coordinate_constraint.h"

namespace csim::solver {

/// Parameters of one PD actuator constraint for one step (units of the coordinate: rad or m;
/// efforts in N m or N).
struct SapPdParameters {
  double kp = 0.0;  ///< proportional gain Kp [N m/rad or N/m] >= 0, finite
  double kd = 0.0;  ///< derivative gain Kd [N m s/rad or N s/m] >= 0, finite; Kp + Kd > 0
  /// Effort limit e [N m or N] > 0; +inf for none. Clamps PD and feed-forward together.
  double effort_limit = std::numeric_limits<double>::infinity();
  double q0 = 0.0;           ///< coordinate at the start of the step [rad or m]
  double v0 = 0.0;           ///< its velocity at the start of the step [rad/s or m/s]
  double q_target = 0.0;     ///< q_d [rad or m]
  double v_target = 0.0;     ///< v_d [rad/s or m/s]
  double feedforward = 0.0;  ///< u0 [N m or N], not clamped on its own
  /// theta_q [1] in [0, 1]: the weight of the end-of-step velocity in the position update
  /// (docs/design/time-step.md §2.1).
  double theta_q = 1.0;
  double near_rigid_threshold = 0.1;  ///< beta [1] > 0 of the gain clamp
};

/// Why `p` is not a valid set of PD parameters, or nullptr when it is (finite gains >= 0 not
/// both zero, e > 0, theta_q in [0, 1], finite states and targets, beta > 0). The scene loader
/// reports its own located errors; this is the constraint's precondition.
const char* SapPdParametersError(const SapPdParameters& p);

/// A PD row for one step: the effective gains after the near-rigid clamp and the clamped row
/// they make (Prepare's values; CalcPdRow).
struct PdRowCoefficients {
  double kp = 0.0;              ///< Kp after the clamp [N m/rad or N/m]
  double kd = 0.0;              ///< Kd after the clamp [N m s/rad or N s/m]
  bool gains_clamped = false;   ///< whether the clamp scaled the gains down
  bool is_explicit = false;     ///< c = 0: gamma is explicit_gamma at every v_c
  double explicit_gamma = 0.0;  ///< [N m s or N s], when is_explicit
  bool explicit_saturated = false;  ///< |y| > e, when is_explicit
  /// R = 1 / (dt c) [1/(kg m^2) or 1/kg]; +inf when is_explicit.
  double R = std::numeric_limits<double>::infinity();
  double v_hat = 0.0;           ///< [rad/s or m/s] (c > 0)
  double impulse_limit = std::numeric_limits<double>::infinity();  ///< dt e [N m s or N s]
};

/// The row of `p` for a step of dt [s] > 0 with the Delassus estimate w = delassus > 0
/// [1/(kg m^2) or 1/kg] (w = 1/A_jj): SapPdConstraint::Prepare, for callers that solve the
/// rows themselves (pd_rows_direct_solve.h). Precondition: SapPdParametersError(p) == nullptr.
PdRowCoefficients CalcPdRow(const SapPdParameters& p, double dt, double delassus);

/// What CalcPdRow computes from the gains, theta_q, beta and dt alone, for a caller that
/// makes a servo's row every step with the same ones (contact::PdActuators): c = dt theta_q
/// Kp + Kd, R = 1 / (dt c) before the clamp, and beta^2 / (4 pi^2), the near-rigid floor
/// per unit Delassus estimate.
struct PdRowGainTerms {
  double c = 0.0;
  double R = 0.0;
  double near_rigid_per_delassus = 0.0;
};
PdRowGainTerms CalcPdRowGainTerms(const SapPdParameters& p, double dt);
/// CalcPdRow with its gain terms given, `terms` = CalcPdRowGainTerms(p, dt): the same row,
/// bit for bit, without their divisions.
PdRowCoefficients CalcPdRow(const SapPdParameters& p, double dt, double delassus,
                            const PdRowGainTerms& terms);

/// SAP PD actuator constraint with an effort limit (one row).
class SapPdConstraint final : public Constraint {
 public:
  /// Precondition: SapPdParametersError(parameters) == nullptr (checked).
  explicit SapPdConstraint(const SapPdParameters& parameters);

  int num_rows() const override { return 1; }

  /// The effective gains (the near-rigid clamp), R, v_hat and the impulse bound dt e from dt
  /// [s] and the Delassus estimate w = delassus [1/(kg m^2) or 1/kg] (w = 1/A_jj).
  void Prepare(double dt, double delassus) override;

  /// gamma, cost and optional G (1 x 1) at v_c = v_j. The piece is the clamp's (below,
  /// inside, above: 0, 1, 2); an explicit constraint (c = 0) is one piece, 0.
  double Calc(const double* v_c, double* gamma, double* G, int* piece) const override;
  /// Closed-form curvature G dv_c^2.
  double CalcAlong(const double* v_c, const double* dv_c, double* gamma, double* curvature,
                   int* piece, double* scratch) const override;

  /// The effort the actuator delivers at v_c, gamma / dt [N m or N] (what is reported).
  double EffortAt(double v_c) const;
  /// Whether the effort limit is active at v_c (|y(v_c)| > e).
  bool SaturatedAt(double v_c) const;

  /// Whether Prepare scaled the gains down (the near-rigid regime).
  bool gains_clamped() const { return row_.gains_clamped; }
  double effective_kp() const { return row_.kp; }  ///< Kp after the clamp, valid after Prepare()
  double effective_kd() const { return row_.kd; }  ///< Kd after the clamp, valid after Prepare()
  /// R = 1 / (dt c) [1/(kg m^2) or 1/kg]; +inf for an explicit constraint (c = 0).
  double R() const { return row_.R; }
  double v_hat() const { return row_.v_hat; }  ///< [rad/s or m/s], valid after Prepare() (c > 0)
  double impulse_limit() const { return row_.impulse_limit; }  ///< dt e [N m s or N s]
  const SapPdParameters& parameters() const { return parameters_; }
  /// Row 0 is the coordinate's velocity (coordinate_constraint.h).
  double CoordinateRowSign(int) const { return 1.0; }

 private:
  SapPdParameters parameters_;
  double dt_ = 0.0;
  PdRowCoefficients row_;
};

/// Adds a PD actuator on coordinate `dof` (index inside the clique) of clique `clique` to
/// `problem` (the clique's A block must already be added). Returns the pooled constraint.
inline SapPdConstraint& AddPdActuator(ContactProblem* problem, int clique, int dof,
                                      const SapPdParameters& parameters) {
  return AddCoordinateConstraint(problem, clique, dof, SapPdConstraint(parameters));
}

}  // namespace csim::solver
