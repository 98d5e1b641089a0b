#pragma once
// What the data says about fitted parameters, from the residuals e and Jacobian de/dp at the
// optimum of a least-squares fit (levenberg_marquardt.h): the residual variance s^2,
// covariances, standard errors and correlations, the singular values of the column-scaled
// Jacobian, the directions it cannot see, and a verdict per parameter. Design:
// docs/design/sensitivities.md, "Fitting (Levenberg-Marquardt)".
//
// Linearisation in eta = ln p (the fit's coordinates), then the delta method to p:
//   Cov(eta) = s^2 (J^T J)^+,  J = de/deta,  s^2 = ||e||^2 / (m - r),
//   Cov(p) = diag(p) Cov(eta) diag(p),  se(p_j) = p_j se(eta_j),
// with r the rank (the identifiable directions) and the pseudo-inverse taken over those
// directions only. Correlations are the same in eta and in p (a diagonal scaling). When
// se(eta_j) is not small (say > 0.2) the distribution of p_j is skewed and
// exp(eta_j +- k se(eta_j)) is the better interval; se(p_j) is the first-order one.
//
// Identifiability from the thin SVD of the column-scaled J_s = J D^-1 (D the column norms,
// which makes the test independent of how strongly each parameter acts): a singular value
// s_k < unidentifiable_ratio * s_max marks an unidentifiable direction. Its direction in eta,
// D^-1 v_k normalised, is what the data cannot see: moving ln p along it leaves e unchanged
// to first order. Its components are exponents: for y = a b t it is (1, -1)/sqrt(2),
// "0.71 a - 0.71 b" (raise a by a factor, lower b by the same: only a b is seen); for a
// rebound that depends on zeta = tau_d sqrt(k) alone, (k, tau_d) gives (2, -1)/sqrt(5),
// "0.89 k - 0.45 tau_d". The identifiable combinations are the products prod p_j^w_j whose
// exponent vectors w are orthogonal to every such direction.
//
// A linear parameter (ParameterScale::kLinear: an initial position or velocity) is its own
// fit coordinate: eta_j = p_j, its row of the delta method a factor 1, so its covariance,
// standard error and unidentifiable-direction component are in the parameter's own unit.
// "eta" below means the fit coordinates: ln p_j or p_j per parameter.
//
// Parameters held by a bound (BoundState from the fit) are treated as fixed: no standard
// error, no correlation, and they do not count in r.

#include <Eigen/Dense>

#include <string>
#include <vector>

#include "engine/fit/levenberg_marquardt.h"

namespace csim::fit {

/// What the fit can say about one parameter.
enum class ParameterVerdict {
  kIdentified,      ///< a finite standard error
  kUnidentifiable,  ///< takes part in an unidentifiable direction: se = inf
  kAtBound,         ///< held by a bound: fixed there, se = NaN
  kLowerBoundOnly,  ///< never set here: for the caller who knows the data only bounds p
                    ///< from below (friction from sticking-only data: every larger mu sticks)
  kNoLongerActs,    ///< never set here: for the caller who finds p's column vanished at the
                    ///< fitted value (a log parameter driven towards 0 where it no longer
                    ///< acts: a minimum on the boundary, not an estimate)
};

/// Human-readable name of a verdict ("identified", ...).
const char* ParameterVerdictName(ParameterVerdict verdict);

struct FitStatisticsOptions {
  /// A singular value of the column-scaled Jacobian below this times the largest marks an
  /// unidentifiable direction [1].
  double unidentifiable_ratio = 1e-6;
  /// A parameter takes part in an unidentifiable direction when its component in the unit
  /// direction (in eta) exceeds this [1].
  double involvement = 1e-3;
};

/// A direction of the log parameters that the data does not determine.
struct UnidentifiableDirection {
  double ratio = 0.0;          ///< s_k / s_max [1]
  Eigen::VectorXd scaled;      ///< n, right singular vector of J_s (0 on held parameters)
  Eigen::VectorXd log_direction;  ///< n, unit direction in eta = D^-1 scaled, normalised;
                                  ///< the first significant component positive
};

struct FitStatistics {
  int num_residuals = 0;       ///< m
  int num_free = 0;            ///< parameters not held by a bound
  int rank = 0;                ///< r: identifiable directions among the free ones
  int degrees_of_freedom = 0;  ///< m - r
  double cost = 0.0;           ///< C = 1/2 ||e||^2
  double s2 = 0.0;             ///< residual variance ||e||^2 / (m - r); NaN when m <= r
  Eigen::MatrixXd covariance_eta;  ///< n x n, Cov(eta); NaN rows of held parameters,
                                   ///< inf diagonal of unidentifiable ones
  Eigen::MatrixXd covariance_p;    ///< n x n, delta method, units of p_i p_j
  Eigen::VectorXd standard_error_eta;  ///< n, se(eta): relative se(ln p) [1] of a log
                                       ///< parameter, se(p) of a linear one
  Eigen::VectorXd standard_error_p;    ///< n, units of p
  Eigen::MatrixXd correlation;  ///< n x n in [-1, 1]; NaN where a side has no finite se
  Eigen::VectorXd singular_values;  ///< num_free, of the column-scaled J, descending
  Eigen::MatrixXd singular_vectors; ///< n x num_free, right singular vectors (columns)
                                    ///< of J_s, zero rows on held parameters
  std::vector<UnidentifiableDirection> unidentifiable;  ///< weakest first
  std::vector<ParameterVerdict> verdict;  ///< n
};

/// Statistics at parameters p (n, > 0 where log) from the residuals e (m) and de_dp (m x n)
/// there; bound_state (n, or empty: all free) from LevenbergMarquardtResult; scale (n, or
/// empty: every parameter kLog).
FitStatistics CalcFitStatistics(const Eigen::VectorXd& p, const Eigen::VectorXd& e,
                                const Eigen::MatrixXd& de_dp,
                                const std::vector<BoundState>& bound_state = {},
                                const FitStatisticsOptions& options = {},
                                const std::vector<ParameterScale>& scale = {});

/// The same from a fit's result.
FitStatistics CalcFitStatistics(const LevenbergMarquardtResult& fit,
                                const FitStatisticsOptions& options = {});

/// A direction (n) as a readable combination of names (n): "0.71 stiffness - 0.71
/// dissipation_time". Two decimals; components that round to 0.00 are left out.
std::string DescribeDirection(const Eigen::VectorXd& direction,
                              const std::vector<std::string>& names);

}  // namespace csim::fit
