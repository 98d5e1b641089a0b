#pragma once
// A holonomic constraint between two bodies or two joints of the model (scene
// `constraints:`, docs/scene-format.md; docs/design/actuators-and-constraints.md §4-§5): a
// coupler between two joint coordinates, a distance between two points, a ball joining two
// points, or a weld joining two frames. The problem builder turns each into one SAP
// holonomic constraint per step (engine/contact/holonomic_constraint_builder.h).
//
// Conventions: P (point_a or frame pose_a) is fixed on body A and Q on body B; a body index
// of -1 is the world. The constraint's rows and its impulse act on B relative to A
// (engine/solver/holonomic_constraint_kinematics.h).

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/math/spatial.h"

namespace csim::multibody {

enum class HolonomicType { kCoupler, kDistance, kBall, kWeld };

/// Scene-format name of a constraint type ("coupler", ...).
const char* HolonomicTypeName(HolonomicType type);
/// Rows of a constraint type: coupler 1, distance 1, ball 3 (world axes), weld 6 (rotation
/// vector in world axes, then position in world axes).
int HolonomicRows(HolonomicType type);

struct HolonomicConstraint;
/// Where each constraint's rows lie when all are stacked in order (the columns of
/// /constraints/impulse, the builder's output rows): constraints.size() + 1 offsets, entry i
/// the first row of constraint i and the last the total.
std::vector<int> HolonomicRowOffsets(const std::vector<HolonomicConstraint>& constraints);
/// Rows of all `constraints` together: HolonomicRowOffsets(constraints).back().
int TotalHolonomicRows(const std::vector<HolonomicConstraint>& constraints);

/// What a constraint joins, as a reader draws it: two bodies (-1 the world) and a point in
/// each body's frame [m].
struct HolonomicAttachment {
  int body_a = -1, body_b = -1;
  Eigen::Vector3d p_AP = Eigen::Vector3d::Zero(), p_BQ = Eigen::Vector3d::Zero();
};

struct HolonomicConstraint {
  std::string name;  ///< the scene's `name`, or "<type><index>" when it has none
  HolonomicType type = HolonomicType::kBall;
  // Coupler: q[joint] = ratio q[follows] + offset, both one-coordinate joints owning it.
  int joint = -1;        ///< joint (= body) index of the coupled coordinate
  int follows = -1;      ///< joint (= body) index of the coordinate it follows
  double ratio = 1.0;    ///< [1], or [m/rad] / [rad/m] between a prismatic and a revolute joint
  double offset = 0.0;   ///< units of q[joint]
  // Distance, ball, weld.
  int body_a = -1, body_b = -1;         ///< -1 the world
  math::RigidTransform X_AP, X_BQ;      ///< P in A, Q in B (points: rotation unused) [m]
  double length = 0.0;                  ///< distance: the held length [m] > 0
  double stiffness = std::numeric_limits<double>::infinity();  ///< distance [N/m] > 0
  double damping = 0.0;                 ///< distance [N s/m] >= 0
  bool collide = false;                 ///< ball, weld: A and B may still collide
};

/// The bodies and points `c` joins. A coupler joins coordinates, not points: its bodies are
/// those its two joints move (joint i moves body i), the followed one first, at their
/// origins.
HolonomicAttachment AttachmentOf(const HolonomicConstraint& c);

}  // namespace csim::multibody
