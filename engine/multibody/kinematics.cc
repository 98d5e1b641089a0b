#include "engine/multibody/kinematics.h"

#include "engine/multibody/motion_subspace_products.h"

namespace csim::multibody {
namespace {

// Joint coordinates come from the state, or from the clock for a prescribed joint; a
// fixed joint has none.
void GatherJointCoordinates(const Model& model, double t, const Eigen::VectorXd& q,
                            const Eigen::VectorXd& v, int i, Workspace& ws) {
  const Joint& j = model.joints[i];
  if (j.prescribed) {
    CalcPrescribedMotion(model, j, t, &ws.q_j[i], &ws.v_j[i], &ws.a_prescribed[i]);
  } else if (j.q_start >= 0) {
    ws.q_j[i] = q.segment(j.q_start, j.nq);
    ws.v_j[i] = v.segment(j.v_start, j.nv);
  }
}

}  // namespace

void CalcKinematics(const Model& model, double t, const Eigen::VectorXd& q,
                    const Eigen::VectorXd& v, Workspace& ws) {
  ws.t = t;
  for (int i = 0; i < model.num_bodies(); ++i) {
    const Joint& joint = model.joints[i];
    const int p = model.parent[i];
    GatherJointCoordinates(model, t, q, v, i, ws);
    JointKinematics& jk = ws.joint[i];
    CalcJointKinematics(joint, ws.q_j[i], ws.v_j[i], &jk);
    ws.X_PB[i] = joint.X_PJ * jk.X_JC;
    ws.X_WB[i] = p < 0 ? ws.X_PB[i] : ws.X_WB[p] * ws.X_PB[i];
    ws.V_B[i] = SubspaceTimes(jk.S, ws.v_j[i]);
    if (p >= 0) ws.V_B[i] += math::MotionToChild(ws.X_PB[i], ws.V_B[p]);
  }
}

Eigen::Vector3d BodyAngularVelocityWorld(const Workspace& ws, int b) {
  return ws.X_WB[b].R * ws.V_B[b].head<3>();
}

Eigen::Vector3d BodyOriginVelocityWorld(const Workspace& ws, int b) {
  return ws.X_WB[b].R * ws.V_B[b].tail<3>();
}

}  // namespace csim::multibody
