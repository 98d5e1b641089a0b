#pragma once
// Exact state derivatives of the free motion of bodies on a fixed axis, for the forward
// sensitivities' pairwise rule (trajectory_sensitivity.h, docs/design/sensitivities.md §6.4),
// under any theta.
//
// What: a fixed-axis body (IsFixedAxisBody) is the only body of its tree, on a revolute,
// prismatic or planar joint to the world, whose mass matrix and bias forces do not depend on
// its configuration: its centre of mass lies on the axis it turns about (a revolute joint
// whose axis is along gravity may carry it anywhere: gravity then exerts no torque about the
// axis). Its velocities are linear coordinates (qdot = v), so with the joint's linear spring
// K and damper D the free motion's residual (theta_method.h)
//   m(v; x0) = M (v - v0) - dt (g - K (q_theta - q_rest) - D v_theta),
//   q_theta = q0 + theta dt (theta_q v + (1 - theta_q) v0),  v_theta = theta v + (1 - theta) v0,
// is affine in (v, q0, v0) with constant M and g, and its Jacobian in v is exactly
// A = M + dt^2 theta theta_q K + dt theta D, the matrix the step factors. So along a state
// direction D = (dq0, dv0), at fixed v,
//   dF = d[A (v - v*)] = -A dv* = m_x D = dt K dq0 - (M - dt^2 theta (1 - theta_q) K
//                                                    - dt (1 - theta) D) dv0,
//   dv* = -A^-1 m_x D,
// with no difference and no assembly. Why a class of its own: a planar puck, a slider, a
// wheel on its axle (the spring-cylinder of the SAP paper) are common test rigs whose steps
// the general rule would assemble twice per column, while their free motion is a constant
// linear map. Such a body's twist at its origin, in world axes, is also a constant map of its
// velocities (FixedAxisTwistMap), which is what lets the pairwise contact chain rule treat it
// like a lone free body.

#include <vector>

#include <Eigen/Dense>

#include "engine/integrator/theta_method.h"
#include "engine/multibody/model.h"

namespace csim::integrator {

/// Whether body b is a fixed-axis body (see the top): a revolute, prismatic or planar joint
/// from the world, not prescribed, owning velocities; no child body; and, for a joint that
/// turns the body, its centre of mass within 1e-12 m of the axis of turning (a revolute
/// joint's axis, a planar joint's z), or, for a revolute joint, the axis along gravity (or
/// no gravity). The model's explicit forces are not checked here (AllPairwiseBodies).
bool IsFixedAxisBody(const multibody::Model& model, int b);

/// The constant map from a fixed-axis body's velocities to its twist (w, v_o) at its origin
/// in world axes, 6 x nv of its joint (nv <= 3); requires IsFixedAxisBody(model, b).
Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 3> FixedAxisTwistMap(const multibody::Model& model,
                                                                    int b);

/// The inverse of an n x n SPD block (n <= 3: a fixed-axis body's block of A), in closed
/// form and without allocating (a dynamic-size inverse factors through the heap).
Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3> SmallInverse(
    const Eigen::Ref<const Eigen::MatrixXd>& A);

/// Whether every body with velocities is a lone free body (free_body_partials.h) or a
/// fixed-axis body, and the model has no external loads and no force actuators (the
/// explicit forces neither partial carries); *any_free says whether a lone free body is
/// among them (its partials need theta = 0). Never allocates.
bool AllPairwiseBodies(const multibody::Model& model, bool* any_free);

/// One step's free-motion linearization of the fixed-axis bodies (see the top).
struct FixedAxisFreeMotionPartials {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3>;
  struct Body {
    int v_start = -1, nv = 0;
    Matrix q_map;  ///< m_x's block on dq0: dt K (diagonal)
    Matrix v_map;  ///< m_x's block on dv0: -(M - dt^2 theta (1 - theta_q) K - dt (1 - theta) D)
    Matrix A_inverse;  ///< A's block inverted
  };
  std::vector<Body> bodies;  ///< every fixed-axis body, in body order
  /// Their indices (IsFixedAxisBody), found by the first Prepare, then kept.
  std::vector<int> fixed_axis;
  bool listed = false;
};

/// Fills *partials from the step's free motion in ws (ws.mb.M, ws.A, ws.K_diag, ws.D_diag,
/// at these params and dt). Allocates only on the first call for a model.
void PrepareFixedAxisPartials(const multibody::Model& model, const ThetaParameters& params,
                              double dt, const StepWorkspace& ws,
                              FixedAxisFreeMotionPartials* partials);

/// For one state direction (dq (nv), dv0 (nv)): each fixed-axis body's segments of dF and
/// dv_star (the other bodies' are left alone). Never allocates.
void ApplyFixedAxisPartials(const FixedAxisFreeMotionPartials& partials,
                            const Eigen::Ref<const Eigen::VectorXd>& dq,
                            const Eigen::Ref<const Eigen::VectorXd>& dv0,
                            Eigen::Ref<Eigen::VectorXd> dF, Eigen::Ref<Eigen::VectorXd> dv_star);

}  // namespace csim::integrator
