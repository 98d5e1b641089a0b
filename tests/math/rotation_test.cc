// engine/math/rotation.h against formulas written out here: the elementary rotations and
// their roll-pitch-yaw product, Rodrigues' formula for a rotation about an axis, the
// rotation matrix of a unit quaternion component by component, the Hamilton product, and
// the kinematic equations of a rotating frame (R_dot = [w_world]x R = R [w_body]x).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/math/rotation.h"

namespace csim::math {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

Matrix3d ElementaryX(double a) {
  Matrix3d R;
  R << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
  return R;
}
Matrix3d ElementaryY(double a) {
  Matrix3d R;
  R << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  return R;
}
Matrix3d ElementaryZ(double a) {
  Matrix3d R;
  R << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return R;
}

Matrix3d Cross(const Vector3d& a) {
  Matrix3d K;
  K << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return K;
}

// Rodrigues: R = I + sin(angle) K + (1 - cos(angle)) K^2, K = [n]x for the unit axis n.
Matrix3d Rodrigues(const Vector3d& n, double angle) {
  const Matrix3d K = Cross(n);
  return Matrix3d::Identity() + std::sin(angle) * K + (1 - std::cos(angle)) * K * K;
}

// The rotation matrix of a unit quaternion (w, x, y, z), entry by entry.
Matrix3d FromUnitQuaternion(const Vector4& q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  Matrix3d R;
  R << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
       2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
       2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return R;
}

// Hamilton product a (x) b of quaternions (w, x, y, z).
Vector4 Multiply(const Vector4& a, const Vector4& b) {
  const double aw = a[0], bw = b[0];
  const Vector3d av = a.tail<3>(), bv = b.tail<3>();
  Vector4 out;
  out[0] = aw * bw - av.dot(bv);
  out.tail<3>() = aw * bv + bw * av + av.cross(bv);
  return out;
}

Vector4 AxisAngleQuaternion(const Vector3d& n, double angle) {
  Vector4 q;
  q << std::cos(angle / 2), std::sin(angle / 2) * n;
  return q;
}

struct Random {
  std::mt19937 engine{20261128};
  double Uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine); }
  Vector3d Vector(double scale) {
    return Vector3d(Uniform(-scale, scale), Uniform(-scale, scale), Uniform(-scale, scale));
  }
  Vector3d Axis() {
    Vector3d n;
    do n = Vector(1.0); while (n.norm() < 0.1 || n.norm() > 1.0);
    return n.normalized();
  }
};

bool IsRotation(const Matrix3d& R, double tol) {
  return (R * R.transpose() - Matrix3d::Identity()).cwiseAbs().maxCoeff() < tol &&
         std::abs(R.determinant() - 1) < tol;
}

TEST_CASE("math rotation: RotationFromRpy is Rz(yaw) Ry(pitch) Rx(roll) of the elementary "
          "rotations", "[math][rotation]") {
  Random random;
  for (int trial = 0; trial < 50; ++trial) {
    const Vector3d rpy = random.Vector(kPi);
    const Matrix3d R = RotationFromRpy(rpy);
    const Matrix3d expected = ElementaryZ(rpy.z()) * ElementaryY(rpy.y()) * ElementaryX(rpy.x());
    CHECK((R - expected).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(IsRotation(R, 1e-14));
  }
  // Each angle alone turns the axes the right-hand way: roll takes y to z, pitch z to x,
  // yaw x to y.
  CHECK((RotationFromRpy(Vector3d(kPi / 2, 0, 0)) * Vector3d::UnitY() - Vector3d::UnitZ()).norm() < 1e-15);
  CHECK((RotationFromRpy(Vector3d(0, kPi / 2, 0)) * Vector3d::UnitZ() - Vector3d::UnitX()).norm() < 1e-15);
  CHECK((RotationFromRpy(Vector3d(0, 0, kPi / 2)) * Vector3d::UnitX() - Vector3d::UnitY()).norm() < 1e-15);
}

TEST_CASE("math rotation: RotationAboutAxis is Rodrigues' formula, keeps its axis and has "
          "trace 1 + 2 cos(angle)", "[math][rotation]") {
  Random random;
  std::vector<double> angles = {0.0, 1e-9, 0.3, kPi / 2, kPi - 1e-9, kPi, -2.0, 5.0};
  for (int trial = 0; trial < 20; ++trial) angles.push_back(random.Uniform(-2 * kPi, 2 * kPi));
  for (const double angle : angles) {
    const Vector3d n = random.Axis();
    const Matrix3d R = RotationAboutAxis(n, angle);
    INFO("angle " << angle);
    CHECK((R - Rodrigues(n, angle)).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(IsRotation(R, 1e-14));
    CHECK((R * n - n).norm() < 1e-14);
    CHECK(R.trace() == Approx(1 + 2 * std::cos(angle)).margin(1e-14));
    // A vector normal to the axis turns by the angle: cos from the dot product, sin (with
    // its sign) from the cross product along n.
    const Vector3d u = n.unitOrthogonal();
    CHECK(u.dot(R * u) == Approx(std::cos(angle)).margin(1e-14));
    CHECK(n.dot(u.cross(R * u)) == Approx(std::sin(angle)).margin(1e-14));
  }
}

TEST_CASE("math rotation: RotationFromQuaternion is the unit quaternion's matrix, for any "
          "scale and either sign of q", "[math][rotation]") {
  Random random;
  for (int trial = 0; trial < 50; ++trial) {
    const Vector3d n = random.Axis();
    const double angle = random.Uniform(-2 * kPi, 2 * kPi);
    const Vector4 q = AxisAngleQuaternion(n, angle);
    const Matrix3d R = RotationFromQuaternion(q);
    CHECK((R - FromUnitQuaternion(q)).cwiseAbs().maxCoeff() < 1e-14);
    // (cos(a/2), sin(a/2) n) is the rotation by a about n.
    CHECK((R - Rodrigues(n, angle)).cwiseAbs().maxCoeff() < 1e-14);
    // q is normalised first, and q and -q are the same rotation.
    const double scale = random.Uniform(0.01, 100.0);
    CHECK((RotationFromQuaternion(scale * q) - R).cwiseAbs().maxCoeff() < 1e-14);
    CHECK((RotationFromQuaternion(-q) - R).cwiseAbs().maxCoeff() < 1e-14);
  }
}

TEST_CASE("math rotation: QuaternionFromRotation inverts RotationFromQuaternion with w >= 0, "
          "also at half turns", "[math][rotation]") {
  Random random;
  std::vector<std::pair<Vector3d, double>> cases;
  // Half turns (w = 0) and near them, where the trace is -1 and a conversion must take
  // the largest of x, y, z instead of w; and tiny angles (w = 1).
  for (const Vector3d& n : {Vector3d(Vector3d::UnitX()), Vector3d(Vector3d::UnitY()),
                            Vector3d(Vector3d::UnitZ()), Vector3d(1, 1, 1).normalized(),
                            Vector3d(-1, 2, 0.5).normalized()}) {
    for (const double angle : {kPi, kPi - 1e-7, -kPi + 1e-7, 1e-12, 0.0}) cases.push_back({n, angle});
  }
  for (int trial = 0; trial < 100; ++trial)
    cases.push_back({random.Axis(), random.Uniform(-2 * kPi, 2 * kPi)});
  for (const auto& [n, angle] : cases) {
    INFO("axis " << n.transpose() << ", angle " << angle);
    const Matrix3d R = Rodrigues(n, angle);
    const Vector4 q = QuaternionFromRotation(R);
    CHECK(q.norm() == Approx(1.0).epsilon(1e-15));
    CHECK(q[0] >= 0.0);
    CHECK((FromUnitQuaternion(q) - R).cwiseAbs().maxCoeff() < 1e-14);
    // The quaternion is +-(cos(a/2), sin(a/2) n) (at a half turn, w = 0, either sign).
    const Vector4 expected = AxisAngleQuaternion(n, angle);
    CHECK(std::min((q - expected).cwiseAbs().maxCoeff(), (q + expected).cwiseAbs().maxCoeff()) <
          1e-14);
  }
}

TEST_CASE("math rotation: composing rotations is the Hamilton product of their quaternions",
          "[math][rotation]") {
  Random random;
  for (int trial = 0; trial < 50; ++trial) {
    const Vector4 a = AxisAngleQuaternion(random.Axis(), random.Uniform(-kPi, kPi));
    const Vector4 b = AxisAngleQuaternion(random.Axis(), random.Uniform(-kPi, kPi));
    const Matrix3d Ra = RotationFromQuaternion(a), Rb = RotationFromQuaternion(b);
    CHECK((RotationFromQuaternion(Multiply(a, b)) - Ra * Rb).cwiseAbs().maxCoeff() < 1e-14);
    // The conjugate is the inverse rotation.
    const Vector4 a_conjugate(a[0], -a[1], -a[2], -a[3]);
    CHECK((RotationFromQuaternion(a_conjugate) - Ra.transpose()).cwiseAbs().maxCoeff() < 1e-14);
    // And back from the composed matrix.
    Vector4 ab = Multiply(a, b);
    if (ab[0] < 0) ab = -ab;
    CHECK((QuaternionFromRotation(Ra * Rb) - ab).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("math rotation: Skew(a) b = a x b and is antisymmetric", "[math][rotation]") {
  Random random;
  for (int trial = 0; trial < 20; ++trial) {
    const Vector3d a = random.Vector(3.0), b = random.Vector(3.0);
    CHECK((Skew(a) * b - a.cross(b)).norm() < 1e-14);
    CHECK((Skew(a) + Skew(a).transpose()).cwiseAbs().maxCoeff() == 0.0);
    // The matrix of R a is R [a]x R^T: the cross product turns with the frame.
    const Matrix3d R = Rodrigues(random.Axis(), random.Uniform(-kPi, kPi));
    CHECK((Skew(R * a) - R * Skew(a) * R.transpose()).cwiseAbs().maxCoeff() < 1e-14);
  }
}

TEST_CASE("math rotation: OmegaLeft and OmegaRight multiply by the pure quaternion (0, w) and "
          "give the rate of a frame turning at w in world and in body axes", "[math][rotation]") {
  Random random;
  for (int trial = 0; trial < 20; ++trial) {
    const Vector3d w = random.Vector(5.0);
    const Vector4 q = AxisAngleQuaternion(random.Axis(), random.Uniform(-kPi, kPi));
    const Vector4 pure(0, w.x(), w.y(), w.z());
    CHECK((OmegaLeft(w) * q - Multiply(pure, q)).norm() < 1e-14);
    CHECK((OmegaRight(w) * q - Multiply(q, pure)).norm() < 1e-14);
    // q_dot = 1/2 OmegaLeft(w_world) q is R_dot = [w_world]x R, and q_dot = 1/2
    // OmegaRight(w_body) q is R_dot = R [w_body]x: the derivative of FromUnitQuaternion
    // (quadratic in q) along q_dot, by a central difference that is exact up to round-off.
    const double h = 1e-6;
    const Matrix3d R = FromUnitQuaternion(q);
    const Vector4 q_dot_world = 0.5 * OmegaLeft(w) * q;
    const Matrix3d R_dot_world =
        (FromUnitQuaternion(q + h * q_dot_world) - FromUnitQuaternion(q - h * q_dot_world)) / (2 * h);
    CHECK((R_dot_world - Cross(w) * R).cwiseAbs().maxCoeff() < 1e-8);
    const Vector4 q_dot_body = 0.5 * OmegaRight(w) * q;
    const Matrix3d R_dot_body =
        (FromUnitQuaternion(q + h * q_dot_body) - FromUnitQuaternion(q - h * q_dot_body)) / (2 * h);
    CHECK((R_dot_body - R * Cross(w)).cwiseAbs().maxCoeff() < 1e-8);
    // Both keep |q|: q . q_dot = 0 (OmegaLeft and OmegaRight are antisymmetric).
    CHECK(std::abs(q.dot(q_dot_world)) < 1e-15);
    CHECK(std::abs(q.dot(q_dot_body)) < 1e-15);
  }
}

}  // namespace
}  // namespace csim::math
