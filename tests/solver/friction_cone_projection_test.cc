// The analytic R-norm projection onto the friction cone (docs/design/contact-models.md §2.2)
// against a brute-force minimisation over the cone, the KKT conditions of the projection, G against
// finite differences of the projection, the mu = 0 special case, and the root-free region test
// against the root test at the borders.

#include "engine/solver/friction_cone_projection.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

namespace csim::solver {
namespace {

using Eigen::Vector3d;

// 1/2 (g - y)^T R (g - y).
double Distance(const FrictionConeMetric& m, const Vector3d& g, const Vector3d& y) {
  const Vector3d d = g - y;
  return 0.5 * (m.R_t * d.head<2>().squaredNorm() + m.R_n * d[2] * d[2]);
}

// Best point on the ray gamma = s (mu cos t, mu sin t, 1), s >= 0 (the cost is quadratic
// in s, so the minimiser along the ray is closed form).
Vector3d BestOnRay(const FrictionConeMetric& m, const Vector3d& y, double t) {
  const Vector3d dir(m.mu * std::cos(t), m.mu * std::sin(t), 1.0);
  const Vector3d R(m.R_t, m.R_t, m.R_n);
  const double s = std::max(0.0, dir.dot(R.cwiseProduct(y)) / dir.dot(R.cwiseProduct(dir)));
  return s * dir;
}

// Brute force: y itself if inside F; otherwise the best point of the cone's surface, found
// by dense sampling of the angle then golden-section refinement (independent of the
// analytic formulas under test).
Vector3d BruteForceProjection(const FrictionConeMetric& m, const Vector3d& y) {
  if (y.head<2>().norm() <= m.mu * y[2]) return y;
  auto cost = [&](double t) { return Distance(m, BestOnRay(m, y, t), y); };
  const int kSamples = 720;
  int best = 0;
  for (int i = 1; i < kSamples; ++i)
    if (cost(2 * M_PI * i / kSamples) < cost(2 * M_PI * best / kSamples)) best = i;
  double a = 2 * M_PI * (best - 1) / kSamples, b = 2 * M_PI * (best + 1) / kSamples;
  const double r = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 100; ++it) {
    const double c = b - r * (b - a), d = a + r * (b - a);
    if (cost(c) < cost(d)) b = d; else a = c;
  }
  return BestOnRay(m, y, 0.5 * (a + b));
}

// A random y in the requested region, at least `margin` (relative) away from its borders.
Vector3d RandomY(const FrictionConeMetric& m, FrictionConeRegion region, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double angle = 2 * M_PI * u(rng);
  const double y_r = 0.1 + 2.0 * u(rng);
  const Vector3d t(std::cos(angle), std::sin(angle), 0.0);
  double y_n = 0.0;
  const double lo = -m.mu_hat * y_r, hi = y_r / m.mu;  // region II is lo < y_n < hi
  switch (region) {
    case FrictionConeRegion::kStiction: y_n = hi * (1.05 + 2.0 * u(rng)); break;
    case FrictionConeRegion::kSliding: y_n = lo + (hi - lo) * (0.05 + 0.9 * u(rng)); break;
    case FrictionConeRegion::kNoContact: y_n = lo - (0.05 + 2.0 * u(rng)) * (hi - lo); break;
  }
  return y_r * t + Vector3d(0, 0, y_n);
}

FrictionConeMetric RandomMetric(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  return MakeFrictionConeMetric(0.1 + 1.5 * u(rng), std::pow(10.0, -3 + 3 * u(rng)),
                                std::pow(10.0, -2 + 2 * u(rng)));
}

constexpr FrictionConeRegion kRegions[] = {FrictionConeRegion::kStiction,
                                           FrictionConeRegion::kSliding,
                                           FrictionConeRegion::kNoContact};

TEST_CASE("Friction cone projection matches a brute-force R-norm projection", "[solver]") {
  std::mt19937 rng(7);
  for (FrictionConeRegion region : kRegions) {
    for (int trial = 0; trial < 100; ++trial) {
      const FrictionConeMetric m = RandomMetric(rng);
      const Vector3d y = RandomY(m, region, rng);
      const FrictionConeProjection p = ProjectOntoFrictionCone(m, y);
      CHECK(p.region == region);
      const Vector3d expected = BruteForceProjection(m, y);
      CHECK((p.gamma - expected).norm() <= 1e-6 * (1.0 + y.norm()));
      // The analytic answer is never worse than the brute-force one.
      CHECK(Distance(m, p.gamma, y) <= Distance(m, expected, y) + 1e-10);
      // Cost of SAP eq. 35 is 1/2 ||gamma||_R^2.
      CHECK(p.cost == Approx(0.5 * (m.R_t * p.gamma.head<2>().squaredNorm() +
                                    m.R_n * p.gamma[2] * p.gamma[2])).epsilon(1e-9).margin(1e-14));
    }
  }
}

TEST_CASE("Friction cone projection satisfies the KKT conditions", "[solver]") {
  // gamma in F, z = R (y - gamma) in the polar cone (mu ||z_t|| <= -z_n), z . gamma = 0.
  std::mt19937 rng(11);
  for (FrictionConeRegion region : kRegions) {
    for (int trial = 0; trial < 200; ++trial) {
      const FrictionConeMetric m = RandomMetric(rng);
      const Vector3d y = RandomY(m, region, rng);
      const Vector3d g = ProjectOntoFrictionCone(m, y).gamma;
      const double scale = 1e-9 * (1.0 + y.norm());
      CHECK(g.head<2>().norm() <= m.mu * g[2] + scale);
      const Vector3d z = Vector3d(m.R_t, m.R_t, m.R_n).cwiseProduct(y - g);
      const double z_scale = 1e-9 * (1.0 + z.norm());
      CHECK(m.mu * z.head<2>().norm() <= -z[2] + z_scale);
      CHECK(std::abs(z.dot(g)) <= z_scale * (1.0 + g.norm()));
    }
  }
}

TEST_CASE("Friction cone projection is continuous across region boundaries", "[solver]") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 100; ++trial) {
    const FrictionConeMetric m = RandomMetric(rng);
    const double y_r = 0.5 + std::uniform_real_distribution<double>(0, 1)(rng);
    // On the boundary of F (y_r = mu y_n): stiction by Drake's order, gamma = y.
    const Vector3d on_cone(y_r, 0.0, y_r / m.mu);
    const FrictionConeProjection p1 = ProjectOntoFrictionCone(m, on_cone);
    CHECK((p1.gamma - on_cone).norm() <= 1e-12 * on_cone.norm());
    CHECK((p1.gamma - BruteForceProjection(m, on_cone)).norm() <= 1e-6 * on_cone.norm());
    // On the boundary of the polar cone (y_n = -mu_hat y_r): gamma = 0.
    const Vector3d on_polar(0.0, y_r, -m.mu_hat * y_r);
    const FrictionConeProjection p2 = ProjectOntoFrictionCone(m, on_polar);
    CHECK(p2.gamma.norm() <= 1e-12 * on_polar.norm());
    CHECK(BruteForceProjection(m, on_polar).norm() <= 1e-6 * on_polar.norm());
  }
}

TEST_CASE("Friction cone projection with mu = 0 keeps only the normal impulse", "[solver]") {
  const FrictionConeMetric m = MakeFrictionConeMetric(0.0, 1e-3, 0.2);
  CHECK(m.mu_hat == 0.0);
  CHECK(m.f == 1.0);
  const FrictionConeProjection pressed = ProjectOntoFrictionCone(m, Vector3d(3.0, -1.0, 2.0));
  CHECK(pressed.region == FrictionConeRegion::kSliding);
  CHECK(pressed.gamma.isApprox(Vector3d(0, 0, 2.0)));
  const Eigen::Matrix3d G = CalcFrictionConeHessian(m, pressed);
  CHECK(G.isApprox(Vector3d(0, 0, 1.0 / 0.2).asDiagonal().toDenseMatrix()));
  const FrictionConeProjection apart = ProjectOntoFrictionCone(m, Vector3d(3.0, -1.0, -2.0));
  CHECK(apart.region == FrictionConeRegion::kNoContact);
  CHECK(apart.gamma.isZero());
  CHECK(CalcFrictionConeHessian(m, apart).isZero());
}

TEST_CASE("Friction cone G equals the projection's Jacobian times R^-1", "[solver]") {
  // G = (d P_F / d y) R^{-1} (SAP eq. 37), by central differences in each region.
  std::mt19937 rng(5);
  for (FrictionConeRegion region : kRegions) {
    for (int trial = 0; trial < 100; ++trial) {
      const FrictionConeMetric m = RandomMetric(rng);
      const Vector3d y = RandomY(m, region, rng);
      const FrictionConeProjection p = ProjectOntoFrictionCone(m, y);
      const Eigen::Matrix3d G = CalcFrictionConeHessian(m, p);
      Eigen::Matrix3d dP;
      const double h = 1e-6 * y.norm();
      for (int j = 0; j < 3; ++j) {
        Vector3d yp = y, ym = y;
        yp[j] += h;
        ym[j] -= h;
        dP.col(j) = (ProjectOntoFrictionCone(m, yp).gamma -
                     ProjectOntoFrictionCone(m, ym).gamma) / (2 * h);
      }
      const Eigen::Matrix3d G_fd = dP * Vector3d(1 / m.R_t, 1 / m.R_t, 1 / m.R_n).asDiagonal();
      CHECK((G - G_fd).norm() <= 1e-6 * (1.0 + G.norm()));
      CHECK((G - G.transpose()).norm() <= 1e-12 * (1.0 + G.norm()));
      CHECK(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(G).eigenvalues().minCoeff() >=
            -1e-10 * (1.0 + G.norm()));
    }
  }
}

TEST_CASE("Friction cone curvature d^T G d in closed form", "[solver]") {
  // Against the quadratic form of G, and against central differences of the projection
  // along the direction: y = -R^-1 (v_c + ...), so d^T G d = d^T (dP/dy) R^-1 d.
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0.0, 1.0);
  for (FrictionConeRegion region : kRegions) {
    for (int trial = 0; trial < 100; ++trial) {
      const FrictionConeMetric m = RandomMetric(rng);
      const Vector3d y = RandomY(m, region, rng);
      const Vector3d d(n(rng), n(rng), n(rng));
      const FrictionConeProjection p = ProjectOntoFrictionCone(m, y);
      const double c = CalcFrictionConeCurvature(m, p, d);
      const Eigen::Matrix3d G = CalcFrictionConeHessian(m, p);
      CHECK(c == Approx(d.dot(G * d)).epsilon(1e-12).margin(1e-12 * G.norm() * d.squaredNorm()));
      const Vector3d Rinv_d(d[0] / m.R_t, d[1] / m.R_t, d[2] / m.R_n);
      const double h = 1e-6 * y.norm() / Rinv_d.norm();
      const double c_fd = d.dot(ProjectOntoFrictionCone(m, y + h * Rinv_d).gamma -
                                ProjectOntoFrictionCone(m, y - h * Rinv_d).gamma) / (2 * h);
      CHECK(c == Approx(c_fd).epsilon(1e-5).margin(1e-6 * G.norm() * d.squaredNorm()));
      CHECK(c >= 0.0);
    }
  }
}

TEST_CASE("Friction cone sliding impulse lies exactly on the cone", "[solver]") {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 100; ++trial) {
    const FrictionConeMetric m = RandomMetric(rng);
    const Vector3d y = RandomY(m, FrictionConeRegion::kSliding, rng);
    const Vector3d g = ProjectOntoFrictionCone(m, y).gamma;
    // ||t_hat|| = ||y_t|| / sqrt(||y_t||^2 + eps^2): exact up to the soft norm.
    const double t = y.head<2>().norm();
    const double soft = t / std::sqrt(t * t + kFrictionConeSoftNorm * kFrictionConeSoftNorm);
    CHECK(g.head<2>().norm() == Approx(m.mu * g[2] * soft).epsilon(1e-14));
  }
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

// docs/design/contact-models.md §2.2's region test written out with the root: y_r = sqrt(||y_t||^2
// + eps^2), stiction if y_r <= mu y_n, else sliding if -mu_hat y_r < y_n < y_r / mu, else no
// contact.
FrictionConeRegion RegionWithRoot(const FrictionConeMetric& m, const Vector3d& y) {
  const double y_r =
      std::sqrt(y.head<2>().squaredNorm() + kFrictionConeSoftNorm * kFrictionConeSoftNorm);
  if (y_r <= m.mu * y[2]) return FrictionConeRegion::kStiction;
  const bool below_cone = m.mu == 0.0 || y[2] < y_r / m.mu;
  if (-m.mu_hat * y_r < y[2] && below_cone) return FrictionConeRegion::kSliding;
  return FrictionConeRegion::kNoContact;
}

TEST_CASE("Friction cone regions are the root test's, to the last ulp at both borders",
          "[solver]") {
  // The classification skips the root when squared values decide; within round-off of a
  // border it must still agree with the root test, bit for bit (y is walked across each
  // border one ulp at a time).
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int checked = 0, per_region[3] = {0, 0, 0};
  for (int trial = 0; trial < 200; ++trial) {
    const FrictionConeMetric m = trial % 10 == 0 ? MakeFrictionConeMetric(0.0, 1e-3, 0.2)
                                                 : RandomMetric(rng);
    const double angle = 2 * M_PI * u(rng);
    const double y_r = std::pow(10.0, -6 + 8 * u(rng));
    const Vector3d t(y_r * std::cos(angle), y_r * std::sin(angle), 0.0);
    const double y_r_soft =
        std::sqrt(t.squaredNorm() + kFrictionConeSoftNorm * kFrictionConeSoftNorm);
    const double borders[] = {m.mu > 0 ? y_r_soft / m.mu : 1.0, -m.mu_hat * y_r_soft, 0.0};
    for (double border : borders) {
      double y_n = border;
      for (int s = 0; s < 40; ++s) y_n = std::nextafter(y_n, -HUGE_VAL);
      for (int s = 0; s < 80; ++s, y_n = std::nextafter(y_n, HUGE_VAL)) {
        const Vector3d y = t + Vector3d(0, 0, y_n);
        const FrictionConeRegion expected = RegionWithRoot(m, y);
        REQUIRE(ClassifyFrictionCone(m, y) == expected);
        REQUIRE(ProjectOntoFrictionCone(m, y).region == expected);
        ++per_region[static_cast<int>(expected)];
        ++checked;
      }
    }
  }
  CHECK(checked == 200 * 3 * 80);
  // Every border was crossed: each region was met.
  for (int r = 0; r < 3; ++r) CHECK(per_region[r] > 0);
}

}  // namespace
}  // namespace csim::solver
