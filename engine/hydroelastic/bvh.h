#pragma once
// A static bounding-volume hierarchy over the elements (tets or triangles) of one hydroelastic
// geometry, and the queries the contact-surface computations use to find candidate element
// pairs (docs/design/hydroelastic.md §2 a, b, d; cost §2 "Cost").
//
// Design: an axis-aligned box tree in the geometry frame, built once by median split, with one
// element per leaf. Under the relative pose X_AB of two geometries, B's boxes are oriented boxes
// in A's frame, and a pair of nodes is tested by the separating-axis theorem on the 15 axes of
// two boxes, which is exact for boxes (up to a relative 1e-12 slack that makes it
// conservative). Drake uses oriented-box trees fitted to the elements; axis-aligned boxes are
// looser for slanted elements but cost nothing to refit, need no principal-axis fitting, and the
// query only sees them through the same box-vs-box test. Descending into the larger of two
// overlapping nodes gives the expected O(m log n) for m overlapping leaf pairs.
//
// The queries append to caller-owned vectors after clearing them, so a warmed-up caller does
// not allocate. Traversal is recursive, to a depth of about log2(n_A) + log2(n_B).

#include <vector>

#include <Eigen/Dense>

#include "engine/hydroelastic/surface_mesh.h"
#include "engine/hydroelastic/volume_mesh.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic {

/// An axis-aligned box of the geometry frame, by centre and half sizes.
struct Aabb {
  Eigen::Vector3d center = Eigen::Vector3d::Zero();     ///< [m]
  Eigen::Vector3d half_size = Eigen::Vector3d::Zero();  ///< >= 0 [m]
};

/// One node of a Bvh: a leaf holds one element, an internal node two children.
struct BvhNode {
  Aabb box;          ///< bounds every element below this node, geometry frame
  int left = -1;     ///< index of the first child in Bvh::nodes; -1 for a leaf
  int right = -1;    ///< index of the second child; -1 for a leaf
  int element = -1;  ///< leaf: the element (tet or triangle) index; -1 for an internal node
};

/// The tree of one geometry; nodes[0] is the root. Empty for a mesh without elements.
struct Bvh {
  std::vector<BvhNode> nodes;
};

/// A candidate pair: element `a` of geometry A and element `b` of geometry B.
struct ElementPair {
  int a = -1;
  int b = -1;
};

/// Reused output storage for the queries (capacity kept between calls).
struct BvhCandidates {
  std::vector<ElementPair> pairs;  ///< FindOverlappingElements
  std::vector<int> elements;       ///< FindElementsCrossingPlane, FindElementsBelowPlane
};

/// Builds the tree over the tets of `mesh` (geometry frame).
Bvh BuildBvh(const VolumeMesh& mesh);

/// Builds the tree over the triangles of `mesh` (geometry frame).
Bvh BuildBvh(const SurfaceMesh& mesh);

/// Whether box_A (frame A) and box_B (frame B) overlap when B is at pose X_AB in A, by the
/// separating-axis test with a small conservative slack (touching boxes overlap).
bool BoxesOverlap(const Aabb& box_A, const Aabb& box_B, const math::RigidTransform& X_AB);

/// Every pair (a, b) of elements whose leaf boxes overlap (BoxesOverlap) when geometry B is at
/// pose X_AB in geometry A's frame. *pairs is cleared first; its order is the traversal's,
/// deterministic for given inputs.
void FindOverlappingElements(const Bvh& bvh_A, const Bvh& bvh_B, const math::RigidTransform& X_AB,
                             std::vector<ElementPair>* pairs);

/// Every element whose leaf box crosses or touches the plane n_G . x + d = 0 (geometry frame;
/// n_G need not be unit, d in the units of n_G times metres): a superset of the elements the
/// plane cuts. *elements is cleared first.
void FindElementsCrossingPlane(const Bvh& bvh, const Eigen::Vector3d& n_G, double d,
                               std::vector<int>* elements);

/// Every element whose leaf box has a point with n_G . x + d <= 0 (the half-space below the
/// plane): a superset of the elements that meet that half-space. *elements is cleared first.
void FindElementsBelowPlane(const Bvh& bvh, const Eigen::Vector3d& n_G, double d,
                            std::vector<int>* elements);

}  // namespace csim::hydroelastic
