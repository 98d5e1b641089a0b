#pragma once
// One geometry's hydroelastic representation, and the contact surface of a pair of them
// (docs/design/hydroelastic.md §1, §2): the single entry point engine/contact calls, which
// hides which of the five surface computations a pair needs and in which order it wants them.
//
// Dispatch. Each computation has a fixed rule for its body A: a compliant mesh first, then a
// compliant half-space, then the rigid body (field_intersection.h, mesh_intersection.h,
// plane_intersection.h). CalcContactSurface(a, b) calls the computation with (a, b) when a
// ranks first, or with (b, a) and then mirrors the polygons it appended (normal flipped,
// winding reversed, g_a and g_b swapped), so that its output always follows contact_surface.h
// for the caller's order: normal from a into b, g_a belongs to a. Two compliant meshes rank
// equal and are passed in the caller's order; swapping them gives the same surface cut into
// polygons by the other body's tets first, equal up to round-off, not bit for bit.
//
// Alternatives rejected: a class hierarchy of geometry kinds (the pair table is a 3 x 3
// dispatch on two small enums, clearer as one switch), and storing a rigid half-space as a
// large box mesh (the plane computation is exact and needs no BVH).
//
// Pairs with no surface (HasContactSurface false): either side not hydroelastic, rigid against
// rigid, and half-space against half-space (compliant or not; notes §2 e). The caller keeps
// point contact for them.

#include <string>

#include "engine/geometry/shape.h"
#include "engine/hydroelastic/bvh.h"
#include "engine/hydroelastic/compliant_halfspace.h"
#include "engine/hydroelastic/contact_surface.h"
#include "engine/hydroelastic/field_intersection.h"
#include "engine/hydroelastic/surface_mesh.h"
#include "engine/hydroelastic/volume_mesh.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic {

/// A geometry's hydroelastic representation in its geometry frame G, built once when the run
/// starts and then only read. Which members are used depends on compliance and is_halfspace:
///   compliant mesh      field, bvh (over field.mesh's tets)
///   rigid mesh          surface, bvh (over surface's triangles)
///   compliant halfspace halfspace (region z_G <= margin, p = -(E/H) z_G)
///   rigid halfspace     nothing else (region z_G <= 0)
///   kNone               nothing: the geometry takes no part in hydroelastic contact
struct HydroelasticGeometry {
  geometry::Compliance compliance = geometry::Compliance::kNone;
  bool is_halfspace = false;
  PressureField field;           ///< compliant mesh: tets and pressure [Pa], frame G
  SurfaceMesh surface;           ///< rigid mesh: outward triangles, frame G
  Bvh bvh;                       ///< of field.mesh (compliant) or surface (rigid) meshes
  CompliantHalfspace halfspace;  ///< compliant halfspace: E [Pa], H [m], margin [m]

  bool IsCompliantMesh() const {
    return compliance == geometry::Compliance::kCompliant && !is_halfspace;
  }
  bool IsCompliantHalfspace() const {
    return compliance == geometry::Compliance::kCompliant && is_halfspace;
  }
  bool IsRigidMesh() const { return compliance == geometry::Compliance::kRigid && !is_halfspace; }
  bool IsRigidHalfspace() const {
    return compliance == geometry::Compliance::kRigid && is_halfspace;
  }
};

/// Builds `g`'s representation from its hydroelastic block (shape.h): a compliant primitive's
/// field (compliant_meshes.h MakeCompliantField, with g.hydroelastic.resolution_hint and
/// margin; a ShapeType::kMesh is the convex starburst of g.mesh), a rigid primitive's surface
/// (rigid_surfaces.h MakeRigidSurface), or the half-space's parameters (slab_thickness). A
/// geometry with compliance kNone gets an empty representation and true. `modulus` E [Pa]
/// is used by compliant geometry only. Returns false with a one-line reason in `error` when
/// the input cannot be meshed: a non-positive modulus for a compliant geometry, a missing
/// resolution_hint of a curved shape, a compliant half-space without slab_thickness, a mesh
/// that is not closed and convex, a degenerate rigid triangle.
bool MakeHydroelasticGeometry(const geometry::Geometry& g, double modulus,
                              HydroelasticGeometry* out, std::string* error);

/// A compliant geometry from a user's tetrahedral mesh (vtk_volume_file.h ReadVtkVolumeMesh,
/// already in the geometry frame): its extent field MakeVolumeMeshField with modulus E [Pa].
/// `margin` [m] must be 0: inflating an arbitrary non-convex tet mesh is not supported, and a
/// positive margin returns false with a reason in `error`, as does a non-positive modulus.
bool MakeHydroelasticGeometryFromVolume(const VolumeMesh& mesh, double modulus, double margin,
                                        HydroelasticGeometry* out, std::string* error);

/// Whether the pair gets a contact surface: geometry::HasContactSurface's rule (both
/// hydroelastic, at least one compliant, not two half-spaces) on the built geometry.
bool HasContactSurface(const HydroelasticGeometry& a, const HydroelasticGeometry& b);

/// Reused storage of CalcContactSurface (capacity kept between calls).
struct ContactSurfaceScratch {
  BvhCandidates candidates;  ///< the candidate element pairs or elements of one computation
  PlacedTets placed_tets;    ///< a soft-soft computation's tets of B in A's frame
};

/// The contact surface of geometries a (pose X_WA of its frame in the world) and b (X_WB), for
/// a pair with HasContactSurface(a, b) (checked): clears out's vertices, vertex pressures and
/// polygons (keeping their capacity) and fills them in the world frame, with every polygon's
/// normal from a into b, g_a the gradient of a's field and g_b of b's (contact_surface.h).
/// Does not set out->geometry_a/_b. Once `scratch` and `out` are warmed up at a configuration
/// with as many candidates and polygons, it does not allocate.
void CalcContactSurface(const HydroelasticGeometry& a, const math::RigidTransform& X_WA,
                        const HydroelasticGeometry& b, const math::RigidTransform& X_WB,
                        ContactSurfaceScratch* scratch, ContactSurface* out);

/// The "triangle" representation of a surface (notes §2, "Surface representation"): every
/// polygon of `in` is replaced by the fan of triangles (c, v_i, v_i+1) about its area centroid
/// c, whose pressure is the polygon's centroid pressure. Each triangle gets its own area,
/// area centroid (c + v_i + v_i+1) / 3 and pressure there, the mean of its three vertex
/// pressures (exact for the linear field of the polygon), and the polygon's normal, g_a, g_b.
/// Triangles of zero or negative area (collinear vertices) are dropped. Every triangle has its
/// own three vertices in out->vertices. Because c is the area centroid, the triangles' sum of
/// area times pressure equals the polygon's (up to round-off), and their centroids resolve the
/// first moment of the pressure better (notes §3 v). Clears `out` (keeping capacity) and
/// copies geometry_a/_b. `in` and `out` must differ. Allocation free once `out` is warmed up.
void SplitIntoTriangles(const ContactSurface& in, ContactSurface* out);

}  // namespace csim::hydroelastic
