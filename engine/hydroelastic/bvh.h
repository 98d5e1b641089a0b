#pragma once
// A static bounding-volume hierarchy over the elements (tets or triangles) of one hydroelastic
// geometry, and the queries the contact-surface computations use to find candidate element
// pairs (docs/design/hydroelastic.md §4).
//
// Design: a binary tree of oriented boxes in the geometry frame, built once by median split,
// with one element per leaf. Each node's box is fitted to the vertices below it: of a few
// candidate orientations (the geometry's axes; for an internal node the principal axes of its
// vertices and its two children's orientations; for a leaf the frames spanned by its
// element's edges) the one of least volume is kept, and the split axis is the one that gives
// the children the least volume. That build costs more than an axis-aligned tree's (principal
// axes per node and per split tried), once per geometry; the queries are what a step pays.
// Under the relative pose X_AB of two geometries, a pair of boxes overlaps when no axis of
// the separating-axis theorem separates them (the 3 face normals of each box and the 9 cross
// products of their edges); the test is exact for boxes, up to a relative 1e-12 slack that
// makes it conservative. Descending the overlapping pairs gives the expected O(m log n) for
// m overlapping leaf pairs.
//
// Why oriented boxes and not axis-aligned ones: the sparse sphere's tets are spokes from the
// centre to the surface (§2), and every node of its tree is a cone from the centre. A spoke
// slanted to the geometry's axes has an axis-aligned box many times its own volume, which
// overlaps most boxes of the other body's spokes near the contact; a box along the spoke hugs
// it, and the candidate pairs come close to the pairs of tets that do overlap. The price is a
// relative rotation per pair of boxes instead of one per query; the traversal reuses it
// between a node and a child that has the node's axes (the fit often picks a child's), and
// places each box of B in A's frame once per descent into it.
//
// Three more savings in the pair query, none of which changes which element pairs that
// intersect are found:
//   - every vertex of a mesh lies in its ball (Bvh::ball_center, ball_radius), so a node of
//     A whose box misses B's ball (or of B, A's) has nothing to find; each tree is marked
//     against the other's ball first, which drops the corners of a round body's boxes that
//     stick out of it;
//   - two internal nodes are compared on the 6 face axes only, which takes less arithmetic,
//     since a pair let through by mistake only costs one more level; leaf pairs, which become
//     the candidates, get all 15 axes;
//   - two overlapping internal nodes of similar sizes are descended together, straight to the
//     four pairs of their children: most such pairs have both children overlapping the other
//     node, and the tests of the half step would be spent for nothing.
//
// The queries append to caller-owned vectors after clearing them, so a warmed-up caller does
// not allocate. Traversal is recursive, to a depth of about log2(n_A) + log2(n_B).

#include <vector>

#include <Eigen/Dense>

#include "engine/hydroelastic/surface_mesh.h"
#include "engine/hydroelastic/volume_mesh.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic {

/// An oriented box in the geometry frame G: the points center + R (s .* half_size) for s in
/// [-1, 1]^3.
struct Obb {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();  ///< R_GO: its columns are the box's axes
  Eigen::Vector3d center = Eigen::Vector3d::Zero();     ///< [m]
  Eigen::Vector3d half_size = Eigen::Vector3d::Zero();  ///< >= 0, along R's columns [m]
};

/// One node of a Bvh: a leaf holds one element, an internal node two children.
struct BvhNode {
  Obb box;  ///< bounds every element below this node (not its children's boxes), geometry frame
  int left = -1;     ///< index of the first child in Bvh::nodes; -1 for a leaf
  int right = -1;    ///< index of the second child; -1 for a leaf
  int element = -1;  ///< leaf: the element (tet or triangle) index; -1 for an internal node
  /// Whether box.R is the parent's box.R (a copy of it): a query may then reuse what it
  /// computed from the parent's axes. False for the root.
  bool same_axes_as_parent = false;
};

/// The tree of one geometry; nodes[0] is the root. Empty for a mesh without elements.
struct Bvh {
  std::vector<BvhNode> nodes;
  /// A ball that holds every vertex of the mesh, geometry frame: the root box's centre, and
  /// the largest distance from it to a vertex (padded for roundoff).
  Eigen::Vector3d ball_center = Eigen::Vector3d::Zero();  ///< [m]
  double ball_radius = 0.0;                               ///< [m]
};

/// A candidate pair: element `a` of geometry A and element `b` of geometry B.
struct ElementPair {
  int a = -1;
  int b = -1;
};

/// Reused storage for the queries (capacity kept between calls).
struct BvhCandidates {
  std::vector<ElementPair> pairs;  ///< output of FindOverlappingElements
  std::vector<int> elements;       ///< output of FindElementsCrossingPlane, FindElementsBelowPlane
  /// FindOverlappingElements' scratch, per node of A's and B's trees: whether the node's box
  /// meets the other geometry's ball. Written for the nodes the query visits only.
  std::vector<char> meets_ball_A, meets_ball_B;
};

/// Builds the tree over the tets of `mesh` (geometry frame).
Bvh BuildBvh(const VolumeMesh& mesh);

/// Builds the tree over the triangles of `mesh` (geometry frame).
Bvh BuildBvh(const SurfaceMesh& mesh);

/// Whether box_A (frame A) and box_B (frame B) overlap when B is at pose X_AB in A, by the
/// separating-axis test with a small conservative slack (touching boxes overlap).
bool BoxesOverlap(const Obb& box_A, const Obb& box_B, const math::RigidTransform& X_AB);

/// Candidate pairs (a, b) of elements when geometry B is at pose X_AB in geometry A's frame:
/// every pair of elements that intersect is listed, once, and every listed pair has
/// overlapping leaf boxes (BoxesOverlap). candidates->pairs is cleared first; its order is
/// the traversal's, deterministic for given inputs. Uses candidates->meets_ball_A/_B.
void FindOverlappingElements(const Bvh& bvh_A, const Bvh& bvh_B, const math::RigidTransform& X_AB,
                             BvhCandidates* candidates);

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
