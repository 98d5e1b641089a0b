#pragma once
// The R-weighted projection onto the friction cone and its derivatives
// (docs/design/contact-models.md §2.2, §2.3; SAP eq. 23 and appendices C, D, eqs. 35-37), shared by
// every constraint that uses the SAP friction cone.
//
// Coordinates are the contact frame [t1, t2, n] (docs/design/conventions.md §2). The cone is
// F = { x : ||x_t|| <= mu x_n }, R = diag(R_t, R_t, R_n) > 0, and
//   P_F(y) = argmin_{gamma in F} 1/2 (gamma - y)^T R (gamma - y).
// The radial norm is the soft norm y_r = sqrt(||y_t||^2 + eps^2), eps = 1e-7 [N s], and the
// tangent direction t_hat = y_t / y_r (so ||t_hat|| < 1 near y_t = 0), as in Drake.
// Regions are tested in Drake's order (docs/design/contact-models.md §2.2): stiction if y_r <= mu
// y_n; else sliding if -mu_hat y_r < y_n < y_r / mu (y_r / mu = +inf when mu = 0); else no contact.

#include <Eigen/Dense>

namespace csim::solver {

/// Soft-norm regularization eps [N s] of the radial component (docs/design/contact-models.md §2.2).
inline constexpr double kFrictionConeSoftNorm = 1.0e-7;

/// Which analytic piece of the projection applies (docs/design/contact-models.md §2.2 table).
enum class FrictionConeRegion { kStiction, kSliding, kNoContact };

/// Constants of the projection that depend only on mu and R (computed once per step).
struct FrictionConeMetric {
  double mu = 0.0;        ///< friction coefficient [1] >= 0
  double R_t = 1.0;       ///< tangential regularization [1/kg] > 0
  double R_n = 1.0;       ///< normal regularization [1/kg] > 0
  double mu_hat = 0.0;    ///< mu R_t / R_n
  double f = 1.0;         ///< 1 / (1 + mu_tilde^2), mu_tilde = mu sqrt(R_t / R_n)
};

/// Builds the metric constants from mu [1] >= 0, R_t, R_n [1/kg] > 0 (docs/design/contact-models.md
/// §2.2).
FrictionConeMetric MakeFrictionConeMetric(double mu, double R_t, double R_n);

/// Result of one projection.
struct FrictionConeProjection {
  FrictionConeRegion region = FrictionConeRegion::kNoContact;
  Eigen::Vector3d gamma = Eigen::Vector3d::Zero();  ///< P_F(y) [N s]
  double cost = 0.0;  ///< ell_R = 1/2 ||gamma||_R^2 as a function of y (SAP eq. 35) [J]
  /// Soft radial norm of y [N s] and y_t / y_r: set in the sliding region only, the one
  /// whose gamma and G use them (0 elsewhere).
  double y_r = 0.0;
  Eigen::Vector2d t_hat = Eigen::Vector2d::Zero();
};

/// The region of y (contact frame, [N s]) alone, as ProjectOntoFrictionCone finds it (the same
/// soft norm and tests), without forming the projection.
FrictionConeRegion ClassifyFrictionCone(const FrictionConeMetric& m, const Eigen::Vector3d& y);

/// Projects y (contact frame, [N s]) onto the friction cone in the R norm (SAP eq. 23),
/// with the analytic formulas of docs/design/contact-models.md §2.2 and the cost of SAP eq. 35.
FrictionConeProjection ProjectOntoFrictionCone(const FrictionConeMetric& m,
                                               const Eigen::Vector3d& y);

/// G = -d gamma / d v_c = (d P_F / d y) R^{-1} (SAP eq. 37, docs/design/contact-models.md §2.3) for
/// the region of `p` (the projection of the same y). Symmetric PSD, [kg].
Eigen::Matrix3d CalcFrictionConeHessian(const FrictionConeMetric& m,
                                        const FrictionConeProjection& p);

/// d^T G d for the G of CalcFrictionConeHessian, in closed form (the line search needs
/// only this curvature along its direction): R^-1 in stiction; mu gamma_n / (R_t y_r)
/// (|d_t|^2 - (t.d_t)^2) + f / R_n (mu t.d_t + d_n)^2 when sliding; 0 out of contact.
double CalcFrictionConeCurvature(const FrictionConeMetric& m, const FrictionConeProjection& p,
                                 const Eigen::Vector3d& d);

}  // namespace csim::solver
