#include "engine/solver/sap_products.h"

#include "engine/common/array_predicates.h"

namespace csim::solver {
namespace {

using VecMap = Eigen::Map<Eigen::VectorXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;

// A 3 x 6 Jacobian block (a contact on a free body, the common case) and a 6-vector:
// fixed-size maps let Eigen unroll the products instead of calling its general kernels.
using ContactBlockMap = Eigen::Map<const Eigen::Matrix<double, 3, 6>>;
using Vector6Map = Eigen::Map<const Eigen::Matrix<double, 6, 1>>;

}  // namespace

void ConstraintVelocity(const SapWorkspace& ws, int k, const double* v, double* v_c) {
  const ContactProblem& p = *ws.problem;
  const ConstraintEntry& e = p.entry(k);
  if (e.point_contact >= 0) {
    // v_c = R^T sum_b sign_b (v_b + omega_b x r_b) (PointContactJacobian).
    const PointContactJacobian& f = p.point_contact(k);
    Eigen::Vector3d u = Eigen::Vector3d::Zero();
    for (int b = 0; b < e.num_cliques; ++b) {
      const double* v_b = v + ws.reduced_offset[e.clique[b]];
      const Eigen::Map<const Eigen::Vector3d> omega(v_b), v_o(v_b + 3);
      u += f.sign[b] * (v_o + omega.cross(f.r_W[b]));
    }
    Eigen::Map<Eigen::Vector3d>(v_c + e.row_offset).noalias() = f.R_WC.transpose() * u;
    return;
  }
  VecMap vc_k(v_c + e.row_offset, e.num_rows);
  if (e.num_rows == 3) {
    // Three stores: the dynamic-size setZero is a memset call per constraint per evaluation.
    Eigen::Map<Eigen::Vector3d>(vc_k.data()).setZero();
  } else {
    vc_k.setZero();
  }
  for (int b = 0; b < e.num_cliques; ++b) {
    const int c = e.clique[b];
    const double* v_c_b = v + ws.reduced_offset[c];
    const int m = p.clique_size(c);
    if (e.num_rows == 3 && m == 6) {  // contact on a free body: fixed size
      vc_k.noalias() += ContactBlockMap(p.jacobian_block(k, b)) * Vector6Map(v_c_b);
    } else if (e.num_rows == 3 && m < 6) {
      // A contact on a small tree: J v row by row, each sum over the columns in order from
      // 0, then added (Eigen's matrix-vector kernel's sums, without its call).
      const double* J = p.jacobian_block(k, b);
      for (int r = 0; r < 3; ++r) {
        double sum = 0.0;
        for (int j = 0; j < m; ++j) sum += J[r + 3 * j] * v_c_b[j];
        vc_k[r] += sum;
      }
    } else {
      vc_k.noalias() += p.jacobian(k, b) * ConstVecMap(v_c_b, p.clique_size(c));
    }
  }
}

void AddJTransposeTimes(const SapWorkspace& ws, int k, const double* gamma, double* out) {
  const ContactProblem& p = *ws.problem;
  const ConstraintEntry& e = p.entry(k);
  // Most impulses of a step are zero (candidates apart, constraints not predicted): adding
  // J^T 0 would only turn -0 into +0.
  if (AllZero(gamma + e.row_offset, e.num_rows)) return;
  if (e.point_contact >= 0) {
    // J_b^T gamma = sign_b (r_b x F, F) with F = R gamma, the impulse in world axes.
    const PointContactJacobian& f = p.point_contact(k);
    const Eigen::Vector3d F = f.R_WC * Eigen::Map<const Eigen::Vector3d>(gamma + e.row_offset);
    for (int b = 0; b < e.num_cliques; ++b) {
      double* out_b = out + ws.reduced_offset[e.clique[b]];
      const Eigen::Vector3d F_b = f.sign[b] * F;
      Eigen::Map<Eigen::Vector3d>(out_b) += f.r_W[b].cross(F_b);
      Eigen::Map<Eigen::Vector3d>(out_b + 3) += F_b;
    }
    return;
  }
  const ConstVecMap gamma_k(gamma + e.row_offset, e.num_rows);
  for (int b = 0; b < e.num_cliques; ++b) {
    const int c = e.clique[b];
    double* out_b = out + ws.reduced_offset[c];
    const int m = p.clique_size(c);
    if (e.num_rows == 3 && m == 6) {  // contact on a free body: fixed size
      Eigen::Map<Eigen::Matrix<double, 6, 1>>(out_b).noalias() +=
          ContactBlockMap(p.jacobian_block(k, b)).transpose() *
          Eigen::Map<const Eigen::Vector3d>(gamma + e.row_offset);
    } else if (e.num_rows == 3 && m < 6) {
      // A contact on a small tree: each velocity's J(:, j) . gamma, then added.
      const double* J = p.jacobian_block(k, b);
      const double* g = gamma + e.row_offset;
      for (int j = 0; j < m; ++j)
        out_b[j] += J[3 * j] * g[0] + J[3 * j + 1] * g[1] + J[3 * j + 2] * g[2];
    } else {
      VecMap(out_b, p.clique_size(c)).noalias() += p.jacobian(k, b).transpose() * gamma_k;
    }
  }
}

void IslandConstraintVelocities(const SapWorkspace& ws, int i, const double* v, double* v_c) {
  const ContactProblem& p = *ws.problem;
  const Islands& is = ws.islands;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (ws.body_maps[c]) p.clique_solver(c)->CalcBodyVelocities(v + ws.reduced_offset[c]);
  }
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    if (e.body_jacobian >= 0 && ws.body_maps[e.clique[0]]) {
      const BodyJacobian& f = p.body_jacobian(k);
      Eigen::Map<Eigen::Vector3d>(v_c + e.row_offset).noalias() =
          f.W * p.clique_solver(e.clique[0])->body_velocity(f.body);
    } else {
      ConstraintVelocity(ws, k, v, v_c);
    }
  }
}

void IslandAddJTransposeTimes(const SapWorkspace& ws, int i, const double* gamma, double* out) {
  const ContactProblem& p = *ws.problem;
  const Islands& is = ws.islands;
  bool any_body_force = false;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (ws.body_maps[c]) p.clique_solver(c)->ClearBodyForces();
  }
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    if (e.body_jacobian >= 0 && ws.body_maps[e.clique[0]]) {
      const Eigen::Map<const Eigen::Vector3d> gamma_k(gamma + e.row_offset);
      if (gamma_k.isZero(0.0)) continue;  // as AddJTransposeTimes: most impulses are zero
      const BodyJacobian& f = p.body_jacobian(k);
      p.clique_solver(e.clique[0])->AddBodyForce(f.body, f.W.transpose() * gamma_k);
      any_body_force = true;
    } else {
      AddJTransposeTimes(ws, k, gamma, out);
    }
  }
  if (!any_body_force) return;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (ws.body_maps[c]) p.clique_solver(c)->ApplyBodyForces(out + ws.reduced_offset[c]);
  }
}

}  // namespace csim::solver
