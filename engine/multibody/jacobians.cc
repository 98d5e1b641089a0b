#include "engine/multibody/jacobians.h"

#include "engine/common/check.h"
#include "engine/math/spatial.h"

namespace csim::multibody {
namespace {

// Column k of joint i's motion subspace in world axes about the world origin, [w; v_O]:
// w = R w_B, v_O = R v_B + p x w for the body pose X_WB = (R, p).
math::Vector6 WorldColumn(const Workspace& ws, int i, int k) {
  return math::MotionToParent(ws.X_WB[i], ws.joint[i].S.col(k));
}

// A world-frame motion column [w; v_O] (about the world origin) moves the point p at
// v_O + w x p.
Eigen::Vector3d PointColumn(const math::Vector6& s_W, const Eigen::Vector3d& p_W) {
  return s_W.tail<3>() + s_W.head<3>().cross(p_W);
}

}  // namespace

void CalcPointJacobian(const Model& model, const Workspace& ws, int b,
                       const Eigen::Vector3d& p_W, Eigen::Ref<Eigen::Matrix3Xd> J) {
  J.setZero();
  for (int i = b; i >= 0; i = model.parent[i]) {
    const Joint& joint = model.joints[i];
    if (joint.v_start < 0) continue;
    for (int k = 0; k < joint.nv; ++k)
      J.col(joint.v_start + k) = PointColumn(WorldColumn(ws, i, k), p_W);
  }
}

void CalcPointJacobianColumns(const Model& model, const Workspace& ws, int b,
                              const Eigen::Vector3d& p_W, int first_column,
                              Eigen::Ref<Eigen::Matrix3Xd> J) {
  J.setZero();
  for (int i = b; i >= 0; i = model.parent[i]) {
    const Joint& joint = model.joints[i];
    if (joint.v_start < 0) continue;
    const int column = joint.v_start - first_column;
    CSIM_CHECK(column >= 0 && column + joint.nv <= J.cols());
    for (int k = 0; k < joint.nv; ++k) J.col(column + k) = PointColumn(WorldColumn(ws, i, k), p_W);
  }
}

void CalcFrameJacobian(const Model& model, const Workspace& ws, int b,
                       const Eigen::Vector3d& p_W,
                       Eigen::Ref<Eigen::Matrix<double, 6, Eigen::Dynamic>> J) {
  J.setZero();
  for (int i = b; i >= 0; i = model.parent[i]) {
    const Joint& joint = model.joints[i];
    if (joint.v_start < 0) continue;
    for (int k = 0; k < joint.nv; ++k) {
      const math::Vector6 s_W = WorldColumn(ws, i, k);
      J.col(joint.v_start + k).head<3>() = s_W.head<3>();
      J.col(joint.v_start + k).tail<3>() = PointColumn(s_W, p_W);
    }
  }
}

void CalcFrameJacobianColumns(const Model& model, const Workspace& ws, int b,
                              const Eigen::Vector3d& p_W, int first_column,
                              Eigen::Ref<Eigen::MatrixXd> Jw, Eigen::Ref<Eigen::MatrixXd> Jv) {
  CSIM_CHECK(Jw.rows() == 3 && Jv.rows() == 3 && Jw.cols() == Jv.cols());
  Jw.setZero();
  Jv.setZero();
  for (int i = b; i >= 0; i = model.parent[i]) {
    const Joint& joint = model.joints[i];
    if (joint.v_start < 0) continue;
    const int column = joint.v_start - first_column;
    CSIM_CHECK(column >= 0 && column + joint.nv <= Jw.cols());
    for (int k = 0; k < joint.nv; ++k) {
      const math::Vector6 s_W = WorldColumn(ws, i, k);
      Jw.col(column + k) = s_W.head<3>();
      Jv.col(column + k) = PointColumn(s_W, p_W);
    }
  }
}

Eigen::Vector3d CalcPointVelocity(const Model&, const Workspace& ws, int b,
                                  const Eigen::Vector3d& p_W) {
  if (b < 0) return Eigen::Vector3d::Zero();
  const Eigen::Vector3d w_W = ws.X_WB[b].R * ws.V_B[b].head<3>();
  const Eigen::Vector3d v_Bo = ws.X_WB[b].R * ws.V_B[b].tail<3>();
  return v_Bo + w_W.cross(p_W - ws.X_WB[b].p);
}

}  // namespace csim::multibody
