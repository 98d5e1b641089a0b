#pragma once
// Resolving the file names a robot model gives for its meshes (URDF <mesh filename>):
//   package://NAME/REST  through the scene's `packages:` map (NAME -> folder, relative to
//                        the scene), else the first folder F of ROS_PACKAGE_PATH (':'-separated)
//                        that holds F/NAME, as ROS's resource lookup does;
//   file:///ABS          the absolute path;
//   anything else        relative to the model file's folder.
// A package with no mapping, or a file that does not exist, is a located error at the
// element that names it.

#include <map>
#include <string>

#include "engine/common/input_error.h"

namespace csim::io {

struct ModelUriContext {
  std::string model_dir;  ///< folder of the model file ("" for the current one)
  std::string scene_dir;  ///< folder of the scene, against which `packages` are relative
  std::map<std::string, std::string> packages;  ///< package name -> folder
  std::string ros_package_path;  ///< the environment's ROS_PACKAGE_PATH ("" if unset)
};

/// The path csim opens for `uri`; throws InputError at `where` when it cannot be resolved
/// or names no file.
std::string ResolveModelUri(const std::string& uri, const ModelUriContext& context,
                            const SourceLocation& where);

}  // namespace csim::io
