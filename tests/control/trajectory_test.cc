// engine/control/trajectory.h against values worked out from the formulas of
// docs/design/trajectories-and-signals.md: the cubic Hermite basis written out here (not
// the library's power form), hand-computed pchip slopes, cubics that the spline and hermite
// must reproduce exactly, finite differences for derivatives and C2 continuity, and the
// no-overshoot property of pchip on random data.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/control/trajectory.h"
#include "tests/support/allocation_counter.h"

namespace csim::control {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

constexpr double kPi = 3.14159265358979323846;

// A table with one keyframe per entry of t; v_rows may be empty (no v anywhere).
KeyframeTable Table(Interpolation interpolation, const std::vector<double>& t,
                    const std::vector<std::vector<double>>& q_rows,
                    const std::vector<std::vector<double>>& v_rows = {}) {
  KeyframeTable table;
  table.num_columns = static_cast<int>(q_rows.front().size());
  table.interpolation = interpolation;
  for (std::size_t k = 0; k < t.size(); ++k) {
    table.keyframes.push_back({t[k], q_rows[k], v_rows.empty() ? std::vector<double>() : v_rows[k]});
  }
  return table;
}

// One column's table from a list of scalars.
KeyframeTable Column(Interpolation interpolation, const std::vector<double>& t,
                     const std::vector<double>& q) {
  std::vector<std::vector<double>> rows;
  for (double x : q) rows.push_back({x});
  return Table(interpolation, t, rows);
}

Trajectory Build(const KeyframeTable& table) {
  TrajectoryBuild build = BuildTrajectory(table);
  if (build.error) FAIL(build.error->message);
  REQUIRE(build.trajectory);
  return *build.trajectory;
}

TrajectoryError BuildError(const KeyframeTable& table) {
  TrajectoryBuild build = BuildTrajectory(table);
  REQUIRE(build.error);
  REQUIRE_FALSE(build.trajectory);
  return *build.error;
}

// The cubic Hermite segment from (q0, d0) at t0 to (q1, d1) at t0 + h, in the basis
// functions of s = (t - t0) / h, and its first two time derivatives.
TrajectoryPoint HermiteSegment(double t0, double h, double q0, double d0, double q1, double d1,
                               double t) {
  const double s = (t - t0) / h;
  TrajectoryPoint p;
  p.q = (2 * s * s * s - 3 * s * s + 1) * q0 + (s * s * s - 2 * s * s + s) * h * d0 +
        (-2 * s * s * s + 3 * s * s) * q1 + (s * s * s - s * s) * h * d1;
  p.v = ((6 * s * s - 6 * s) * q0 + (3 * s * s - 4 * s + 1) * h * d0 + (-6 * s * s + 6 * s) * q1 +
         (3 * s * s - 2 * s) * h * d1) / h;
  p.a = ((12 * s - 6) * q0 + (6 * s - 4) * h * d0 + (-12 * s + 6) * q1 + (6 * s - 2) * h * d1) /
        (h * h);
  return p;
}

void CheckPoint(const TrajectoryPoint& actual, const TrajectoryPoint& expected, double tolerance) {
  CHECK_THAT(actual.q, WithinAbs(expected.q, tolerance));
  CHECK_THAT(actual.v, WithinAbs(expected.v, tolerance));
  CHECK_THAT(actual.a, WithinAbs(expected.a, tolerance));
}

TEST_CASE("control trajectory: zoh holds each keyframe until the next, linear joins them "
          "with straight segments",
          "[control][trajectory]") {
  const std::vector<double> t = {0.0, 1.0, 3.0};
  const std::vector<std::vector<double>> q = {{1.0, 0.0}, {3.0, 10.0}, {2.0, -2.0}};

  const Trajectory zoh = Build(Table(Interpolation::kZeroOrderHold, t, q));
  CheckPoint(zoh.Evaluate(0, -1.0), {1.0, 0.0, 0.0}, 0.0);
  CheckPoint(zoh.Evaluate(0, 0.5), {1.0, 0.0, 0.0}, 0.0);
  CheckPoint(zoh.Evaluate(0, 1.0), {3.0, 0.0, 0.0}, 0.0);  // a segment starts at its knot
  CheckPoint(zoh.Evaluate(1, 2.99), {10.0, 0.0, 0.0}, 0.0);
  CheckPoint(zoh.Evaluate(1, 3.0), {-2.0, 0.0, 0.0}, 0.0);
  CheckPoint(zoh.Evaluate(1, 50.0), {-2.0, 0.0, 0.0}, 0.0);

  const Trajectory linear = Build(Table(Interpolation::kLinear, t, q));
  CheckPoint(linear.Evaluate(0, 0.5), {2.0, 2.0, 0.0}, 1e-15);
  CheckPoint(linear.Evaluate(0, 2.0), {2.5, -0.5, 0.0}, 1e-15);
  CheckPoint(linear.Evaluate(1, 2.0), {4.0, -6.0, 0.0}, 1e-14);  // 10 + (-12 / 2) (2 - 1)
  CheckPoint(linear.Evaluate(1, 1.0), {10.0, -6.0, 0.0}, 1e-15);  // the right segment's slope

  double q_all[2], v_all[2], a_all[2];
  linear.EvaluateAll(2.0, q_all, v_all, a_all);
  CHECK_THAT(q_all[0], WithinAbs(2.5, 1e-15));
  CHECK_THAT(q_all[1], WithinAbs(4.0, 1e-14));
  CHECK_THAT(v_all[1], WithinAbs(-6.0, 1e-15));
  CHECK(a_all[0] == 0.0);
  linear.EvaluateAll(2.0, q_all, nullptr, nullptr);  // unwanted outputs may be null

  // zoh takes a single keyframe: a constant.
  const Trajectory single = Build(Column(Interpolation::kZeroOrderHold, {2.0}, {7.0}));
  CheckPoint(single.Evaluate(0, 0.0), {7.0, 0.0, 0.0}, 0.0);
  CheckPoint(single.Evaluate(0, 5.0), {7.0, 0.0, 0.0}, 0.0);
}

TEST_CASE("control trajectory: pchip between and at the knots matches the Hermite segments "
          "of the hand-computed slopes",
          "[control][trajectory][pchip]") {
  // t = {0, 1, 3, 4}, q = {0, 2, 3, 5}: slopes 0, 6/7, 6/7, 0 with zero ends, and 2.5 at both
  // ends with natural ends (cubic_slopes_test.cc works them out).
  const std::vector<double> t = {0.0, 1.0, 3.0, 4.0};
  const std::vector<double> q = {0.0, 2.0, 3.0, 5.0};
  const double m = 6.0 / 7.0;
  const Trajectory zero_ends = Build(Column(Interpolation::kPchip, t, q));

  // Literal values: at t = 0.5 (s = 1/2, h = 1) q = 0.5 * 2 - (1/8) * 1 * 6/7 = 25/28; at
  // t = 2 (s = 1/2, h = 2) the slope terms cancel, q = 2.5, and
  // v = (-1.5 * 2 - 0.25 * 2 * 6/7 + 1.5 * 3 - 0.25 * 2 * 6/7) / 2 = 9/28.
  CHECK_THAT(zero_ends.Evaluate(0, 0.5).q, WithinAbs(25.0 / 28.0, 1e-15));
  CHECK_THAT(zero_ends.Evaluate(0, 2.0).q, WithinAbs(2.5, 1e-15));
  CHECK_THAT(zero_ends.Evaluate(0, 2.0).v, WithinAbs(9.0 / 28.0, 1e-15));

  const std::vector<double> d_zero = {0.0, m, m, 0.0};
  const std::vector<double> d_natural = {2.5, m, m, 2.5};
  KeyframeTable natural_table = Column(Interpolation::kPchip, t, q);
  natural_table.end_velocity = EndVelocity::kNatural;
  const Trajectory natural = Build(natural_table);
  for (const auto& [trajectory, d] : {std::make_pair(&zero_ends, d_zero),
                                      std::make_pair(&natural, d_natural)}) {
    for (int k = 0; k < 3; ++k) {
      const double h = t[k + 1] - t[k];
      for (double s : {0.0, 0.2, 0.5, 0.9}) {
        const double time = t[k] + s * h;
        CheckPoint(trajectory->Evaluate(0, time),
                   HermiteSegment(t[k], h, q[k], d[k], q[k + 1], d[k + 1], time), 1e-13);
      }
      CHECK(trajectory->Evaluate(0, t[k]).q == q[k]);
      CHECK_THAT(trajectory->Evaluate(0, t[k]).v, WithinAbs(d[k], 1e-15));
    }
  }

  // The limited natural end slope 3 (secants 1 and -10) with d_1 = 0 makes the first segment
  // 1 - (1 - s)^3: at s = 1/2, q = 7/8, v = 3 (1 - s)^2 = 3/4, a = -6 (1 - s) = -3.
  KeyframeTable limited = Column(Interpolation::kPchip, {0.0, 1.0, 2.0}, {0.0, 1.0, -9.0});
  limited.end_velocity = EndVelocity::kNatural;
  CheckPoint(Build(limited).Evaluate(0, 0.5), {0.875, 0.75, -3.0}, 1e-14);
}

TEST_CASE("control trajectory: pchip takes a keyframe's v instead of its own slope",
          "[control][trajectory][pchip]") {
  KeyframeTable table = Column(Interpolation::kPchip, {0.0, 1.0, 2.0}, {0.0, 1.0, 3.0});
  table.keyframes[1].v = {5.0};
  const Trajectory trajectory = Build(table);
  CHECK_THAT(trajectory.Evaluate(0, 1.0).v, WithinAbs(5.0, 1e-15));
  CHECK(trajectory.Evaluate(0, 0.0).v == 0.0);  // the ends keep end_velocity: zero
  CheckPoint(trajectory.Evaluate(0, 0.4), HermiteSegment(0.0, 1.0, 0.0, 0.0, 1.0, 5.0, 0.4),
             1e-14);
}

// p(t) = t^3 - 2 t^2 + t + 1 and its derivatives, a cubic the spline must reproduce.
TrajectoryPoint Cubic(double t) {
  return {t * t * t - 2 * t * t + t + 1, 3 * t * t - 4 * t + 1, 6 * t - 4};
}

TEST_CASE("control trajectory: the not-a-knot and the end-clamped spline reproduce a cubic",
          "[control][trajectory][spline]") {
  // A cubic meets every condition of either spline, which is unique: it is the spline.
  const std::vector<double> t = {0.0, 0.5, 1.5, 2.0, 3.5};
  std::vector<double> q;
  for (double x : t) q.push_back(Cubic(x).q);

  KeyframeTable not_a_knot = Column(Interpolation::kSpline, t, q);
  not_a_knot.end_velocity = EndVelocity::kNatural;
  KeyframeTable clamped = Column(Interpolation::kSpline, t, q);
  clamped.keyframes.front().v = {Cubic(t.front()).v};
  clamped.keyframes.back().v = {Cubic(t.back()).v};
  for (const KeyframeTable& table : {not_a_knot, clamped}) {
    const Trajectory spline = Build(table);
    for (double time = 0.0; time < 3.5; time += 0.0625) {
      CheckPoint(spline.Evaluate(0, time), Cubic(time), 1e-12);
    }
  }

  // Zero end slopes are the default: the spline then starts and ends at rest.
  const Trajectory rest = Build(Column(Interpolation::kSpline, t, q));
  CHECK(rest.Evaluate(0, 0.0).v == 0.0);
  CHECK_THAT(rest.Evaluate(0, 3.5 - 1e-9).v, WithinAbs(0.0, 1e-6));
}

TEST_CASE("control trajectory: the spline is C2 at its knots, by extrapolating the "
          "acceleration from each side",
          "[control][trajectory][spline]") {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> step(0.2, 1.5), value(-2.0, 2.0);
  const double eps = 1e-3;
  for (EndVelocity end : {EndVelocity::kZero, EndVelocity::kNatural}) {
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<double> t = {0.0}, q = {value(random)};
      for (int k = 1; k < 7; ++k) {
        t.push_back(t.back() + step(random));
        q.push_back(value(random));
      }
      KeyframeTable table = Column(Interpolation::kSpline, t, q);
      table.end_velocity = end;
      const Trajectory spline = Build(table);
      for (int k = 1; k + 1 < 7; ++k) {
        const auto at = [&](double time) { return spline.Evaluate(0, time); };
        // a is linear on each segment: two samples per side extrapolate it to the knot.
        const double a_left = 2 * at(t[k] - eps).a - at(t[k] - 2 * eps).a;
        const double a_right = 2 * at(t[k] + eps).a - at(t[k] + 2 * eps).a;
        CHECK_THAT(a_left, WithinAbs(a_right, 1e-8));
        CHECK_THAT(at(t[k] - eps).v, WithinAbs(at(t[k] + eps).v, 4 * eps * std::abs(a_right) + 1e-5));
        CHECK_THAT(at(t[k] - 1e-12).q, WithinAbs(q[k], 1e-9));
      }
    }
  }
}

TEST_CASE("control trajectory: v and a are the time derivatives of q for every cubic "
          "interpolation, by central differences",
          "[control][trajectory]") {
  const std::vector<double> t = {0.0, 0.4, 1.0, 1.7, 2.5};
  const std::vector<double> q = {0.0, 1.0, -0.5, 0.3, 0.2};
  std::vector<std::vector<double>> q_rows, v_rows;
  for (std::size_t k = 0; k < t.size(); ++k) {
    q_rows.push_back({q[k]});
    v_rows.push_back({std::cos(3.0 * t[k])});
  }
  const double eps = 1e-5;
  for (Interpolation interpolation :
       {Interpolation::kPchip, Interpolation::kSpline, Interpolation::kHermite}) {
    const Trajectory trajectory =
        Build(Table(interpolation, t, q_rows,
                    interpolation == Interpolation::kHermite ? v_rows
                                                             : std::vector<std::vector<double>>()));
    for (double time = 0.05; time < 2.5; time += 0.1) {
      const TrajectoryPoint before = trajectory.Evaluate(0, time - eps);
      const TrajectoryPoint at = trajectory.Evaluate(0, time);
      const TrajectoryPoint after = trajectory.Evaluate(0, time + eps);
      CHECK_THAT((after.q - before.q) / (2 * eps), WithinAbs(at.v, 1e-6));
      CHECK_THAT((after.v - before.v) / (2 * eps), WithinAbs(at.a, 1e-5));
    }
  }
}

TEST_CASE("control trajectory: hermite passes through every keyframe's q and v and "
          "reproduces a cubic",
          "[control][trajectory][hermite]") {
  // p(t) = t^3 - t, p'(t) = 3 t^2 - 1, p''(t) = 6 t.
  const std::vector<double> t = {-1.0, 0.0, 0.5, 2.0};
  std::vector<std::vector<double>> q, v;
  for (double x : t) {
    q.push_back({x * x * x - x});
    v.push_back({3 * x * x - 1});
  }
  const Trajectory hermite = Build(Table(Interpolation::kHermite, t, q, v));
  for (std::size_t k = 0; k + 1 < t.size(); ++k) {
    CHECK(hermite.Evaluate(0, t[k]).q == q[k][0]);
    CHECK(hermite.Evaluate(0, t[k]).v == v[k][0]);
  }
  for (double x = -1.0; x < 2.0; x += 0.125) {
    CheckPoint(hermite.Evaluate(0, x), {x * x * x - x, 3 * x * x - 1, 6 * x}, 1e-13);
  }

  // From rest to rest over h = 2: the smooth step 3 s^2 - 2 s^3; at s = 1/2 q = 1/2,
  // v = 6 s (1 - s) / h = 3/4, a = 0; at s = 0, a = 6 / h^2 = 3/2.
  const Trajectory step =
      Build(Table(Interpolation::kHermite, {0.0, 2.0}, {{0.0}, {1.0}}, {{0.0}, {0.0}}));
  CheckPoint(step.Evaluate(0, 1.0), {0.5, 0.75, 0.0}, 1e-15);
  CHECK_THAT(step.Evaluate(0, 0.0).a, WithinAbs(1.5, 1e-15));
}

// Every sample of every segment lies between the segment's two keyframe values.
void CheckNoOvershoot(const Trajectory& trajectory, const std::vector<double>& t,
                      const std::vector<double>& q) {
  for (std::size_t k = 0; k + 1 < t.size(); ++k) {
    const double low = std::min(q[k], q[k + 1]), high = std::max(q[k], q[k + 1]);
    const double tolerance = 1e-12 * (1.0 + std::abs(high) + std::abs(low));
    for (int i = 0; i <= 64; ++i) {
      const double time = std::min(t[k] + (t[k + 1] - t[k]) * i / 64.0, t[k + 1]);
      const double x = trajectory.Evaluate(0, time).q;
      CHECK(x >= low - tolerance);
      CHECK(x <= high + tolerance);
    }
  }
}

TEST_CASE("control trajectory: pchip never overshoots, on random, monotone and step data, "
          "with either end rule",
          "[control][trajectory][pchip]") {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> step(0.01, 3.0), value(-5.0, 5.0), unit(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int K = 2 + trial % 10;
    std::vector<double> t = {value(random)}, q = {value(random)};
    for (int k = 1; k < K; ++k) {
      t.push_back(t.back() + step(random));
      switch (trial % 3) {
        case 0: q.push_back(value(random)); break;                                // anything
        case 1: q.push_back(q.back() + (unit(random) < 0.3 ? 0.0 : unit(random))); break;  // monotone
        default: q.push_back(unit(random) < 0.5 ? 0.0 : 1.0); break;              // steps
      }
    }
    for (EndVelocity end : {EndVelocity::kZero, EndVelocity::kNatural}) {
      KeyframeTable table = Column(Interpolation::kPchip, t, q);
      table.end_velocity = end;
      const Trajectory pchip = Build(table);
      CheckNoOvershoot(pchip, t, q);
      if (trial % 3 == 1) {  // non-decreasing data: a non-negative velocity everywhere
        for (double time = t.front(); time < t.back(); time += (t.back() - t.front()) / 200) {
          CHECK(pchip.Evaluate(0, time).v >= -1e-12);
        }
      }
    }
  }
  // The property is not trivial: the C2 spline through a step overshoots it.
  const std::vector<double> t = {0.0, 1.0, 2.0, 3.0, 4.0}, q = {0.0, 0.0, 1.0, 1.0, 1.0};
  const Trajectory spline = Build(Column(Interpolation::kSpline, t, q));
  CHECK(spline.Evaluate(0, 2.5).q > 1.0);
  CheckNoOvershoot(Build(Column(Interpolation::kPchip, t, q)), t, q);
}

TEST_CASE("control trajectory: after: repeat starts over with the period last t - first t",
          "[control][trajectory]") {
  KeyframeTable table = Column(Interpolation::kLinear, {1.0, 2.0, 4.0}, {0.0, 1.0, 0.0});
  table.after = AfterLastKeyframe::kRepeat;
  const Trajectory linear = Build(table);
  // Period 3: t = 8.5 is 1 + 7.5 = 1 + 2 * 3 + 1.5, i.e. 2.5 in the first period: on the
  // falling segment, q = 1 - 0.5 / 2, v = -1/2.
  CheckPoint(linear.Evaluate(0, 8.5), {0.75, -0.5, 0.0}, 1e-15);
  CheckPoint(linear.Evaluate(0, 4.0), {0.0, 1.0, 0.0}, 0.0);  // the last knot starts over
  CheckPoint(linear.Evaluate(0, 0.0), {0.0, 0.0, 0.0}, 0.0);  // before the first: held

  table.interpolation = Interpolation::kPchip;
  const Trajectory pchip = Build(table);
  for (double time = 1.0; time < 4.0; time += 0.125) {
    for (int period = 1; period <= 4; ++period) {
      CheckPoint(pchip.Evaluate(0, time + 3.0 * period), pchip.Evaluate(0, time), 1e-12);
    }
  }
}

TEST_CASE("control trajectory: after: hold keeps the last q with zero velocity",
          "[control][trajectory]") {
  KeyframeTable table = Column(Interpolation::kPchip, {0.0, 1.0, 2.0}, {0.0, 1.0, 3.0});
  table.end_velocity = EndVelocity::kNatural;
  const Trajectory pchip = Build(table);
  CHECK(pchip.Evaluate(0, 2.0 - 1e-6).v > 0.0);  // moving as it reaches the last keyframe
  for (double time : {2.0, 2.5, 1e6}) CheckPoint(pchip.Evaluate(0, time), {3.0, 0.0, 0.0}, 0.0);
  CHECK(pchip.first_time() == 0.0);
  CHECK(pchip.last_time() == 2.0);
}

TEST_CASE("control trajectory: every broken rule is reported with its keyframe and column",
          "[control][trajectory]") {
  const std::vector<double> t = {0.0, 1.0, 2.0};
  const std::vector<std::vector<double>> q = {{0.0, 1.0}, {1.0, 2.0}, {2.0, 0.0}};
  const std::vector<std::vector<double>> v = {{0.0, 0.0}, {1.0, 1.0}, {0.0, 0.0}};

  KeyframeTable no_columns = Table(Interpolation::kLinear, t, q);
  no_columns.num_columns = 0;
  CHECK(BuildError(no_columns).rule == TrajectoryRule::kNoColumns);

  const TrajectoryError short_spline = BuildError(Table(Interpolation::kSpline, {0.0, 1.0}, {q[0], q[1]}));
  CHECK(short_spline.rule == TrajectoryRule::kTooFewKeyframes);
  CHECK(short_spline.keyframe == -1);
  CHECK_THAT(short_spline.message, Contains("spline") && Contains("at least 3"));
  CHECK(BuildError(Table(Interpolation::kLinear, {0.0}, {q[0]})).rule ==
        TrajectoryRule::kTooFewKeyframes);
  KeyframeTable empty;
  empty.num_columns = 1;
  empty.interpolation = Interpolation::kZeroOrderHold;
  CHECK(BuildError(empty).rule == TrajectoryRule::kTooFewKeyframes);

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const TrajectoryError nan_time = BuildError(Table(Interpolation::kLinear, {0.0, nan, 2.0}, q));
  CHECK(nan_time.rule == TrajectoryRule::kTimeNotFinite);
  CHECK(nan_time.keyframe == 1);
  CHECK(nan_time.field == KeyframeField::kTime);

  for (const std::vector<double>& bad_times : {std::vector<double>{0.0, 1.0, 1.0},
                                               std::vector<double>{0.0, 2.0, 1.0}}) {
    const TrajectoryError error = BuildError(Table(Interpolation::kPchip, bad_times, q));
    CHECK(error.rule == TrajectoryRule::kTimesNotIncreasing);
    CHECK(error.keyframe == 2);
    CHECK(error.field == KeyframeField::kTime);
    CHECK_THAT(error.message, Contains("keyframe 2") && Contains("increase strictly"));
  }

  KeyframeTable short_row = Table(Interpolation::kPchip, t, q);
  short_row.keyframes[1].q = {1.0};
  const TrajectoryError row = BuildError(short_row);
  CHECK(row.rule == TrajectoryRule::kRowLength);
  CHECK(row.keyframe == 1);
  CHECK(row.field == KeyframeField::kPositions);
  CHECK_THAT(row.message, Contains("1 values, expected 2"));

  KeyframeTable long_v = Table(Interpolation::kHermite, t, q, v);
  long_v.keyframes[2].v = {0.0, 0.0, 0.0};
  const TrajectoryError v_row = BuildError(long_v);
  CHECK(v_row.rule == TrajectoryRule::kRowLength);
  CHECK(v_row.keyframe == 2);
  CHECK(v_row.field == KeyframeField::kVelocities);

  KeyframeTable infinite = Table(Interpolation::kPchip, t, q);
  infinite.keyframes[2].q[1] = inf;
  const TrajectoryError value = BuildError(infinite);
  CHECK(value.rule == TrajectoryRule::kValueNotFinite);
  CHECK(value.keyframe == 2);
  CHECK(value.column == 1);
  CHECK_THAT(value.message, Contains("q[1]"));

  KeyframeTable missing_v = Table(Interpolation::kHermite, t, q, v);
  missing_v.keyframes[1].v.clear();
  const TrajectoryError missing = BuildError(missing_v);
  CHECK(missing.rule == TrajectoryRule::kVelocityMissing);
  CHECK(missing.keyframe == 1);

  const TrajectoryError unused = BuildError(Table(Interpolation::kLinear, t, q, v));
  CHECK(unused.rule == TrajectoryRule::kVelocityNotUsed);
  CHECK(unused.keyframe == 0);

  const TrajectoryError inside = BuildError(Table(Interpolation::kSpline, t, q, v));
  CHECK(inside.rule == TrajectoryRule::kVelocityInsideSpline);
  CHECK(inside.keyframe == 1);
}

TEST_CASE("control trajectory: evaluation does not allocate", "[control][trajectory]") {
  const Trajectory trajectory =
      Build(Table(Interpolation::kSpline, {0.0, 1.0, 2.0, 3.0},
                  {{0.0, 1.0}, {1.0, 0.0}, {0.5, 0.5}, {2.0, 1.0}}));
  double q[2], v[2], a[2];
  double sum = 0.0;
  const std::size_t before = testing::AllocationCount();
  for (double time = -1.0; time < 5.0; time += 0.01) {
    sum += trajectory.Evaluate(1, time).q;
    trajectory.EvaluateAll(time, q, v, a);
    sum += q[0] + v[0] + a[1];
  }
  CHECK(testing::AllocationCount() - before == 0);
  CHECK(std::isfinite(sum));
}

TEST_CASE("control trajectory: degree columns convert to radians, q and v alike",
          "[control][trajectory]") {
  KeyframeTable table = Table(Interpolation::kHermite, {0.0, 1.0}, {{180.0, 2.0}, {-90.0, 3.0}},
                              {{90.0, 1.0}, {0.0, 1.0}});
  ConvertColumnsToRadians({true, false}, &table);
  CHECK_THAT(table.keyframes[0].q[0], WithinAbs(kPi, 1e-15));
  CHECK_THAT(table.keyframes[1].q[0], WithinAbs(-kPi / 2, 1e-15));
  CHECK_THAT(table.keyframes[0].v[0], WithinAbs(kPi / 2, 1e-15));
  CHECK(table.keyframes[0].q[1] == 2.0);
  CHECK(table.keyframes[1].v[1] == 1.0);
  table.keyframes[1].q = {};  // a short row is left for BuildTrajectory to reject
  ConvertColumnsToRadians({true, false}, &table);
  CHECK(BuildError(table).rule == TrajectoryRule::kRowLength);
}

TEST_CASE("control trajectory: the scene's names of the choices read back",
          "[control][trajectory]") {
  for (Interpolation i : {Interpolation::kZeroOrderHold, Interpolation::kLinear,
                          Interpolation::kPchip, Interpolation::kSpline, Interpolation::kHermite}) {
    CHECK(ParseInterpolation(Name(i)) == i);
  }
  CHECK(ParseInterpolation("pchip") == Interpolation::kPchip);
  CHECK(ParseInterpolation("cubic") == std::nullopt);
  CHECK(ParseEndVelocity("natural") == EndVelocity::kNatural);
  CHECK(ParseEndVelocity("zero") == EndVelocity::kZero);
  CHECK(ParseEndVelocity("clamped") == std::nullopt);
  CHECK(ParseAfterLastKeyframe("repeat") == AfterLastKeyframe::kRepeat);
  CHECK(ParseAfterLastKeyframe("hold") == AfterLastKeyframe::kHold);
  CHECK(ParseAfterLastKeyframe("loop") == std::nullopt);
}

}  // namespace
}  // namespace csim::control
