#pragma once
// Mass matrix by the composite rigid body algorithm (Featherstone, RBDA table 6.2).

#include <vector>

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// Fills ws.Ic and ws.M (nv x nv, symmetric positive definite) at the configuration of the
/// last CalcKinematics, with the joints' armatures on M's diagonal (Joint::armature).
/// Prescribed and fixed joints own no rows; their bodies still add inertia to their
/// ancestors. Writes only the entries of a joint and its ancestors: the
/// others (different branches or trees) must be zero already, as MakeWorkspace leaves them.
/// With `bodies`, only the entries of the joints of the bodies b with (*bodies)[b] (whole
/// trees) are written, the composite inertias of every body all the same: the free motion
/// forms the blocks of the trees it factorizes at every evaluation, and those of the trees
/// it solves by the articulated-body recursions once a step (integrator/theta_method.cc).
/// Allocation free.
void CalcMassMatrix(const Model& model, Workspace& ws, const std::vector<bool>* bodies = nullptr);

}  // namespace csim::multibody
