#pragma once
// Independent checks of a tetrahedral pressure-field mesh, shared by the hydroelastic mesh
// tests: face use counts, the boundary's enclosed volume, and the field's value at a point
// found by barycentric coordinates (not through the field's own gradient and offset).

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include "engine/hydroelastic/volume_mesh.h"

namespace csim::hydroelastic::test {

/// What the faces of a tet mesh say about it.
struct FaceCheck {
  int overused_faces = 0;       ///< faces used by more than 2 tets (must be 0)
  int bad_boundary_edges = 0;   ///< boundary edges not shared by exactly 2 boundary faces
  int boundary_faces = 0;
  std::vector<bool> on_boundary;  ///< per vertex
  double enclosed_volume = 0.0;   ///< divergence theorem over the boundary faces [m^3]
};

inline FaceCheck CheckFaces(const VolumeMesh& mesh) {
  FaceCheck out;
  struct Use {
    int count = 0;
    std::array<int, 3> face;  // wound away from the tet's 4th vertex
  };
  std::map<std::array<int, 3>, Use> faces;
  for (const auto& t : mesh.tets)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f;
      for (int i = 0, k = 0; i < 4; ++i)
        if (i != skip) f[k++] = t[i];
      // Orient f away from the skipped vertex, whatever the tet's own orientation.
      const auto& x = mesh.vertices;
      if ((x[f[1]] - x[f[0]]).cross(x[f[2]] - x[f[0]]).dot(x[t[skip]] - x[f[0]]) > 0)
        std::swap(f[1], f[2]);
      std::array<int, 3> key = f;
      std::sort(key.begin(), key.end());
      Use& use = faces[key];
      if (use.count++ == 0) use.face = f;
    }
  out.on_boundary.assign(mesh.vertices.size(), false);
  std::map<std::pair<int, int>, int> edges;
  for (const auto& [key, use] : faces) {
    if (use.count > 2) ++out.overused_faces;
    if (use.count != 1) continue;
    ++out.boundary_faces;
    const auto& f = use.face;
    const auto& x = mesh.vertices;
    out.enclosed_volume += x[f[0]].dot(x[f[1]].cross(x[f[2]])) / 6.0;
    for (int e = 0; e < 3; ++e) {
      out.on_boundary[f[e]] = true;
      ++edges[{std::min(f[e], f[(e + 1) % 3]), std::max(f[e], f[(e + 1) % 3])}];
    }
  }
  for (const auto& [e, n] : edges)
    if (n != 2) ++out.bad_boundary_edges;
  return out;
}

/// Smallest tet volume and the sum of all [m^3].
inline std::pair<double, double> TetVolumes(const VolumeMesh& mesh) {
  double smallest = std::numeric_limits<double>::infinity(), sum = 0.0;
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const auto& v = mesh.tets[t];
    const auto& x = mesh.vertices;
    const double volume = (x[v[1]] - x[v[0]]).cross(x[v[2]] - x[v[0]]).dot(x[v[3]] - x[v[0]]) / 6;
    smallest = std::min(smallest, volume);
    sum += volume;
  }
  return {smallest, sum};
}

/// The field at p by barycentric interpolation of the vertex pressures in a tet containing p
/// (NaN when none does). Also checks, through `consistent`, that the tet's gradient and offset
/// give the same value.
inline double FieldAt(const PressureField& field, const Eigen::Vector3d& p,
                      bool* consistent = nullptr) {
  const auto& x = field.mesh.vertices;
  for (int t = 0; t < static_cast<int>(field.mesh.tets.size()); ++t) {
    const auto& v = field.mesh.tets[t];
    Eigen::Matrix3d D;
    for (int i = 0; i < 3; ++i) D.col(i) = x[v[i + 1]] - x[v[0]];
    const Eigen::Vector3d b = D.partialPivLu().solve(p - x[v[0]]);
    const double b0 = 1.0 - b.sum();
    const double tol = -1e-12;
    if (b0 < tol || b.minCoeff() < tol) continue;
    const double value = b0 * field.pressure[v[0]] + b[0] * field.pressure[v[1]] +
                         b[1] * field.pressure[v[2]] + b[2] * field.pressure[v[3]];
    if (consistent != nullptr) {
      const double linear = field.gradient[t].dot(p) + field.offset[t];
      *consistent = std::abs(linear - value) <= 1e-9 * (std::abs(field.modulus) + 1.0);
    }
    return value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

/// Positive tets, no face of 3 tets, a closed boundary, tets summing to the volume the
/// boundary encloses (so they do not overlap), gradients filled, the modulus recorded.
inline void CheckWellFormed(const PressureField& field, double modulus) {
  const auto [smallest, sum] = TetVolumes(field.mesh);
  CHECK(smallest > 0.0);
  const FaceCheck faces = CheckFaces(field.mesh);
  CHECK(faces.overused_faces == 0);
  CHECK(faces.bad_boundary_edges == 0);
  CHECK(faces.enclosed_volume == Approx(sum).epsilon(1e-12));
  CHECK(field.gradient.size() == field.mesh.tets.size());
  CHECK(field.pressure.size() == field.mesh.vertices.size());
  CHECK(field.modulus == modulus);
}

}  // namespace csim::hydroelastic::test
