#include "engine/integrator/implicit_gyroscopic.h"

#include <cmath>
#include <limits>

#include "engine/math/rotation.h"
#include "engine/multibody/position_update.h"

namespace csim::integrator {
namespace {

using multibody::JointType;
using multibody::Model;

// The gyroscopic torque g(u) = u x D u [N m] in principal axes, D = diag(d).
Eigen::Vector3d Gyroscopic(const Eigen::Vector3d& d, const Eigen::Vector3d& u) {
  return u.cross(d.cwiseProduct(u));
}

// Newton's method, in principal axes, on F(u) = D (u - u_e) - dt (g(u0) - g((u0 + u) / 2))
// = 0, F quadratic with Jacobian D + dt/2 ([u_bar]x D - [D u_bar]x). It starts from the
// explicit step without its gyroscopic torque, u_e + dt D^-1 g(u0) (= u0 + dt D^-1 tau), not
// from u_e, which at w dt of order one the explicit torque throws far off, and each Newton
// step is halved until |F| decreases (the first version, started from the explicit step
// without halving, failed on a link spinning at 5000 rad/s at dt 1e-3). The tolerance is
// round-off relative to the angular momenta involved; 2-4 iterations at w dt ~ 0.1.
bool SolveMidpoint(const Eigen::Vector3d& d, double dt, const Eigen::Vector3d& u0,
                   const Eigen::Vector3d& u_e, Eigen::Vector3d* u) {
  constexpr int kMaxIterations = 50, kMaxHalvings = 40;
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
  if (!u0.allFinite() || !u_e.allFinite()) {  // a blown-up step: FinishExplicit reports it
    *u = u_e;
    return true;
  }
  const Eigen::Vector3d g0 = Gyroscopic(d, u0);
  auto residual = [&](const Eigen::Vector3d& x) {
    return Eigen::Vector3d(d.cwiseProduct(x - u_e) - dt * (g0 - Gyroscopic(d, 0.5 * (u0 + x))));
  };
  *u = u_e + dt * g0.cwiseQuotient(d);
  Eigen::Vector3d F = residual(*u);
  const double scale_0 = d.cwiseProduct(u0).norm() + dt * g0.norm();
  for (int iteration = 0; iteration <= kMaxIterations; ++iteration) {
    const double scale = scale_0 + d.cwiseProduct(*u).norm();
    if (!std::isfinite(F.squaredNorm()) || !std::isfinite(scale)) return false;
    if (F.norm() <= 16.0 * kEpsilon * scale) return true;
    if (iteration == kMaxIterations) break;
    const Eigen::Vector3d u_bar = 0.5 * (u0 + *u);
    Eigen::Matrix3d J = 0.5 * dt * (math::Skew(u_bar) * d.asDiagonal());
    J -= 0.5 * dt * math::Skew(d.cwiseProduct(u_bar));
    J.diagonal() += d;
    // The closed-form 3 x 3 inverse, cheaper than a pivoted LU; the LU only when det J is
    // tiny against det D.
    Eigen::Matrix3d J_inverse;
    bool invertible = false;
    J.computeInverseWithCheck(J_inverse, invertible, 1e-12 * d.prod());
    const Eigen::Vector3d step = invertible ? Eigen::Vector3d(J_inverse * F)
                                            : Eigen::Vector3d(J.partialPivLu().solve(F));
    double t = 1.0;
    Eigen::Vector3d u_next = *u - step, F_next = residual(u_next);
    for (int h = 0; h < kMaxHalvings && !(F_next.norm() < F.norm()); ++h) {
      t *= 0.5;
      u_next = *u - t * step;
      F_next = residual(u_next);
    }
    if (!(F_next.norm() < F.norm())) return F.norm() <= 1e3 * kEpsilon * scale;  // stalled
    *u = u_next;
    F = F_next;
  }
  return false;
}

}  // namespace

bool IsIsotropic(const Eigen::Matrix3d& I) {
  return I(0, 1) == 0.0 && I(0, 2) == 0.0 && I(1, 2) == 0.0 && I(1, 0) == 0.0 &&
         I(2, 0) == 0.0 && I(2, 1) == 0.0 && I(0, 0) == I(1, 1) && I(1, 1) == I(2, 2);
}

std::vector<GyroscopicBody> ImplicitGyroscopicBodies(const Model& model) {
  const int nb = model.num_bodies();
  std::vector<char> has_children(nb, 0);
  for (int b = 0; b < nb; ++b)
    if (model.parent[b] >= 0) has_children[model.parent[b]] = 1;
  std::vector<GyroscopicBody> bodies;
  for (int b = 0; b < nb; ++b) {
    const multibody::Joint& joint = model.joints[b];
    const Eigen::Matrix3d& inertia = model.bodies[b].inertia;
    const bool identity_frame =
        joint.X_PJ.R == Eigen::Matrix3d::Identity() && joint.X_PJ.p == Eigen::Vector3d::Zero();
    const bool isotropic = IsIsotropic(inertia);
    const bool at_centre = model.bodies[b].com == Eigen::Vector3d::Zero();
    if (joint.type != JointType::kFree || joint.prescribed || joint.v_start < 0 ||
        model.parent[b] >= 0 || has_children[b] || !identity_frame || (isotropic && at_centre))
      continue;
    GyroscopicBody g;
    g.body = b;
    g.isotropic = isotropic;
    if (!isotropic) {
      const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(inertia);
      g.moments = principal.eigenvalues();
      g.R_BP = principal.eigenvectors();
      // A rotation, not a reflection: cross products (the gyroscopic torque) change sign
      // under a reflection.
      if (g.R_BP.determinant() < 0.0) g.R_BP.col(2) = -g.R_BP.col(2);
    }
    bodies.push_back(g);
  }
  return bodies;
}

bool ApplyImplicitGyroscopic(const Model& model, const std::vector<GyroscopicBody>& bodies,
                             const multibody::Workspace& mb, double dt, double theta_q,
                             const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                             Eigen::VectorXd* v_star, Eigen::VectorXd* k) {
  bool ok = true;
  for (const GyroscopicBody& g : bodies) {
    const multibody::Joint& joint = model.joints[g.body];
    const int o = joint.v_start;  // w (world), then v_o (world)
    const Eigen::Matrix3d& R0 = mb.X_WB[g.body].R;
    const Eigen::Vector3d w0 = v0.segment<3>(o);
    const Eigen::Vector3d w_e = v_star->segment<3>(o), v_e = v_star->segment<3>(o + 3);
    // The angular velocity, from the midpoint torque (an isotropic inertia has none).
    Eigen::Vector3d w = w_e;
    if (!g.isotropic) {
      const Eigen::Matrix3d R_WP = R0 * g.R_BP;
      const Eigen::Vector3d u_e = R_WP.transpose() * w_e;
      Eigen::Vector3d u;
      ok = SolveMidpoint(g.moments, dt, R_WP.transpose() * w0, u_e, &u) && ok;
      w = w_e + R_WP * (u - u_e);
    }
    // The origin's velocity. The centre of mass moves with v_com = v_e + w_e x c0 + dt w0 x
    // (w0 x c0): the explicit step's, without its centripetal term (the forces act on the
    // centre of mass; the centripetal term only tracks where the origin goes). The origin
    // then gets v_com - w x c1, with c1 the lever after the step's rotation (the position
    // update's own quaternion), so that the next step finds the centre of mass moving at
    // v_com: the centre of mass's velocity is then carried exactly from step to step.
    const Eigen::Vector3d& c_B = model.bodies[g.body].com;
    Eigen::Vector3d v = v_e;  // an origin at the centre of mass keeps the explicit step's
    if (c_B != Eigen::Vector3d::Zero()) {
      const Eigen::Vector3d c0 = R0 * c_B;
      const Eigen::Vector3d v_com = v_e + w_e.cross(c0) + dt * w0.cross(w0.cross(c0));
      const Eigen::Vector4d q1 = multibody::IntegrateQuaternion(
          joint, q0.segment<4>(joint.q_start), theta_q * w + (1 - theta_q) * w0, dt, 0.0);
      v = v_com - w.cross(math::RotationFromQuaternion(q1) * c_B);
    }
    v_star->segment<3>(o) = w;
    v_star->segment<3>(o + 3) = v;
    // k carries the change, so that M (v* - v0) - dt k stays the explicit step's residual.
    Eigen::Matrix<double, 6, 1> dv;
    dv << w - w_e, v - v_e;
    const int block = mb.M.block_of(o);
    const int first = mb.M.range(block).start;
    k->segment<6>(o) += mb.M.block(block).block<6, 6>(o - first, o - first) * dv / dt;
  }
  return ok;
}

}  // namespace csim::integrator
