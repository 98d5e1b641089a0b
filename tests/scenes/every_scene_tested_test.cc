// Every scene in scenes/ states what to expect in its header comment, and some test checks
// it: a test case whose name contains "scenes/NAME.yaml" (most in tests/scenes/, a few in
// tests/contact_physics/). A scene added without one fails here.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace csim::scenes {
namespace {

namespace fs = std::filesystem;

// The names of every TEST_CASE under tests/: the string literals right after
// "TEST_CASE(", joined as the compiler joins adjacent literals.
std::set<std::string> TestCaseNames() {
  std::set<std::string> names;
  const std::string opening = "TEST_CASE(";
  for (const auto& entry : fs::recursive_directory_iterator(std::string(CSIM_SOURCE_DIR) + "/tests")) {
    if (entry.path().extension() != ".cc") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    for (size_t at = source.find(opening); at != std::string::npos; at = source.find(opening, at + 1)) {
      std::string name;
      size_t i = at + opening.size();
      while (true) {
        while (i < source.size() && std::isspace(static_cast<unsigned char>(source[i]))) ++i;
        if (i >= source.size() || source[i] != '"') break;
        for (++i; i < source.size() && source[i] != '"'; ++i) {
          if (source[i] == '\\' && i + 1 < source.size()) ++i;
          name += source[i];
        }
        ++i;  // the closing quote
      }
      if (!name.empty()) names.insert(name);
    }
  }
  return names;
}

TEST_CASE("every scene in scenes/ has a test case named after it", "[scenes]") {
  const std::set<std::string> names = TestCaseNames();
  REQUIRE(names.size() > 100);  // the parser found the suite
  int scenes = 0;
  for (const auto& entry : fs::directory_iterator(std::string(CSIM_SOURCE_DIR) + "/scenes")) {
    if (entry.path().extension() != ".yaml") continue;
    ++scenes;
    const std::string key = "scenes/" + entry.path().filename().string();
    INFO(key);
    CHECK(std::any_of(names.begin(), names.end(),
                      [&](const std::string& name) { return name.find(key) != std::string::npos; }));
  }
  CHECK(scenes > 0);
}

}  // namespace
}  // namespace csim::scenes
