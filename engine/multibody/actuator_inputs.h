#pragma once
// The time-dependent inputs of the joint actuators (multibody/actuator.h): targets,
// feed-forward, and the explicit efforts of the force actuators.
//
// Design choice: a force actuator (no gains) is an open-loop input like an external load
// (external_loads.h) and enters the free motion the same way, as an explicit generalized
// force evaluated once at the step's start t_n and kept through the step's iterations
// (integrator/theta_method.h): a square-wave feed-forward whose edges fall on step
// boundaries then gives the exact impulse. A PD actuator's inputs are sampled by its
// constraint's builder at the end of the step instead (contact/pd_actuators.h), where the
// implicit effort is evaluated.

#include <Eigen/Dense>

#include "engine/multibody/model.h"

namespace csim::multibody {

/// The feed-forward u0 [N m or N] of `actuator` at time t [s], not clamped.
double ActuatorFeedforward(const Model& model, const Actuator& actuator, double t);

/// The targets q_d [rad or m] and v_d [rad/s or m/s] of `actuator` at time t [s]: its
/// trajectory's column, or the held initial value with v_d = 0. Does not allocate.
void ActuatorTarget(const Model& model, const Actuator& actuator, double t, double* q_d,
                    double* v_d);

/// The effort of a force actuator at time t [s]: its feed-forward clamped to the limit.
double ForceActuatorEffort(const Model& model, const Actuator& actuator, double t);

/// Whether some actuator of the model is a force actuator (no gains).
bool HasForceActuators(const Model& model);

/// tau (nv) += every force actuator's effort at time t [s] on its coordinate. Allocation free.
void AddForceActuatorForces(const Model& model, double t, Eigen::VectorXd* tau);

}  // namespace csim::multibody
