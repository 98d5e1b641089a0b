#include "engine/multibody/rnea.h"

#include "engine/multibody/motion_subspace_products.h"

namespace csim::multibody {
namespace {

// Joint i's contribution to its body's acceleration: S vdot_j (free DOF) or the known
// prescribed acceleration; fixed joints contribute nothing. vdot = nullptr stands for
// vdot = 0 (CalcBiasForces): S 0 is +0 in every entry for a finite S (the product's sum
// starts at +0 and adds only zeros), so a + S 0 is a + 0: the same bits without the
// product. The + 0 stays: it turns a -0 entry of a into +0, as S 0 would.
void AddJointAcceleration(const Joint& joint, const Eigen::VectorXd* vdot,
                          const Workspace& ws, int i, math::Vector6* a) {
  const MotionSubspace& S = ws.joint[i].S;
  if (joint.prescribed) {
    *a += SubspaceTimes(S, ws.a_prescribed[i]);
  } else if (joint.v_start >= 0) {
    if (vdot == nullptr) {
      a->array() += 0.0;
    } else {
      *a += SubspaceTimes(S, vdot->segment(joint.v_start, joint.nv));
    }
  }
}

// The joint's spatial velocity vJ = S v_j. A root body's velocity V_B is that very product
// (CalcKinematics, same operands and kernel), so it is reused, bit for bit.
math::Vector6 JointVelocity(const Model& model, const Workspace& ws, int i) {
  if (model.parent[i] < 0) return ws.V_B[i];
  return SubspaceTimes(ws.joint[i].S, ws.v_j[i]);
}

// CalcInverseDynamics, with vdot = nullptr for vdot = 0.
void InverseDynamics(const Model& model, const Eigen::VectorXd* vdot, Workspace& ws,
                     Eigen::VectorXd* tau) {
  const int nb = model.num_bodies();
  math::Vector6 a_world;
  a_world << 0, 0, 0, -model.gravity;
  // Outward pass: accelerations and net body forces.
  for (int i = 0; i < nb; ++i) {
    const int p = model.parent[i];
    const JointKinematics& jk = ws.joint[i];
    math::Vector6& a = ws.A_B[i];
    a = math::MotionToChild(ws.X_PB[i], p < 0 ? a_world : ws.A_B[p]);
    AddJointAcceleration(model.joints[i], vdot, ws, i, &a);
    const math::Vector6 vJ = JointVelocity(model, ws, i);
    a += jk.cJ + math::CrossMotion(ws.V_B[i], vJ);
    const math::Vector6 h = ws.I_B[i] * ws.V_B[i];
    ws.F_B[i] = ws.I_B[i] * a;
    ws.F_B[i] += math::CrossForce(ws.V_B[i], h);
  }
  // Inward pass: project on the joint axes and accumulate on the parent.
  for (int i = nb - 1; i >= 0; --i) {
    const Joint& joint = model.joints[i];
    if (joint.v_start >= 0) {
      SubspaceTransposeTimes(ws.joint[i].S, ws.F_B[i], tau->segment(joint.v_start, joint.nv));
      // The rotor's reflected inertia (M's diagonal, CalcMassMatrix) takes armature vdot.
      if (vdot != nullptr && joint.armature.size() == joint.nv)
        tau->segment(joint.v_start, joint.nv).array() +=
            joint.armature.array() * vdot->segment(joint.v_start, joint.nv).array();
    }
    const int p = model.parent[i];
    if (p >= 0) ws.F_B[p] += math::ForceToParent(ws.X_PB[i], ws.F_B[i]);
  }
}

}  // namespace

void CalcInverseDynamics(const Model& model, const Eigen::VectorXd& vdot, Workspace& ws,
                         Eigen::VectorXd* tau) {
  InverseDynamics(model, &vdot, ws, tau);
}

void CalcBiasForces(const Model& model, Workspace& ws) {
  InverseDynamics(model, /*vdot=*/nullptr, ws, &ws.bias);
}

}  // namespace csim::multibody
