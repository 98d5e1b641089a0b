#pragma once
// Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone, RBDA table 5.1),
// with gravity, Coriolis and gyroscopic terms and the known accelerations of prescribed
// joints.

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// tau = M(q) vdot + C(q, v) v - tau_g(q): the generalised forces (nv) that produce the
/// accelerations vdot (nv) at the state of the last CalcKinematics, M with the joints'
/// armatures (CalcMassMatrix). Gravity is included by
/// giving the world a fictitious upward acceleration -g. Fills ws.A_B, ws.F_B.
void CalcInverseDynamics(const Model& model, const Eigen::VectorXd& vdot, Workspace& ws,
                         Eigen::VectorXd* tau);

/// ws.bias = inverse dynamics at vdot = 0: Coriolis, gyroscopic, gravity and the effect of
/// prescribed joint motion, so that M vdot + bias = applied generalised forces.
void CalcBiasForces(const Model& model, Workspace& ws);

}  // namespace csim::multibody
