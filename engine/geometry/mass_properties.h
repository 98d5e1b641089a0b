#pragma once
// Mass properties of the scene-format shapes (scene-format.md "bodies"): volume, centre of
// mass and rotational inertia about the centre of mass, at uniform density. A body's
// inertia follows from its collision geometry when it is not given explicitly.
//
// Closed forms (unit density, so mass == volume V):
//   sphere r:            V = 4/3 pi r^3,    I = 2/5 V r^2 (all axes)
//   box a x b x c:       V = a b c,         Ixx = V/12 (b^2 + c^2), ...
//   cylinder r, L (z):   V = pi r^2 L,      Izz = V r^2 / 2, Ixx = V (3 r^2 + L^2) / 12
//   ellipsoid a, b, c:   V = 4/3 pi a b c,  Ixx = V/5 (b^2 + c^2), ...
//   capsule r, L (z):    a cylinder plus two hemispheres whose centres of mass sit 3r/8
//                        beyond the cap centres; each hemisphere has I = 83/320 m r^2
//                        about its own com on the transverse axes and 2/5 m r^2 on z.
//   convex mesh:         signed tetrahedra (origin, a, b, c) of every triangle; each adds
//                        V_t = a.(b x c)/6 and a second moment V_t/20 (a a^T + b b^T + c c^T
//                        + s s^T), s = a + b + c, from which I = tr(C) 1 - C.

#include <vector>

#include <Eigen/Dense>

#include "engine/geometry/shape.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// Mass, centre of mass and inertia of a solid, all in one frame F.
struct MassProperties {
  double mass = 0.0;                                  ///< [kg] (== volume [m^3] at unit density)
  Eigen::Vector3d com = Eigen::Vector3d::Zero();      ///< p_FoCm [m], in F
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();  ///< about com, F axes [kg m^2]
};

/// Mass properties of `geometry`'s shape at unit density in its own frame G (X_BG is not
/// applied). A halfspace has no finite volume: returns all zeros.
MassProperties UnitShapeMassProperties(const Geometry& geometry);

/// Mass properties of a convex mesh (closed, outward-wound triangles) at unit density.
MassProperties UnitMeshMassProperties(const ConvexMesh& mesh);

/// Re-expresses mass properties given in G in the frame B, given X_BG:
/// com_B = X_BG * com_G, I_B = R_BG I_G R_BG^T.
MassProperties Transform(const MassProperties& props_G, const math::RigidTransform& X_BG);

/// Inertia about the point p (in the same frame) of a body with mass `mass`, inertia
/// `I_com` about its centre of mass `com` (parallel-axis theorem):
/// I_p = I_com + m (|d|^2 1 - d d^T), d = com - p.
Eigen::Matrix3d ShiftInertia(const Eigen::Matrix3d& I_com, double mass,
                             const Eigen::Vector3d& com, const Eigen::Vector3d& p);

/// Mass properties of the union of two solids expressed in one frame.
MassProperties Combine(const MassProperties& a, const MassProperties& b);

/// Scales mass properties to a new total mass (com unchanged, inertia scaled).
MassProperties ScaledToMass(const MassProperties& props, double mass);

/// Unit-density mass properties, in the body frame, of the union of the body's collision
/// geometries (collide == true, halfspaces excluded). Zero mass if there are none.
MassProperties UnitGeometryMassProperties(const std::vector<Geometry>& geometry);

}  // namespace csim::geometry
