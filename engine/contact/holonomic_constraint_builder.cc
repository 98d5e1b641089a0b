#include "engine/contact/holonomic_constraint_builder.h"

#include <algorithm>
#include <cmath>

#include "engine/common/check.h"
#include "engine/multibody/jacobians.h"
#include "engine/solver/holonomic_constraint_kinematics.h"
#include "engine/solver/sap_holonomic_constraint.h"

namespace csim::contact {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using multibody::HolonomicConstraint;
using multibody::HolonomicType;

// J (rows x n) of a distance, ball or weld constraint from the two sides' Jacobians on the
// same n columns (either side may be zero); linear in them (holonomic_constraint_kinematics.h).
void FillJacobian(HolonomicType type, const Vector3d& phat_W, const Vector3d& p_WP,
                  const Vector3d& p_WQ, const Eigen::Ref<const Eigen::MatrixXd>& Jw_a,
                  const Eigen::Ref<const Eigen::MatrixXd>& Jv_a,
                  const Eigen::Ref<const Eigen::MatrixXd>& Jw_b,
                  const Eigen::Ref<const Eigen::MatrixXd>& Jv_b, Eigen::Ref<Eigen::MatrixXd> J) {
  switch (type) {
    case HolonomicType::kDistance: solver::CalcDistanceJacobian(phat_W, Jv_a, Jv_b, J); return;
    case HolonomicType::kBall: solver::CalcBallJacobian(Jv_a, Jv_b, J); return;
    case HolonomicType::kWeld:
      solver::CalcWeldJacobian(p_WP, Jw_a, Jv_a, p_WQ, Jw_b, Jv_b, J);
      return;
    case HolonomicType::kCoupler: break;
  }
  CSIM_CHECK(false);  // couplers have their own path
}

}  // namespace

HolonomicConstraintBuilder::HolonomicConstraintBuilder(const multibody::Model& model,
                                                       const multibody::TreeTopology& topology)
    : topology_(topology), row_offset_(multibody::HolonomicRowOffsets(model.constraints)) {
  constraint_.assign(model.constraints.size(), -1);
  moved_by_prescribed_.assign(model.num_bodies(), 0);
  for (int b = 0; b < model.num_bodies(); ++b)
    for (int i = b; i >= 0 && !moved_by_prescribed_[b]; i = model.parent[i])
      moved_by_prescribed_[b] = model.joints[i].prescribed;
  int n = 1;
  for (int t = 0; t < topology.num_trees(); ++t) n = std::max(n, topology.tree_nv[t]);
  for (Eigen::MatrixXd* J : {&Jw_a_, &Jv_a_, &Jw_b_, &Jv_b_, &zero_}) J->setZero(3, n);
  bias_.setZero(6, 1);
}

HolonomicConstraintBuilder::Side HolonomicConstraintBuilder::MakeSide(
    const multibody::Model& model, const multibody::Workspace& kin, const Eigen::VectorXd& v0,
    int body, const math::RigidTransform& X_BF, Eigen::Ref<Eigen::MatrixXd> Jw,
    Eigen::Ref<Eigen::MatrixXd> Jv) const {
  Side s;
  s.body = body;
  if (body < 0) {  // the world: F is given in world coordinates
    s.R_WF = X_BF.R;
    s.p_WF = X_BF.p;
    return s;
  }
  const math::RigidTransform& X_WB = kin.X_WB[body];
  s.R_WF = X_WB.R * X_BF.R;
  s.p_WF = X_WB.R * X_BF.p + X_WB.p;
  s.tree = topology_.body_tree[body];
  const int n = s.tree >= 0 ? topology_.tree_nv[s.tree] : 0;
  if (n > 0) {
    multibody::CalcFrameJacobianColumns(model, kin, body, s.p_WF, topology_.tree_v_start[s.tree],
                                        Jw.leftCols(n), Jv.leftCols(n));
  }
  s.known = s.tree < 0 || moved_by_prescribed_[body];
  if (s.known) {
    // Total velocity at (q0, v0) minus what the unknowns carry.
    s.w_known = X_WB.R * kin.V_B[body].head<3>();
    s.v_known = multibody::CalcPointVelocity(model, kin, body, s.p_WF);
    if (n > 0) {
      const auto v_tree = v0.segment(topology_.tree_v_start[s.tree], n);
      s.w_known -= Jw.leftCols(n) * v_tree;
      s.v_known -= Jv.leftCols(n) * v_tree;
    }
  }
  return s;
}

void HolonomicConstraintBuilder::Add(const multibody::Model& model,
                                     const multibody::Workspace& kin, const Eigen::VectorXd& q0,
                                     const Eigen::VectorXd& v0, solver::ContactProblem* problem) {
  for (size_t i = 0; i < model.constraints.size(); ++i) {
    const HolonomicConstraint& c = model.constraints[i];
    const int k = problem->num_constraints();
    bool added = true;
    if (c.type == HolonomicType::kCoupler) {
      AddCoupler(model, c, q0, problem);
    } else {
      added = AddBodyConstraint(model, c, kin, v0, problem);
    }
    constraint_[i] = added ? k : -1;
  }
}

void HolonomicConstraintBuilder::AddCoupler(const multibody::Model& model,
                                            const HolonomicConstraint& c,
                                            const Eigen::VectorXd& q0,
                                            solver::ContactProblem* problem) const {
  // Both joints own one coordinate with q_dot = v (the loader checks it).
  const multibody::Joint& joint_a = model.joints[c.joint];
  const multibody::Joint& joint_b = model.joints[c.follows];
  const int tree_a = topology_.body_tree[c.joint], tree_b = topology_.body_tree[c.follows];
  CSIM_CHECK(tree_a >= 0 && tree_b >= 0 && joint_a.v_start >= 0 && joint_b.v_start >= 0);
  const int dof_a = joint_a.v_start - topology_.tree_v_start[tree_a];
  const int dof_b = joint_b.v_start - topology_.tree_v_start[tree_b];
  solver::SapHolonomicParameters p;
  p.num_rows = 1;
  p.g0[0] = solver::CouplerFunction(q0[joint_a.q_start], q0[joint_b.q_start], c.ratio, c.offset);
  const solver::SapHolonomicConstraint constraint(p);
  if (tree_a == tree_b) {
    problem->AddConstraintWith(
        tree_a,
        [&](Eigen::Map<Eigen::MatrixXd> J) { solver::CouplerJacobian(dof_a, dof_b, c.ratio, J); },
        constraint);
  } else {
    problem->AddConstraintWith(
        tree_a, tree_b,
        [&](Eigen::Map<Eigen::MatrixXd> J_a, Eigen::Map<Eigen::MatrixXd> J_b) {
          solver::CouplerJacobians(dof_a, dof_b, c.ratio, J_a, J_b);
        },
        constraint);
  }
}

bool HolonomicConstraintBuilder::AddBodyConstraint(const multibody::Model& model,
                                                   const HolonomicConstraint& c,
                                                   const multibody::Workspace& kin,
                                                   const Eigen::VectorXd& v0,
                                                   solver::ContactProblem* problem) {
  const Side a = MakeSide(model, kin, v0, c.body_a, c.X_AP, Jw_a_, Jv_a_);
  const Side b = MakeSide(model, kin, v0, c.body_b, c.X_BQ, Jw_b_, Jv_b_);
  if (a.tree < 0 && b.tree < 0) return false;  // nothing can move: it cannot act
  solver::SapHolonomicParameters p;
  p.num_rows = multibody::HolonomicRows(c.type);
  Vector3d phat_W = Vector3d::Zero();
  switch (c.type) {
    case HolonomicType::kDistance: {
      if ((b.p_WF - a.p_WF).norm() <= 1e-12 * std::max(1.0, c.length)) return false;
      const solver::DistanceKinematics d = solver::CalcDistanceKinematics(a.p_WF, b.p_WF, c.length);
      phat_W = d.phat_W;
      p.g0[0] = d.g;
      p.stiffness[0] = c.stiffness;
      p.relaxation_time[0] = std::isinf(c.stiffness) ? 0.0 : c.damping / c.stiffness;
      break;
    }
    case HolonomicType::kBall: {
      const Vector3d g = solver::BallFunction(a.p_WF, b.p_WF);
      for (int e = 0; e < 3; ++e) p.g0[e] = g[e];
      break;
    }
    case HolonomicType::kWeld: {
      const solver::Vector6d g = solver::WeldFunction(a.R_WF, a.p_WF, b.R_WF, b.p_WF);
      for (int e = 0; e < 6; ++e) p.g0[e] = g[e];
      break;
    }
    case HolonomicType::kCoupler: CSIM_CHECK(false);
  }
  // The known motion's part of g_dot, through the same maps as the Jacobian's columns.
  if (a.known || b.known) {
    const Eigen::Map<const Eigen::MatrixXd> wa(a.w_known.data(), 3, 1), va(a.v_known.data(), 3, 1);
    const Eigen::Map<const Eigen::MatrixXd> wb(b.w_known.data(), 3, 1), vb(b.v_known.data(), 3, 1);
    auto bias = bias_.topRows(p.num_rows);
    FillJacobian(c.type, phat_W, a.p_WF, b.p_WF, wa, va, wb, vb, bias);
    for (int e = 0; e < p.num_rows; ++e) p.bias[e] = bias(e, 0);
  }
  const solver::SapHolonomicConstraint constraint(p);
  const int na = a.tree >= 0 ? topology_.tree_nv[a.tree] : 0;
  const int nb = b.tree >= 0 ? topology_.tree_nv[b.tree] : 0;
  if (a.tree == b.tree) {
    // One tree holds both sides: a kinematic loop on one clique.
    problem->AddConstraintWith(
        b.tree,
        [&](Eigen::Map<Eigen::MatrixXd> J) {
          FillJacobian(c.type, phat_W, a.p_WF, b.p_WF, Jw_a_.leftCols(na), Jv_a_.leftCols(na),
                       Jw_b_.leftCols(nb), Jv_b_.leftCols(nb), J);
        },
        constraint);
  } else if (a.tree < 0) {
    problem->AddConstraintWith(
        b.tree,
        [&](Eigen::Map<Eigen::MatrixXd> J) {
          FillJacobian(c.type, phat_W, a.p_WF, b.p_WF, zero_.leftCols(nb), zero_.leftCols(nb),
                       Jw_b_.leftCols(nb), Jv_b_.leftCols(nb), J);
        },
        constraint);
  } else if (b.tree < 0) {
    problem->AddConstraintWith(
        a.tree,
        [&](Eigen::Map<Eigen::MatrixXd> J) {
          FillJacobian(c.type, phat_W, a.p_WF, b.p_WF, Jw_a_.leftCols(na), Jv_a_.leftCols(na),
                       zero_.leftCols(na), zero_.leftCols(na), J);
        },
        constraint);
  } else {
    // Two trees: each clique's block with the other side's Jacobian zero.
    problem->AddConstraintWith(
        a.tree, b.tree,
        [&](Eigen::Map<Eigen::MatrixXd> J_a, Eigen::Map<Eigen::MatrixXd> J_b) {
          FillJacobian(c.type, phat_W, a.p_WF, b.p_WF, Jw_a_.leftCols(na), Jv_a_.leftCols(na),
                       zero_.leftCols(na), zero_.leftCols(na), J_a);
          FillJacobian(c.type, phat_W, a.p_WF, b.p_WF, zero_.leftCols(nb), zero_.leftCols(nb),
                       Jw_b_.leftCols(nb), Jv_b_.leftCols(nb), J_b);
        },
        constraint);
  }
  return true;
}

void HolonomicConstraintBuilder::Report(const solver::ContactProblem& problem,
                                        const solver::SapSolverResult& result,
                                        Eigen::VectorXd* impulse) const {
  impulse->setZero(num_rows());
  for (size_t i = 0; i < constraint_.size(); ++i) {
    if (constraint_[i] < 0) continue;
    const solver::ConstraintEntry& e = problem.entry(constraint_[i]);
    impulse->segment(row_offset_[i], e.num_rows) = result.gamma.segment(e.row_offset, e.num_rows);
  }
}

}  // namespace csim::contact
