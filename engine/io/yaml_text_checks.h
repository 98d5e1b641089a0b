#pragma once
// Checks of YAML text that yaml-cpp 0.7 does not make itself, so that a damaged scene or
// override is rejected with its location instead of being read as something else:
//   - a quoted string that is never closed is accepted by yaml-cpp, and swallows the rest
//     of the file into one string (`name: "oops` took every body after it with it);
//   - control characters (a NUL byte, say) are either kept inside a name or reported as
//     a nonsensical escape error;
//   - an alias inside its own anchor (`&a [*a]`) makes a cyclic tree, and every walk over
//     it recursed until the stack overflowed (SIGSEGV); nested aliases of aliases (an
//     "alias bomb") expand exponentially and every walk hung.
// Each check returns where the problem starts, or nothing; callers map the place to the
// file or to the `--set` argument the text came from.

#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

namespace csim::io {

/// A problem found in a text: 0-based line and column (as yaml-cpp marks) and what it is.
struct TextProblem {
  int line = 0;
  int column = 0;
  std::string what;
};

/// The first character YAML does not allow in a text file: C0 control characters other
/// than tab, line feed and carriage return, and DEL.
std::optional<TextProblem> FindControlCharacter(const std::string& text);

/// The tree a scene (or override value) may expand to through aliases, in nodes: far above
/// any real scene (a 160-object clutter scene has ~5000), far below a walk that hangs.
inline constexpr long kMaxExpandedNodes = 2000000;

/// An alias that contains itself (a cycle), or aliases that expand `root` to more than
/// kMaxExpandedNodes nodes. Run it before any other walk over `root`.
std::optional<TextProblem> FindAliasProblem(const YAML::Node& root);

/// The first quoted scalar of `root` (keys included) whose closing quote is missing from
/// `text`, the text `root` was parsed from.
std::optional<TextProblem> FindUnclosedQuote(const YAML::Node& root, const std::string& text);

/// Parses `text` as exactly one YAML document (an empty text is the null node) into `out`,
/// with every check above: control characters, yaml-cpp's own syntax errors, a second
/// document (which yaml-cpp's Load would silently drop), aliases, unclosed quotes. Returns
/// the first problem, `out` then unchanged; line and column are -1 where yaml-cpp gave no
/// place. The scene loader and `--set` values both parse through it.
std::optional<TextProblem> ParseOneDocument(const std::string& text, YAML::Node* out);

}  // namespace csim::io
