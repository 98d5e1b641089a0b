#pragma once
// One point of contact between two collision geometries, as the geometry layer hands it to
// the contact layer.
//
// Sign and frame convention (docs/design/conventions.md §2, stated once here for the whole geometry
// layer):   * The pair is ordered (A, B). The unit normal nhat_AB_W points FROM A INTO B: moving B
//     along +nhat_AB_W separates the pair. It is the z axis of the contact frame C.
//   * phi0 is the signed distance between the two surfaces measured along the normal:
//     phi0 < 0 when the shapes overlap (penetration depth -phi0), phi0 > 0 when apart.
//     Points enter only when phi0 < margin (settings.contact_margin).
//   * The contact point p_WC lies midway between the two surfaces' witness points:
//     A's witness is p_WC - (phi0 / 2) nhat_AB_W, B's is p_WC + (phi0 / 2) nhat_AB_W.
//   * With v_n = nhat . (v_Bc - v_Ac), v_n > 0 is separating and d(phi)/dt = v_n.

#include <Eigen/Dense>

namespace csim::geometry {

/// A contact point between geometry A and geometry B (see the convention above).
struct PointContact {
  int geometry_a = -1;  ///< index of A in the CollisionWorld's specs (A < B in its output)
  int geometry_b = -1;  ///< index of B in the CollisionWorld's specs
  int body_a = -1;      ///< body carrying A; -1 for the world
  int body_b = -1;      ///< body carrying B; -1 for the world
  Eigen::Vector3d p_WC = Eigen::Vector3d::Zero();       ///< contact point C, world [m]
  Eigen::Vector3d nhat_AB_W = Eigen::Vector3d::UnitZ(); ///< unit normal from A into B, world
  double phi0 = 0.0;    ///< signed distance [m]; < 0 overlap, > 0 apart (< margin)
};

}  // namespace csim::geometry
