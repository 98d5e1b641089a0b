#pragma once
// The contact surface of two hydroelastic geometries (docs/design/hydroelastic.md §2): the
// polygons where their pressures are equal (or, with a rigid body, its surface inside the
// soft one), in the world frame, with what the SAP mapping needs per polygon (§3).
//
// Convention, as point contact's (geometry/point_contact.h): the pair is (A, B) and every
// polygon's unit normal points from A into B (moving B along +n separates the pair).
// Pressure grows into each body, so A's field decreases along +n and B's increases:
//   g_a = -grad p_A . n >= 0,  g_b = grad p_B . n >= 0,  +inf for a rigid body.

#include <vector>

#include <Eigen/Dense>

namespace csim::hydroelastic {

/// One polygon of a contact surface.
struct ContactPolygon {
  int first_vertex = 0;   ///< its vertices are ContactSurface::vertices[first_vertex, +count)
  int num_vertices = 0;   ///< >= 3, counter-clockwise about `normal`
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();  ///< area centroid, world [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();   ///< unit, from A into B, world
  double area = 0.0;        ///< [m^2]
  double pressure = 0.0;    ///< p at the centroid [Pa] (p_A = p_B there)
  double gradient_a = 0.0;  ///< g_a [Pa/m], see above; +inf when A is rigid
  double gradient_b = 0.0;  ///< g_b [Pa/m]; +inf when B is rigid
  /// |grad p_A| and |grad p_B| [Pa/m] of the two fields where the polygon lies (+inf for a
  /// rigid body): the scale g_a and g_b are negligible against (docs/design/hydroelastic.md §3).
  double gradient_norm_a = 0.0;
  double gradient_norm_b = 0.0;
};

/// The polygons of one pair of geometries at one configuration.
struct ContactSurface {
  int geometry_a = -1;
  int geometry_b = -1;
  std::vector<Eigen::Vector3d> vertices;  ///< world [m]
  std::vector<double> vertex_pressure;    ///< [Pa], one per vertex
  std::vector<ContactPolygon> polygons;

  void Clear() {
    vertices.clear();
    vertex_pressure.clear();
    polygons.clear();
  }
};

}  // namespace csim::hydroelastic
