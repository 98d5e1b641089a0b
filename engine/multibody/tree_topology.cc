#include "engine/multibody/tree_topology.h"

#include "engine/common/check.h"

namespace csim::multibody {

TreeTopology CalcTreeTopology(const Model& model) {
  const int nb = model.num_bodies();
  // Root (child of the world) of every body; parents come first.
  std::vector<int> root(nb);
  for (int i = 0; i < nb; ++i) root[i] = model.parent[i] < 0 ? i : root[model.parent[i]];
  std::vector<int> root_nv(nb, 0), root_v_start(nb, -1);
  for (int i = 0; i < nb; ++i) {
    const Joint& j = model.joints[i];
    if (j.v_start < 0) continue;
    int& start = root_v_start[root[i]];
    CSIM_CHECK(start < 0 || j.v_start == start + root_nv[root[i]]);  // contiguous
    if (start < 0) start = j.v_start;
    root_nv[root[i]] += j.nv;
  }
  TreeTopology topology;
  std::vector<int> tree_of_root(nb, -1);
  for (int r = 0; r < nb; ++r) {
    if (root[r] != r || root_nv[r] == 0) continue;
    tree_of_root[r] = topology.num_trees();
    topology.tree_v_start.push_back(root_v_start[r]);
    topology.tree_nv.push_back(root_nv[r]);
  }
  topology.body_tree.resize(nb);
  for (int i = 0; i < nb; ++i) topology.body_tree[i] = tree_of_root[root[i]];
  return topology;
}

}  // namespace csim::multibody
