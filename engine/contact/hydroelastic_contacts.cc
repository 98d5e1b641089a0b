#include "engine/contact/hydroelastic_contacts.h"

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "engine/contact/collision_setup.h"

namespace csim::contact {
namespace {

// A polygon smaller than this carries no force worth a constraint [m^2] (round-off slivers
// of the clipping).
constexpr double kMinArea = 1e-14;
// A side whose slope along the normal is below this fraction of its gradient's norm is cut
// parallel to its field (the side faces of a box or a cylinder sliced by a plane): its
// linearization phi0 = -p0 / g would put the polygon metres away; the face is skipped, and
// the pressure it carried is lost (docs/design/hydroelastic.md §4).
constexpr double kMinRelativeSlope = 1e-6;

// (A rigid side's slope and norm are both infinite: never negligible.)
bool Negligible(double g, double norm) {
  if (std::isinf(g)) return false;
  return !(g > kMinRelativeSlope * norm) || !(g > 0.0);
}

// The dissipation of two springs of slopes g_a, g_b in series, d_a and d_b their own
// (an infinite slope, a rigid side, leaves the other side's value).
double SeriesDissipation(double g_a, double d_a, double g_b, double d_b) {
  if (std::isinf(g_a) && std::isinf(g_b)) return 0.5 * (d_a + d_b);
  if (std::isinf(g_a)) return d_b;
  if (std::isinf(g_b)) return d_a;
  return (g_b * d_a + g_a * d_b) / (g_a + g_b);
}

// SeriesDissipation's derivatives in d_a and d_b: the weights of the two sides' values.
std::pair<double, double> SeriesDissipationWeights(double g_a, double g_b) {
  if (std::isinf(g_a) && std::isinf(g_b)) return {0.5, 0.5};
  if (std::isinf(g_a)) return {0.0, 1.0};
  if (std::isinf(g_b)) return {1.0, 0.0};
  return {g_b / (g_a + g_b), g_a / (g_a + g_b)};
}

}  // namespace

HydroelasticContacts::HydroelasticContacts(const multibody::Model& model,
                                           const std::vector<geometry::Material>& spec_material)
    : spec_material_(spec_material) {
  for (const geometry::CollisionObjectSpec& spec : MakeCollisionSpecs(model)) {
    const hydroelastic::HydroelasticGeometry* g =
        spec.geometry.collide ? spec.geometry.hydroelastic_mesh.get() : nullptr;
    spec_geometry_.push_back(g);
    if (g != nullptr) empty_ = false;
  }
}

void HydroelasticContacts::Calc(const geometry::CollisionWorld& world,
                                const ContactParameters& parameters) {
  contacts_.clear();
  polygon_contacts_.clear();
  surfaces_.clear();
  vertices_.clear();
  vertex_pressure_.clear();
  for (const geometry::GeometryPair& pair : world.hydroelastic_pairs()) {
    const hydroelastic::HydroelasticGeometry* a = spec_geometry_[pair.geometry_a];
    const hydroelastic::HydroelasticGeometry* b = spec_geometry_[pair.geometry_b];
    if (a == nullptr || b == nullptr) continue;
    hydroelastic::CalcContactSurface(*a, world.geometry_pose(pair.geometry_a), *b,
                                     world.geometry_pose(pair.geometry_b), &scratch_, &surface_);
    if (parameters.contact_surface == ContactSurfaceKind::kTriangle) {
      hydroelastic::SplitIntoTriangles(surface_, &triangles_);
      surface_.polygons.swap(triangles_.polygons);
      surface_.vertices.swap(triangles_.vertices);
      surface_.vertex_pressure.swap(triangles_.vertex_pressure);
    }
    AppendSurface(pair, parameters);
  }
}

void HydroelasticContacts::AppendSurface(const geometry::GeometryPair& pair,
                                         const ContactParameters& parameters) {
  const geometry::Material& m_a = spec_material_[pair.geometry_a];
  const geometry::Material& m_b = spec_material_[pair.geometry_b];
  const double friction = CombineMaterials(m_a, m_b).friction;
  SurfaceRecord record;
  record.geometry_a = pair.geometry_a;
  record.geometry_b = pair.geometry_b;
  record.body_a = pair.body_a;
  record.body_b = pair.body_b;
  record.first_contact = static_cast<int>(contacts_.size());
  double total_stiffness = 0.0;  // K [N/m] of the kept polygons
  for (const hydroelastic::ContactPolygon& f : surface_.polygons) {
    if (!(f.area > kMinArea) || Negligible(f.gradient_a, f.gradient_norm_a) ||
        Negligible(f.gradient_b, f.gradient_norm_b))
      continue;
    const double g = std::isinf(f.gradient_a)   ? f.gradient_b
                     : std::isinf(f.gradient_b) ? f.gradient_a
                                                : 1.0 / (1.0 / f.gradient_a + 1.0 / f.gradient_b);
    geometry::PointContact c;
    c.geometry_a = pair.geometry_a;
    c.geometry_b = pair.geometry_b;
    c.body_a = pair.body_a;
    c.body_b = pair.body_b;
    c.p_WC = f.centroid;
    c.nhat_AB_W = f.normal;
    c.phi0 = -f.pressure / g;
    contacts_.push_back(c);
    PolygonContact p;
    p.material.stiffness = f.area * g;
    p.material.friction = friction;
    p.material.dissipation_time = SeriesDissipation(f.gradient_a, m_a.dissipation_time,
                                                    f.gradient_b, m_b.dissipation_time);
    p.material.hunt_crossley =
        SeriesDissipation(f.gradient_a, m_a.hunt_crossley, f.gradient_b, m_b.hunt_crossley);
    std::tie(p.dissipation_weight_a, p.dissipation_weight_b) =
        SeriesDissipationWeights(f.gradient_a, f.gradient_b);
    p.near_rigid_threshold = parameters.near_rigid_threshold;
    p.surface = static_cast<int>(surfaces_.size());
    p.area = f.area;
    p.first_vertex = static_cast<int>(vertices_.size());
    p.num_vertices = f.num_vertices;
    vertices_.insert(vertices_.end(), surface_.vertices.begin() + f.first_vertex,
                     surface_.vertices.begin() + f.first_vertex + f.num_vertices);
    vertex_pressure_.insert(vertex_pressure_.end(),
                            surface_.vertex_pressure.begin() + f.first_vertex,
                            surface_.vertex_pressure.begin() + f.first_vertex + f.num_vertices);
    polygon_contacts_.push_back(p);
    total_stiffness += p.material.stiffness;
  }
  record.num_contacts = static_cast<int>(contacts_.size()) - record.first_contact;
  if (record.num_contacts == 0) return;  // every face skipped: no surface to report
  for (int k = record.first_contact; k < record.first_contact + record.num_contacts; ++k) {
    PolygonContact& p = polygon_contacts_[k];
    p.near_rigid_threshold *= std::sqrt(total_stiffness / p.material.stiffness);
  }
  surfaces_.push_back(record);
}

}  // namespace csim::contact
