#include "tests/support/scene_errors.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <catch2/catch.hpp>

#include "engine/io/scene_loader.h"

namespace csim::test {
namespace {

/// Line `line` of `text` with a caret under column `col` (1-based), for failure messages.
std::string Caret(const std::string& text, int line, int col) {
  size_t start = 0;
  for (int i = 1; i < line && start != std::string::npos; ++i) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return "";
  const std::string row = text.substr(start, text.find('\n', start) - start);
  return row + "\n" + std::string(col > 0 ? col - 1 : 0, ' ') + "^";
}

}  // namespace

InputError LoadError(const std::string& text) {
  try {
    io::LoadSceneFromText(text, "test.yaml", {});
  } catch (const InputError& e) {
    return e;
  }
  FAIL("the scene was accepted:\n" << text);
  throw std::logic_error("unreachable");
}

void CheckRejected(const std::string& text, int line, int col, const std::string& what) {
  const InputError e = LoadError(text);
  INFO(e.what() << "\n" << Caret(text, e.where().line, e.where().column));
  CHECK(e.where().file == "test.yaml");
  CHECK(e.where().line == line);
  CHECK(e.where().column == col);
  CHECK(e.message().find(what) != std::string::npos);
}

namespace {

/// 1-based line and column of the first occurrence of `marker` in `text`.
std::pair<int, int> Find(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  INFO("marker '" << marker << "'");
  REQUIRE(at != std::string::npos);
  const size_t line_start = text.rfind('\n', at);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  const int col = static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
  return {line, col};
}

}  // namespace

std::string LocationOf(const std::string& text, const std::string& marker) {
  const auto [line, col] = Find(text, marker);
  return "test.yaml:" + std::to_string(line) + ":" + std::to_string(col);
}

void CheckRejectedAt(const std::string& text, const std::string& marker, const std::string& what) {
  const auto [line, col] = Find(text, marker);
  INFO("expected at '" << marker << "'");
  CheckRejected(text, line, col, what);
}

std::string OneBody(const std::string& body) { return "csim: 1\nbodies:\n  - name: b\n" + body; }

}  // namespace csim::test
