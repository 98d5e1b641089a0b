#pragma once
// The configuration space's tangent in velocity coordinates: q (+) delta and q_a (-) q_b for
// delta in R^nv, the coordinates the forward sensitivities of a trajectory carry their
// position part in (docs/design/sensitivities.md §7).
//
// Per joint, with the kinematic map qdot = N(q) v of position_update.h:
//   revolute, prismatic, planar: q + delta (N = I);
//   free:  the quaternion moves by Exp(delta_w) (x) q (delta_w in the parent frame, as the
//          free joint's angular velocity), the position by + delta_v;
//   ball:  q (x) Exp(delta_w) (delta_w in the child frame, as the ball joint's velocity);
// with Exp(d) = (cos(|d|/2), sin(|d|/2) d/|d|) (w, x, y, z). So q(t) (+) (dt v) and the
// flow of qdot = N(q) v agree to first order in dt, and a sensitivity dq/dp in these
// coordinates is the velocity-like tangent of a curve q(p) in the configuration space.
// Design choice: tangents of size nv rather than dq/dp in R^nq. Why: nq coordinates carry
// the quaternions' norm, a direction the unit constraint forbids, whose derivative only
// the renormalization projects away; the tangent has exactly the configuration's degrees
// of freedom, and is what a residual of positions and angles (a fit) compares.

#include <Eigen/Dense>

#include "engine/multibody/model.h"

namespace csim::multibody {

/// q_out (nq) = q (+) delta, delta (nv). Prescribed and fixed joints own no coordinates and
/// are left as in q. q_out may not alias q. Never allocates.
void RetractConfiguration(const Model& model, const Eigen::VectorXd& q,
                          const Eigen::Ref<const Eigen::VectorXd>& delta, Eigen::VectorXd* q_out);

/// delta (nv) = q_a (-) q_b, the tangent at q_b with q_b (+) delta = q_a (the shorter
/// rotation for quaternions, |delta_w| <= pi). Never allocates.
void ConfigurationDifference(const Model& model, const Eigen::VectorXd& q_a,
                             const Eigen::VectorXd& q_b, Eigen::Ref<Eigen::VectorXd> delta);

/// The unit quaternion Exp(d) = (cos(|d|/2), sin(|d|/2) d/|d|) (w, x, y, z) [d in rad].
Eigen::Vector4d QuaternionExp(const Eigen::Vector3d& d);

/// Its inverse on unit quaternions: the rotation vector d, |d| <= pi, with Exp(d) = +-q.
Eigen::Vector3d QuaternionLog(const Eigen::Vector4d& q_wxyz);

}  // namespace csim::multibody
