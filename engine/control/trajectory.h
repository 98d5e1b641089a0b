#pragma once
// Keyframe trajectories: a table of keyframes (a time and one position per column, with
// optional velocities) and the function of time it interpolates, per column
// (docs/design/trajectories-and-signals.md). The actuators sample it for their targets
// q_d, v_d (at the end of the step, §6); a `table` signal is a one-column trajectory.
//
// The scene's table is checked and turned into per-segment polynomial coefficients once,
// by BuildTrajectory; evaluating at a time t then only reads them, without allocating.
// Design choice: every interpolation is stored the same way, as a cubic per segment and
// column in powers of the time since the segment's first knot (zoh and linear have zero
// higher coefficients), so that evaluation is one code path. Alternatives rejected: a class
// per interpolation (a virtual call per sample and five copies of the segment search), and
// storing the knot slopes and evaluating the Hermite basis (the same work per sample, and
// acceleration would need its own formula).
//
// Units: a column's positions are in the unit of its joint coordinate ([rad] or [m]), its
// velocities per second; times in [s]. ConvertColumnsToRadians helps a loader that accepts
// degrees.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace csim::control {

/// How the keyframes are joined (§1-§4).
enum class Interpolation {
  kZeroOrderHold,  ///< `zoh`: each keyframe's q until the next keyframe; v = 0
  kLinear,         ///< `linear`: straight segments; v jumps at the keyframes
  kPchip,          ///< `pchip`: shape-preserving cubic, never overshoots (default)
  kSpline,         ///< `spline`: C2 cubic spline; needs at least 3 keyframes
  kHermite,        ///< `hermite`: cubic through every keyframe's q and v; needs v everywhere
};

/// End slopes of pchip and spline where the first or last keyframe gives no v (§2.2, §3.2).
enum class EndVelocity {
  kZero,     ///< `zero`: v = 0 at both ends (default): starts and stops at rest
  kNatural,  ///< `natural`: pchip's three-point end slopes; the not-a-knot spline
};

/// What the trajectory does after its last keyframe (§5).
enum class AfterLastKeyframe {
  kHold,    ///< `hold`: the last q with v = 0 (default)
  kRepeat,  ///< `repeat`: starts over, period = last t - first t
};

/// One row of the table as the scene gives it.
struct Keyframe {
  double t = 0.0;         ///< time [s]
  std::vector<double> q;  ///< one position per column [rad] or [m]
  std::vector<double> v;  ///< one velocity per column [rad/s] or [m/s]; empty: not given
};

/// A trajectory as the scene describes it, before any check.
///
/// A keyframe's v is required at every keyframe by hermite; pchip takes it at the keyframes
/// that give it instead of its own slope (shape preservation is then the user's); spline
/// takes it at the first and last keyframe only, as that end's slope; zoh and linear have
/// no use for it and reject it (§1).
struct KeyframeTable {
  int num_columns = 0;  ///< the length of every q (and v) row
  std::vector<Keyframe> keyframes;
  Interpolation interpolation = Interpolation::kPchip;
  EndVelocity end_velocity = EndVelocity::kZero;
  AfterLastKeyframe after = AfterLastKeyframe::kHold;
};

/// The rules BuildTrajectory checks: the table's first (columns, number of keyframes), then
/// each keyframe's in file order.
enum class TrajectoryRule {
  kNoColumns,             ///< num_columns < 1
  kTooFewKeyframes,       ///< zoh: 1, linear, pchip, hermite: 2, spline: 3
  kTimeNotFinite,         ///< a keyframe's t is NaN or infinite
  kTimesNotIncreasing,    ///< a keyframe's t is not greater than the previous one's
  kRowLength,             ///< a q or v row whose length is not num_columns
  kValueNotFinite,        ///< a q or v entry is NaN or infinite
  kVelocityMissing,       ///< hermite and a keyframe without v
  kVelocityNotUsed,       ///< zoh or linear and a keyframe with v
  kVelocityInsideSpline,  ///< spline and v at a keyframe that is neither first nor last
};

/// Which part of the table an error concerns, so that a loader can point at its node.
enum class KeyframeField { kTable, kKeyframe, kTime, kPositions, kVelocities };

/// The first rule a table breaks. `message` says what is wrong in words (with the keyframe
/// index and column where there is one), without a file location: the loader adds it.
struct TrajectoryError {
  TrajectoryRule rule = TrajectoryRule::kNoColumns;
  KeyframeField field = KeyframeField::kTable;
  int keyframe = -1;  ///< index into KeyframeTable::keyframes; -1: the table as a whole
  int column = -1;    ///< column index; -1: the row as a whole
  std::string message;
};

/// Position, velocity and acceleration of one column at one time.
struct TrajectoryPoint {
  double q = 0.0;  ///< [rad] or [m]
  double v = 0.0;  ///< [rad/s] or [m/s]
  double a = 0.0;  ///< [rad/s^2] or [m/s^2]; between keyframes (zoh, linear: 0)
};

class Trajectory;
struct TrajectoryBuild;

/// Checks `table` against every TrajectoryRule and, if it passes, computes its segments.
TrajectoryBuild BuildTrajectory(const KeyframeTable& table);

/// An immutable interpolated keyframe table.
///
/// Times: before the first keyframe the trajectory holds the first q with v = 0, whatever
/// `after` says; each segment [t_k, t_{k+1}) is closed on the left, so at a keyframe's own
/// time zoh and linear report that keyframe's segment (§5).
class Trajectory {
 public:
  int num_columns() const { return num_columns_; }
  int num_keyframes() const { return static_cast<int>(times_.size()); }
  double first_time() const { return times_.front(); }  ///< [s]
  double last_time() const { return times_.back(); }    ///< [s]
  Interpolation interpolation() const { return interpolation_; }
  AfterLastKeyframe after() const { return after_; }

  /// Column `column` (0 <= column < num_columns()) at time t [s]. Does not allocate.
  TrajectoryPoint Evaluate(int column, double t) const;

  /// Every column at time t [s]: q, v and a point to num_columns() values each; any of them
  /// may be null when not wanted. Does not allocate.
  void EvaluateAll(double t, double* q, double* v, double* a) const;

 private:
  friend TrajectoryBuild BuildTrajectory(const KeyframeTable& table);
  Trajectory() = default;

  // Where time t falls: on a segment at local time tau = t - t_k, or held at a fixed q.
  struct Location {
    int segment = -1;   ///< -1: held (before the first or, with hold, after the last keyframe)
    int held_row = 0;   ///< which keyframe's q is held: 0 or the last
    double tau = 0.0;   ///< [s]
  };
  Location Locate(double t) const;
  TrajectoryPoint EvaluateAt(const Location& where, int column) const;

  int num_columns_ = 0;
  Interpolation interpolation_ = Interpolation::kPchip;
  AfterLastKeyframe after_ = AfterLastKeyframe::kHold;
  std::vector<double> times_;  ///< keyframe times t_k [s], K entries
  /// Segment k, column c, power p (q = sum_p c_p tau^p) at [(k * num_columns + c) * 4 + p].
  std::vector<double> coefficients_;
  /// The first and last keyframe's q, num_columns each, held outside the keyframes.
  std::vector<double> first_q_, last_q_;
};

/// BuildTrajectory's answer: exactly one of the two is set.
struct TrajectoryBuild {
  std::optional<Trajectory> trajectory;
  std::optional<TrajectoryError> error;
};

/// The scene's name of each choice (`zoh`, `linear`, `pchip`, `spline`, `hermite`; `zero`,
/// `natural`; `hold`, `repeat`) and back; nullopt for a name that is none of them.
std::string_view Name(Interpolation interpolation);
std::string_view Name(EndVelocity end_velocity);
std::string_view Name(AfterLastKeyframe after);
std::optional<Interpolation> ParseInterpolation(std::string_view name);
std::optional<EndVelocity> ParseEndVelocity(std::string_view name);
std::optional<AfterLastKeyframe> ParseAfterLastKeyframe(std::string_view name);

/// Multiplies q and v of every column c with in_degrees[c] by pi/180, for a loader that
/// reads `units: deg` (revolute columns only: that is the loader's rule). Entries beyond a
/// row's end are left for BuildTrajectory to reject; in_degrees may be shorter than a row.
void ConvertColumnsToRadians(const std::vector<bool>& in_degrees, KeyframeTable* table);

}  // namespace csim::control
