#pragma once
// The forest's trees: each child of the world roots one tree. Trees are the cliques of the
// contact problem (docs/design/time-step.md §4.3: A is block diagonal with one block per tree), and
// the loader orders bodies depth first so that each tree's velocities are contiguous.

#include <vector>

#include "engine/multibody/model.h"

namespace csim::multibody {

struct TreeTopology {
  /// Tree of each body; -1 for a body whose tree owns no velocities (welded to the world,
  /// or moved only by prescribed joints): it acts like the world in contact, plus a known
  /// velocity.
  std::vector<int> body_tree;
  std::vector<int> tree_v_start;  ///< first velocity of each tree (trees with nv > 0 only)
  std::vector<int> tree_nv;       ///< number of velocities of each tree
  int num_trees() const { return static_cast<int>(tree_nv.size()); }
};

/// Trees of `model`. Checks (always on) that each tree's velocities are contiguous.
TreeTopology CalcTreeTopology(const Model& model);

/// Whether some body of `model` has body b as its parent. Never allocates.
bool HasChildBody(const Model& model, int b);

/// A contiguous range of velocities [start, start + size).
struct VelocityBlock {
  int start = 0;
  int size = 0;
};

/// The diagonal blocks of the mass matrix: one per tree with velocities when every tree's
/// velocities are contiguous (models from the loader), else one block of all nv.
std::vector<VelocityBlock> MassMatrixBlocks(const Model& model);

}  // namespace csim::multibody
