#include "engine/integrator/implicit_gyroscopic.h"

#include <cmath>
#include <limits>

#include "engine/math/rotation.h"

namespace csim::integrator {
namespace {

using multibody::JointType;
using multibody::Model;

bool IsIsotropic(const Eigen::Matrix3d& I) {
  return I(0, 1) == 0.0 && I(0, 2) == 0.0 && I(1, 2) == 0.0 && I(1, 0) == 0.0 &&
         I(2, 0) == 0.0 && I(2, 1) == 0.0 && I(0, 0) == I(1, 1) && I(1, 1) == I(2, 2);
}

// The gyroscopic torque g(w) = w x I w [N m] and its derivative dg/dw = [w]x I - [I w]x.
Eigen::Vector3d Gyroscopic(const Eigen::Matrix3d& I, const Eigen::Vector3d& w) {
  return w.cross(I * w);
}

// Newton's method on F(w) = I (w - w_e) - dt (g(w0) - g((w0 + w) / 2)) = 0, F quadratic
// with Jacobian I + dt/2 dg/dw(w_bar). It starts from the explicit step without its
// gyroscopic torque, w_e + dt I^-1 g(w0) (= w0 + dt I^-1 tau), not from w_e, which at w dt
// of order one the explicit torque throws far off, and each Newton step is halved until |F|
// decreases (the first version, started from w_e without halving, failed on a link spinning
// at 5000 rad/s at dt 1e-3). The tolerance is round-off relative to the angular momenta
// involved; 2-4 iterations at w dt ~ 0.1.
bool SolveMidpoint(const Eigen::Matrix3d& I, double dt, const Eigen::Vector3d& w0,
                   const Eigen::Vector3d& w_e, Eigen::Vector3d* w) {
  constexpr int kMaxIterations = 50, kMaxHalvings = 40;
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
  if (!w0.allFinite() || !w_e.allFinite()) {  // a blown-up step: FinishExplicit reports it
    *w = w_e;
    return true;
  }
  const Eigen::Vector3d g0 = Gyroscopic(I, w0);
  auto residual = [&](const Eigen::Vector3d& x) {
    const Eigen::Vector3d x_bar = 0.5 * (w0 + x);
    return Eigen::Vector3d(I * (x - w_e) - dt * (g0 - Gyroscopic(I, x_bar)));
  };
  *w = w_e + dt * I.llt().solve(g0);
  Eigen::Vector3d F = residual(*w);
  for (int iteration = 0; iteration <= kMaxIterations; ++iteration) {
    const double scale = (I * w0).norm() + (I * *w).norm() + dt * g0.norm();
    if (!std::isfinite(F.squaredNorm()) || !std::isfinite(scale)) return false;
    if (F.norm() <= 16.0 * kEpsilon * scale) return true;
    if (iteration == kMaxIterations) break;
    const Eigen::Vector3d w_bar = 0.5 * (w0 + *w);
    const Eigen::Matrix3d J = I + 0.5 * dt * (math::Skew(w_bar) * I - math::Skew(I * w_bar));
    const Eigen::Vector3d step = J.partialPivLu().solve(F);
    double t = 1.0;
    Eigen::Vector3d w_next = *w - step, F_next = residual(w_next);
    for (int h = 0; h < kMaxHalvings && !(F_next.norm() < F.norm()); ++h) {
      t *= 0.5;
      w_next = *w - t * step;
      F_next = residual(w_next);
    }
    if (!(F_next.norm() < F.norm())) return F.norm() <= 1e3 * kEpsilon * scale;  // stalled
    *w = w_next;
    F = F_next;
  }
  return false;
}

}  // namespace

std::vector<int> ImplicitGyroscopicBodies(const Model& model) {
  const int nb = model.num_bodies();
  std::vector<char> has_children(nb, 0);
  for (int b = 0; b < nb; ++b)
    if (model.parent[b] >= 0) has_children[model.parent[b]] = 1;
  std::vector<int> bodies;
  for (int b = 0; b < nb; ++b) {
    const multibody::Joint& joint = model.joints[b];
    const bool identity_frame =
        joint.X_PJ.R == Eigen::Matrix3d::Identity() && joint.X_PJ.p == Eigen::Vector3d::Zero();
    if (joint.type == JointType::kFree && !joint.prescribed && joint.v_start >= 0 &&
        model.parent[b] < 0 && !has_children[b] && identity_frame &&
        !IsIsotropic(model.bodies[b].inertia))
      bodies.push_back(b);
  }
  return bodies;
}

bool ApplyImplicitGyroscopic(const Model& model, const std::vector<int>& bodies,
                             const multibody::Workspace& mb, double dt,
                             const Eigen::VectorXd& v0, Eigen::VectorXd* v_star,
                             Eigen::VectorXd* k) {
  bool ok = true;
  for (const int b : bodies) {
    const int o = model.joints[b].v_start;  // w (world), then v_o (world)
    const Eigen::Matrix3d& R = mb.X_WB[b].R;
    const Eigen::Matrix3d I = R * model.bodies[b].inertia * R.transpose();
    const Eigen::Vector3d c_W = R * model.bodies[b].com;
    const Eigen::Vector3d w0 = v0.segment<3>(o);
    const Eigen::Vector3d w_e = v_star->segment<3>(o);
    Eigen::Vector3d w;
    ok = SolveMidpoint(I, dt, w0, w_e, &w) && ok;
    const Eigen::Vector3d dw = w - w_e;
    v_star->segment<3>(o) = w;
    v_star->segment<3>(o + 3) -= dw.cross(c_W);
    // I dw = dt (g(w0) - g(w_bar)) is the change of the torque about the centre of mass
    // (its generalized force on (w, v_o) is that torque and no force).
    k->segment<3>(o) += I * dw / dt;
  }
  return ok;
}

}  // namespace csim::integrator
