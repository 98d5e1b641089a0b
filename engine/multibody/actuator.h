#pragma once
// A joint actuator (scene `actuators:`): a motor on one velocity coordinate of a revolute,
// prismatic or planar joint, as the loader resolved it.
//
// Two kinds share the struct. A PD actuator (kp or kd given) delivers
//   u = clamp(-kp (q - q_d) - kd (v - v_d) + u0, -e, e)
// and is solved implicitly, one solver::SapPdConstraint per step (contact/pd_actuators.h),
// with q_d, v_d and a signal u0 sampled at the end of the step. A force actuator (neither
// gain given) delivers clamp(u0, -e, e), an explicit generalized force evaluated at the start
// of the step, as the external loads are (multibody/actuator_inputs.h).
// docs/design/actuators-and-constraints.md §2 and §7 give the law and the builder's use.

#include <limits>
#include <string>

namespace csim::multibody {

/// Where an actuator's feed-forward u0 comes from.
enum class FeedforwardKind {
  kNone,      ///< u0 = 0
  kConstant,  ///< a number in the scene
  kSignal,    ///< a signal of Model::signals
  kGravity,   ///< the generalized force that holds the model still at q0 (a constant)
};

struct Actuator {
  std::string name;
  int joint = -1;       ///< the joint it drives (joint = body index)
  int coordinate = 0;   ///< the coordinate of that joint, 0 unless the joint is planar
  int dof = -1;         ///< its index in v (= joint.v_start + coordinate)
  int q_index = -1;     ///< its index in q (= joint.q_start + coordinate)
  bool pd = false;      ///< kp or kd was given: a PD actuator; else a force actuator
  double kp = 0.0;      ///< [N m/rad or N/m] >= 0, finite (0 for a force actuator)
  /// [N m s/rad or N s/m] >= 0, finite; from `damping_ratio` when given, at the initial state
  double kd = 0.0;
  double effort_limit = std::numeric_limits<double>::infinity();  ///< e [N m or N] > 0
  /// The target trajectory (index into Model::trajectories) and its column for this
  /// coordinate; -1: hold q_hold with v_d = 0.
  int target = -1;
  int target_column = -1;
  double q_hold = 0.0;  ///< the coordinate's initial value [rad or m], the default target
  FeedforwardKind feedforward_kind = FeedforwardKind::kNone;
  double feedforward = 0.0;  ///< u0 [N m or N] of kConstant and kGravity
  int signal = -1;           ///< kSignal: index into Model::signals
};

}  // namespace csim::multibody
