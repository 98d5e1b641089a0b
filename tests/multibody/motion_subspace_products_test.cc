#include <cstring>
#include <random>

#include <catch2/catch.hpp>

#include "engine/multibody/motion_subspace_products.h"

namespace csim::multibody {
namespace {

// Random entries with many zeros of both signs: the sign of a zero sum is where the fixed-
// and dynamic-size kernels could part (motion_subspace_products.h).
class SignedZeroValues {
 public:
  double operator()() {
    switch (pick_(rng_)) {
      case 0: return 0.0;
      case 1: return -0.0;
      default: return value_(rng_);
    }
  }
  template <typename Matrix>
  void Fill(Matrix* m) {
    for (int j = 0; j < m->cols(); ++j)
      for (int i = 0; i < m->rows(); ++i) (*m)(i, j) = (*this)();
  }

 private:
  std::mt19937 rng_{7};
  std::uniform_int_distribution<int> pick_{0, 4};
  std::uniform_real_distribution<double> value_{-2.0, 2.0};
};

template <typename A, typename B>
bool SameBits(const A& a, const B& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (int j = 0; j < a.cols(); ++j)
    for (int i = 0; i < a.rows(); ++i) {
      const double x = a(i, j), y = b(i, j);
      if (std::memcmp(&x, &y, sizeof x) != 0) return false;
    }
  return true;
}

TEST_CASE("fixed-size free-joint subspace products give the dynamic kernels' bits", "[multibody]") {
  SignedZeroValues values;
  for (int trial = 0; trial < 20000; ++trial) {
    MotionSubspace S(6, 6);
    values.Fill(&S);
    JointVector x(6);
    values.Fill(&x);
    Eigen::VectorXd rates(9);  // a segment of a longer vector, as in CalcInverseDynamics
    values.Fill(&rates);
    math::Vector6 f, a;
    values.Fill(&f);
    values.Fill(&a);

    math::Vector6 Sx;
    Sx.noalias() = S * x;
    REQUIRE(SameBits(SubspaceTimes(S, x), Sx));

    math::Vector6 a_dynamic = a, a_fixed = a;
    a_dynamic.noalias() += S * rates.segment(2, 6);
    a_fixed += SubspaceTimes(S, rates.segment(2, 6));
    REQUIRE(SameBits(a_fixed, a_dynamic));

    Eigen::VectorXd tau_dynamic(6), tau_fixed(6);
    tau_dynamic.segment(0, 6).noalias() = S.transpose() * f;
    SubspaceTransposeTimes(S, f, tau_fixed.segment(0, 6));
    REQUIRE(SameBits(tau_fixed, tau_dynamic));
  }
}

TEST_CASE("one-column subspace products give the dynamic kernels' bits", "[multibody]") {
  SignedZeroValues values;
  for (int trial = 0; trial < 20000; ++trial) {
    MotionSubspace S(6, 1);
    values.Fill(&S);
    JointVector x(1);
    values.Fill(&x);
    Eigen::VectorXd rates(4);  // a segment of a longer vector, as in CalcInverseDynamics
    values.Fill(&rates);
    math::Vector6 f, a;
    values.Fill(&f);
    values.Fill(&a);

    math::Vector6 Sx;
    Sx.noalias() = S * x;
    REQUIRE(SameBits(SubspaceTimes(S, x), Sx));

    math::Vector6 a_dynamic = a, a_fixed = a;
    a_dynamic.noalias() += S * rates.segment(2, 1);
    a_fixed += SubspaceTimes(S, rates.segment(2, 1));
    REQUIRE(SameBits(a_fixed, a_dynamic));

    Eigen::VectorXd tau_dynamic(3), tau_fixed(3);
    tau_dynamic.segment(1, 1).noalias() = S.transpose() * f;
    tau_fixed(1) = tau_dynamic(1) + 1.0;
    SubspaceTransposeTimes(S, f, tau_fixed.segment(1, 1));
    REQUIRE(SameBits(tau_fixed.segment(1, 1), tau_dynamic.segment(1, 1)));
  }
}

TEST_CASE("subspace products of joints with fewer columns keep the dynamic kernels", "[multibody]") {
  SignedZeroValues values;
  MotionSubspace S(6, 3);
  values.Fill(&S);
  JointVector x(3);
  values.Fill(&x);
  math::Vector6 Sx;
  Sx.noalias() = S * x;
  REQUIRE(SameBits(SubspaceTimes(S, x), Sx));
  math::Vector6 f;
  values.Fill(&f);
  Eigen::VectorXd tau(3), tau_dynamic(3);
  SubspaceTransposeTimes(S, f, tau.segment(0, 3));
  tau_dynamic.noalias() = S.transpose() * f;
  REQUIRE(SameBits(tau, tau_dynamic));
}

}  // namespace
}  // namespace csim::multibody
