#include "tests/support/test_models.h"

#include <cmath>

#include "engine/math/rotation.h"

namespace csim::testing {
namespace {

using multibody::Joint;
using multibody::JointType;
using multibody::Model;

Eigen::Vector4d QuaternionExp(const Eigen::Vector3d& xi) {
  const double angle = xi.norm();
  if (angle < 1e-300) return Eigen::Vector4d(1, 0, 0, 0);
  Eigen::Vector4d q;
  q << std::cos(angle / 2), std::sin(angle / 2) * xi / angle;
  return q;
}

Eigen::Vector4d QuaternionProduct(const Eigen::Vector4d& a, const Eigen::Vector4d& b) {
  Eigen::Vector4d out;
  out[0] = a[0] * b[0] - a.tail<3>().dot(b.tail<3>());
  out.tail<3>() = a[0] * b.tail<3>() + b[0] * a.tail<3>() + a.tail<3>().cross(b.tail<3>());
  return out;
}

// SO(3) Jacobians of exp: w_world = J_left(xi) xi_dot for R = exp(xi) R0, and
// w_body = J_right(xi) xi_dot for R = R0 exp(xi); J_right(xi) = J_left(-xi).
Eigen::Matrix3d LeftJacobian(const Eigen::Vector3d& xi) {
  const double t = xi.norm();
  const Eigen::Matrix3d K = math::Skew(xi);
  if (t < 1e-8) return Eigen::Matrix3d::Identity() + 0.5 * K;
  return Eigen::Matrix3d::Identity() + (1 - std::cos(t)) / (t * t) * K +
         (t - std::sin(t)) / (t * t * t) * K * K;
}

Eigen::Matrix3d RandomInertia(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.2, 1.0);
  const Eigen::Vector3d d(u(rng), u(rng), u(rng));
  // Principal moments from three positive "masses along axes" satisfy the triangle rule.
  const Eigen::Vector3d I(d.y() + d.z(), d.x() + d.z(), d.x() + d.y());
  const Eigen::Matrix3d R = math::RotationFromRpy(Eigen::Vector3d(u(rng) * 3, u(rng) * 3, u(rng) * 3));
  return R * I.asDiagonal() * R.transpose();
}

Joint MakeJoint(const std::string& name, JointType type, int parent, int child) {
  Joint j;
  j.name = name;
  j.type = type;
  j.parent = parent;
  j.child = child;
  j.nq = multibody::JointNq(type);
  j.nv = multibody::JointNv(type);
  j.q_initial = Eigen::VectorXd::Zero(j.nq);
  j.v_initial = Eigen::VectorXd::Zero(j.nv);
  if (type == JointType::kBall || type == JointType::kFree) j.q_initial[0] = 1.0;
  return j;
}

multibody::Body MakeBody(const std::string& name, double mass, const Eigen::Vector3d& com,
                         const Eigen::Matrix3d& inertia) {
  multibody::Body b;
  b.name = name;
  b.mass = mass;
  b.com = com;
  b.inertia = inertia;
  return b;
}

}  // namespace

Model RandomTree(int n, unsigned seed, bool with_prescribed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const JointType kTypes[] = {JointType::kRevolute, JointType::kPrismatic, JointType::kPlanar,
                              JointType::kBall, JointType::kFree, JointType::kFixed};
  Model model;
  for (int i = 0; i < n; ++i) {
    const int parent = i == 0 ? -1 : static_cast<int>(rng() % (i + 1)) - 1;
    JointType type = kTypes[i % 6];
    Joint j = MakeJoint("j" + std::to_string(i), type, parent, i);
    j.X_PJ = {math::RotationFromRpy(Eigen::Vector3d(u(rng), u(rng), u(rng))),
              Eigen::Vector3d(u(rng), u(rng), u(rng)) * 0.5};
    j.axis = Eigen::Vector3d(u(rng), u(rng), u(rng)).normalized();
    if (with_prescribed && type == JointType::kFixed && i % 12 == 5) {
      j = MakeJoint(j.name, JointType::kRevolute, parent, i);
      j.prescribed = true;
      j.motion.amplitude = Eigen::VectorXd::Constant(1, 0.7);
      j.motion.frequency = 0.8;
      j.motion.phase = 0.3;
    }
    model.joints.push_back(j);
    model.bodies.push_back(MakeBody("b" + std::to_string(i), 0.5 + std::abs(u(rng)),
                                    0.3 * Eigen::Vector3d(u(rng), u(rng), u(rng)),
                                    RandomInertia(rng)));
  }
  model.gravity = Eigen::Vector3d(0.3, -0.2, -9.81);
  multibody::AssignCoordinates(model);
  return model;
}

Eigen::VectorXd AddRandomArmature(Model* model, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  Eigen::VectorXd all = Eigen::VectorXd::Zero(model->nv);
  for (Joint& j : model->joints) {
    const bool scalar = j.type == JointType::kRevolute || j.type == JointType::kPrismatic ||
                        j.type == JointType::kPlanar;
    if (!scalar || j.v_start < 0) continue;
    j.armature.resize(j.nv);
    for (int k = 0; k < j.nv; ++k) j.armature[k] = u(rng);
    all.segment(j.v_start, j.nv) = j.armature;
  }
  return all;
}

Eigen::VectorXd RandomQ(const Model& model, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd q(model.nq);
  for (int k = 0; k < model.nq; ++k) q[k] = u(rng);
  for (const Joint& j : model.joints)
    if (j.q_start >= 0 && (j.type == JointType::kBall || j.type == JointType::kFree))
      q.segment<4>(j.q_start).normalize();
  return q;
}

Eigen::VectorXd RandomV(const Model& model, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd v(model.nv);
  for (int k = 0; k < model.nv; ++k) v[k] = u(rng);
  return v;
}

Eigen::VectorXd Retract(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& xi) {
  Eigen::VectorXd q = q0;
  for (const Joint& j : model.joints) {
    if (j.q_start < 0) continue;
    const auto x = xi.segment(j.v_start, j.nv);
    if (j.type == JointType::kFree) {
      q.segment<4>(j.q_start) = QuaternionProduct(QuaternionExp(x.head<3>()), q0.segment<4>(j.q_start));
      q.segment<3>(j.q_start + 4) += x.tail<3>();
    } else if (j.type == JointType::kBall) {
      q.segment<4>(j.q_start) = QuaternionProduct(q0.segment<4>(j.q_start), QuaternionExp(x));
    } else {
      q.segment(j.q_start, j.nq) += x;
    }
  }
  return q;
}

Eigen::VectorXd LocalToVelocity(const Model& model, const Eigen::VectorXd& xi,
                                const Eigen::VectorXd& xi_dot) {
  Eigen::VectorXd v = xi_dot;
  for (const Joint& j : model.joints) {
    if (j.v_start < 0) continue;
    const Eigen::Vector3d x = xi.segment<3>(j.v_start);
    if (j.type == JointType::kFree)
      v.segment<3>(j.v_start) = LeftJacobian(x) * xi_dot.segment<3>(j.v_start);
    else if (j.type == JointType::kBall)
      v.segment<3>(j.v_start) = LeftJacobian(-x) * xi_dot.segment<3>(j.v_start);
  }
  return v;
}

Model Pendulum(double m, double L, double g, double theta0) {
  Model model;
  Joint j = MakeJoint("pivot", JointType::kRevolute, -1, 0);
  j.axis = Eigen::Vector3d::UnitY();
  j.q_initial[0] = theta0;
  model.joints.push_back(j);
  // A tiny rotational inertia keeps M positive definite; it is 1e-9 of m L^2.
  model.bodies.push_back(MakeBody("bob", m, Eigen::Vector3d(0, 0, -L),
                                  Eigen::Matrix3d::Identity() * 1e-9 * m * L * L));
  model.gravity = Eigen::Vector3d(0, 0, -g);
  multibody::AssignCoordinates(model);
  return model;
}

Model SpringMass(double m, double k, double x0) {
  Model model;
  Joint j = MakeJoint("slider", JointType::kPrismatic, -1, 0);
  j.axis = Eigen::Vector3d::UnitX();
  j.q_initial[0] = x0;
  j.spring_stiffness = Eigen::VectorXd::Constant(1, k);
  j.spring_rest = Eigen::VectorXd::Zero(1);
  model.joints.push_back(j);
  model.bodies.push_back(MakeBody("mass", m, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity() * 0.01));
  model.gravity.setZero();
  multibody::AssignCoordinates(model);
  return model;
}

Model FreeBody(const Eigen::Vector3d& principal, const Eigen::Vector3d& w0) {
  Model model;
  Joint j = MakeJoint("brick", JointType::kFree, -1, 0);
  j.v_initial.head<3>() = w0;
  model.joints.push_back(j);
  model.bodies.push_back(MakeBody("brick", 1.0, Eigen::Vector3d::Zero(), principal.asDiagonal()));
  model.gravity.setZero();
  multibody::AssignCoordinates(model);
  return model;
}

Model BallChain(int n, double m, double L, double tilt) {
  Model model;
  const Eigen::Matrix3d inertia = m * L * L * Eigen::Vector3d(1e-2, 1e-2, 1e-3).asDiagonal();
  for (int i = 0; i < n; ++i) {
    Joint j = MakeJoint("j" + std::to_string(i), JointType::kBall, i - 1, i);
    j.X_PJ.p = i == 0 ? Eigen::Vector3d(0, 0, n * L + 0.5) : Eigen::Vector3d(0, 0, -L);
    j.q_initial = i == 0 ? QuaternionExp(tilt * Eigen::Vector3d(0, 1, 0))
                         : QuaternionExp(0.02 * Eigen::Vector3d(0.6, 0.8, 0));
    model.joints.push_back(j);
    model.bodies.push_back(
        MakeBody("l" + std::to_string(i), m, Eigen::Vector3d(0, 0, -L / 2), inertia));
  }
  model.gravity = Eigen::Vector3d(0, 0, -9.81);
  multibody::AssignCoordinates(model);
  return model;
}

}  // namespace csim::testing
