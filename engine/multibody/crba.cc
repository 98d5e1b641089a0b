#include "engine/multibody/crba.h"

namespace csim::multibody {
namespace {

// Column of M of joint i with one coordinate (a hinge or a slider, most joints of an arm):
// the general loop's products with S_i (6 x 1) in fixed size, and M's entries written
// through the block's map, found once, instead of a strided map per entry (the dynamic
// 6 x n products and the maps were most of the CRBA on a 7-dof arm).
void OneCoordinateColumn(const Model& model, Workspace& ws, int i) {
  const Joint& ji = model.joints[i];
  const int k = ws.M.block_of(ji.v_start);
  const int start = ws.M.range(k).start;
  auto Mk = ws.M.block(k);
  const int c = ji.v_start - start;
  const math::Vector6 s = ws.joint[i].S.col(0);
  math::Vector6 F;
  F = ws.Ic[i] * s;
  double M_ii = s.dot(F);
  if (ji.armature.size() == 1) M_ii += ji.armature[0];
  Mk(c, c) = M_ii;
  for (int j = i; model.parent[j] >= 0;) {
    F = math::ForceToParent(ws.X_PB[j], F);
    j = model.parent[j];
    const Joint& jj = model.joints[j];
    if (jj.v_start < 0) continue;
    const int r = jj.v_start - start;
    const MotionSubspace& S_j = ws.joint[j].S;
    for (int a = 0; a < jj.nv; ++a) {
      const double m = S_j.col(a).dot(F);
      Mk(r + a, c) = m;
      Mk(c, r + a) = m;
    }
  }
}

}  // namespace

void CalcMassMatrix(const Model& model, Workspace& ws, const std::vector<bool>* bodies) {
  const int nb = model.num_bodies();
  // Composite inertias, leaves to root: Ic_p += Ic_i carried to p's coordinates.
  for (int i = 0; i < nb; ++i) ws.Ic[i] = ws.I_B[i];
  for (int i = nb - 1; i >= 0; --i) {
    const int p = model.parent[i];
    if (p >= 0) ws.Ic[p] += math::InertiaToParent(ws.X_PB[i], ws.Ic[i]);
  }
  // No SetZero: the entries written below (pairs of a joint and its ancestors, always in
  // the same tree block of M) are the same every call and fully overwritten; the others
  // stay at the zero MakeWorkspace gave them.
  // Column block of joint i: F = Ic_i S_i, carried to each ancestor j as a force.
  Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> F;
  for (int i = 0; i < nb; ++i) {
    const Joint& ji = model.joints[i];
    if (ji.v_start < 0 || (bodies != nullptr && !(*bodies)[i])) continue;
    const MotionSubspace& S_i = ws.joint[i].S;
    if (ji.type == JointType::kFree && model.parent[i] < 0) {
      // A free body at a root (every body of a clutter): S = diag(R^T, R^T) with R the
      // joint's rotation (joint_motion.cc, Free), so S^T Ic S is Ic turned by R: R I_O R^T,
      // [R h]x off the diagonal and m 1, and no ancestor receives F.
      const Eigen::Matrix3d& R = ws.joint[i].X_JC.R;
      const math::RigidBodyInertia& I = ws.Ic[i];
      auto M_ii = ws.M.sub(ji.v_start, ji.v_start, 6, 6);
      M_ii.topLeftCorner<3, 3>().noalias() = R * I.I_O * R.transpose();
      const Eigen::Matrix3d H = math::Skew(R * I.h);
      M_ii.topRightCorner<3, 3>() = H;
      M_ii.bottomLeftCorner<3, 3>() = -H;
      M_ii.bottomRightCorner<3, 3>() = I.mass * Eigen::Matrix3d::Identity();
      continue;
    }
    if (ji.nv == 1) {
      OneCoordinateColumn(model, ws, i);
      continue;
    }
    F.resize(6, ji.nv);
    for (int a = 0; a < ji.nv; ++a) F.col(a) = ws.Ic[i] * math::Vector6(S_i.col(a));
    auto M_ii = ws.M.sub(ji.v_start, ji.v_start, ji.nv, ji.nv);
    M_ii.noalias() = S_i.transpose() * F;
    // The joint's rotor: its reflected inertia moves with the coordinate alone.
    if (ji.armature.size() == ji.nv) M_ii.diagonal() += ji.armature;
    for (int j = i; model.parent[j] >= 0;) {
      for (int a = 0; a < ji.nv; ++a) F.col(a) = math::ForceToParent(ws.X_PB[j], F.col(a));
      j = model.parent[j];
      const Joint& jj = model.joints[j];
      if (jj.v_start < 0) continue;
      auto block = ws.M.sub(jj.v_start, ji.v_start, jj.nv, ji.nv);
      block.noalias() = ws.joint[j].S.transpose() * F;
      ws.M.sub(ji.v_start, jj.v_start, ji.nv, jj.nv) = block.transpose();
    }
  }
}

}  // namespace csim::multibody
