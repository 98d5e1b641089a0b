#pragma once
// Products with a joint's motion subspace S (6 x nv, MotionSubspace), in the per-body loops
// of CalcKinematics and CalcInverseDynamics. For a free joint (nv = 6, every body of a
// clutter scene) they use Eigen's fixed-size 6 x 6 kernels, unrolled, instead of the
// dynamic-size ones, and give the same bits:
//
// - S x (6 x nv times nv): Eigen's dynamic kernel sums s_0 x_0 + ... + s_5 x_5 in that
//   order, but starting from +0; the fixed one starts from s_0 x_0. The sums differ only when
//   every term is -0 (dynamic: +0, fixed: -0), so the fixed sum plus +0 is the dynamic sum
//   bit for bit (the +0 must stay: x + 0 is not x for x = -0, and the compiler keeps it
//   without -ffast-math).
// - S^T f: the dynamic and fixed kernels make the same sums in the same order.
// A hinge or slider (nv = 1, most joints of an arm) takes S x as s_0 x_0 + 0, the dynamic
// kernel's one-term sum, and S^T f as the fixed-size dot product s_0 . f: the out-of-line
// dynamic matrix-vector kernel cost more than its six products on a 7-dof arm.
//
// tests/multibody/motion_subspace_products_test.cc checks these claims bit for bit on
// random values, zeros of both signs among them. Other joints keep the dynamic kernels.
// (Fixed-size kernels for CalcMassMatrix's I S and S^T F give the same bits too but save
// nothing there, so it keeps the dynamic ones.)

#include <Eigen/Dense>

#include "engine/math/spatial.h"
#include "engine/multibody/joint_motion.h"

namespace csim::multibody {

/// True for the 6-column subspace of a free joint, which the fixed-size kernels handle.
inline bool IsSixColumn(const MotionSubspace& S) { return S.cols() == 6; }

/// The 6 x 6 subspace of a free joint as a fixed-size matrix (IsSixColumn(S) required).
inline Eigen::Map<const math::Matrix6> AsMatrix6(const MotionSubspace& S) {
  return Eigen::Map<const math::Matrix6>(S.data());
}

/// S x: the spatial motion of a joint moving at rates x (nv entries from x.data()).
template <typename Rates>
math::Vector6 SubspaceTimes(const MotionSubspace& S, const Rates& x) {
  math::Vector6 out;
  if (IsSixColumn(S)) {
    out.noalias() = AsMatrix6(S) * Eigen::Map<const math::Vector6>(x.data());
    out.array() += 0.0;  // the dynamic kernel's +0 start (see the top of the file)
  } else if (S.cols() == 1) {
    out.noalias() = S.col(0) * x.data()[0];
    out.array() += 0.0;  // as above
  } else {
    out.noalias() = S * x;
  }
  return out;
}

/// out = S^T f (nv entries): the generalized force of spatial force f on the joint.
template <typename Out>
void SubspaceTransposeTimes(const MotionSubspace& S, const math::Vector6& f, Out&& out) {
  if (IsSixColumn(S)) {
    Eigen::Map<math::Vector6>(out.data()).noalias() = AsMatrix6(S).transpose() * f;
  } else if (S.cols() == 1) {
    out.data()[0] = Eigen::Map<const math::Vector6>(S.data()).dot(f);
  } else {
    out.noalias() = S.transpose() * f;
  }
}

}  // namespace csim::multibody
