#pragma once
// Turns a state into a recorded row: body poses and velocities, energies.

#include "engine/multibody/model.h"
#include "engine/multibody/state.h"
#include "engine/multibody/workspace.h"
#include "engine/sim/recorder.h"

namespace csim::sim {

/// A row with every array sized for `model` (contacts reserved, empty; joint_friction zero,
/// or empty without joint friction).
Row MakeRow(const multibody::Model& model);

/// Fills row.time, q, v, body poses and velocities and energies from `state` (runs the
/// kinematics into ws). Step index and solver statistics are the caller's. Allocation free.
void FillRow(const multibody::Model& model, const multibody::State& state,
             multibody::Workspace& ws, Row* row);

}  // namespace csim::sim
