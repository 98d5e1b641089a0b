#pragma once
// A compliant half-space (docs/design/hydroelastic.md §1, last rows of the table): an elastic
// foundation of thickness H under the plane z = 0 of its geometry frame, with the linear field
//   p(x) = (E / H) * depth = -(E / H) * z,
// unbounded and without a mesh. Its margin delta moves the region's boundary out to
// z = delta while p = 0 stays on z = 0, so the skirt 0 < z <= delta has p < 0 (§1 "Margin").

namespace csim::hydroelastic {

/// The field and extent of a compliant half-space, in its geometry frame H: the region is
/// z <= margin and p = -(modulus / slab_thickness) * z there.
struct CompliantHalfspace {
  double modulus = 0.0;         ///< E [Pa]
  double slab_thickness = 0.0;  ///< H [m], > 0
  double margin = 0.0;          ///< delta [m], >= 0

  /// |grad p| = E / H [Pa/m]; the gradient is -E/H times the plane's outward normal +z.
  double PressurePerDepth() const { return modulus / slab_thickness; }
};

}  // namespace csim::hydroelastic
