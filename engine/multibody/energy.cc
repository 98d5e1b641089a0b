#include "engine/multibody/energy.h"

namespace csim::multibody {

double CalcKineticEnergy(const Model& model, const Workspace& ws) {
  double T = 0.0;
  for (int i = 0; i < model.num_bodies(); ++i) {
    T += 0.5 * ws.V_B[i].dot(ws.I_B[i] * ws.V_B[i]);
    const Joint& joint = model.joints[i];
    if (joint.armature.size() == joint.nv && joint.v_start >= 0)
      T += 0.5 * (joint.armature.array() * ws.v_j[i].array().square()).sum();
  }
  return T;
}

double CalcGravityEnergy(const Model& model, const Workspace& ws, int i) {
  const Body& b = model.bodies[i];
  return -b.mass * model.gravity.dot(ws.X_WB[i] * b.com);
}

double CalcSpringEnergy(const Model& model, const Workspace& ws, int i, int k) {
  const Joint& j = model.joints[i];
  const double dq = ws.q_j[i][k] - j.spring_rest[k];
  return 0.5 * j.spring_stiffness[k] * dq * dq;
}

double CalcPotentialEnergy(const Model& model, const Workspace& ws) {
  double U = 0.0;
  for (int i = 0; i < model.num_bodies(); ++i) {
    U += CalcGravityEnergy(model, ws, i);
    for (int k = 0; k < model.joints[i].spring_stiffness.size(); ++k) {
      U += CalcSpringEnergy(model, ws, i, k);
    }
  }
  return U;
}

}  // namespace csim::multibody
