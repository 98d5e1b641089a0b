#pragma once
// Random pairs of shapes checked against the reference signed distance
// (reference_signed_distance.h): the property that every contact point the narrow phase
// reports is honest (its phi0 is never below the pair's true signed distance) and that the
// deepest one is the true signed distance whenever the pair is within the margin.
//
// Shared by the unit test (tests/geometry/contact_honesty_test.cc, a few thousand pairs per
// kind) and the longer sweep (csim_geometry_sweep, tools/run_geometry_sweep.sh).
//
// Pairs are drawn with a large share of the configurations that break manifolds: faces
// nearly parallel (tilts of 0, round-off, up to 10 degrees and around the support-feature
// tolerance of about 5.7 degrees), an edge or a side line on a face, equal shapes turned
// about one shared axis with faces flush (stacks, dominoes), corners on faces, deep and
// shallow overlap, gaps within and just beyond the margin.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/geometry/shape.h"

namespace csim::geometry::test {

/// What a sweep of one pair kind found.
struct HonestySweepStats {
  ShapeType type_a = ShapeType::kSphere, type_b = ShapeType::kSphere;
  int pairs = 0;             ///< pairs checked
  int within_margin = 0;     ///< of which the true signed distance is below the margin
  int overlapping = 0;       ///< of which the shapes overlap
  int numeric = 0;           ///< of which the reference was a numeric search
  /// Worst amount by which a point's phi0 lies below the true signed distance [m] (<= 0:
  /// all honest), and the worst |deepest phi0 - true| over pairs within the margin [m].
  double worst_dishonesty = -1.0, worst_deepest_error = 0.0;
  /// Worst dishonesty and deepest error in units of the pair's tolerance
  /// (1e-6 m + 1e-6 of the sum of the shapes' bounding radii); above 1 is a failure.
  double worst_dishonesty_ratio = -1.0, worst_deepest_ratio = 0.0;
  int failures = 0;
  std::vector<std::string> failure_reports;  ///< the first few, each enough to reproduce
};

/// Every shape type that can be one side of a pair (halfspace included).
std::vector<ShapeType> AllPairShapeTypes();

/// Checks `count` random pairs of the kind (type_a, type_b) with the given seed and margin.
HonestySweepStats SweepPairKind(ShapeType type_a, ShapeType type_b, int count, uint64_t seed,
                                double margin);

}  // namespace csim::geometry::test
