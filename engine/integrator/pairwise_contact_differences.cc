#include "engine/integrator/pairwise_contact_differences.h"

#include <algorithm>
#include <cmath>

#include "engine/common/check.h"
#include "engine/contact/collision_setup.h"
#include "engine/contact/contact_problem_builder.h"
#include "engine/geometry/narrow_phase.h"
#include "engine/integrator/free_body_partials.h"
#include "engine/math/rotation.h"
#include "engine/solver/contact_parameter_derivatives.h"
#include "engine/solver/delassus_estimate.h"
#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_hunt_crossley_constraint.h"

namespace csim::integrator {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

constexpr int kRetries = 3;  // h / 10, h / 100, h / 1000, as the general rule
constexpr double kDecade[kRetries + 1] = {1.0, 10.0, 100.0, 1000.0};

// Rotation by the rotation vector theta (exact for any angle).
Matrix3d RotationOfVector(const Vector3d& theta) {
  const double angle = theta.norm();
  if (angle == 0.0) return Matrix3d::Identity();
  return math::RotationAboutAxis(theta / angle, angle);
}

// The diagonal of X(dR) A X(dR)^T, X = diag(dR, dR): A of a lone free body (theta = 0:
// M(q0) in world axes, which rotates with the body) at the rotated pose.
Eigen::Matrix<double, 6, 1> RotatedDiagonal(const Matrix3d& dR,
                                            const Eigen::Ref<const Eigen::MatrixXd>& A) {
  Eigen::Matrix<double, 6, 1> d;
  for (int block = 0; block < 2; ++block) {
    const Matrix3d Ab = A.block<3, 3>(3 * block, 3 * block);
    for (int i = 0; i < 3; ++i) d[3 * block + i] = dR.row(i) * Ab * dR.row(i).transpose();
  }
  return d;
}

}  // namespace

PairwiseContactDifferences::PairwiseContactDifferences(const multibody::Model& model)
    : lone_free_bodies_(AllLoneFreeBodies(model)) {
  for (const geometry::CollisionObjectSpec& spec : contact::MakeCollisionSpecs(model)) {
    X_BG_.push_back(spec.geometry.X_BG);
    shape_of_.push_back(spec.geometry.collide ? static_cast<int>(shapes_.size()) : -1);
    if (spec.geometry.collide) shapes_.emplace_back(spec.geometry);
  }
  for (const multibody::Joint& joint : model.joints) body_v_start_.push_back(joint.v_start);
}

bool PairwiseContactDifferences::Prepare(const contact::ContactParameters& parameters,
                                         const ContactStepWorkspace& nominal,
                                         const std::vector<solver::ContactKind>& kind) {
  const contact::ContactProblemBuilder& builder = nominal.builder;
  const solver::ContactProblem& problem = nominal.problem;
  const std::vector<geometry::PointContact>& contacts = builder.contacts();
  const std::vector<double>& extra = builder.extra_margins();
  pairs_.clear();
  if (!lone_free_bodies_) return false;
  kind_.assign(kind.begin(), kind.end());
  int constrained = 0;
  for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
    const geometry::PointContact& c = contacts[i];
    if (builder.polygon_of_contact(i) >= 0) return false;
    const int k = builder.contact_constraint(i);
    if (k >= 0) {
      ++constrained;
      if (kind[k] == solver::ContactKind::kOther || problem.entry(k).point_contact < 0)
        return false;
      // No known velocity (a prescribed body's): the rule rebuilds no bias.
      const Vector3d bias =
          kind[k] == solver::ContactKind::kSap
              ? static_cast<const solver::SapFrictionConeConstraint&>(problem.constraint(k))
                    .parameters()
                    .bias_velocity
              : static_cast<const solver::SapHuntCrossleyConstraint&>(problem.constraint(k))
                    .parameters()
                    .bias_velocity;
      if (bias != Vector3d::Zero()) return false;
    }
    if (!pairs_.empty() && pairs_.back().geometry_a == c.geometry_a &&
        pairs_.back().geometry_b == c.geometry_b) {
      ++pairs_.back().count;
      continue;
    }
    Pair pair;
    pair.geometry_a = c.geometry_a;
    pair.geometry_b = c.geometry_b;
    pair.body_a = c.body_a;
    pair.body_b = c.body_b;
    pair.v_a = c.body_a >= 0 ? body_v_start_[c.body_a] : -1;
    pair.v_b = c.body_b >= 0 ? body_v_start_[c.body_b] : -1;
    pair.first = i;
    pair.count = 1;
    pair.margin = parameters.contact_margin + (c.body_a >= 0 ? extra[c.body_a] : 0.0) +
                  (c.body_b >= 0 ? extra[c.body_b] : 0.0);
    pairs_.push_back(pair);
  }
  // Every constraint of the problem is one of these contacts.
  return constrained == problem.num_constraints();
}

bool PairwiseContactDifferences::EvaluatePair(
    const Pair& pair, const ContactStepWorkspace& nominal, const StepWorkspace& nominal_ws,
    double dt, const Eigen::VectorXd& v0, const Eigen::VectorXd& v,
    const Eigen::Ref<const Eigen::VectorXd>& dq, const Eigen::Ref<const Eigen::VectorXd>& dv0,
    double s, const std::vector<int>& piece, Scratch& scratch, Vector12* g) const {
  const contact::ContactProblemBuilder& builder = nominal.builder;
  const solver::ContactProblem& problem = nominal.problem;
  // Each side's pose, its rotation from the nominal one, its velocities at the start (v0)
  // and at the solution (v), at x0 + s D: a lone free body's tangent moves its rotation by
  // Exp(s dq_w) from the left (world axes) and its origin by s dq_v (configuration_tangent.h).
  struct Side {
    math::RigidTransform X_WB;
    Matrix3d dR = Matrix3d::Identity();
    Vector3d w0 = Vector3d::Zero(), u0 = Vector3d::Zero();  // start: angular, origin's
    Vector3d w = Vector3d::Zero(), u = Vector3d::Zero();    // solution
    bool moves = false;
    bool rotates = false;  // dR != 1
    Eigen::Matrix<double, 6, 1> inverse_diagonal;  // of A at the pose, once per pair
  };
  Side side[2];
  const int bodies[2] = {pair.body_a, pair.body_b};
  const int v_start[2] = {pair.v_a, pair.v_b};
  for (int x = 0; x < 2; ++x) {
    Side& d = side[x];
    if (bodies[x] < 0) continue;  // the world: X_WB = identity, at rest
    d.X_WB = nominal_ws.mb.X_WB[bodies[x]];
    if (v_start[x] < 0) continue;  // welded to the world
    const int o = v_start[x];
    d.moves = true;
    d.rotates = s != 0.0 && dq.segment<3>(o).any();
    if (d.rotates) d.dR = RotationOfVector(s * dq.segment<3>(o));
    d.X_WB.R = d.dR * d.X_WB.R;
    d.X_WB.p += s * dq.segment<3>(o + 3);
    d.w0 = v0.segment<3>(o) + s * dv0.segment<3>(o);
    d.u0 = v0.segment<3>(o + 3) + s * dv0.segment<3>(o + 3);
    d.w = v.segment<3>(o);
    d.u = v.segment<3>(o + 3);
  }
  const math::RigidTransform X_WA = side[0].X_WB * X_BG_[pair.geometry_a];
  const math::RigidTransform X_WBg = side[1].X_WB * X_BG_[pair.geometry_b];
  scratch.points.clear();
  geometry::CalcPairContacts(shapes_[shape_of_[pair.geometry_a]], X_WA,
                             shapes_[shape_of_[pair.geometry_b]], X_WBg, pair.margin,
                             &scratch.points);
  if (static_cast<int>(scratch.points.size()) != pair.count) return false;
  g->setZero();
  bool have_inverse = false;  // the sides' inverse diagonals of A, found at the first contact
  for (int m = 0; m < pair.count; ++m) {
    const int k = builder.contact_constraint(pair.first + m);
    if (k < 0) continue;
    const geometry::PointContact& c = scratch.points[m];
    const Matrix3d R_WC = contact::ContactFrame(c.nhat_AB_W);
    // The point contact's cliques in the builder's order (EmitContact): A then B, each
    // only when it has velocities; levers from the bodies' origins.
    const solver::ConstraintEntry& e = problem.entry(k);
    const double* inverse_diagonal[2];
    Vector3d lever[2];
    int n = 0;
    for (int x = 0; x < 2; ++x) {
      if (!side[x].moves) continue;
      CSIM_CHECK(n < e.num_cliques);
      if (!have_inverse) {  // a rotated body's diagonal of A rotates with it
        const int clique = e.clique[n];
        side[x].inverse_diagonal =
            side[x].rotates
                ? RotatedDiagonal(side[x].dR, problem.A(clique)).cwiseInverse().eval()
                : Eigen::Map<const Eigen::Matrix<double, 6, 1>>(problem.inverse_diagonal_of_A(clique));
      }
      inverse_diagonal[n] = side[x].inverse_diagonal.data();
      lever[n] = c.p_WC - side[x].X_WB.p;
      ++n;
    }
    have_inverse = true;
    CSIM_CHECK(n == e.num_cliques);
    const double w = solver::EstimatePointContactDelassus(n, inverse_diagonal, lever);
    // v_c = R^T (v_B(p) - v_A(p)) at the solution, and the normal velocity at the start.
    Vector3d velocity = Vector3d::Zero(), velocity0 = Vector3d::Zero();
    n = 0;
    for (int x = 0; x < 2; ++x) {
      if (!side[x].moves) continue;
      const double sign = x == 0 ? -1.0 : 1.0;
      velocity += sign * (side[x].u + side[x].w.cross(lever[n]));
      velocity0 += sign * (side[x].u0 + side[x].w0.cross(lever[n]));
      ++n;
    }
    const Vector3d v_c = R_WC.transpose() * velocity;
    Vector3d gamma;
    solver::ContactPiece at;
    const solver::ContactKind kind = kind_[k];
    if (kind == solver::ContactKind::kSap) {
      const auto& sap = static_cast<const solver::SapFrictionConeConstraint&>(problem.constraint(k));
      solver::SapFrictionConeParameters p = sap.parameters();
      p.phi0 = c.phi0;
      solver::SapFrictionConeConstraint constraint(p);
      constraint.Prepare(dt, w);
      constraint.Calc(v_c.data(), gamma.data(), nullptr, nullptr);
      at = solver::CalcContactPiece(constraint, v_c.data(), /*with_kink_distance=*/false);
    } else {
      const auto& hc = static_cast<const solver::SapHuntCrossleyConstraint&>(problem.constraint(k));
      solver::SapHuntCrossleyParameters p = hc.parameters();
      p.phi0 = c.phi0;
      p.v_n0 = c.nhat_AB_W.dot(velocity0);
      solver::SapHuntCrossleyConstraint constraint(p);
      constraint.Prepare(dt, w);
      constraint.Calc(v_c.data(), gamma.data(), nullptr, nullptr);
      at = solver::CalcContactPiece(constraint, v_c.data(), /*with_kink_distance=*/false);
    }
    if (solver::ContactPieceCode(kind, at) != piece[k]) return false;
    // r_C = -J^T gamma: -sign [r x f; f] per side, f = R gamma in world axes.
    const Vector3d f = R_WC * gamma;
    n = 0;
    for (int x = 0; x < 2; ++x) {
      if (!side[x].moves) continue;
      const double sign = x == 0 ? -1.0 : 1.0;
      g->segment<3>(6 * x) -= sign * lever[n].cross(f);
      g->segment<3>(6 * x + 3) -= sign * f;
      ++n;
    }
  }
  return true;
}

PairwiseContactDifferences::Outcome PairwiseContactDifferences::AddDerivative(
    const ContactStepWorkspace& nominal, const StepWorkspace& nominal_ws, double dt,
    const multibody::State& state0, const Eigen::VectorXd& v,
    const Eigen::Ref<const Eigen::VectorXd>& dq, const Eigen::Ref<const Eigen::VectorXd>& dv0,
    double h0, const std::vector<int>& piece, Scratch& scratch,
    Eigen::Ref<Eigen::VectorXd> dr) const {
  Outcome outcome;
  const Eigen::VectorXd& v0 = state0.v;
  for (const Pair& pair : pairs_) {
    // A pair whose bodies the direction leaves in place keeps its contribution.
    const bool moves_a = pair.v_a >= 0 && (dq.segment<6>(pair.v_a).any() ||
                                           dv0.segment<6>(pair.v_a).any());
    const bool moves_b = pair.v_b >= 0 && (dq.segment<6>(pair.v_b).any() ||
                                           dv0.segment<6>(pair.v_b).any());
    if (!moves_a && !moves_b) continue;
    Vector12 plus, minus, d;
    int level = 0;
    bool same_plus = false, same_minus = false;
    for (; level <= kRetries; ++level) {
      const double h = h0 / kDecade[level];
      same_plus = EvaluatePair(pair, nominal, nominal_ws, dt, v0, v, dq, dv0, h, piece,
                               scratch, &plus);
      same_minus = EvaluatePair(pair, nominal, nominal_ws, dt, v0, v, dq, dv0, -h, piece,
                                scratch, &minus);
      if (same_plus && same_minus) break;
    }
    if (same_plus && same_minus) {
      d = (plus - minus) / (2 * h0 / kDecade[level]);
    } else if (!same_plus && !same_minus) {
      // Across the pieces at the smallest step (the derivative of no single piece).
      ++outcome.unmatched;
      d = (plus - minus) / (2 * h0 / kDecade[kRetries]);
    } else {
      // One-sided, second order, from the matching side s: with g(t) the contribution at
      // x0 + t D, s (4 (g(s h1 / 2) - g0) - (g(s h1) - g0)) / h1 at h1 = h / 10 (the last
      // step tried is h / 1000, where that side matched: the nearer points match too unless
      // the pieces change closer in, when the first-order difference at h / 1000 is kept).
      ++outcome.one_sided;
      const double s = same_plus ? 1.0 : -1.0;
      const double h_last = h0 / kDecade[kRetries];
      const Vector12 last = same_plus ? plus : minus;
      Vector12 g0, far, near;
      // The nominal point itself can fall off its piece when J v, formed here, rounds across
      // a boundary the solver's v_c sat on: then the first-order difference across it.
      const bool same_0 =
          EvaluatePair(pair, nominal, nominal_ws, dt, v0, v, dq, dv0, 0.0, piece, scratch, &g0);
      const double h1 = h0 / kDecade[1];
      const bool same_far = same_0 && EvaluatePair(pair, nominal, nominal_ws, dt, v0, v, dq, dv0,
                                                   s * h1, piece, scratch, &far);
      const bool same_near = same_far && EvaluatePair(pair, nominal, nominal_ws, dt, v0, v, dq,
                                                      dv0, 0.5 * s * h1, piece, scratch, &near);
      if (same_far && same_near)
        d = (s / h1) * (4.0 * (near - g0) - (far - g0));
      else
        d = (s / h_last) * (last - g0);
    }
    if (pair.v_a >= 0) dr.segment<6>(pair.v_a) += d.head<6>();
    if (pair.v_b >= 0) dr.segment<6>(pair.v_b) += d.tail<6>();
  }
  return outcome;
}

}  // namespace csim::integrator
