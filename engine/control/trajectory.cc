#include "engine/control/trajectory.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>

#include "engine/common/check.h"
#include "engine/control/cubic_slopes.h"

namespace csim::control {
namespace {

constexpr int kPowers = 4;  // coefficients per segment and column: tau^0 .. tau^3

// The shortest text that reads back as x, for messages.
std::string Number(double x) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

int MinimumKeyframes(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::kZeroOrderHold: return 1;
    case Interpolation::kSpline: return 3;
    default: return 2;
  }
}

TrajectoryError Error(TrajectoryRule rule, KeyframeField field, int keyframe, int column,
                      const std::string& message) {
  TrajectoryError error;
  error.rule = rule;
  error.field = field;
  error.keyframe = keyframe;
  error.column = column;
  error.message = keyframe >= 0 ? "keyframe " + std::to_string(keyframe) + ": " + message
                                : message;
  return error;
}

// A q or v row: its length, then its entries. `what` is "q" or "v".
std::optional<TrajectoryError> CheckRow(const std::vector<double>& row, int num_columns,
                                        int keyframe, KeyframeField field, const char* what) {
  if (static_cast<int>(row.size()) != num_columns) {
    return Error(TrajectoryRule::kRowLength, field, keyframe, -1,
                 std::string(what) + " has " + std::to_string(row.size()) +
                     " values, expected " + std::to_string(num_columns) + " (one per column)");
  }
  for (int c = 0; c < num_columns; ++c) {
    if (!std::isfinite(row[c])) {
      return Error(TrajectoryRule::kValueNotFinite, field, keyframe, c,
                   std::string(what) + "[" + std::to_string(c) + "] = " + Number(row[c]) +
                       " is not a finite number");
    }
  }
  return std::nullopt;
}

std::optional<TrajectoryError> CheckKeyframe(const KeyframeTable& table, int k) {
  const Keyframe& key = table.keyframes[k];
  const Interpolation interpolation = table.interpolation;
  const std::string method(Name(interpolation));
  const int last = static_cast<int>(table.keyframes.size()) - 1;

  if (!std::isfinite(key.t)) {
    return Error(TrajectoryRule::kTimeNotFinite, KeyframeField::kTime, k, -1,
                 "t = " + Number(key.t) + " is not a finite number");
  }
  if (k > 0 && !(key.t > table.keyframes[k - 1].t)) {
    return Error(TrajectoryRule::kTimesNotIncreasing, KeyframeField::kTime, k, -1,
                 "t = " + Number(key.t) + " is not after keyframe " + std::to_string(k - 1) +
                     "'s t = " + Number(table.keyframes[k - 1].t) +
                     " (times must increase strictly)");
  }
  if (auto error = CheckRow(key.q, table.num_columns, k, KeyframeField::kPositions, "q")) {
    return error;
  }
  const bool has_v = !key.v.empty();
  if (has_v) {
    if (auto error = CheckRow(key.v, table.num_columns, k, KeyframeField::kVelocities, "v")) {
      return error;
    }
  }
  if (interpolation == Interpolation::kHermite && !has_v) {
    return Error(TrajectoryRule::kVelocityMissing, KeyframeField::kKeyframe, k, -1,
                 "hermite interpolation needs v at every keyframe");
  }
  if (has_v && (interpolation == Interpolation::kZeroOrderHold ||
                interpolation == Interpolation::kLinear)) {
    return Error(TrajectoryRule::kVelocityNotUsed, KeyframeField::kVelocities, k, -1,
                 method + " interpolation does not use v (remove it, or choose pchip, "
                          "spline or hermite)");
  }
  if (has_v && interpolation == Interpolation::kSpline && k != 0 && k != last) {
    return Error(TrajectoryRule::kVelocityInsideSpline, KeyframeField::kVelocities, k, -1,
                 "spline interpolation takes v only at the first and last keyframe, as end "
                 "slopes (choose hermite or pchip for velocities at interior keyframes)");
  }
  return std::nullopt;
}

std::optional<TrajectoryError> CheckTable(const KeyframeTable& table) {
  if (table.num_columns < 1) {
    return Error(TrajectoryRule::kNoColumns, KeyframeField::kTable, -1, -1,
                 "the table has no columns");
  }
  const int count = static_cast<int>(table.keyframes.size());
  const int minimum = MinimumKeyframes(table.interpolation);
  if (count < minimum) {
    return Error(TrajectoryRule::kTooFewKeyframes, KeyframeField::kTable, -1, -1,
                 std::string(Name(table.interpolation)) + " interpolation needs at least " +
                     std::to_string(minimum) + (minimum == 1 ? " keyframe" : " keyframes") +
                     ", the table has " + std::to_string(count));
  }
  for (int k = 0; k < count; ++k) {
    if (auto error = CheckKeyframe(table, k)) return error;
  }
  return std::nullopt;
}

// Knot slopes of one column for the cubic interpolations (§2-§4).
std::vector<double> CubicSlopes(const KeyframeTable& table, const std::vector<double>& t,
                                const std::vector<double>& q, int column) {
  const std::vector<Keyframe>& keys = table.keyframes;
  const std::size_t K = keys.size();
  const bool natural = table.end_velocity == EndVelocity::kNatural;
  std::vector<double> d;
  switch (table.interpolation) {
    case Interpolation::kHermite:
      for (const Keyframe& key : keys) d.push_back(key.v[column]);
      return d;
    case Interpolation::kSpline: {
      auto end = [&](const Keyframe& key) {
        SplineEnd e;
        if (!key.v.empty()) {
          e.slope = key.v[column];
        } else if (natural) {
          e.kind = SplineEnd::Kind::kNotAKnot;
        }
        return e;
      };
      return SplineSlopes(t, q, end(keys.front()), end(keys.back()));
    }
    default:  // pchip (zoh and linear have no slopes); a keyframe's own v replaces its slope
      d = PchipSlopes(t, q, natural);
      for (std::size_t k = 0; k < K; ++k) {
        if (!keys[k].v.empty()) d[k] = keys[k].v[column];
      }
      return d;
  }
}

}  // namespace

TrajectoryBuild BuildTrajectory(const KeyframeTable& table) {
  TrajectoryBuild build;
  build.error = CheckTable(table);
  if (build.error) return build;

  const int n = table.num_columns;
  const std::vector<Keyframe>& keys = table.keyframes;
  const int K = static_cast<int>(keys.size());
  Trajectory trajectory;
  trajectory.num_columns_ = n;
  trajectory.interpolation_ = table.interpolation;
  trajectory.after_ = table.after;
  for (const Keyframe& key : keys) trajectory.times_.push_back(key.t);
  trajectory.first_q_ = keys.front().q;
  trajectory.last_q_ = keys.back().q;
  trajectory.coefficients_.assign(static_cast<std::size_t>(K - 1) * n * kPowers, 0.0);

  const std::vector<double>& t = trajectory.times_;
  const bool cubic = table.interpolation != Interpolation::kZeroOrderHold &&
                     table.interpolation != Interpolation::kLinear;
  std::vector<double> q(K);
  for (int c = 0; c < n; ++c) {
    for (int k = 0; k < K; ++k) q[k] = keys[k].q[c];
    const std::vector<double> d = cubic ? CubicSlopes(table, t, q, c) : std::vector<double>();
    for (int k = 0; k + 1 < K; ++k) {
      double* coefficient =
          &trajectory.coefficients_[(static_cast<std::size_t>(k) * n + c) * kPowers];
      const double h = t[k + 1] - t[k];
      const double delta = (q[k + 1] - q[k]) / h;
      coefficient[0] = q[k];
      if (table.interpolation == Interpolation::kLinear) {
        coefficient[1] = delta;
      } else if (cubic) {
        // The cubic Hermite segment through (q_k, d_k) and (q_{k+1}, d_{k+1}) (§1).
        coefficient[1] = d[k];
        coefficient[2] = (3.0 * delta - 2.0 * d[k] - d[k + 1]) / h;
        coefficient[3] = (d[k] + d[k + 1] - 2.0 * delta) / (h * h);
      }
    }
  }
  build.trajectory = std::move(trajectory);
  return build;
}

Trajectory::Location Trajectory::Locate(double t) const {
  CSIM_CHECK(!std::isnan(t));
  Location where;
  const int K = num_keyframes();
  if (t < times_.front()) return where;  // held at the first keyframe
  if (t >= times_.back()) {
    if (after_ == AfterLastKeyframe::kHold || K == 1) {
      where.held_row = K - 1;
      return where;
    }
    // Repeat: the same time within the first period (fmod is exact).
    t = times_.front() + std::fmod(t - times_.front(), times_.back() - times_.front());
  }
  // The segment whose left knot is the last one at or before t (the rounding of the repeat
  // sum may land on the last knot: it then counts as the end of the last segment).
  const auto after_t = std::upper_bound(times_.begin(), times_.end(), t);
  where.segment = std::min(static_cast<int>(after_t - times_.begin()) - 1, K - 2);
  where.tau = t - times_[where.segment];
  return where;
}

TrajectoryPoint Trajectory::EvaluateAt(const Location& where, int column) const {
  TrajectoryPoint point;
  if (where.segment < 0) {
    point.q = (where.held_row == 0 ? first_q_ : last_q_)[column];
    return point;
  }
  const double* c =
      &coefficients_[(static_cast<std::size_t>(where.segment) * num_columns_ + column) * kPowers];
  const double tau = where.tau;
  point.q = c[0] + tau * (c[1] + tau * (c[2] + tau * c[3]));
  point.v = c[1] + tau * (2.0 * c[2] + tau * 3.0 * c[3]);
  point.a = 2.0 * c[2] + tau * 6.0 * c[3];
  return point;
}

TrajectoryPoint Trajectory::Evaluate(int column, double t) const {
  CSIM_CHECK(column >= 0 && column < num_columns_);
  return EvaluateAt(Locate(t), column);
}

void Trajectory::EvaluateAll(double t, double* q, double* v, double* a) const {
  const Location where = Locate(t);
  for (int c = 0; c < num_columns_; ++c) {
    const TrajectoryPoint point = EvaluateAt(where, c);
    if (q) q[c] = point.q;
    if (v) v[c] = point.v;
    if (a) a[c] = point.a;
  }
}

std::string_view Name(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::kZeroOrderHold: return "zoh";
    case Interpolation::kLinear: return "linear";
    case Interpolation::kPchip: return "pchip";
    case Interpolation::kSpline: return "spline";
    case Interpolation::kHermite: return "hermite";
  }
  return "";
}

std::string_view Name(EndVelocity end_velocity) {
  return end_velocity == EndVelocity::kZero ? "zero" : "natural";
}

std::string_view Name(AfterLastKeyframe after) {
  return after == AfterLastKeyframe::kHold ? "hold" : "repeat";
}

std::optional<Interpolation> ParseInterpolation(std::string_view name) {
  for (Interpolation i : {Interpolation::kZeroOrderHold, Interpolation::kLinear,
                          Interpolation::kPchip, Interpolation::kSpline, Interpolation::kHermite}) {
    if (Name(i) == name) return i;
  }
  return std::nullopt;
}

std::optional<EndVelocity> ParseEndVelocity(std::string_view name) {
  for (EndVelocity e : {EndVelocity::kZero, EndVelocity::kNatural}) {
    if (Name(e) == name) return e;
  }
  return std::nullopt;
}

std::optional<AfterLastKeyframe> ParseAfterLastKeyframe(std::string_view name) {
  for (AfterLastKeyframe a : {AfterLastKeyframe::kHold, AfterLastKeyframe::kRepeat}) {
    if (Name(a) == name) return a;
  }
  return std::nullopt;
}

void ConvertColumnsToRadians(const std::vector<bool>& in_degrees, KeyframeTable* table) {
  constexpr double kRadiansPerDegree = 3.14159265358979323846 / 180.0;
  for (Keyframe& key : table->keyframes) {
    for (std::vector<double>* row : {&key.q, &key.v}) {
      const std::size_t n = std::min(row->size(), in_degrees.size());
      for (std::size_t c = 0; c < n; ++c) {
        if (in_degrees[c]) (*row)[c] *= kRadiansPerDegree;
      }
    }
  }
}

}  // namespace csim::control
