#include "engine/integrator/free_body_partials.h"

#include "engine/common/check.h"
#include "engine/integrator/implicit_gyroscopic.h"
#include "engine/math/rotation.h"
#include "engine/multibody/actuator_inputs.h"
#include "engine/multibody/tree_topology.h"

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

using Body = FreeBodyFreeMotionPartials::Body;
using Vector6 = Eigen::Matrix<double, 6, 1>;

// (dw*, dv*) of body s along a rotation dtheta and velocity changes (dw0, dv_o0).
void Directional(const Body& s, double dt, double theta_q, const Vector3d& dtheta,
                 const Vector3d& dw0, const Vector3d& dv_o0, Vector3d* dw, Vector3d* dv) {
  // The explicit step: I alpha = b, b = -w0 x I w0 - D_w w0 + c x D_v v_o0.
  Vector3d db = Vector3d::Zero(), df_d = Vector3d::Zero(), dc = Vector3d::Zero();
  if (s.damped) {
    df_d = -s.D_v.cwiseProduct(dv_o0);
    db = -s.D_w.cwiseProduct(dw0);
  }
  if (!s.centred) {
    dc = dtheta.cross(s.c);
    if (s.damped) db -= dc.cross(s.f_d) + s.c.cross(df_d);
  }
  Vector3d dalpha;
  if (s.isotropic) {
    // dI = 0 and the gyroscopic terms cancel; d(I^-1) b = 0.
    dalpha = db / s.s;
  } else {
    // dI x = dtheta x I x - I (dtheta x x).
    const Vector3d dI_w0 = dtheta.cross(s.I_w0) + s.I * (dw0 - dtheta.cross(s.w0));
    db -= dw0.cross(s.I_w0) + s.w0.cross(dI_w0);
    dalpha = s.I_inverse * (db - dtheta.cross(s.b)) + dtheta.cross(s.alpha);
  }
  const Vector3d dw_e = dw0 + dt * dalpha;
  Vector3d dv_e = dv_o0;
  if (s.damped) dv_e += (dt / s.m) * df_d;
  Vector3d dcentripetal = Vector3d::Zero();
  if (!s.centred) {
    // d[w0 x (w0 x c)]
    dcentripetal = dw0.cross(s.w0.cross(s.c)) + s.w0.cross(dw0.cross(s.c) + s.w0.cross(dc));
    dv_e -= dt * (dalpha.cross(s.c) + s.alpha.cross(dc) + dcentripetal);
  }
  *dw = s.midpoint ? Vector3d(dtheta.cross(s.v_star.head<3>()) +
                              s.J_inverse * (s.I * (dw_e - dtheta.cross(s.w_e)) +
                                             s.K * (dw0 - dtheta.cross(s.w0))))
                   : dw_e;
  if (!s.com) {
    *dv = dv_e;
    return;
  }
  // v* = v_com - w* x P(a) c, v_com = v_e + w_e x c + dt w0 x (w0 x c).
  const Vector3d dv_com = dv_e + dw_e.cross(s.c) + s.w_e.cross(dc) + dt * dcentripetal;
  const Vector3d da = (dt / 2) * (theta_q * *dw + (1 - theta_q) * dw0);
  // P(a) = 1 + 2 ([a]x + [a]x^2) / (1 + |a|^2), varied along da and applied to c.
  const Vector3d a_c = s.a.cross(s.c);
  const Vector3d da_c = da.cross(s.c);
  const Vector3d dP_c = (2 / (1 + s.n)) * (da_c + da.cross(a_c) + s.a.cross(da_c)) -
                        (4 * s.a.dot(da) / ((1 + s.n) * (1 + s.n))) * (a_c + s.a.cross(a_c));
  const Vector3d dc1 = dP_c + s.P * dc;
  *dv = dv_com - dw->cross(s.c1) - s.v_star.head<3>().cross(dc1);
}

}  // namespace

bool IsLoneFreeBody(const Model& model, int b) {
  const multibody::Joint& joint = model.joints[b];
  return model.parent[b] < 0 && joint.v_start >= 0 && joint.type == JointType::kFree &&
         !joint.prescribed && joint.X_PJ.R == Matrix3d::Identity() &&
         !multibody::HasChildBody(model, b);
}

bool AllLoneFreeBodies(const Model& model) {
  if (!model.loads.empty() || multibody::HasForceActuators(model)) return false;
  for (int b = 0; b < model.num_bodies(); ++b)
    if (model.joints[b].v_start >= 0 && !IsLoneFreeBody(model, b)) return false;
  return true;
}

void PrepareFreeBodyPartials(const Model& model, const ThetaParameters& params, double dt,
                             const multibody::State& s0, const StepWorkspace& ws,
                             FreeBodyFreeMotionPartials* partials) {
  CSIM_CHECK(params.theta == 0.0);
  const int nb = model.num_bodies();
  partials->dt = dt;
  partials->theta_q = params.theta_q;
  partials->gyroscopic.assign(nb, -1);
  if (params.gyroscopic == Gyroscopic::kImplicit) {
    const std::vector<GyroscopicBody>& list = ws.implicit_gyroscopic_bodies;
    for (int i = 0; i < static_cast<int>(list.size()); ++i) partials->gyroscopic[list[i].body] = i;
  }
  if (!partials->listed) {
    for (int b = 0; b < nb; ++b)
      if (IsLoneFreeBody(model, b)) partials->lone.push_back(b);
    partials->listed = true;
  }
  partials->bodies.resize(partials->lone.size());
  int index = 0;
  for (const int b : partials->lone) {
    const multibody::Joint& joint = model.joints[b];
    const multibody::Body& body = model.bodies[b];
    Body& s = partials->bodies[index++];
    const int o = joint.v_start;
    s.v_start = o;
    s.v_star = ws.v_star.segment<6>(o);
    s.A = ws.A.sub(o, o, 6, 6);  // M(q0): theta = 0 adds no stiffness or damping terms
    s.m = body.mass;
    s.w0 = s0.v.segment<3>(o);
    s.centred = body.com == Vector3d::Zero();
    s.isotropic = IsIsotropic(body.inertia);
    s.damped = joint.damping.size() == 6 && !(joint.damping.array() == 0.0).all();
    const int g = partials->gyroscopic[b];
    s.midpoint = g >= 0 && !ws.implicit_gyroscopic_bodies[g].isotropic;
    s.com = g >= 0 && !s.centred;
    // R0 as the step's kinematics hold it (X_PJ.R is the identity).
    const Matrix3d& R0 = ws.mb.X_WB[b].R;
    if (!s.centred) s.c = R0 * body.com;
    if (s.isotropic) {
      s.s = body.inertia(0, 0);
    } else {
      s.I.noalias() = R0 * body.inertia * R0.transpose();
      s.I_inverse = s.I.inverse();
      s.I_w0.noalias() = s.I * s.w0;
    }
    // The explicit step (Newton-Euler at q0, v0 with the damping's force -D v0): what
    // the derivative reads besides dalpha, only off the centre or for an anisotropic body.
    if (s.damped) {
      s.D_w = joint.damping.head<3>();
      s.D_v = joint.damping.tail<3>();
      s.f_d = -s.D_v.cwiseProduct(s0.v.segment<3>(o + 3));
    }
    if (!s.centred || !s.isotropic) {
      if (s.isotropic) {
        s.b.setZero();
      } else {
        s.b = -s.w0.cross(s.I_w0);
      }
      if (s.damped) s.b -= s.D_w.cwiseProduct(s.w0) + (s.centred ? Vector3d::Zero()
                                                                   : Vector3d(s.c.cross(s.f_d)));
      s.alpha = s.isotropic ? Vector3d(s.b / s.s) : Vector3d(s.I_inverse * s.b);
      s.w_e = s.w0 + dt * s.alpha;
    }
    const Vector3d w = s.v_star.head<3>();
    if (s.midpoint) {
      const Vector3d w_bar = 0.5 * (s.w0 + w);
      const Matrix3d G_bar = GyroscopicJacobian(s.I, w_bar);
      s.J_inverse = (s.I + (0.5 * dt) * G_bar).inverse();
      s.K = dt * GyroscopicJacobian(s.I, s.w0) - (0.5 * dt) * G_bar;
    }
    if (s.com) {
      s.a = (dt / 2) * (params.theta_q * w + (1 - params.theta_q) * s.w0);
      s.n = s.a.squaredNorm();
      const Matrix3d S = math::Skew(s.a);
      s.P = Matrix3d::Identity() + (2 / (1 + s.n)) * (S + S * S);
      s.c1 = s.P * s.c;
    }
  }
}

void ApplyFreeBodyPartials(const FreeBodyFreeMotionPartials& partials,
                           const Eigen::Ref<const Eigen::VectorXd>& v,
                           const Eigen::Ref<const Eigen::VectorXd>& dq,
                           const Eigen::Ref<const Eigen::VectorXd>& dv0,
                           Eigen::Ref<Eigen::VectorXd> dF, Eigen::Ref<Eigen::VectorXd> dv_star) {
  for (const Body& body : partials.bodies) {
    const int o = body.v_start;
    const Vector3d dtheta = dq.segment<3>(o);
    const Vector6 dv0_b = dv0.segment<6>(o);
    // The origin's displacement dq.segment<3>(o + 3) moves nothing.
    if ((dtheta.array() == 0.0).all() && (dv0_b.array() == 0.0).all()) {
      dv_star.segment<6>(o).setZero();
      dF.segment<6>(o).setZero();
      continue;
    }
    Vector3d dw, dv;
    Directional(body, partials.dt, partials.theta_q, dtheta, dv0_b.head<3>(), dv0_b.tail<3>(),
                &dw, &dv);
    dv_star.segment<3>(o) = dw;
    dv_star.segment<3>(o + 3) = dv;
    if (body.centred && body.isotropic) {
      // A = blockdiag(s 1, m 1) commutes with Omega: dF = -A dv*.
      dF.segment<3>(o) = -body.s * dw;
      dF.segment<3>(o + 3) = -body.m * dv;
      continue;
    }
    // dF = dA r - A dv*, dA = Omega A - A Omega, r = v - v*.
    const Vector6 r = v.segment<6>(o) - body.v_star;
    const Vector6 A_r = body.A * r;
    Vector6 y;
    y << dtheta.cross(r.head<3>()) + dw, dtheta.cross(r.tail<3>()) + dv;
    const Vector6 A_y = body.A * y;
    dF.segment<3>(o) = dtheta.cross(A_r.head<3>()) - A_y.head<3>();
    dF.segment<3>(o + 3) = dtheta.cross(A_r.tail<3>()) - A_y.tail<3>();
  }
}

}  // namespace csim::integrator
