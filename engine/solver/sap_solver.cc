#include "engine/solver/sap_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "engine/common/array_predicates.h"
#include "engine/common/check.h"
#include "engine/solver/islands.h"
#include "engine/solver/line_search.h"

namespace csim::solver {
namespace {

using Clock = std::chrono::steady_clock;
using VecMap = Eigen::Map<Eigen::VectorXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A 3 x 6 Jacobian block (a contact on a free body, the common case) and a 6-vector:
// fixed-size maps let Eigen unroll the products instead of calling its general kernels.
using ContactBlockMap = Eigen::Map<const Eigen::Matrix<double, 3, 6>>;
using Vector6Map = Eigen::Map<const Eigen::Matrix<double, 6, 1>>;

bool Succeeded(SapTermination t) {
  return t == SapTermination::kNoConstraints || t == SapTermination::kOptimality ||
         t == SapTermination::kCostStagnation;
}

}  // namespace

const char* SapTerminationName(SapTermination t) {
  switch (t) {
    case SapTermination::kNoConstraints: return "no constraints";
    case SapTermination::kOptimality: return "optimality criterion";
    case SapTermination::kCostStagnation: return "cost criterion";
    case SapTermination::kMaxIterations: return "maximum iterations reached";
    case SapTermination::kLineSearchFailed: return "line search failed";
    case SapTermination::kNotDescent: return "Newton direction is not a descent direction";
    case SapTermination::kNonFinite: return "non-finite value";
    case SapTermination::kInterrupted: return "interrupted";
  }
  return "unknown";
}

// ell(alpha) = ell_p(v + alpha dv), with O(n) derivatives from precomputed A dv, J dv
// (math.md §4.4; SAP §IV-C):
//   ell(alpha)   = ell_A(0) + alpha dv^T A (v - v*) + 1/2 alpha^2 dv^T A dv + sum ell_k
//   ell'(alpha)  = dv^T A (v - v*) + alpha dv^T A dv - (J dv)^T gamma(alpha)
//   ell''(alpha) = dv^T A dv + sum_k (J_k dv)^T G_k(alpha) (J_k dv)
class SapSolver::AlongDirection final : public LineSearchFunction {
 public:
  // Along dv on island `island`, whose ell_A(0) is ell_A; G_trial holds one G block.
  AlongDirection(SapSolver& s, int island, double ell_A, double c1, double a2, double* G_trial)
      : s_(s), island_(island), ell_A_(ell_A), c1_(c1), a2_(a2), G_trial_(G_trial) {}

  // Constraints that stay on one quadratic piece of their cost over the search's bracket
  // [0, alpha_1] (alpha_1: the first evaluation, alpha_max for the exact search, which never
  // leaves that bracket) are evaluated once: from the second evaluation on, their part of
  // ell, ell' and ell'' is the exact quadratic through their values at alpha_1, summed
  // once. Why: in a collapsing pile most contacts of a large island stay stuck (or apart)
  // along the direction while a few slide or change region, and the exact search takes 3-6
  // evaluations there. A piece is a convex set (Constraint::QuadraticPieceAt), so the same
  // piece at both ends of the bracket means the same piece in between. Only the evaluation
  // order of the sums changes (round-off).
  void Eval(double alpha, double* ell, double* d1, double* d2) override {
    // Plain pointers, loaded once: across the virtual calls in EvalConstraint the compiler
    // would otherwise reload each workspace's data pointer for every constraint (with the
    // unrolled contact rows: 134 M -> 80 M instructions in Eval, callgrind, clutter-40, 500
    // steps, the same bits).
    const Rows rows{s_.vc_.data(), s_.dvc_.data(), s_.vc_trial_.data(), s_.gamma_trial_.data()};
    double cost = 0.0, dvc_gamma = 0.0, dvc_G_dvc = 0.0;
    if (evaluations_ == 1 && alpha_1_has_curvature_ && d2 != nullptr) SplitConstraints();
    if (split_) {
      // The frozen constraints' quadratic, from alpha_1.
      const double da = alpha - alpha_1_;
      cost = frozen_cost_ + da * frozen_slope_ + 0.5 * da * da * frozen_curvature_;
      dvc_gamma = -(frozen_slope_ + da * frozen_curvature_);  // ell_k' = -(J_k dv)^T gamma_k
      dvc_G_dvc = frozen_curvature_;
      const int* const active = s_.along_active_.data();
      const int begin = s_.islands_.constraint_start[island_];
      for (int q = begin; q < begin + num_active_; ++q)
        EvalConstraint<false>(rows, active[q], alpha, d2 != nullptr, &cost, &dvc_gamma,
                              &dvc_G_dvc);
    } else {
      const int* const constraints = s_.islands_.constraints.data();
      const int begin = s_.islands_.constraint_start[island_];
      const int end = s_.islands_.constraint_start[island_ + 1];
      if (evaluations_ == 0 && d2 != nullptr) {
        for (int q = begin; q < end; ++q)
          EvalConstraint<true>(rows, constraints[q], alpha, true, &cost, &dvc_gamma, &dvc_G_dvc);
        alpha_1_ = alpha;
        alpha_1_has_curvature_ = true;
      } else {
        for (int q = begin; q < end; ++q)
          EvalConstraint<false>(rows, constraints[q], alpha, d2 != nullptr, &cost, &dvc_gamma,
                                &dvc_G_dvc);
      }
    }
    ++evaluations_;
    *ell = ell_A_ + alpha * c1_ + 0.5 * alpha * alpha * a2_ + cost;
    *d1 = c1_ + alpha * a2_ - dvc_gamma;
    if (d2 != nullptr) *d2 = a2_ + dvc_G_dvc;
  }

 private:
  // The constraint-row workspaces: J v, J dv, and the trial J (v + alpha dv) and gamma.
  struct Rows {
    const double* vc;
    const double* dvc;
    double* vc_trial;
    double* gamma_trial;
  };

  // Adds constraint k's ell_k, (J_k dv)^T gamma_k and, with curvature, (J_k dv)^T G_k (J_k dv)
  // at alpha; with kRecord also keeps them, and its piece, for SplitConstraints.
  template <bool kRecord>
  void EvalConstraint(const Rows& rows, int k, double alpha, bool curvature, double* cost,
                      double* dvc_gamma, double* dvc_G_dvc) {
    const double* const vc = rows.vc;
    const double* const dvc = rows.dvc;
    double* const vc_trial = rows.vc_trial;
    double* const gamma_trial = rows.gamma_trial;
    const ConstraintEntry& e = s_.problem_->entry(k);
    const int r = e.row_offset, n = e.num_rows;
    if (n == 3) {  // a contact, unrolled
      vc_trial[r] = vc[r] + alpha * dvc[r];
      vc_trial[r + 1] = vc[r + 1] + alpha * dvc[r + 1];
      vc_trial[r + 2] = vc[r + 2] + alpha * dvc[r + 2];
    } else {
      for (int i = r; i < r + n; ++i) vc_trial[i] = vc[i] + alpha * dvc[i];
    }
    double cost_k, curvature_k = 0.0;
    int piece = -1;
    if (curvature) {
      cost_k = e.constraint->CalcAlong(&vc_trial[r], &dvc[r], &gamma_trial[r], &curvature_k,
                                       &piece, G_trial_);
    } else {
      cost_k = e.constraint->Calc(&vc_trial[r], &gamma_trial[r], nullptr, nullptr);
    }
    double dvc_gamma_k;
    if (n == 3) {
      // Eigen's dynamic-size dot for three entries, (d0 g0 + d1 g1) + d2 g2 (one packet of
      // two, then the tail), without its size and alignment dispatch.
      dvc_gamma_k = (dvc[r] * gamma_trial[r] + dvc[r + 1] * gamma_trial[r + 1]) +
                    dvc[r + 2] * gamma_trial[r + 2];
    } else {
      dvc_gamma_k = ConstVecMap(&dvc[r], n).dot(ConstVecMap(&gamma_trial[r], n));
    }
    *cost += cost_k;
    *dvc_gamma += dvc_gamma_k;
    *dvc_G_dvc += curvature_k;
    if (kRecord) {
      s_.along_piece_[k] = piece;
      s_.along_cost_[k] = cost_k;
      s_.along_slope_[k] = -dvc_gamma_k;
      s_.along_curvature_[k] = curvature_k;
    }
  }

  // After the first evaluation (at alpha_1, vc_trial still holds its constraint velocities):
  // the constraints on the same quadratic piece at alpha = 0 and alpha_1 go into the frozen
  // sums, the others into the island's range of along_active_. The piece at alpha = 0 is
  // the one EvalIsland's Calc found at the same v (piece_).
  void SplitConstraints() {
    const Islands& is = s_.islands_;
    int* const active = s_.along_active_.data();
    const int begin = is.constraint_start[island_], end = is.constraint_start[island_ + 1];
    num_active_ = 0;
    for (int q = begin; q < end; ++q) {
      const int k = is.constraints[q];
      const int piece = s_.along_piece_[k];
      if (piece >= 0 && s_.piece_[k] == piece) {
        frozen_cost_ += s_.along_cost_[k];
        frozen_slope_ += s_.along_slope_[k];
        frozen_curvature_ += s_.along_curvature_[k];
      } else {
        active[begin + num_active_++] = k;
      }
    }
    split_ = true;
  }

  SapSolver& s_;
  int island_;
  double ell_A_;  // 1/2 ||v - v*||_A^2 on the island
  double c1_;     // dv^T A (v - v*)
  double a2_;     // dv^T A dv
  double* G_trial_;  // the calling thread's scratch
  int evaluations_ = 0;
  double alpha_1_ = 0.0;              // the first evaluation's alpha
  bool alpha_1_has_curvature_ = false;  // it recorded pieces and curvatures
  bool split_ = false;                // SplitConstraints ran
  int num_active_ = 0;                // constraints still evaluated
  // Sums over the frozen constraints at alpha_1: ell_k, ell_k' and ell_k''.
  double frozen_cost_ = 0.0, frozen_slope_ = 0.0, frozen_curvature_ = 0.0;
};

SapSolver::SapSolver(const SapSolverParameters& parameters) : parameters_(parameters) {}

void SapSolver::set_num_threads(int num_threads) {
  CSIM_CHECK(num_threads >= 1);
  if (num_threads == this->num_threads()) return;
  pool_.reset();  // joins the old workers first
  if (num_threads > 1) pool_ = std::make_unique<ThreadPool>(num_threads);
}

void SapSolver::Setup(const ContactProblem& problem) {
  problem_ = &problem;
  // Participating cliques: touched by at least one constraint (math.md §4.1).
  reduced_offset_.assign(problem.num_cliques(), -1);
  for (int k = 0; k < problem.num_constraints(); ++k)
    for (int b = 0; b < problem.entry(k).num_cliques; ++b)
      reduced_offset_[problem.entry(k).clique[b]] = 0;
  nr_ = 0;
  for (int c = 0; c < problem.num_cliques(); ++c) {
    if (reduced_offset_[c] < 0) continue;
    reduced_offset_[c] = nr_;
    nr_ += problem.clique_size(c);
  }
  nc_ = problem.num_constraint_rows();
  G_offset_.resize(problem.num_constraints());
  int G_size = 0;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    G_offset_[k] = G_size;
    G_size += problem.entry(k).num_rows * problem.entry(k).num_rows;
  }
  for (auto* x : {&v_, &v_star_, &grad_, &p_, &jc_, &D_, &dv_, &A_dv_, &A_v_star_, &rhs_})
    x->resize(nr_);
  for (auto* x : {&vc_, &dvc_, &gamma_, &vc_trial_, &gamma_trial_, &gamma_change_}) x->resize(nc_);
  G_.resize(G_size);
  predicted_now_.assign(problem.num_constraints(), 0);
  for (auto* x : {&along_cost_, &along_slope_, &along_curvature_}) x->resize(problem.num_constraints());
  along_piece_.resize(problem.num_constraints());
  piece_.resize(problem.num_constraints());
  along_active_.resize(problem.num_constraints());
  crossed_.assign(problem.num_constraints(), 0);
  refuted_.assign(problem.num_constraints(), 0);
  body_maps_.assign(problem.num_cliques(), 0);
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const ConstraintEntry& e = problem.entry(k);
    if (e.body_jacobian >= 0 && problem.clique_solver(e.clique[0]) != nullptr)
      body_maps_[e.clique[0]] = 1;
  }
  // Per-thread scratch, sized here so that no thread allocates during the solve.
  if (scratch_.size() < static_cast<size_t>(num_threads())) scratch_.resize(num_threads());
  const size_t G_block = static_cast<size_t>(problem.max_constraint_rows()) * problem.max_constraint_rows();
  for (ThreadScratch& w : scratch_)
    if (w.G_trial.size() < G_block) w.G_trial.resize(G_block);
  // Reduced v*, A v* and the scaling D = diag(A)^{-1/2} (math.md §4.2).
  for (int c = 0; c < problem.num_cliques(); ++c) {
    const int o = reduced_offset_[c], m = problem.clique_size(c);
    if (o < 0) continue;
    VecMap(&v_star_[o], m) = problem.v_star().segment(problem.clique_offset(c), m);
    if (problem.has_A(c)) {
      VecMap(&D_[o], m) = problem.A(c).diagonal().cwiseSqrt().cwiseInverse();
    } else {  // a matrix-free clique: its kept 1 / A_ii
      VecMap(&D_[o], m) = ConstVecMap(problem.inverse_diagonal_of_A(c), m).cwiseSqrt();
    }
  }
  for (int c = 0; c < problem.num_cliques(); ++c)
    if (reduced_offset_[c] >= 0) MultiplyByA(c, v_star_.data(), A_v_star_.data());
}

void SapSolver::ConstraintVelocity(int k, const double* v, double* v_c) const {
  const ContactProblem& p = *problem_;
  const ConstraintEntry& e = p.entry(k);
  if (e.point_contact >= 0) {
    // v_c = R^T sum_b sign_b (v_b + w_b x r_b) (PointContactJacobian).
    const PointContactJacobian& f = p.point_contact(k);
    Eigen::Vector3d u = Eigen::Vector3d::Zero();
    for (int b = 0; b < e.num_cliques; ++b) {
      const double* v_b = v + reduced_offset_[e.clique[b]];
      const Eigen::Map<const Eigen::Vector3d> w(v_b), v_o(v_b + 3);
      u += f.sign[b] * (v_o + w.cross(f.r_W[b]));
    }
    Eigen::Map<Eigen::Vector3d>(v_c + e.row_offset).noalias() = f.R_WC.transpose() * u;
    return;
  }
  VecMap vc_k(v_c + e.row_offset, e.num_rows);
  if (e.num_rows == 3) {
    // Three stores: the dynamic-size setZero was a memset call per constraint per
    // evaluation (0.75 % of a clutter-40 run).
    Eigen::Map<Eigen::Vector3d>(vc_k.data()).setZero();
  } else {
    vc_k.setZero();
  }
  for (int b = 0; b < e.num_cliques; ++b) {
    const int c = e.clique[b];
    const double* v_c_b = v + reduced_offset_[c];
    if (e.num_rows == 3 && p.clique_size(c) == 6) {  // contact on a free body: fixed size
      vc_k.noalias() += ContactBlockMap(p.jacobian_block(k, b)) * Vector6Map(v_c_b);
    } else {
      vc_k.noalias() += p.jacobian(k, b) * ConstVecMap(v_c_b, p.clique_size(c));
    }
  }
}

void SapSolver::AddJTransposeTimes(int k, const double* gamma, double* out) const {
  const ContactProblem& p = *problem_;
  const ConstraintEntry& e = p.entry(k);
  // Most impulses of a step are zero (candidates apart, constraints not predicted): adding
  // J^T 0 would only turn -0 into +0.
  if (AllZero(gamma + e.row_offset, e.num_rows)) return;
  if (e.point_contact >= 0) {
    // J_b^T gamma = sign_b (r_b x F, F) with F = R gamma, the impulse in world axes.
    const PointContactJacobian& f = p.point_contact(k);
    const Eigen::Vector3d F = f.R_WC * Eigen::Map<const Eigen::Vector3d>(gamma + e.row_offset);
    for (int b = 0; b < e.num_cliques; ++b) {
      double* out_b = out + reduced_offset_[e.clique[b]];
      const Eigen::Vector3d F_b = f.sign[b] * F;
      Eigen::Map<Eigen::Vector3d>(out_b) += f.r_W[b].cross(F_b);
      Eigen::Map<Eigen::Vector3d>(out_b + 3) += F_b;
    }
    return;
  }
  const ConstVecMap gamma_k(gamma + e.row_offset, e.num_rows);
  for (int b = 0; b < e.num_cliques; ++b) {
    const int c = e.clique[b];
    double* out_b = out + reduced_offset_[c];
    if (e.num_rows == 3 && p.clique_size(c) == 6) {  // contact on a free body: fixed size
      Eigen::Map<Eigen::Matrix<double, 6, 1>>(out_b).noalias() +=
          ContactBlockMap(p.jacobian_block(k, b)).transpose() *
          Eigen::Map<const Eigen::Vector3d>(gamma + e.row_offset);
    } else {
      VecMap(out_b, p.clique_size(c)).noalias() += p.jacobian(k, b).transpose() * gamma_k;
    }
  }
}

void SapSolver::IslandConstraintVelocities(int i, const double* v, double* v_c) {
  const ContactProblem& p = *problem_;
  const Islands& is = islands_;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (body_maps_[c]) p.clique_solver(c)->CalcBodyVelocities(v + reduced_offset_[c]);
  }
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    if (e.body_jacobian >= 0 && body_maps_[e.clique[0]]) {
      const BodyJacobian& f = p.body_jacobian(k);
      Eigen::Map<Eigen::Vector3d>(v_c + e.row_offset).noalias() =
          f.W * p.clique_solver(e.clique[0])->body_velocity(f.body);
    } else {
      ConstraintVelocity(k, v, v_c);
    }
  }
}

void SapSolver::IslandAddJTransposeTimes(int i, const double* gamma, double* out) {
  const ContactProblem& p = *problem_;
  const Islands& is = islands_;
  bool any_body_force = false;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (body_maps_[c]) p.clique_solver(c)->ClearBodyForces();
  }
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    if (e.body_jacobian >= 0 && body_maps_[e.clique[0]]) {
      const Eigen::Map<const Eigen::Vector3d> gamma_k(gamma + e.row_offset);
      if (gamma_k.isZero(0.0)) continue;  // as AddJTransposeTimes: most impulses are zero
      const BodyJacobian& f = p.body_jacobian(k);
      p.clique_solver(e.clique[0])->AddBodyForce(f.body, f.W.transpose() * gamma_k);
      any_body_force = true;
    } else {
      AddJTransposeTimes(k, gamma, out);
    }
  }
  if (!any_body_force) return;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (body_maps_[c]) p.clique_solver(c)->ApplyBodyForces(out + reduced_offset_[c]);
  }
}

void SapSolver::MultiplyByA(int c, const double* x, double* out) const {
  const int o = reduced_offset_[c], m = problem_->clique_size(c);
  if (CliqueSolver* solver = problem_->clique_solver(c)) {  // a tree: O(bodies), not O(m^2)
    solver->MultiplyA(x + o, out + o);
    return;
  }
  if (m == 6) {  // a free body: fixed size (the dynamic product was 3 % of a clutter run)
    Eigen::Map<Eigen::Matrix<double, 6, 1>>(out + o).noalias() =
        Eigen::Map<const Eigen::Matrix<double, 6, 6>>(problem_->A(c).data()) * Vector6Map(x + o);
    return;
  }
  VecMap(out + o, m).noalias() = problem_->A(c) * ConstVecMap(x + o, m);
}

void SapSolver::EvalIsland(int i) {
  const ContactProblem& p = *problem_;
  const Islands& is = islands_;
  IslandState& s = island_[i];
  // v_c = J v and p = A v: formed here for the guess, then carried along each step
  // (NewtonUpdate), since the line search has J dv and A dv already.
  const bool form_kinematics = !s.kinematics_current;
  s.kinematics_current = true;
  double cost = 0.0;
  bool piece_changed = false;
  if (form_kinematics) IslandConstraintVelocities(i, v_.data(), vc_.data());
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    const int piece_before = piece_[k];
    cost += e.constraint->Calc(&vc_[e.row_offset], &gamma_[e.row_offset], &G_[G_offset_[k]],
                               &piece_[k]);
    piece_changed |= piece_[k] != piece_before;
  }
  if (s.update_pending) {  // classify the update that led here (SapSolverStats)
    s.update_pending = false;
    if (s.last_step_predicted) {
      ++s.predicted_updates;
    } else if (!piece_changed) {
      ++s.smooth_updates;
    }
  }
  // p = A v, j_c = J^T gamma, grad = A (v - v*) - J^T gamma (math.md §2.6).
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (form_kinematics) MultiplyByA(c, v_.data(), p_.data());
    if (p.clique_size(c) == 6) {  // a free body: six stores instead of a memset call
      Eigen::Map<Eigen::Matrix<double, 6, 1>>(&jc_[reduced_offset_[c]]).setZero();
    } else {
      VecMap(&jc_[reduced_offset_[c]], p.clique_size(c)).setZero();
    }
  }
  IslandAddJTransposeTimes(i, gamma_.data(), jc_.data());
  s.ell_A = s.g2 = s.p2 = s.j2 = 0.0;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = reduced_offset_[c], m = p.clique_size(c);
    const ConstVecMap v(&v_[o], m), v_star(&v_star_[o], m), p_v(&p_[o], m);
    const ConstVecMap A_v_star(&A_v_star_[o], m), j_c(&jc_[o], m), D(&D_[o], m);
    VecMap grad(&grad_[o], m);
    grad = p_v - A_v_star - j_c;
    s.ell_A += 0.5 * (v - v_star).dot(p_v - A_v_star);
    // Squared norms of SAP eq. 26 with D = diag(A)^{-1/2} (math.md §4.2).
    s.g2 += D.cwiseProduct(grad).squaredNorm();
    s.p2 += D.cwiseProduct(p_v).squaredNorm();
    s.j2 += D.cwiseProduct(j_c).squaredNorm();
  }
  s.ell = s.ell_A + cost;
}

double SapSolver::IslandTolerance(const IslandState& s) const {
  // SAP eq. 26 on the island, with the tolerances split so that every island passing
  // implies the whole problem passes (see the top of sap_solver.h).
  return island_absolute_tolerance_ +
         island_relative_tolerance_ * std::sqrt(std::max(s.p2, s.j2));
}

bool SapSolver::IslandOptimal(const IslandState& s) const {
  return std::sqrt(s.g2) <= IslandTolerance(s);
}

bool SapSolver::GuessExact(const IslandState& s) const {
  const double f = parameters_.exact_guess_fraction;
  return s.iterations == 0 && f > 0.0 && std::sqrt(s.g2) <= f * IslandTolerance(s);
}

double SapSolver::MomentumError() const {
  // SAP eq. 32 over every participating velocity, from the islands' latest evaluations.
  double g2 = 0.0, p2 = 0.0, j2 = 0.0;
  for (const IslandState& s : island_) g2 += s.g2, p2 += s.p2, j2 += s.j2;
  const double g = std::sqrt(g2), scale = std::sqrt(std::max(p2, j2));
  return scale > 0.0 ? g / scale : (g == 0.0 ? 0.0 : HUGE_VAL);
}

bool SapSolver::ComputeSearchDirection(int i, const std::vector<double>& rhs, ThreadScratch& w) {
  IslandState& s = island_[i];
  const Clock::time_point assembly_start = Clock::now();
  newton_.AssembleIsland(i, G_.data(), G_offset_, &w.newton);
  // One clock read ends the assembly and starts the factorization (a read is ~60-90 ns on
  // the benchmark VM, and there are several per island per Newton iteration).
  const Clock::time_point factorization_start = Clock::now();
  s.assembly_seconds +=
      std::chrono::duration<double>(factorization_start - assembly_start).count();
  const bool ok = newton_.FactorIsland(i);
  bool finite = true;
  if (ok) {
    // dv = -H^{-1} grad on the island.
    for (int q = islands_.clique_start[i]; q < islands_.clique_start[i + 1]; ++q) {
      const int c = islands_.cliques[q], o = reduced_offset_[c], m = problem_->clique_size(c);
      if (m == 6) {  // a free body: fixed size (entry by entry, the same bits)
        Eigen::Map<Eigen::Matrix<double, 6, 1>> dv(&dv_[o]);
        dv = -Vector6Map(&rhs[o]);
      } else {
        VecMap(&dv_[o], m) = -ConstVecMap(&rhs[o], m);
      }
    }
    newton_.SolveIsland(i, dv_.data(), &w.newton);
    for (int q = islands_.clique_start[i]; q < islands_.clique_start[i + 1]; ++q) {
      const int c = islands_.cliques[q];
      finite = finite && AllFinite(&dv_[reduced_offset_[c]], problem_->clique_size(c));
    }
  }
  w.direction_done = Clock::now();
  s.factorization_seconds +=
      std::chrono::duration<double>(w.direction_done - factorization_start).count();
  return ok && finite;
}

double SapSolver::DirectionalDerivative(int i) const {
  double d1_0 = 0.0;
  for (int q = islands_.clique_start[i]; q < islands_.clique_start[i + 1]; ++q) {
    const int c = islands_.cliques[q], o = reduced_offset_[c], m = problem_->clique_size(c);
    d1_0 += ConstVecMap(&dv_[o], m).dot(ConstVecMap(&grad_[o], m));
  }
  return d1_0;
}

bool SapSolver::LineSearch(int i, double d1_0, ThreadScratch& w, double* alpha,
                           const char** why) {
  // The line search's time includes the directional derivative since the direction.
  const Clock::time_point start = w.direction_done;
  const ContactProblem& p = *problem_;
  const Islands& is = islands_;
  IslandConstraintVelocities(i, dv_.data(), dvc_.data());
  double a2 = 0.0, c1 = 0.0;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = reduced_offset_[c], m = p.clique_size(c);
    MultiplyByA(c, dv_.data(), A_dv_.data());
    const ConstVecMap dv(&dv_[o], m);
    a2 += dv.dot(ConstVecMap(&A_dv_[o], m));
    // dv^T A (v - v*) = dv^T (p - A v*) (A symmetric).
    c1 += dv.dot(ConstVecMap(&p_[o], m) - ConstVecMap(&A_v_star_[o], m));
  }
  IslandState& s = island_[i];
  AlongDirection along(*this, i, s.ell_A, c1, a2, w.G_trial.data());
  const SapSolverParameters& sp = parameters_;
  const LineSearchResult r =
      sp.line_search == SapLineSearch::kExact
          ? ExactLineSearch(along, s.ell, d1_0, sp.exact, sp.cost_absolute_tolerance,
                            sp.cost_relative_tolerance)
          : BacktrackingLineSearch(along, s.ell, d1_0, sp.backtracking, sp.relative_slop);
  s.line_search_iterations += r.evaluations;
  s.line_search_seconds += SecondsSince(start);
  *alpha = r.alpha;
  *why = r.failure;
  return r.ok;
}

void SapSolver::WriteResult(const ContactProblem& problem, SapSolverResult* result) const {
  result->v = problem.v_star();
  for (int c = 0; c < problem.num_cliques(); ++c) {
    const int o = reduced_offset_[c], m = problem.clique_size(c);
    if (o >= 0) result->v.segment(problem.clique_offset(c), m) = ConstVecMap(&v_[o], m);
  }
  result->gamma = ConstVecMap(gamma_.data(), nc_);
  result->v_c = ConstVecMap(vc_.data(), nc_);
}

StepStatus SapSolver::Finish(SapTermination t, const char* reason, SapSolverResult* result) {
  WriteResult(*problem_, result);
  SapSolverStats& s = result->stats;
  s.termination = t;
  s.num_participating_velocities = nr_;
  StepStatus& status = result->status;
  const bool ok = Succeeded(t);
  status.outcome = ok                                ? StepOutcome::kOk
                   : t == SapTermination::kNonFinite   ? StepOutcome::kNonFinite
                   : t == SapTermination::kInterrupted ? StepOutcome::kInterrupted
                                                       : StepOutcome::kNotConverged;
  status.reason.clear();
  if (!ok) {
    char buffer[256];
    std::snprintf(buffer, sizeof(buffer),
                  "SAP solver: %s (%s) after %d iterations; momentum error %.3g",
                  SapTerminationName(t), reason, s.iterations, s.momentum_error);
    status.reason = buffer;
  }
  return status;
}

bool SapSolver::CostStagnated(double ell, double ell_prev, double alpha_prev) const {
  // math.md §4.3: |ell^m - ell^{m-1}| < eps_a^c + eps_r^c (|ell^m| + |ell^{m-1}|)/2, alpha > 0.5.
  const double tolerance = parameters_.cost_absolute_tolerance +
                           parameters_.cost_relative_tolerance * 0.5 *
                               (std::abs(ell) + std::abs(ell_prev));
  return std::abs(ell - ell_prev) < tolerance && alpha_prev > 0.5;
}

void SapSolver::LoadGuess(const Eigen::Ref<const Eigen::VectorXd>& v_guess) {
  const ContactProblem& p = *problem_;
  for (int c = 0; c < p.num_cliques(); ++c) {
    if (reduced_offset_[c] < 0) continue;
    VecMap(&v_[reduced_offset_[c]], p.clique_size(c)) =
        v_guess.segment(p.clique_offset(c), p.clique_size(c));
  }
}

void SapSolver::SetupIslands() {
  FindIslands(*problem_, reduced_offset_, &islands_,
              parameters_.defer_separated ? &couples_ : nullptr);
  newton_.Setup(*problem_, reduced_offset_, nr_, parameters_.dense_threshold, &islands_);
  for (ThreadScratch& w : scratch_) newton_.ReserveScratch(&w.newton);
  const int K = islands_.num_islands;
  island_.assign(K, IslandState{});
  // One island: exactly SAP eq. 26. K > 1: ||D g_i|| <= eps_a / sqrt(K) + eps_r / sqrt(2)
  // max(||D p_i||, ||D j_i||) on every island implies, by Minkowski's inequality and
  // sum_i max(P_i, J_i)^2 <= ||D p||^2 + ||D j||^2 <= 2 max(||D p||, ||D j||)^2,
  // ||D g|| <= eps_a + eps_r max(||D p||, ||D j||): the same bound, never looser.
  const double eps_a = parameters_.absolute_tolerance, eps_r = parameters_.relative_tolerance;
  island_absolute_tolerance_ = K > 1 ? eps_a / std::sqrt(static_cast<double>(K)) : eps_a;
  island_relative_tolerance_ = K > 1 ? eps_r / std::sqrt(2.0) : eps_r;
}

void SapSolver::FailIsland(int i, SapTermination t, const char* why) {
  island_[i].stop = t;
  island_[i].why = why;
}

bool SapSolver::IslandStopped(int i) {
  IslandState& s = island_[i];
  EvalIsland(i);
  if (!std::isfinite(s.ell) || !std::isfinite(s.g2)) {
    FailIsland(i, SapTermination::kNonFinite, "cost or gradient");
    return true;
  }
  // Criteria are checked before factorizing: an optimal guess costs no iteration (§4.1),
  // unless min_iterations asks for a refining step first and the guess is not exact (to
  // exact_guess_fraction of the tolerance).
  s.optimal = IslandOptimal(s);
  if (s.optimal && (s.iterations >= parameters_.min_iterations() || GuessExact(s))) {
    s.stop = SapTermination::kOptimality;
    return true;
  }
  // Only after a plain Newton step: a predicted direction can be poor for the true cost
  // (a wrong prediction), and a step along it that barely changes the cost says nothing
  // about optimality (clutter runs stopped there with momentum errors up to 1e-3).
  if (s.iterations > 0 && !s.last_step_predicted &&
      CostStagnated(s.ell, s.ell_prev, s.alpha_prev)) {
    s.stop = SapTermination::kCostStagnation;
    return true;
  }
  if (s.iterations >= parameters_.max_iterations) {
    FailIsland(i, SapTermination::kMaxIterations, "no convergence");
    return true;
  }
  if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
    FailIsland(i, SapTermination::kInterrupted, "stop requested");
    return true;
  }
  return false;
}

bool SapSolver::NewtonUpdate(int i, ThreadScratch& w) {
  IslandState& s = island_[i];
  // The first direction is predicted; a later one only while the previous predicted step
  // was cut short (SapSolverParameters::prediction_iterations, prediction_repeat_alpha), or
  // after a step that carried some constraint through its predicted region
  // (predict_crossings), within the same budget of directions.
  const bool predict_now =
      s.iterations == 0 ||
      (s.iterations < parameters_.prediction_iterations &&
       ((s.last_step_predicted && s.alpha_prev < parameters_.prediction_repeat_alpha) ||
        s.new_crossings));
  bool predicted = predict_now && parameters_.predict_stiction && ApplyPredictions(i);
  if (predicted) s.predicted = true;
  for (;;) {  // at most twice: the predicted direction, then the plain one
    if (!ComputeSearchDirection(i, predicted ? rhs_ : grad_, w)) {
      FailIsland(i, SapTermination::kNonFinite, "Hessian factorization");
      return false;
    }
    const double d1_0 = DirectionalDerivative(i);
    double alpha = 0.0;
    const char* why = "";
    if (d1_0 < 0.0 && LineSearch(i, d1_0, w, &alpha, &why)) {
      if (predicted) RefutePredictions(i);
      // Before v_c moves: MarkCrossings reads the step's start and its full step.
      s.new_crossings = parameters_.predict_stiction && parameters_.predict_crossings &&
                        alpha < parameters_.prediction_repeat_alpha && MarkCrossings(i);
      // v <- v + alpha dv, and with it A v and J v from the line search's A dv and J dv
      // (round-off apart, the same as forming them again: 6 % of a clutter-160 run).
      for (int q = islands_.clique_start[i]; q < islands_.clique_start[i + 1]; ++q) {
        const int c = islands_.cliques[q], o = reduced_offset_[c], m = problem_->clique_size(c);
        if (m == 6) {  // a free body: fixed size (entry by entry, the same bits)
          Eigen::Map<Eigen::Matrix<double, 6, 1>>(&v_[o]) += alpha * Vector6Map(&dv_[o]);
          Eigen::Map<Eigen::Matrix<double, 6, 1>>(&p_[o]) += alpha * Vector6Map(&A_dv_[o]);
        } else {
          VecMap(&v_[o], m) += alpha * ConstVecMap(&dv_[o], m);
          VecMap(&p_[o], m) += alpha * ConstVecMap(&A_dv_[o], m);
        }
      }
      for (int q = islands_.constraint_start[i]; q < islands_.constraint_start[i + 1]; ++q) {
        const ConstraintEntry& e = problem_->entry(islands_.constraints[q]);
        for (int r = e.row_offset; r < e.row_offset + e.num_rows; ++r) vc_[r] += alpha * dvc_[r];
      }
      ++s.iterations;
      s.update_pending = true;
      s.last_step_predicted = predicted;
      s.ell_prev = s.ell;
      s.alpha_prev = alpha;
      return true;
    }
    if (predicted) {
      // The predicted model points uphill on the true cost, or the true cost does not
      // decrease along it: plain Newton from the same v (EvalIsland restores the true G;
      // v did not change, so nothing else does).
      s.prediction_fallback = true;
      predicted = false;
      EvalIsland(i);
      continue;
    }
    if (s.optimal) {  // a refining step with nothing to refine or no decrease: the guess stands
      s.stop = SapTermination::kOptimality;
      return false;
    }
    if (d1_0 < 0.0) {
      FailIsland(i, SapTermination::kLineSearchFailed, why);
    } else {
      FailIsland(i, SapTermination::kNotDescent, "ill-conditioned Newton system");
    }
    return false;
  }
}

void SapSolver::SolveIsland(int i, ThreadScratch& w) {
  if (!island_done_.empty() && island_done_[i]) return;
  while (!IslandStopped(i) && NewtonUpdate(i, w)) {
  }
}

void SapSolver::SolveIslands() {
  const int K = islands_.num_islands;
  if (pool_ == nullptr || K < 2) {
    for (int i = 0; i < K; ++i) SolveIsland(i, scratch_[0]);
    return;
  }
  // Largest first, so that a big island does not start last and leave the other threads
  // idle; ties by index (any order gives the same results).
  schedule_.resize(K);
  for (int i = 0; i < K; ++i) schedule_[i] = i;
  std::sort(schedule_.begin(), schedule_.end(), [this](int a, int b) {
    const std::vector<int>& size = islands_.num_velocities;
    return size[a] != size[b] ? size[a] > size[b] : a < b;
  });
  auto body = [this](int index, int thread) { SolveIsland(schedule_[index], scratch_[thread]); };
  pool_->ParallelFor(K, body);
}

void SapSolver::FinishStats(SapSolverStats* stats) const {
  stats->cost = 0.0;
  for (const IslandState& s : island_) stats->cost += s.ell;
  stats->momentum_error = MomentumError();
  stats->num_islands = islands_.num_islands;
  // Island iterations weighted by the island's share of the participating velocities.
  double weighted = 0.0;
  for (int i = 0; i < islands_.num_islands; ++i) {
    const IslandState& s = island_[i];
    weighted += static_cast<double>(islands_.num_velocities[i]) * s.iterations;
    stats->iterations = std::max(stats->iterations, s.prior_iterations + s.iterations);
    stats->line_search_iterations += s.line_search_iterations;
    stats->assembly_seconds += s.assembly_seconds;
    stats->factorization_seconds += s.factorization_seconds;
    stats->line_search_seconds += s.line_search_seconds;
    stats->predicted_islands += s.predicted;
    stats->prediction_fallbacks += s.prediction_fallback;
    stats->predicted_updates += s.predicted_updates;
    stats->smooth_updates += s.smooth_updates;
    stats->active_set_updates += s.active_set_updates();
  }
  // The work of islands a merge replaced (defer_separated), and its rounds.
  for (const MergedIsland& m : merged_) {
    stats->predicted_updates += m.predicted_updates;
    stats->smooth_updates += m.smooth_updates;
    stats->active_set_updates += m.active_set_updates;
  }
  weighted += merged_work_velocities_;
  stats->mean_island_iterations = nr_ > 0 ? weighted / nr_ : 0.0;
}

StepStatus SapSolver::FinishIslands(SapSolverResult* result) {
  FinishStats(&result->stats);
  for (const IslandState& s : island_)
    if (!Succeeded(s.stop)) return Finish(s.stop, s.why, result);
  for (const IslandState& s : island_)
    if (s.stop != SapTermination::kOptimality) return Finish(s.stop, "", result);
  return Finish(SapTermination::kOptimality, "", result);
}

StepStatus SapSolver::Solve(const ContactProblem& problem,
                            const Eigen::Ref<const Eigen::VectorXd>& v_guess,
                            SapSolverResult* result) {
  CSIM_CHECK(v_guess.size() == problem.num_velocities());
  islands_.num_islands = 0;  // until SetupIslands (num_islands() of a problem without constraints)
  Setup(problem);
  LoadGuess(v_guess);
  SapSolverStats& stats = result->stats;
  stats = SapSolverStats{};
  for (int c = 0; c < problem.num_cliques(); ++c)
    stats.num_participating_cliques += reduced_offset_[c] >= 0;
  if (problem.num_constraints() == 0) return Finish(SapTermination::kNoConstraints, "", result);
  merged_.clear();
  merged_work_velocities_ = 0.0;
  island_done_.clear();
  MarkCouples();
  SetupIslands();
  SolveIslands();
  while (parameters_.defer_separated) {
    // The deferred contacts at v first, also after a failure (the result's v_c and gamma).
    bool failed = false;
    for (const IslandState& s : island_) failed = failed || !Succeeded(s.stop);
    if (!EvaluateDeferred() || failed) break;
    Remerge();
    SolveIslands();
  }
  return FinishIslands(result);
}

}  // namespace csim::solver
