#pragma once
// Islands of a contact problem: the connected components of the graph whose nodes are the
// participating cliques and whose edges are the constraints coupling two cliques. The
// world is not a node, so two piles resting on the same floor are separate islands.
//
// SAP's cost is a sum over islands of terms that share no velocity, so its minimiser is the
// minimiser of each island's term: each island runs its own Newton iterations, line
// searches (sap_newton.h) and stopping test, with the tolerances split so that the islands'
// criteria imply the whole problem's (sap_stopping_criteria.h), and an island that has
// converged stops costing anything. Numbering is deterministic: islands in the order of
// their first clique. Contacts apart at the guess may be left out of the partition
// (deferred_contacts.h).

#include <vector>

#include "engine/solver/contact_problem.h"

namespace csim::solver {

/// The partition, in compressed rows. Capacity is kept across calls (no allocation once
/// the largest problem has been seen).
struct Islands {
  int num_islands = 0;
  std::vector<int> island_of_clique;  ///< per clique; -1 when not participating
  std::vector<int> clique_start;      ///< island i owns cliques[clique_start[i] .. [i+1])
  std::vector<int> cliques;           ///< participating cliques, grouped by island, ascending
  std::vector<int> constraint_start;  ///< island i owns constraints[constraint_start[i] .. [i+1])
  std::vector<int> constraints;       ///< constraints grouped by island, ascending
  std::vector<int> constraint_island; ///< island of each constraint; -1 for a deferred one
  int num_deferred = 0;               ///< constraints in no island (see FindIslands)
  std::vector<int> num_velocities;    ///< per island: sum of its cliques' sizes
};

/// Fills `out` for `problem`; reduced_offset[c] >= 0 marks the cliques touched by a
/// constraint (the others belong to no island). `couples` (per constraint, or null: all):
/// only the constraints with couples[k] != 0 join their cliques' islands; one that does
/// not, and whose two cliques still end up in different islands, is deferred: it belongs
/// to no island (constraint_island -1, in no island's list).
void FindIslands(const ContactProblem& problem, const std::vector<int>& reduced_offset,
                 Islands* out, const std::vector<char>* couples = nullptr);

}  // namespace csim::solver
