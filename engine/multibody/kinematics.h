#pragma once
// Forward kinematics: poses and spatial velocities of every body.

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// Fills ws joint coordinates (prescribed joints evaluated at time t [s]), per-joint
/// kinematics, X_PB, X_WB, Xup, V_B and S_W from q (nq) and v (nv). Every other algorithm
/// reads these, so call it first. Allocation free.
void CalcKinematics(const Model& model, double t, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& v, Workspace& ws);

/// CalcKinematics without S_W: everything CalcMassMatrix, CalcBiasForces and
/// CalcInverseDynamics read, but not what the Jacobians read (ws.S_W is left as it was).
/// For the free-motion stage, which evaluates the dynamics several times a step and never
/// a Jacobian: S_W costs six motion transforms per free body, 10 % of that stage (callgrind,
/// clutter-40 without walls, 500 steps: CalcFreeMotion 114.6 M -> 103.1 M). Allocation free.
void CalcDynamicsKinematics(const Model& model, double t, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v, Workspace& ws);

/// Angular velocity of body b in world [rad/s] (after CalcKinematics).
Eigen::Vector3d BodyAngularVelocityWorld(const Workspace& ws, int b);
/// Velocity of body b's frame origin in world [m/s] (after CalcKinematics).
Eigen::Vector3d BodyOriginVelocityWorld(const Workspace& ws, int b);

}  // namespace csim::multibody
