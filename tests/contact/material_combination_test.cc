// Material combination rules of scene-format.md: two springs in series, dissipation
// weighted so that the series dashpot-spring pair is reproduced, harmonic-mean friction.

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/contact/material_combination.h"

namespace csim::contact {
namespace {

geometry::Material Make(double k, double tau, double d, double mu) {
  geometry::Material m;
  m.stiffness = k;
  m.dissipation_time = tau;
  m.hunt_crossley = d;
  m.friction = mu;
  return m;
}

TEST_CASE("two finite materials combine in series", "[contact][material]") {
  const CombinedMaterial c = CombineMaterials(Make(1e6, 1e-3, 10, 0.8), Make(3e6, 5e-3, 30, 0.4));
  // Series springs: the force through both equals k x with x the total compression.
  const double F = 7.0, x = F / 1e6 + F / 3e6;
  CHECK(c.stiffness * x == Approx(F).epsilon(1e-14));
  CHECK(c.dissipation_time == Approx((3e6 * 1e-3 + 1e6 * 5e-3) / 4e6));
  CHECK(c.hunt_crossley == Approx((3e6 * 10 + 1e6 * 30) / 4e6));
  CHECK(c.friction == Approx(2 * 0.8 * 0.4 / 1.2));
  // Symmetric in its arguments.
  const CombinedMaterial s = CombineMaterials(Make(3e6, 5e-3, 30, 0.4), Make(1e6, 1e-3, 10, 0.8));
  CHECK(s.stiffness == c.stiffness);
  CHECK(s.dissipation_time == c.dissipation_time);
  CHECK(s.friction == c.friction);
}

TEST_CASE("an infinite stiffness takes the other side's values", "[contact][material]") {
  const CombinedMaterial c = CombineMaterials(Make(INFINITY, 0.0, 0.0, 1.0), Make(1e5, 2e-3, 20, 1.0));
  CHECK(c.stiffness == 1e5);
  CHECK(c.dissipation_time == 2e-3);
  CHECK(c.hunt_crossley == 20);
  CHECK(c.friction == 1.0);
  // The finite formula tends to the same limit: the rule is continuous.
  const CombinedMaterial near = CombineMaterials(Make(1e15, 0.0, 0.0, 1.0), Make(1e5, 2e-3, 20, 1.0));
  CHECK(near.stiffness == Approx(1e5).epsilon(1e-9));
  CHECK(near.dissipation_time == Approx(2e-3).epsilon(1e-9));
  const CombinedMaterial rigid = CombineMaterials(Make(INFINITY, 1e-3, 0, 0.5), Make(INFINITY, 3e-3, 0, 0.5));
  CHECK(std::isinf(rigid.stiffness));
  CHECK(rigid.dissipation_time == Approx(2e-3));
}

TEST_CASE("frictionless materials give zero friction", "[contact][material]") {
  CHECK(CombineMaterials(Make(1e5, 0, 0, 0.0), Make(1e5, 0, 0, 0.0)).friction == 0.0);
  CHECK(CombineMaterials(Make(1e5, 0, 0, 0.0), Make(1e5, 0, 0, 1.0)).friction == 0.0);
}

TEST_CASE("the combination's derivatives in a material's friction and dissipations match "
          "central differences", "[contact][material][sensitivity]") {
  const double h = 1e-6;
  for (const double k_b : {3e6, 1e6, static_cast<double>(INFINITY)})
  for (const double k_a : {1e6, static_cast<double>(INFINITY)}) {
    INFO("k_a " << k_a << ", k_b " << k_b);
    const geometry::Material a = Make(k_a, 1e-3, 10, 0.8), b = Make(k_b, 5e-3, 30, 0.4);
    for (const MaterialParameter p : {MaterialParameter::kFriction,
                                      MaterialParameter::kDissipationTime,
                                      MaterialParameter::kHuntCrossley}) {
      geometry::Material plus = a, minus = a;
      const auto field = [p](geometry::Material& m) -> double& {
        return p == MaterialParameter::kFriction          ? m.friction
               : p == MaterialParameter::kDissipationTime ? m.dissipation_time
                                                          : m.hunt_crossley;
      };
      const auto combined = [p](const CombinedMaterial& c) {
        return p == MaterialParameter::kFriction          ? c.friction
               : p == MaterialParameter::kDissipationTime ? c.dissipation_time
                                                          : c.hunt_crossley;
      };
      const double step = h * field(plus);
      field(plus) += step;
      field(minus) -= step;
      const double fd =
          (combined(CombineMaterials(plus, b)) - combined(CombineMaterials(minus, b))) / (2 * step);
      CHECK(CombinedMaterialDerivative(a, b, p) == Approx(fd).epsilon(1e-8).margin(1e-10));
    }
  }
}

TEST_CASE("the combination's derivatives in a material's stiffness match central differences",
          "[contact][material][sensitivity]") {
  // The combined k, tau_d and d as functions of k_a alone (both weights move), finite and
  // rigid other sides, and a contact of one material with itself (both sides move: the sum of
  // the two sides' derivatives).
  const double h = 1e-6;
  for (const double k_b : {3e6, 1e6, static_cast<double>(INFINITY)}) {
    INFO("k_b " << k_b);
    const geometry::Material a = Make(1e6, 1e-3, 10, 0.8), b = Make(k_b, 5e-3, 30, 0.4);
    geometry::Material plus = a, minus = a;
    const double step = h * a.stiffness;
    plus.stiffness += step;
    minus.stiffness -= step;
    const CombinedMaterial cp = CombineMaterials(plus, b), cm = CombineMaterials(minus, b);
    const CombinedStiffnessDerivative d = CombinedStiffnessDerivativeOf(a, b);
    CHECK(d.stiffness == Approx((cp.stiffness - cm.stiffness) / (2 * step)).epsilon(1e-8));
    CHECK(d.dissipation_time ==
          Approx((cp.dissipation_time - cm.dissipation_time) / (2 * step)).margin(1e-17));
    CHECK(d.hunt_crossley ==
          Approx((cp.hunt_crossley - cm.hunt_crossley) / (2 * step)).epsilon(1e-7).margin(1e-15));
    if (std::isinf(k_b)) {  // a rigid side: k = k_a, the dissipations the finite side's
      CHECK(d.stiffness == 1.0);
      CHECK(d.dissipation_time == 0.0);
      CHECK(d.hunt_crossley == 0.0);
    }
  }
  // One material on both sides: k = k_m / 2, the dissipations k_m's own.
  const geometry::Material m = Make(2e5, 1e-3, 10, 0.5);
  const CombinedStiffnessDerivative d = CombinedStiffnessDerivativeOf(m, m);
  CHECK(2 * d.stiffness == Approx(0.5).epsilon(1e-15));
  CHECK(d.dissipation_time == 0.0);
  CHECK(d.hunt_crossley == 0.0);
}

}  // namespace
}  // namespace csim::contact
