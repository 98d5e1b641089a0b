#include "engine/solver/step_sensitivity.h"

#include <algorithm>

#include "engine/common/check.h"
#include "engine/solver/sap_products.h"

namespace csim::solver {

const Eigen::Vector3d& DerivativeOf(const ContactParameterDerivatives& d,
                                    ContactParameter parameter) {
  switch (parameter) {
    case ContactParameter::kMu:
      return d.d_mu;
    case ContactParameter::kStiffness:
      return d.d_stiffness;
    case ContactParameter::kDissipationTime:
      return d.d_dissipation_time;
    case ContactParameter::kHuntCrossley:
      return d.d_hunt_crossley;
    case ContactParameter::kPhi0:
      break;
  }
  return d.d_phi0;
}

// The kind of a constraint by dynamic_cast. Why not a kind tag in ConstraintEntry (as
// coordinate_kind): every Add path of ContactProblem would have to set it, for a pass that
// runs once per step per contact, not per Newton iteration, where a cast costs nothing next
// to the 3 x 3 work that follows.
bool CalcContactParameterDerivativesOf(const ContactProblem& problem, int k, const double* v_c,
                                       ContactParameterDerivatives* out) {
  const Constraint& c = problem.constraint(k);
  const double* v_c_k = v_c + problem.entry(k).row_offset;
  if (const auto* sap = dynamic_cast<const SapFrictionConeConstraint*>(&c)) {
    *out = CalcContactParameterDerivatives(*sap, v_c_k);
    return true;
  }
  if (const auto* hc = dynamic_cast<const SapHuntCrossleyConstraint*>(&c)) {
    *out = CalcContactParameterDerivatives(*hc, v_c_k);
    return true;
  }
  return false;
}

ContactKind ContactKindOf(const Constraint& c) {
  if (dynamic_cast<const SapFrictionConeConstraint*>(&c) != nullptr) return ContactKind::kSap;
  if (dynamic_cast<const SapHuntCrossleyConstraint*>(&c) != nullptr)
    return ContactKind::kHuntCrossley;
  return ContactKind::kOther;
}

bool CalcContactPieceOf(const ContactProblem& problem, int k, ContactKind kind, const double* v_c,
                        ContactPiece* out, bool with_kink_distance) {
  const double* v_c_k = v_c + problem.entry(k).row_offset;
  switch (kind) {
    case ContactKind::kSap:
      *out = CalcContactPiece(static_cast<const SapFrictionConeConstraint&>(problem.constraint(k)),
                              v_c_k, with_kink_distance);
      return true;
    case ContactKind::kHuntCrossley:
      *out = CalcContactPiece(static_cast<const SapHuntCrossleyConstraint&>(problem.constraint(k)),
                              v_c_k, with_kink_distance);
      return true;
    case ContactKind::kOther:
      break;
  }
  return false;
}

int ContactPieceCode(ContactKind kind, const ContactPiece& piece) {
  switch (kind) {
    case ContactKind::kSap:
      return static_cast<int>(piece.region);
    case ContactKind::kHuntCrossley:
      return piece.normal_clamped ? 0 : 1;
    case ContactKind::kOther:
      break;
  }
  return -1;
}

void CalcContactParameterDirection(const ContactProblem& problem, const double* v_c,
                                   ContactParameter parameter, const double* scale,
                                   Eigen::Ref<Eigen::VectorXd> dgamma_dp) {
  CSIM_CHECK(dgamma_dp.size() == problem.num_constraint_rows());
  dgamma_dp.setZero();
  ContactParameterDerivatives d;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    if (!CalcContactParameterDerivativesOf(problem, k, v_c, &d)) continue;
    const double dp_k = scale != nullptr ? scale[k] : 1.0;  // dp_k / dp
    dgamma_dp.segment<3>(problem.entry(k).row_offset) = dp_k * DerivativeOf(d, parameter);
  }
}

namespace {

// Every constraint in one partition of islands, as the sensitivity solve's.
void SetupProducts(const ContactProblem& problem, SapWorkspace* ws) {
  SetupSapWorkspace(problem, /*num_threads=*/1, ws);
  SetupIslands(SapSolverParameters{}, /*couples=*/nullptr, ws);
}

// out (velocity order) = the reduced vector x on the participating cliques, 0 elsewhere.
void ScatterReduced(const SapWorkspace& ws, const double* x, Eigen::Ref<Eigen::VectorXd> out) {
  const ContactProblem& p = *ws.problem;
  out.setZero();
  for (int c = 0; c < p.num_cliques(); ++c) {
    if (ws.reduced_offset[c] < 0) continue;
    out.segment(p.clique_offset(c), p.clique_size(c)) =
        Eigen::Map<const Eigen::VectorXd>(x + ws.reduced_offset[c], p.clique_size(c));
  }
}

// out = J^T gamma on the participating cliques, 0 elsewhere, with ws set up (SetupProducts).
void JTransposeTimesSetUp(SapWorkspace* ws, const double* gamma, Eigen::Ref<Eigen::VectorXd> out) {
  std::fill_n(ws->jc.data(), ws->num_reduced, 0.0);
  for (int i = 0; i < ws->islands.num_islands; ++i)
    IslandAddJTransposeTimes(*ws, i, gamma, ws->jc.data());
  ScatterReduced(*ws, ws->jc.data(), out);
}

// The products without the islands' set-up (SetupProducts: a partition, the reduced
// coordinates, the supports), which costs more than the products on a problem solved once:
// when every constraint's blocks are stored dense or a point contact's factored form, at most
// kDirectRows rows, and (for the residual) every clique with a constraint has its A stored
// and at most kDirectClique velocities (the fixed-capacity scratch: no allocation).
constexpr int kDirectRows = 8;
constexpr int kDirectClique = 64;

bool DirectBlocks(const ContactProblem& problem) {
  if (problem.max_constraint_rows() > kDirectRows) return false;
  for (int k = 0; k < problem.num_constraints(); ++k)
    if (problem.entry(k).point_contact < 0 && !problem.has_dense_jacobian(k)) return false;
  return true;
}

// f(clique, J_kb) for each block b of constraint k (a 3 x 6 point-contact block formed from
// its factored form, or the stored dense block).
template <typename F>
void ForEachBlock(const ContactProblem& problem, int k, F f) {
  const ConstraintEntry& e = problem.entry(k);
  for (int b = 0; b < e.num_cliques; ++b) {
    if (e.point_contact >= 0)
      f(e.clique[b], problem.PointContactBlock(k, b));
    else
      f(e.clique[b], problem.jacobian(k, b));
  }
}

// out += J_k^T gamma_k on constraint k's cliques (gamma_k: its rows, one column or several).
template <typename Gamma, typename Out>
void AddJTransposeBlocks(const ContactProblem& problem, int k, const Gamma& gamma_k, Out& out) {
  ForEachBlock(problem, k, [&](int c, const auto& J) {
    out.middleRows(problem.clique_offset(c), problem.clique_size(c)).noalias() +=
        J.transpose() * gamma_k;
  });
}

// The cliques some constraint acts on, each given its first row among them in the order the
// constraints reach them, into *position (-1 for the others): the direct routes' layout.
// Returns their total size, or -1 when one of them has no stored A (matrix-free: the direct
// routes read A_c) or more than max_clique velocities.
int PositionTouchedCliques(const ContactProblem& problem, int max_clique,
                           std::vector<int>* position) {
  position->assign(problem.num_cliques(), -1);
  int n = 0;
  for (int k = 0; k < problem.num_constraints(); ++k)
    for (int b = 0; b < problem.entry(k).num_cliques; ++b) {
      const int c = problem.entry(k).clique[b];
      if ((*position)[c] >= 0) continue;
      if (!problem.has_A(c) || problem.clique_size(c) > max_clique) return -1;
      (*position)[c] = n;
      n += problem.clique_size(c);
    }
  return n;
}

// The direct route of SolveRightHandSides for small problems (DirectBlocks, every touched
// clique's A stored, at most kDenseVelocities velocities on the touched cliques): H formed
// densely on those velocities, A_c + sum_k J_k^T G_k J_k (the same terms the islands
// assemble), factored by Cholesky and solved for every column. Why: on a problem of a few
// velocities the islands' set-up (the reduced coordinates, the partition, the Newton
// system's structure) costs several times the solve itself. Returns false when the problem
// is not such a one; *factored says whether H was SPD.
constexpr int kDenseVelocities = 24;

bool SolveSmallDense(const ContactProblem& problem, const double* v_c,
                     const Eigen::Ref<const Eigen::MatrixXd>& rhs, SapWorkspace* ws,
                     Eigen::MatrixXd* dv, bool* factored) {
  if (!DirectBlocks(problem)) return false;
  // Each touched clique's offset in the dense H, -1 untouched.
  std::vector<int>& position = ws->clique_position;
  const int n = PositionTouchedCliques(problem, kDenseVelocities, &position);
  if (n < 0 || n > kDenseVelocities) return false;
  using Square = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kDenseVelocities,
                               kDenseVelocities>;
  Square H = Square::Zero(n, n);
  for (int c = 0; c < problem.num_cliques(); ++c) {
    if (position[c] < 0) continue;
    const int m = problem.clique_size(c);
    H.block(position[c], position[c], m, m) = problem.A(c);
  }
  using Block = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kDirectRows,
                              kDenseVelocities>;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const ConstraintEntry& e = problem.entry(k);
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kDirectRows, kDirectRows> G(
        e.num_rows, e.num_rows);
    Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kDirectRows, 1> gamma(e.num_rows);
    problem.constraint(k).Calc(v_c + e.row_offset, gamma.data(), G.data(), nullptr);
    Block J[2];
    int clique[2] = {-1, -1}, b = 0;
    ForEachBlock(problem, k, [&](int c, const auto& block) {
      clique[b] = c;
      J[b++] = block;
    });
    for (int x = 0; x < e.num_cliques; ++x)
      for (int y = 0; y < e.num_cliques; ++y)
        H.block(position[clique[x]], position[clique[y]], J[x].cols(), J[y].cols()).noalias() +=
            J[x].transpose() * G * J[y];
  }
  Eigen::LLT<Square> llt(H);
  *factored = llt.info() == Eigen::Success;
  if (!*factored) return true;
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kDenseVelocities, 1> x(n);
  for (int j = 0; j < rhs.cols(); ++j) {
    for (int c = 0; c < problem.num_cliques(); ++c)
      if (position[c] >= 0)
        x.segment(position[c], problem.clique_size(c)) =
            rhs.col(j).segment(problem.clique_offset(c), problem.clique_size(c));
    llt.solveInPlace(x);
    for (int c = 0; c < problem.num_cliques(); ++c)
      if (position[c] >= 0)
        dv->col(j).segment(problem.clique_offset(c), problem.clique_size(c)) =
            x.segment(position[c], problem.clique_size(c));
  }
  return true;
}

}  // namespace

StepSensitivitySolver::StepSensitivitySolver(int dense_threshold) {
  parameters_.dense_threshold = dense_threshold;
}

StepStatus StepSensitivitySolver::Solve(const ContactProblem& problem,
                                        const SapSolverResult& solution,
                                        const Eigen::Ref<const Eigen::MatrixXd>& dgamma_dp_at_vc,
                                        StepSensitivityResult* out) {
  const int nv = problem.num_velocities(), rows = problem.num_constraint_rows();
  const int n_p = static_cast<int>(dgamma_dp_at_vc.cols());
  CSIM_CHECK(solution.status.ok() && solution.v.size() == nv && solution.v_c.size() == rows);
  CSIM_CHECK(dgamma_dp_at_vc.rows() == rows);
  out->dv_dp.resize(nv, n_p);  // Eigen keeps the storage when the size is unchanged
  out->dgamma_dp.resize(rows, n_p);
  out->dv_dp.setZero();  // the cliques no constraint touches keep dv/dp = 0
  out->dgamma_dp.setZero();
  StepStatus status;
  if (problem.num_constraints() == 0) return status;
  SetupAt(problem, solution);
  for (int i = 0; i < ws_.islands.num_islands; ++i) {
    if (SolveIsland(i, dgamma_dp_at_vc, out)) continue;
    status.outcome = StepOutcome::kNonFinite;
    status.reason = "step sensitivity: the Newton matrix at the solution is not SPD";
    return status;
  }
  return status;
}

void StepSensitivitySolver::SetupAt(const ContactProblem& problem,
                                    const SapSolverResult& solution) {
  // The solver's reduced coordinates and islands, every constraint in the partition.
  SetupSapWorkspace(problem, /*num_threads=*/1, &ws_);
  SetupIslands(parameters_, /*couples=*/nullptr, &ws_);
  EvaluateHessians(solution.v_c.data());
}

StepStatus StepSensitivitySolver::SolveRightHandSides(const ContactProblem& problem,
                                                      const SapSolverResult& solution,
                                                      const Eigen::Ref<const Eigen::MatrixXd>& rhs,
                                                      Eigen::MatrixXd* dv) {
  const int nv = problem.num_velocities(), n = static_cast<int>(rhs.cols());
  CSIM_CHECK(solution.status.ok() && solution.v.size() == nv &&
             solution.v_c.size() == problem.num_constraint_rows());
  CSIM_CHECK(rhs.rows() == nv);
  dv->resize(nv, n);
  dv->setZero();
  StepStatus status;
  if (problem.num_constraints() == 0) return status;
  bool factored = true;
  if (SolveSmallDense(problem, solution.v_c.data(), rhs, &ws_, dv, &factored)) {
    if (!factored) {
      status.outcome = StepOutcome::kNonFinite;
      status.reason = "step sensitivity: the Newton matrix at the solution is not SPD";
    }
    return status;
  }
  SetupAt(problem, solution);
  const Islands& is = ws_.islands;
  SapThreadScratch& scratch = ws_.scratch[0];
  double* x = ws_.dv.data();  // reduced
  for (int i = 0; i < is.num_islands; ++i) {
    ws_.newton.AssembleIsland(i, ws_.G.data(), ws_.G_offset, &scratch.newton);
    if (!ws_.newton.FactorIsland(i)) {
      status.outcome = StepOutcome::kNonFinite;
      status.reason = "step sensitivity: the Newton matrix at the solution is not SPD";
      return status;
    }
    for (int j = 0; j < n; ++j) {
      for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
        const int c = is.cliques[q], m = problem.clique_size(c);
        Eigen::Map<Eigen::VectorXd>(x + ws_.reduced_offset[c], m) =
            rhs.col(j).segment(problem.clique_offset(c), m);
      }
      ws_.newton.SolveIsland(i, x, &scratch.newton);
      for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
        const int c = is.cliques[q], m = problem.clique_size(c);
        dv->col(j).segment(problem.clique_offset(c), m) =
            Eigen::Map<const Eigen::VectorXd>(x + ws_.reduced_offset[c], m);
      }
    }
  }
  return status;
}

void StepSensitivitySolver::EvaluateHessians(const double* v_c) {
  const ContactProblem& p = *ws_.problem;
  for (int k = 0; k < p.num_constraints(); ++k) {
    const int o = p.entry(k).row_offset;
    p.constraint(k).Calc(v_c + o, ws_.gamma.data() + o, ws_.G.data() + ws_.G_offset[k], nullptr);
  }
}

bool StepSensitivitySolver::SolveIsland(int i,
                                        const Eigen::Ref<const Eigen::MatrixXd>& dgamma_dp_at_vc,
                                        StepSensitivityResult* out) {
  const ContactProblem& p = *ws_.problem;
  const Islands& is = ws_.islands;
  SapThreadScratch& scratch = ws_.scratch[0];
  // H = A + J^T G J on the island at the solution, factorized once for every direction.
  ws_.newton.AssembleIsland(i, ws_.G.data(), ws_.G_offset, &scratch.newton);
  if (!ws_.newton.FactorIsland(i)) return false;
  double* x = ws_.dv.data();     // reduced: J^T dgamma/dp|_vc, then dv/dp
  double* dv_c = ws_.dvc.data();  // constraint rows: J dv/dp
  for (int j = 0; j < dgamma_dp_at_vc.cols(); ++j) {
    const double* partial = dgamma_dp_at_vc.col(j).data();
    // H dv/dp = J^T dgamma/dp|_vc.
    for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
      const int c = is.cliques[q];
      std::fill_n(x + ws_.reduced_offset[c], p.clique_size(c), 0.0);
    }
    IslandAddJTransposeTimes(ws_, i, partial, x);
    ws_.newton.SolveIsland(i, x, &scratch.newton);
    for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
      const int c = is.cliques[q], m = p.clique_size(c);
      out->dv_dp.col(j).segment(p.clique_offset(c), m) =
          Eigen::Map<const Eigen::VectorXd>(x + ws_.reduced_offset[c], m);
    }
    // dgamma/dp = dgamma/dp|_vc - G J dv/dp.
    IslandConstraintVelocities(ws_, i, x, dv_c);
    for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
      const int k = is.constraints[q];
      const int n = p.entry(k).num_rows, o = p.entry(k).row_offset;
      const double* G = ws_.G.data() + ws_.G_offset[k];  // n x n, column-major
      for (int r = 0; r < n; ++r) {
        double G_dv_c = 0.0;
        for (int s = 0; s < n; ++s) G_dv_c += G[r + s * n] * dv_c[o + s];
        out->dgamma_dp(o + r, j) = partial[o + r] - G_dv_c;
      }
    }
  }
  return true;
}

void CalcConstraintVelocities(const ContactProblem& problem,
                              const Eigen::Ref<const Eigen::VectorXd>& v, SapWorkspace* ws,
                              Eigen::Ref<Eigen::VectorXd> v_c) {
  CSIM_CHECK(v.size() == problem.num_velocities() && v_c.size() == problem.num_constraint_rows());
  if (problem.num_constraints() == 0) return;
  SetupProducts(problem, ws);
  LoadGuess(v, ws);
  for (int i = 0; i < ws->islands.num_islands; ++i)
    IslandConstraintVelocities(*ws, i, ws->v.data(), v_c.data());
}

void CalcJTransposeTimes(const ContactProblem& problem, const double* gamma, SapWorkspace* ws,
                         Eigen::Ref<Eigen::VectorXd> out) {
  CSIM_CHECK(out.size() == problem.num_velocities());
  out.setZero();
  if (problem.num_constraints() == 0) return;
  SetupProducts(problem, ws);
  JTransposeTimesSetUp(ws, gamma, out);
}

void CalcJTransposeTimesColumns(const ContactProblem& problem,
                                const Eigen::Ref<const Eigen::MatrixXd>& gamma, SapWorkspace* ws,
                                Eigen::Ref<Eigen::MatrixXd> out) {
  CSIM_CHECK(out.rows() == problem.num_velocities() && gamma.cols() == out.cols());
  out.setZero();
  if (problem.num_constraints() == 0) return;
  CSIM_CHECK(gamma.rows() == problem.num_constraint_rows());
  if (DirectBlocks(problem)) {
    for (int k = 0; k < problem.num_constraints(); ++k) {
      const ConstraintEntry& e = problem.entry(k);
      AddJTransposeBlocks(problem, k, gamma.middleRows(e.row_offset, e.num_rows), out);
    }
    return;
  }
  SetupProducts(problem, ws);
  for (int j = 0; j < gamma.cols(); ++j) JTransposeTimesSetUp(ws, gamma.col(j).data(), out.col(j));
}

void CalcOptimalityResidual(const ContactProblem& problem,
                            const Eigen::Ref<const Eigen::VectorXd>& v, SapWorkspace* ws,
                            Eigen::Ref<Eigen::VectorXd> r) {
  CSIM_CHECK(v.size() == problem.num_velocities() && r.size() == problem.num_velocities());
  r.setZero();
  if (problem.num_constraints() == 0) return;
  if (DirectBlocks(problem)) {
    // The cliques some constraint touches, each with a stored A of at most kDirectClique.
    if (PositionTouchedCliques(problem, kDirectClique, &ws->clique_position) >= 0) {
      // A_c (v - v*) on each touched clique, then -J_k^T gamma_k(J_k v) per constraint.
      const Eigen::Map<const Eigen::VectorXd> v_star = problem.v_star();
      for (int c = 0; c < problem.num_cliques(); ++c) {
        if (ws->clique_position[c] < 0) continue;
        const int o = problem.clique_offset(c), n = problem.clique_size(c);
        const Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kDirectClique, 1> dv =
            v.segment(o, n) - v_star.segment(o, n);
        r.segment(o, n).noalias() = problem.A(c) * dv;
      }
      ws->vc.resize(problem.num_constraint_rows());  // J v, as the island route leaves it
      for (int k = 0; k < problem.num_constraints(); ++k) {
        const ConstraintEntry& e = problem.entry(k);
        Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kDirectRows, 1> v_c =
            Eigen::VectorXd::Zero(e.num_rows);
        ForEachBlock(problem, k, [&](int c, const auto& J) {
          v_c.noalias() += J * v.segment(problem.clique_offset(c), problem.clique_size(c));
        });
        std::copy_n(v_c.data(), e.num_rows, ws->vc.data() + e.row_offset);
        Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kDirectRows, 1> gamma(e.num_rows);
        problem.constraint(k).Calc(v_c.data(), gamma.data(), nullptr, nullptr);
        gamma = -gamma;
        AddJTransposeBlocks(problem, k, gamma, r);
      }
      return;
    }
  }
  SetupProducts(problem, ws);
  LoadGuess(v, ws);
  const Islands& is = ws->islands;
  // gamma(J v), each constraint's Calc at its rows of J v.
  for (int i = 0; i < is.num_islands; ++i)
    IslandConstraintVelocities(*ws, i, ws->v.data(), ws->vc.data());
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const int o = problem.entry(k).row_offset;
    problem.constraint(k).Calc(ws->vc.data() + o, ws->gamma.data() + o, nullptr, nullptr);
  }
  // grad = A (v - v*) - J^T gamma on the reduced coordinates.
  for (int j = 0; j < ws->num_reduced; ++j) ws->dv[j] = ws->v[j] - ws->v_star[j];
  std::fill_n(ws->jc.data(), ws->num_reduced, 0.0);
  for (int i = 0; i < is.num_islands; ++i)
    IslandAddJTransposeTimes(*ws, i, ws->gamma.data(), ws->jc.data());
  for (int c = 0; c < problem.num_cliques(); ++c)
    if (ws->reduced_offset[c] >= 0) MultiplyByA(*ws, c, ws->dv.data(), ws->A_dv.data());
  for (int j = 0; j < ws->num_reduced; ++j) ws->grad[j] = ws->A_dv[j] - ws->jc[j];
  ScatterReduced(*ws, ws->grad.data(), r);
}

}  // namespace csim::solver
