#include "engine/integrator/pairwise_contact_derivatives.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "engine/common/check.h"
#include "engine/contact/collision_setup.h"
#include "engine/contact/contact_problem_builder.h"
#include "engine/geometry/narrow_phase.h"
#include "engine/integrator/contact_point_derivatives.h"
#include "engine/integrator/fixed_axis_partials.h"
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

// Rotation by the rotation vector theta (exact for any angle): Rodrigues,
// I + a [theta]x + b [theta]x^2, a = sin(x) / x, b = (1 - cos(x)) / x^2. The differences'
// angles are tiny (h |dq| ~ 1e-7): there the series to x^4 is exact to rounding (the next
// terms are below x^6 / 5040) and costs no sine.
Matrix3d RotationOfVector(const Vector3d& theta) {
  const double x2 = theta.squaredNorm();
  if (x2 == 0.0) return Matrix3d::Identity();
  double a, b;
  if (x2 < 1e-6) {
    a = 1.0 - x2 / 6.0 + x2 * x2 / 120.0;
    b = 0.5 - x2 / 24.0 + x2 * x2 / 720.0;
  } else {
    const double x = std::sqrt(x2);
    a = std::sin(x) / x;
    b = (1.0 - std::cos(x)) / x2;
  }
  Matrix3d K;
  K << 0.0, -theta.z(), theta.y(), theta.z(), 0.0, -theta.x(), -theta.y(), theta.x(), 0.0;
  return Matrix3d::Identity() + a * K + b * (K * K);
}

// The derivative of diag(A)^-1 along the rotation dR = Exp(s theta) of a lone free body
// under theta = 0, whose A = X(dR) A X(dR)^T, X = diag(dR, dR), turns with it: each diagonal
// entry a moves by 2 ([theta]x A_b)_ii of its 3 x 3 block A_b, so 1 / a by -that / a^2. The
// translational block is m I, whose diagonal does not move.
Eigen::Matrix<double, 6, 1> InverseDiagonalDerivative(const Vector3d& theta,
                                                      const Eigen::Ref<const Eigen::MatrixXd>& A,
                                                      const double* inverse_diagonal) {
  Eigen::Matrix<double, 6, 1> d = Eigen::Matrix<double, 6, 1>::Zero();
  for (int i = 0; i < 3; ++i)
    d[i] = -2.0 * Vector3d::Unit(i).dot(theta.cross(A.block<3, 1>(0, i))) *
           inverse_diagonal[i] * inverse_diagonal[i];
  return d;
}

// gamma of a copy of the prepared constraint c with its w, phi0 or v_n0 changed: the central
// differences of Linearize (no closed form for the w of the near-rigid regime).
template <typename Constraint>
Vector3d GammaWith(const Constraint& c, double dt, double w, double phi0, double v_n0,
                   const double* v_c) {
  auto p = c.parameters();
  p.phi0 = phi0;
  if constexpr (std::is_same_v<Constraint, solver::SapHuntCrossleyConstraint>) p.v_n0 = v_n0;
  Constraint copy(p);
  copy.Prepare(dt, w);
  Vector3d gamma;
  copy.Calc(v_c, gamma.data(), nullptr, nullptr);
  return gamma;
}

}  // namespace

PairwiseContactDerivatives::PairwiseContactDerivatives(const multibody::Model& model) {
  covers_model_ = AllPairwiseBodies(model, &any_free_);
  for (const geometry::CollisionObjectSpec& spec : contact::MakeCollisionSpecs(model)) {
    X_BG_.push_back(spec.geometry.X_BG);
    shape_of_.push_back(spec.geometry.collide ? static_cast<int>(shapes_.size()) : -1);
    if (spec.geometry.collide) shapes_.emplace_back(spec.geometry);
  }
  body_map_.resize(model.num_bodies());
  twist_.resize(model.num_bodies());
  twist0_.resize(model.num_bodies());
  delassus_C_.resize(model.num_bodies());
  delassus_C_ready_.resize(model.num_bodies());
  for (int b = 0; b < model.num_bodies(); ++b) {
    BodyMap& m = body_map_[b];
    m.v_start = model.joints[b].v_start;
    if (!covers_model_ || m.v_start < 0) continue;
    m.identity = IsLoneFreeBody(model, b);
    m.nv = model.joints[b].nv;
    if (m.identity) {
      m.T = Eigen::Matrix<double, 6, 6>::Identity();
    } else {
      m.T = FixedAxisTwistMap(model, b);
    }
  }
}

bool PairwiseContactDerivatives::Prepare(const contact::ContactParameters& parameters,
                                         double theta, const ContactStepWorkspace& nominal,
                                         const std::vector<solver::ContactKind>& kind) {
  const contact::ContactProblemBuilder& builder = nominal.builder;
  const solver::ContactProblem& problem = nominal.problem;
  const std::vector<geometry::PointContact>& contacts = builder.contacts();
  const std::vector<double>& extra = builder.extra_margins();
  pairs_.clear();
  if (!covers(theta)) return false;
  diagonal_delassus_ = parameters.delassus_estimate == contact::DelassusEstimate::kDiagonal;
  kind_.assign(kind.begin(), kind.end());
  int constrained = 0;
  for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
    const geometry::PointContact& c = contacts[i];
    if (builder.polygon_of_contact(i) >= 0) return false;
    const int k = builder.contact_constraint(i);
    if (k >= 0) {
      ++constrained;
      // A contact with a fixed-axis body has its dense rows; its clique's A is read.
      const solver::ConstraintEntry& e = problem.entry(k);
      if (kind[k] == solver::ContactKind::kOther || e.num_rows != 3) return false;
      if (e.point_contact < 0)
        for (int x = 0; x < e.num_cliques; ++x)
          if (!problem.has_A(e.clique[x])) return false;
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
    pair.v_a = c.body_a >= 0 ? body_map_[c.body_a].v_start : -1;
    pair.v_b = c.body_b >= 0 ? body_map_[c.body_b].v_start : -1;
    pair.first = i;
    pair.count = 1;
    pair.margin = parameters.contact_margin + (c.body_a >= 0 ? extra[c.body_a] : 0.0) +
                  (c.body_b >= 0 ? extra[c.body_b] : 0.0);
    // The closed form of its points' derivatives, if any (contact_point_derivatives.h).
    pair.form = ClosedFormOf(shapes_[shape_of_[c.geometry_a]], pair.v_a < 0,
                             shapes_[shape_of_[c.geometry_b]], pair.v_b < 0);
    pairs_.push_back(pair);
  }
  // Every constraint of the problem is one of these contacts.
  return constrained == problem.num_constraints();
}

bool PairwiseContactDerivatives::Linearize(const ContactStepWorkspace& nominal,
                                           const multibody::Workspace& kinematics, double dt,
                                           const multibody::State& state0,
                                           const Eigen::VectorXd& v, const Eigen::VectorXd& v_c,
                                           const std::vector<solver::ContactParameterDerivatives>& derivatives) {
  const contact::ContactProblemBuilder& builder = nominal.builder;
  const solver::ContactProblem& problem = nominal.problem;
  if (static_cast<int>(linear_.size()) < problem.num_constraints())
    linear_.resize(problem.num_constraints());
  constexpr double kRelativeStep = 1e-6;  // of w and v_n0: smooth within a piece
  std::fill(delassus_C_ready_.begin(), delassus_C_ready_.end(), 0);
  for (const Pair& pair : pairs_)
    for (const int body : {pair.body_a, pair.body_b}) {
      if (body < 0 || body_map_[body].v_start < 0) continue;
      twist_[body] = Twist(body_map_[body], v);
      twist0_[body] = Twist(body_map_[body], state0.v);
    }
  for (Pair& pair : pairs_) {
    pair.active = false;
    const int bodies[2] = {pair.body_a, pair.body_b};
    const int v_start[2] = {pair.v_a, pair.v_b};
    for (int m = 0; m < pair.count; ++m) {
      const int k = builder.contact_constraint(pair.first + m);
      if (k < 0) continue;
      const geometry::PointContact& c = builder.contacts()[pair.first + m];
      ContactLinearization& L = linear_[k];
      L.R = builder.contact_frame(pair.first + m);
      L.vel.setZero();
      L.vel0.setZero();
      L.general_delassus = false;
      int cliques = 0;
      for (int x = 0; x < 2; ++x) {
        if (v_start[x] < 0) continue;
        const BodyMap& map = body_map_[bodies[x]];
        const double sign = x == 0 ? -1.0 : 1.0;
        const Vector3d& lever = L.lever[cliques++] = c.p_WC - kinematics.X_WB[bodies[x]].p;
        const Vector6& twist = twist_[bodies[x]];
        const Vector6& twist0 = twist0_[bodies[x]];
        L.vel += sign * (twist.tail<3>() + twist.head<3>().cross(lever));
        L.vel0 += sign * (twist0.tail<3>() + twist0.head<3>().cross(lever));
        L.general_delassus = L.general_delassus || !map.identity;
      }
      const solver::ConstraintEntry& e = problem.entry(k);
      const double* vc = v_c.data() + e.row_offset;
      const double w = e.delassus;
      if (L.general_delassus) {
        // W = sum_x J_x C_x J_x^T with the builder's C_x: a fixed-axis tree's A^-1 (its exact
        // block, contact_problem_builder.h) unless the diagonal recipe is asked for; a free
        // body's diag(A)^-1. Checked against the problem's w.
        L.W.setZero();
        for (int side = 0; side < cliques; ++side) {
          const int x = cliques == 2 ? side : (v_start[0] >= 0 ? 0 : 1);
          const BodyMap& map = body_map_[bodies[x]];
          const int clique = e.clique[side];
          // C is the body's for the step: formed at its first such contact.
          auto& C = delassus_C_[bodies[x]];
          if (!delassus_C_ready_[bodies[x]]) {
            if (map.identity || diagonal_delassus_) {
              C = Eigen::Map<const Eigen::VectorXd>(problem.inverse_diagonal_of_A(clique),
                                                    map.nv)
                      .asDiagonal();
            } else {
              C = SmallInverse(problem.A(clique));
            }
            delassus_C_ready_[bodies[x]] = 1;
          }
          const Eigen::Matrix<double, 3, Eigen::Dynamic, 0, 3, 6> J =
              map.T.bottomRows<3>() - math::Skew(L.lever[side]) * map.T.topRows<3>();
          const Eigen::Matrix<double, Eigen::Dynamic, 3, 0, 6, 3> Y = C * J.transpose();
          L.W.noalias() += J * Y;
          L.Z[side].noalias() = map.T.topRows<3>() * Y;
        }
        if (!(std::abs(L.W.norm() / 3.0 - w) <= 1e-10 * w)) return false;
      }
      const double hw = kRelativeStep * w;
      Vector3d gamma;
      Eigen::Matrix3d G;
      L.dgamma_dvn0.setZero();
      if (kind_[k] == solver::ContactKind::kSap) {
        const auto& sap = static_cast<const solver::SapFrictionConeConstraint&>(problem.constraint(k));
        sap.Calc(vc, gamma.data(), G.data(), nullptr);
        L.dgamma_dphi0 = derivatives[k].d_phi0;
        const solver::ContactRegion region = derivatives[k].region;
        if (region == solver::ContactRegion::kStiction) {
          // gamma = y = -R^-1 (u - v_hat), R_t = sigma w, R_n proportional to w when the
          // near-rigid term wins (else w-free): each such row goes as 1 / w.
          L.dgamma_dw = -gamma / w;
          if (!derivatives[k].near_rigid) L.dgamma_dw[2] = 0.0;
        } else if (region == solver::ContactRegion::kNone) {
          L.dgamma_dw.setZero();
        } else {  // sliding: the projection's soft norm is not homogeneous in R
          const double phi0 = sap.parameters().phi0;
          L.dgamma_dw = (GammaWith(sap, dt, w + hw, phi0, 0.0, vc) -
                         GammaWith(sap, dt, w - hw, phi0, 0.0, vc)) / (2 * hw);
        }
      } else {
        const auto& hc = static_cast<const solver::SapHuntCrossleyConstraint&>(problem.constraint(k));
        hc.Calc(vc, gamma.data(), G.data(), nullptr);
        L.dgamma_dphi0 = derivatives[k].d_phi0;
        const double phi0 = hc.parameters().phi0, v_n0 = hc.parameters().v_n0;
        L.dgamma_dw = (GammaWith(hc, dt, w + hw, phi0, v_n0, vc) -
                       GammaWith(hc, dt, w - hw, phi0, v_n0, vc)) / (2 * hw);
        const double hv = kRelativeStep * std::max(1.0, std::abs(v_n0));
        L.dgamma_dvn0 = (GammaWith(hc, dt, w, phi0, v_n0 + hv, vc) -
                         GammaWith(hc, dt, w, phi0, v_n0 - hv, vc)) / (2 * hv);
      }
      L.dgamma_dvc = -G;
      L.f = L.R * gamma;
      L.active = gamma.any() || G.any() || L.dgamma_dphi0.any() || L.dgamma_dw.any() ||
                 L.dgamma_dvn0.any();
      pair.active = pair.active || L.active;
    }
  }
  return true;
}

bool PairwiseContactDerivatives::PerturbedPoints(const Pair& pair,
                                                 const multibody::Workspace& kinematics,
                                                 const Vector6* pose_tangent, double s,
                                                 std::vector<geometry::PointContact>* points) const {
  // A body's pose tangent (d theta, d o) moves its rotation by Exp(s d theta) from the left
  // (world axes) and its origin by s d o: exactly, for a lone free body
  // (configuration_tangent.h) and for a fixed-axis one, which turns about an axis through
  // its origin fixed in the world.
  math::RigidTransform X_WB[2];
  const int bodies[2] = {pair.body_a, pair.body_b};
  const int v_start[2] = {pair.v_a, pair.v_b};
  for (int x = 0; x < 2; ++x) {
    if (bodies[x] < 0) continue;  // the world: identity
    X_WB[x] = kinematics.X_WB[bodies[x]];
    if (v_start[x] < 0) continue;  // welded to the world
    const Vector6& tangent = pose_tangent[x];
    if (tangent.head<3>().any())
      X_WB[x].R = RotationOfVector(s * tangent.head<3>()) * X_WB[x].R;
    X_WB[x].p += s * tangent.tail<3>();
  }
  points->clear();
  geometry::CalcPairContacts(shapes_[shape_of_[pair.geometry_a]], X_WB[0] * X_BG_[pair.geometry_a],
                             shapes_[shape_of_[pair.geometry_b]], X_WB[1] * X_BG_[pair.geometry_b],
                             pair.margin, points);
  return static_cast<int>(points->size()) == pair.count;
}

PairwiseContactDerivatives::Outcome PairwiseContactDerivatives::AddDerivative(
    const ContactStepWorkspace& nominal, const multibody::Workspace& kinematics,
    const Eigen::Ref<const Eigen::VectorXd>& dq, const Eigen::Ref<const Eigen::VectorXd>& dv0,
    double h0, Scratch& scratch, Eigen::Ref<Eigen::VectorXd> dr) const {
  const contact::ContactProblemBuilder& builder = nominal.builder;
  const solver::ContactProblem& problem = nominal.problem;
  const std::vector<geometry::PointContact>& contacts = builder.contacts();
  Outcome outcome;
  for (const Pair& pair : pairs_) {
    if (!pair.active) continue;  // no impulse and none within reach: no term
    const int bodies[2] = {pair.body_a, pair.body_b};
    const int v_start[2] = {pair.v_a, pair.v_b};
    // Per side with velocities: the pose tangent of dq and the twist change of dv0 (its
    // twists at v and at the start are Linearize's, twist_ and twist0_).
    Vector6 pose_tangent[2], dtwist0[2];
    bool displaced[2] = {false, false}, moves[2] = {false, false};
    for (int x = 0; x < 2; ++x) {
      if (v_start[x] < 0) continue;
      const BodyMap& map = body_map_[bodies[x]];
      displaced[x] = Moves(map, dq);
      moves[x] = displaced[x] || Moves(map, dv0);
    }
    // A pair whose bodies the direction leaves in place keeps its term.
    if (!moves[0] && !moves[1]) continue;
    for (int x = 0; x < 2; ++x) {
      if (v_start[x] < 0) continue;
      const BodyMap& map = body_map_[bodies[x]];
      pose_tangent[x] = Twist(map, dq);
      dtwist0[x] = Twist(map, dv0);
    }
    // Each point's derivative: in closed form, else the narrow phase differenced (the top of
    // the header).
    std::vector<ContactPointDerivative>& dpoint = scratch.points;
    dpoint.assign(pair.count, ContactPointDerivative{});
    PairSide side[2];
    const int geometries[2] = {pair.geometry_a, pair.geometry_b};
    for (int x = 0; x < 2; ++x) {
      side[x].shape = &shapes_[shape_of_[geometries[x]]];
      side[x].X_WG = bodies[x] < 0 ? X_BG_[geometries[x]]
                                   : kinematics.X_WB[bodies[x]] * X_BG_[geometries[x]];
      if (v_start[x] < 0) continue;
      side[x].origin = kinematics.X_WB[bodies[x]].p;
      side[x].tangent = pose_tangent[x];
    }
    if ((displaced[0] || displaced[1]) &&
        !(analytic_geometry_ && pair.form.form != ContactPointForm::kDifferenced &&
          ClosedFormPointDerivatives(pair.form, side, &contacts[pair.first], pair.count,
                                     dpoint.data()))) {
      int level = 0;
      bool same_plus = false, same_minus = false;
      for (; level <= kRetries; ++level) {
        const double h = h0 / kDecade[level];
        same_plus = PerturbedPoints(pair, kinematics, pose_tangent, h, &scratch.plus);
        same_minus = PerturbedPoints(pair, kinematics, pose_tangent, -h, &scratch.minus);
        if (same_plus && same_minus) break;
      }
      // d of a point from points at t1 and t2 with weights: d = sum_i a_i (x(t_i) - x0).
      auto combine = [&](const std::vector<geometry::PointContact>* set[2], const double a[2],
                         bool relative) {
        for (int m = 0; m < pair.count; ++m) {
          const geometry::PointContact& c0 = contacts[pair.first + m];
          ContactPointDerivative& d = dpoint[m];
          for (int i = 0; i < 2; ++i) {
            if (a[i] == 0.0) continue;
            const geometry::PointContact& c = (*set[i])[m];
            d.p += a[i] * (relative ? Vector3d(c.p_WC - c0.p_WC) : c.p_WC);
            d.n += a[i] * (relative ? Vector3d(c.nhat_AB_W - c0.nhat_AB_W) : c.nhat_AB_W);
            d.phi0 += a[i] * (relative ? c.phi0 - c0.phi0 : c.phi0);
          }
        }
      };
      if (same_plus && same_minus) {
        const double h = h0 / kDecade[level];
        const std::vector<geometry::PointContact>* set[2] = {&scratch.plus, &scratch.minus};
        const double a[2] = {1.0 / (2 * h), -1.0 / (2 * h)};
        combine(set, a, false);
      } else if (same_plus || same_minus) {
        // One-sided, second order, from the matching side s: with x(t) a point at x0 + t D,
        // s (4 (x(s h1 / 2) - x0) - (x(s h1) - x0)) / h1 at h1 = h / 10 (the side matched at
        // h / 1000: the nearer steps do too unless the points change closer in, when the
        // first-order difference at h / 1000 is kept).
        ++outcome.one_sided;
        const double s = same_plus ? 1.0 : -1.0;
        const double h1 = h0 / kDecade[1];
        std::vector<geometry::PointContact>& last = same_plus ? scratch.plus : scratch.minus;
        std::vector<geometry::PointContact>& far = same_plus ? scratch.minus : scratch.plus;
        const bool same_far = PerturbedPoints(pair, kinematics, pose_tangent, s * h1, &far);
        const bool same_near =
            same_far &&
            PerturbedPoints(pair, kinematics, pose_tangent, 0.5 * s * h1, &scratch.near);
        if (same_far && same_near) {
          const std::vector<geometry::PointContact>* set[2] = {&scratch.near, &far};
          const double a[2] = {4.0 * s / h1, -s / h1};
          combine(set, a, true);
        } else {
          const std::vector<geometry::PointContact>* set[2] = {&last, &last};
          const double a[2] = {s / (h0 / kDecade[kRetries]), 0.0};
          combine(set, a, true);
        }
      } else {
        // Neither side keeps the points: each point moving with its bodies, the normal
        // fixed; phi0's derivative is then exact for smooth shapes (the distance's
        // envelope), the point's and the normal's approximate.
        ++outcome.unmatched;
        for (int m = 0; m < pair.count; ++m) {
          const geometry::PointContact& c = contacts[pair.first + m];
          const Vector3d moved[2] = {MaterialPointMotion(side[0], c.p_WC),
                                     MaterialPointMotion(side[1], c.p_WC)};
          dpoint[m].p = 0.5 * (moved[0] + moved[1]);
          dpoint[m].phi0 = c.nhat_AB_W.dot(moved[1] - moved[0]);
        }
      }
    }
    // Each contact's term -J^T gamma = -sign T^T [r x f; f] per side and its derivative. The
    // free sides' diag(A)^-1 and its derivative are the pair's (one clique per moving body,
    // in the builder's order A then B), found at its first contact with a term.
    const double* inverse_diagonal[2];
    Eigen::Matrix<double, 6, 1> dinverse[2] = {Vector6::Zero(), Vector6::Zero()};
    const double* dinverse_ptr[2] = {dinverse[0].data(), dinverse[1].data()};
    bool have_diagonals = false;
    for (int m = 0; m < pair.count; ++m) {
      const int k = builder.contact_constraint(pair.first + m);
      if (k < 0 || !linear_[k].active) continue;
      const ContactLinearization& L = linear_[k];
      const geometry::PointContact& c = contacts[pair.first + m];
      const ContactPointDerivative& d = dpoint[m];
      // The normal's derivative, kept perpendicular to it: the frame turns by
      // omega = n x dn (its turn about n moves no impulse: the friction is isotropic).
      const Vector3d n = c.nhat_AB_W;
      const Vector3d dn = d.n - n.dot(d.n) * n;
      const Vector3d omega = n.cross(dn);
      const solver::ConstraintEntry& e = problem.entry(k);
      const Vector3d* lever = L.lever;
      Vector3d dlever[2], dvel = Vector3d::Zero(), dvel0 = Vector3d::Zero();
      int cliques = 0;
      for (int x = 0; x < 2; ++x) {
        if (v_start[x] < 0) continue;
        const double sign = x == 0 ? -1.0 : 1.0;
        const int clique = e.clique[cliques];
        dlever[cliques] = d.p - pose_tangent[x].tail<3>();
        // At the fixed v, the point's velocity moves with its lever alone.
        dvel += sign * twist_[bodies[x]].head<3>().cross(dlever[cliques]);
        dvel0 += sign * (dtwist0[x].tail<3>() + dtwist0[x].head<3>().cross(lever[cliques]) +
                         twist0_[bodies[x]].head<3>().cross(dlever[cliques]));
        if (!have_diagonals && body_map_[bodies[x]].identity) {
          inverse_diagonal[cliques] = problem.inverse_diagonal_of_A(clique);
          dinverse[cliques] = InverseDiagonalDerivative(pose_tangent[x].head<3>(),
                                                        problem.A(clique),
                                                        inverse_diagonal[cliques]);
        }
        ++cliques;
      }
      CSIM_CHECK(cliques == e.num_cliques);
      have_diagonals = true;
      double dw;
      if (L.general_delassus) {
        // dW = sum_x (-[dr_x]x Z_x + Z_x^T [dr_x]x + a free body's X diag(dC_w) X^T),
        // X = -[r_x]x; dw = <W, dW>_F / (3 |W|_F).
        Matrix3d dW = Matrix3d::Zero();
        int side = 0;
        for (int x = 0; x < 2; ++x) {
          if (v_start[x] < 0) continue;
          const Matrix3d S = math::Skew(dlever[side]);
          dW += -S * L.Z[side] + L.Z[side].transpose() * S;
          if (body_map_[bodies[x]].identity) {
            const Matrix3d X = -math::Skew(lever[side]);
            dW += X * dinverse[side].head<3>().asDiagonal() * X.transpose();
          }
          ++side;
        }
        dw = L.W.cwiseProduct(dW).sum() / (3.0 * L.W.norm());
      } else {
        dw = solver::EstimatePointContactDelassusDerivative(cliques, inverse_diagonal,
                                                            dinverse_ptr, lever, dlever);
      }
      const double dvn0 = dn.dot(L.vel0) + n.dot(dvel0);
      const Vector3d dvc = L.R.transpose() * (dvel - omega.cross(L.vel));
      const Vector3d dgamma = L.dgamma_dvc * dvc + L.dgamma_dphi0 * d.phi0 +
                              L.dgamma_dw * dw + L.dgamma_dvn0 * dvn0;
      const Vector3d df = omega.cross(L.f) + L.R * dgamma;
      cliques = 0;
      for (int x = 0; x < 2; ++x) {
        if (v_start[x] < 0) continue;
        const double sign = x == 0 ? -1.0 : 1.0;
        Vector6 dwrench;
        dwrench << dlever[cliques].cross(L.f) + lever[cliques].cross(df), df;
        const BodyMap& map = body_map_[bodies[x]];
        if (map.identity) {
          dr.segment<6>(map.v_start) -= sign * dwrench;
        } else {
          dr.segment(map.v_start, map.nv).noalias() -= sign * (map.T.transpose() * dwrench);
        }
        ++cliques;
      }
    }
  }
  return outcome;
}

}  // namespace csim::integrator
