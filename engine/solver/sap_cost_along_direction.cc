#include "engine/solver/sap_cost_along_direction.h"

#include <Eigen/Dense>

#include "engine/solver/sap_workspace.h"

namespace csim::solver {
namespace {

// ell(alpha) along ws.dv on one island.
class CostAlongDirection final : public LineSearchFunction {
 public:
  CostAlongDirection(SapWorkspace& ws, int island, const CostAtDirectionStart& start,
                     double* G_trial)
      : ws_(ws), island_(island), ell_A_(start.ell_A), c1_(start.c1), a2_(start.a2),
        G_trial_(G_trial) {}

  void Eval(double alpha, double* ell, double* d1, double* d2) override {
    // Plain pointers, loaded once: across the virtual calls in EvalConstraint the compiler
    // would otherwise reload each workspace's data pointer for every constraint.
    const Rows rows{ws_.vc.data(), ws_.dvc.data(), ws_.vc_trial.data(),
                    ws_.gamma_trial.data()};
    double cost = 0.0, dvc_gamma = 0.0, dvc_G_dvc = 0.0;
    if (evaluations_ == 1 && alpha_1_has_curvature_ && d2 != nullptr) SplitConstraints();
    if (split_) {
      // The frozen constraints' quadratic, from alpha_1.
      const double da = alpha - alpha_1_;
      cost = frozen_cost_ + da * frozen_slope_ + 0.5 * da * da * frozen_curvature_;
      dvc_gamma = -(frozen_slope_ + da * frozen_curvature_);  // ell_k' = -(J_k dv)^T gamma_k
      dvc_G_dvc = frozen_curvature_;
      const int* const active = ws_.along.active.data();
      const int begin = ws_.islands.constraint_start[island_];
      for (int q = begin; q < begin + num_active_; ++q)
        EvalConstraint<false>(rows, active[q], alpha, d2 != nullptr, &cost, &dvc_gamma,
                              &dvc_G_dvc);
    } else {
      const int* const constraints = ws_.islands.constraints.data();
      const int begin = ws_.islands.constraint_start[island_];
      const int end = ws_.islands.constraint_start[island_ + 1];
      if (evaluations_ == 0 && d2 != nullptr) {
        for (int q = begin; q < end; ++q)
          EvalConstraint<true>(rows, constraints[q], alpha, true, &cost, &dvc_gamma,
                               &dvc_G_dvc);
        alpha_1_ = alpha;
        alpha_1_has_curvature_ = true;
      } else {
        for (int q = begin; q < end; ++q)
          EvalConstraint<false>(rows, constraints[q], alpha, d2 != nullptr, &cost, &dvc_gamma,
                                &dvc_G_dvc);
      }
    }
    ++evaluations_;
    *ell = ell_A_ + alpha * c1_ + 0.5 * alpha * alpha * a2_ + cost;
    *d1 = c1_ + alpha * a2_ - dvc_gamma;
    if (d2 != nullptr) *d2 = a2_ + dvc_G_dvc;
  }

 private:
  // The constraint-row workspaces: J v, J dv, and the trial J (v + alpha dv) and gamma.
  struct Rows {
    const double* vc;
    const double* dvc;
    double* vc_trial;
    double* gamma_trial;
  };

  // Adds constraint k's ell_k, (J_k dv)^T gamma_k and, with curvature, (J_k dv)^T G_k (J_k dv)
  // at alpha; with kRecord also keeps them, and its piece, for SplitConstraints.
  template <bool kRecord>
  void EvalConstraint(const Rows& rows, int k, double alpha, bool curvature, double* cost,
                      double* dvc_gamma, double* dvc_G_dvc) {
    const double* const vc = rows.vc;
    const double* const dvc = rows.dvc;
    double* const vc_trial = rows.vc_trial;
    double* const gamma_trial = rows.gamma_trial;
    const ConstraintEntry& e = ws_.problem->entry(k);
    const int r = e.row_offset, n = e.num_rows;
    if (n == 3) {  // a contact, unrolled
      vc_trial[r] = vc[r] + alpha * dvc[r];
      vc_trial[r + 1] = vc[r + 1] + alpha * dvc[r + 1];
      vc_trial[r + 2] = vc[r + 2] + alpha * dvc[r + 2];
    } else {
      for (int i = r; i < r + n; ++i) vc_trial[i] = vc[i] + alpha * dvc[i];
    }
    double cost_k, curvature_k = 0.0;
    int piece = -1;
    if (curvature) {
      cost_k = e.constraint->CalcAlong(&vc_trial[r], &dvc[r], &gamma_trial[r], &curvature_k,
                                       &piece, G_trial_);
    } else {
      cost_k = e.constraint->Calc(&vc_trial[r], &gamma_trial[r], nullptr, nullptr);
    }
    double dvc_gamma_k;
    if (n == 3) {
      // Eigen's dynamic-size dot for three entries, (d0 g0 + d1 g1) + d2 g2 (one packet of
      // two, then the tail), without its size and alignment dispatch.
      dvc_gamma_k = (dvc[r] * gamma_trial[r] + dvc[r + 1] * gamma_trial[r + 1]) +
                    dvc[r + 2] * gamma_trial[r + 2];
    } else {
      dvc_gamma_k = Eigen::Map<const Eigen::VectorXd>(&dvc[r], n)
                        .dot(Eigen::Map<const Eigen::VectorXd>(&gamma_trial[r], n));
    }
    *cost += cost_k;
    *dvc_gamma += dvc_gamma_k;
    *dvc_G_dvc += curvature_k;
    if (kRecord) {
      CostAlongDirectionMemo& memo = ws_.along;
      memo.piece[k] = piece;
      memo.cost[k] = cost_k;
      memo.slope[k] = -dvc_gamma_k;
      memo.curvature[k] = curvature_k;
    }
  }

  // After the first evaluation (at alpha_1, vc_trial still holds its constraint velocities):
  // the constraints on the same quadratic piece at alpha = 0 and alpha_1 go into the frozen
  // sums, the others into the island's range of the memo's `active`. The piece at alpha = 0
  // is the one the island's evaluation found at the same v (ws.piece).
  void SplitConstraints() {
    const Islands& is = ws_.islands;
    const CostAlongDirectionMemo& memo = ws_.along;
    int* const active = ws_.along.active.data();
    const int begin = is.constraint_start[island_], end = is.constraint_start[island_ + 1];
    num_active_ = 0;
    for (int q = begin; q < end; ++q) {
      const int k = is.constraints[q];
      const int piece = memo.piece[k];
      if (piece >= 0 && ws_.piece[k] == piece) {
        frozen_cost_ += memo.cost[k];
        frozen_slope_ += memo.slope[k];
        frozen_curvature_ += memo.curvature[k];
      } else {
        active[begin + num_active_++] = k;
      }
    }
    split_ = true;
  }

  SapWorkspace& ws_;
  int island_;
  double ell_A_;     // 1/2 ||v - v*||_A^2 on the island
  double c1_;        // dv^T A (v - v*)
  double a2_;        // dv^T A dv
  double* G_trial_;  // the calling thread's scratch
  int evaluations_ = 0;
  double alpha_1_ = 0.0;                // the first evaluation's alpha
  bool alpha_1_has_curvature_ = false;  // it recorded pieces and curvatures
  bool split_ = false;                  // SplitConstraints ran
  int num_active_ = 0;                  // constraints still evaluated
  // Sums over the frozen constraints at alpha_1: ell_k, ell_k' and ell_k''.
  double frozen_cost_ = 0.0, frozen_slope_ = 0.0, frozen_curvature_ = 0.0;
};

}  // namespace

void CostAlongDirectionMemo::Resize(int num_constraints) {
  for (auto* x : {&cost, &slope, &curvature}) x->resize(num_constraints);
  piece.resize(num_constraints);
  active.resize(num_constraints);
}

LineSearchResult LineSearchAlongDirection(const SapSolverParameters& parameters,
                                          const CostAtDirectionStart& start, int island,
                                          SapWorkspace& ws, double* G_trial) {
  CostAlongDirection along(ws, island, start, G_trial);
  const SapSolverParameters& sp = parameters;
  return sp.line_search == SapLineSearch::kExact
             ? ExactLineSearch(along, start.ell, start.d1, sp.exact, sp.cost_absolute_tolerance,
                               sp.cost_relative_tolerance)
             : BacktrackingLineSearch(along, start.ell, start.d1, sp.backtracking,
                                      sp.relative_slop);
}

}  // namespace csim::solver
