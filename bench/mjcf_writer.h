#pragma once
// MJCF text of a csim Model, for the MuJoCo side of the comparison: the same bodies
// (mass, centre of mass, full inertia), the same initial poses, the same collision shapes
// and poses, friction 1 (taken from the scene's materials), the same time step and
// gravity, MuJoCo's Newton solver with elliptic cones. Contact softness is MuJoCo's own
// (default solref/solimp): the two contact models differ by design and no mapping between
// them is exact, so the benchmark states both settings rather than pretending otherwise.
//
// Supported: free bodies that are children of the world (the clutter scenes), trees of
// revolute, prismatic, ball and fixed joints (the ropes: nested bodies, each posed at the
// scene's initial configuration, so MuJoCo's zero joint coordinates start where csim's
// initial ones do), joint damping equal across a joint's velocities, world geometry;
// shapes sphere, box, cylinder, capsule, ellipsoid, halfspace (MuJoCo plane). Bodies start
// at rest. A body jointed to the world by anything but a free joint touches the world's
// geometry only if its joint says `collide: true` in csim (collision_filter.h), so the
// document excludes that pair otherwise (MuJoCo's own parent filter spares the world).
// Anything else (limits, springs, planar joints, prescribed motion, free joints below a
// body, parent and child allowed to collide) throws std::invalid_argument.

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

/// One line stating the MuJoCo settings of WriteMjcf.
std::string MujocoSettingsLine(const sim::Settings& settings, const MjcfOptions& options);

}  // namespace csim::bench
