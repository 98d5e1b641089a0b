#pragma once
// The gyroscopic torque of a lone free body, implicit, under theta = 0 (symplectic and
// explicit Euler).
//
// Why: the theta-method with theta = 0 evaluates every velocity-dependent force at v0
// (docs/design/time-step.md §3), the gyroscopic torque w x I w included. For a body that spins fast
// about an axis of its inertia ellipsoid, that explicit torque turns the tumbling motion about the
// spin axis by w dt per step without the correction an implicit step makes, and every such
// step multiplies the tumbling energy by about 1 + (w dt)^2: a thin rope link spinning fast
// about its axis gains orders of magnitude of kinetic energy within seconds
// (results/gyroscopic.md, tools/gyroscopic_study.py). Links rolling on a floor, wheels,
// tops and tossed tools spin that fast.
//
// What: for each lone free body (a free joint to the world, no children, the joint frame at
// the world origin) whose rotational inertia about its centre of mass is not isotropic,
// the free-motion velocity is corrected so that the gyroscopic torque is evaluated at the
// midpoint of the step's angular velocities instead of at w0:
//   I (w* - w0) = dt (tau - w_bar x I w_bar),   w_bar = (w0 + w*) / 2,   I = I_W(q0),
// everything else as the explicit step has it (but see below for an origin away from the
// centre of mass). This is the implicit midpoint rule on Euler's equations. Without
// torque, dotting it with w_bar gives w*' I w* = w0' I w0, and writing L = I w, dotting
// L* - L0 = -dt w_bar x (L0 + L*) / 2 with L0 + L* gives |L*| = |L0|: the step keeps the
// kinetic energy and the magnitude of the angular momentum. The position update of
// symplectic Euler turns the body about w* itself, which leaves w* in body axes unchanged,
// so both stay exact from step to step (to round-off), whatever w dt. Cost: a 3 x 3 Newton
// solve per such body per step (2-4 iterations, in principal axes); nothing for spheres and
// cubes centred on their origins, whose steps are bit for bit the explicit ones.
//
// An origin away from the centre of mass: the state carries the origin's velocity
// v_o = v_com - w x c (c the lever from the origin to the centre of mass), and the explicit
// step moves it with a centripetal term taken at w0 and c0, while the position update then
// turns c by the step's rotation. At w dt ~ 0.1 that mismatch made the centre of mass's
// velocity wobble by ~(w dt / 2) |w x c| from step to step (a link spinning at 100 rad/s
// with its origin 5 cm along its axis: its energy oscillated visibly). So the centre of mass gets
// the explicit step's velocity without the centripetal term, v_com = v_com0 + dt f / m, and
// the origin v_com - w* x c1, c1 the lever after the position update's own rotation: the
// next step then finds exactly v_com, and a force-free body's centre of mass keeps its
// velocity. Such a body is corrected even with an isotropic inertia. The changes of w and
// v_o go into k as M (v* - v*_explicit) / dt, which keeps the free-motion residual
// M (v* - v0) - dt k the explicit step's (theta_method.cc checks it).
//
// Articulated trees (a ball-jointed rope) keep the explicit Coriolis and gyroscopic forces:
// in joint coordinates the gyroscopic torque of a link is not a term of its own velocities,
// and an implicit treatment needs the velocity derivatives of the whole Coriolis force
// (scene-format.md, "Choosing an integrator").

#include <vector>

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::integrator {

/// A body the correction applies to, with its principal axes (a rotation: the gyroscopic
/// torque is a cross product, whose sign a reflection would flip). In them the inertia is
/// diagonal and the 3 x 3 Newton solve costs a few hundred flops; what it adds to a step is
/// in results/gyroscopic.md (tools/gyroscopic_study.py --cost).
struct GyroscopicBody {
  int body = -1;
  bool isotropic = false;  ///< no gyroscopic torque: only its centre of mass is off the origin
  Eigen::Vector3d moments = Eigen::Vector3d::Zero();  ///< principal moments [kg m^2]
  Eigen::Matrix3d R_BP = Eigen::Matrix3d::Identity(); ///< principal axes in body axes
};

/// Whether the rotational inertia I is a multiple of the identity, compared exactly: such a
/// body has no gyroscopic torque (a sphere's, a cube's).
bool IsIsotropic(const Eigen::Matrix3d& I);

/// The bodies the correction applies to: a free joint to the world with an identity joint
/// frame, no children, and a rotational inertia about the centre of mass that is not a
/// multiple of the identity (exact comparison: a sphere's or a cube's is, and has no
/// gyroscopic torque) or a centre of mass away from the body's origin.
std::vector<GyroscopicBody> ImplicitGyroscopicBodies(const multibody::Model& model);

/// Replaces, in the explicit free-motion velocity *v_star of each body of `bodies`, the
/// gyroscopic torque at w0 (from v0) by the one at the step's midpoint, and the origin's
/// velocity by the one that carries the centre of mass's (see the top); adds the change of
/// the generalized force to *k. mb holds the kinematics and the mass matrix at q0 (state
/// q0, v0); theta_q is the position update's. Returns false when a body's Newton iteration
/// does not converge (a runaway state); *v_star is then left with that body's last
/// iterate. Allocation free.
bool ApplyImplicitGyroscopic(const multibody::Model& model,
                             const std::vector<GyroscopicBody>& bodies,
                             const multibody::Workspace& mb, double dt, double theta_q,
                             const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                             Eigen::VectorXd* v_star, Eigen::VectorXd* k);

}  // namespace csim::integrator
