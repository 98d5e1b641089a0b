// CalcContactPiece and CalcContactPieceOf (the region query without the parameter
// derivatives, which the chain's matching asks of every perturbed assembly,
// trajectory_sensitivity.h) against CalcContactParameterDerivativesOf: the same region, kink
// distance and normal clamp, bit for bit (the region and clamp also without the kink
// distance), at random constraint velocities in every region and on the region boundaries
// (bisected to the last bit), for SAP (with and without friction, compliant and near-rigid)
// and the Hunt & Crossley approximations; ContactKindOf tells the kinds apart, and a
// constraint without contact parameters has no piece.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <utility>

#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_limit_constraint.h"
#include "engine/solver/step_sensitivity.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kDt = 0.01;  // [s]

SapFrictionConeParameters Sap(double mu, double stiffness) {
  SapFrictionConeParameters q;
  q.near_rigid_threshold = 1.0;
  q.stiction_sigma = 1.0e-3;
  q.mu = mu;
  q.stiffness = stiffness;
  q.dissipation_time = 0.01;
  q.phi0 = -1e-3;
  q.bias_velocity = Eigen::Vector3d(0.02, -0.01, 0.005);
  return q;
}

SapHuntCrossleyParameters HuntCrossley(HuntCrossleyApproximation approximation) {
  SapHuntCrossleyParameters q;
  q.approximation = approximation;
  q.mu = 0.5;
  q.stiffness = 1e4;
  q.hunt_crossley = 2.0;
  q.phi0 = -1e-3;
  q.v_n0 = -0.1;
  q.stiction_tolerance = 1e-4;
  q.near_rigid_threshold = 1.0;
  q.position_theta = 1.0;
  q.bias_velocity = Eigen::Vector3d(0.01, -0.02, 0.003);
  return q;
}

// One clique of six velocities (A = I); constraint rows: 0-2 a SAP contact, 3-5 a Hunt &
// Crossley contact, 6 a joint limit (no contact parameter).
void Build(const SapFrictionConeParameters& sap, const SapHuntCrossleyParameters& hc,
           ContactProblem* problem) {
  problem->Clear(kDt);
  problem->AddClique(MatrixXd::Identity(6, 6));
  problem->SetFreeMotionVelocity(VectorXd::Zero(6));
  const MatrixXd J3 = MatrixXd::Identity(6, 6).topRows(3);
  problem->AddConstraint(0, J3, SapFrictionConeConstraint(sap));
  problem->AddConstraint(0, J3, SapHuntCrossleyConstraint(hc));
  SapLimitParameters limit;
  limit.q0 = 0.0;
  limit.lower = -0.1;
  problem->AddConstraint(0, MatrixXd::Identity(6, 6).topRows(1), SapLimitConstraint(limit));
}

// The piece by the cached kind and by the full derivatives must agree exactly; returns the
// piece ((region, normal_clamped), or (-1, -1) without one).
std::pair<int, int> CheckAgreement(const ContactProblem& problem, int k, const VectorXd& v_c) {
  const ContactKind kind = ContactKindOf(problem.constraint(k));
  ContactPiece piece;
  ContactParameterDerivatives d;
  const bool has_piece = CalcContactPieceOf(problem, k, kind, v_c.data(), &piece);
  const bool has_derivatives = CalcContactParameterDerivativesOf(problem, k, v_c.data(), &d);
  REQUIRE(has_piece == has_derivatives);
  if (!has_piece) return {-1, -1};
  INFO("constraint " << k << ", v_c " << v_c.segment(problem.entry(k).row_offset, 3).transpose());
  CHECK(piece.region == d.region);
  CHECK(piece.kink_distance == d.kink_distance);  // bit for bit
  CHECK(piece.normal_clamped == d.normal_clamped);
  // Without the kink distance: the same region and clamp.
  ContactPiece region_only;
  REQUIRE(CalcContactPieceOf(problem, k, kind, v_c.data(), &region_only,
                             /*with_kink_distance=*/false));
  CHECK(region_only.region == d.region);
  CHECK(region_only.normal_clamped == d.normal_clamped);
  CHECK(region_only.kink_distance == 0.0);
  return {static_cast<int>(piece.region), piece.normal_clamped ? 1 : 0};
}

// Random constraint velocities over six decades of speed, and the boundaries between the
// pieces of pairs of them (bisected along the segment until the ends are adjacent doubles
// of its parameter): the pieces visited per contact.
void CheckProblem(const ContactProblem& problem, unsigned seed, std::set<std::pair<int, int>>* sap,
                  std::set<std::pair<int, int>>* hc) {
  CHECK(ContactKindOf(problem.constraint(0)) == ContactKind::kSap);
  CHECK(ContactKindOf(problem.constraint(1)) == ContactKind::kHuntCrossley);
  CHECK(ContactKindOf(problem.constraint(2)) == ContactKind::kOther);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const int rows = problem.num_constraint_rows();
  const auto& sap_c = static_cast<const SapFrictionConeConstraint&>(problem.constraint(0));
  const auto& hc_c = static_cast<const SapHuntCrossleyConstraint&>(problem.constraint(1));
  // SAP: an un-projected impulse y up to 0.1 N s in each component, inverted to v_c
  // (y = -R^-1 (v_c + v_b - v_hat)); Hunt & Crossley: u_n about v_hat, slips from 0.01 to
  // 100 eps_s; the limit's row anything.
  const auto random_v_c = [&] {
    VectorXd v_c(rows);
    const Eigen::Vector3d y(0.1 * uniform(rng), 0.1 * uniform(rng), 0.1 * uniform(rng));
    v_c.head<3>() = Eigen::Vector3d(-sap_c.R_t() * y[0], -sap_c.R_t() * y[1],
                                    sap_c.v_hat_n() - sap_c.R_n() * y[2]) -
                    sap_c.parameters().bias_velocity;
    const double slip = hc_c.epsilon_s() * std::pow(10.0, 2.0 * uniform(rng));
    const double angle = M_PI * uniform(rng);
    const double v_hat = hc_c.v_hat(), scale = std::max(std::abs(v_hat), 0.01);
    v_c.segment<3>(3) = Eigen::Vector3d(slip * std::cos(angle), slip * std::sin(angle),
                                        v_hat + scale * uniform(rng)) -
                        hc_c.parameters().bias_velocity;
    v_c[6] = uniform(rng);
    return v_c;
  };
  const auto piece_of = [&](int k, const VectorXd& v_c) {
    ContactParameterDerivatives d;
    CalcContactParameterDerivativesOf(problem, k, v_c.data(), &d);
    return std::pair<int, int>(static_cast<int>(d.region), d.normal_clamped);
  };
  int boundaries = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const VectorXd a = random_v_c(), b = random_v_c();
    for (int k = 0; k < problem.num_constraints(); ++k) {
      const std::pair<int, int> piece_a = CheckAgreement(problem, k, a);
      CheckAgreement(problem, k, b);
      if (piece_a.first >= 0) (k == 0 ? sap : hc)->insert(piece_a);
      if (k == 2 || piece_of(k, a) == piece_of(k, b)) continue;
      // Bisect a -> b to the boundary of constraint k's pieces; check both ends.
      double lo = 0.0, hi = 1.0;
      while (lo < hi && std::nextafter(lo, hi) < hi) {
        const double mid = 0.5 * (lo + hi);
        if (piece_of(k, a + mid * (b - a)) == piece_of(k, a)) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      CheckAgreement(problem, k, a + lo * (b - a));
      CheckAgreement(problem, k, a + hi * (b - a));
      ++boundaries;
    }
  }
  CHECK(boundaries > 100);
}

TEST_CASE("contact piece: the region query agrees with the parameter derivatives",
          "[solver][sensitivity]") {
  using Approximation = HuntCrossleyApproximation;
  ContactProblem problem;
  // (region, normal clamped): none, stuck, sliding.
  const std::set<std::pair<int, int>> sap_pieces = {{0, 1}, {1, 0}, {2, 0}};
  SECTION("SAP compliant, lagged") {
    std::set<std::pair<int, int>> sap, hc;
    Build(Sap(0.7, 1e4), HuntCrossley(Approximation::kLagged), &problem);
    CheckProblem(problem, 1, &sap, &hc);
    CHECK(sap == sap_pieces);
    // Lagged friction acts past the clamp (mu n0 > 0): stuck or sliding, clamped or not.
    CHECK(hc == std::set<std::pair<int, int>>{{1, 0}, {1, 1}, {2, 0}, {2, 1}});
  }
  SECTION("SAP near-rigid, similar") {
    std::set<std::pair<int, int>> sap, hc;
    Build(Sap(0.7, std::numeric_limits<double>::infinity()), HuntCrossley(Approximation::kSimilar),
          &problem);
    CheckProblem(problem, 2, &sap, &hc);
    CHECK(sap == sap_pieces);
    CHECK(hc == std::set<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 0}});
  }
  SECTION("SAP frictionless, lagged_regularized") {
    std::set<std::pair<int, int>> sap, hc;
    SapHuntCrossleyParameters q = HuntCrossley(Approximation::kLagged);
    q.stiction_sigma = 1e-2;
    Build(Sap(0.0, 1e4), q, &problem);
    CheckProblem(problem, 3, &sap, &hc);
    CHECK(sap.count({0, 1}) == 1);
    CHECK(sap.size() >= 2);
  }
}

}  // namespace
}  // namespace csim::solver
