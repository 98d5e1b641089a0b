#include "tests/support/fetched_models.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <catch2/catch.hpp>

namespace csim::testing {

std::string FetchedModelsRoot() {
  namespace fs = std::filesystem;
  const fs::path build = fs::read_symlink("/proc/self/exe").parent_path().parent_path();
  const std::string dest = (build / "models").string();
  static std::once_flag once;
  static int status = -1;
  std::call_once(once, [&] {
    const std::string command = "'" + std::string(CSIM_SOURCE_DIR) + "/tools/fetch-models.sh' '" +
                                dest + "' >'" + dest + ".log' 2>&1";
    status = std::system(command.c_str());
  });
  INFO("tools/fetch-models.sh failed: see " << dest << ".log");
  REQUIRE(status == 0);
  return dest;
}

std::string DartUrdfDir() { return FetchedModelsRoot() + "/usr/share/doc/dart/data/urdf"; }

}  // namespace csim::testing
