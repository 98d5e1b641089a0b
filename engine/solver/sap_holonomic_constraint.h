#pragma once
// A holonomic constraint g(q) = 0 with n <= 6 rows, each compliant or near-rigid, with its
// impulse optionally bounded (docs/design/actuators-and-constraints.md §4). The coupler,
// distance, ball and weld constraints are all of this kind; their g and J come from
// holonomic_constraint_kinematics.h.
//
// v_c = J v, with g_dot = J v + b (b the bias, e.g. a moving target); the generalized impulse
// is J^T gamma. Per row e (Prepare, w the Delassus estimate):
//   R_c = 1 / (dt (dt + tau) k)   (0 for k = inf),    R_nr = beta^2 / (4 pi^2) w,
//   R = max(R_c, R_nr);  tau <- dt when R_c < R_nr (near-rigid, §4.2);
//   v_hat = -g0 / (dt + tau) - b.
// Per evaluation: the clamped row of clamped_impulse_row.h with bounds [gamma_l, gamma_u]:
//   gamma = clamp((v_hat - v_c) / R, gamma_l, gamma_u),   G = diag(1/R inside, 0 outside),
// with the cost continuous across the bounds (§4.3).
// Storage is fixed-size (kMaxRows), so building one every step allocates nothing.

#include <array>
#include <limits>

#include <Eigen/Dense>

#include "engine/solver/constraint.h"

namespace csim::solver {

/// Parameters of one holonomic constraint. Row units: m (impulse N s) for lengths, rad
/// (impulse N m s) for angles; only the first num_rows entries of each array are read.
struct SapHolonomicParameters {
  static constexpr int kMaxRows = 6;
  using Rows = std::array<double, kMaxRows>;
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  int num_rows = 1;  ///< n in [1, kMaxRows]
  Rows g0{};         ///< g(q0) [m or rad], finite
  Rows bias{};       ///< b [m/s or rad/s] in g_dot = J v + b, finite
  /// k [N/m or N m/rad] > 0 per row; +inf (default) is rigid: only the near-rigid R remains.
  Rows stiffness{kInf, kInf, kInf, kInf, kInf, kInf};
  Rows relaxation_time{};  ///< tau [s] >= 0, finite (a damper of coefficient tau k)
  Rows impulse_lower{-kInf, -kInf, -kInf, -kInf, -kInf, -kInf};  ///< gamma_l [N s or N m s]
  Rows impulse_upper{kInf, kInf, kInf, kInf, kInf, kInf};  ///< gamma_u >= gamma_l
  double near_rigid_threshold = 0.1;  ///< beta [1] > 0
};

/// Why `p` is not a valid set of holonomic parameters, or nullptr when it is.
const char* SapHolonomicParametersError(const SapHolonomicParameters& p);

/// The bilateral, rigid parameters (k = inf, tau = 0, unbounded impulses, beta = 0.1) of a
/// constraint with g0 = g (n = g.size() <= kMaxRows rows).
SapHolonomicParameters RigidHolonomicParameters(const Eigen::Ref<const Eigen::VectorXd>& g);

/// SAP holonomic constraint (1 to 6 rows).
class SapHolonomicConstraint final : public Constraint {
 public:
  /// Precondition: SapHolonomicParametersError(parameters) == nullptr (checked).
  explicit SapHolonomicConstraint(const SapHolonomicParameters& parameters);

  int num_rows() const override { return parameters_.num_rows; }

  /// R, the relaxation time used and v_hat per row from dt [s] and the Delassus estimate
  /// w = delassus [1/kg, or the rows' generalized unit] > 0.
  void Prepare(double dt, double delassus) override;

  /// gamma (n), cost and optional G (n x n, diagonal) at v_c = J v (n; without the bias,
  /// which v_hat carries). The piece is ClampedRowsPieceId of the rows' clamp pieces.
  double Calc(const double* v_c, double* gamma, double* G, int* piece) const override;
  /// Closed-form curvature sum_e G_e dv_c,e^2.
  double CalcAlong(const double* v_c, const double* dv_c, double* gamma, double* curvature,
                   int* piece, double* scratch) const override;

  /// Row e's regularization [1/kg or its generalized unit], valid after Prepare().
  double R(int e) const { return R_[e]; }
  /// Row e's stabilization velocity [m/s or rad/s], valid after Prepare().
  double v_hat(int e) const { return v_hat_[e]; }
  /// Whether row e is in the near-rigid regime (R_c < R_nr), valid after Prepare().
  bool near_rigid(int e) const { return near_rigid_[e]; }
  const SapHolonomicParameters& parameters() const { return parameters_; }

 private:
  SapHolonomicParameters parameters_;
  SapHolonomicParameters::Rows R_{};
  SapHolonomicParameters::Rows v_hat_{};
  std::array<bool, SapHolonomicParameters::kMaxRows> near_rigid_{};
};

}  // namespace csim::solver
