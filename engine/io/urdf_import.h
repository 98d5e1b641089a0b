#pragma once
// Turning a URDF model (urdf_reader.h) into csim's terms (imported_model.h), by the rules of
// docs/design/model-import.md §2:
//   - a link is a body: mass, centre of mass at the inertial origin, inertia rotated into
//     the link frame (InertiaInLinkFrame); a link without <inertial> is a body without mass
//     (the expansion merges it if welded, or asks for a density);
//   - a joint keeps its origin as the joint frame (URDF's child frame is the joint frame at
//     q = 0, as csim's); revolute and continuous -> revolute, prismatic -> prismatic, fixed
//     -> fixed, floating -> free, planar -> planar with the child's frame turned so that its
//     z is the URDF axis (the child's contents are re-expressed in the turned frame and its
//     name is kept as a frame where the link frame was);
//   - <limit> lower < upper -> joint limits; effort > 0 -> the joint's effort limit;
//     <dynamics> -> damping and dry friction; <mimic> -> a coupler constraint;
//   - <collision> box, sphere, cylinder, capsule -> the same shapes; mesh -> a mesh of the
//     resolved file (model_uri.h) with the URDF scale;
//   - <visual>, unless the scene leaves visuals out -> the same shapes as visual-only geometry
//     (collide false), with the colour of its material (its own <color>, or that of the
//     robot-level material it names); a visual mesh stays a reference to its resolved file,
//     which the simulation never reads (the replay page draws it);
//   - a SimpleTransmission -> an actuator on its joint with the joint's effort limit;
//   - a root link named "world" without inertial, collision or (imported) visual is ROS's
//     world: it is left out and its joints attach to the base.
// Not imported, and said in model-import.md: velocity limits, <safety_controller> and
// <calibration> (controller data csim does not simulate), visual textures.

#include <string>
#include <vector>

#include "engine/io/imported_model.h"
#include "engine/io/model_uri.h"
#include "engine/io/urdf_reader.h"

namespace csim::io {

/// Converts `urdf`, resolving mesh names with `uris`, with its <visual> geometry when
/// `visuals` (without, their mesh names are not even resolved). Throws InputError (located
/// in the URDF file) for what csim cannot represent; appends located warnings to *warnings.
ImportedModel ImportUrdf(const UrdfModel& urdf, const ModelUriContext& uris, bool visuals,
                         std::vector<std::string>* warnings);

}  // namespace csim::io
