#pragma once
// A fresh folder under the system's temporary directory for one test's files, removed with
// everything in it when the test ends.

#include <filesystem>
#include <string>
#include <vector>

namespace csim::testing {

class TempDir {
 public:
  /// Creates <temporary directory>/<prefix>XXXXXX (mkdtemp); REQUIREs that it could.
  explicit TempDir(const std::string& prefix = "csim_test_");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The path of `name` inside the folder.
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  /// Files whose names end in `.h5`, to prove that a rejected run wrote nothing.
  std::vector<std::string> H5Files() const;
  bool Empty() const { return std::filesystem::is_empty(path_); }

 private:
  std::filesystem::path path_;
};

}  // namespace csim::testing
