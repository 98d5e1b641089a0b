#include "tests/support/temp_dir.h"

#include <stdlib.h>

#include <catch2/catch.hpp>

namespace csim::testing {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::H5Files() const {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(path_)) {
    if (e.path().extension() == ".h5") out.push_back(e.path().string());
  }
  return out;
}

}  // namespace csim::testing
