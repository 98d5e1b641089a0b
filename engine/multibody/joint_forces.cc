#include "engine/multibody/joint_forces.h"

namespace csim::multibody {

void CalcJointSpringDamperForces(const Model& model, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v, Eigen::VectorXd* tau) {
  tau->setZero();
  for (const Joint& j : model.joints) {
    if (j.v_start < 0) continue;
    if (j.spring_stiffness.size() == j.nv) {
      tau->segment(j.v_start, j.nv).array() -=
          j.spring_stiffness.array() * (q.segment(j.q_start, j.nq) - j.spring_rest).array();
    }
    if (j.damping.size() == j.nv)
      tau->segment(j.v_start, j.nv).array() -= j.damping.array() * v.segment(j.v_start, j.nv).array();
  }
}

void CalcJointStiffnessDamping(const Model& model, Eigen::VectorXd* K_diag,
                               Eigen::VectorXd* D_diag) {
  K_diag->setZero(model.nv);
  D_diag->setZero(model.nv);
  for (const Joint& j : model.joints) {
    if (j.v_start < 0) continue;
    if (j.spring_stiffness.size() == j.nv) K_diag->segment(j.v_start, j.nv) = j.spring_stiffness;
    if (j.damping.size() == j.nv) D_diag->segment(j.v_start, j.nv) = j.damping;
  }
}

}  // namespace csim::multibody
