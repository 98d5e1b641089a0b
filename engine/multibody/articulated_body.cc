#include "engine/multibody/articulated_body.h"

#include <limits>

#include "engine/common/check.h"

namespace csim::multibody {

ArticulatedBodySolver::ArticulatedBodySolver(const Model& model, const std::vector<bool>& in_set) {
  const int nb = model.num_bodies();
  CSIM_CHECK(static_cast<int>(in_set.size()) == nb);
  parent_in_set_.assign(nb, -1);
  for (int b = 0; b < nb; ++b) {
    const int p = model.parent[b];
    if (p >= 0) CSIM_CHECK(!in_set[p] || in_set[b]);  // closed under taking children
    if (!in_set[b]) continue;
    bodies_.push_back(b);
    if (p >= 0 && in_set[p]) parent_in_set_[b] = p;
  }
  I_A_.assign(nb, math::Matrix6::Zero());
  U_.assign(nb, ForceBlock());
  D_inv_.assign(nb, JointMatrix());
  // A joint without velocity slots (fixed, prescribed) has no U or D^-1, and no pass may
  // read them: they are NaN at their natural size, so a pass that does shows in its result.
  for (int b = 0; b < nb; ++b) {
    const Joint& joint = model.joints[b];
    if (joint.v_start >= 0 || joint.nv == 0) continue;
    U_[b].setConstant(6, joint.nv, std::numeric_limits<double>::quiet_NaN());
    D_inv_[b].setConstant(joint.nv, joint.nv, std::numeric_limits<double>::quiet_NaN());
  }
  p_A_.assign(nb, math::Vector6::Zero());
  a_.assign(nb, math::Vector6::Zero());
  u_.assign(nb, JointRates());
}

void ArticulatedBodySolver::CarryParentAcceleration(const Workspace& ws, int b) {
  const int p = parent_in_set_[b];
  if (p >= 0) {
    a_[b] = math::MotionToChild(ws.X_PB[b], a_[p]);
  } else {
    a_[b].setZero();  // the parent does not accelerate with x
  }
}

bool ArticulatedBodySolver::Factor(const Model& model, const Workspace& ws,
                                   const Eigen::VectorXd& d,
                                   const std::vector<math::Matrix6>* added_inertia) {
  for (int b : bodies_) I_A_[b] = ws.I_B[b].ToMatrix();
  if (added_inertia != nullptr)
    for (int b : bodies_) I_A_[b] += (*added_inertia)[b];
  // Leaves to root: the joint's own inertia D, then what the parent sees through the joint.
  for (auto it = bodies_.rbegin(); it != bodies_.rend(); ++it) {
    const int b = *it;
    const Joint& joint = model.joints[b];
    math::Matrix6& I_A = I_A_[b];
    if (joint.v_start >= 0) {
      const MotionSubspace& S = ws.joint[b].S;
      // The inertia the parent feels: I_A - U D^-1 U^T (symmetric; formed as such). Hinges
      // and slides (D a number) and ball joints (3 x 3) take fixed-size kernels: the
      // dynamic-size Cholesky and its triangular solves cost more than the rest of it.
      if (joint.nv == 1) {
        const math::Vector6 U = I_A * S.col(0);
        double D = S.col(0).dot(U) + d[joint.v_start];
        if (joint.armature.size() == 1) D += joint.armature[0];
        if (!(D > 0.0)) return false;
        U_[b] = U;
        D_inv_[b].setConstant(1, 1, 1.0 / D);
        I_A.noalias() -= (U / D) * U.transpose();
      } else if (joint.nv == 3) {
        const Eigen::Matrix<double, 6, 3> U = I_A * S;
        Eigen::Matrix3d D = S.transpose() * U;
        D.diagonal() += d.segment<3>(joint.v_start);
        if (joint.armature.size() == 3) D.diagonal() += joint.armature;
        const Eigen::LLT<Eigen::Matrix3d> llt(D);
        if (llt.info() != Eigen::Success) return false;
        const Eigen::Matrix3d D_inv = llt.solve(Eigen::Matrix3d::Identity());
        U_[b] = U;
        D_inv_[b] = D_inv;
        I_A.noalias() -= (U * D_inv) * U.transpose();
      } else {
        U_[b].noalias() = I_A * S;
        JointMatrix D = S.transpose() * U_[b];
        D.diagonal() += d.segment(joint.v_start, joint.nv);
        if (joint.armature.size() == joint.nv) D.diagonal() += joint.armature;
        Eigen::LLT<JointMatrix> llt(D);
        if (llt.info() != Eigen::Success) return false;
        D_inv_[b].setIdentity(joint.nv, joint.nv);
        llt.solveInPlace(D_inv_[b]);
        const ForceBlock UD = U_[b] * D_inv_[b];
        I_A.noalias() -= UD * U_[b].transpose();
      }
    }
    const int p = parent_in_set_[b];
    if (p >= 0) {
      const math::Matrix6 X = math::MotionTransformToChild(ws.X_PB[b]);
      I_A_[p].noalias() += X.transpose() * I_A * X;
    }
  }
  return true;
}

void ArticulatedBodySolver::SolveInPlace(const Model& model, const Workspace& ws,
                                         Eigen::VectorXd* x) {
  for (int b : bodies_) p_A_[b].setZero();
  // Leaves to root: the generalized force each joint leaves unbalanced, and the force the
  // articulated body passes on to its parent.
  for (auto it = bodies_.rbegin(); it != bodies_.rend(); ++it) {
    const int b = *it;
    const Joint& joint = model.joints[b];
    math::Vector6 p_a = p_A_[b];
    if (joint.v_start >= 0 && joint.nv == 1) {  // a hinge or slide: scalars (see Factor)
      u_[b].setConstant(1, (*x)[joint.v_start] - ws.joint[b].S.col(0).dot(p_A_[b]));
      p_a.noalias() += (D_inv_[b](0, 0) * u_[b][0]) * U_[b].col(0);
    } else if (joint.v_start >= 0) {
      u_[b] = x->segment(joint.v_start, joint.nv);
      u_[b].noalias() -= ws.joint[b].S.transpose() * p_A_[b];
      const JointRates Du = D_inv_[b] * u_[b];
      p_a.noalias() += U_[b] * Du;
    }
    const int p = parent_in_set_[b];
    if (p >= 0) p_A_[p] += math::ForceToParent(ws.X_PB[b], p_a);
  }
  // Root to leaves: accelerations.
  for (int b : bodies_) {
    CarryParentAcceleration(ws, b);
    const Joint& joint = model.joints[b];
    if (joint.v_start < 0) continue;
    if (joint.nv == 1) {
      const double x_b = D_inv_[b](0, 0) * (u_[b][0] - U_[b].col(0).dot(a_[b]));
      (*x)[joint.v_start] = x_b;
      a_[b].noalias() += x_b * ws.joint[b].S.col(0);
      continue;
    }
    u_[b].noalias() -= U_[b].transpose() * a_[b];
    auto x_b = x->segment(joint.v_start, joint.nv);
    x_b.noalias() = D_inv_[b] * u_[b];
    a_[b].noalias() += ws.joint[b].S * x_b;
  }
}

void ArticulatedBodySolver::MultiplyMassMatrix(const Model& model, const Workspace& ws,
                                               const Eigen::VectorXd& x, Eigen::VectorXd* out) {
  // Root to leaves: the accelerations x gives each body (a_ holds them), and the force
  // each body needs for its own (p_A_ holds it, then the subtree's).
  for (int b : bodies_) {
    CarryParentAcceleration(ws, b);
    const Joint& joint = model.joints[b];
    if (joint.v_start >= 0) a_[b].noalias() += ws.joint[b].S * x.segment(joint.v_start, joint.nv);
    p_A_[b] = ws.I_B[b] * a_[b];
  }
  // Leaves to root: each joint carries its subtree's force.
  for (auto it = bodies_.rbegin(); it != bodies_.rend(); ++it) {
    const int b = *it;
    const Joint& joint = model.joints[b];
    if (joint.v_start >= 0) {
      auto out_b = out->segment(joint.v_start, joint.nv);
      out_b.noalias() = ws.joint[b].S.transpose() * p_A_[b];
      if (joint.armature.size() == joint.nv)
        out_b.array() += joint.armature.array() * x.segment(joint.v_start, joint.nv).array();
    }
    const int p = parent_in_set_[b];
    if (p >= 0) p_A_[p] += math::ForceToParent(ws.X_PB[b], p_A_[b]);
  }
}

void ArticulatedBodySolver::BodyVelocities(const Model& model, const Workspace& ws,
                                           const double* x, std::vector<math::Vector6>* V) const {
  CSIM_CHECK(static_cast<int>(V->size()) == model.num_bodies());
  for (int b : bodies_) {
    math::Vector6& V_b = (*V)[b];
    const int p = parent_in_set_[b];
    if (p >= 0) {
      V_b = math::MotionToChild(ws.X_PB[b], (*V)[p]);
    } else {
      V_b.setZero();
    }
    const Joint& joint = model.joints[b];
    if (joint.v_start >= 0)
      V_b.noalias() += ws.joint[b].S * Eigen::Map<const Eigen::VectorXd>(x + joint.v_start, joint.nv);
  }
}

void ArticulatedBodySolver::AddBodyForces(const Model& model, const Workspace& ws,
                                          std::vector<math::Vector6>* F, double* out) const {
  CSIM_CHECK(static_cast<int>(F->size()) == model.num_bodies());
  for (auto it = bodies_.rbegin(); it != bodies_.rend(); ++it) {
    const int b = *it;
    const math::Vector6& F_b = (*F)[b];
    const Joint& joint = model.joints[b];
    if (joint.v_start >= 0)
      Eigen::Map<Eigen::VectorXd>(out + joint.v_start, joint.nv).noalias() +=
          ws.joint[b].S.transpose() * F_b;
    const int p = parent_in_set_[b];
    if (p >= 0) (*F)[p] += math::ForceToParent(ws.X_PB[b], F_b);
  }
}

void ArticulatedBodySolver::InverseOperationalInertias(const Model& model, const Workspace& ws,
                                                       std::vector<math::Matrix6>* omega) const {
  CSIM_CHECK(static_cast<int>(omega->size()) == model.num_bodies());
  // A force f on b moves its joint by D^-1 S^T f and passes (I - U D^-1 S^T) f on to the
  // parent, whose acceleration comes back through the joint as (I - S D^-1 U^T) X a_parent.
  // Hence Omega_b = S D^-1 S^T + P X Omega_parent X^T P^T with P = I - S D^-1 U^T, and
  // Omega = 0 for a parent outside the set (it does not accelerate).
  for (int b : bodies_) {
    math::Matrix6& O = (*omega)[b];
    const int p = parent_in_set_[b];
    if (p >= 0) {
      const math::Matrix6 X = math::MotionTransformToChild(ws.X_PB[b]);
      O.noalias() = X * (*omega)[p] * X.transpose();
    } else {
      O.setZero();
    }
    const Joint& joint = model.joints[b];
    if (joint.v_start < 0) continue;  // welded to the parent: moves with it
    const MotionSubspace& S = ws.joint[b].S;
    if (joint.nv == 1) {
      // P O P^T with P = I - sd u^T, as rank-one updates: O - sd (O^T u)^T - (O u) sd^T
      // + (u^T O u) sd sd^T, instead of two 6 x 6 products (see Factor).
      const math::Vector6 sd = D_inv_[b](0, 0) * S.col(0);
      const math::Vector6 u = U_[b].col(0);
      const math::Vector6 Ou = O * u, OTu = O.transpose() * u;
      const double uOu = u.dot(Ou);
      O.noalias() -= sd * OTu.transpose();
      O.noalias() -= Ou * sd.transpose();
      O.noalias() += (uOu * sd + S.col(0)) * sd.transpose();
      continue;
    }
    const ForceBlock SD = S * D_inv_[b];
    math::Matrix6 P = math::Matrix6::Identity();
    P.noalias() -= SD * U_[b].transpose();
    const math::Matrix6 PO = P * O;
    O.noalias() = PO * P.transpose();
    O.noalias() += SD * S.transpose();
  }
}

void ArticulatedBodySolver::MassMatrixDiagonal(const Model& model, const Workspace& ws,
                                               Eigen::VectorXd* out) const {
  for (int b : bodies_) {
    const Joint& joint = model.joints[b];
    if (joint.v_start < 0) continue;
    const MotionSubspace& S = ws.joint[b].S;
    for (int k = 0; k < joint.nv; ++k)
      (*out)[joint.v_start + k] = S.col(k).dot(ws.Ic[b] * S.col(k));
    if (joint.armature.size() == joint.nv)
      out->segment(joint.v_start, joint.nv) += joint.armature;
  }
}

}  // namespace csim::multibody
