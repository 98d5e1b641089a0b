#include "engine/solver/sap_workspace.h"

#include "engine/solver/sap_products.h"

namespace csim::solver {
namespace {

using VecMap = Eigen::Map<Eigen::VectorXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;

}  // namespace

void SetupSapWorkspace(const ContactProblem& problem, int num_threads, SapWorkspace* ws) {
  ws->problem = &problem;
  // Participating cliques: touched by at least one constraint (docs/design/sap-solver.md §1).
  std::vector<int>& reduced_offset = ws->reduced_offset;
  reduced_offset.assign(problem.num_cliques(), -1);
  for (int k = 0; k < problem.num_constraints(); ++k)
    for (int b = 0; b < problem.entry(k).num_cliques; ++b)
      reduced_offset[problem.entry(k).clique[b]] = 0;
  int nr = 0;
  for (int c = 0; c < problem.num_cliques(); ++c) {
    if (reduced_offset[c] < 0) continue;
    reduced_offset[c] = nr;
    nr += problem.clique_size(c);
  }
  ws->num_reduced = nr;
  ws->num_rows = problem.num_constraint_rows();
  ws->G_offset.resize(problem.num_constraints());
  int G_size = 0;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    ws->G_offset[k] = G_size;
    G_size += problem.entry(k).num_rows * problem.entry(k).num_rows;
  }
  for (auto* x : {&ws->v, &ws->v_star, &ws->grad, &ws->p, &ws->jc, &ws->D, &ws->dv, &ws->A_dv,
                  &ws->A_v_star})
    x->resize(nr);
  for (auto* x : {&ws->vc, &ws->dvc, &ws->gamma, &ws->vc_trial, &ws->gamma_trial})
    x->resize(ws->num_rows);
  ws->G.resize(G_size);
  ws->along.Resize(problem.num_constraints());
  ws->piece.resize(problem.num_constraints());
  ws->body_maps.assign(problem.num_cliques(), 0);
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const ConstraintEntry& e = problem.entry(k);
    if (e.body_jacobian >= 0 && problem.clique_solver(e.clique[0]) != nullptr)
      ws->body_maps[e.clique[0]] = 1;
  }
  // Per-thread scratch, sized here so that no thread allocates during the solve.
  if (ws->scratch.size() < static_cast<size_t>(num_threads)) ws->scratch.resize(num_threads);
  const size_t G_block =
      static_cast<size_t>(problem.max_constraint_rows()) * problem.max_constraint_rows();
  for (SapThreadScratch& scratch : ws->scratch)
    if (scratch.G_trial.size() < G_block) scratch.G_trial.resize(G_block);
  // Reduced v*, A v* and the scaling D = diag(A)^{-1/2} (docs/design/sap-solver.md §2.1).
  for (int c = 0; c < problem.num_cliques(); ++c) {
    const int o = reduced_offset[c], m = problem.clique_size(c);
    if (o < 0) continue;
    VecMap(&ws->v_star[o], m) = problem.v_star().segment(problem.clique_offset(c), m);
    if (problem.has_A(c)) {
      VecMap(&ws->D[o], m) = problem.A(c).diagonal().cwiseSqrt().cwiseInverse();
    } else {  // a matrix-free clique: its kept 1 / A_ii
      VecMap(&ws->D[o], m) = ConstVecMap(problem.inverse_diagonal_of_A(c), m).cwiseSqrt();
    }
  }
  for (int c = 0; c < problem.num_cliques(); ++c)
    if (reduced_offset[c] >= 0) MultiplyByA(*ws, c, ws->v_star.data(), ws->A_v_star.data());
}

void SetupIslands(const SapSolverParameters& parameters, const std::vector<char>* couples,
                  SapWorkspace* ws) {
  FindIslands(*ws->problem, ws->reduced_offset, &ws->islands, couples);
  ws->newton.Setup(*ws->problem, ws->reduced_offset, ws->num_reduced,
                   parameters.dense_threshold, &ws->islands);
  for (SapThreadScratch& scratch : ws->scratch) ws->newton.ReserveScratch(&scratch.newton);
  const int K = ws->islands.num_islands;
  ws->island.assign(K, SapIslandState{});
  ws->tolerances = TolerancesForIslands(parameters, K);
}

void LoadGuess(const Eigen::Ref<const Eigen::VectorXd>& v_guess, SapWorkspace* ws) {
  const ContactProblem& p = *ws->problem;
  for (int c = 0; c < p.num_cliques(); ++c) {
    if (ws->reduced_offset[c] < 0) continue;
    VecMap(&ws->v[ws->reduced_offset[c]], p.clique_size(c)) =
        v_guess.segment(p.clique_offset(c), p.clique_size(c));
  }
}

}  // namespace csim::solver
