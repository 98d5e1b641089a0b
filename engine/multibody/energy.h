#pragma once
// Mechanical energy, for /energy/* and for the conservation tests.

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// Kinetic energy [J] of all bodies, 1/2 sum V_B^T I_B V_B, including the motion of
/// prescribed joints, plus that of the joints' rotors, 1/2 sum armature v^2: the energy
/// 1/2 v^T M v of the M the dynamics use (CalcMassMatrix). After CalcKinematics.
double CalcKineticEnergy(const Model& model, const Workspace& ws);

/// Potential energy [J]: gravity, -sum m g . p_com, plus joint springs
/// 1/2 k (q - rest)^2. After CalcKinematics.
double CalcPotentialEnergy(const Model& model, const Workspace& ws);

/// Body i's term of the potential energy in gravity, -m g . p_com [J]. After CalcKinematics.
double CalcGravityEnergy(const Model& model, const Workspace& ws, int i);

/// The energy of spring k of joint i, 1/2 k (q - rest)^2 [J] (joint i has springs). After
/// CalcKinematics.
double CalcSpringEnergy(const Model& model, const Workspace& ws, int i, int k);

}  // namespace csim::multibody
