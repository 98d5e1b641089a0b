#include "engine/io/model_uri.h"

#include <filesystem>
#include <system_error>

namespace csim::io {
namespace {

std::string Join(const std::string& dir, const std::string& rest) {
  if (dir.empty()) return rest;
  return (std::filesystem::path(dir) / rest).string();
}

bool IsFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

/// The folder of package `name`: the scene's map first, then ROS_PACKAGE_PATH.
std::string PackageFolder(const std::string& name, const ModelUriContext& context,
                          const std::string& uri, const SourceLocation& where) {
  if (const auto it = context.packages.find(name); it != context.packages.end()) {
    const std::string& dir = it->second;
    return std::filesystem::path(dir).is_absolute() ? dir : Join(context.scene_dir, dir);
  }
  size_t start = 0;
  const std::string& path = context.ros_package_path;
  while (start <= path.size() && !path.empty()) {
    const size_t end = std::min(path.find(':', start), path.size());
    const std::string dir = path.substr(start, end - start);
    std::error_code ec;
    if (!dir.empty() && std::filesystem::is_directory(Join(dir, name), ec))
      return Join(dir, name);
    start = end + 1;
  }
  throw InputError(where, "'" + uri + "' names package '" + name +
                              "', which neither the models entry's packages map nor "
                              "ROS_PACKAGE_PATH provides (add packages: {" + name +
                              ": FOLDER} to the entry)");
}

}  // namespace

std::string ResolveModelUri(const std::string& uri, const ModelUriContext& context,
                            const SourceLocation& where) {
  static const std::string kPackage = "package://";
  static const std::string kFile = "file://";
  std::string path;
  if (uri.compare(0, kPackage.size(), kPackage) == 0) {
    const std::string rest = uri.substr(kPackage.size());
    const size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0)
      throw InputError(where, "'" + uri + "' is not package://NAME/PATH");
    path = Join(PackageFolder(rest.substr(0, slash), context, uri, where), rest.substr(slash + 1));
  } else if (uri.compare(0, kFile.size(), kFile) == 0) {
    path = uri.substr(kFile.size());
  } else if (std::filesystem::path(uri).is_absolute()) {
    path = uri;
  } else {
    path = Join(context.model_dir, uri);
  }
  if (!IsFile(path))
    throw InputError(where, "mesh '" + uri + "' resolves to '" + path + "', which is not a file");
  return path;
}

}  // namespace csim::io
