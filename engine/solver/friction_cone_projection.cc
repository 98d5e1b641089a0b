#include "engine/solver/friction_cone_projection.h"

#include <cmath>

namespace csim::solver {

FrictionConeMetric MakeFrictionConeMetric(double mu, double R_t, double R_n) {
  FrictionConeMetric m;
  m.mu = mu;
  m.R_t = R_t;
  m.R_n = R_n;
  m.mu_hat = mu * R_t / R_n;                  // mu_hat = mu R_t / R_n
  const double mu_tilde_sq = mu * mu * R_t / R_n;  // mu_tilde^2 = mu^2 R_t / R_n
  m.f = 1.0 / (1.0 + mu_tilde_sq);
  return m;
}

namespace {

// Region test in Drake's order (docs/design/contact-models.md §2.2), with 1/mu handled explicitly
// for mu = 0.
FrictionConeRegion Classify(const FrictionConeMetric& m, double y_r, double y_n) {
  if (y_r <= m.mu * y_n) return FrictionConeRegion::kStiction;
  const bool above_polar = -m.mu_hat * y_r < y_n;
  const bool below_cone = m.mu == 0.0 || y_n < y_r / m.mu;
  if (above_polar && below_cone) return FrictionConeRegion::kSliding;
  return FrictionConeRegion::kNoContact;
}

// y_r^2 = ||y_t||^2 + eps^2 of the soft radial norm y_r = sqrt(y_r^2)
// (docs/design/contact-models.md §2.2).
double SoftRadialNormSquared(const Eigen::Vector3d& y) {
  constexpr double kEpsSq = kFrictionConeSoftNorm * kFrictionConeSoftNorm;
  return y.head<2>().squaredNorm() + kEpsSq;
}

// Classify's answer without the square root when the squared comparison is decisive.
// Why: most evaluations are of stuck contacts or candidates apart, which need neither y_r
// nor t_hat, and the root and the two divisions of t_hat dominate the projection's cost.
// Both sides of each test are positive where it is used, and a relative margin of
// 1e-12 (far above the few ulps of rounding in y_r, mu y_n and mu_hat y_r) separates the
// decisive cases; anything closer, or not finite, goes to Classify with the root, so the
// region is always exactly Classify's.
FrictionConeRegion ClassifySquared(const FrictionConeMetric& m, double y_r_sq, double y_n) {
  constexpr double kLow = 1.0 - 1e-12, kHigh = 1.0 + 1e-12;
  if (y_n > 0.0) {
    // Stiction iff y_r <= mu y_n. Otherwise y_r > mu y_n gives y_n < y_r / mu, and
    // -mu_hat y_r <= 0 < y_n: sliding.
    const double b = m.mu * y_n, b_sq = b * b;
    if (y_r_sq < kLow * b_sq) return FrictionConeRegion::kStiction;
    if (y_r_sq > kHigh * b_sq) return FrictionConeRegion::kSliding;
  } else if (y_n < 0.0) {
    // Never stuck (mu y_n <= 0 < y_r) and always below the cone; above the polar cone
    // iff mu_hat y_r > -y_n.
    const double c_sq = y_n * y_n, a_sq = m.mu_hat * m.mu_hat * y_r_sq;
    if (a_sq > kHigh * c_sq) return FrictionConeRegion::kSliding;
    if (a_sq < kLow * c_sq) return FrictionConeRegion::kNoContact;
  }
  return Classify(m, std::sqrt(y_r_sq), y_n);
}

}  // namespace

FrictionConeRegion ClassifyFrictionCone(const FrictionConeMetric& m, const Eigen::Vector3d& y) {
  return ClassifySquared(m, SoftRadialNormSquared(y), y[2]);
}

FrictionConeProjection ProjectOntoFrictionCone(const FrictionConeMetric& m,
                                               const Eigen::Vector3d& y) {
  FrictionConeProjection p;
  const Eigen::Vector2d y_t = y.head<2>();
  const double y_n = y[2];
  const double y_r_sq = SoftRadialNormSquared(y);
  p.region = ClassifySquared(m, y_r_sq, y_n);
  switch (p.region) {
    case FrictionConeRegion::kStiction:
      // Region I: gamma = y; ell = 1/2 (R_t ||y_t||^2 + R_n y_n^2) (SAP eq. 35).
      p.gamma = y;
      p.cost = 0.5 * (m.R_t * y_t.squaredNorm() + m.R_n * y_n * y_n);
      break;
    case FrictionConeRegion::kSliding: {
      p.y_r = std::sqrt(y_r_sq);
      p.t_hat = y_t / p.y_r;
      // Region II: gamma_n = f (y_n + mu_hat y_r), gamma_t = mu gamma_n t_hat (SAP eq. 27);
      // ell = 1/2 R_n f (y_n + mu_hat y_r)^2 = 1/2 R_n gamma_n^2 / f (SAP eq. 35).
      const double s = y_n + m.mu_hat * p.y_r;
      const double gamma_n = m.f * s;
      p.gamma.head<2>() = m.mu * gamma_n * p.t_hat;
      p.gamma[2] = gamma_n;
      p.cost = 0.5 * m.R_n * m.f * s * s;
      break;
    }
    case FrictionConeRegion::kNoContact:
      // Region III: gamma = 0, ell = 0.
      break;
  }
  return p;
}

Eigen::Matrix3d CalcFrictionConeHessian(const FrictionConeMetric& m,
                                        const FrictionConeProjection& p) {
  Eigen::Matrix3d G = Eigen::Matrix3d::Zero();
  switch (p.region) {
    case FrictionConeRegion::kStiction:
      // Region I: G = R^{-1}.
      G.diagonal() << 1.0 / m.R_t, 1.0 / m.R_t, 1.0 / m.R_n;
      break;
    case FrictionConeRegion::kSliding: {
      // Region II (docs/design/contact-models.md §2.3, SAP eq. 37), P = t t^T, P_perp = I - t t^T:
      //   G_tt = mu gamma_n / (R_t y_r) P_perp + mu^2 f / R_n P
      //   G_tn = G_nt^T = mu f / R_n t,   G_nn = f / R_n.
      const Eigen::Vector2d& t = p.t_hat;
      const Eigen::Matrix2d P = t * t.transpose();
      const Eigen::Matrix2d P_perp = Eigen::Matrix2d::Identity() - P;
      const double gamma_n = p.gamma[2];
      G.topLeftCorner<2, 2>() =
          m.mu * gamma_n / (m.R_t * p.y_r) * P_perp + m.mu * m.mu * m.f / m.R_n * P;
      G.topRightCorner<2, 1>() = m.mu * m.f / m.R_n * t;
      G.bottomLeftCorner<1, 2>() = G.topRightCorner<2, 1>().transpose();
      G(2, 2) = m.f / m.R_n;
      break;
    }
    case FrictionConeRegion::kNoContact:
      break;  // Region III (and, following Drake, the polar-cone boundary): G = 0.
  }
  return G;
}

double CalcFrictionConeCurvature(const FrictionConeMetric& m, const FrictionConeProjection& p,
                                 const Eigen::Vector3d& d) {
  switch (p.region) {
    case FrictionConeRegion::kStiction:
      return (d[0] * d[0] + d[1] * d[1]) / m.R_t + d[2] * d[2] / m.R_n;
    case FrictionConeRegion::kSliding: {
      // d^T G d with G of CalcFrictionConeHessian, u = d_t, s = t.u:
      //   mu gamma_n / (R_t y_r) (|u|^2 - s^2) + mu^2 f / R_n s^2 + 2 mu f / R_n s d_n
      //   + f / R_n d_n^2  =  mu gamma_n / (R_t y_r) (|u|^2 - s^2) + f / R_n (mu s + d_n)^2.
      const double u2 = d[0] * d[0] + d[1] * d[1];
      const double s = p.t_hat[0] * d[0] + p.t_hat[1] * d[1];
      const double along = m.mu * s + d[2];
      return m.mu * p.gamma[2] / (m.R_t * p.y_r) * (u2 - s * s) + m.f / m.R_n * along * along;
    }
    case FrictionConeRegion::kNoContact:
      break;
  }
  return 0.0;
}

}  // namespace csim::solver
