#include "engine/solver/islands.h"

namespace csim::solver {
namespace {

// Root of c with path halving (union-find).
int Root(std::vector<int>& parent, int c) {
  while (parent[c] != c) c = parent[c] = parent[parent[c]];
  return c;
}

// Groups items 0..n-1 by key[item] (0..num_keys-1) into start/list, keeping item order.
void GroupBy(const std::vector<int>& key, int n, int num_keys, std::vector<int>* start,
             std::vector<int>* list) {
  start->assign(num_keys + 1, 0);
  for (int i = 0; i < n; ++i)
    if (key[i] >= 0) ++(*start)[key[i] + 1];
  for (int k = 0; k < num_keys; ++k) (*start)[k + 1] += (*start)[k];
  list->resize((*start)[num_keys]);
  std::vector<int>& next = *start;  // reuse start as a cursor, then shift back
  for (int i = 0; i < n; ++i)
    if (key[i] >= 0) (*list)[next[key[i]]++] = i;
  for (int k = num_keys; k > 0; --k) next[k] = next[k - 1];
  next[0] = 0;
}

}  // namespace

void FindIslands(const ContactProblem& problem, const std::vector<int>& reduced_offset,
                 Islands* out, const std::vector<char>* couples) {
  const int nc = problem.num_cliques(), nk = problem.num_constraints();
  std::vector<int>& island = out->island_of_clique;
  // Union-find in island_of_clique (parent links), then relabel roots in clique order.
  island.resize(nc);
  for (int c = 0; c < nc; ++c) island[c] = c;
  for (int k = 0; k < nk; ++k) {
    const ConstraintEntry& e = problem.entry(k);
    if (e.num_cliques == 2 && (couples == nullptr || (*couples)[k])) {
      const int a = Root(island, e.clique[0]), b = Root(island, e.clique[1]);
      if (a != b) island[std::max(a, b)] = std::min(a, b);  // the smaller index is the root
    }
  }
  // Roots have the smallest index of their set and every parent link points to a smaller
  // index, so one forward pass turns links into island numbers, in order of first clique.
  out->num_islands = 0;
  for (int c = 0; c < nc; ++c) {
    const int parent = island[c];
    if (reduced_offset[c] < 0) {
      island[c] = -1;  // no constraint: its own root, nobody's parent
    } else {
      island[c] = parent == c ? out->num_islands++ : island[parent];
    }
  }
  GroupBy(island, nc, out->num_islands, &out->clique_start, &out->cliques);
  out->num_velocities.assign(out->num_islands, 0);
  for (int c : out->cliques) out->num_velocities[island[c]] += problem.clique_size(c);
  // Constraint k belongs to the island of its first clique, unless it is deferred.
  out->constraint_island.resize(nk);
  out->num_deferred = 0;
  for (int k = 0; k < nk; ++k) {
    const ConstraintEntry& e = problem.entry(k);
    int i = island[e.clique[0]];
    if (e.num_cliques == 2 && island[e.clique[1]] != i) {
      i = -1;
      ++out->num_deferred;
    }
    out->constraint_island[k] = i;
  }
  GroupBy(out->constraint_island, nk, out->num_islands, &out->constraint_start,
          &out->constraints);
}

}  // namespace csim::solver
