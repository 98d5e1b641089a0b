#include "engine/common/input_error.h"

namespace csim {

std::string FormatLocated(const SourceLocation& where, const std::string& message) {
  std::string out = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    out += ":" + std::to_string(where.line);
    if (where.column > 0) out += ":" + std::to_string(where.column);
  }
  return out + ": " + message;
}

InputError::InputError(SourceLocation where, const std::string& message)
    : std::runtime_error(FormatLocated(where, message)),
      where_(std::move(where)),
      message_(message) {}

}  // namespace csim
