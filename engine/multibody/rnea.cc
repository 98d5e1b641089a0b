#include "engine/multibody/rnea.h"

namespace csim::multibody {
namespace {

// Joint i's contribution to its body's acceleration: S vdot_j (free DOF) or the known
// prescribed acceleration; fixed joints contribute nothing.
void AddJointAcceleration(const Joint& joint, const Eigen::VectorXd& vdot,
                          const Workspace& ws, int i, math::Vector6* a) {
  const MotionSubspace& S = ws.joint[i].S;
  if (joint.prescribed) {
    a->noalias() += S * ws.a_prescribed[i];
  } else if (joint.v_start >= 0) {
    a->noalias() += S * vdot.segment(joint.v_start, joint.nv);
  }
}

}  // namespace

void CalcInverseDynamics(const Model& model, const Eigen::VectorXd& vdot, Workspace& ws,
                         Eigen::VectorXd* tau) {
  const int nb = model.num_bodies();
  math::Vector6 a_world;
  a_world << 0, 0, 0, -model.gravity;
  // Outward pass: accelerations and net body forces.
  for (int i = 0; i < nb; ++i) {
    const int p = model.parent[i];
    const JointKinematics& jk = ws.joint[i];
    math::Vector6& a = ws.A_B[i];
    a.noalias() = ws.Xup[i] * (p < 0 ? a_world : ws.A_B[p]);
    AddJointAcceleration(model.joints[i], vdot, ws, i, &a);
    const math::Vector6 vJ = jk.S * ws.v_j[i];
    a += jk.cJ + math::CrossMotion(ws.V_B[i], vJ);
    const math::Vector6 h = ws.I_B[i] * ws.V_B[i];
    ws.F_B[i].noalias() = ws.I_B[i] * a;
    ws.F_B[i] += math::CrossForce(ws.V_B[i], h);
  }
  // Inward pass: project on the joint axes and accumulate on the parent.
  for (int i = nb - 1; i >= 0; --i) {
    const Joint& joint = model.joints[i];
    if (joint.v_start >= 0)
      tau->segment(joint.v_start, joint.nv).noalias() = ws.joint[i].S.transpose() * ws.F_B[i];
    const int p = model.parent[i];
    if (p >= 0) ws.F_B[p].noalias() += ws.Xup[i].transpose() * ws.F_B[i];
  }
}

void CalcBiasForces(const Model& model, Workspace& ws) {
  // The zero acceleration is read only through segments of free joints; reuse bias as it
  // is overwritten only in the inward pass after every read.
  ws.bias.setZero();
  CalcInverseDynamics(model, ws.bias, ws, &ws.bias);
}

}  // namespace csim::multibody
