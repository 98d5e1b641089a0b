#pragma once
// The kinematic map qdot = N(q) v and the theta-method position update (docs/design/time-step.md
// §6).

#include <Eigen/Dense>

#include "engine/multibody/model.h"

namespace csim::multibody {

/// qdot (nq) = N(q) v. Quaternion rates: 1/2 (0, w) (x) q for a free joint (w in the
/// joint frame), 1/2 q (x) (0, w) for a ball joint (w in the child frame).
void CalcQDot(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
              Eigen::VectorXd* qdot);

/// The position update of P-11/P-12, q = q0 + dt N(q_theta) v_bar with
/// q_theta = theta q + (1 - theta) q0, solved exactly: N is linear in the quaternion, so each
/// quaternion satisfies (I - theta dt/2 W) q = (I + (1 - theta) dt/2 W) q0 with W the 4x4
/// rate matrix of the angular velocity in v_bar. For theta = 1/2 this is the Cayley
/// transform and preserves |q| exactly; otherwise quaternions are renormalised (the exact
/// flow keeps them unit, so this only removes the O(dt^2) drift of the discretisation).
/// v_bar is the theta_q-weighted velocity. q may alias neither q0 nor v_bar.
void IntegratePositions(const Model& model, const Eigen::VectorXd& q0,
                        const Eigen::VectorXd& v_bar, double dt, double theta,
                        Eigen::VectorXd* q);

/// The derivative of IntegratePositions(model, q0, v_bar, dt, theta) along a tangent dq0 (nv,
/// at q0, configuration_tangent.h) and a velocity variation dv_bar (nv), read in the tangent
/// at its result q1: dq1 (nv), with q1(e) = q1 (+) e dq1 + O(e^2) for the update from
/// q0 (+) e dq0 with v_bar + e dv_bar. Exact, no differences: revolute, prismatic, planar
/// coordinates and a free joint's position move by dq0 + dt dv_bar; a quaternion by the
/// derivative of IntegrateQuaternion's linear solve (its rate matrix W varying with the
/// angular part of dv_bar) and of its renormalization, mapped to the tangent at q1.
/// Prescribed and fixed joints own no coordinates. Why analytic: central differences of the
/// update lose digits to rounding (amplified by 1/step, and by |q| on positions far from the
/// origin) and cost two updates per direction; this costs a few 4x4 products per joint.
/// q1 is recomputed from q0 and v_bar (a handful of products) rather than passed in, so a
/// q1 changed after the update (projected, renormalized) cannot silently mismatch. dq0 and
/// dv_bar may be columns of matrices; dq1 may alias neither. Never allocates.
void IntegratePositionsDerivative(const Model& model, const Eigen::VectorXd& q0,
                                  const Eigen::VectorXd& v_bar, double dt, double theta,
                                  const Eigen::Ref<const Eigen::VectorXd>& dq0,
                                  const Eigen::Ref<const Eigen::VectorXd>& dv_bar,
                                  Eigen::Ref<Eigen::VectorXd> dq1);

/// The quaternion part of that update for one joint with a quaternion (free or ball): the
/// unit quaternion q = q0 + dt N(q_theta) w (w the joint's angular velocity in v_bar), as
/// IntegratePositions computes it, bit for bit.
Eigen::Vector4d IntegrateQuaternion(const Joint& joint, const Eigen::Vector4d& q0,
                                    const Eigen::Vector3d& w, double dt, double theta);

/// Rescales every quaternion in q to unit length.
void NormalizeQuaternions(const Model& model, Eigen::VectorXd* q);

}  // namespace csim::multibody
