#pragma once
// External loads (scene `loads:`): wrenches on bodies, as generalized forces.
//
// A load is a force f applied at a point p of body B and a torque n, in world or body axes,
// scaled by a signal s(t). Its generalized force is J^T w, with w the wrench and J the
// Jacobian of B's spatial velocity: the power it delivers, w . V, is tau . v for every
// velocity v. It is formed by expressing w as a spatial force on B at B's origin in B's
// axes, [R^T n + p x R^T f; R^T f] for world axes (R the rotation of B), and carrying it
// inward along B's path to the root like the inward pass of inverse dynamics (rnea.cc):
// every joint i on the path receives S_i^T w_i, and w moves to the parent by
// math::ForceToParent.
//
// Design choice: loads are explicit. They are evaluated once per step, at the step's start
// (t_n, q_n), and enter the free motion's non-constraint forces k unchanged through the
// step's iterations (integrator/theta_method.h). A load is an open-loop input, not a force
// element of the state: its signal is a known function of time and gives the step the
// impulse dt s(t_n) J(q_n)^T w, which for a piecewise constant signal whose edges fall on
// step boundaries is the exact impulse over the step (segments are closed on the left,
// like the signals' square waves). Alternatives rejected: evaluating J at q_theta inside
// each Newton iteration (a kinematics pass per iteration for a term whose dependence on q
// is the lever's rotation), and sampling the signal at t_{n+1} like the actuators' targets
// (docs/design/trajectories-and-signals.md §6), which for an explicit force moves every
// edge of a square wave one step early.

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// tau (nv) = sum over model.loads of s_k(t) J_k^T w_k at the kinematics in ws (filled by
/// CalcKinematics at the state the loads act at); t [s] is the time their signals are
/// sampled at. Coordinates of prescribed and fixed joints receive nothing. Overwrites tau
/// (sized nv). Allocation free.
void CalcExternalLoadForces(const Model& model, const Workspace& ws, double t,
                            Eigen::VectorXd* tau);

/// The spatial force of `load` (before its signal's scale) on its body at the body's
/// origin, in the body's axes: [moment [N m]; force [N]], at the kinematics in ws.
math::Vector6 ExternalLoadWrench(const ExternalLoad& load, const Workspace& ws);

}  // namespace csim::multibody
