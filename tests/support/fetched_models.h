#pragma once
// The third-party robot models of Debian's packages, unpacked by tools/fetch-models.sh into
// <build>/models once per test program run (the script itself is locked and stamped, so
// parallel test processes share one download).

#include <string>

namespace csim::testing {

/// <build>/models, fetched on first use; fails the calling test case when the script fails.
std::string FetchedModelsRoot();

/// The dart-doc URDF folder: FetchedModelsRoot() + "/usr/share/doc/dart/data/urdf".
std::string DartUrdfDir();

}  // namespace csim::testing
