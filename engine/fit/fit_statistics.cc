#include "engine/fit/fit_statistics.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/common/check.h"

namespace csim::fit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The column-scaled free Jacobian's SVD, as the step uses it (levenberg_marquardt.cc).
struct ScaledSvd {
  std::vector<int> free;  // indices of the free parameters
  Eigen::VectorXd d;      // their column norms (1 for a zero column)
  Eigen::VectorXd s;      // singular values, descending
  Eigen::MatrixXd V;      // num_free x num_free
};

ScaledSvd DecomposeScaled(const Eigen::MatrixXd& J, const std::vector<BoundState>& state) {
  ScaledSvd out;
  for (int j = 0; j < J.cols(); ++j)
    if (state[j] == BoundState::kFree) out.free.push_back(j);
  const int nf = static_cast<int>(out.free.size());
  Eigen::MatrixXd Js(J.rows(), nf);
  out.d.resize(nf);
  for (int k = 0; k < nf; ++k) {
    const double norm = J.col(out.free[k]).norm();
    out.d[k] = norm > 0.0 ? norm : 1.0;
    Js.col(k) = J.col(out.free[k]) / out.d[k];
  }
  if (nf == 0) return out;  // every parameter held by a bound
  Eigen::BDCSVD<Eigen::MatrixXd> svd(Js, Eigen::ComputeThinV);
  out.s = svd.singularValues();
  out.V = svd.matrixV();
  return out;
}

// Unidentifiable direction of singular vector k: expanded to n, in eta, signed so that its
// first component above `involvement` is positive.
UnidentifiableDirection MakeDirection(const ScaledSvd& svd, int k, int n, double involvement) {
  UnidentifiableDirection dir;
  dir.ratio = svd.s[0] > 0.0 ? svd.s[k] / svd.s[0] : 0.0;
  dir.scaled = Eigen::VectorXd::Zero(n);
  dir.log_direction = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < static_cast<int>(svd.free.size()); ++i) {
    dir.scaled[svd.free[i]] = svd.V(i, k);
    dir.log_direction[svd.free[i]] = svd.V(i, k) / svd.d[i];
  }
  dir.log_direction.normalize();
  for (int j = 0; j < n; ++j) {
    if (std::abs(dir.log_direction[j]) <= involvement) continue;
    if (dir.log_direction[j] < 0.0) {
      dir.log_direction = -dir.log_direction;
      dir.scaled = -dir.scaled;
    }
    break;
  }
  return dir;
}

// Cov(eta) over the identified parameters: s^2 D^-1 V_r diag(1/s_k^2) V_r^T D^-1, scattered
// into n x n; unidentifiable parameters get an infinite variance, held ones NaN.
Eigen::MatrixXd CovarianceEta(const ScaledSvd& svd, int rank, double s2,
                              const std::vector<ParameterVerdict>& verdict) {
  const int n = static_cast<int>(verdict.size());
  const Eigen::MatrixXd Vr = svd.V.leftCols(rank);
  const Eigen::VectorXd inv_s2 = svd.s.head(rank).array().square().inverse().matrix();
  const Eigen::VectorXd d_inv = svd.d.cwiseInverse();
  const Eigen::MatrixXd C = s2 * d_inv.asDiagonal() * Vr * inv_s2.asDiagonal() *
                            Vr.transpose() * d_inv.asDiagonal();
  Eigen::MatrixXd cov = Eigen::MatrixXd::Constant(n, n, kNaN);
  const int nf = static_cast<int>(svd.free.size());
  for (int a = 0; a < nf; ++a) {
    const int i = svd.free[a];
    for (int b = 0; b < nf; ++b) {
      const int j = svd.free[b];
      if (verdict[i] == ParameterVerdict::kIdentified &&
          verdict[j] == ParameterVerdict::kIdentified)
        cov(i, j) = C(a, b);
    }
    if (verdict[i] == ParameterVerdict::kUnidentifiable) cov(i, i) = kInf;
  }
  return cov;
}

Eigen::MatrixXd Correlation(const Eigen::MatrixXd& cov,
                            const std::vector<ParameterVerdict>& verdict) {
  const int n = static_cast<int>(verdict.size());
  Eigen::MatrixXd corr = Eigen::MatrixXd::Constant(n, n, kNaN);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (verdict[i] == ParameterVerdict::kIdentified &&
          verdict[j] == ParameterVerdict::kIdentified)
        corr(i, j) = cov(i, j) / std::sqrt(cov(i, i) * cov(j, j));
  return corr;
}

}  // namespace

const char* ParameterVerdictName(ParameterVerdict verdict) {
  switch (verdict) {
    case ParameterVerdict::kIdentified: return "identified";
    case ParameterVerdict::kUnidentifiable: return "unidentifiable direction";
    case ParameterVerdict::kAtBound: return "at a bound";
    case ParameterVerdict::kLowerBoundOnly: return "lower bound only";
    case ParameterVerdict::kNoLongerActs: return "no longer acts";
  }
  return "unknown";
}

FitStatistics CalcFitStatistics(const Eigen::VectorXd& p, const Eigen::VectorXd& e,
                                const Eigen::MatrixXd& de_dp,
                                const std::vector<BoundState>& bound_state,
                                const FitStatisticsOptions& options,
                                const std::vector<ParameterScale>& scale) {
  const int n = static_cast<int>(p.size());
  const int m = static_cast<int>(e.size());
  CSIM_CHECK(de_dp.rows() == m && de_dp.cols() == n);
  CSIM_CHECK(bound_state.empty() || static_cast<int>(bound_state.size()) == n);
  const std::vector<BoundState> state =
      bound_state.empty() ? std::vector<BoundState>(n, BoundState::kFree) : bound_state;
  const ScaledSvd svd = DecomposeScaled(FitJacobian(de_dp, p, scale), state);

  FitStatistics st;
  st.num_residuals = m;
  st.num_free = static_cast<int>(svd.free.size());
  st.cost = 0.5 * e.squaredNorm();
  st.singular_values = svd.s;
  st.singular_vectors = Eigen::MatrixXd::Zero(n, st.num_free);
  for (int i = 0; i < st.num_free; ++i) st.singular_vectors.row(svd.free[i]) = svd.V.row(i);

  // Rank: singular values at or above the ratio (none when J_s = 0).
  const double s_max = st.num_free > 0 ? svd.s[0] : 0.0;
  while (st.rank < st.num_free && s_max > 0.0 &&
         svd.s[st.rank] >= options.unidentifiable_ratio * s_max)
    ++st.rank;
  st.degrees_of_freedom = m - st.rank;
  st.s2 = st.degrees_of_freedom > 0 ? e.squaredNorm() / st.degrees_of_freedom : kNaN;

  // Verdicts: held by a bound, else in some unidentifiable direction, else identified.
  st.verdict.assign(n, ParameterVerdict::kIdentified);
  for (int k = st.num_free - 1; k >= st.rank; --k) {  // weakest first
    st.unidentifiable.push_back(MakeDirection(svd, k, n, options.involvement));
    for (int j = 0; j < n; ++j)
      if (std::abs(st.unidentifiable.back().log_direction[j]) > options.involvement)
        st.verdict[j] = ParameterVerdict::kUnidentifiable;
  }
  for (int j = 0; j < n; ++j)
    if (state[j] != BoundState::kFree) st.verdict[j] = ParameterVerdict::kAtBound;

  st.covariance_eta = CovarianceEta(svd, st.rank, st.s2, st.verdict);
  // dp/deta: p for a log parameter, 1 for a linear one.
  Eigen::VectorXd dp_deta = p;
  for (int j = 0; j < n; ++j)
    if (!scale.empty() && scale[j] == ParameterScale::kLinear) dp_deta[j] = 1.0;
  st.covariance_p = dp_deta.asDiagonal() * st.covariance_eta * dp_deta.asDiagonal();
  st.standard_error_eta = st.covariance_eta.diagonal().cwiseSqrt();
  st.standard_error_p = dp_deta.cwiseAbs().cwiseProduct(st.standard_error_eta);
  st.correlation = Correlation(st.covariance_eta, st.verdict);
  return st;
}

FitStatistics CalcFitStatistics(const LevenbergMarquardtResult& fit,
                                const FitStatisticsOptions& options) {
  return CalcFitStatistics(fit.p, fit.e, fit.de_dp, fit.bound_state, options, fit.scale);
}

std::string DescribeDirection(const Eigen::VectorXd& direction,
                              const std::vector<std::string>& names) {
  CSIM_CHECK(static_cast<int>(names.size()) == direction.size());
  std::string out;
  for (int j = 0; j < direction.size(); ++j) {
    const double c = direction[j];
    if (std::abs(c) < 0.005) continue;  // prints as 0.00
    char term[32];
    std::snprintf(term, sizeof term, "%.2f ", std::abs(c));
    if (out.empty())
      out = c < 0.0 ? "-" : "";
    else
      out += c < 0.0 ? " - " : " + ";
    out += term + names[j];
  }
  return out.empty() ? "0" : out;
}

}  // namespace csim::fit
