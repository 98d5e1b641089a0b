#pragma once
// A point contact with Hunt & Crossley dissipation and regularized Coulomb friction, in the
// two convex time discretizations of the irrotational-contact-fields paper
// (docs/design/contact-models.md §3; Castro, Han, Masterjohn, secs. IV-VIII): "lagged" and
// "similar". Same frame and sign conventions as SapFrictionConeConstraint: rows [t1, t2, n], v_c =
// J v + v_b is the velocity of B relative to A (v_n > 0 separating), gamma is the impulse on B.
//
// Normal impulse over the step (docs/design/contact-models.md §3.2), with f_e0 = k x0 the elastic
// force at the start of the step (x0 = -phi0, negative for a pair still apart):
//   n(v) = dt (f_e0 - dt k v)_+ (1 - d v)_+,   zero for v >= v_hat = min(f_e0 / (dt k), 1/d),
// and its antiderivative N (docs/design/contact-models.md §3.3), concave and non-decreasing, so -N
// is convex. The elastic term is k x(v) with the predicted penetration x(v) = x0 - dt v of [ICF]
// eq. 6, which assumes the positions move with the end-of-step velocity (theta_q = 1: symplectic
// or implicit Euler). For an integrator whose positions move with theta_q v + (1 - theta_q)
// v0 (midpoint: 1/2), x(v) = x0 - dt (theta_q v + (1 - theta_q) v_n0) instead, the
// penetration the position update will actually make:
//   n(v) = dt (f_x0 - theta_q dt k v)_+ (1 - d v)_+,  f_x0 = k (x0 - dt (1 - theta_q) v_n0).
// Why: with [ICF]'s x(v) under midpoint, an impact step stopped the body in the model while
// its position still moved by dt v0 / 2, far more than the static penetration m g / k,
// which the next steps' force then met (a dropped body sank in and crept out at 1/d, a box
// spun up). n is still decreasing in v, so the cost stays convex. theta_q = 0 (explicit
// Euler: positions ignore v) keeps [ICF]'s x(v).
// Friction through the soft norm ||v_t||_s = sqrt(|v_t|^2 + eps_s^2) - eps_s
// (docs/design/contact-models.md §3.4):   lagged   ell = -N(v_n) + mu n0 ||v_t||_s, n0 the impulse
// at the start of the step (docs/design/contact-models.md §3.6);   similar  ell = -N(v_n - mu
// ||v_t||_s) (docs/design/contact-models.md §3.7). Both are convex in v_c, so SAP's Newton solver
// and its certificate apply unchanged.
//
// Cost offset: this class returns ell - ell(separated), i.e. -N is replaced by
// N(v_hat) - N(min(v, v_hat)) >= 0. Same impulse and Hessian, but the cost is zero for a
// contact that carries nothing, so the solver's cost (and its relative cost-stagnation
// test) is not shifted by a constant per contact.
//
// Infinite stiffness (a `.inf` material on both sides) takes the near-rigid value of SAP's
// rule with tau_d = 0 (SAP eq. 29, docs/design/sap-problem.md §3.2): k = 4 pi^2 / (beta^2 w dt^2),
// the stiffest spring the step resolves. Drake's H&C constraint has no such rule; scene-format.md
// gives `.inf` that meaning for every contact model.

#include <limits>

#include <Eigen/Dense>

#include "engine/solver/constraint.h"
#include "engine/solver/stiction_prediction.h"

namespace csim::solver {

/// Which discrete approximation of the Hunt & Crossley model (docs/design/contact-models.md §3.6,
/// §3.7).
enum class HuntCrossleyApproximation { kLagged, kSimilar };

/// Physical parameters of one Hunt & Crossley point contact.
struct SapHuntCrossleyParameters {
  HuntCrossleyApproximation approximation = HuntCrossleyApproximation::kLagged;
  double mu = 0.5;  ///< Coulomb friction coefficient [1] >= 0
  /// Normal stiffness k [N/m] > 0; +inf: near-rigid (see the top of this file).
  double stiffness = std::numeric_limits<double>::infinity();
  double hunt_crossley = 0.0;  ///< d [s/m] >= 0
  double phi0 = 0.0;           ///< signed distance at q0 [m], < 0 when overlapping
  /// Normal relative velocity at the start of the step [m/s] (v_n0 of docs/design/contact-models.md
  /// §3.5: the normal row of J(q0) v0 plus the bias), for the lagged impulse n0.
  double v_n0 = 0.0;
  /// v_s [m/s] > 0; no default: settings.stiction_tolerance
  double stiction_tolerance = std::numeric_limits<double>::quiet_NaN();
  /// sigma [1] >= 0 of the impulse-dependent regularization eps_s = max(v_s, mu sigma w n0)
  /// ([ICF] eq. 44, `lagged_regularized`); 0 keeps eps_s = v_s (`lagged`, `similar`).
  double stiction_sigma = 0.0;
  /// beta [1] > 0, used only for infinite stiffness; no default: settings.near_rigid_threshold
  double near_rigid_threshold = std::numeric_limits<double>::quiet_NaN();
  /// theta_q [1] in [0, 1] of the position update (see the top of this file; 1: [ICF]); no
  /// default: settings.integrator
  double position_theta = std::numeric_limits<double>::quiet_NaN();
  /// Kinematic bias v_b [m/s] in the contact frame, added to J v (e.g. conveyor speed).
  Eigen::Vector3d bias_velocity = Eigen::Vector3d::Zero();
  /// The contact ended the previous step stuck (slip within eps_s): CalcPredicted offers
  /// the stuck model (see SapHuntCrossleyConstraint::CalcPredicted).
  bool was_stuck = false;
};

/// Hunt & Crossley point-contact constraint (3 rows), with the lagged friction's stuck
/// model as its predicted region.
class SapHuntCrossleyConstraint final : public Constraint, public StictionPrediction {
 public:
  /// Stores the parameters; Prepare() must run before Calc(). Aborts (CSIM_CHECK) on
  /// parameters outside their ranges.
  explicit SapHuntCrossleyConstraint(const SapHuntCrossleyParameters& parameters);

  int num_rows() const override { return 3; }

  /// Computes k (near-rigid if infinite), f_e0, n0, eps_s and v_hat from dt [s] and the
  /// Delassus estimate w = delassus [1/kg] (docs/design/contact-models.md §3.5).
  void Prepare(double dt, double delassus) override;

  /// gamma, cost and optionally G at v_c = J v (3 values; the bias is added here); the
  /// piece is QuadraticPieceAt's.
  double Calc(const double* v_c, double* gamma, double* G, int* piece) const override;

  /// Where the contact carries no impulse, the cost is a constant on a convex set (piece 1):
  /// v_n >= v_hat without a lagged friction impulse (n0 = 0) for `lagged`,
  /// v_n - mu ||v_t||_s >= v_hat (a superlevel set of a concave function) for `similar`.
  /// Elsewhere it is not quadratic: -1.
  int QuadraticPieceAt(const double* v_c) const;

  /// Warm start of the active set (active_set_prediction.h), the regularized friction's
  /// counterpart of SAP's stiction, for the `lagged` approximation (lagged and
  /// lagged_regularized): a contact is stuck when its slip is within eps_s (StuckAt), where
  /// the soft norm ||v_t||_s is close to its quadratic |v_t|^2 / (2 eps_s) (friction as a
  /// viscous damper of coefficient mu n0 / eps_s). A contact that ended the previous step
  /// stuck (parameters().was_stuck) or that a cut step carried into that region (`crossed`)
  /// and that slides at v_c gets the quadratic in place of the soft norm, so its Newton
  /// step lands it near rest at once instead of walking the soft norm's bend, where the
  /// curvature across the slip grows from mu n0 / |v_t| to mu n0 / eps_s a few contacts per
  /// iteration. Offered only while the contact slides (|v_t| > eps_s) and carries a
  /// friction impulse (n0 > 0, mu > 0): within eps_s the true model is smooth and Newton
  /// converges on it, whereas the quadratic, never exact there (unlike SAP's stiction
  /// region, where SAP's cost is that quadratic), makes the creeping contacts of a settled
  /// pile converge only linearly. The model is convex; the solver takes its direction only
  /// when it descends on the true cost. Measured on the same contact problems:
  /// results/contact_models_bench.md. Not for `similar`: there the soft norm is inside the
  /// normal impulse's argument z = v_n - mu ||v_t||_s, so the quadratic, far larger than the
  /// soft norm once |v_t| > 2 eps_s, moves the predicted normal impulse too, and the
  /// prediction costs more Newton work than it saves.
  bool CalcPredicted(const double* v_c, bool crossed, double* gamma, double* G) const override;
  /// The step from v_c, sliding at least kCrossingSlipFactor eps_s, to v_c + dv_c brings the
  /// slip within eps_s of zero (lagged only). Why the floor: in a settled pile contacts
  /// creep near eps_s and plain steps swing them across it; counted as crossings there they
  /// keep big islands predicting for many iterations a step, more Newton work than no
  /// prediction at all.
  bool StepCrossesPredictedRegion(const double* v_c, const double* dv_c) const override;
  /// Whether the model's minimum is where it holds: the slip within eps_s (StuckAt).
  bool PredictionHoldsAt(const double* v_c) const override;
  /// The slip at the start of a step that can count as a crossing, in eps_s (see
  /// StepCrossesPredictedRegion).
  static constexpr double kCrossingSlipFactor = 10.0;
  /// Whether the slip at v_c is within eps_s (what the next step predicts).
  bool StuckAt(const double* v_c) const;

  const SapHuntCrossleyParameters& parameters() const { return parameters_; }
  double stiffness() const { return k_; }      ///< k used [N/m], valid after Prepare()
  double n0() const { return n0_; }            ///< lagged normal impulse [N s], after Prepare()
  double epsilon_s() const { return eps_s_; }  ///< eps_s [m/s], valid after Prepare()
  double v_hat() const { return v_hat_; }      ///< [m/s], valid after Prepare()
  double dt() const { return dt_; }            ///< the time step [s] of the last Prepare()

  /// The elastic force k x(v) = f_x0 - theta_q dt k v [N] at the penetration predicted for
  /// the end-of-step normal velocity v [m/s] (see the top of this file), unclamped: negative
  /// past v_x = f_x0 / (theta_q dt k). Valid after Prepare().
  double ElasticForce(double v) const { return f_x0_ - k_v_ * v; }

  /// Normal impulse n(v) [N s] and its derivative n'(v) [kg] (docs/design/contact-models.md §3.2).
  double NormalImpulse(double v, double* derivative) const;
  /// N(min(v, v_hat)) [J], the antiderivative with N(0) = 0 (docs/design/contact-models.md §3.3).
  double NormalPotential(double v) const;

 private:
  // Calc at the biased velocity u with the tangential term s(u_t) given by its value and
  // the root r of its gradient u_t / r and Hessian (I - t t^T) / r, t = u_t / r: the soft
  // norm (r = sqrt(|u_t|^2 + eps_s^2)), or with `quadratic` its quadratic |u_t|^2 / (2 eps_s)
  // (r = eps_s, Hessian I / eps_s) for the stuck model.
  double CalcWith(const Eigen::Vector3d& u, double value, double root, bool quadratic,
                  double* gamma, double* G, int* piece) const;
  // The tangential part of v_c plus the bias: the slip the friction sees.
  Eigen::Vector2d TotalSlip(const double* v_c) const;
  // |slip| <= eps_s: the region the stuck model predicts (StuckAt, CalcPredicted, crossings).
  bool WithinStuckRegion(const Eigen::Vector2d& slip) const;

  SapHuntCrossleyParameters parameters_;
  double dt_ = 0.0;
  double k_ = 0.0;          // stiffness used [N/m]
  double f_e0_ = 0.0;       // elastic force at q0 [N], k x0
  double f_x0_ = 0.0;       // k (x0 - dt (1 - theta_q) v_n0) [N] (= f_e0 for theta_q = 1)
  double theta_q_ = 1.0;    // theta_q the gap prediction follows (0 taken as 1)
  double k_v_ = 0.0;        // theta_q dt k [N s/m]: the elastic force's slope in v
  double n0_ = 0.0;         // lagged normal impulse [N s]
  double eps_s_ = 0.0;      // soft-norm regularization [m/s]
  double v_hat_ = 0.0;      // normal velocity beyond which n = 0 [m/s]
  double N_hat_ = 0.0;      // N(v_hat) [J], the cost offset (see the top)
};

}  // namespace csim::solver
