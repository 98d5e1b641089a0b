#pragma once
// Reads an MJCF file into an ImportedModel (imported_model.h) through MuJoCo's own compiler
// (mj_loadXML of libmujoco 2.2.2): defaults, classes, includes, angle units, autolimits and
// mesh processing are MuJoCo's, and csim reads the compiled mjModel, not the XML
// (docs/design/model-import.md §3).
//
// Conversion into csim's conventions:
// - Frames. csim's child body frame is the joint frame at q = 0. A MuJoCo joint rotates its
//   body about the joint's anchor (jnt_pos), so the csim body frame is the MuJoCo body frame
//   moved to that anchor (same axes): its centre of mass, geometry, sites and children's
//   joint frames are shifted by minus the anchor. A free joint has no anchor (its q is the
//   body frame's pose); a slide joint's anchor does not change the motion, and it is shifted
//   like the others for one rule.
// - Several joints on one MuJoCo body become a chain: one csim body per joint, the first
//   ones named "BODY|JOINT" with mass 0 and has_inertial false (they carry nothing), the
//   last one the MuJoCo body itself with its name, mass, geometry and sites. A massless body
//   that moves is refused by the expansion unless its joint is locked (`lock:`), so a
//   scene locks all joints of such a chain but the last (as Fetch's base slides are), or
//   all of them.
// - A body without joints (mocap bodies too) is welded to its parent: a fixed joint named
//   after the body. Every top-level body gets a joint to the base (parent -1), so the model
//   has no roots: the base is MuJoCo's world.
// - Coordinates: csim's q is measured from the compiled model pose, MuJoCo's from qpos0
//   (the joint's `ref` for hinge and slide joints), so csim q = qpos - qpos0 for hinge and
//   slide joints; limits, spring rest positions (qpos_spring) and keyframes are converted
//   the same way. A ball joint's q is MuJoCo's quaternion; a free joint's is MuJoCo's
//   quaternion then position of the body frame in the world (its initial q is qpos0, the
//   model pose; MuJoCo orders position first). q_initial is set only when it is not the
//   joint's zero configuration.
// - Geoms: MuJoCo's sizes become csim's (capsule and cylinder size[1] is a half length,
//   box sizes half edges); meshes are taken from the compiled model (MuJoCo has moved them
//   to their inertial frame and scaled them) as vertices and triangles in the geometry
//   frame. A geom with contype = conaffinity = 0 is visual (collide false). Geoms of the
//   world body become base_geometry. Height fields are dropped.
// - Joint damping, armature, frictionloss (-> friction), stiffness and limits (when
//   jnt_limited) per joint. Actuators on joint transmissions: a motor becomes a force
//   actuator, a position or velocity servo (fixed gain, affine bias -kp q - kv v) a PD
//   servo with kp = gear^2 gainprm[0], kd = -gear^2 biasprm[2]; the effort limit is
//   |gear| times the force range (forcelimited), else |gear gain| times the control range
//   of a motor (ctrllimited). Equality constraints: connect -> ball, weld -> weld (body 2's
//   compiled relative pose in body 1), joint -> coupler when its polynomial is linear.
//   Keyframes -> poses; sites -> frames; contact excludes -> excluded_pairs (body names,
//   "" for the world).
// Everything else in the model (tendons, sensors, other actuators and equality constraints,
// inactive constraints, cameras, lights, predefined contact pairs) is dropped with a warning
// `FILE: ...` in *warnings. MuJoCo keeps no source lines in mjModel, so every element's
// source is the file alone.
//
// Errors: a file MuJoCo cannot load throws csim::InputError at the file, with the line and
// column MuJoCo names in its message (when it names one).

#include <string>
#include <vector>

#include "engine/io/imported_model.h"

namespace csim::io {

/// Compiles the MJCF file at `path` with MuJoCo and converts it (see above). Warnings, each
/// `FILE: message`, are appended to *warnings (may be null: dropped).
ImportedModel ImportMjcfFile(const std::string& path, std::vector<std::string>* warnings);

/// The location an error message of MuJoCo's XML reader or compiler names: "line N" and
/// "column N" (MuJoCo writes "column = -1" when it has none), in `file`.
SourceLocation MujocoErrorLocation(const std::string& message, const std::string& file);

}  // namespace csim::io
