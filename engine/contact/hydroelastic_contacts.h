#pragma once
// Hydroelastic contact surfaces as the step's point contacts (docs/design/hydroelastic.md §4):
// every polygon of a surface becomes one compliant point contact at its area centroid, with
// the pressure field linearized there, so that the SAP (or Hunt & Crossley) constraint of a
// point contact reproduces the patch's force and its tangent stiffness:
//   phi0 = -p0 / g,   k = A g,   k (-phi0) = A p0,   g = 1 / (1 / g_a + 1 / g_b)
// with p0 the pressure at the centroid and g_a, g_b the fields' slopes along the normal into
// each body (hydroelastic/contact_surface.h). The polygon's materials combine as point
// contact's (friction by the harmonic mean), except the dissipation, weighted by the two
// sides' slopes like two springs in series: d = (g_b d_a + g_a d_b) / (g_a + g_b), the soft
// side's value against a rigid body (and likewise tau_d).
//
// Near-rigid rule per patch: each polygon's near-rigid floor is raised by the share of the
// patch's stiffness it does not carry, beta_k = beta sqrt(K / k), K the sum over the surface.
// The floor R_k >= beta_k^2 w / (4 pi^2) then holds for the patch as a whole (the polygons
// act in parallel: 1 / R = sum 1 / R_k <= 4 pi^2 / (beta^2 w)), so a finely cut, very stiff
// patch is softened exactly as one point of stiffness K would be, and every polygon reaches
// its floor at the same K, which keeps the centre of pressure.
//
// Built once per run from the model's hydroelastic geometry (the loader's); allocation free
// once warmed up.

#include <vector>

#include <Eigen/Dense>

#include "engine/contact/contact_parameters.h"
#include "engine/contact/material_combination.h"
#include "engine/geometry/collision_world.h"
#include "engine/geometry/point_contact.h"
#include "engine/hydroelastic/contact_surface.h"
#include "engine/hydroelastic/hydroelastic_geometry.h"
#include "engine/multibody/model.h"

namespace csim::contact {

/// One polygon's contact parameters: what replaces the pair's combined materials.
struct PolygonContact {
  CombinedMaterial material;          ///< stiffness k = A g [N/m]; tau_d, d, mu as above
  double near_rigid_threshold = 0.0;  ///< beta_k [1], see the top of this file
  /// d tau_d / d tau_d,a and d tau_d / d tau_d,b of the series dissipation (the same for d):
  /// the weights g_b / (g_a + g_b), g_a / (g_a + g_b) of the sides' own values [1] (a rigid
  /// side 0, the other 1; both rigid 1/2 each). For a material's dissipation column
  /// (integrator/trajectory_sensitivity.h).
  double dissipation_weight_a = 0.5, dissipation_weight_b = 0.5;
  int surface = -1;                   ///< index into HydroelasticContacts::surfaces()
  double area = 0.0;                  ///< of the polygon [m^2]
  /// Its vertices: HydroelasticContacts::vertices()[first_vertex, + num_vertices), >= 3,
  /// counter-clockwise about the contact's normal (from A into B).
  int first_vertex = 0;
  int num_vertices = 0;
};

/// One contact surface of the last Calc: which polygons are its contacts. Its area,
/// centroid and force are summed from the step's contact reports (sim/simulate.cc).
struct SurfaceRecord {
  int geometry_a = -1, geometry_b = -1;  ///< spec indices, geometry_a < geometry_b
  int body_a = -1, body_b = -1;          ///< -1 for the world
  int first_contact = 0;                 ///< its polygons' contacts: [first, first + count)
  int num_contacts = 0;                  ///< of Calc's contacts(), >= 1
};

class HydroelasticContacts {
 public:
  HydroelasticContacts() = default;  ///< no hydroelastic geometry
  /// The hydroelastic geometry of the model's collision specs (contact::MakeCollisionSpecs
  /// order) and their materials.
  HydroelasticContacts(const multibody::Model& model,
                       const std::vector<geometry::Material>& spec_material);

  /// Whether the model has any hydroelastic geometry.
  bool empty() const { return empty_; }

  /// The contact surfaces of world.hydroelastic_pairs() at the world's poses, as point
  /// contacts (sorted by geometry pair, as the world's) with their parameters.
  void Calc(const geometry::CollisionWorld& world, const ContactParameters& parameters);

  const std::vector<geometry::PointContact>& contacts() const { return contacts_; }
  const std::vector<PolygonContact>& polygon_contacts() const { return polygon_contacts_; }
  const std::vector<SurfaceRecord>& surfaces() const { return surfaces_; }
  /// The kept polygons' vertices, world [m], polygon after polygon (PolygonContact::
  /// first_vertex), and the pressure there [Pa]: the polygon's own linear field, the one
  /// whose value at the centroid is p0 (hydroelastic::ContactSurface::vertex_pressure).
  const std::vector<Eigen::Vector3d>& vertices() const { return vertices_; }
  const std::vector<double>& vertex_pressure() const { return vertex_pressure_; }

 private:
  // Appends surface_'s kept polygons for `pair`.
  void AppendSurface(const geometry::GeometryPair& pair, const ContactParameters& parameters);

  bool empty_ = true;
  std::vector<const hydroelastic::HydroelasticGeometry*> spec_geometry_;  ///< null: none
  std::vector<geometry::Material> spec_material_;
  hydroelastic::ContactSurfaceScratch scratch_;
  hydroelastic::ContactSurface surface_, triangles_;
  std::vector<geometry::PointContact> contacts_;
  std::vector<PolygonContact> polygon_contacts_;
  std::vector<SurfaceRecord> surfaces_;
  std::vector<Eigen::Vector3d> vertices_;
  std::vector<double> vertex_pressure_;
};

}  // namespace csim::contact
