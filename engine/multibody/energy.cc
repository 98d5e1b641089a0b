#include "engine/multibody/energy.h"

namespace csim::multibody {

double CalcKineticEnergy(const Model& model, const Workspace& ws) {
  double T = 0.0;
  for (int i = 0; i < model.num_bodies(); ++i)
    T += 0.5 * ws.V_B[i].dot(ws.I_B[i] * ws.V_B[i]);
  return T;
}

double CalcPotentialEnergy(const Model& model, const Workspace& ws) {
  double U = 0.0;
  for (int i = 0; i < model.num_bodies(); ++i) {
    const Body& b = model.bodies[i];
    U -= b.mass * model.gravity.dot(ws.X_WB[i] * b.com);
    const Joint& j = model.joints[i];
    if (j.spring_stiffness.size() == 0) continue;
    for (int k = 0; k < j.nv; ++k) {
      const double dq = ws.q_j[i][k] - j.spring_rest[k];
      U += 0.5 * j.spring_stiffness[k] * dq * dq;
    }
  }
  return U;
}

}  // namespace csim::multibody
