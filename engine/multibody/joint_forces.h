#pragma once
// Joint springs and dampers: the force elements k1 of docs/design/time-step.md §4.1, whose
// Jacobians are negative semidefinite and therefore enter the SPD matrix A implicitly.

#include <Eigen/Dense>

#include "engine/multibody/model.h"

namespace csim::multibody {

/// tau (nv) = -K (q - rest) - D v for every joint that owns coordinates (springs only on
/// joints with qdot = v: revolute, prismatic, planar). Overwrites tau.
void CalcJointSpringDamperForces(const Model& model, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v, Eigen::VectorXd* tau);

/// Diagonals (nv) of K_s = -(d tau/dq) N and D_s = -d tau/dv (docs/design/time-step.md §4.2): the
/// joint stiffnesses and damping coefficients, zero where absent.
void CalcJointStiffnessDamping(const Model& model, Eigen::VectorXd* K_diag,
                               Eigen::VectorXd* D_diag);

}  // namespace csim::multibody
