#pragma once
// One-sided joint-limit constraint on a single dof with q_dot = v (docs/design/joint-limits.md).
//
// Rows (only finite limits are kept, in this order): lower, upper.
//   g = [ q0 - q_l ; q_u - q0 ]        J = [ e_j^T ; -e_j^T ]
// so v_c > 0 means moving away from the limit and gamma >= 0 pushes away from it; the
// generalized impulse on dof j is +gamma_lower - gamma_upper.
//   R = max(beta^2/(4 pi^2) w, 1/(dt k (dt + tau_d)))   (SAP eq. 29)
//   v_hat = -g / (dt + tau_d)
//   y = R^{-1} (v_hat - v_c),  gamma = max(0, y),  ell = 1/2 sum R gamma^2,
//   G = diag(1/R if y > 0 else 0).
// Defaults follow Drake's driver (docs/design/joint-limits.md): near-rigid (k = inf here, 1e12 in
// Drake: both leave only the near-rigid term), tau_d = dt, beta = 0.1. The activation window that
// decides which limits enter a step belongs to the problem builder, not to this class.

#include <limits>

#include "engine/solver/constraint.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/coordinate_constraint.h"

namespace csim::solver {

/// Parameters of one joint-limit constraint (units of the dof: m or rad).
struct SapLimitParameters {
  double q0 = 0.0;  ///< dof position at the start of the step [m or rad]
  double lower = -std::numeric_limits<double>::infinity();  ///< q_l [m or rad]
  double upper = std::numeric_limits<double>::infinity();   ///< q_u [m or rad] > q_l
  /// Stiffness k [N/m or N m/rad] > 0; +inf means near-rigid.
  double stiffness = std::numeric_limits<double>::infinity();
  /// tau_d [s] >= 0; NaN (default) means tau_d = dt, as in Drake.
  double dissipation_time = std::numeric_limits<double>::quiet_NaN();
  /// beta [1] >= 0 of the limits' near-rigid rule, Drake's value for joint limits; not a
  /// scene setting (settings.near_rigid_threshold is the contacts').
  double limit_near_rigid_threshold = 0.1;
};

/// SAP joint-limit constraint with one or two rows.
class SapLimitConstraint final : public Constraint {
 public:
  /// At least one of lower, upper must be finite.
  explicit SapLimitConstraint(const SapLimitParameters& parameters);

  int num_rows() const override { return num_rows_; }
  bool has_lower() const { return has_lower_; }
  bool has_upper() const { return has_upper_; }

  /// R and v_hat per row from dt [s] and the Delassus estimate w = delassus [1/kg m^2 or
  /// 1/kg] (w = 1/A_jj for one dof).
  void Prepare(double dt, double delassus) override;

  /// gamma (num_rows), cost, optional G (num_rows x num_rows) at v_c = J v.
  double Calc(const double* v_c, double* gamma, double* G, int* piece) const override;
  /// The piece Calc reports: each row is quadratic on either side of y = 0 (active: y > 0,
  /// inactive: y <= 0, both half-lines), so the piece is the bit mask of the active rows.
  int QuadraticPieceAt(const double* v_c) const;

  double R() const { return R_; }  ///< regularization [1/kg], valid after Prepare()
  /// Stabilization velocity of row r [m/s or rad/s], valid after Prepare().
  double v_hat(int r) const { return v_hat_[r]; }
  const SapLimitParameters& parameters() const { return parameters_; }
  /// Row r measures the coordinate's velocity (+1: the lower limit's row) or its negative
  /// (-1: the upper limit's), rows in that order (coordinate_constraint.h).
  double CoordinateRowSign(int r) const { return r == 0 && has_lower_ ? 1.0 : -1.0; }

 private:
  // Row r's un-projected impulse y = R^{-1} (v_hat - v_c) (docs/design/joint-limits.md); the row is
  // active (gamma = y) where y > 0. Calc and QuadraticPieceAt share this one test.
  double UnprojectedImpulse(int r, const double* v_c) const { return (v_hat_[r] - v_c[r]) / R_; }

  SapLimitParameters parameters_;
  int num_rows_ = 0;
  bool has_lower_ = false;
  bool has_upper_ = false;
  double R_ = 1.0;
  double v_hat_[2] = {0.0, 0.0};
};

/// Adds a joint limit on dof `dof` (index inside the clique) of clique `clique` to
/// `problem` (the clique's A block must already be added). Returns the pooled constraint.
inline SapLimitConstraint& AddJointLimit(ContactProblem* problem, int clique, int dof,
                                         const SapLimitParameters& parameters) {
  return AddCoordinateConstraint(problem, clique, dof, SapLimitConstraint(parameters));
}

}  // namespace csim::solver
