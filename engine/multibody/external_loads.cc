#include "engine/multibody/external_loads.h"

#include "engine/multibody/motion_subspace_products.h"

namespace csim::multibody {

math::Vector6 ExternalLoadWrench(const ExternalLoad& load, const Workspace& ws) {
  const Eigen::Matrix3d& R_WB = ws.X_WB[load.body].R;
  const Eigen::Vector3d f_B = load.body_axes ? load.force : R_WB.transpose() * load.force;
  const Eigen::Vector3d n_B = load.body_axes ? load.torque : R_WB.transpose() * load.torque;
  math::Vector6 w;
  w << n_B + load.point.cross(f_B), f_B;
  return w;
}

void CalcExternalLoadForces(const Model& model, const Workspace& ws, double t,
                            Eigen::VectorXd* tau) {
  tau->setZero(model.nv);
  for (const ExternalLoad& load : model.loads) {
    const double scale = load.signal >= 0 ? model.signals.Evaluate(load.signal, t) : 1.0;
    math::Vector6 w = scale * ExternalLoadWrench(load, ws);
    // Inward along the body's path: each joint takes S^T w, the parent w in its own axes.
    for (int i = load.body; i >= 0; i = model.parent[i]) {
      const Joint& joint = model.joints[i];
      if (joint.v_start >= 0) {
        Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1> tau_j(joint.nv);
        SubspaceTransposeTimes(ws.joint[i].S, w, tau_j);
        tau->segment(joint.v_start, joint.nv) += tau_j;
      }
      if (model.parent[i] >= 0) w = math::ForceToParent(ws.X_PB[i], w);
    }
  }
}

}  // namespace csim::multibody
