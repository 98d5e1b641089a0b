#include "engine/contact/material_combination.h"

#include <cmath>

namespace csim::contact {
namespace {

// Stiffness-weighted average (k2 x1 + k1 x2) / (k1 + k2), taken to its limits when one
// or both stiffnesses are infinite.
double WeightByStiffness(double k1, double x1, double k2, double x2) {
  const bool inf1 = std::isinf(k1), inf2 = std::isinf(k2);
  if (inf1 && inf2) return 0.5 * (x1 + x2);
  if (inf1) return x2;
  if (inf2) return x1;
  if (k1 + k2 == 0.0) return 0.5 * (x1 + x2);
  return (k2 * x1 + k1 * x2) / (k1 + k2);
}

double SeriesStiffness(double k1, double k2) {
  if (std::isinf(k1)) return k2;
  if (std::isinf(k2)) return k1;
  return k1 * k2 / (k1 + k2);
}

}  // namespace

CombinedMaterial CombineMaterials(const geometry::Material& a, const geometry::Material& b) {
  CombinedMaterial c;
  c.stiffness = SeriesStiffness(a.stiffness, b.stiffness);
  c.dissipation_time = WeightByStiffness(a.stiffness, a.dissipation_time, b.stiffness, b.dissipation_time);
  c.hunt_crossley = WeightByStiffness(a.stiffness, a.hunt_crossley, b.stiffness, b.hunt_crossley);
  const double sum = a.friction + b.friction;
  c.friction = sum > 0 ? 2 * a.friction * b.friction / sum : 0.0;
  return c;
}

double CombinedMaterialDerivative(const geometry::Material& a, const geometry::Material& b,
                                  MaterialParameter parameter) {
  if (parameter == MaterialParameter::kFriction) {
    const double sum = a.friction + b.friction;
    return sum > 0 ? 2 * b.friction * b.friction / (sum * sum) : 0.0;
  }
  // d/dx1 of WeightByStiffness(k1, x1, k2, x2), branch by branch.
  const double k1 = a.stiffness, k2 = b.stiffness;
  const bool inf1 = std::isinf(k1), inf2 = std::isinf(k2);
  if (inf1 && inf2) return 0.5;
  if (inf1) return 0.0;
  if (inf2) return 1.0;
  if (k1 + k2 == 0.0) return 0.5;
  return k2 / (k1 + k2);
}

CombinedStiffnessDerivative CombinedStiffnessDerivativeOf(const geometry::Material& a,
                                                          const geometry::Material& b) {
  const double k1 = a.stiffness, k2 = b.stiffness;
  if (std::isinf(k2)) return {1.0, 0.0, 0.0};  // k = k1, x = x1: the weights do not move
  const double s = k1 + k2, w = k2 / (s * s);
  return {k2 * w, w * (b.dissipation_time - a.dissipation_time),
          w * (b.hunt_crossley - a.hunt_crossley)};
}

}  // namespace csim::contact
