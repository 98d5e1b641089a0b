#pragma once
// Dry (Coulomb) friction on one joint coordinate j with q_dot = v, as one SAP constraint
// (docs/design/actuators-and-constraints.md §3): a velocity-level constraint v_j = 0 whose
// impulse is bounded by the friction limit, MuJoCo's "friction loss" in SAP form.
//
// One row, v_c = v_j (J = e_j^T); the generalized impulse on coordinate j is +gamma.
//   R     = R_nr = beta^2 / (4 pi^2) w         (always near-rigid)
//   gamma = clamp(-v_c / R, -dt f_s, dt f_s)
//   ell   = R Phi_{dt f_s}(v_c / R),     G = 1/R inside the band, 0 when sliding
// which is the clamped row of clamped_impulse_row.h with v_hat = 0. Below the limit the
// coordinate creeps at |v_j| <= R dt f_s; above it the friction torque is f_s against the
// motion.
// Design choice: a kind of its own rather than a SapPdConstraint with Kp = 0 and Kd -> inf
// (the same cost in the limit, §3.2): the PD kind's gains must be finite, and friction has no
// gains, targets or effort to report; both evaluate the same clamped row.

#include <Eigen/Dense>

#include "engine/solver/constraint.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/coordinate_constraint.h"

namespace csim::solver {

/// Parameters of one joint dry-friction constraint.
struct SapJointFrictionParameters {
  double friction = 0.0;  ///< f_s [N m or N] > 0, finite: the largest friction effort
  double near_rigid_threshold = 0.1;  ///< beta [1] > 0: R = beta^2 / (4 pi^2) w
};

/// SAP joint dry-friction constraint (one row).
class SapJointFrictionConstraint final : public Constraint {
 public:
  /// Precondition: 0 < friction < inf, 0 < near_rigid_threshold < inf (checked).
  explicit SapJointFrictionConstraint(const SapJointFrictionParameters& parameters);

  int num_rows() const override { return 1; }

  /// R = beta^2 / (4 pi^2) w and the impulse bound dt f_s from dt [s] and the Delassus
  /// estimate w = delassus [1/(kg m^2) or 1/kg] (w = 1/A_jj).
  void Prepare(double dt, double delassus) override;

  /// gamma, cost and optional G (1 x 1) at v_c = v_j. The piece is the clamp's (below,
  /// inside, above: 0, 1, 2; inside is stiction).
  double Calc(const double* v_c, double* gamma, double* G, int* piece) const override;
  /// Closed-form curvature G dv_c^2.
  double CalcAlong(const double* v_c, const double* dv_c, double* gamma, double* curvature,
                   int* piece, double* scratch) const override;

  double R() const { return R_; }  ///< [1/(kg m^2) or 1/kg], valid after Prepare()
  double impulse_limit() const { return impulse_limit_; }  ///< dt f_s [N m s or N s]
  const SapJointFrictionParameters& parameters() const { return parameters_; }
  /// Row 0 is the coordinate's velocity (coordinate_constraint.h).
  double CoordinateRowSign(int) const { return 1.0; }

 private:
  SapJointFrictionParameters parameters_;
  double R_ = 1.0;
  double impulse_limit_ = 0.0;
};

/// Adds dry friction on coordinate `dof` (index inside the clique) of clique `clique` to
/// `problem` (the clique's A block must already be added). Returns the pooled constraint.
inline SapJointFrictionConstraint& AddJointFriction(ContactProblem* problem, int clique, int dof,
                                                    const SapJointFrictionParameters& parameters) {
  return AddCoordinateConstraint(problem, clique, dof, SapJointFrictionConstraint(parameters));
}

}  // namespace csim::solver
