#include "engine/multibody/tree_topology.h"

#include "engine/common/check.h"

namespace csim::multibody {

namespace {

// Velocities of each root's tree: first index and count; false if some tree's velocities
// are not contiguous.
bool TreeRanges(const Model& model, std::vector<int>* root, std::vector<int>* v_start,
                std::vector<int>* nv) {
  const int nb = model.num_bodies();
  root->resize(nb);
  v_start->assign(nb, -1);
  nv->assign(nb, 0);
  for (int i = 0; i < nb; ++i) (*root)[i] = model.parent[i] < 0 ? i : (*root)[model.parent[i]];
  for (int i = 0; i < nb; ++i) {
    const Joint& j = model.joints[i];
    if (j.v_start < 0) continue;
    const int r = (*root)[i];
    if ((*v_start)[r] >= 0 && j.v_start != (*v_start)[r] + (*nv)[r]) return false;
    if ((*v_start)[r] < 0) (*v_start)[r] = j.v_start;
    (*nv)[r] += j.nv;
  }
  return true;
}

}  // namespace

bool HasChildBody(const Model& model, int b) {
  for (int c = 0; c < model.num_bodies(); ++c)
    if (model.parent[c] == b) return true;
  return false;
}

std::vector<VelocityBlock> MassMatrixBlocks(const Model& model) {
  std::vector<int> root, v_start, nv;
  if (!TreeRanges(model, &root, &v_start, &nv)) return {{0, model.nv}};
  std::vector<VelocityBlock> blocks;
  for (int r = 0; r < model.num_bodies(); ++r)
    if (root[r] == r && nv[r] > 0) blocks.push_back({v_start[r], nv[r]});
  return blocks;
}

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
