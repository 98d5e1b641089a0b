#pragma once
// Forward sensitivities of a trajectory, S_n = dx_n/dp, chained over the constrained steps
// (docs/design/sensitivities.md §6-§7). Per step from x0 = (q0, v0) to the converged v, the
// optimality residual of the step's problem
//   r(v; x0, p) = A(x0) (v - v*(x0)) - J(x0)^T gamma(J(x0) v; data(x0), p) = 0
// gives, for a column with state direction D = (dq0, dv0) (dq0 in the tangent of
// configuration_tangent.h) and parameter direction e_p,
//   H dv = -(dr/dx0 D + dr/dp e_p),     H = A + J^T G J at v (step_sensitivity.h),
//   dq   = d/de [ q1(q0 (+) e dq0, v0 + e dv0, v + e dv) (-) q1 ] at e = 0,
// with q1(.) the position update of theta_method.h (AdvancePositions) and (-) the tangent
// difference at the step's q1 (quaternion renormalization included, its radial part
// projected out by the tangent).
//
// Design decision (v1): the partials of the step's smooth assembly in the state, dr/dx0 D
// at fixed v (A = M(q0) + ..., v*(q0, v0), J(q0), phi0(q0), the contact frames, the
// Delassus-based R and v_hat, the bias velocities, the lagged Hunt & Crossley n0), are
// central differences of the whole assembly (BuildStepProblem) at x0 +- h D, evaluated at
// the fixed converged v (solver::CalcOptimalityResidual); the non-smooth solve is
// differentiated exactly by the implicit function theorem with the H factor of
// step_sensitivity.h. h = cbrt(eps) / max(|dq0|_inf / 1e-3, |dv0|_inf / max(1, |v0|_inf)),
// the central difference's balance of truncation (h^2) and rounding (eps / h), with the
// positions' scale that of a contact's penetration, not of q (so h |dq0| ~ 6e-9 m). The
// two assemblies are matched with the nominal one: the same contacts by identity (geometry
// pair and manifold point, ContactProblemBuilder::contact_keys), the same cliques and rows
// for every constraint, and every contact on the same piece at the fixed v (SAP's region;
// Hunt & Crossley's normal clamp; asked of each perturbed assembly by
// solver::CalcContactPieceOf with the kinds found once for the nominal problem). When a
// side differs, both are redone at h / 10, h / 100, h / 1000 until both match, skipping the
// steps that the differing contacts' kink distances (nominal and perturbed, taken as linear
// along the step) predict to cross their boundaries, and stopping where no retry can keep
// them. Then, when one side matches, the step is flagged and the one-sided second-order
// difference from it at min(the last step, h / 10) and half that is used; when both differ,
// the central difference is kept and the step flagged as unmatched. The position update is
// differentiated exactly (multibody::IntegratePositionsDerivative along (dq0, dv0, dv)).
// Rejected: templating the multibody pipeline on an AutoDiff scalar (exact, the design
// target for later: too invasive now); finite differences of whole steps (MuJoCo's way:
// the solve's kinks and its tolerance make them noisy, and they cost n_p full solves).
//
// The pairwise rule (docs/design/sensitivities.md §6.3-§6.4): on a model whose bodies with
// velocities are lone free bodies (under theta = 0) or fixed-axis bodies (under any theta)
// (AllPairwiseBodies), a step whose constraints are all point contacts it covers
// (PairwiseContactDerivatives::Prepare) gets dr/dx0 D without whole assemblies: the free
// motion's part exactly (free_body_partials.h, fixed_axis_partials.h) and the contacts' by
// the chain rule through each pair's narrow phase, differenced and retried alone
// (pairwise_contact_derivatives.h). A contact outside
// the nominal build is not seen there (it enters at its margin without an impulse, §6.3).
//
// Cliques no constraint touches (and whole free-flight steps) have v = v*: there dv is the
// central difference of v* (the free-body partials' dv* on the pairwise rule), the same
// formula with H = A.
//
// Contact geometry: phi0, the normal and the contact point are smooth in q for a sphere,
// ellipsoid or capsule against a halfspace (their witness points are analytic); for every
// other pair (box corners, convex meshes, GJK/EPA, hydroelastic polygons) the differenced
// geometry is the narrow phase's, exact for a vertex or a face held by the same features
// but approximate near a feature switch: such a step is marked approximate_geometry.
//
// Cost per step: 2 n_p assemblies (a column without a state direction needs none), two per
// retry, one or two per one-sided column, 2 more per body-mass column, one factorization of
// H, n_p solves and position derivatives; the nominal problem is the step's own
// (SolvedStep), or one more assembly at x0 for a caller without it.
// Threads (docs/design/sensitivities.md §6.2): the columns' differences are independent of
// one another, so with N threads one loop of Advance runs over the columns on a ThreadPool
// owned here: the perturbed assemblies (DifferenceAssembly, then DifferenceMass) before
// the IFT solve. The position derivatives after it are a few products per joint and column,
// less than waking the pool: serial. The columns
// are dealt round-robin into min(N, n_p) fixed chunks, one ColumnScratch each (the
// perturbed state and its workspaces, the differences' vectors); a chunk writes only its
// scratch and its columns' outcomes (dr_, dv_star_, dq_next_ columns, statuses and the
// one-sided / unmatched counts), reduced after the loop in column order. A column's
// arithmetic does not depend on which thread ran it, so S and the flags are the same bits
// for every N. The nominal assembly, the IFT and the contact columns' dgamma/dp stay
// serial. Rejected: the contact solver's pool (its owner is the stepper's workspace, which
// the chain does not read); a thread per column and step (creation costs and allocates);
// columns handed out one by one to whichever thread is free (ForEachColumn says why).
// Memory: the nominal assembly and each chunk's scratch own a StepWorkspace and a
// ContactStepWorkspace (a model's worth each), and a body-mass column two copies of the
// model with a pair of workspaces each, all made by the constructor; a warmed-up Advance on
// an unchanged number of constraint rows does not allocate (the IFT input v_c is sized to
// the rows).
//
// Contact columns: one parameter shared by every contact (CalcContactParameterDirection's
// scale = 1), or a material's friction, dissipation or stiffness, whose scale per contact is
// the combination's derivative (docs/design/sensitivities.md §7.3). A material's stiffness
// moves the series k and both stiffness-weighted dissipations: its direction is the sum of
// three, dgamma/dk dk/dk_m + dgamma/dtau_d dtau_d/dk_m + dgamma/dd dd/dk_m. Hydroelastic
// polygons take their friction from the same combination, their stiffness and dissipation
// from the pressure fields: they get a material's friction only (0 in the other columns).
//
// Body-mass columns: the mass moves M (A, v*, gravity, the Delassus estimates behind R and
// v_hat), so dr/dm at fixed v and x0 is the central difference of the assembly between two
// copies of the model with the body's mass m (1 +- h_m), h_m = cbrt(eps), made once by the
// constructor as the loader would make them (multibody::MassSource: the inertia scales with
// the mass when the scene derived it from the geometry, else it stays). It is matched with
// the nominal assembly like the state differences (one attempt: the copies are fixed, so
// there are no retries at a smaller step; a mismatch is counted one-sided or unmatched).

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "engine/common/step_status.h"
#include "engine/common/thread_pool.h"
#include "engine/integrator/contact_step.h"
#include "engine/integrator/fixed_axis_partials.h"
#include "engine/integrator/free_body_partials.h"
#include "engine/integrator/pairwise_contact_derivatives.h"
#include "engine/solver/sap_workspace.h"
#include "engine/solver/step_sensitivity.h"

namespace csim::integrator {

/// What one sensitivity column differentiates with respect to.
struct SensitivityParameter {
  enum class Kind {
    kContact,          ///< `contact` of every contact (one value shared by all contacts)
    kInitialPosition,  ///< tangent coordinate `index` (0 <= index < nv) of q at Reset
    kInitialVelocity,  ///< v[index] at Reset
    /// `contact` (kMu, kStiffness, kDissipationTime or kHuntCrossley) of material `index`
    /// (Model::materials; -1: the built-in default), through CombineMaterials: each contact
    /// of a geometry of that material moves by contact::CombinedMaterialDerivative, or for
    /// the stiffness (finite: checked) contact::CombinedStiffnessDerivativeOf.
    kMaterial,
    /// The mass of body `index` [kg] (its inertia scaled along when the scene derived it
    /// from the geometry, multibody::MassSource).
    kBodyMass,
  };
  Kind kind = Kind::kContact;
  solver::ContactParameter contact = solver::ContactParameter::kMu;  ///< kContact, kMaterial
  int index = -1;  ///< the initial-state kinds' coordinate; kMaterial's material; kBodyMass's
                   ///< body
};

/// What the last Advance saw, for judging its derivatives.
struct SensitivityStepInfo {
  int num_constraints = 0;
  /// Columns whose assembly at one of x0 +- h D had another contact set or order, or a
  /// contact on another piece at the fixed v: a one-sided (second-order) difference from
  /// the other side was used.
  int num_one_sided = 0;
  /// Columns where both sides differed: the central difference straddles a change of the
  /// contact set (the derivative there is not that of one piece).
  int num_unmatched = 0;
  /// Some contact's geometry is not one with analytic contact data (see the top).
  bool approximate_geometry = false;
  /// Smallest kink distance over the contacts (contact_parameter_derivatives.h), 1 without
  /// contacts: how close the step is to a region boundary.
  double min_kink_distance = 1.0;
};

/// The workspaces of the StepWithContact that took state0 to state1, untouched since it
/// returned: its problem, built at state0, is the nominal one Advance would rebuild (the
/// same build at the same state), so Advance reads it instead (one assembly a step less).
/// Not for a servos-only step solved directly (contact::PdActuators::last_step_direct), whose
/// problem lacks the actuator rows: Advance then rebuilds.
struct SolvedStep {
  const StepWorkspace& ws;
  const ContactStepWorkspace& cws;
};

class TrajectorySensitivity {
 public:
  /// Columns for `parameters` (n_p of them); tree_solver as the stepper's workspace. The
  /// columns' differences run on min(threads, n_p) threads (threads >= 1; 1: no thread is
  /// started); S is the same bits for every count.
  TrajectorySensitivity(const multibody::Model& model,
                        const std::vector<SensitivityParameter>& parameters,
                        TreeSolver tree_solver = TreeSolver::kAuto, int threads = 1);

  /// S_0: e_index for an initial-state column, 0 for a contact column.
  void Reset();

  /// Advances S from the step that took `state0` to `state1` with these very settings (a
  /// successful StepWithContact; state1.v its converged solution, state1.q its position
  /// update). Returns kNonFinite with a reason when an assembly fails or H at the solution
  /// is not SPD (S is then unspecified).
  /// solver_v_c: optionally the step's own constraint velocities (its ContactStepWorkspace's
  /// result.v_c), for a step whose problem held the same rows as the rebuilt nominal one,
  /// i.e. not a servos-only step solved directly (contact::PdActuators::last_step_direct:
  /// its problem has no actuator rows). Used for the nominal pieces and G when its size is
  /// the nominal problem's row count (else, and when null, v_c = J v is formed here): on a
  /// region boundary (kink distance ~1e-16) J v formed anew can round to the other region
  /// than the solver's v_c did, and the derivative must be that of the solver's piece.
  /// step: optionally the step's own workspaces (SolvedStep); then its problem and its
  /// solver's v_c are the nominal ones and solver_v_c is not read.
  StepStatus Advance(const multibody::Model& model, const ThetaParameters& params,
                     const FreeMotionSettings& free_motion,
                     const contact::ContactParameters& contact_parameters, double dt,
                     const multibody::State& state0, const multibody::State& state1,
                     const Eigen::VectorXd* solver_v_c = nullptr,
                     const SolvedStep* step = nullptr);

  /// dq_n/dp (nv x n_p) in the tangent at q_n (configuration_tangent.h) [m or rad per unit].
  const Eigen::MatrixXd& dq() const { return dq_; }
  /// dv_n/dp (nv x n_p) [m/s or rad/s per unit of p].
  const Eigen::MatrixXd& dv() const { return dv_; }
  const std::vector<SensitivityParameter>& parameters() const { return parameters_; }
  /// The last Advance's flags, and the counts over every Advance since Reset.
  const SensitivityStepInfo& last_step() const { return last_; }
  /// Per contact of the last Advance's step, in the order of its contact reports
  /// (ContactProblemBuilder::Report: the builder's contacts that have a constraint): the
  /// region (solver::ContactRegion: 0 none, 1 stiction, 2 sliding) and the kink distance
  /// (contact_parameter_derivatives.h) at the converged v.
  const std::vector<int8_t>& contact_regions() const { return contact_region_; }
  const std::vector<double>& contact_kink_distances() const { return contact_kink_; }
  /// Per column, of the last Advance's step: for a material's friction column (kMaterial,
  /// kMu), the lower bound the step's contact impulses put on that material's friction mu_m
  /// (docs/design/sensitivities.md "`csim fit`"); -inf for the other columns, and when no
  /// contact of the material carries a normal impulse. Each such contact (one of its
  /// geometries has the material) is in the friction cone, |gamma_t| <= mu n: SAP projects
  /// onto it (n = gamma_n); Hunt & Crossley's friction is mu n |t_hat|, |t_hat| < 1, with
  /// n = gamma_n for `similar` and the lagged impulse n0 for `lagged` and
  /// `lagged_regularized`. Its ratio r = |gamma_t| / n at the converged v_c needs the pair's
  /// friction 2 mu_m mu_o / (mu_m + mu_o) >= r (CombineMaterials, the other material's mu_o
  /// at its value): mu_m >= r against its own material, mu_m >= r mu_o / (2 mu_o - r) when
  /// 2 mu_o > r; a contact with r >= 2 mu_o, which no finite mu_m reaches (the model's own
  /// impulses never do: there r <= the pair's friction < 2 mu_o), is skipped. The bound is
  /// the largest over the contacts. Why: in stiction dgamma/dmu = 0, so a run that only
  /// sticks has a zero friction column; this is what its impulses say instead.
  const Eigen::VectorXd& friction_bounds() const { return friction_bound_; }
  int steps_one_sided() const { return steps_one_sided_; }
  int steps_unmatched() const { return steps_unmatched_; }
  int steps_approximate_geometry() const { return steps_approximate_; }
  /// Steps since Reset whose state derivatives took the pairwise rule
  /// (docs/design/sensitivities.md §6.3) rather than whole assemblies.
  int steps_pairwise() const { return steps_pairwise_; }

 private:
  // One chunk's scratch for the columns it differences: a perturbed state with its
  // assembly's workspaces, and the vectors the differences write (nv each). products: the
  // perturbed problem's J v and residual products.
  struct ColumnScratch {
    ColumnScratch(const multibody::Model& model, TreeSolver tree_solver);
    StepWorkspace ws;
    ContactStepWorkspace cws;
    multibody::State state;
    Eigen::VectorXd delta, r_plus, r_minus, v_star_plus, v_star_minus;
    solver::SapWorkspace products;
    PairwiseContactDerivatives::Scratch pairwise;
  };
  // What column j's differences ended with, reduced after each parallel loop in column order.
  struct ColumnOutcome {
    StepStatus assembly, mass;  // DifferenceAssembly's, DifferenceMass's
    int one_sided = 0, unmatched = 0;
    std::exception_ptr error;   // what the loop body caught, rethrown by the caller
  };

  // The nominal step's problem at state0 and its v_c at v = state1.v: solver_v_c when it
  // fits the problem's rows, else J v.
  StepStatus AssembleNominal(const multibody::Model& model, const ThetaParameters& params,
                             const FreeMotionSettings& free_motion,
                             const contact::ContactParameters& contact_parameters, double dt,
                             const multibody::State& state0, const Eigen::VectorXd& v,
                             const Eigen::VectorXd* solver_v_c, const SolvedStep* step);
  // Column j's dr/dx0 D (into dr_.col(j)) and dv*/dx0 D (into dv_star_.col(j)).
  StepStatus DifferenceAssembly(const multibody::Model& model, const ThetaParameters& params,
                                const FreeMotionSettings& free_motion,
                                const contact::ContactParameters& contact_parameters, double dt,
                                const multibody::State& state0, const Eigen::VectorXd& v, int j,
                                ColumnScratch& scratch, ColumnOutcome& outcome);
  // r at v and v* of the assembly at x0 + step D_j into (r, v_star); whether its
  // constraints match the nominal ones, and the reach of AssembleWith.
  StepStatus AssembleAt(const multibody::Model& model, const ThetaParameters& params,
                        const FreeMotionSettings& free_motion,
                        const contact::ContactParameters& contact_parameters, double dt,
                        const multibody::State& state0, const Eigen::VectorXd& v, int j,
                        double step, ColumnScratch& scratch, Eigen::VectorXd* r,
                        Eigen::VectorXd* v_star, bool* same, double* reach);
  // Adds column j's dr/dm and dv*/dm of a body-mass column, at the fixed x0 and v.
  StepStatus DifferenceMass(const ThetaParameters& params, const FreeMotionSettings& free_motion,
                            const contact::ContactParameters& contact_parameters, double dt,
                            const multibody::State& state0, const Eigen::VectorXd& v, int j,
                            ColumnScratch& scratch, ColumnOutcome& outcome);
  // r at v and v* of `model`'s assembly at `state` with the workspaces (ws, cws), and whether
  // its constraints and pieces match the nominal ones (products: scratch for J v). reach
  // (optional): when only pieces differ, the fraction of the perturbation from x0 at which
  // the first differing contact crosses its boundary, estimated from its kink distances at
  // both ends as if they moved linearly; 1 when it matches or the contact set differs.
  StepStatus AssembleWith(const multibody::Model& model, const ThetaParameters& params,
                          const FreeMotionSettings& free_motion,
                          const contact::ContactParameters& contact_parameters, double dt,
                          const multibody::State& state, const Eigen::VectorXd& v,
                          StepWorkspace& ws, ContactStepWorkspace& cws,
                          solver::SapWorkspace& products, Eigen::VectorXd* r,
                          Eigen::VectorXd* v_star, bool* same, double* reach) const;
  // dq_next_ from the new dv_next_: the position update's exact derivative, every column.
  void PositionDerivatives(const multibody::Model& model, const ThetaParameters& params,
                           double dt, const multibody::State& state0,
                           const multibody::State& state1);
  // Runs body(j, scratch) for every column, in chunks on the pool when there is one;
  // afterwards the first exception a column threw (in column order) is rethrown here.
  template <typename Body>
  void ForEachColumn(Body& body);
  // Flags of the nominal problem's contacts (kinks, geometry).
  void InspectContacts();
  // derivatives_: every contact's dgamma/dp at the nominal v_c (for every contact column and
  // the pairwise rule), once a step: a call after the first returns at once.
  void ContactDerivatives();
  // solver::CalcContactParameterDirection for the nominal problem from derivatives_.
  void ContactParameterDirection(solver::ContactParameter parameter, const double* scale,
                                 Eigen::Ref<Eigen::VectorXd> dgamma_dp) const;
  // scale_ (per constraint of the nominal problem) for material column j; for a stiffness
  // column also scale_tau_ and scale_d_ (the weighted dissipations' derivatives).
  void MaterialScale(const multibody::Model& model, int j);
  // friction_bound_ of the nominal problem at its v_c (friction_bounds()).
  void FrictionBounds(const multibody::Model& model);

  // A body-mass column's two models, m (1 + h_m) and m (1 - h_m), with their own workspaces
  // (the multibody workspaces hold the bodies' spatial inertias). Used by one thread at a
  // time (its column's chunk); the differences' vectors are that chunk's ColumnScratch.
  struct MassModels {
    MassModels(const multibody::Model& model, int body, double relative_step,
               TreeSolver tree_solver);
    double step;  // h_m m [kg]
    multibody::Model plus, minus;
    StepWorkspace plus_ws, minus_ws;
    ContactStepWorkspace plus_cws, minus_cws;
  };

  std::vector<SensitivityParameter> parameters_;
  std::vector<geometry::ShapeType> shape_;  // per collision spec
  std::vector<int> material_;               // per collision spec: Model::materials index
  std::vector<double> scale_;               // per constraint: dp_k / dp of a material column
  std::vector<double> scale_tau_, scale_d_;  // per constraint: a stiffness column's dtau, dd
  std::vector<double> friction_ratio_;       // per constraint: |gamma_t| / n, -1 without n
  Eigen::VectorXd friction_bound_;           // per column: friction_bounds()
  bool has_friction_column_ = false;         // some column is a material's friction
  bool has_mass_column_ = false;             // some column is a body's mass
  bool has_contact_column_ = false;          // some column is a contact's or a material's
  bool derivatives_ready_ = false;           // derivatives_ are this step's
  std::vector<std::unique_ptr<MassModels>> mass_;  // per column: a body-mass column's, or null
  Eigen::MatrixXd dq_, dv_;                 // S_n (nv x n_p)
  Eigen::MatrixXd dq_next_, dv_next_;       // S_{n+1} being formed
  Eigen::MatrixXd dr_, dv_star_, rhs_, dv_solve_;  // per column (nv x n_p)
  // Nominal assembly and its solution (v, v_c): the step's own (SolvedStep) or rebuilt into
  // own_ws_ and own_cws_; nominal_ws_ and nominal_cws_ point at whichever it is.
  StepWorkspace own_ws_;
  ContactStepWorkspace own_cws_;
  const StepWorkspace* nominal_ws_ = &own_ws_;
  const ContactStepWorkspace* nominal_cws_ = &own_cws_;
  solver::SapSolverResult nominal_;
  std::vector<char> participating_;  // per velocity: its clique has a constraint
  // Per constraint of the nominal problem, at its v_c: the kind (ContactKindOf), the piece
  // (solver::ContactPieceCode), the region and the kink distance (kOther: 0 and 1).
  std::vector<solver::ContactKind> kind_;
  std::vector<int> piece_;
  std::vector<int8_t> region_;
  std::vector<double> kink_;
  std::vector<solver::ContactParameterDerivatives> derivatives_;  // per constraint (contacts)
  Eigen::VectorXd r_nominal_, dgamma_term_;
  Eigen::MatrixXd dgamma_, jt_;  // per column: a contact column's dgamma/dp (rows), J^T of it
  Eigen::VectorXd v_bar_, dv_bar_;  // PositionDerivatives' (nv)
  solver::SapWorkspace products_;    // the nominal problem's (serial parts)
  std::unique_ptr<ThreadPool> pool_;  // null with one thread
  std::vector<std::unique_ptr<ColumnScratch>> scratch_;  // per chunk = thread of the pool
  std::vector<ColumnOutcome> outcome_;                    // per column
  solver::StepSensitivitySolver ift_;
  // The pairwise rule (pairwise_contact_derivatives.h with free_body_partials.h and
  // fixed_axis_partials.h), on the steps whose model and every constraint it covers
  // (pairwise_step_, set by Advance: PairwiseContactDerivatives::Prepare and Linearize).
  bool pairwise_step_ = false;
  PairwiseContactDerivatives pairwise_;
  FreeBodyFreeMotionPartials free_body_;
  FixedAxisFreeMotionPartials fixed_axis_;
  SensitivityStepInfo last_;
  std::vector<int8_t> contact_region_;  // per reported contact of the last step
  std::vector<double> contact_kink_;
  int steps_one_sided_ = 0, steps_unmatched_ = 0, steps_approximate_ = 0, steps_pairwise_ = 0;
};

}  // namespace csim::integrator
