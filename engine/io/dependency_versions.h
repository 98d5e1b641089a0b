#pragma once
// Versions of csim and of the libraries it was built against, for `csim --version` and the
// `csim_version` attribute of output files.

#include <string>

namespace csim::io {

/// "0.1.0 (git abc1234)".
std::string VersionString();

/// One line per dependency: "Eigen 3.4.0", "yaml-cpp", "FCL 0.7.0", "HDF5 1.10.8", ...
std::string DependencyVersions();

}  // namespace csim::io
