// README.md promises two commands for a fresh Debian 12 machine; .ci/run must run the
// second one (install, build, whole test suite) literally, so the two cannot drift apart.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Lines of README.md that start with tools/install-deps.sh: the two one-line commands.
std::vector<std::string> ReadmeCommands() {
  std::vector<std::string> commands;
  for (const std::string& line : Lines(std::string(CSIM_SOURCE_DIR) + "/README.md")) {
    if (line.rfind("tools/install-deps.sh", 0) == 0) commands.push_back(line);
  }
  return commands;
}

}  // namespace

TEST_CASE("README has exactly two install-build commands, run then test", "[readme]") {
  const std::vector<std::string> commands = ReadmeCommands();
  REQUIRE(commands.size() == 2);
  CHECK(commands[0].find("csim run scenes/pendulum.yaml") != std::string::npos);
  CHECK(commands[1].find("ctest") != std::string::npos);
}

TEST_CASE(".ci/run runs README's test command literally", "[readme]") {
  const std::vector<std::string> commands = ReadmeCommands();
  REQUIRE(commands.size() == 2);
  bool found = false;
  for (const std::string& line : Lines(std::string(CSIM_SOURCE_DIR) + "/.ci/run")) {
    if (line == commands[1]) found = true;
  }
  CHECK(found);
}
