#pragma once
// Levenberg-Marquardt for nonlinear least squares: minimise C(p) = 1/2 ||e(p)||^2 with optional
// bounds lo <= p <= hi, each parameter either positive and fitted in log space (the default)
// or signed and fitted as it is (ParameterScale::kLinear: an initial position or velocity,
// which can be 0 or negative). The core knows
// nothing of the simulator: the caller supplies e(p) and de/dp (csim fit: a run, with forward
// sensitivities when the Jacobian is requested). Design: docs/design/sensitivities.md,
// "Fitting (Levenberg-Marquardt)".
//
// Log parameters eta = ln p: a step in eta is a relative change of p, so one step tolerance
// serves parameters of any unit and magnitude (a friction coefficient and a stiffness), p
// stays positive without a constraint, and the chain rule is one column scaling,
// de/deta_j = p_j de/dp_j (LogJacobian below), done here, not by the caller. A linear
// parameter is its own fit coordinate (eta_j = p_j, de/deta_j = de/dp_j): its step and the
// step tolerance are in the parameter's own unit. "eta" below means the fit coordinates,
// ln p_j or p_j per parameter (FitJacobian).
//
// The step: Marquardt's scaled system (J^T J + lambda D^2) delta = -J^T e, D = diag of the
// column norms of J (so D^2 = diag(J^T J)), solved not from the normal equations but from the
// thin SVD of the column-scaled Jacobian J_s = J D^-1 = U S V^T:
//   delta = -D^-1 V diag(s_k / (s_k^2 + lambda)) U^T e.
// Why: forming J^T J squares the condition number; near an unidentifiable direction
// (cond(J_s) ~ 1e8, which the fit statistics exist to report) J^T J is singular to machine
// precision once lambda has decayed, while the SVD form stays exact and degrades to the
// truncated pseudo-inverse. And J changes only at accepted points: one SVD there serves every
// trial lambda and the statistics (fit_statistics.h) reuse the same decomposition. Directions
// with s_k < singular_value_cutoff * s_max are left out of the step (the statistics call them
// unidentifiable): along them the fit keeps the starting point's value instead of drifting on
// Jacobian round-off.
//
// Bounds: projection. A parameter at a bound whose gradient pushes it outward is held there
// (removed from the step's system for that iteration: an active set); the others take the
// free step and the trial point is clamped to the box. The gain ratio uses the clamped step.
// Rejected alternative: a smooth transform (p = lo + (hi - lo) sin^2 u) never reaches the
// bound, flattens the gradient next to it, and distorts the standard errors.

#include <Eigen/Dense>

#include <functional>
#include <string>
#include <vector>

namespace csim::fit {

/// The model seen by the fit. At parameters p (n, every log parameter > 0, inside the bounds) writes
/// the residuals e (m, resized by the callee; the same m at every call) and, when
/// want_jacobian, de_dp (m x n, d e_i / d p_j in the units of e over those of p_j). Returns
/// false when the model cannot be evaluated at p (the simulator failed at a trial point): the
/// fit rejects the point and raises lambda. Non-finite entries count as a failure too.
using ResidualFunction = std::function<bool(const Eigen::VectorXd& p, bool want_jacobian,
                                            Eigen::VectorXd* e, Eigen::MatrixXd* de_dp)>;

/// Parameters of LevenbergMarquardt; the defaults suit residuals scaled by their noise.
struct LevenbergMarquardtOptions {
  /// Trial steps, each one evaluation of e (plus one with the Jacobian when accepted).
  int max_iterations = 50;
  /// lambda at the start, relative to diag(J^T J) (Marquardt's scaling) [1].
  double initial_lambda = 1e-3;
  /// Stop when ||delta eta||_2 <= step_tolerance: every p moved by less than this fraction
  /// (an absolute test in eta is a relative one in p; see the design note).
  double step_tolerance = 1e-8;
  /// Stop when max_j |J_j^T e| / (||J_j|| ||e||) <= gradient_tolerance over the free
  /// columns j of J = de/deta: the cosine between e and each column, invariant to the scale
  /// of e and of each parameter (MINPACK's gtol). e = 0 stops here too.
  double gradient_tolerance = 1e-10;
  /// Singular values of the column-scaled Jacobian below this times the largest are left
  /// out of the step (equal to FitStatisticsOptions::unidentifiable_ratio by default).
  double singular_value_cutoff = 1e-6;
  /// Largest change of a log parameter's ln p in one trial step (ln 10 by default: p moves
  /// by at most a factor of 10). A step that asks for more is shortened by raising lambda
  /// for that trial (a trust region on the log parameters): a Gauss-Newton step through a
  /// column that is nearly flat where it stands can otherwise jump ln p by 1e40, to p = 0,
  /// where the parameter's column de/d ln p = p de/dp vanishes and the fit can never bring
  /// it back. Linear parameters are not bounded here (their unit sets no natural size).
  double max_log_step = 2.302585092994046;
};

/// How a parameter is fitted.
enum class ParameterScale {
  kLog,     ///< p > 0, fitted in eta = ln p (steps are relative changes of p)
  kLinear,  ///< any sign, fitted in p itself (steps in the parameter's unit)
};

/// The parameter space: scales and bounds on p; empty vectors mean every parameter kLog and
/// no bounds. lo_j = 0 (log) or -inf (linear), hi_j = +inf leave that side open.
struct ParameterBounds {
  std::vector<double> lo;  ///< n or empty, same unit as p_j, lo_j < hi_j (log: 0 <= lo_j)
  std::vector<double> hi;  ///< n or empty, same unit as p_j
  std::vector<ParameterScale> scale;  ///< n or empty: every parameter kLog
};

/// Where a parameter ended relative to its bounds.
enum class BoundState {
  kFree,     ///< inside the box, or on a bound with the gradient pointing inward
  kAtLower,  ///< on lo, the cost still falling outward: held by the bound
  kAtUpper,  ///< on hi, likewise
};

enum class FitStatus {
  kConvergedStep,      ///< ||delta eta|| <= step_tolerance
  kConvergedGradient,  ///< the gradient cosine <= gradient_tolerance, or e = 0
  kMaxIterations,      ///< max_iterations trial steps without either
  kFailedEvaluation,   ///< e could not be evaluated at the start, or no trial step near
                       ///< the last point could (the step shrank to the tolerance failing)
};

/// Human-readable name of a status ("converged (step)", ...).
const char* FitStatusName(FitStatus status);

/// One trial step.
struct LevenbergMarquardtIteration {
  double cost = 0.0;       ///< C at the current point after this trial (accepted or not)
  double trial_cost = 0.0; ///< C at the trial point; NaN when its evaluation failed
  double lambda = 0.0;     ///< the damping this trial used [1]
  double rho = 0.0;        ///< gain ratio actual / predicted decrease; NaN when failed
  double step_norm = 0.0;  ///< ||delta eta||_2 of the (clamped) trial step
  bool accepted = false;
  bool evaluation_failed = false;
};

struct LevenbergMarquardtResult {
  FitStatus status = FitStatus::kFailedEvaluation;
  Eigen::VectorXd p;        ///< n, the final parameters (the start when nothing succeeded)
  double cost = 0.0;        ///< C = 1/2 ||e||^2 at p (NaN when the start failed)
  int iterations = 0;       ///< trial steps taken
  int evaluations = 0;      ///< calls of the ResidualFunction, with or without Jacobian
  int jacobian_evaluations = 0;
  Eigen::VectorXd e;        ///< m, residuals at p
  Eigen::MatrixXd de_dp;    ///< m x n, Jacobian at p (in p, as the caller gave it)
  std::vector<BoundState> bound_state;  ///< n, at p
  std::vector<ParameterScale> scale;    ///< n, as fitted (kLog where the caller gave none)
  std::vector<LevenbergMarquardtIteration> history;  ///< one entry per trial step
};

/// de/deta = de/dp diag(p): the Jacobian in log parameters (m x n).
Eigen::MatrixXd LogJacobian(const Eigen::MatrixXd& de_dp, const Eigen::VectorXd& p);

/// The Jacobian in the fit coordinates: column j times p_j for a kLog parameter, unchanged
/// for a kLinear one (scale empty: every parameter kLog, LogJacobian).
Eigen::MatrixXd FitJacobian(const Eigen::MatrixXd& de_dp, const Eigen::VectorXd& p,
                            const std::vector<ParameterScale>& scale);

/// Minimises 1/2 ||e(p)||^2 from p0 (n, inside the bounds, > 0 for a kLog parameter; a
/// violation is a caller bug and aborts). Never throws on a failing model: see FitStatus.
LevenbergMarquardtResult LevenbergMarquardt(const ResidualFunction& model,
                                            const Eigen::VectorXd& p0,
                                            const ParameterBounds& bounds = {},
                                            const LevenbergMarquardtOptions& options = {});

}  // namespace csim::fit
