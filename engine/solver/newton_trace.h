#pragma once
// Newton's convergence history of one SAP solve (`csim run --trace-solver`;
// docs/design/sap-solver.md §6.2; the SAP paper's Fig. 10): per Newton iteration, the cost,
// the scaled gradient norm, the momentum error and the line search's step length, for the
// whole problem.
//
// The islands iterate independently (sap_newton.h), each recording its own iterates; the
// history of the whole problem is put together afterwards in lock-step rounds, the view in
// which `SapSolverStats::iterations` counts: iteration m is every island at its m-th iterate
// (an island that has stopped stays at its last one). An island that a merge formed
// (deferred_contacts.h) starts at the round its parts ended at (SapIslandState::
// prior_iterations) and replaces them from then on; an island carried over unchanged keeps
// its history. Until then the contacts a merge adds are in no island, and neither their cost
// nor their impulses count: the history's cost may rise at a merge (NewtonTraceRow::merged)
// and never rises otherwise. The sums run over the islands of the final partition in index
// order, each
// island's parts in the order they were solved, so the last iteration's cost and momentum
// error are those the solve reports, bit for bit.
//
// Recording costs a few stores per island iteration; it is off (SapWorkspace::trace null)
// except in traced solves, which may allocate.

#include <vector>

#include "engine/solver/islands.h"
#include "engine/solver/sap_island_state.h"

namespace csim::solver {

/// One Newton iteration of the whole problem.
struct NewtonTraceRow {
  int iteration = 0;           ///< m: Newton updates so far (0: the guess)
  double cost = 0.0;           ///< ell_p at the m-th iterates [J]
  double gradient_norm = 0.0;  ///< ||D grad|| of SAP eq. 26, D = diag(A)^{-1/2} [sqrt(J)]
  double momentum_error = 0.0; ///< SAP eq. 32 [1]
  /// The line search's step length from the m-th iterates, the smallest over the islands
  /// that took a step there; NaN where none did (the last iteration).
  double alpha = 0.0;
  /// Islands merged at this iteration: deferred contacts joined them (deferred_contacts.h),
  /// and their cost and impulses count from here on. The cost never rises from one
  /// iteration to the next except at such a one.
  bool merged = false;
};

class NewtonTrace {
 public:
  /// Starts the history of a solve (keeps every capacity).
  void Clear();

  /// Starts a round of island solves (the first, or one after a merge) on the partition
  /// `islands`; `solved[i]` says whether island i is solved in it (not carried over).
  void BeginRound(const Islands& islands, const std::vector<char>& solved);
  /// Island i evaluated its iterate (sap_newton.h, before its stopping test); called by
  /// the thread solving it.
  void RecordIterate(int i, const SapIslandState& s);
  /// Island i took a step of length alpha from its last recorded iterate.
  void RecordStep(int i, double alpha);
  /// Ends the round: the solved islands' histories become segments starting at their
  /// prior_iterations (from `island`, the round's states).
  void EndRound(const std::vector<SapIslandState>& island);

  /// Puts the rounds together into rows() on the final partition `islands` (the last
  /// round's). Allocates.
  void Compose(const Islands& islands);
  const std::vector<NewtonTraceRow>& rows() const { return rows_; }

 private:
  struct Iterate {
    double ell = 0.0, g2 = 0.0, p2 = 0.0, j2 = 0.0;
    double alpha = 0.0;  // the step taken from it; NaN: none
  };
  struct Segment {
    int round = 0, island = 0;      // where it was solved
    int first_clique = 0;           // any clique of the island: it identifies the parts
    int start = 0;                  // the round the island started at (prior_iterations)
    int first = 0, count = 0;       // its iterates in iterates_
    int end = 0;                    // Compose: the round a merge replaced it at, or never
  };
  std::vector<std::vector<Iterate>> current_;  // per island of the round being solved
  std::vector<char> solved_;                   // per island of the round: solved in it
  std::vector<int> first_clique_;              // per island of the round
  std::vector<std::vector<int>> island_of_clique_;  // per round: its partition
  std::vector<Segment> segments_;
  std::vector<Iterate> iterates_;
  std::vector<NewtonTraceRow> rows_;
};

}  // namespace csim::solver
