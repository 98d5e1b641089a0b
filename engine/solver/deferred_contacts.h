#pragma once
// Deferred contacts (SapSolverParameters::defer_separated): the islands are formed from the
// contacts that can touch. A contact between two cliques whose impulse is zero at the guess
// even with its normal velocity lowered by separated_margin is deferred: it joins no island
// and no island evaluates it. Once every island has converged, the deferred contacts are
// evaluated at the solution; those in contact there couple their cliques, the islands they
// join are solved again from their parts' solutions (the unchanged ones keep their
// converged state), and so on until no deferred contact is in contact, at most once per
// deferred contact.
//
// Why it is safe: the result is SAP's. A deferred contact left apart has zero impulse, zero
// cost and no term in the gradient, so the islands' criteria imply SAP eq. 26 for the whole
// problem (sap_stopping_criteria.h; a merge round has fewer islands, so the tolerances it
// uses are never tighter than the islands it keeps were solved with, and never looser than
// the final partition needs). The partition depends only on the problem and the guess.
// Why: in a collapsing pile, candidates a little apart chain piles into islands much larger
// than the ones their touching contacts make, and a big island iterates until its worst
// part is done (results/paired_solver_options.md).

#include <vector>

#include "engine/solver/islands.h"
#include "engine/solver/sap_island_state.h"
#include "engine/solver/sap_solver_parameters.h"
#include "engine/solver/sap_workspace.h"

namespace csim::solver {

/// An island of a solve that a merge replaced, with the Newton updates it took before
/// (SapSolverStats counts them as work).
struct MergedIsland {
  int cliques = 0, iterations = 0;
  int predicted_updates = 0, active_set_updates = 0, smooth_updates = 0;
};

/// Which contacts join islands, and the rounds of merges over one solve.
class DeferredContacts {
 public:
  /// Starts a solve: every contact couples, no island is carried over, no merge yet.
  void Reset();

  /// With defer_separated, decides at the guess (ws.v) which contacts join islands;
  /// without, every constraint couples. Uses ws.vc and ws.gamma as scratch.
  void MarkCouples(const SapSolverParameters& parameters, SapWorkspace& ws);
  /// Per constraint, whether it joins its cliques' islands (for SetupIslands), or null when
  /// nothing is deferred.
  const std::vector<char>* couples(const SapSolverParameters& parameters) const {
    return parameters.defer_separated ? &couples_ : nullptr;
  }

  /// After a round: v_c and gamma of the deferred constraints at ws.v (the result's), and
  /// those in contact there couple from now on; true if any does.
  bool EvaluateAtSolution(SapWorkspace& ws);
  /// The next round's partition: the islands the new couplings join are merged and start
  /// from their parts' solutions with a fresh Newton state; the others keep their converged
  /// state and are not solved again (IslandDone).
  void Remerge(const SapSolverParameters& parameters, SapWorkspace& ws);

  /// Whether island i of the current round was carried over converged.
  bool IslandDone(int i) const { return !island_done_.empty() && island_done_[i]; }
  /// Islands of this solve that a merge replaced, and their velocities x iterations summed.
  const std::vector<MergedIsland>& merged() const { return merged_; }
  double merged_work_velocities() const { return merged_work_velocities_; }

 private:
  std::vector<char> couples_;      // per constraint: joins islands
  std::vector<char> island_done_;  // per island: carried over converged from the last round
  Islands prev_islands_;           // the previous round's partition and states
  std::vector<SapIslandState> prev_island_;
  std::vector<int> prev_mark_;     // Remerge: per previous island, the new one it was counted in
  std::vector<MergedIsland> merged_;
  double merged_work_velocities_ = 0.0;
};

}  // namespace csim::solver
