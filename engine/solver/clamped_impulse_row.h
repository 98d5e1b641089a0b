#pragma once
// One row of a regularized constraint whose impulse is clamped to an interval: the piece the
// PD actuator, joint dry friction and holonomic kinds share
// (docs/design/actuators-and-constraints.md §1).
//
// Given the row's regularization R > 0, stabilization velocity v_hat and impulse bounds
// lo <= hi (either may be infinite), at the row's constraint velocity v_c:
//   Y     = (v_hat - v_c) / R                 the un-projected impulse
//   gamma = clamp(Y, lo, hi)
//   ell   = R psi(Y),  psi(Y) = Y^2/2 (lo <= Y <= hi), hi Y - hi^2/2 (Y > hi),
//                              lo Y - lo^2/2 (Y < lo)
//   G     = 1/R inside [lo, hi], 0 outside.
// psi is an antiderivative of the clamp, so gamma = -d ell / d v_c and G = d^2 ell / d v_c^2;
// it is continuous and convex, and non-negative when lo <= 0 <= hi.
// Design choice: the saturated branches carry the constants -hi^2/2 and -lo^2/2 that make the
// cost continuous at the bounds, where Drake's holonomic constraint writes -gamma_b v_c, which
// has the right gradient but jumps there (§1.2): csim's backtracking line search
// and cost stopping criterion compare cost values, so a jump would mislead them.
//
// The row has three quadratic pieces, each an interval of v_c: below (Y < lo), inside
// (lo <= Y <= hi, closed, so that the piece and G agree at the bounds) and above (Y > hi).

namespace csim::solver {

/// Which piece of the clamp a row is on; the value is the row's digit in a constraint's
/// piece id (ClampedRowsPieceId).
enum class ClampedRowPiece : int { kBelow = 0, kInside = 1, kAbove = 2 };

/// A row's values at one constraint velocity.
struct ClampedRowValues {
  double cost = 0.0;   ///< ell [J]
  double gamma = 0.0;  ///< impulse [N s or N m s]
  double G = 0.0;      ///< d^2 ell / d v_c^2 [kg or kg m^2]
  ClampedRowPiece piece = ClampedRowPiece::kInside;
};

/// The piece of a row with un-projected impulse Y and bounds lo <= hi.
inline ClampedRowPiece ClampedRowPieceOf(double Y, double lo, double hi) {
  if (Y < lo) return ClampedRowPiece::kBelow;
  if (Y > hi) return ClampedRowPiece::kAbove;
  return ClampedRowPiece::kInside;
}

/// Evaluates one row (see the file comment) at constraint velocity v_c [m/s or rad/s] with
/// R [1/kg or 1/(kg m^2)] > 0 and finite, v_hat in the units of v_c, bounds lo <= hi in
/// impulse units. Never allocates.
inline ClampedRowValues EvaluateClampedRow(double v_c, double v_hat, double R, double lo,
                                           double hi) {
  ClampedRowValues out;
  const double Y = (v_hat - v_c) / R;
  out.piece = ClampedRowPieceOf(Y, lo, hi);
  switch (out.piece) {
    case ClampedRowPiece::kBelow:
      out.gamma = lo;
      out.cost = R * (lo * Y - 0.5 * lo * lo);
      break;
    case ClampedRowPiece::kAbove:
      out.gamma = hi;
      out.cost = R * (hi * Y - 0.5 * hi * hi);
      break;
    case ClampedRowPiece::kInside:
      out.gamma = Y;
      out.cost = 0.5 * R * Y * Y;
      out.G = 1.0 / R;
      break;
  }
  return out;
}

/// The piece id of a constraint made of clamped rows: row r's piece is digit r in base 3.
/// Each combination is a box in the rows' un-projected impulses, hence a convex set of v_c
/// on which the cost is one quadratic (Constraint::Calc). At most 19 rows fit an int.
class ClampedRowsPieceId {
 public:
  void Add(ClampedRowPiece piece) {
    id_ += static_cast<int>(piece) * weight_;
    weight_ *= 3;
  }
  int id() const { return id_; }

 private:
  int id_ = 0;
  int weight_ = 1;
};

}  // namespace csim::solver
