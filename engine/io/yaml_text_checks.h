#pragma once
// Checks of YAML text that yaml-cpp 0.7 does not make itself, so that a damaged scene or
// override is rejected with its location instead of being read as something else:
//   - a quoted string that is never closed is accepted by yaml-cpp, and swallows the rest
//     of the file into one string (`name: "oops` took every body after it with it);
//   - control characters (a NUL byte, say) are either kept inside a name or reported as
//     a nonsensical escape error.
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

/// The first quoted scalar of `root` (keys included) whose closing quote is missing from
/// `text`, the text `root` was parsed from.
std::optional<TextProblem> FindUnclosedQuote(const YAML::Node& root, const std::string& text);

}  // namespace csim::io
