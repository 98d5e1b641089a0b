#pragma once
// Inverse kinematics of one frame's pose: the coordinates of chosen joints that put a frame
// fixed on a body at a given pose in the world. The loader solves it once per Cartesian
// keyframe (io/cartesian_keyframes.h), so it allocates freely.
//
// Method: Levenberg-Marquardt (damped least squares) on the pose error
//   e = [L log(R_target R^T); p_target - p],
// the world-axis rotation vector of the remaining rotation and the position error of the
// frame's origin, with the angular rows weighted by a length L (the largest distance from
// the frame to a listed joint at the seed, at least 1 cm) so that both halves are in metres
// and a turn of the arm counts like the displacement it causes. A step solves
// (J J^T + lambda^2 I) y = e, dx = J^T y on the listed joints' columns of the frame
// Jacobian (jacobians.h); lambda shrinks after a step that lowers |e| and grows after one
// that does not, so the solve is Gauss-Newton (quadratic convergence) near a solution and
// gradient descent near a singularity or an unreachable target.
//
// Redundancy: a step adds N (q_seed - q), N the exact projector onto the null space of the
// free columns of J, so that among the solutions the one closest to the seed is preferred
// (a trajectory's consecutive solutions stay on one branch). The projection is exact,
// unlike the damped one, so it does not disturb the pose at the solution.
//
// Restarts: a descent can end in a local minimum of |e| (a limit in the way, an arm folded
// the wrong way). Then up to `restarts` more descents start from seeds spread over the
// limits (a full turn or the length L around the seed for a joint without limits), in a
// fixed pseudo-random order so that a scene always loads the same, and the converged
// solution closest to the given seed is kept, or else the smallest error found.
//
// Joint limits: the seed is clamped into the limits, and a step that would leave them is
// recomputed with each offending coordinate moved exactly onto its limit and removed from
// the free columns (an active set, grown until the step is feasible), so the pose error
// is then reduced with the joints that can still move.

#include <vector>

#include <Eigen/Dense>

#include "engine/math/spatial.h"
#include "engine/multibody/model.h"

namespace csim::multibody {

struct InverseKinematicsOptions {
  double position_tolerance = 1e-10;  ///< [m] on |p_target - p|
  double angle_tolerance = 1e-10;     ///< [rad] on the angle of R_target R^T
  int max_iterations = 200;           ///< trial steps of one descent, rejected ones included
  int restarts = 20;                  ///< further descents after one that fails
  double time = 0.0;                  ///< [s] at which prescribed joints are evaluated
};

struct InverseKinematicsResult {
  Eigen::VectorXd q;            ///< (nq) the seed with the listed joints' coordinates moved
  double position_error = 0.0;  ///< |p_target - p| at q [m]
  double angle_error = 0.0;     ///< angle of R_target R^T at q [rad], in [0, pi]
  bool converged = false;       ///< both errors within their tolerances
  int iterations = 0;           ///< trial steps taken, over every descent
};

/// Moves the coordinates of `joints` (joint indices; each must own its coordinates and be
/// revolute, prismatic or planar, whose q changes as v) from `q_seed` (nq) so that frame F,
/// fixed on body `body` (-1: the world) at X_BF, reaches X_WF_target. Every other coordinate
/// keeps its seed value. Returns the best q found and its residual; an unreachable target
/// (or one beyond the joints' limits) returns the closest pose found, not converged.
InverseKinematicsResult SolveInverseKinematics(const Model& model, int body,
                                               const math::RigidTransform& X_BF,
                                               const math::RigidTransform& X_WF_target,
                                               const std::vector<int>& joints,
                                               const Eigen::VectorXd& q_seed,
                                               const InverseKinematicsOptions& options = {});

/// Pose in the world of frame F fixed on body `body` (-1: the world) at X_BF, at q and the
/// time t of prescribed joints.
math::RigidTransform CalcFramePose(const Model& model, int body, const math::RigidTransform& X_BF,
                                   const Eigen::VectorXd& q, double t = 0.0);

}  // namespace csim::multibody
