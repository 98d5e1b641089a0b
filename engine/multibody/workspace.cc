#include "engine/multibody/workspace.h"

namespace csim::multibody {

Workspace MakeWorkspace(const Model& model) {
  const int nb = model.num_bodies();
  Workspace ws;
  ws.I_B.resize(nb);
  for (int i = 0; i < nb; ++i) {
    const Body& b = model.bodies[i];
    ws.I_B[i] = math::RigidBodyInertia::FromMassProperties(b.mass, b.com, b.inertia);
  }
  ws.q_j.resize(nb);
  ws.v_j.resize(nb);
  ws.a_prescribed.resize(nb);
  for (int i = 0; i < nb; ++i) {
    ws.q_j[i].setZero(model.joints[i].nq);
    ws.v_j[i].setZero(model.joints[i].nv);
    ws.a_prescribed[i].setZero(model.joints[i].nv);
  }
  ws.joint.resize(nb);
  ws.X_PB.resize(nb);
  ws.X_WB.resize(nb);
  ws.V_B.assign(nb, math::Vector6::Zero());
  ws.Ic.resize(nb);
  ws.M = BlockDiagonalMatrix(MassMatrixBlocks(model));
  ws.A_B.assign(nb, math::Vector6::Zero());
  ws.F_B.assign(nb, math::Vector6::Zero());
  ws.bias.setZero(model.nv);
  return ws;
}

}  // namespace csim::multibody
