#pragma once
// MJCF text of a csim Model, for the MuJoCo side of the comparison: the same bodies
// (mass, centre of mass, full inertia), the same initial poses, the same collision shapes
// and poses, friction 1 (taken from the scene's materials), the same time step and
// gravity, MuJoCo's Newton solver with elliptic cones. Contact softness is MuJoCo's own
// (default solref/solimp): the two contact models differ by design and no mapping between
// them is exact, so the benchmark states both settings rather than pretending otherwise.
//
// Supported: free bodies that are children of the world (the clutter scenes), trees of
// revolute, prismatic, ball and fixed joints (the ropes, imported robots: nested bodies,
// each posed at the scene's initial configuration, so MuJoCo's zero joint coordinates
// start where csim's initial ones do), joint damping equal across a joint's velocities,
// world geometry; shapes sphere, box, cylinder, capsule, ellipsoid, halfspace (MuJoCo
// plane) and mesh (file or inline: an <asset> <mesh> of the ConvexMesh's vertices and
// triangles; MuJoCo moves the vertices into the mesh's inertial frame and the geom by the
// inverse, so they land where csim has them, and collides their convex hull as csim does).
// Bodies start at rest; their mass, centre of mass and full inertia are given explicitly.
// Joint armature and dry friction are MuJoCo's armature and frictionloss; limits of a
// revolute or prismatic joint are its range (limited, measured from the initial coordinate
// like qpos; MuJoCo's limit is soft with its default solref and solimp), a spring its
// stiffness and springref (explicit in MuJoCo's Euler step, implicit in csim's).
// Collision filter: csim's (contact::MakeCollisionFilter: the joint rule, ball and weld
// constraints, the scene's `collision_filter:` pairs and groups) is given to MuJoCo as
// <contact> <exclude> pairs where MuJoCo's own weld-based parent filter would let a pair
// collide; a pair csim lets collide but MuJoCo's filter drops (parent and child allowed to
// collide, a body across a fixed joint from its grandparent) is refused. Frames (scene
// `frames:`) are left out: they carry no dynamics.
//
// Actuators (scene `actuators:`, one MuJoCo actuator each, in order). A PD actuator is a
// `general` actuator with gain kp and affine bias (0, -kp, -kd), so its force is
// kp ctrl - kp qpos - kd qvel, clamped by forcerange = +-effort_limit; ControlsAt sets
// ctrl = q_d - q_initial + (kd v_d + u0) / kp from the targets and feed-forward at the end
// of the step, where csim samples them. The force is then csim's
// clamp(-kp (q - q_d) - kd (v - v_d) + u0, -e, e), the feed-forward inside the clamp as in
// csim (a second motor or qfrc_applied would leave it outside). A velocity servo (kp = 0)
// has the gain kd and ctrl = v_d + u0 / kd. What differs: MuJoCo evaluates the force at
// the step's start state (explicit in q and v; only joint damping is implicit in its Euler),
// csim at the end of the step (implicit, docs/design/actuators-and-constraints.md §2), so
// the two agree to first order in dt and MuJoCo needs kd dt / A_jj well below 2 to be
// stable; csim's near-rigid gain clamp (§2.3) is not reproduced. A force actuator is a
// motor with ctrl = its clamped feed-forward at the step's start (csim's explicit force).
//
// Constraints (scene `constraints:`): a coupler is a joint equality (polycoef a0 = ratio
// q_f0 + offset - q_j0, a1 = ratio, in MuJoCo's coordinates measured from the initial
// ones); a ball is a connect (anchor P in body A); a weld is a weld (relative pose taken at
// the initial state); a distance is a spatial tendon between two sites, held by a tendon
// equality when rigid or by the tendon's spring and damper when its stiffness is finite
// (MuJoCo 2.2.2 rejects its own distance equality). A ball or weld violated at the initial
// state is refused: MuJoCo would take the violated pose as the one to hold. MuJoCo's
// equality softness is its own (default solref, solimp), as for contacts.
//
// Anything else (planar joints, one-sided limits, limits or springs on a ball joint,
// prescribed motion, free joints below a body, the filter pairs above, external loads)
// throws std::invalid_argument.

#include <string>

#include "engine/multibody/model.h"
#include "engine/sim/settings.h"

namespace csim::bench {

/// MuJoCo settings the writer uses, stated in the benchmark's output.
struct MjcfOptions {
  int iterations = 100;       ///< Newton iterations per step (as csim's max_iterations)
  double tolerance = 1e-8;    ///< MuJoCo's default solver tolerance
  /// Contact buffer (MuJoCo 2.2.2 preallocates): contacts per body, 3 constraint rows
  /// each. The clutter piles use about 2-3 per body; an overflow is reported by the runner.
  /// Larger buffers make mj_makeData fail at 80+ bodies (its arena grows with njmax * nv).
  int contacts_per_body = 16;
};

/// The MJCF document for `model` with `settings.time_step`.
std::string WriteMjcf(const multibody::Model& model, const sim::Settings& settings,
                      const MjcfOptions& options);

/// MuJoCo's ctrl (one per Model::actuators entry, WriteMjcf's actuator order) for the
/// step from t0 [s] of length dt [s].
void ControlsAt(const multibody::Model& model, double t0, double dt, double* ctrl);

/// One line stating the MuJoCo settings of WriteMjcf.
std::string MujocoSettingsLine(const sim::Settings& settings, const MjcfOptions& options);

}  // namespace csim::bench
