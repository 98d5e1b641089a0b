#pragma once
// Bad input (scene, override, option): detected before the first step and reported as
// `FILE:LINE:COL: message`. Lines and columns are 1-based, as editors show them.

#include <stdexcept>
#include <string>

namespace csim {

/// Where in an input file something was found. line/column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// An input that cannot be simulated. what() is the full `FILE:LINE:COL: message` text.
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& message);
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

/// Formats `FILE:LINE:COL: message` (omitting parts that are unknown).
std::string FormatLocated(const SourceLocation& where, const std::string& message);

}  // namespace csim
