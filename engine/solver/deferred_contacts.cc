#include "engine/solver/deferred_contacts.h"

#include <algorithm>

#include "engine/common/array_predicates.h"
#include "engine/solver/sap_products.h"

namespace csim::solver {

void DeferredContacts::Reset() {
  merged_.clear();
  merged_work_velocities_ = 0.0;
  island_done_.clear();
}

void DeferredContacts::MarkCouples(const SapSolverParameters& parameters, SapWorkspace& ws) {
  // Deferred: a contact between two cliques (every two-clique constraint is one, rows
  // [t1, t2, n]) whose impulse is zero even at the guess's normal velocity lowered by
  // separated_margin, i.e. apart, and by a margin.
  const ContactProblem& p = *ws.problem;
  couples_.assign(p.num_constraints(), 1);
  if (!parameters.defer_separated) return;
  double* G = ws.scratch[0].G_trial.data();
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    if (e.num_cliques != 2 || e.num_rows != 3) continue;
    double* v_c = &ws.vc[e.row_offset];
    double* gamma = &ws.gamma[e.row_offset];
    ConstraintVelocity(ws, k, ws.v.data(), ws.vc.data());
    v_c[2] -= parameters.separated_margin;
    e.constraint->Calc(v_c, gamma, G, nullptr);
    v_c[2] += parameters.separated_margin;
    if (AllZero(gamma, 3)) couples_[k] = 0;
  }
}

bool DeferredContacts::EvaluateAtSolution(SapWorkspace& ws) {
  // (Their G and piece are not read: they belong to no island.)
  const ContactProblem& p = *ws.problem;
  if (ws.islands.num_deferred == 0) return false;
  bool any = false;
  for (int k = 0; k < p.num_constraints(); ++k) {
    if (ws.islands.constraint_island[k] >= 0) continue;
    const ConstraintEntry& e = p.entry(k);
    ConstraintVelocity(ws, k, ws.v.data(), ws.vc.data());
    e.constraint->Calc(&ws.vc[e.row_offset], &ws.gamma[e.row_offset], &ws.G[ws.G_offset[k]],
                       &ws.piece[k]);
    if (!AllZero(&ws.gamma[e.row_offset], e.num_rows)) {
      couples_[k] = 1;
      any = true;
    }
  }
  return any;
}

void DeferredContacts::Remerge(const SapSolverParameters& parameters, SapWorkspace& ws) {
  // An island whose cliques and constraints did not change is the same problem, already
  // solved: its state is kept and it is not solved again (a refining min_iterations() step
  // would change nothing). The parts' work of a merged island is kept in the statistics.
  // Copies, not swaps: every vector keeps its capacity (no allocation once warmed up).
  prev_islands_ = ws.islands;
  prev_island_ = ws.island;
  const Islands& before = prev_islands_;
  auto cliques_of = [](const Islands& is, int i) {
    return is.clique_start[i + 1] - is.clique_start[i];
  };
  auto constraints_of = [](const Islands& is, int i) {
    return is.constraint_start[i + 1] - is.constraint_start[i];
  };
  SetupIslands(parameters, couples(parameters), &ws);
  const Islands& now = ws.islands;
  const int K = now.num_islands;
  island_done_.assign(K, 0);
  prev_mark_.assign(before.num_islands, -1);
  for (int i = 0; i < K; ++i) {
    const int j = before.island_of_clique[now.cliques[now.clique_start[i]]];
    if (cliques_of(before, j) == cliques_of(now, i) &&
        constraints_of(before, j) == constraints_of(now, i)) {
      ws.island[i] = prev_island_[j];
      island_done_[i] = 1;
      continue;
    }
    for (int q = now.clique_start[i]; q < now.clique_start[i + 1]; ++q) {
      const int jj = before.island_of_clique[now.cliques[q]];
      if (prev_mark_[jj] == i) continue;
      prev_mark_[jj] = i;
      const SapIslandState& part = prev_island_[jj];
      merged_.push_back({cliques_of(before, jj), part.iterations, part.predicted_updates,
                         part.active_set_updates(), part.smooth_updates});
      merged_work_velocities_ += static_cast<double>(before.num_velocities[jj]) * part.iterations;
      ws.island[i].prior_iterations =
          std::max(ws.island[i].prior_iterations, part.prior_iterations + part.iterations);
    }
  }
}

}  // namespace csim::solver
