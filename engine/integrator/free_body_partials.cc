#include "engine/integrator/free_body_partials.h"

#include "engine/common/check.h"
#include "engine/integrator/implicit_gyroscopic.h"
#include "engine/math/rotation.h"
#include "engine/multibody/actuator_inputs.h"

namespace csim::integrator {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;
using multibody::JointType;
using multibody::Model;

// g'(x), the derivative of the gyroscopic torque g(x) = x x I x: [x]x I - [I x]x.
Matrix3d GyroscopicJacobian(const Matrix3d& I, const Vector3d& x) {
  return math::Skew(x) * I - math::Skew(I * x);
}

// One body's free motion at the step's start, with what its derivative along a direction
// reads (the notation of the header).
struct Linearization {
  double dt = 0.0, m = 0.0, theta_q = 0.0;
  Vector3d c, w0, I_w0, b, alpha, w_e, D_w, D_v, f_d;
  Matrix3d I, I_inverse;
  bool midpoint = false;  // w* from the implicit midpoint equation
  bool com = false;       // v* from the centre of mass's velocity and the rotated lever
  Vector3d w;             // w*
  Matrix3d J_inverse, K;  // the midpoint equation's IFT (midpoint)
  Vector3d a, c1;         // the position update's quaternion (1, a) and P(a) c (com)
  Matrix3d P;
  double n = 0.0;         // |a|^2
};

// (dw*, dv*) along a rotation dtheta and velocity changes (dw0, dv_o0).
void Directional(const Linearization& s, const Vector3d& dtheta, const Vector3d& dw0,
                 const Vector3d& dv_o0, Vector3d* dw, Vector3d* dv) {
  const double dt = s.dt;
  const Vector3d dc = dtheta.cross(s.c);
  // The explicit step: I alpha = b, with dI x = dtheta x I x - I (dtheta x x).
  const Vector3d dI_w0 = dtheta.cross(s.I_w0) - s.I * dtheta.cross(s.w0) + s.I * dw0;
  const Vector3d df_d = -s.D_v.cwiseProduct(dv_o0);
  const Vector3d db = -dw0.cross(s.I_w0) - s.w0.cross(dI_w0) - s.D_w.cwiseProduct(dw0) -
                      dc.cross(s.f_d) - s.c.cross(df_d);
  const Vector3d dalpha = s.I_inverse * (db - dtheta.cross(s.b)) + dtheta.cross(s.alpha);
  const Vector3d dw_e = dw0 + dt * dalpha;
  // d[w0 x (w0 x c)]
  const Vector3d dcentripetal = dw0.cross(s.w0.cross(s.c)) + s.w0.cross(dw0.cross(s.c)) +
                                s.w0.cross(s.w0.cross(dc));
  const Vector3d dv_e =
      dv_o0 + (dt / s.m) * df_d - dt * (dalpha.cross(s.c) + s.alpha.cross(dc)) - dt * dcentripetal;
  *dw = s.midpoint ? Vector3d(dtheta.cross(s.w) +
                              s.J_inverse * (s.I * (dw_e - dtheta.cross(s.w_e)) +
                                             s.K * (dw0 - dtheta.cross(s.w0))))
                   : dw_e;
  if (!s.com) {
    *dv = dv_e;
    return;
  }
  // v* = v_com - w* x P(a) c, v_com = v_e + w_e x c + dt w0 x (w0 x c).
  const Vector3d dv_com = dv_e + dw_e.cross(s.c) + s.w_e.cross(dc) + dt * dcentripetal;
  const Vector3d da = (dt / 2) * (s.theta_q * *dw + (1 - s.theta_q) * dw0);
  // P(a) = 1 + 2 ([a]x + [a]x^2) / (1 + |a|^2), varied along da and applied to c.
  const Vector3d a_c = s.a.cross(s.c);
  const Vector3d dP_c =
      (2 / (1 + s.n)) * (da.cross(s.c) + da.cross(a_c) + s.a.cross(da.cross(s.c))) -
      (4 * s.a.dot(da) / ((1 + s.n) * (1 + s.n))) * (a_c + s.a.cross(a_c));
  const Vector3d dc1 = dP_c + s.P * dc;
  *dv = dv_com - dw->cross(s.c1) - s.w.cross(dc1);
}

}  // namespace

bool AllLoneFreeBodies(const Model& model) {
  if (!model.loads.empty() || multibody::HasForceActuators(model)) return false;
  for (int b = 0; b < model.num_bodies(); ++b) {
    const multibody::Joint& joint = model.joints[b];
    const int p = model.parent[b];
    if (p >= 0) {
      // A child with velocities is in an articulated tree; a child without (welded or
      // prescribed) of a body with velocities makes that body's tree more than one body.
      if (joint.v_start >= 0 || model.joints[p].v_start >= 0) return false;
      continue;
    }
    if (joint.v_start < 0) continue;  // welded to the world or prescribed
    if (joint.type != JointType::kFree || joint.prescribed ||
        joint.X_PJ.R != Matrix3d::Identity())
      return false;
  }
  return true;
}

void PrepareFreeBodyPartials(const Model& model, const ThetaParameters& params, double dt,
                             const multibody::State& s0, const StepWorkspace& ws,
                             FreeBodyFreeMotionPartials* partials) {
  CSIM_CHECK(params.theta == 0.0 && AllLoneFreeBodies(model));
  const int nb = model.num_bodies();
  partials->gyroscopic.assign(nb, -1);
  if (params.gyroscopic == Gyroscopic::kImplicit) {
    const std::vector<GyroscopicBody>& list = ws.implicit_gyroscopic_bodies;
    for (int i = 0; i < static_cast<int>(list.size()); ++i) partials->gyroscopic[list[i].body] = i;
  }
  int count = 0;
  for (int b = 0; b < nb; ++b) count += model.joints[b].v_start >= 0;
  partials->bodies.resize(count);
  int index = 0;
  for (int b = 0; b < nb; ++b) {
    const multibody::Joint& joint = model.joints[b];
    if (joint.v_start < 0) continue;
    const multibody::Body& body = model.bodies[b];
    FreeBodyFreeMotionPartials::Body& out = partials->bodies[index++];
    const int o = joint.v_start;
    out.v_start = o;
    out.v_star = ws.v_star.segment<6>(o);

    Linearization s;
    s.dt = dt;
    s.m = body.mass;
    s.theta_q = params.theta_q;
    const Matrix3d R0 = math::RotationFromQuaternion(s0.q.segment<4>(joint.q_start));
    s.c = R0 * body.com;
    s.I = R0 * body.inertia * R0.transpose();
    s.I_inverse = s.I.inverse();
    s.w0 = s0.v.segment<3>(o);
    const Vector3d v_o0 = s0.v.segment<3>(o + 3);
    s.D_w.setZero();
    s.D_v.setZero();
    if (joint.damping.size() == 6) {
      s.D_w = joint.damping.head<3>();
      s.D_v = joint.damping.tail<3>();
    }
    // The explicit step (Newton-Euler at q0, v0 with the damping's force -D v0).
    s.f_d = -s.D_v.cwiseProduct(v_o0);
    s.I_w0 = s.I * s.w0;
    s.b = -s.w0.cross(s.I_w0) - s.D_w.cwiseProduct(s.w0) - s.c.cross(s.f_d);
    s.alpha = s.I_inverse * s.b;
    s.w_e = s.w0 + dt * s.alpha;
    s.w = out.v_star.head<3>();
    const int g = partials->gyroscopic[b];
    if (g >= 0) {
      const GyroscopicBody& gb = ws.implicit_gyroscopic_bodies[g];
      s.midpoint = !gb.isotropic;
      s.com = body.com != Vector3d::Zero();
    }
    if (s.midpoint) {
      const Vector3d w_bar = 0.5 * (s.w0 + s.w);
      const Matrix3d G_bar = GyroscopicJacobian(s.I, w_bar);
      s.J_inverse = (s.I + (0.5 * dt) * G_bar).inverse();
      s.K = dt * GyroscopicJacobian(s.I, s.w0) - (0.5 * dt) * G_bar;
    }
    if (s.com) {
      s.a = (dt / 2) * (params.theta_q * s.w + (1 - params.theta_q) * s.w0);
      s.n = s.a.squaredNorm();
      const Matrix3d S = math::Skew(s.a);
      s.P = Matrix3d::Identity() + (2 / (1 + s.n)) * (S + S * S);
      s.c1 = s.P * s.c;
    }

    // A = M(q0) (theta = 0: no stiffness or damping terms).
    const Matrix3d C = math::Skew(s.c);
    out.A.topLeftCorner<3, 3>() = s.I - s.m * C * C;
    out.A.topRightCorner<3, 3>() = s.m * C;
    out.A.bottomLeftCorner<3, 3>() = -s.m * C;
    out.A.bottomRightCorner<3, 3>() = s.m * Matrix3d::Identity();

    // The Jacobian, column by column along the unit directions.
    out.dv_star.setZero();
    Vector3d dw, dv;
    const Vector3d zero = Vector3d::Zero();
    for (int k = 0; k < 3; ++k) {
      const Vector3d e = Vector3d::Unit(k);
      Directional(s, e, zero, zero, &dw, &dv);
      out.dv_star.col(k) << dw, dv;
      Directional(s, zero, e, zero, &dw, &dv);
      out.dv_star.col(6 + k) << dw, dv;
      Directional(s, zero, zero, e, &dw, &dv);
      out.dv_star.col(9 + k) << dw, dv;
    }
  }
}

void ApplyFreeBodyPartials(const FreeBodyFreeMotionPartials& partials,
                           const Eigen::Ref<const Eigen::VectorXd>& v,
                           const Eigen::Ref<const Eigen::VectorXd>& dq,
                           const Eigen::Ref<const Eigen::VectorXd>& dv0,
                           Eigen::Ref<Eigen::VectorXd> dF, Eigen::Ref<Eigen::VectorXd> dv_star) {
  using Vector6 = Eigen::Matrix<double, 6, 1>;
  for (const FreeBodyFreeMotionPartials::Body& body : partials.bodies) {
    const int o = body.v_start;
    const Vector3d dtheta = dq.segment<3>(o);
    const Vector6 dv_b = body.dv_star.leftCols<3>() * dtheta +
                         body.dv_star.rightCols<6>() * dv0.segment<6>(o);
    dv_star.segment<6>(o) = dv_b;
    // dF = dA r - A dv*, dA = Omega A - A Omega, r = v - v*.
    const Vector6 r = v.segment<6>(o) - body.v_star;
    const Vector6 A_r = body.A * r;
    Vector6 y;
    y << dtheta.cross(r.head<3>()), dtheta.cross(r.tail<3>());
    y += dv_b;
    const Vector6 A_y = body.A * y;
    dF.segment<3>(o) = dtheta.cross(A_r.head<3>()) - A_y.head<3>();
    dF.segment<3>(o + 3) = dtheta.cross(A_r.tail<3>()) - A_y.tail<3>();
  }
}

}  // namespace csim::integrator
