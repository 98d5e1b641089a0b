#pragma once
// /model of the output file (output-format.md, "Groups and datasets"): the model as the run
// uses it, so that a reader can label and slice the time series and draw the mechanism
// from the file alone.
//
// What it holds:
// - bodies and joints: body_names (a dimension scale of the per-body series), joint_names,
//   joint_types, each joint's offsets in q and v (joint_q_start, joint_v_start, -1 for a
//   joint that owns no coordinates), nq and nv, and where each joint attaches
//   (joint_parent, joint_position, joint_quaternion);
// - joint_friction, per velocity coordinate, only in models with joint friction;
// - constraint_*: each holonomic constraint's name, type, columns of /constraints/impulse
//   and the bodies and points it joins, only in models with constraints;
// - actuator_*: each actuator's name, joint, coordinate, gains and effort limit, only in
//   models with actuators.
// The optional datasets are absent, not empty, when the model has nothing for them.
// /model/geometry has its own writer (hdf5_geometry.h).
//
// Written by Hdf5Recorder::Begin, before SWMR writing starts (nothing may be created
// afterwards).

#include "engine/io/hdf5_file.h"
#include "engine/multibody/model.h"

namespace csim::io {

/// Creates the group /model in `file` and writes every dataset listed above for `model`,
/// each with its `units` and `description` attributes. Returns /model/body_names, which
/// the caller makes a dimension scale. Throws IoError.
Hdf5Dataset WriteModel(Hdf5File& file, const multibody::Model& model);

}  // namespace csim::io
