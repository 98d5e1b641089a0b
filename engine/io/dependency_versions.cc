#include "engine/io/dependency_versions.h"

#include <Eigen/Core>
#include <hdf5.h>
#include <spdlog/version.h>

#include "engine/common/version.h"

namespace csim::io {

std::string VersionString() {
  return std::string(kVersion) + " (git " + kGitCommit + ")";
}

std::string DependencyVersions() {
  auto v3 = [](int a, int b, int c) {
    return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
  };
  std::string out;
  out += "Eigen " + v3(EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION) + "\n";
  out += "HDF5 " + v3(H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE) + "\n";
  out += "spdlog " + v3(SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH) + "\n";
  out += "yaml-cpp 0.7\n";
  out += std::string("compiler ") + __VERSION__ + "\n";
  return out;
}

}  // namespace csim::io
