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

/// A material parameter that enters the combination without the stiffness (the stiffness
/// also weights the dissipations: its derivative moves three combined values, see
/// CombinedStiffnessDerivativeOf).
enum class MaterialParameter { kFriction, kDissipationTime, kHuntCrossley };

/// The derivative of the combined `parameter` with respect to material a's `parameter` (b's:
/// swap the arguments), at fixed stiffnesses: friction 2 mu_b^2 / (mu_a + mu_b)^2 (0 when
/// both are 0); tau_d and d, k_b / (k_a + k_b), with CombineMaterials' limits (1 when only
/// k_b is infinite, 0 when only k_a is, 1/2 when both are or k_a + k_b = 0). [1]
double CombinedMaterialDerivative(const geometry::Material& a, const geometry::Material& b,
                                  MaterialParameter parameter);

/// The derivatives of the combined stiffness, dissipation time and Hunt & Crossley d with
/// respect to material a's stiffness k_a (b's: swap the arguments), the other values fixed.
/// Both finite: dk/dk_a = k_b^2 / (k_a + k_b)^2 and dx/dk_a = k_b (x_b - x_a) / (k_a + k_b)^2
/// for x = tau_d, d (the weights of CombineMaterials move); k_b infinite (a rigid side):
/// k = k_a and x = x_a, so 1 and 0. Precondition: 0 < k_a < infinity (an infinite stiffness
/// selects the near-rigid rule: it has no derivative).
struct CombinedStiffnessDerivative {
  double stiffness;         ///< dk / dk_a [1]
  double dissipation_time;  ///< d tau_d / dk_a [s per N/m]
  double hunt_crossley;     ///< d d / dk_a [s/m per N/m]
};
CombinedStiffnessDerivative CombinedStiffnessDerivativeOf(const geometry::Material& a,
                                                          const geometry::Material& b);

}  // namespace csim::contact
