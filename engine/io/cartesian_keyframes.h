#pragma once
// Cartesian keyframes (scene-format.md "trajectories"): a trajectory that names a `frame`
// may give a keyframe as the frame's pose in the world instead of a joint row. The loader
// turns every such keyframe into a joint row by inverse kinematics over the trajectory's
// joints (multibody/inverse_kinematics.h), so the result is an ordinary joint-space table
// that prescribed joints and actuator targets follow unchanged.
//
// Keyframes are solved in file order, each seeded by the previous solution (the first by
// the model's initial q), so consecutive rows stay on one branch of the arm's solutions. A
// `q` keyframe is taken as given and reseeds the next solve. A pose keyframe with
// `path: straight` gets intermediate keyframes on the segment arriving at it, at most 1 cm
// and 3 degrees apart, at times proportional to the way along it: the frame then moves on
// the straight line (its rotation by slerp) to within the interpolation's small deviation
// between the rows. A pose (or an intermediate point) that the joints cannot reach within
// kReachTolerance is rejected at the keyframe's pose, with the closest distance found.

#include <string>
#include <vector>

#include "engine/control/trajectory.h"
#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// How close a solved pose must come to its keyframe: [m] for the position and [rad] for
/// the angle. The solve itself converges to about 1e-10 on a reachable pose; this margin
/// only separates a reachable pose from an unreachable one.
constexpr double kReachTolerance = 1e-6;

/// Checks the keys of keyframe `item` of a trajectory with (`cartesian`) or without a
/// `frame`, and returns whether it is a pose keyframe (gives `pose` rather than `q`).
bool ReadKeyframeKind(const NodeReader& item, bool cartesian);

/// The joint-space table of a Cartesian trajectory. `table` holds one keyframe per item of
/// `items`, as read and checked: a `q` keyframe's row (in radians), any row for a pose
/// keyframe. `frame` is the trajectory's `frame` node (a frame of model.frames or a body),
/// `joints` the listed joints with their nodes `joint_items`. Throws InputError at the first
/// listed joint that does not move the frame, at an unreachable pose, or at a misplaced
/// `path`.
control::KeyframeTable SolveCartesianKeyframes(const std::string& trajectory,
                                               const NodeReader& frame,
                                               const std::vector<int>& joints,
                                               const std::vector<NodeReader>& joint_items,
                                               const std::vector<NodeReader>& items,
                                               const control::KeyframeTable& table,
                                               const multibody::Model& model);

}  // namespace csim::io
