#pragma once
// Exact state derivatives of the free motion of lone free bodies under theta = 0, for the
// forward sensitivities (trajectory_sensitivity.h, docs/design/sensitivities.md §6).
//
// What: per step from x0 = (q0, v0) and per state direction D = (dq0, dv0) (dq0 in the
// tangent of multibody/configuration_tangent.h), the derivatives at fixed v of
//   F(v; x0) = A(x0) (v - v*(x0))
// and of v*(x0), v* being exactly what CalcFreeMotion returns (theta_method.h), when every
// body with velocities is a lone free body (AllLoneFreeBodies). Why: central differences of
// the whole step assembly cost two assemblies per column and lose digits to rounding; for
// such a model the free motion is a closed-form function of each body's (R0, w0, v_o0), and
// its derivative costs a 6 x 12 product per body and direction.
//
// The function differentiated, per body (velocities (w, v_o) in world axes, v_o the
// origin's; R0 its rotation, c = R0 c_B the lever to the centre of mass, I = R0 I_B R0^T
// its rotational inertia about it, m its mass, D_w, D_v its joint damping, if any):
//   A = M(q0) = [[I - m [c]x^2, m [c]x], [-m [c]x, m 1]]   (theta = 0: c_K = c_D = 0, so
//       A = M(q0) also for a damped free joint; a free joint takes no spring or armature);
//   the explicit step M (v_e - v0) = dt k, k = -bias(q0, v0) - D v0, i.e. Newton-Euler
//       alpha = I^-1 (-w0 x I w0 - D_w w0 + c x D_v v_o0),   w_e = w0 + dt alpha,
//       v_e = v_o0 + dt (g - D_v v_o0 / m) - dt alpha x c - dt w0 x (w0 x c);
//   Gyroscopic::kImplicit, on the bodies ImplicitGyroscopicBodies lists
//   (implicit_gyroscopic.h): w* solves I (w* - w_e) = dt (g(w0) - g((w0 + w*) / 2)),
//       g(x) = x x I x (unless I is isotropic: w* = w_e), and, with the centre of mass off
//       the origin, v* = v_e + w_e x c + dt w0 x (w0 x c) - w* x P(a) c, P(a) the rotation
//       of the unit quaternion (1, a) / |(1, a)|, a = dt/2 (theta_q w* + (1 - theta_q) w0)
//       (the position update's own rotation: q1 = (1, a) (x) q0, normalized);
//       otherwise v* = v_e (and w* = w_e).
// Derivatives: a rotation dtheta of the orientation moves c by dtheta x c and I by
// [dtheta]x I - I [dtheta]x, so dA = Omega A - A Omega, Omega = blockdiag([dtheta]x,
// [dtheta]x); the midpoint equation by the implicit function theorem, in world axes:
//   dw* = dtheta x w* + J^-1 (I (dw_e - dtheta x w_e) + K (dw0 - dtheta x w0)),
//   J = I + dt/2 g'(w_bar),  K = dt g'(w0) - dt/2 g'(w_bar),  g'(x) = [x]x I - [I x]x;
// and P(a)'s derivative in closed form. The position part of dq0 moves nothing (gravity
// is uniform). Prepare caches, once a step, what every direction reads per body (c, I,
// I^-1, A, v*, the explicit step's alpha and w_e, J^-1 and K of the midpoint equation,
// P(a), which branches apply), from the rotations the step's kinematics hold (ws.mb.X_WB)
// and the step's A (ws.A); Apply evaluates the derivatives above along the column's own
// direction D_b, body by body, and then dF = Omega A r - A (Omega r + dv*), r = v - v*.
// Why not the 6 x 12 Jacobian: a column typically moves few bodies (a ball's direction is
// zero on every other ball), so forming it along 9 unit directions per body and step costs
// more than all the columns' products with it. Apply skips a body whose direction is zero
// (dF_b = dv*_b = 0 exactly), and drops the terms a centred body (c = 0), an isotropic one
// (I = s 1: no gyroscopic torque) or an undamped one lacks: a centred isotropic body's
// dv* does not depend on dtheta, and dF = -A dv*, a few dozen flops.

#include <vector>

#include <Eigen/Dense>

#include "engine/integrator/theta_method.h"
#include "engine/multibody/model.h"
#include "engine/multibody/state.h"

namespace csim::integrator {

/// Whether body b is a lone free body: a free joint, not prescribed, to the world, with a
/// joint frame not rotated against it (X_PJ.R == identity), and no child body (a body welded
/// to it would be one): its tree has 6 velocities, (w, v_o) in world axes. Never allocates.
bool IsLoneFreeBody(const multibody::Model& model, int b);

/// Whether every body with velocities is a lone free body and the model has no external
/// loads and no force actuators, the explicit forces the partials leave out. Then the free
/// motion under theta = 0 is that of FreeBodyFreeMotionPartials. Bodies without velocities
/// (welded to the world or prescribed) are allowed. Never allocates.
bool AllLoneFreeBodies(const multibody::Model& model);

/// One step's linearization of the free motion of every lone free body (see the top).
struct FreeBodyFreeMotionPartials {
  /// One body's free motion at the step's start, with what its derivative along a
  /// direction reads (the notation of the top; world axes). What a body's branches do not
  /// read is left unset: c if centred; I, I_inverse, I_w0 if isotropic; b, alpha, w_e if
  /// both; D_w, D_v, f_d unless damped; J_inverse, K unless midpoint; a, c1, P, n unless com.
  struct Body {
    int v_start = -1;                    ///< the body's first velocity coordinate
    Eigen::Matrix<double, 6, 6> A;       ///< its block of A = M(q0)
    Eigen::Matrix<double, 6, 1> v_star;  ///< its v* (CalcFreeMotion's)
    double m = 0.0;                      ///< mass
    double s = 0.0;                      ///< the isotropic moment (isotropic: I = s 1)
    bool centred = false;    ///< c = 0 (the centre of mass at the origin)
    bool isotropic = false;  ///< I = s 1 (exactly, in body axes)
    bool damped = false;     ///< the free joint has nonzero damping
    bool midpoint = false;   ///< w* from the implicit midpoint equation
    bool com = false;        ///< v* from the centre of mass's velocity and P(a) c
    Eigen::Vector3d c, w0, I_w0, b, alpha, w_e, D_w, D_v, f_d;  ///< b = I alpha
    Eigen::Matrix3d I, I_inverse;
    Eigen::Matrix3d J_inverse, K;  ///< the midpoint equation's IFT
    Eigen::Vector3d a, c1;         ///< the position update's quaternion (1, a); c1 = P(a) c
    Eigen::Matrix3d P;
    double n = 0.0;                ///< |a|^2
  };
  std::vector<Body> bodies;        ///< every lone free body, in body order
  double dt = 0.0, theta_q = 0.0;  ///< the step's
  std::vector<int> gyroscopic;     ///< per body: its index in ws.implicit_gyroscopic_bodies,
                                   ///< -1 if none (scratch of Prepare)
  /// The model's lone free bodies (IsLoneFreeBody), in body order: found by the first
  /// Prepare (a search over the bodies' children, quadratic in their number), then kept.
  std::vector<int> lone;
  bool listed = false;
};

/// Fills *partials, one Body per lone free body (IsLoneFreeBody; the model's other bodies
/// are not read), for the step from s0 whose free motion CalcFreeMotion left in ws
/// (ws.v_star, ws.A and the kinematics ws.mb at q0, with these params and dt;
/// ws.implicit_gyroscopic_bodies). Requires params.theta == 0 (checked). Allocates only on the first
/// call for a model.
void PrepareFreeBodyPartials(const multibody::Model& model, const ThetaParameters& params,
                             double dt, const multibody::State& s0, const StepWorkspace& ws,
                             FreeBodyFreeMotionPartials* partials);

/// For one state direction (dq (nv, tangent at q0), dv0 (nv)) at the fixed velocity v (nv,
/// e.g. the step's converged v): dF (nv) = d/de [A(x0 + e D) (v - v*(x0 + e D))] and
/// dv_star (nv) = d/de v*(x0 + e D), at e = 0; a body whose rotation and velocity
/// directions are zero gets exact zeros (its position direction moves nothing). The arguments may be columns of matrices;
/// dF and dv_star may alias none of the inputs. Never allocates.
void ApplyFreeBodyPartials(const FreeBodyFreeMotionPartials& partials,
                           const Eigen::Ref<const Eigen::VectorXd>& v,
                           const Eigen::Ref<const Eigen::VectorXd>& dq,
                           const Eigen::Ref<const Eigen::VectorXd>& dv0,
                           Eigen::Ref<Eigen::VectorXd> dF, Eigen::Ref<Eigen::VectorXd> dv_star);

}  // namespace csim::integrator
