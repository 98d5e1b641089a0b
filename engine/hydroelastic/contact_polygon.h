#pragma once
// The last step every contact-surface computation shares (docs/design/hydroelastic.md §2, §3):
// a clipped polygon, in the frame F the computation worked in, becomes a ContactPolygon of the
// surface in the world frame, with its area, area centroid, pressures and gradients.

#include <Eigen/Dense>

#include "engine/hydroelastic/contact_surface.h"
#include "engine/hydroelastic/polygon_clipping.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic {

/// The cosine of the largest angle, 5 pi / 8, allowed between a face normal and a pressure
/// gradient (docs/design/hydroelastic.md §2 a, d): beyond it the face is taken to be the far
/// side of a thin body, not a contact.
inline constexpr double kCosMaxNormalGradientAngle = -0.38268343236508977;  // cos(5 pi / 8)

/// Whether the direction `nhat` into a body is within 5 pi / 8 of that body's pressure
/// gradient `grad_p` (any frame, both the same; grad_p in [Pa/m]). A zero gradient passes:
/// such a tet has constant pressure and no preferred side.
inline bool IsAlongGradient(const Eigen::Vector3d& nhat, const Eigen::Vector3d& grad_p) {
  return grad_p.dot(nhat) >= kCosMaxNormalGradientAngle * grad_p.norm();
}

/// Appends `polygon_F` to `surface` if it is a proper polygon: after removing near-duplicate
/// vertices it must keep >= 3 and a positive area. Inputs, all in frame F:
///   polygon_F   vertices [m], counter-clockwise about nhat_F (the vertex list is modified);
///   nhat_F      unit contact normal, from A into B;
///   grad_F, offset  the pressure on the polygon, p(x_F) = grad_F . x_F + offset [Pa/m, Pa],
///               evaluated at the vertices and the area centroid;
///   g_a, g_b    the gradients along the normal of contact_surface.h [Pa/m];
///   norm_a, norm_b  |grad p_A| and |grad p_B| [Pa/m], +inf for a rigid side;
///   X_WF        pose of F in the world.
/// Returns whether a polygon was appended.
bool AppendContactPolygon(ClipPolygon* polygon_F, const Eigen::Vector3d& nhat_F,
                          const Eigen::Vector3d& grad_F, double offset, double g_a, double g_b,
                          double norm_a, double norm_b, const math::RigidTransform& X_WF,
                          ContactSurface* surface);

}  // namespace csim::hydroelastic
