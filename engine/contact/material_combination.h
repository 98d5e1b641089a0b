#pragma once
// How two contact materials combine into the parameters of one contact
// (scene-format.md "materials"): stiffness in series, dissipation weighted by stiffness,
// friction by the harmonic mean.

#include "engine/geometry/shape.h"

namespace csim::contact {

/// The parameters of one contact pair, in the units of geometry::Material; no defaults of
/// its own (CombineMaterials sets every field from the two materials).
struct CombinedMaterial {
  double stiffness;         ///< k [N/m]; infinity: near-rigid
  double dissipation_time;  ///< tau_d [s]
  double hunt_crossley;     ///< d [s/m]
  double friction;          ///< mu [1]
};

/// k = k1 k2 / (k1 + k2) (an infinite stiffness takes the other's value);
/// d = (k2 d1 + k1 d2) / (k1 + k2) for both tau_d and Hunt & Crossley d (with one infinite
/// stiffness this is the finite side's value; with both infinite, the mean);
/// mu = 2 mu1 mu2 / (mu1 + mu2) (0 when both are 0).
CombinedMaterial CombineMaterials(const geometry::Material& a, const geometry::Material& b);

}  // namespace csim::contact
