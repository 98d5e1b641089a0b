#include "engine/multibody/actuator_inputs.h"

#include <algorithm>

namespace csim::multibody {

double ActuatorFeedforward(const Model& model, const Actuator& actuator, double t) {
  switch (actuator.feedforward_kind) {
    case FeedforwardKind::kNone: return 0.0;
    case FeedforwardKind::kSignal: return model.signals.Evaluate(actuator.signal, t);
    case FeedforwardKind::kConstant:
    case FeedforwardKind::kGravity: return actuator.feedforward;
  }
  return 0.0;
}

void ActuatorTarget(const Model& model, const Actuator& actuator, double t, double* q_d,
                    double* v_d) {
  if (actuator.target < 0) {
    *q_d = actuator.q_hold;
    *v_d = 0.0;
    return;
  }
  const control::TrajectoryPoint point =
      model.trajectories[actuator.target].table.Evaluate(actuator.target_column, t);
  *q_d = point.q;
  *v_d = point.v;
}

double ForceActuatorEffort(const Model& model, const Actuator& actuator, double t) {
  const double e = actuator.effort_limit;
  return std::clamp(ActuatorFeedforward(model, actuator, t), -e, e);
}

bool HasForceActuators(const Model& model) {
  return std::any_of(model.actuators.begin(), model.actuators.end(),
                     [](const Actuator& a) { return !a.pd; });
}

void AddForceActuatorForces(const Model& model, double t, Eigen::VectorXd* tau) {
  for (const Actuator& actuator : model.actuators)
    if (!actuator.pd) (*tau)[actuator.dof] += ForceActuatorEffort(model, actuator, t);
}

}  // namespace csim::multibody
