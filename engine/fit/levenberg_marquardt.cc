#include "engine/fit/levenberg_marquardt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "engine/common/check.h"

namespace csim::fit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// lambda stays below this: consecutive rejections multiply it by 2, 4, 8, ... and the step
// test ends the fit long before; the cap only keeps the arithmetic finite.
constexpr double kMaxLambda = 1e30;

// The box in the fit coordinates eta (ln p of a log parameter: ln 0 = -inf, ln inf = inf;
// p itself of a linear one), and in p, where a point exactly on a bound is put (exp(ln lo)
// may be an ulp below lo).
struct LogBox {
  Eigen::VectorXd lo, hi;      // n, in eta
  Eigen::VectorXd lo_p, hi_p;  // n, in p
  std::vector<ParameterScale> scale;  // n
};

bool IsLog(const LogBox& box, int j) { return box.scale[j] == ParameterScale::kLog; }

LogBox MakeLogBox(const ParameterBounds& bounds, const Eigen::VectorXd& p0) {
  const int n = static_cast<int>(p0.size());
  CSIM_CHECK(bounds.lo.empty() || static_cast<int>(bounds.lo.size()) == n);
  CSIM_CHECK(bounds.hi.empty() || static_cast<int>(bounds.hi.size()) == n);
  CSIM_CHECK(bounds.scale.empty() || static_cast<int>(bounds.scale.size()) == n);
  LogBox box{Eigen::VectorXd::Constant(n, -kInf), Eigen::VectorXd::Constant(n, kInf),
             Eigen::VectorXd::Zero(n), Eigen::VectorXd::Constant(n, kInf),
             bounds.scale.empty() ? std::vector<ParameterScale>(n, ParameterScale::kLog)
                                  : bounds.scale};
  for (int j = 0; j < n; ++j) {
    const bool log = IsLog(box, j);
    CSIM_CHECK(std::isfinite(p0[j]) && (!log || p0[j] > 0.0));
    if (!log) box.lo_p[j] = -kInf;
    if (!bounds.lo.empty()) {
      CSIM_CHECK((!log || bounds.lo[j] >= 0.0) && bounds.lo[j] <= p0[j]);
      box.lo_p[j] = bounds.lo[j];
      if (!log) {
        box.lo[j] = bounds.lo[j];
      } else if (bounds.lo[j] > 0.0) {
        box.lo[j] = std::log(bounds.lo[j]);
      }
    }
    if (!bounds.hi.empty()) {
      CSIM_CHECK(bounds.hi[j] >= p0[j]);
      box.hi_p[j] = bounds.hi[j];
      box.hi[j] = log ? std::log(bounds.hi[j]) : bounds.hi[j];  // +inf stays +inf
    }
    CSIM_CHECK(box.lo[j] < box.hi[j]);
  }
  return box;
}

// An evaluated point: what the step and the statistics need there.
struct Point {
  Eigen::VectorXd eta, p;  // n
  Eigen::VectorXd e;       // m
  Eigen::MatrixXd de_dp;   // m x n, empty at a trial point
  Eigen::MatrixXd J;       // m x n, de/deta
  double cost = kNaN;
};

// Calls the model; false on its failure or on a non-finite output. m < 0: not yet known.
bool Evaluate(const ResidualFunction& model, const std::vector<ParameterScale>& scale,
              bool want_jacobian, int* m, int* calls, Point* x) {
  ++*calls;
  Eigen::MatrixXd* de_dp = want_jacobian ? &x->de_dp : nullptr;
  if (!model(x->p, want_jacobian, &x->e, de_dp)) return false;
  if (*m < 0) *m = static_cast<int>(x->e.size());
  CSIM_CHECK(x->e.size() == *m);  // the model must not change m between calls
  if (!x->e.allFinite()) return false;
  if (want_jacobian) {
    CSIM_CHECK(x->de_dp.rows() == *m && x->de_dp.cols() == x->p.size());
    if (!x->de_dp.allFinite()) return false;
    x->J = FitJacobian(x->de_dp, x->p, scale);
  }
  x->cost = 0.5 * x->e.squaredNorm();
  return true;
}

// p at the trial eta: p exp(delta) (log) or p + delta (linear), so that a parameter the step
// leaves alone keeps its value to the bit (exp(ln p) need not be p), and exactly lo or hi on
// a bound.
Eigen::VectorXd TrialParameters(const Eigen::VectorXd& p, const Eigen::VectorXd& delta,
                                const Eigen::VectorXd& eta, const LogBox& box) {
  Eigen::VectorXd trial(p.size());
  for (int j = 0; j < p.size(); ++j) {
    trial[j] = IsLog(box, j) ? p[j] * std::exp(delta[j]) : p[j] + delta[j];
    if (eta[j] <= box.lo[j]) trial[j] = box.lo_p[j];
    if (eta[j] >= box.hi[j]) trial[j] = box.hi_p[j];
    trial[j] = std::min(std::max(trial[j], box.lo_p[j]), box.hi_p[j]);
  }
  return trial;
}

// Which parameters a bound holds at x: on the bound, the gradient g = J^T e pushing out.
std::vector<BoundState> HeldByBounds(const Point& x, const LogBox& box) {
  const Eigen::VectorXd g = x.J.transpose() * x.e;
  std::vector<BoundState> state(x.eta.size(), BoundState::kFree);
  for (int j = 0; j < x.eta.size(); ++j) {
    if (x.eta[j] <= box.lo[j] && g[j] > 0.0) state[j] = BoundState::kAtLower;
    if (x.eta[j] >= box.hi[j] && g[j] < 0.0) state[j] = BoundState::kAtUpper;
  }
  return state;
}

// The step system at an accepted point: thin SVD of the free columns of J, scaled by their
// norms (Marquardt's D). Reused for every trial lambda until the next accepted point.
struct StepSystem {
  std::vector<int> free;  // indices of the free parameters
  Eigen::VectorXd d;      // free column norms of J (1 for an all-zero column)
  Eigen::VectorXd s;      // singular values of J_free D^-1, descending
  Eigen::MatrixXd V;      // its right singular vectors (columns)
  Eigen::VectorXd ut_e;   // U^T e
};

StepSystem FactorStep(const Point& x, const std::vector<BoundState>& state) {
  StepSystem sys;
  for (int j = 0; j < x.eta.size(); ++j)
    if (state[j] == BoundState::kFree) sys.free.push_back(j);
  const int nf = static_cast<int>(sys.free.size());
  Eigen::MatrixXd Js(x.J.rows(), nf);
  sys.d.resize(nf);
  for (int k = 0; k < nf; ++k) {
    const double norm = x.J.col(sys.free[k]).norm();
    sys.d[k] = norm > 0.0 ? norm : 1.0;  // a zero column stays zero: s = 0, no step
    Js.col(k) = x.J.col(sys.free[k]) / sys.d[k];
  }
  if (nf == 0) return sys;  // every parameter held: no step (the gradient test stops first)
  Eigen::BDCSVD<Eigen::MatrixXd> svd(Js, Eigen::ComputeThinU | Eigen::ComputeThinV);
  sys.s = svd.singularValues();
  sys.V = svd.matrixV();
  sys.ut_e = svd.matrixU().transpose() * x.e;
  return sys;
}

// delta eta (n, zero on held parameters) for one lambda: -D^-1 V diag(s/(s^2+lambda)) U^T e
// over the singular values above the cutoff.
Eigen::VectorXd SolveStep(const StepSystem& sys, double lambda, double cutoff, int n) {
  Eigen::VectorXd c = Eigen::VectorXd::Zero(sys.s.size());
  const double s_max = sys.s.size() > 0 ? sys.s[0] : 0.0;
  for (int k = 0; k < sys.s.size(); ++k)
    if (sys.s[k] > cutoff * s_max) c[k] = sys.s[k] / (sys.s[k] * sys.s[k] + lambda);
  const Eigen::VectorXd z = -(sys.V * c.cwiseProduct(sys.ut_e));
  Eigen::VectorXd delta = Eigen::VectorXd::Zero(n);
  for (int k = 0; k < static_cast<int>(sys.free.size()); ++k)
    delta[sys.free[k]] = z[k] / sys.d[k];
  return delta;
}

// max over free columns of |J_j^T e| / (||J_j|| ||e||); 0 when e = 0.
double GradientCosine(const Point& x, const std::vector<BoundState>& state) {
  const double e_norm = x.e.norm();
  if (e_norm == 0.0) return 0.0;
  double worst = 0.0;
  for (int j = 0; j < x.eta.size(); ++j) {
    const double col_norm = x.J.col(j).norm();
    if (state[j] != BoundState::kFree || col_norm == 0.0) continue;
    worst = std::max(worst, std::abs(x.J.col(j).dot(x.e)) / (col_norm * e_norm));
  }
  return worst;
}

// Doublings of lambda a trial may take to bring its step inside max_log_step (from 1e-12,
// 2^200 covers any lambda the step could need); past them the step is scaled down. Then
// bisections of the bracket in ln lambda: 30 put the longest log move within 2^-30 of a
// doubling's ratio of the bound.
constexpr int kMaxShortenings = 200;
constexpr int kBisections = 30;

// max |delta_j| over the log parameters (0 without any).
double LargestLogStep(const Eigen::VectorXd& delta, const LogBox& box) {
  double largest = 0.0;
  for (int j = 0; j < delta.size(); ++j)
    if (IsLog(box, j)) largest = std::max(largest, std::abs(delta[j]));
  return largest;
}

// Marquardt's update after a trial (the design note's rule, with Nielsen's growing factor
// on consecutive rejections so that a lambda decayed to 1e-12 recovers in a few trials).
void UpdateLambda(bool accepted, double rho, double* lambda, double* nu) {
  if (accepted) {
    if (rho > 0.75) *lambda /= 3.0;
    if (rho < 0.25) *lambda *= 2.0;
    *nu = 2.0;
  } else {
    *lambda *= *nu;
    *nu *= 2.0;
  }
  *lambda = std::min(*lambda, kMaxLambda);
}

// One trial: the free step for lambda, clamped to the box, evaluated when the Gauss-Newton
// model predicts a decrease; accepted iff rho > 0 and the Jacobian evaluates there too. On
// acceptance *trial holds the new point. Counts evaluations in *result.
LevenbergMarquardtIteration TryStep(const ResidualFunction& model, const LogBox& box,
                                    const Point& x, const StepSystem& sys, double* lambda,
                                    double cutoff, double max_log_step, int* m,
                                    LevenbergMarquardtResult* result, Point* trial) {
  LevenbergMarquardtIteration it;
  it.lambda = *lambda;
  it.trial_cost = kNaN;
  it.rho = kNaN;
  const int n = static_cast<int>(x.eta.size());
  // The trust region on the log parameters: when the step moves some ln p by more than
  // max_log_step, lambda is raised (the caller's too, so that later trials start from it)
  // to where the longest log move is just inside the bound: doublings to bracket it, then
  // bisection in ln lambda (the SVD is reused: each try is one product).
  Eigen::VectorXd step = SolveStep(sys, *lambda, cutoff, n);
  if (LargestLogStep(step, box) > max_log_step) {
    double lo = *lambda, hi = std::max(2.0 * *lambda, 1e-12);
    step = SolveStep(sys, hi, cutoff, n);
    for (int k = 0; k < kMaxShortenings && LargestLogStep(step, box) > max_log_step; ++k) {
      lo = hi;
      hi *= 2.0;
      step = SolveStep(sys, hi, cutoff, n);
    }
    for (int k = 0; k < kBisections; ++k) {
      const double mid = std::sqrt(lo * hi);
      const Eigen::VectorXd shorter = SolveStep(sys, mid, cutoff, n);
      if (LargestLogStep(shorter, box) > max_log_step) {
        lo = mid;
      } else {
        hi = mid;
        step = shorter;
      }
    }
    if (LargestLogStep(step, box) > max_log_step)  // lambda's cap reached: scaled instead
      step *= max_log_step / LargestLogStep(step, box);
    *lambda = std::min(hi, kMaxLambda);
    it.lambda = *lambda;
  }
  trial->eta = (x.eta + step).cwiseMax(box.lo).cwiseMin(box.hi);
  const Eigen::VectorXd delta = trial->eta - x.eta;
  it.step_norm = delta.norm();
  // Predicted decrease of the Gauss-Newton model for the clamped step, without forming
  // C - C_model (which cancels near convergence).
  const Eigen::VectorXd J_delta = x.J * delta;
  const double predicted = -J_delta.dot(x.e) - 0.5 * J_delta.squaredNorm();
  if (!(predicted > 0.0)) {
    it.rho = 0.0;  // no decrease predicted (a clamped step): rejected without a run
    return it;
  }
  trial->p = TrialParameters(x.p, delta, trial->eta, box);
  if (!Evaluate(model, box.scale, false, m, &result->evaluations, trial)) {
    it.evaluation_failed = true;
    return it;
  }
  it.trial_cost = trial->cost;
  it.rho = (x.cost - trial->cost) / predicted;
  if (it.rho > 0.0) {  // the Jacobian only at an accepted point
    ++result->jacobian_evaluations;
    it.accepted = Evaluate(model, box.scale, true, m, &result->evaluations, trial);
    it.evaluation_failed = !it.accepted;
  }
  return it;
}

}  // namespace

const char* FitStatusName(FitStatus status) {
  switch (status) {
    case FitStatus::kConvergedStep: return "converged (step)";
    case FitStatus::kConvergedGradient: return "converged (gradient)";
    case FitStatus::kMaxIterations: return "maximum iterations";
    case FitStatus::kFailedEvaluation: return "failed evaluation";
  }
  return "unknown";
}

Eigen::MatrixXd LogJacobian(const Eigen::MatrixXd& de_dp, const Eigen::VectorXd& p) {
  CSIM_CHECK(de_dp.cols() == p.size());
  return de_dp * p.asDiagonal();
}

Eigen::MatrixXd FitJacobian(const Eigen::MatrixXd& de_dp, const Eigen::VectorXd& p,
                            const std::vector<ParameterScale>& scale) {
  CSIM_CHECK(de_dp.cols() == p.size());
  CSIM_CHECK(scale.empty() || static_cast<Eigen::Index>(scale.size()) == p.size());
  Eigen::MatrixXd J = de_dp;
  for (Eigen::Index j = 0; j < p.size(); ++j)
    if (scale.empty() || scale[j] == ParameterScale::kLog) J.col(j) *= p[j];
  return J;
}

LevenbergMarquardtResult LevenbergMarquardt(const ResidualFunction& model,
                                            const Eigen::VectorXd& p0,
                                            const ParameterBounds& bounds,
                                            const LevenbergMarquardtOptions& options) {
  const int n = static_cast<int>(p0.size());
  const LogBox box = MakeLogBox(bounds, p0);
  LevenbergMarquardtResult result;
  result.p = p0;
  result.cost = kNaN;
  result.bound_state.assign(n, BoundState::kFree);
  result.scale = box.scale;
  int m = -1;
  Point x;
  x.p = p0;
  x.eta = p0;
  for (int j = 0; j < n; ++j)
    if (IsLog(box, j)) x.eta[j] = std::log(p0[j]);
  if (!Evaluate(model, box.scale, true, &m, &result.evaluations, &x)) return result;
  ++result.jacobian_evaluations;

  double lambda = options.initial_lambda;
  double nu = 2.0;
  std::vector<BoundState> state = HeldByBounds(x, box);
  StepSystem sys = FactorStep(x, state);
  result.status = FitStatus::kMaxIterations;
  while (true) {
    if (GradientCosine(x, state) <= options.gradient_tolerance) {
      result.status = FitStatus::kConvergedGradient;
      break;
    }
    if (result.iterations >= options.max_iterations) break;
    ++result.iterations;

    Point trial;
    LevenbergMarquardtIteration it = TryStep(model, box, x, sys, &lambda,
                                             options.singular_value_cutoff,
                                             options.max_log_step, &m, &result, &trial);
    UpdateLambda(it.accepted, it.rho, &lambda, &nu);
    if (it.accepted) {
      x = std::move(trial);
      state = HeldByBounds(x, box);
      sys = FactorStep(x, state);
    }
    it.cost = x.cost;
    result.history.push_back(it);
    if (it.step_norm <= options.step_tolerance) {
      result.status = it.evaluation_failed ? FitStatus::kFailedEvaluation
                                           : FitStatus::kConvergedStep;
      break;
    }
  }
  result.p = x.p;
  result.cost = x.cost;
  result.e = x.e;
  result.de_dp = x.de_dp;
  result.bound_state = state;
  return result;
}

}  // namespace csim::fit
