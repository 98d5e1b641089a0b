// csim_hydroelastic_bench: the cost of one contact surface (CalcContactSurface,
// engine/hydroelastic/hydroelastic_geometry.h), the per-pair work of a hydroelastic step
// (docs/design/hydroelastic.md §4: expected O(m log n) for m intersecting element pairs).
//   1. Two compliant spheres of 512 tets each (R = 5 cm, hint 1 cm) at a few overlaps: time
//      per call against the 50 us target, with the polygon and candidate-pair counts.
//   2. Time against tets, hint from 5 cm down (32 to 8192 tets per sphere), for a sphere on a
//      rigid half-space and for two spheres, at a fixed overlap of 0.2 R: the candidate count
//      grows with the surface (m ~ n^(1/2) for a fixed patch on the sparse sphere, whose tets
//      are all surface tets) and the time with it.
// A plain harness like the other bench programs: each figure is the median over repeats of
// the mean time of a batch of calls, on a warmed-up scratch (no allocation in the loop).
// Usage: csim_hydroelastic_bench [repeats, default 7]  (tools/run_hydroelastic_bench.sh)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/hydroelastic/compliant_meshes.h"
#include "engine/hydroelastic/hydroelastic_geometry.h"
#include "engine/math/rotation.h"

namespace {

using csim::hydroelastic::CalcContactSurface;
using csim::hydroelastic::ContactSurface;
using csim::hydroelastic::ContactSurfaceScratch;
using csim::hydroelastic::HydroelasticGeometry;
using csim::math::RigidTransform;
using Eigen::Vector3d;

constexpr double kRadius = 0.05;   // [m]
constexpr double kModulus = 1e5;   // [Pa]

HydroelasticGeometry Sphere(double hint) {
  csim::geometry::Geometry g;
  g.type = csim::geometry::ShapeType::kSphere;
  g.size = Vector3d(kRadius, 0, 0);
  g.hydroelastic.compliance = csim::geometry::Compliance::kCompliant;
  g.hydroelastic.resolution_hint = hint;
  HydroelasticGeometry out;
  std::string error;
  if (!csim::hydroelastic::MakeHydroelasticGeometry(g, kModulus, &out, &error)) std::abort();
  return out;
}

HydroelasticGeometry RigidPlane() {
  csim::geometry::Geometry g;
  g.type = csim::geometry::ShapeType::kHalfspace;
  g.hydroelastic.compliance = csim::geometry::Compliance::kRigid;
  HydroelasticGeometry out;
  std::string error;
  if (!csim::hydroelastic::MakeHydroelasticGeometry(g, 0.0, &out, &error)) std::abort();
  return out;
}

struct Timing {
  double us = 0.0;        ///< median over repeats of the mean time per call [us]
  int polygons = 0;       ///< of the surface
  int candidates = 0;     ///< element pairs (soft-soft) or elements (plane) from the BVH
};

Timing Time(const HydroelasticGeometry& a, const RigidTransform& X_WA,
            const HydroelasticGeometry& b, const RigidTransform& X_WB, int repeats) {
  ContactSurfaceScratch scratch;
  ContactSurface surface;
  CalcContactSurface(a, X_WA, b, X_WB, &scratch, &surface);  // warm up
  Timing t;
  t.polygons = static_cast<int>(surface.polygons.size());
  t.candidates = static_cast<int>(b.is_halfspace ? scratch.candidates.elements.size()
                                                 : scratch.candidates.pairs.size());
  // A batch of about 20 ms per repeat.
  const auto start = std::chrono::steady_clock::now();
  CalcContactSurface(a, X_WA, b, X_WB, &scratch, &surface);
  const double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int batch = std::max(1, static_cast<int>(0.02 / std::max(once, 1e-9)));
  std::vector<double> means;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) CalcContactSurface(a, X_WA, b, X_WB, &scratch, &surface);
    means.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
                    batch);
  }
  std::nth_element(means.begin(), means.begin() + means.size() / 2, means.end());
  t.us = 1e6 * means[means.size() / 2];
  return t;
}

/// Sphere b's pose: centres 2R - overlap apart along a generic direction, b turned.
void SpherePair(double overlap, RigidTransform* X_WA, RigidTransform* X_WB) {
  *X_WA = RigidTransform{csim::math::RotationFromRpy(Vector3d(0.1, 0.2, 0.3)), Vector3d::Zero()};
  *X_WB = RigidTransform{csim::math::RotationFromRpy(Vector3d(0.5, -0.4, 1.2)),
                         (2 * kRadius - overlap) * Vector3d(0.3, 0.2, 1.0).normalized()};
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
  std::printf("# CalcContactSurface, two compliant spheres R = %.0f cm, hint 1 cm\n\n",
              100 * kRadius);
  const HydroelasticGeometry sphere = Sphere(0.01);
  std::printf("tets per sphere: %zu\n\n", sphere.field.mesh.tets.size());
  std::printf("| overlap [mm] | polygons | candidate tet pairs | time [us] | target <= 50 us |\n");
  std::printf("|---|---|---|---|---|\n");
  for (const double overlap : {0.001, 0.005, 0.01, 0.02}) {
    RigidTransform X_WA, X_WB;
    SpherePair(overlap, &X_WA, &X_WB);
    const Timing t = Time(sphere, X_WA, sphere, X_WB, repeats);
    std::printf("| %.0f | %d | %d | %.2f | %s |\n", 1e3 * overlap, t.polygons, t.candidates,
                t.us, t.us <= 50.0 ? "holds" : "fails");
  }

  std::printf("\n# Time against tets, overlap 0.2 R = %.0f mm\n\n", 1e3 * 0.2 * kRadius);
  std::printf("| hint [mm] | tets | plane: candidates | plane: polygons | plane: time [us] "
              "| soft-soft: candidate pairs | soft-soft: polygons | soft-soft: time [us] |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  const HydroelasticGeometry plane = RigidPlane();
  for (int level = 1; level <= 5; ++level) {
    // The hint whose level (SphereRefinementLevel) is `level`: 8 * 4^level tets.
    const double hint = 1.01 * 2 * kRadius * std::sin(3.14159265358979 / std::pow(2.0, level + 2));
    const HydroelasticGeometry s = Sphere(hint);
    const RigidTransform X_WS{csim::math::RotationFromRpy(Vector3d(0.1, 0.2, 0.3)),
                              Vector3d(0, 0, 0.8 * kRadius)};
    const Timing p = Time(s, X_WS, plane, RigidTransform(), repeats);
    RigidTransform X_WA, X_WB;
    SpherePair(0.2 * kRadius, &X_WA, &X_WB);
    const Timing q = Time(s, X_WA, s, X_WB, repeats);
    std::printf("| %.1f | %zu | %d | %d | %.2f | %d | %d | %.2f |\n", 1e3 * hint,
                s.field.mesh.tets.size(), p.candidates, p.polygons, p.us, q.candidates,
                q.polygons, q.us);
  }
  return 0;
}
