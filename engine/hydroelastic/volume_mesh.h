#pragma once
// A compliant geometry's tetrahedral mesh and its pressure field (docs/design/hydroelastic.md
// §1): p = E * extent, stored by value at the vertices and linear inside each tet, so that
// its gradient is constant per tet. Built once by the loader, in the geometry frame, and
// never changed afterwards.

#include <array>
#include <vector>

#include <Eigen/Dense>

namespace csim::hydroelastic {

/// Tetrahedra over shared vertices, in the geometry frame. Every tet is positively oriented:
/// (v1 - v0) x (v2 - v0) . (v3 - v0) > 0.
struct VolumeMesh {
  std::vector<Eigen::Vector3d> vertices;  ///< [m]
  std::vector<std::array<int, 4>> tets;   ///< indices into vertices
};

/// A piecewise-linear pressure field on a VolumeMesh: p(x) = gradient[t] . x + offset[t]
/// inside tet t (geometry frame), equal to `pressure` at the tet's vertices.
struct PressureField {
  VolumeMesh mesh;
  std::vector<double> pressure;             ///< per vertex [Pa]; 0 on the surface, >= 0 inside
  std::vector<Eigen::Vector3d> gradient;    ///< per tet [Pa/m]
  std::vector<double> offset;               ///< per tet [Pa]
  double modulus = 0.0;                     ///< E [Pa]: the largest pressure is E
};

/// Fills field->gradient and field->offset from the mesh and the vertex pressures.
/// Returns false when some tet is degenerate (zero volume).
bool ComputeFieldGradients(PressureField* field);

/// Signed volume of tet t [m^3] (> 0 for a positively oriented tet).
double TetVolume(const VolumeMesh& mesh, int t);

}  // namespace csim::hydroelastic
