#include "engine/multibody/inverse_kinematics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "engine/common/check.h"
#include "engine/multibody/jacobians.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {
namespace {

using Matrix6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;
using math::Vector6;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

/// The IK variables: the listed joints' coordinates, with their slots in q and v and their
/// limits (infinite when the joint has none).
struct Variables {
  std::vector<int> q_index, v_index;
  std::vector<bool> angle;  ///< a rotation [rad], else a translation [m]
  Eigen::VectorXd lower, upper;
  int size() const { return static_cast<int>(q_index.size()); }
};

Variables ListVariables(const Model& model, const std::vector<int>& joints) {
  Variables vars;
  for (const int j : joints) {
    const Joint& joint = model.joints[j];
    CSIM_CHECK(joint.q_start >= 0 && (joint.type == JointType::kRevolute ||
                                      joint.type == JointType::kPrismatic ||
                                      joint.type == JointType::kPlanar));
    for (int k = 0; k < joint.nv; ++k) {
      vars.q_index.push_back(joint.q_start + k);
      vars.v_index.push_back(joint.v_start + k);
      vars.angle.push_back(joint.type == JointType::kRevolute ||
                           (joint.type == JointType::kPlanar && k == 2));
    }
  }
  vars.lower = Eigen::VectorXd::Constant(vars.size(), -kInf);
  vars.upper = Eigen::VectorXd::Constant(vars.size(), kInf);
  int i = 0;
  for (const int j : joints) {
    const Joint& joint = model.joints[j];
    for (int k = 0; k < joint.nv; ++k, ++i) {
      if (joint.lower.size() == 0) continue;
      vars.lower[i] = joint.lower[k];
      vars.upper[i] = joint.upper[k];
    }
  }
  return vars;
}

math::RigidTransform FramePose(const Workspace& ws, int body, const math::RigidTransform& X_BF) {
  return body < 0 ? X_BF : ws.X_WB[body] * X_BF;
}

/// Rotation vector (axis times angle, world axes) of the rotation R_target R^T that remains.
/// Through the quaternion, which keeps its accuracy at small angles, where acos of the
/// trace would lose half the digits.
Eigen::Vector3d RotationError(const Eigen::Matrix3d& R_target, const Eigen::Matrix3d& R) {
  const Eigen::AngleAxisd remaining(Eigen::Quaterniond(R_target * R.transpose()));
  return remaining.angle() * remaining.axis();
}

/// Kinematics at x, the pose error and (when J is given) the weighted Jacobian columns.
struct Evaluation {
  Vector6 e;              ///< [L rotation error; position error] [m]
  double angle = 0.0;     ///< [rad]
  double distance = 0.0;  ///< [m]
  double merit() const { return e.squaredNorm(); }
};

class Problem {
 public:
  Problem(const Model& model, int body, const math::RigidTransform& X_BF,
          const math::RigidTransform& X_WF_target, Variables vars, Eigen::VectorXd q,
          double time)
      : model_(model), body_(body), X_BF_(X_BF), target_(X_WF_target), vars_(std::move(vars)),
        q_(std::move(q)), v_(Eigen::VectorXd::Zero(model.nv)), time_(time),
        ws_(MakeWorkspace(model)), J_full_(6, model.nv) {}

  void set_length(double length) { length_ = length; }
  double length() const { return length_; }
  const Variables& vars() const { return vars_; }

  Eigen::VectorXd Get() const {
    Eigen::VectorXd x(vars_.size());
    for (int i = 0; i < vars_.size(); ++i) x[i] = q_[vars_.q_index[i]];
    return x;
  }
  void Set(const Eigen::VectorXd& x) {
    for (int i = 0; i < vars_.size(); ++i) q_[vars_.q_index[i]] = x[i];
  }
  const Eigen::VectorXd& q() const { return q_; }

  /// The pose error at the current q; also the weighted Jacobian into *J when given.
  Evaluation Evaluate(Matrix6X* J) {
    CalcKinematics(model_, time_, q_, v_, ws_);
    const math::RigidTransform X_WF = FramePose(ws_, body_, X_BF_);
    Evaluation out;
    const Eigen::Vector3d rotation = RotationError(target_.R, X_WF.R);
    const Eigen::Vector3d position = target_.p - X_WF.p;
    out.angle = rotation.norm();
    out.distance = position.norm();
    out.e << length_ * rotation, position;
    if (J) {
      J->setZero(6, vars_.size());
      if (body_ >= 0) {
        CalcFrameJacobian(model_, ws_, body_, X_WF.p, J_full_);
        for (int i = 0; i < vars_.size(); ++i) J->col(i) = J_full_.col(vars_.v_index[i]);
        J->topRows<3>() *= length_;
      }
    }
    return out;
  }

  /// The largest distance from the frame to the origin of a listed joint's child body,
  /// where the joint acts, after Evaluate.
  double Reach() const {
    const Eigen::Vector3d p = FramePose(ws_, body_, X_BF_).p;
    double reach = 0.0;
    for (int j = 0; j < model_.num_bodies(); ++j) {
      for (const int v : vars_.v_index) {
        const Joint& joint = model_.joints[j];
        if (v >= joint.v_start && v < joint.v_start + joint.nv && joint.v_start >= 0)
          reach = std::max(reach, (ws_.X_WB[j].p - p).norm());
      }
    }
    return reach;
  }

 private:
  const Model& model_;
  int body_;
  math::RigidTransform X_BF_, target_;
  Variables vars_;
  Eigen::VectorXd q_, v_;
  double time_;
  Workspace ws_;
  Matrix6X J_full_;
  double length_ = 1.0;
};

/// Projector onto the null space of J's columns `free` (zero elsewhere), from the SVD:
/// singular values below a relative 1e-9 count as zero, so that near a singularity the
/// projection does not invert a vanishing direction.
Eigen::MatrixXd NullSpaceProjector(const Matrix6X& J, const std::vector<bool>& free) {
  const int n = static_cast<int>(J.cols());
  std::vector<int> columns;
  for (int i = 0; i < n; ++i)
    if (free[i]) columns.push_back(i);
  const int m = static_cast<int>(columns.size());
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(n, n);
  if (m == 0) return P;
  Eigen::MatrixXd Jf(6, m);
  for (int c = 0; c < m; ++c) Jf.col(c) = J.col(columns[c]);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Jf, Eigen::ComputeFullV);
  const Eigen::VectorXd& sigma = svd.singularValues();
  const double threshold = 1e-9 * (sigma.size() > 0 ? sigma[0] : 0.0);
  Eigen::MatrixXd Pf = Eigen::MatrixXd::Zero(m, m);
  for (int k = 0; k < m; ++k) {
    if (k < sigma.size() && sigma[k] > threshold) continue;
    Pf += svd.matrixV().col(k) * svd.matrixV().col(k).transpose();
  }
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) P(columns[a], columns[b]) = Pf(a, b);
  return P;
}

/// One damped least-squares step dx from x toward J dx = e within [lower, upper], with the
/// null-space pull toward `pull` (a change of x; zero for none). Coordinates whose step
/// would leave the limits are put onto them and the rest re-solved, until none would.
Eigen::VectorXd Step(const Matrix6X& J, const Vector6& e, const Eigen::VectorXd& x,
                     const Variables& vars, double lambda2, const Eigen::VectorXd& pull) {
  const int n = static_cast<int>(x.size());
  std::vector<bool> free(n, true);
  Eigen::VectorXd dx = Eigen::VectorXd::Zero(n);
  for (int round = 0; round <= n; ++round) {
    Matrix6X Jf = J;
    Eigen::VectorXd fixed = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < n; ++i) {
      if (free[i]) continue;
      Jf.col(i).setZero();
      fixed[i] = dx[i];
    }
    const Vector6 rhs = e - J * fixed;
    const Eigen::Matrix<double, 6, 6> A =
        Jf * Jf.transpose() + lambda2 * Eigen::Matrix<double, 6, 6>::Identity();
    Eigen::VectorXd step = Jf.transpose() * A.ldlt().solve(rhs);
    if (pull.size() > 0) {
      Eigen::VectorXd pull_free = pull;
      for (int i = 0; i < n; ++i)
        if (!free[i]) pull_free[i] = 0.0;
      step += NullSpaceProjector(Jf, free) * pull_free;
    }
    bool clamped = false;
    for (int i = 0; i < n; ++i) {
      if (!free[i]) continue;
      dx[i] = step[i];
      const double target = x[i] + step[i];
      if (target > vars.upper[i] || target < vars.lower[i]) {
        dx[i] = std::clamp(target, vars.lower[i], vars.upper[i]) - x[i];
        free[i] = false;
        clamped = true;
      }
    }
    if (!clamped) break;
  }
  return dx;
}

Eigen::VectorXd Clamp(const Eigen::VectorXd& x, const Variables& vars) {
  return x.cwiseMax(vars.lower).cwiseMin(vars.upper);
}

/// Where one descent ended.
struct Descent {
  Eigen::VectorXd x;
  Evaluation at;
  bool converged = false;
};

/// Levenberg-Marquardt from x (within the limits) with the null-space pull toward `seed`,
/// until the pose is within the tolerances, the damping has grown so large that no step
/// lowers the error (a local minimum), or the iterations run out (counted in *iterations).
Descent Descend(Problem& problem, const Eigen::VectorXd& start, const Eigen::VectorXd& seed,
                const InverseKinematicsOptions& options, int* iterations) {
  const Variables& vars = problem.vars();
  // lambda^2 in units of J J^T (m^2, the angular rows being weighted by the length L):
  // from a small fraction of L^2, shrunk after a good step down to where the step is
  // Gauss-Newton's to rounding, grown after a bad one.
  const double scale2 = problem.length() * problem.length();
  double lambda2 = 1e-3 * scale2;
  const double lambda2_min = 1e-14 * scale2, lambda2_max = 1e8 * scale2;
  const auto done = [&](const Evaluation& at) {
    return at.distance <= options.position_tolerance && at.angle <= options.angle_tolerance;
  };
  Descent out;
  out.x = start;
  problem.Set(out.x);
  Matrix6X J;
  out.at = problem.Evaluate(&J);
  for (int step = 0; step < options.max_iterations && !done(out.at) && lambda2 < lambda2_max;) {
    // The pulled step first; if it does not lower |e| (the pull bends the path off the
    // pose at second order), the plain step with the same damping.
    const Eigen::VectorXd pull = seed - out.x;
    bool accepted = false;
    for (const bool with_pull : {true, false}) {
      if (!with_pull && pull.isZero(0.0)) continue;
      ++step;
      ++*iterations;
      const Eigen::VectorXd dx =
          Step(J, out.at.e, out.x, vars, lambda2, with_pull ? pull : Eigen::VectorXd());
      const Eigen::VectorXd x_new = Clamp(out.x + dx, vars);
      problem.Set(x_new);
      Matrix6X J_new;
      const Evaluation next = problem.Evaluate(&J_new);
      if (next.merit() < out.at.merit()) {
        out.x = x_new;
        out.at = next;
        J = std::move(J_new);
        accepted = true;
        break;
      }
      problem.Set(out.x);
    }
    lambda2 = accepted ? std::max(lambda2 / 3.0, lambda2_min) : lambda2 * 8.0;
  }
  out.converged = done(out.at);
  return out;
}

}  // namespace

math::RigidTransform CalcFramePose(const Model& model, int body, const math::RigidTransform& X_BF,
                                   const Eigen::VectorXd& q, double t) {
  Workspace ws = MakeWorkspace(model);
  CalcKinematics(model, t, q, Eigen::VectorXd::Zero(model.nv), ws);
  return FramePose(ws, body, X_BF);
}

InverseKinematicsResult SolveInverseKinematics(const Model& model, int body,
                                               const math::RigidTransform& X_BF,
                                               const math::RigidTransform& X_WF_target,
                                               const std::vector<int>& joints,
                                               const Eigen::VectorXd& q_seed,
                                               const InverseKinematicsOptions& options) {
  CSIM_CHECK(q_seed.size() == model.nq);
  Problem problem(model, body, X_BF, X_WF_target, ListVariables(model, joints), q_seed,
                  options.time);
  const Variables& vars = problem.vars();
  const Eigen::VectorXd seed = Clamp(problem.Get(), vars);
  problem.Set(seed);
  problem.Evaluate(nullptr);
  const double length = std::max(problem.Reach(), 0.01);
  problem.set_length(length);

  InverseKinematicsResult result;
  Descent best = Descend(problem, seed, seed, options, &result.iterations);
  // A local minimum of the error (a limit in the way, an arm folded the wrong way): start
  // again from spread seeds and keep the solution closest to the given seed, or else the
  // smallest error found.
  std::mt19937 rng(1);
  for (int restart = 0; restart < options.restarts && !best.converged; ++restart) {
    Eigen::VectorXd start(vars.size());
    for (int i = 0; i < vars.size(); ++i) {
      const double half = vars.angle[i] ? kPi : length;
      const double lower = std::isfinite(vars.lower[i]) ? vars.lower[i] : seed[i] - half;
      const double upper = std::isfinite(vars.upper[i]) ? vars.upper[i] : seed[i] + half;
      start[i] = std::uniform_real_distribution<double>(lower, upper)(rng);
    }
    const Descent next = Descend(problem, start, seed, options, &result.iterations);
    if (next.converged) {
      if (!best.converged || (next.x - seed).norm() < (best.x - seed).norm()) best = next;
    } else if (!best.converged && next.at.merit() < best.at.merit()) {
      best = next;
    }
  }
  problem.Set(best.x);
  result.q = problem.q();
  result.position_error = best.at.distance;
  result.angle_error = best.at.angle;
  result.converged = best.converged;
  return result;
}

}  // namespace csim::multibody
