#include "tests/support/scene_errors.h"

#include <stdexcept>

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

std::string OneBody(const std::string& body) { return "csim: 1\nbodies:\n  - name: b\n" + body; }

}  // namespace csim::test
