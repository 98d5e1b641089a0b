#pragma once
// Small meshes and fields for the hydroelastic tests, built here so that the tests do not
// depend on the primitive meshes of engine/hydroelastic/compliant_meshes.h:
//   - a box cut into a grid of cubes, each split into the 6 tets around its main diagonal
//     (the split is the same in every cube, so neighbouring tets share faces), with any
//     vertex pressure function;
//   - the coarse sphere of docs/design/hydroelastic.md §4 d (octahedron, centre vertex);
//   - one tet with a given linear field;
//   - a box's boundary as 12 outward triangles.

#include <array>
#include <functional>
#include <random>
#include <utility>

#include <Eigen/Dense>

#include "engine/common/check.h"
#include "engine/hydroelastic/surface_mesh.h"
#include "engine/hydroelastic/volume_mesh.h"
#include "engine/math/rotation.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic::test {

using Eigen::Vector3d;

/// Adds a tet, swapped to positive orientation if needed.
inline void AddPositiveTet(VolumeMesh* mesh, std::array<int, 4> tet) {
  const auto& x = mesh->vertices;
  const double six_volume =
      (x[tet[1]] - x[tet[0]]).cross(x[tet[2]] - x[tet[0]]).dot(x[tet[3]] - x[tet[0]]);
  if (six_volume < 0.0) std::swap(tet[2], tet[3]);
  mesh->tets.push_back(tet);
}

/// The box [-half, half] cut into cells.x * cells.y * cells.z cubes of 6 tets each.
inline VolumeMesh MakeBoxVolumeMesh(const Vector3d& half, const Eigen::Vector3i& cells) {
  VolumeMesh mesh;
  auto index = [&](int i, int j, int k) { return (i * (cells.y() + 1) + j) * (cells.z() + 1) + k; };
  for (int i = 0; i <= cells.x(); ++i) {
    for (int j = 0; j <= cells.y(); ++j) {
      for (int k = 0; k <= cells.z(); ++k) {
        const Vector3d s(double(i) / cells.x(), double(j) / cells.y(), double(k) / cells.z());
        mesh.vertices.push_back((2.0 * s.array() - 1.0).matrix().cwiseProduct(half));
      }
    }
  }
  // The 6 paths from corner 000 to 111 of a cube, one axis at a time.
  static constexpr int kAxisOrder[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                           {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int i = 0; i < cells.x(); ++i) {
    for (int j = 0; j < cells.y(); ++j) {
      for (int k = 0; k < cells.z(); ++k) {
        for (const auto& order : kAxisOrder) {
          std::array<int, 3> c = {i, j, k};
          std::array<int, 4> tet;
          tet[0] = index(c[0], c[1], c[2]);
          for (int step = 0; step < 3; ++step) {
            ++c[order[step]];
            tet[step + 1] = index(c[0], c[1], c[2]);
          }
          AddPositiveTet(&mesh, tet);
        }
      }
    }
  }
  return mesh;
}

/// A field on `mesh` with the given vertex pressures [Pa] and modulus E [Pa].
inline PressureField MakeField(VolumeMesh mesh, const std::function<double(const Vector3d&)>& p,
                               double modulus) {
  PressureField field;
  field.mesh = std::move(mesh);
  for (const Vector3d& x : field.mesh.vertices) field.pressure.push_back(p(x));
  field.modulus = modulus;
  CSIM_CHECK(ComputeFieldGradients(&field));
  return field;
}

/// A box of half sizes `half` with p = E * (distance to the boundary) / min(half) at the
/// vertices, linear in each tet: 0 on the boundary, E at the deepest vertices.
inline PressureField MakeBoxField(const Vector3d& half, const Eigen::Vector3i& cells, double E) {
  const double h = half.minCoeff();
  return MakeField(
      MakeBoxVolumeMesh(half, cells),
      [&](const Vector3d& x) { return E * (half - x.cwiseAbs()).minCoeff() / h; }, E);
}

/// The box mesh with interior vertices moved at random by up to `fraction` of a cell (the
/// boundary stays flat), and random pressures in [0, E] inside, 0 on the boundary: a field
/// without any symmetry.
inline PressureField MakeJitteredBoxField(const Vector3d& half, const Eigen::Vector3i& cells,
                                          double E, double fraction, unsigned seed) {
  VolumeMesh mesh = MakeBoxVolumeMesh(half, cells);
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Vector3d cell = 2.0 * half.cwiseQuotient(cells.cast<double>());
  std::vector<bool> interior(mesh.vertices.size());
  for (size_t v = 0; v < mesh.vertices.size(); ++v) {
    const Vector3d gap = half - mesh.vertices[v].cwiseAbs();
    interior[v] = gap.minCoeff() > 1e-9;
    if (interior[v]) {
      mesh.vertices[v] += fraction * Vector3d(u(engine), u(engine), u(engine)).cwiseProduct(cell);
    }
  }
  // Moving the vertices can turn a tet over when `fraction` is large; keep it small (< 0.2).
  for (size_t t = 0; t < mesh.tets.size(); ++t) CSIM_CHECK(TetVolume(mesh, int(t)) > 0.0);
  PressureField field;
  field.mesh = std::move(mesh);
  for (size_t v = 0; v < field.mesh.vertices.size(); ++v) {
    field.pressure.push_back(interior[v] ? E * 0.5 * (1.0 + u(engine)) : 0.0);
  }
  field.modulus = E;
  CSIM_CHECK(ComputeFieldGradients(&field));
  return field;
}

/// The coarse sphere of docs/design/hydroelastic.md §4 d: the octahedron with vertices
/// +-R e_i, split into 8 tets at the centre, p = E at the centre and 0 on the surface.
inline PressureField MakeOctahedronField(double R, double E) {
  VolumeMesh mesh;
  mesh.vertices = {Vector3d::Zero(), R * Vector3d::UnitX(), -R * Vector3d::UnitX(),
                   R * Vector3d::UnitY(), -R * Vector3d::UnitY(), R * Vector3d::UnitZ(),
                   -R * Vector3d::UnitZ()};
  for (int x : {1, 2}) {
    for (int y : {3, 4}) {
      for (int z : {5, 6}) AddPositiveTet(&mesh, {0, x, y, z});
    }
  }
  return MakeField(
      std::move(mesh), [&](const Vector3d& x) { return x.norm() < 1e-12 ? E : 0.0; }, E);
}

/// One tet with the linear field p = grad . x + offset.
inline PressureField MakeLinearTetField(const std::array<Vector3d, 4>& x, const Vector3d& grad,
                                        double offset) {
  VolumeMesh mesh;
  mesh.vertices.assign(x.begin(), x.end());
  AddPositiveTet(&mesh, {0, 1, 2, 3});
  return MakeField(
      std::move(mesh), [&](const Vector3d& y) { return grad.dot(y) + offset; }, 1.0);
}

/// The boundary of the box [-half, half]: 2 outward counter-clockwise triangles per face.
inline SurfaceMesh MakeBoxSurface(const Vector3d& half) {
  SurfaceMesh mesh;
  for (int c = 0; c < 8; ++c) {
    mesh.vertices.emplace_back((c & 1 ? 1 : -1) * half.x(), (c & 2 ? 1 : -1) * half.y(),
                               (c & 4 ? 1 : -1) * half.z());
  }
  // Each face's 4 corners in cyclic order; the winding is made outward below (the box is
  // convex about its centre, so outward means away from the origin).
  static constexpr int kFaces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                       {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : kFaces) {
    for (const Eigen::Vector3i& tri : {Eigen::Vector3i(f[0], f[1], f[2]),
                                      Eigen::Vector3i(f[0], f[2], f[3])}) {
      const auto& x = mesh.vertices;
      const Vector3d n = (x[tri[1]] - x[tri[0]]).cross(x[tri[2]] - x[tri[0]]);
      mesh.triangles.push_back(n.dot(x[tri[0]] + x[tri[1]] + x[tri[2]]) > 0.0
                                   ? tri
                                   : Eigen::Vector3i(tri[0], tri[2], tri[1]));
    }
  }
  CSIM_CHECK(ComputeTriangleNormals(&mesh));
  return mesh;
}

/// A random rotation and translation (translation in [-scale, scale]^3).
inline math::RigidTransform RandomPose(std::mt19937* engine, double scale) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Vector3d rpy(3.1 * u(*engine), 1.5 * u(*engine), 3.1 * u(*engine));
  return {math::RotationFromRpy(rpy), scale * Vector3d(u(*engine), u(*engine), u(*engine))};
}

}  // namespace csim::hydroelastic::test
