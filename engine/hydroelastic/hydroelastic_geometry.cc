#include "engine/hydroelastic/hydroelastic_geometry.h"

#include <algorithm>
#include <utility>

#include "engine/common/check.h"
#include "engine/hydroelastic/compliant_meshes.h"
#include "engine/hydroelastic/field_intersection.h"
#include "engine/hydroelastic/mesh_intersection.h"
#include "engine/hydroelastic/plane_intersection.h"
#include "engine/hydroelastic/rigid_surfaces.h"
#include "engine/hydroelastic/vtk_volume_file.h"

namespace csim::hydroelastic {

using geometry::Compliance;
using geometry::ShapeType;

namespace {

/// The rank of a geometry as body A of the surface computations (header, "Dispatch"): the
/// computation of a pair takes the lower rank first.
int DispatchRank(const HydroelasticGeometry& g) {
  if (g.IsCompliantMesh()) return 0;
  if (g.IsCompliantHalfspace()) return 1;
  return 2;  // rigid mesh or rigid half-space
}

/// Turns the polygons of `surface` from index `first` on into those of the swapped pair:
/// each normal flipped, its vertices (and their pressures) in reverse order so that they wind
/// counter-clockwise about the new normal, g_a and g_b (and the gradient norms) exchanged.
/// Area, centroid and pressures are those of the same set, unchanged.
void MirrorPolygons(int first, ContactSurface* surface) {
  for (int i = first; i < static_cast<int>(surface->polygons.size()); ++i) {
    ContactPolygon& p = surface->polygons[i];
    p.normal = -p.normal;
    std::swap(p.gradient_a, p.gradient_b);
    std::swap(p.gradient_norm_a, p.gradient_norm_b);
    std::reverse(surface->vertices.begin() + p.first_vertex,
                 surface->vertices.begin() + p.first_vertex + p.num_vertices);
    std::reverse(surface->vertex_pressure.begin() + p.first_vertex,
                 surface->vertex_pressure.begin() + p.first_vertex + p.num_vertices);
  }
}

/// Appends the surface of the pair (A, B) with A of the lower DispatchRank (not both rigid,
/// not two half-spaces): normals from A into B.
void AppendOrderedSurface(const HydroelasticGeometry& A, const math::RigidTransform& X_WA,
                          const HydroelasticGeometry& B, const math::RigidTransform& X_WB,
                          ContactSurfaceScratch* scratch, ContactSurface* out) {
  BvhCandidates* candidates = &scratch->candidates;
  if (A.IsCompliantMesh()) {
    if (B.IsCompliantMesh()) {
      AppendSoftSoftSurface(A.field, A.bvh, X_WA, B.field, B.bvh, X_WB, candidates,
                            &scratch->placed_tets, out);
    } else if (B.IsCompliantHalfspace()) {
      AppendSoftCompliantHalfspaceSurface(A.field, A.bvh, X_WA, B.halfspace, X_WB, candidates,
                                          out);
    } else if (B.IsRigidMesh()) {
      AppendSoftRigidMeshSurface(A.field, A.bvh, X_WA, B.surface, B.bvh, X_WB, candidates, out);
    } else {
      CSIM_CHECK(B.IsRigidHalfspace());
      AppendSoftRigidHalfspaceSurface(A.field, A.bvh, X_WA, X_WB, candidates, out);
    }
    return;
  }
  // A compliant half-space against a rigid mesh is the only other computable pair.
  CSIM_CHECK(A.IsCompliantHalfspace() && B.IsRigidMesh());
  AppendCompliantHalfspaceRigidMeshSurface(A.halfspace, X_WA, B.surface, B.bvh, X_WB,
                                           candidates, out);
}

bool IsCurved(ShapeType type) {
  return type == ShapeType::kSphere || type == ShapeType::kEllipsoid ||
         type == ShapeType::kCylinder || type == ShapeType::kCapsule;
}

}  // namespace

bool MakeHydroelasticGeometry(const geometry::Geometry& g, double modulus,
                              HydroelasticGeometry* out, std::string* error) {
  *out = HydroelasticGeometry();
  const geometry::HydroelasticProperties& h = g.hydroelastic;
  out->compliance = h.compliance;
  out->is_halfspace = g.type == ShapeType::kHalfspace;
  if (h.compliance == Compliance::kNone) return true;
  // The loader validates these keys (engine/io); checked again here because the meshers treat a
  // zero hint or thickness as a bug.
  if (IsCurved(g.type) && !(h.resolution_hint > 0.0)) {
    *error = std::string("a hydroelastic ") + geometry::ShapeTypeName(g.type) +
             " needs a positive resolution_hint";
    return false;
  }
  if (h.compliance == Compliance::kRigid) {
    if (out->is_halfspace) return true;  // the exact plane z_G = 0
    if (!MakeRigidSurface(g, h.resolution_hint, &out->surface, error)) return false;
    out->bvh = BuildBvh(out->surface);
    return true;
  }
  if (!(modulus > 0.0)) {
    *error = "a compliant geometry needs a positive hydroelastic_modulus";
    return false;
  }
  if (!(h.margin >= 0.0)) {
    *error = "a compliant geometry's margin must be >= 0";
    return false;
  }
  if (out->is_halfspace) {
    if (!(h.slab_thickness > 0.0)) {
      *error = "a compliant halfspace needs a positive slab_thickness";
      return false;
    }
    out->halfspace = CompliantHalfspace{modulus, h.slab_thickness, h.margin};
    return true;
  }
  if (!MakeCompliantField(g, modulus, h.resolution_hint, h.margin, &out->field, error))
    return false;
  out->bvh = BuildBvh(out->field.mesh);
  return true;
}

bool MakeHydroelasticGeometryFromVolume(const VolumeMesh& mesh, double modulus, double margin,
                                        HydroelasticGeometry* out, std::string* error) {
  *out = HydroelasticGeometry();
  if (!(modulus > 0.0)) {
    *error = "a compliant geometry needs a positive hydroelastic_modulus";
    return false;
  }
  if (margin != 0.0) {
    *error = "margin is not supported for a tetrahedral volume mesh (only for primitives and "
             "convex meshes)";
    return false;
  }
  out->compliance = Compliance::kCompliant;
  out->field = MakeVolumeMeshField(mesh, modulus);
  out->bvh = BuildBvh(out->field.mesh);
  return true;
}

bool HasContactSurface(const HydroelasticGeometry& a, const HydroelasticGeometry& b) {
  return geometry::HasContactSurface(a.compliance, a.is_halfspace, b.compliance, b.is_halfspace);
}

void CalcContactSurface(const HydroelasticGeometry& a, const math::RigidTransform& X_WA,
                        const HydroelasticGeometry& b, const math::RigidTransform& X_WB,
                        ContactSurfaceScratch* scratch, ContactSurface* out) {
  CSIM_CHECK(HasContactSurface(a, b));
  out->Clear();
  if (DispatchRank(a) <= DispatchRank(b)) {
    AppendOrderedSurface(a, X_WA, b, X_WB, scratch, out);
  } else {
    AppendOrderedSurface(b, X_WB, a, X_WA, scratch, out);
    MirrorPolygons(0, out);
  }
}

void SplitIntoTriangles(const ContactSurface& in, ContactSurface* out) {
  CSIM_CHECK(&in != out);
  out->Clear();
  out->geometry_a = in.geometry_a;
  out->geometry_b = in.geometry_b;
  for (const ContactPolygon& polygon : in.polygons) {
    const Eigen::Vector3d& c = polygon.centroid;
    const double p_c = polygon.pressure;
    const int n = polygon.num_vertices;
    for (int i = 0; i < n; ++i) {
      const int i0 = polygon.first_vertex + i;
      const int i1 = polygon.first_vertex + (i + 1) % n;
      const Eigen::Vector3d& v0 = in.vertices[i0];
      const Eigen::Vector3d& v1 = in.vertices[i1];
      // Signed area about the polygon's normal: a fan about an interior point of a convex
      // polygon wound counter-clockwise gives positive areas, collinear vertices zero.
      const double area = 0.5 * (v0 - c).cross(v1 - c).dot(polygon.normal);
      if (!(area > 0.0)) continue;
      ContactPolygon t = polygon;
      t.first_vertex = static_cast<int>(out->vertices.size());
      t.num_vertices = 3;
      t.area = area;
      t.centroid = (c + v0 + v1) / 3.0;
      t.pressure = (p_c + in.vertex_pressure[i0] + in.vertex_pressure[i1]) / 3.0;
      out->vertices.push_back(c);
      out->vertices.push_back(v0);
      out->vertices.push_back(v1);
      out->vertex_pressure.push_back(p_c);
      out->vertex_pressure.push_back(in.vertex_pressure[i0]);
      out->vertex_pressure.push_back(in.vertex_pressure[i1]);
      out->polygons.push_back(t);
    }
  }
}

}  // namespace csim::hydroelastic
