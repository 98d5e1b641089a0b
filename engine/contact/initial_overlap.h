#pragma once
// Deep overlaps at the initial state, which are nearly always a mistake in the scene (a
// radius of 50 where 0.05 was meant): the first step pushes such a pair apart at about
// depth / time_step, a ball launched at kilometres per second, and the run still ends
// `completed`. The loader warns about them (io/scene_warnings.h).
//
// The pairs are those of the scene's own contact query at t = 0 (FindContactsAt, margin 0),
// so every pair the step would never see (same body, filtered joints, world with world) is
// left out by the same collision filter.
//
// Threshold: the overlap depth -phi0 against the least width (thickness) of the thinner
// geometry of the pair (geometry/shape_width.h). Thickness rather than the bounding radius,
// because it measures how far a shape can sink before the contact normal becomes a guess
// and it is pushed out sideways or through (at half its thickness): a plate 1 cm thick
// sunk 5 mm into the ground is as wrong as a ball sunk to its centre. The fraction 0.1
// lies far above the overlaps of a scene placed by hand at rest (micrometres, or the
// penetration of a compliant material under its weight) and well below half the thickness.

#include <vector>

#include "engine/multibody/model.h"

namespace csim::contact {

/// Overlaps deeper than this fraction of the thinner geometry's least width are deep.
constexpr double kDeepOverlapFraction = 0.1;

/// One pair of collision geometries that overlaps deeply at t = 0.
struct DeepOverlap {
  int geometry_a = -1;  ///< index in MakeCollisionSpecs(model) order (world first)
  int geometry_b = -1;  ///< same; geometry_a < geometry_b
  int body_a = -1;      ///< body carrying A; -1 for the world
  int body_b = -1;      ///< body carrying B; -1 for the world
  double depth = 0.0;   ///< [m] the pair's largest -phi0, > 0
  double width = 0.0;   ///< [m] least width of the thinner of the two geometries
  bool thinner_is_a = true;  ///< which geometry `width` belongs to
};

/// The pairs whose deepest contact point at the initial configuration (prescribed joints
/// at t = 0) is deeper than kDeepOverlapFraction * width, sorted by (geometry_a,
/// geometry_b).
std::vector<DeepOverlap> FindDeepInitialOverlaps(const multibody::Model& model);

}  // namespace csim::contact
