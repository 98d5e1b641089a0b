#pragma once
// Forward kinematics: poses and spatial velocities of every body.

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// Fills ws joint coordinates (prescribed joints evaluated at time t [s]), per-joint
/// kinematics, X_PB, X_WB and V_B from q (nq) and v (nv). Every other algorithm reads
/// these, so call it first. The Jacobians (jacobians.h) form a joint's world-frame motion
/// columns from X_WB and its S when asked: storing them for every body (S_W, six motion
/// transforms per free body) would slow the free-motion stage, which forms no Jacobian,
/// and the contact build forms none for free bodies either (solver::PointContactJacobian).
/// Allocation free.
void CalcKinematics(const Model& model, double t, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& v, Workspace& ws);

/// Angular velocity of body b in world [rad/s] (after CalcKinematics).
Eigen::Vector3d BodyAngularVelocityWorld(const Workspace& ws, int b);
/// Velocity of body b's frame origin in world [m/s] (after CalcKinematics).
Eigen::Vector3d BodyOriginVelocityWorld(const Workspace& ws, int b);

}  // namespace csim::multibody
