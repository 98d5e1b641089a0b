#pragma once
// Mass matrix by the composite rigid body algorithm (Featherstone, RBDA table 6.2).

#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

/// Fills ws.Ic and ws.M (nv x nv, symmetric positive definite) at the configuration of the
/// last CalcKinematics. Prescribed and fixed joints own no rows; their bodies still add
/// inertia to their ancestors. Writes only the entries of a joint and its ancestors: the
/// others (different branches or trees) must be zero already, as MakeWorkspace leaves them.
/// Allocation free.
void CalcMassMatrix(const Model& model, Workspace& ws);

}  // namespace csim::multibody
