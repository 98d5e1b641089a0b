#pragma once
// An input or output file that cannot be read or written (exit status 4 of cli.md).
// Distinct from InputError (the content is wrong, exit 1).

#include <stdexcept>
#include <string>

namespace csim {

class IoError : public std::runtime_error {
 public:
  explicit IoError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace csim
