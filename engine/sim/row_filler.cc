#include "engine/sim/row_filler.h"

#include "engine/contact/pd_actuators.h"
#include "engine/math/rotation.h"
#include "engine/multibody/energy.h"
#include "engine/multibody/kinematics.h"

namespace csim::sim {

Row MakeRow(const multibody::Model& model) {
  const int nb = model.num_bodies();
  Row row;
  row.q.setZero(model.nq);
  row.v.setZero(model.nv);
  row.body_position.setZero(3, nb);
  row.body_quaternion.setZero(4, nb);
  row.body_linear_velocity.setZero(3, nb);
  row.body_angular_velocity.setZero(3, nb);
  row.contacts.reserve(64);
  row.surfaces.reserve(8);
  if (model.HasJointFriction()) row.joint_friction.setZero(model.nv);
  if (!model.constraints.empty())
    row.constraint_impulse.setZero(multibody::TotalHolonomicRows(model.constraints));
  if (!model.actuators.empty()) {
    const contact::ActuatorOutputs initial = contact::MakeActuatorOutputs(model, 0.0);
    row.actuator_effort = initial.effort;
    row.actuator_q_target = initial.q_target;
    row.actuator_v_target = initial.v_target;
    row.actuator_saturated = initial.saturated;
  }
  return row;
}

void FillRow(const multibody::Model& model, const multibody::State& state,
             multibody::Workspace& ws, Row* row) {
  multibody::CalcKinematics(model, state.t, state.q, state.v, ws);
  row->time = state.t;
  row->q = state.q;
  row->v = state.v;
  for (int b = 0; b < model.num_bodies(); ++b) {
    row->body_position.col(b) = ws.X_WB[b].p;
    row->body_quaternion.col(b) = math::QuaternionFromRotation(ws.X_WB[b].R);
    row->body_linear_velocity.col(b) = multibody::BodyOriginVelocityWorld(ws, b);
    row->body_angular_velocity.col(b) = multibody::BodyAngularVelocityWorld(ws, b);
  }
  row->kinetic_energy = multibody::CalcKineticEnergy(model, ws);
  row->potential_energy = multibody::CalcPotentialEnergy(model, ws);
}

}  // namespace csim::sim
