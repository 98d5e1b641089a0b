#pragma once
// Per-joint kinematics: the transform across a joint, its motion subspace and velocity
// product term, for every joint type of the scene format.
//
// Frames: J is the joint frame (fixed in the parent body P), C the child body frame,
// which coincides with J at q = 0. Motion subspace S and bias cJ are expressed in C, so
// the joint's spatial velocity is vJ = S v_j and its contribution to the child's spatial
// acceleration is S vdot_j + cJ (Featherstone, RBDA sec. 3.5 / 4.4).
//
// Velocity coordinates (scene-format.md): revolute/prismatic rates; planar (xdot, ydot,
// thetadot) in J; ball: angular velocity in C; free: [angular; linear] velocity of C's
// origin, both expressed in J (the world frame for a free body).

#include <Eigen/Dense>

#include "engine/math/spatial.h"
#include "engine/multibody/model.h"

namespace csim::multibody {

/// Joint coordinates stored without heap allocation (at most 7 for a free joint).
using JointVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 7, 1>;
/// 6 x nv motion subspace (nv <= 6) stored without heap allocation.
using MotionSubspace = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;

/// Transform X_JC(q_j), motion subspace S(q_j) and velocity-product term cJ = Sdot v_j.
struct JointKinematics {
  math::RigidTransform X_JC;
  MotionSubspace S;
  math::Vector6 cJ = math::Vector6::Zero();
};

/// Computes X_JC, S and cJ of `joint` at coordinates q_j (size nq) and rates v_j (nv).
/// Quaternions need not be unit length (they are normalised for the rotation).
void CalcJointKinematics(const Joint& joint, const JointVector& q_j, const JointVector& v_j,
                         JointKinematics* out);

/// Position, velocity and acceleration of a prescribed joint of `model` at time t [s]: for a
/// sine, q = A sin(2 pi f t + phase) elementwise and its first two time derivatives; for a
/// table, the joint's columns of its trajectory at t (control::Trajectory::Evaluate). The
/// callers choose t, and both kinds are sampled at the same instants
/// (docs/design/trajectories-and-signals.md §6.1). Allocation free.
void CalcPrescribedMotion(const Model& model, const Joint& joint, double t, JointVector* q_j,
                          JointVector* v_j, JointVector* a_j);

}  // namespace csim::multibody
