#pragma once
// Reading the scene's `trajectories:` map (scene-format.md "trajectories") into the model's
// keyframe trajectories (control/trajectory.h), and the pieces a `table` signal shares with
// it (signal_reader.h).
//
// A trajectory's columns are the coordinates of the joints it lists, in order: one column
// for a revolute or prismatic joint, three for a planar one (x, y, angle). A keyframe's `q`
// is a row of numbers or the name of one of the trajectory's `poses`; `units: deg` converts
// the angle columns (revolute joints and a planar joint's angle) to radians, poses included.
// control::BuildTrajectory checks the table; its first error is reported at the node it
// concerns (docs/design/trajectories-and-signals.md §8). A keyframe position outside its
// joint's limits is allowed, with a located warning: the joint cannot follow it there.
// A trajectory with a `frame` may also give keyframes as the frame's pose, which
// cartesian_keyframes.h solves into joint rows once the table as written has passed its
// checks.

#include <string>
#include <vector>

#include "engine/control/trajectory.h"
#include "engine/io/yaml_reader.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// Reads the optional `interpolation`, `end_velocity` and `after` keys of `node` into
/// *table (unknown names fail at their node).
void ReadTableOptions(const NodeReader& node, control::KeyframeTable* table);

/// The node a BuildTrajectory error is about: keyframe k's `t`, its `q` or `v` (the item
/// of the column when the row is a list), or the keyframe itself; `keyframe_list` for the
/// number of keyframes, `columns` for the columns. A keyframe may be a map {t, q, v} or a
/// list [t, value] (a table signal's point).
NodeReader LocateTrajectoryError(const control::TrajectoryError& error,
                                 const std::vector<NodeReader>& keyframes,
                                 const NodeReader& keyframe_list, const NodeReader& columns);

/// The trajectories of the scene's root map, in file order, with their joints resolved in
/// `model` (whose joints are final). Keyframes outside a joint's limits append a located
/// warning to *warnings. Throws InputError at the first rule broken.
std::vector<multibody::JointTrajectory> ReadTrajectories(const NodeReader& root,
                                                         const multibody::Model& model,
                                                         std::vector<std::string>* warnings);

}  // namespace csim::io
