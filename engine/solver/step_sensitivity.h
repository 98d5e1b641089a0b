#pragma once
// Forward sensitivities of one contact solve with respect to contact parameters, by the
// implicit function theorem at SAP's optimum (docs/design/sensitivities.md §5). At the
// solution v of the step's problem (contact_problem.h)
//   r(v; p) = A (v - v*) - J^T gamma(J v; p) = 0,
// so along v = v(p), for a parameter p of the contact laws alone (A, v*, J fixed),
//   H dv/dp = J^T dgamma/dp|_{v_c},     H = A + J^T G J,  G = -dgamma/dv_c at v_c = J v,
//   dgamma/dp = dgamma/dp|_{v_c} - G J dv/dp          (the total change of the impulses).
// The input, per direction, is dgamma/dp at fixed v_c (contact_parameter_derivatives.h gives
// it per contact; CalcContactParameterDirection below stacks it for a problem); the output is
// dv/dp and the total dgamma/dp.
//
// H at the solution: G is each constraint's Calc at the result's v_c (the piece Calc takes
// there: the solver's own region choice, so a one-sided derivative on a region boundary,
// docs/design/sensitivities.md §3), and H is assembled and factorized once more per island,
// as NewtonConditionEstimator does (newton_condition.h): the Newton loop never factorizes H at
// its final iterate (it tests convergence before factorizing), and a factor at the last
// iterate would make dv/dp wrong by O(|v - v_last|) and by every region that changed in the
// last update. Cost: one Newton iteration's assembly and factorization per island, then two
// triangular solves per direction. Every constraint joins the partition (no deferral: a
// contact apart at v has G = 0 and changes nothing but the island sizes); cliques that no
// constraint touches have v = v*, which no contact parameter moves: dv/dp = 0 there.
//
// Design choice: the parameter directions are a dense num_constraint_rows x n_p matrix
// rather than a sparse list of (constraint, 3-vector) per direction. Why: the directions of a
// material parameter touch every contact of that material, n_p is small (a fit identifies a
// few parameters), the J^T products skip all-zero constraint rows anyway (sap_products.h),
// and a dense column is what the total dgamma/dp is returned as.
//
// Memory: the workspace (the solver's SapWorkspace layout: reduced coordinates, islands,
// the Newton system) grows to the largest problem seen and is kept; a call on a problem and
// n_p no larger than a previous one does not allocate.

#include <cstdint>

#include <Eigen/Dense>

#include "engine/common/step_status.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver.h"
#include "engine/solver/sap_workspace.h"

namespace csim::solver {

/// A contact parameter of contact_parameter_derivatives.h.
enum class ContactParameter {
  kMu,               ///< Coulomb friction coefficient mu [1] (SAP, Hunt & Crossley)
  kStiffness,        ///< normal stiffness k [N/m] (SAP, Hunt & Crossley)
  kDissipationTime,  ///< tau_d [s] (SAP only)
  kHuntCrossley,     ///< Hunt & Crossley dissipation d [s/m] (Hunt & Crossley only)
  kPhi0,             ///< signed distance at q0 phi0 [m] (SAP, Hunt & Crossley)
};

/// The field of `d` for `parameter` (3 values in the contact frame [t1, t2, n]).
const Eigen::Vector3d& DerivativeOf(const ContactParameterDerivatives& d,
                                    ContactParameter parameter);

/// Constraint k's derivatives at the constraint velocities v_c (all rows of the problem,
/// num_constraint_rows(), without biases, as SapSolverResult::v_c) when k is a
/// SapFrictionConeConstraint or a SapHuntCrossleyConstraint: writes *out and returns true;
/// for any other kind (limits, PD, joint friction, holonomic: no contact parameter) returns
/// false and leaves *out alone. Never allocates.
bool CalcContactParameterDerivativesOf(const ContactProblem& problem, int k, const double* v_c,
                                       ContactParameterDerivatives* out);

/// The contact kinds CalcContactParameterDerivativesOf tells apart.
enum class ContactKind : int8_t {
  kOther,         ///< no contact parameter (limits, PD, joint friction, holonomic)
  kSap,           ///< SapFrictionConeConstraint
  kHuntCrossley,  ///< SapHuntCrossleyConstraint
};

/// c's kind, by the casts CalcContactParameterDerivativesOf makes.
ContactKind ContactKindOf(const Constraint& c);

/// Constraint k's piece at v_c (all rows, as CalcContactParameterDerivativesOf): for a contact
/// kind writes *out, the region, kink distance and normal clamp that
/// CalcContactParameterDerivativesOf would report, and returns true; for kOther returns false
/// and leaves *out alone. `kind` must be ContactKindOf(problem.constraint(k)): a caller that
/// asks for many v_c or many problems with the same constraints (the chain's perturbed
/// assemblies) finds it once; it is not checked here. Without with_kink_distance the kink
/// distance is not formed (left 0). Never allocates.
bool CalcContactPieceOf(const ContactProblem& problem, int k, ContactKind kind, const double* v_c,
                        ContactPiece* out, bool with_kink_distance = true);

/// The code of the piece a contact of kind `kind` is on, as the sensitivities compare pieces
/// (docs/design/sensitivities.md §3, §6.2): SAP's region (0 none, 1 stiction, 2 sliding); for
/// Hunt & Crossley only whether the normal impulse is clamped (0) or not (1), its
/// stiction/sliding line being smooth; -1 for kOther. The piece's kink distance is the
/// distance to the boundary of that very code.
int ContactPieceCode(ContactKind kind, const ContactPiece& piece);

/// One parameter direction for StepSensitivitySolver::Solve: dgamma/dp at fixed v_c
/// (num_constraint_rows() values, gamma's layout, [N s] per unit of p) when every contact's
/// `parameter` p_k moves with p as dp_k/dp = scale[k] (scale: one value per constraint; null:
/// 1 for every contact, i.e. one parameter shared by all contacts, such as the friction of
/// a scene with one material). Rows of constraints that are not contacts, and of contacts
/// whose kind does not read `parameter` (tau_d for Hunt & Crossley, d for SAP), are zero.
/// v_c: num_constraint_rows() values (SapSolverResult::v_c). Never allocates.
void CalcContactParameterDirection(const ContactProblem& problem, const double* v_c,
                                   ContactParameter parameter, const double* scale,
                                   Eigen::Ref<Eigen::VectorXd> dgamma_dp);

/// dv/dp and dgamma/dp of one step for n_p parameter directions.
struct StepSensitivityResult {
  /// dv/dp (num_velocities x n_p) [m/s, or rad/s, per unit of p]; zero on the cliques no
  /// constraint touches.
  Eigen::MatrixXd dv_dp;
  /// The total dgamma/dp (num_constraint_rows x n_p) [N s per unit of p], gamma's layout.
  Eigen::MatrixXd dgamma_dp;
};

class StepSensitivitySolver {
 public:
  /// dense_threshold: as SapSolverParameters::dense_threshold, the reduced size up to which
  /// H is factorized densely (0: always the block-sparse Cholesky, the solver's default).
  explicit StepSensitivitySolver(int dense_threshold = 0);

  /// The sensitivities at the solution `solution` of `problem` (a successful
  /// SapSolver::Solve of this very problem, checked: its v_c is read) for the directions
  /// dgamma_dp_at_vc (num_constraint_rows x n_p, column j = dgamma/dp_j at fixed v_c, e.g.
  /// from CalcContactParameterDirection; a MatrixXd or a block of one, since an expression
  /// would be evaluated into a temporary). Writes *out (resized only when a size changes).
  /// Returns kNonFinite, with a reason, when an island's H cannot be factorized (not SPD:
  /// non-finite data); *out is then unspecified.
  StepStatus Solve(const ContactProblem& problem, const SapSolverResult& solution,
                   const Eigen::Ref<const Eigen::MatrixXd>& dgamma_dp_at_vc,
                   StepSensitivityResult* out);

  /// Generalized right-hand sides: dv = H^-1 rhs (rhs, dv: num_velocities x n, velocity
  /// order) with H at `solution` as in Solve, for right-hand sides that are not J^T times a
  /// contact-parameter column, such as -dr/dx0 D of a state direction D
  /// (docs/design/sensitivities.md §6). Rows of the cliques no constraint touches are left
  /// 0 in *dv: H = A there, which this solver neither assembles nor factors (a caller
  /// knows their dv, dv* of the free motion). H is factorized once for all n columns: by the
  /// islands' block-sparse Cholesky, or, on a small problem (every constraint's blocks
  /// stored dense or a point contact's, each touched clique's A stored, at most 24 touched
  /// velocities), formed densely and factored by one Cholesky without the islands' set-up.
  /// Same preconditions and status as Solve; *dv is resized only when its size changes.
  StepStatus SolveRightHandSides(const ContactProblem& problem, const SapSolverResult& solution,
                                 const Eigen::Ref<const Eigen::MatrixXd>& rhs,
                                 Eigen::MatrixXd* dv);

  /// Islands of the last Solve (every constraint joins one; islands.h).
  const Islands& islands() const { return ws_.islands; }

 private:
  // Sets up the workspace on `problem` (every constraint in the partition) and evaluates G
  // at `solution`'s v_c.
  void SetupAt(const ContactProblem& problem, const SapSolverResult& solution);
  // G of every constraint at v_c into ws_.G.
  void EvaluateHessians(const double* v_c);
  // Island i: assembles and factorizes H, then solves for every direction. False when the
  // factorization fails.
  bool SolveIsland(int i, const Eigen::Ref<const Eigen::MatrixXd>& dgamma_dp_at_vc,
                   StepSensitivityResult* out);

  SapSolverParameters parameters_;  // only dense_threshold is read (SetupIslands)
  SapWorkspace ws_;
};

/// The optimality residual of the step's problem at the velocities v (num_velocities):
///   r = A (v - v*) - J^T gamma(J v)      [N s, or N m s]
/// (docs/design/sensitivities.md §1), written on the cliques some constraint touches and 0 on
/// the others (where the solution has v = v*). gamma is each constraint's Calc at J v
/// (without biases: a kind with a bias adds it itself). `ws`: scratch, set up here on
/// `problem` with every constraint in one partition; a problem no larger than one seen
/// before does not allocate; ws->vc holds J v after the call (the problem's rows). A problem
/// whose constraints are point contacts or stored dense blocks on cliques with a stored A
/// (at most 64 velocities) is multiplied block by block, without that set-up. For central
/// differences of the assembly at fixed v (trajectory_sensitivity.h).
void CalcOptimalityResidual(const ContactProblem& problem,
                            const Eigen::Ref<const Eigen::VectorXd>& v, SapWorkspace* ws,
                            Eigen::Ref<Eigen::VectorXd> r);

/// J^T gamma (num_velocities; gamma: num_constraint_rows values in gamma's layout) on the
/// cliques some constraint touches, 0 elsewhere; and v_c = J v (num_constraint_rows). `ws`
/// as for CalcOptimalityResidual.
void CalcJTransposeTimes(const ContactProblem& problem, const double* gamma, SapWorkspace* ws,
                         Eigen::Ref<Eigen::VectorXd> out);
void CalcConstraintVelocities(const ContactProblem& problem,
                              const Eigen::Ref<const Eigen::VectorXd>& v, SapWorkspace* ws,
                              Eigen::Ref<Eigen::VectorXd> v_c);
/// CalcJTransposeTimes for every column of gamma (num_constraint_rows x m, column-major) into
/// the columns of out (num_velocities x m), with one set-up of `ws` for all of them.
void CalcJTransposeTimesColumns(const ContactProblem& problem,
                                const Eigen::Ref<const Eigen::MatrixXd>& gamma, SapWorkspace* ws,
                                Eigen::Ref<Eigen::MatrixXd> out);

}  // namespace csim::solver
