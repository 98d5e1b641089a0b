#include "engine/integrator/trajectory_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <typeinfo>

#include "engine/common/check.h"
#include "engine/common/thread_pool.h"
#include "engine/contact/collision_setup.h"
#include "engine/contact/material_combination.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/multibody/position_update.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_hunt_crossley_constraint.h"

namespace csim::integrator {
namespace {

using Kind = SensitivityParameter::Kind;

// The central difference's step for a direction D = (dq, dv) per unit of p: the largest
// h with h |dq|_inf <= cbrt(eps) L_q and h |dv|_inf <= cbrt(eps) V, cbrt(eps) balancing the
// truncation error O(h^2) against the rounding O(eps / h) for coordinates of scale L_q and
// V. The position scale L_q = 0.1 (m, or rad) is that of what the assembly must not cross
// at fixed v, not the size of q: h |dq| ~ 6e-7 m, below the penetration of a near-rigid
// resting contact (~1e-5 m); where a region is narrower (DifferenceAssembly's retries),
// h shrinks. Why not smaller from the start: a stuck contact's impulse at fixed v rounds
// to eps |v| / R_t, and 1/h amplifies it (sensitivities.md §6.2). V = max(1, |v0|_inf).
double CentralStep(double norm_dq, double norm_dv, double velocity_scale) {
  constexpr double kPositionScale = 1e-1;
  return std::cbrt(std::numeric_limits<double>::epsilon()) /
         std::max(norm_dq / kPositionScale, norm_dv / velocity_scale);
}

// Retries of a difference whose perturbed assemblies differ from the nominal one: its step
// goes down by decades, to h / 10^kRetries at the least (kDecade[level] = 10^level).
constexpr int kRetries = 3;
constexpr double kDecade[kRetries + 1] = {1.0, 1e1, 1e2, 1e3};

// The retry level after a step h / 10^level on which a side left the nominal pieces at
// `reach` of the step by the linear estimate (AssembleWith): the largest decade step at
// most twice that predicted crossing (a factor of 2 of optimism: a retry too far costs two
// assemblies, a step too small costs accuracy, whose rounding grows as 1/h), at least one
// decade down; kRetries + 1 when that step would be below the smallest retry, which
// therefore cannot keep the pieces (a contact on its region boundary, kink distance ~1e-12,
// is not kept by any h / 10^level).
int NextRetryLevel(int level, double reach) {
  if (!(reach > 0.0)) return kRetries + 1;
  const double decades = std::log10(0.5 / reach);
  if (decades > kRetries) return kRetries + 1;
  return level + std::max(1, static_cast<int>(std::ceil(decades)));
}

// A body-mass column's relative step h_m: the central difference's cbrt(eps) for a
// parameter of scale m (the assembly is smooth in m at fixed x0 and v).
const double kMassStep = std::cbrt(std::numeric_limits<double>::epsilon());

// The built-in default material (material index -1).
const geometry::Material& BuiltInMaterial() {
  static const geometry::Material kBuiltIn;
  return kBuiltIn;
}

double InfNorm(const Eigen::Ref<const Eigen::VectorXd>& x) {
  return x.size() == 0 ? 0.0 : x.lpNorm<Eigen::Infinity>();
}

// Whether the two builds made the same constraints: the same contacts (by identity, in the
// same order) on the same constraint indices, and the same cliques and rows for every
// constraint (limits, friction, holonomic and PD rows included).
bool SameConstraints(const ContactStepWorkspace& a, const ContactStepWorkspace& b) {
  const auto& ka = a.builder.contact_keys();
  const auto& kb = b.builder.contact_keys();
  if (ka.size() != kb.size()) return false;
  for (size_t i = 0; i < ka.size(); ++i) {
    if (ka[i].geometry_a != kb[i].geometry_a || ka[i].geometry_b != kb[i].geometry_b ||
        ka[i].point != kb[i].point)
      return false;
    const int ia = static_cast<int>(i);
    if (a.builder.contact_constraint(ia) != b.builder.contact_constraint(ia)) return false;
  }
  const solver::ContactProblem &pa = a.problem, &pb = b.problem;
  if (pa.num_constraints() != pb.num_constraints() ||
      pa.num_constraint_rows() != pb.num_constraint_rows())
    return false;
  for (int k = 0; k < pa.num_constraints(); ++k) {
    const solver::ConstraintEntry &ea = pa.entry(k), &eb = pb.entry(k);
    if (ea.num_rows != eb.num_rows || ea.clique != eb.clique) return false;
  }
  return true;
}

// Contact data analytic in q: a sphere, ellipsoid or capsule against a halfspace.
bool AnalyticPair(geometry::ShapeType a, geometry::ShapeType b) {
  using geometry::ShapeType;
  if (b == ShapeType::kHalfspace) std::swap(a, b);
  return a == ShapeType::kHalfspace &&
         (b == ShapeType::kSphere || b == ShapeType::kEllipsoid || b == ShapeType::kCapsule);
}

// A contact's ratio r = |gamma_t| / n at v_c (its rows, without the bias, as Calc), n the
// normal impulse its friction impulse is bounded by, |gamma_t| <= mu n
// (TrajectorySensitivity::friction_bounds): gamma_n for SAP and `similar`, the lagged
// impulse n0 for `lagged` (its friction is mu n0 |t_hat| whatever this step's gamma_n).
// -1 without such an impulse, and for a kind without friction.
double FrictionRatio(const solver::Constraint& c, solver::ContactKind kind, const double* v_c) {
  if (kind == solver::ContactKind::kOther) return -1.0;
  double gamma[3];
  c.Calc(v_c, gamma, nullptr, nullptr);
  double n = gamma[2];
  if (kind == solver::ContactKind::kHuntCrossley) {
    const auto& hc = static_cast<const solver::SapHuntCrossleyConstraint&>(c);
    if (hc.parameters().approximation == solver::HuntCrossleyApproximation::kLagged)
      n = hc.n0();
  }
  if (!(n > 0.0)) return -1.0;
  return std::hypot(gamma[0], gamma[1]) / n;
}

// `model` with body `body`'s mass set to `mass` as `--set bodies.NAME.mass=M` would set it
// (model_builder.cc, ResolveMassProperties): a geometric inertia (MassSource::kMass, and
// kDensity's, which `--set` cannot reach) is the geometry's scaled to M, shifted to a given
// com by the parallel-axis theorem (also linear in M), so it scales with the mass; a given
// inertia stays; the com does not move.
multibody::Model WithMass(const multibody::Model& model, int body, double mass) {
  multibody::Model out = model;
  multibody::Body& b = out.bodies[body];
  if (b.mass_source != multibody::MassSource::kMassAndInertia) b.inertia *= mass / b.mass;
  b.mass = mass;
  return out;
}

}  // namespace

TrajectorySensitivity::MassModels::MassModels(const multibody::Model& model, int body,
                                              double relative_step, TreeSolver tree_solver)
    : step(relative_step * model.bodies[body].mass),
      plus(WithMass(model, body, model.bodies[body].mass + step)),
      minus(WithMass(model, body, model.bodies[body].mass - step)),
      plus_ws(MakeStepWorkspace(plus, tree_solver)),
      minus_ws(MakeStepWorkspace(minus, tree_solver)),
      plus_cws(plus),
      minus_cws(minus) {}

TrajectorySensitivity::ColumnScratch::ColumnScratch(const multibody::Model& model,
                                                   TreeSolver tree_solver)
    : ws(MakeStepWorkspace(model, tree_solver)), cws(model) {
  for (Eigen::VectorXd* x :
       {&delta, &r_plus, &r_minus, &v_star_plus, &v_star_minus})
    x->setZero(model.nv);
  state.q = model.InitialQ();
  state.v.setZero(model.nv);
}

TrajectorySensitivity::TrajectorySensitivity(const multibody::Model& model,
                                             const std::vector<SensitivityParameter>& parameters,
                                             TreeSolver tree_solver, int threads)
    : parameters_(parameters),
      own_ws_(MakeStepWorkspace(model, tree_solver)),
      own_cws_(model),
      pairwise_(model) {
  CSIM_CHECK(threads >= 1);
  const int nv = model.nv, n_p = static_cast<int>(parameters.size());
  for (const SensitivityParameter& p : parameters) {
    if (p.kind == Kind::kInitialPosition || p.kind == Kind::kInitialVelocity)
      CSIM_CHECK(p.index >= 0 && p.index < nv);
    if (p.kind == Kind::kMaterial) {
      CSIM_CHECK(p.index >= -1 && p.index < static_cast<int>(model.materials.size()) &&
                 p.contact != solver::ContactParameter::kPhi0);
      // An infinite stiffness selects the near-rigid rule: no derivative.
      if (p.contact == solver::ContactParameter::kStiffness)
        CSIM_CHECK(std::isfinite(
            (p.index >= 0 ? model.materials[p.index] : BuiltInMaterial()).stiffness));
    }
    if (p.kind == Kind::kBodyMass) CSIM_CHECK(p.index >= 0 && p.index < model.num_bodies());
    has_friction_column_ = has_friction_column_ || (p.kind == Kind::kMaterial &&
                                                     p.contact == solver::ContactParameter::kMu);
    has_mass_column_ = has_mass_column_ || p.kind == Kind::kBodyMass;
    has_contact_column_ =
        has_contact_column_ || p.kind == Kind::kContact || p.kind == Kind::kMaterial;
    mass_.push_back(p.kind == Kind::kBodyMass
                        ? std::make_unique<MassModels>(model, p.index, kMassStep, tree_solver)
                        : nullptr);
  }
  for (const auto& spec : contact::MakeCollisionSpecs(model)) {
    shape_.push_back(spec.geometry.type);
    material_.push_back(spec.geometry.material);
  }
  for (Eigen::MatrixXd* m : {&dq_, &dv_, &dq_next_, &dv_next_, &dr_, &dv_star_, &rhs_, &dv_solve_})
    m->setZero(nv, n_p);
  r_nominal_.setZero(nv);
  jt_.setZero(nv, n_p);
  // More threads than columns would only wait.
  const int num_threads = std::max(1, std::min(threads, n_p));
  if (num_threads > 1) pool_ = std::make_unique<ThreadPool>(num_threads);
  for (int t = 0; t < num_threads; ++t)
    scratch_.push_back(std::make_unique<ColumnScratch>(model, tree_solver));
  outcome_.resize(n_p);
  friction_bound_.resize(n_p);
  nominal_.v.setZero(nv);
  Reset();
}

template <typename Body>
void TrajectorySensitivity::ForEachColumn(Body& body) {
  const int n_p = static_cast<int>(parameters_.size());
  const int chunks = static_cast<int>(scratch_.size());
  // Chunk t holds the columns t, t + chunks, ... and uses scratch_[t], whichever thread
  // takes it (one at a time): a scratch always serves the same columns, so once they have
  // run, none of its storage grows again (the hot path's no-allocation rule, on every thread
  // count; with the pool's dynamic assignment a worker's scratch stayed cold until the
  // worker first woke in time, which a warmed-up Advance could then pay: the allocation
  // test failed about once in 20 runs). Measured on clutter-40 with 2 threads, handing out
  // columns one by one gained nothing at n_p <= 4 and about 12 % of Advance at n_p = 8
  // (sensitivities.md §6.2).
  // The pool's body must not throw: an exception (std::bad_alloc from an assembly) is kept
  // per column and rethrown on this thread, the first in column order, as the serial loop
  // would have let it through.
  auto chunk = [&](int t, int /*thread*/) {
    for (int j = t; j < n_p; j += chunks) {
      ColumnOutcome& outcome = outcome_[j];
      outcome.error = nullptr;
      try {
        body(j, *scratch_[t]);
      } catch (...) {
        outcome.error = std::current_exception();
      }
    }
  };
  if (pool_ != nullptr) {
    pool_->ParallelFor(chunks, chunk);
  } else {
    chunk(0, 0);
  }
  for (int j = 0; j < n_p; ++j)
    if (outcome_[j].error) std::rethrow_exception(outcome_[j].error);
}

void TrajectorySensitivity::Reset() {
  dq_.setZero();
  dv_.setZero();
  for (size_t j = 0; j < parameters_.size(); ++j) {
    const SensitivityParameter& p = parameters_[j];
    if (p.kind == Kind::kInitialPosition) dq_(p.index, static_cast<int>(j)) = 1.0;
    if (p.kind == Kind::kInitialVelocity) dv_(p.index, static_cast<int>(j)) = 1.0;
  }
  last_ = {};
  friction_bound_.setConstant(-std::numeric_limits<double>::infinity());
  steps_one_sided_ = steps_unmatched_ = steps_approximate_ = steps_pairwise_ = 0;
}

StepStatus TrajectorySensitivity::Advance(const multibody::Model& model,
                                          const ThetaParameters& params,
                                          const FreeMotionSettings& free_motion,
                                          const contact::ContactParameters& contact_parameters,
                                          double dt, const multibody::State& state0,
                                          const multibody::State& state1,
                                          const Eigen::VectorXd* solver_v_c,
                                          const SolvedStep* step) {
  last_ = {};
  StepStatus status = AssembleNominal(model, params, free_motion, contact_parameters, dt,
                                      state0, state1.v, solver_v_c, step);
  if (!status.ok()) return status;
  const solver::ContactProblem& problem = nominal_cws_->problem;
  const int rows = problem.num_constraint_rows();
  const int n_p = static_cast<int>(parameters_.size());
  pairwise_step_ = pairwise_.Prepare(contact_parameters, params.theta, *nominal_cws_, kind_);
  if (pairwise_step_) {
    ContactDerivatives();
    pairwise_step_ = pairwise_.Linearize(*nominal_cws_,
                                         ProblemKinematics(params, *nominal_ws_, *nominal_cws_),
                                         dt, state0, state1.v, nominal_.v_c, derivatives_);
  }
  if (pairwise_step_) {
    // Lone free bodies are covered under theta = 0 only (Prepare checked).
    if (params.theta == 0.0)
      PrepareFreeBodyPartials(model, params, dt, state0, *nominal_ws_, &free_body_);
    PrepareFixedAxisPartials(model, params, dt, *nominal_ws_, &fixed_axis_);
  }
  // r at the nominal assembly: the one-sided differences of whole assemblies start from it
  // (a body-mass column's, and every column's off the pairwise rule).
  if (!pairwise_step_ || has_mass_column_)
    solver::CalcOptimalityResidual(problem, state1.v, &products_, r_nominal_);
  // dr/dx0 D and dv*/dx0 D of every column, by the pairwise rule or central differences of
  // the whole assembly (the top of the header), and a body-mass column's dr/dm and dv*/dm
  // added to its state part: column by column, in parallel (each writes only its columns of
  // dr_ and dv_star_ and its outcome).
  auto assemble = [&](int j, ColumnScratch& scratch) {
    ColumnOutcome& outcome = outcome_[j];
    outcome.one_sided = outcome.unmatched = 0;
    outcome.mass = {};
    outcome.assembly = DifferenceAssembly(model, params, free_motion, contact_parameters, dt,
                                          state0, state1.v, j, scratch, outcome);
    if (outcome.assembly.ok() && parameters_[j].kind == Kind::kBodyMass)
      outcome.mass = DifferenceMass(params, free_motion, contact_parameters, dt, state0,
                                    state1.v, j, scratch, outcome);
  };
  ForEachColumn(assemble);
  // The serial loops' order: every column's state difference, then the mass differences.
  for (int j = 0; j < n_p; ++j)
    if (!outcome_[j].assembly.ok()) return outcome_[j].assembly;
  for (int j = 0; j < n_p; ++j)
    if (!outcome_[j].mass.ok()) return outcome_[j].mass;
  for (int j = 0; j < n_p; ++j) {
    last_.num_one_sided += outcome_[j].one_sided;
    last_.num_unmatched += outcome_[j].unmatched;
  }
  // H dv = -(dr/dx0 D + dr/dp), dr/dp = -J^T dgamma/dp|_vc for a contact column.
  rhs_ = -dr_;
  if (dgamma_term_.size() < rows) dgamma_term_.resize(rows);
  // Grows to the largest row count, then reuses its storage (topRows(rows)).
  if (dgamma_.rows() < rows || dgamma_.cols() != n_p)
    dgamma_.resize(std::max<Eigen::Index>(rows, dgamma_.rows()), n_p);
  bool have_derivatives = false;  // the contacts' dgamma/dp at v_c, once for every column
  for (int j = 0; j < n_p; ++j) {
    const Kind kind = parameters_[j].kind;
    if ((kind != Kind::kContact && kind != Kind::kMaterial) || rows == 0) {
      dgamma_.col(j).head(rows).setZero();
      continue;
    }
    if (!have_derivatives) {
      ContactDerivatives();
      have_derivatives = true;
    }
    if (kind == Kind::kMaterial) MaterialScale(model, j);
    ContactParameterDirection(parameters_[j].contact,
                              kind == Kind::kMaterial ? scale_.data() : nullptr,
                              dgamma_.col(j).head(rows));
    if (kind == Kind::kMaterial && parameters_[j].contact == solver::ContactParameter::kStiffness) {
      // The stiffness-weighted dissipations move too (§7.3); a kind that does not read one
      // (SAP d, Hunt & Crossley tau_d) gives 0.
      for (const auto& [parameter, scale] :
           {std::pair{solver::ContactParameter::kDissipationTime, scale_tau_.data()},
            std::pair{solver::ContactParameter::kHuntCrossley, scale_d_.data()}}) {
        ContactParameterDirection(parameter, scale, dgamma_term_.head(rows));
        dgamma_.col(j).head(rows) += dgamma_term_.head(rows);
      }
    }
  }
  if (have_derivatives) {  // J^T of every contact column's dgamma/dp, one set-up for all
    solver::CalcJTransposeTimesColumns(problem, dgamma_.topRows(rows), &products_, jt_);
    rhs_ += jt_;
  }
  status = ift_.SolveRightHandSides(problem, nominal_, rhs_, &dv_solve_);
  if (!status.ok()) return status;
  // Cliques without constraints: v = v*, so dv = dv*.
  for (int i = 0; i < dv_next_.rows(); ++i)
    dv_next_.row(i) = participating_[i] ? dv_solve_.row(i) : dv_star_.row(i);
  PositionDerivatives(model, params, dt, state0, state1);
  dq_.swap(dq_next_);
  dv_.swap(dv_next_);
  InspectContacts();
  FrictionBounds(model);
  steps_one_sided_ += last_.num_one_sided > 0;
  steps_unmatched_ += last_.num_unmatched > 0;
  steps_approximate_ += last_.approximate_geometry;
  steps_pairwise_ += pairwise_step_;
  return status;
}

StepStatus TrajectorySensitivity::AssembleNominal(
    const multibody::Model& model, const ThetaParameters& params,
    const FreeMotionSettings& free_motion, const contact::ContactParameters& contact_parameters,
    double dt, const multibody::State& state0, const Eigen::VectorXd& v,
    const Eigen::VectorXd* solver_v_c, const SolvedStep* step) {
  StepStatus status;
  if (step != nullptr && !step->cws.actuators.last_step_direct()) {
    // The step's own problem: the build the rebuild would repeat, at the same state.
    nominal_ws_ = &step->ws;
    nominal_cws_ = &step->cws;
    solver_v_c = &step->cws.result.v_c;
  } else {
    nominal_ws_ = &own_ws_;
    nominal_cws_ = &own_cws_;
    status = BuildStepProblem(model, params, free_motion, contact_parameters, dt, state0,
                              own_ws_, own_cws_);
    if (!status.ok()) return status;
    if (step != nullptr) solver_v_c = nullptr;  // a direct solve's v_c: not of these rows
  }
  const solver::ContactProblem& problem = nominal_cws_->problem;
  const int rows = problem.num_constraint_rows();
  nominal_.status = {};
  nominal_.v = v;
  nominal_.v_c.resize(rows);  // keeps the storage at the same size
  // The solver's own v_c when it is this problem's: its pieces are the solver's (J v formed
  // anew may round to the other side of a region boundary, sensitivities.md §9).
  if (solver_v_c != nullptr && solver_v_c->size() == rows)
    nominal_.v_c = *solver_v_c;
  else
    solver::CalcConstraintVelocities(problem, v, &products_, nominal_.v_c);
  // Each grows to the largest count, then reuses its storage. The kinds are found here once
  // per step: a perturbed assembly that matches has the same constraints in the same order.
  const int num_constraints = problem.num_constraints();
  kind_.resize(num_constraints);
  piece_.resize(num_constraints);
  region_.resize(num_constraints);
  kink_.resize(num_constraints);
  for (int k = 0; k < num_constraints; ++k)
    kind_[k] = solver::ContactKindOf(problem.constraint(k));
  // With a contact column, or on a step the pairwise rule may take, every contact's
  // derivatives are needed: their region and kink distance are the pieces (the same tests).
  derivatives_ready_ = false;
  if (has_contact_column_ || pairwise_.covers(params.theta))
    ContactDerivatives();
  for (int k = 0; k < num_constraints; ++k) {
    solver::ContactPiece piece;  // kOther: no region, kink distance 1
    piece.kink_distance = 1.0;
    if (derivatives_ready_ && kind_[k] != solver::ContactKind::kOther) {
      const solver::ContactParameterDerivatives& d = derivatives_[k];
      piece.region = d.region;
      piece.kink_distance = d.kink_distance;
      piece.normal_clamped = d.normal_clamped;
    } else {
      solver::CalcContactPieceOf(problem, k, kind_[k], nominal_.v_c.data(), &piece);
    }
    piece_[k] = solver::ContactPieceCode(kind_[k], piece);
    region_[k] = static_cast<int8_t>(piece.region);
    kink_[k] = piece.kink_distance;
  }
  participating_.assign(model.nv, 0);
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const solver::ConstraintEntry& e = problem.entry(k);
    for (int b = 0; b < e.num_cliques; ++b) {
      const int c = e.clique[b];
      std::fill_n(participating_.begin() + problem.clique_offset(c), problem.clique_size(c), 1);
    }
  }
  return status;
}

StepStatus TrajectorySensitivity::AssembleAt(
    const multibody::Model& model, const ThetaParameters& params,
    const FreeMotionSettings& free_motion, const contact::ContactParameters& contact_parameters,
    double dt, const multibody::State& state0, const Eigen::VectorXd& v, int j, double step,
    ColumnScratch& scratch, Eigen::VectorXd* r, Eigen::VectorXd* v_star, bool* same,
    double* reach) {
  scratch.delta.noalias() = step * dq_.col(j);
  multibody::RetractConfiguration(model, state0.q, scratch.delta, &scratch.state.q);
  scratch.state.v = state0.v;
  scratch.state.v.noalias() += step * dv_.col(j);
  scratch.state.t = state0.t;
  StepStatus status =
      AssembleWith(model, params, free_motion, contact_parameters, dt, scratch.state, v,
                   scratch.ws, scratch.cws, scratch.products, r, v_star, same, reach);
  if (!status.ok()) status.reason = "sensitivity assembly at a perturbed state: " + status.reason;
  return status;
}

StepStatus TrajectorySensitivity::AssembleWith(
    const multibody::Model& model, const ThetaParameters& params,
    const FreeMotionSettings& free_motion, const contact::ContactParameters& contact_parameters,
    double dt, const multibody::State& state, const Eigen::VectorXd& v, StepWorkspace& ws,
    ContactStepWorkspace& cws, solver::SapWorkspace& products, Eigen::VectorXd* r,
    Eigen::VectorXd* v_star, bool* same, double* reach) const {
  const StepStatus status =
      BuildStepProblem(model, params, free_motion, contact_parameters, dt, state, ws, cws);
  if (!status.ok()) return status;
  const solver::ContactProblem& problem = cws.problem;
  solver::CalcOptimalityResidual(problem, v, &products, *r);
  *v_star = ws.v_star;
  *same = SameConstraints(*nominal_cws_, cws);
  // Unknown where another contact set begins: the whole step.
  if (reach != nullptr) *reach = 1.0;
  if (!*same) return status;
  // The same pieces at the fixed v (products.vc: this assembly's J v), with the nominal
  // kinds (the same constraints, in the same order; the exact type is compared, a load and a
  // compare, where the kind's dynamic_cast would walk the hierarchy).
  const solver::ContactProblem& nominal = nominal_cws_->problem;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const solver::ContactKind kind = kind_[k];
    if (kind == solver::ContactKind::kOther) continue;
    if (typeid(problem.constraint(k)) != typeid(nominal.constraint(k))) {
      *same = false;
      return status;
    }
    // The region alone; the kink distance only for a contact that left its piece.
    solver::ContactPiece piece;
    solver::CalcContactPieceOf(problem, k, kind, products.vc.data(), &piece,
                               /*with_kink_distance=*/false);
    if (solver::ContactPieceCode(kind, piece) == piece_[k]) continue;
    *same = false;
    if (reach == nullptr) break;
    solver::CalcContactPieceOf(problem, k, kind, products.vc.data(), &piece);
    // Where along the step the contact crossed its boundary, if its kink distance (signed
    // across the boundary) moves linearly: at kink_[k] / (kink_[k] + d) of the step.
    const double span = kink_[k] + piece.kink_distance;
    *reach = std::min(*reach, span > 0.0 ? kink_[k] / span : 0.0);
  }
  return status;
}

StepStatus TrajectorySensitivity::DifferenceMass(
    const ThetaParameters& params, const FreeMotionSettings& free_motion,
    const contact::ContactParameters& contact_parameters, double dt,
    const multibody::State& state0, const Eigen::VectorXd& v, int j, ColumnScratch& scratch,
    ColumnOutcome& outcome) {
  MassModels& m = *mass_[j];
  ColumnScratch& x = scratch;
  bool same_plus = false, same_minus = false;
  StepStatus status =
      AssembleWith(m.plus, params, free_motion, contact_parameters, dt, state0, v, m.plus_ws,
                   m.plus_cws, x.products, &x.r_plus, &x.v_star_plus, &same_plus, nullptr);
  if (status.ok())
    status = AssembleWith(m.minus, params, free_motion, contact_parameters, dt, state0, v,
                          m.minus_ws, m.minus_cws, x.products, &x.r_minus, &x.v_star_minus,
                          &same_minus, nullptr);
  if (!status.ok()) {
    status.reason = "sensitivity assembly at a perturbed mass: " + status.reason;
    return status;
  }
  const int body = parameters_[j].index;  // the step as the copies hold it
  const double h = 0.5 * (m.plus.bodies[body].mass - m.minus.bodies[body].mass);
  if (same_plus == same_minus) {  // central; across a change of the set when both differ
    outcome.unmatched += !same_plus;
    dr_.col(j) += (x.r_plus - x.r_minus) / (2 * h);
    dv_star_.col(j) += (x.v_star_plus - x.v_star_minus) / (2 * h);
  } else if (same_plus) {  // one-sided from the side whose constraints match
    ++outcome.one_sided;
    dr_.col(j) += (x.r_plus - r_nominal_) / h;
    dv_star_.col(j) += (x.v_star_plus - nominal_ws_->v_star) / h;
  } else {
    ++outcome.one_sided;
    dr_.col(j) += (r_nominal_ - x.r_minus) / h;
    dv_star_.col(j) += (nominal_ws_->v_star - x.v_star_minus) / h;
  }
  return status;
}

StepStatus TrajectorySensitivity::DifferenceAssembly(
    const multibody::Model& model, const ThetaParameters& params,
    const FreeMotionSettings& free_motion, const contact::ContactParameters& contact_parameters,
    double dt, const multibody::State& state0, const Eigen::VectorXd& v, int j,
    ColumnScratch& scratch, ColumnOutcome& outcome) {
  const double norm = std::max(InfNorm(dq_.col(j)), InfNorm(dv_.col(j)));
  if (norm == 0.0) {  // no state direction (a contact column before its first contact)
    dr_.col(j).setZero();
    dv_star_.col(j).setZero();
    return {};
  }
  ColumnScratch& x = scratch;
  const double h0 = CentralStep(InfNorm(dq_.col(j)), InfNorm(dv_.col(j)),
                                std::max(1.0, InfNorm(state0.v)));
  if (pairwise_step_) {
    // The free motion's part exactly, the contacts' by the chain rule (the top of the header).
    ApplyFreeBodyPartials(free_body_, v, dq_.col(j), dv_.col(j), dr_.col(j), dv_star_.col(j));
    ApplyFixedAxisPartials(fixed_axis_, dq_.col(j), dv_.col(j), dr_.col(j), dv_star_.col(j));
    for (int i = 0; i < dr_.rows(); ++i)
      if (!participating_[i]) dr_(i, j) = 0.0;  // r has no rows there (CalcOptimalityResidual)
    const PairwiseContactDerivatives::Outcome pairs =
        pairwise_.AddDerivative(*nominal_cws_, ProblemKinematics(params, *nominal_ws_, *nominal_cws_),
                                dq_.col(j), dv_.col(j), h0, x.pairwise, dr_.col(j));
    outcome.one_sided += pairs.one_sided > 0;
    outcome.unmatched += pairs.unmatched > 0;
    return {};
  }
  // Both sides at h; a side that leaves the nominal pieces may only be too far (a stuck
  // contact on a rolling body leaves its stiction region, at fixed v, within about 1e-6 m:
  // sensitivities.md §6.2). Both sides are redone at h / 10, h / 100, h / 1000, as far down
  // as the differing contacts' crossings predict (NextRetryLevel), until both match: the
  // central difference. When no retry can keep the differing side:
  // - one side matches: the one-sided second-order difference from it at h1 and h1 / 2,
  //   h1 = min(the last step, h / 10) (one or two more assemblies), whose truncation,
  //   h1^2 f''' / 12, is that of the central difference at h1 (h1^2 f''' / 6);
  // - both differ: the central difference across the pieces (flagged unmatched).
  int level = 0;
  bool same_plus = false, same_minus = false;
  for (;;) {
    const double h = h0 / kDecade[level];
    double reach_plus = 1.0, reach_minus = 1.0;
    StepStatus status = AssembleAt(model, params, free_motion, contact_parameters, dt, state0,
                                   v, j, h, x, &x.r_plus, &x.v_star_plus, &same_plus,
                                   &reach_plus);
    if (!status.ok()) return status;
    status = AssembleAt(model, params, free_motion, contact_parameters, dt, state0, v, j, -h, x,
                        &x.r_minus, &x.v_star_minus, &same_minus, &reach_minus);
    if (!status.ok()) return status;
    if (same_plus && same_minus) {
      dr_.col(j) = (x.r_plus - x.r_minus) / (2 * h);
      dv_star_.col(j) = (x.v_star_plus - x.v_star_minus) / (2 * h);
      return {};
    }
    // Down to where both sides should match; when both differ and one of them cannot,
    // down to where the other should (a one-sided difference).
    const double reach_a = same_plus ? 1.0 : reach_plus, reach_b = same_minus ? 1.0 : reach_minus;
    int next = NextRetryLevel(level, std::min(reach_a, reach_b));
    if (next > kRetries && !same_plus && !same_minus)
      next = NextRetryLevel(level, std::max(reach_a, reach_b));
    if (next > kRetries) break;
    level = next;
  }
  if (!same_plus && !same_minus) {  // central across other pieces
    const double h = h0 / kDecade[level];
    ++outcome.unmatched;
    dr_.col(j) = (x.r_plus - x.r_minus) / (2 * h);
    dv_star_.col(j) = (x.v_star_plus - x.v_star_minus) / (2 * h);
    return {};
  }
  // One-sided from the matching side s (+-1): with r_far at s h1 and r_near at s h1 / 2,
  // dr = s (4 (r_near - r0) - (r_far - r0)) / h1. r_far is the last attempt's when that was
  // at h / 10 or below, else assembled at h / 10 into the differing side's vectors (so that
  // the matching assembly at h stays for the fallback below).
  ++outcome.one_sided;
  const double side = same_plus ? 1.0 : -1.0;
  const double h_last = h0 / kDecade[level];
  const double h1 = h0 / kDecade[std::max(level, 1)];
  Eigen::VectorXd* r_last = same_plus ? &x.r_plus : &x.r_minus;
  Eigen::VectorXd* v_star_last = same_plus ? &x.v_star_plus : &x.v_star_minus;
  Eigen::VectorXd* r_other = same_plus ? &x.r_minus : &x.r_plus;
  Eigen::VectorXd* v_star_other = same_plus ? &x.v_star_minus : &x.v_star_plus;
  Eigen::VectorXd *r_far = r_last, *v_star_far = v_star_last;
  Eigen::VectorXd *r_near = r_other, *v_star_near = v_star_other;
  bool same_far = true, same_near = false;
  if (level == 0) {  // the far point at h / 10 into the other pair, the near one after it
    StepStatus status =
        AssembleAt(model, params, free_motion, contact_parameters, dt, state0, v, j, side * h1,
                   x, r_other, v_star_other, &same_far, nullptr);
    if (!status.ok()) return status;
    r_far = r_other;
    v_star_far = v_star_other;
    r_near = same_far ? r_last : r_other;  // keep whichever matched
    v_star_near = same_far ? v_star_last : v_star_other;
  }
  if (same_far) {
    const StepStatus status =
        AssembleAt(model, params, free_motion, contact_parameters, dt, state0, v, j,
                   0.5 * side * h1, x, r_near, v_star_near, &same_near, nullptr);
    if (!status.ok()) return status;
  }
  if (same_far && same_near) {
    dr_.col(j) = (side / h1) * (4.0 * (*r_near - r_nominal_) - (*r_far - r_nominal_));
    dv_star_.col(j) = (side / h1) * (4.0 * (*v_star_near - nominal_ws_->v_star) -
                                     (*v_star_far - nominal_ws_->v_star));
    return {};
  }
  // The pieces change closer in (rare): first order from the far point when it matched,
  // else from the last attempt's matching assembly, kept in its own vectors.
  const double step = same_far ? h1 : h_last;
  dr_.col(j) = (side / step) * ((same_far ? *r_far : *r_last) - r_nominal_);
  dv_star_.col(j) = (side / step) * ((same_far ? *v_star_far : *v_star_last) - nominal_ws_->v_star);
  return {};
}

void TrajectorySensitivity::PositionDerivatives(const multibody::Model& model,
                                                const ThetaParameters& params, double dt,
                                                const multibody::State& state0,
                                                const multibody::State& state1) {
  // q1 = IntegratePositions(q0, v_bar), v_bar = theta_q v + (1 - theta_q) v0 (AdvancePositions).
  v_bar_ = params.theta_q * state1.v + (1 - params.theta_q) * state0.v;
  for (int j = 0; j < dq_next_.cols(); ++j) {
    dv_bar_ = params.theta_q * dv_next_.col(j) + (1 - params.theta_q) * dv_.col(j);
    multibody::IntegratePositionsDerivative(model, state0.q, v_bar_, dt, params.theta,
                                            dq_.col(j), dv_bar_, dq_next_.col(j));
  }
}

void TrajectorySensitivity::ContactDerivatives() {
  if (derivatives_ready_) return;
  derivatives_ready_ = true;
  const solver::ContactProblem& problem = nominal_cws_->problem;
  derivatives_.resize(problem.num_constraints());  // grows to the largest count, then reuses
  // The kinds are known (AssembleNominal): each contact's class without a cast test.
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const double* v_c = nominal_.v_c.data() + problem.entry(k).row_offset;
    if (kind_[k] == solver::ContactKind::kSap)
      derivatives_[k] = solver::CalcContactParameterDerivatives(
          static_cast<const solver::SapFrictionConeConstraint&>(problem.constraint(k)), v_c);
    else if (kind_[k] == solver::ContactKind::kHuntCrossley)
      derivatives_[k] = solver::CalcContactParameterDerivatives(
          static_cast<const solver::SapHuntCrossleyConstraint&>(problem.constraint(k)), v_c);
  }
}

void TrajectorySensitivity::ContactParameterDirection(solver::ContactParameter parameter,
                                                      const double* scale,
                                                      Eigen::Ref<Eigen::VectorXd> dgamma_dp) const {
  // solver::CalcContactParameterDirection's arithmetic on the derivatives found once.
  const solver::ContactProblem& problem = nominal_cws_->problem;
  dgamma_dp.setZero();
  for (int k = 0; k < problem.num_constraints(); ++k) {
    if (kind_[k] == solver::ContactKind::kOther) continue;
    const double dp_k = scale != nullptr ? scale[k] : 1.0;  // dp_k / dp
    dgamma_dp.segment<3>(problem.entry(k).row_offset) =
        dp_k * solver::DerivativeOf(derivatives_[k], parameter);
  }
}

void TrajectorySensitivity::MaterialScale(const multibody::Model& model, int j) {
  const solver::ContactProblem& problem = nominal_cws_->problem;
  const contact::ContactProblemBuilder& builder = nominal_cws_->builder;
  const SensitivityParameter& p = parameters_[j];
  const contact::MaterialParameter parameter =  // unused for the stiffness
      p.contact == solver::ContactParameter::kMu ? contact::MaterialParameter::kFriction
      : p.contact == solver::ContactParameter::kDissipationTime
          ? contact::MaterialParameter::kDissipationTime
          : contact::MaterialParameter::kHuntCrossley;
  const auto material = [&](int spec) -> const geometry::Material& {
    return material_[spec] >= 0 ? model.materials[material_[spec]] : BuiltInMaterial();
  };
  const bool stiffness = p.contact == solver::ContactParameter::kStiffness;
  // Each grows to the largest count, then reuses its storage.
  scale_.assign(problem.num_constraints(), 0.0);
  scale_tau_.assign(stiffness ? problem.num_constraints() : 0, 0.0);
  scale_d_.assign(stiffness ? problem.num_constraints() : 0, 0.0);
  const auto& contacts = builder.contacts();
  for (size_t i = 0; i < contacts.size(); ++i) {
    const int k = builder.contact_constraint(static_cast<int>(i));
    if (k < 0) continue;
    const int a = contacts[i].geometry_a, b = contacts[i].geometry_b;
    const int polygon = builder.polygon_of_contact(static_cast<int>(i));
    if (polygon >= 0 && stiffness) continue;  // a polygon's stiffness is its pressure fields'
    if (polygon >= 0 && parameter != contact::MaterialParameter::kFriction) {
      // Its dissipation: the sides' own values weighted by the fields' slopes
      // (hydroelastic_contacts.h).
      const contact::PolygonContact& pc = builder.hydroelastic().polygon_contacts()[polygon];
      if (material_[a] == p.index) scale_[k] += pc.dissipation_weight_a;
      if (material_[b] == p.index) scale_[k] += pc.dissipation_weight_b;
      continue;
    }
    if (stiffness) {
      for (const auto& [mine, other] : {std::pair{a, b}, std::pair{b, a}}) {
        if (material_[mine] != p.index) continue;
        const contact::CombinedStiffnessDerivative d =
            contact::CombinedStiffnessDerivativeOf(material(mine), material(other));
        scale_[k] += d.stiffness;
        scale_tau_[k] += d.dissipation_time;
        scale_d_[k] += d.hunt_crossley;
      }
      continue;
    }
    if (material_[a] == p.index)
      scale_[k] += contact::CombinedMaterialDerivative(material(a), material(b), parameter);
    if (material_[b] == p.index)
      scale_[k] += contact::CombinedMaterialDerivative(material(b), material(a), parameter);
  }
}

void TrajectorySensitivity::FrictionBounds(const multibody::Model& model) {
  friction_bound_.setConstant(-std::numeric_limits<double>::infinity());
  if (!has_friction_column_) return;
  const solver::ContactProblem& problem = nominal_cws_->problem;
  const contact::ContactProblemBuilder& builder = nominal_cws_->builder;
  friction_ratio_.resize(problem.num_constraints());  // grows to the largest count, then reuses
  for (int k = 0; k < problem.num_constraints(); ++k)
    friction_ratio_[k] = FrictionRatio(problem.constraint(k), kind_[k],
                                       nominal_.v_c.data() + problem.entry(k).row_offset);
  const auto& contacts = builder.contacts();
  for (size_t j = 0; j < parameters_.size(); ++j) {
    const SensitivityParameter& p = parameters_[j];
    if (p.kind != Kind::kMaterial || p.contact != solver::ContactParameter::kMu) continue;
    double& bound = friction_bound_[static_cast<int>(j)];
    for (size_t i = 0; i < contacts.size(); ++i) {
      const int k = builder.contact_constraint(static_cast<int>(i));
      if (k < 0 || friction_ratio_[k] < 0.0) continue;
      const double r = friction_ratio_[k];
      const int a = contacts[i].geometry_a, b = contacts[i].geometry_b;
      for (const auto& [mine, other] : {std::pair{a, b}, std::pair{b, a}}) {
        if (material_[mine] != p.index) continue;
        if (material_[other] == p.index) {  // the pair's friction is mu_m itself
          bound = std::max(bound, r);
          continue;
        }
        const double mu_o =
            (material_[other] >= 0 ? model.materials[material_[other]] : BuiltInMaterial())
                .friction;
        if (2.0 * mu_o > r) bound = std::max(bound, r * mu_o / (2.0 * mu_o - r));
      }
    }
  }
}

void TrajectorySensitivity::InspectContacts() {
  const solver::ContactProblem& problem = nominal_cws_->problem;
  const contact::ContactProblemBuilder& builder = nominal_cws_->builder;
  last_.num_constraints = problem.num_constraints();
  const auto& contacts = builder.contacts();
  contact_region_.clear();  // keep their capacity
  contact_kink_.clear();
  // The nominal pieces at nominal_.v_c, found by AssembleNominal.
  for (size_t i = 0; i < contacts.size(); ++i) {
    const int k = builder.contact_constraint(static_cast<int>(i));
    if (k < 0) continue;
    contact_region_.push_back(region_[k]);
    contact_kink_.push_back(kink_[k]);
    const geometry::PointContact& c = contacts[i];
    if (builder.polygon_of_contact(static_cast<int>(i)) >= 0 ||
        !AnalyticPair(shape_[c.geometry_a], shape_[c.geometry_b]))
      last_.approximate_geometry = true;
  }
  for (int k = 0; k < problem.num_constraints(); ++k)
    if (kind_[k] != solver::ContactKind::kOther)
      last_.min_kink_distance = std::min(last_.min_kink_distance, kink_[k]);
}

}  // namespace csim::integrator
