#pragma once
// The one interface every SAP constraint kind implements (CONTRIBUTING.md §6): the three
// operations SAP's Newton method needs of a constraint, its cost, impulse and Hessian.
//
// A constraint k has n_k equations and a constraint velocity v_c,k = J_k v (n_k), with J_k
// stored by the ContactProblem, one dense block per clique it acts on. Given v_c,k the
// constraint evaluates (docs/design/sap-problem.md §2):
//   - its convex cost ell_k(v_c,k) [J],
//   - its impulse gamma_k = -d ell_k / d v_c,k (n_k) [N s, or N m s for angular rows],
//   - on request, G_k = -d gamma_k / d v_c,k = d^2 ell_k / d v_c,k^2 (n_k x n_k, symmetric
//     positive semidefinite) [kg, or the matching generalized unit].
// Anything a kind needs that is constant within a step (kinematic bias velocity, signed
// distance, regularization R, stabilization velocity v_hat) is stored in the object and set
// by Prepare() from the time step and the constraint's Delassus estimate w
// (docs/design/sap-problem.md §4). Kinds that can guess their active region from the previous step
// also implement StictionPrediction (stiction_prediction.h); the solver needs nothing else of them.
//
// Design choice: the evaluation writes into caller-owned raw arrays rather than returning
// Eigen objects, so the Newton loop and the line search evaluate every constraint with no
// heap allocation and no knowledge of the kind. Alternatives rejected: a CRTP/variant over a
// closed list of kinds (adding Hunt & Crossley or PD kinds would touch the solver); Eigen
// Ref<MatrixXd>* outputs (nullable references are clumsy). A virtual call per constraint per
// evaluation is negligible next to the 3x3 work it dispatches.

namespace csim::solver {

/// Abstract SAP constraint. Kinds derive from it and must be copy-assignable (the problem
/// keeps pooled instances and re-uses them across steps by assignment).
class Constraint {
 public:
  virtual ~Constraint() = default;

  /// Number of equations n_k (rows of J_k). Constant for the life of the object.
  virtual int num_rows() const = 0;

  /// Per-step setup from the time step dt [s] > 0 and the scalar Delassus estimate
  /// delassus [1/kg] > 0 of this constraint (w of docs/design/sap-problem.md §4): computes R and
  /// v_hat (docs/design/sap-problem.md §3).
  virtual void Prepare(double dt, double delassus) = 0;

  /// Evaluates the constraint at v_c = J_k v (n_k values, without any bias: a kind that
  /// has a kinematic bias adds it itself).
  /// Writes gamma (n_k values, = -d ell / d v_c) and, when G != nullptr, the n_k x n_k
  /// column-major matrix G = d^2 ell / d v_c^2. When piece != nullptr, writes the piece of
  /// the piecewise cost that contains v_c, as an id >= 0 when that piece is a convex set on
  /// which ell_k is a single quadratic (so two points with the same id bound a segment along
  /// which ell_k is exactly that quadratic), else -1; the exact line search uses it to stop
  /// re-evaluating constraints that stay on one quadratic piece over its whole bracket
  /// (sap_cost_along_direction.h). Returns the cost ell [J]. Precondition: Prepare() was
  /// called. Never allocates.
  virtual double Calc(const double* v_c, double* gamma, double* G, int* piece) const = 0;

  /// Calc for the line search, which needs the cost, gamma and only the curvature of the
  /// cost along a direction, c = dv_c^T G dv_c (G as in Calc; dv_c: n_k values), not G.
  /// Writes gamma, *curvature and *piece (as Calc); returns the cost [J].
  /// `scratch` holds n_k x n_k doubles for kinds that form G to get c (the default: Calc,
  /// then the quadratic form); kinds with a closed form override it. Same preconditions as
  /// Calc. Never allocates.
  virtual double CalcAlong(const double* v_c, const double* dv_c, double* gamma,
                           double* curvature, int* piece, double* scratch) const;

 protected:
  Constraint() = default;
  Constraint(const Constraint&) = default;
  Constraint& operator=(const Constraint&) = default;
};

/// The near-rigid regularization rule shared by all compliant SAP constraints
/// (docs/design/sap-problem.md §3.2, SAP eq. 29):
///   R = max( beta^2 / (4 pi^2) * w ,  1 / (dt k (dt + tau_d)) )
/// dt [s] > 0, stiffness k [N/m] > 0 (may be +inf: then only the near-rigid term remains),
/// tau_d [s] >= 0, beta [1] >= 0, and the Delassus estimate w = delassus [1/kg] > 0.
/// Returns R [1/kg]; the caller checks R > 0 (k = inf with beta = 0 gives R = 0, a rigid
/// constraint SAP cannot represent).
double NearRigidRegularization(double dt, double k, double tau_d, double beta, double delassus);

/// Whether NearRigidRegularization's R is its near-rigid term (ties included: std::max then
/// returns that term), same arguments. There R depends on neither k nor tau_d, so their
/// derivatives through R are zero (contact_parameter_derivatives.h).
bool NearRigidTermWins(double dt, double k, double tau_d, double beta, double delassus);

}  // namespace csim::solver
