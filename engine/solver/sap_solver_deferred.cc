#include "engine/solver/sap_solver.h"

#include <algorithm>

#include "engine/common/array_predicates.h"

// SapSolver's deferred contacts (sap_solver.h, "Deferred contacts";
// SapSolverParameters::defer_separated): which contacts join islands at the guess, the
// deferred ones at the islands' solutions, and the merged partition.

namespace csim::solver {

void SapSolver::MarkCouples() {
  // Deferred: a contact between two cliques (every two-clique constraint is one, rows
  // [t1, t2, n]) whose impulse is zero even at the guess's normal velocity lowered by
  // separated_margin, i.e. apart, and by a margin.
  const ContactProblem& p = *problem_;
  couples_.assign(p.num_constraints(), 1);
  if (!parameters_.defer_separated) return;
  double* G = scratch_[0].G_trial.data();
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    if (e.num_cliques != 2 || e.num_rows != 3) continue;
    double* v_c = &vc_[e.row_offset];
    double* gamma = &gamma_[e.row_offset];
    ConstraintVelocity(k, v_.data(), vc_.data());
    v_c[2] -= parameters_.separated_margin;
    e.constraint->Calc(v_c, gamma, G, nullptr);
    v_c[2] += parameters_.separated_margin;
    if (AllZero(gamma, 3)) couples_[k] = 0;
  }
}

bool SapSolver::EvaluateDeferred() {
  // The deferred constraints at v: v_c and gamma for the result, and the ones in contact
  // there couple from now on. (Their G_ and piece_ are not read: they belong to no island.)
  const ContactProblem& p = *problem_;
  if (islands_.num_deferred == 0) return false;
  bool any = false;
  for (int k = 0; k < p.num_constraints(); ++k) {
    if (islands_.constraint_island[k] >= 0) continue;
    const ConstraintEntry& e = p.entry(k);
    ConstraintVelocity(k, v_.data(), vc_.data());
    e.constraint->Calc(&vc_[e.row_offset], &gamma_[e.row_offset], &G_[G_offset_[k]], &piece_[k]);
    if (!AllZero(&gamma_[e.row_offset], e.num_rows)) {
      couples_[k] = 1;
      any = true;
    }
  }
  return any;
}

void SapSolver::Remerge() {
  // The new partition joins some islands; an island whose cliques and constraints did not
  // change is the same problem, already solved: its state is kept and it is not solved
  // again (a refining min_iterations() step would change nothing). A merged island starts
  // from its parts' solutions, with a fresh Newton state; the parts' work is kept in the
  // statistics.
  // Copies, not swaps: every vector keeps its capacity (no allocation once warmed up).
  prev_islands_ = islands_;
  prev_island_ = island_;
  const Islands& before = prev_islands_;
  auto cliques_of = [](const Islands& is, int i) {
    return is.clique_start[i + 1] - is.clique_start[i];
  };
  auto constraints_of = [](const Islands& is, int i) {
    return is.constraint_start[i + 1] - is.constraint_start[i];
  };
  SetupIslands();
  const int K = islands_.num_islands;
  island_done_.assign(K, 0);
  prev_mark_.assign(before.num_islands, -1);
  for (int i = 0; i < K; ++i) {
    const int j = before.island_of_clique[islands_.cliques[islands_.clique_start[i]]];
    if (cliques_of(before, j) == cliques_of(islands_, i) &&
        constraints_of(before, j) == constraints_of(islands_, i)) {
      island_[i] = prev_island_[j];
      island_done_[i] = 1;
      continue;
    }
    for (int q = islands_.clique_start[i]; q < islands_.clique_start[i + 1]; ++q) {
      const int jj = before.island_of_clique[islands_.cliques[q]];
      if (prev_mark_[jj] == i) continue;
      prev_mark_[jj] = i;
      const IslandState& part = prev_island_[jj];
      merged_.push_back({cliques_of(before, jj), part.iterations, part.predicted_updates,
                         part.active_set_updates(), part.smooth_updates});
      merged_work_velocities_ += static_cast<double>(before.num_velocities[jj]) * part.iterations;
      island_[i].prior_iterations =
          std::max(island_[i].prior_iterations, part.prior_iterations + part.iterations);
    }
  }
}

}  // namespace csim::solver
