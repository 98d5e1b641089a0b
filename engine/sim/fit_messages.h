#pragma once
// Wording shared by the files of `csim fit` (trajectory_fit.h): the refusal of a request
// about its parameters and the two ways numbers are written into messages and overrides.

#include <cstdio>
#include <string>

#include "engine/common/input_error.h"

namespace csim::sim {

/// Refuses the fit: an InputError located at "--param" (exit 1 in the app), whatever the
/// parameter's own cause, since the parameters are what the user chose.
[[noreturn]] inline void RefuseParameter(const std::string& message) {
  throw InputError({"--param", 0, 0}, message);
}

/// x to `significant_digits` digits (%.*g).
inline std::string FormatNumber(double x, int significant_digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant_digits, x);
  return buf;
}

/// x with every digit a double holds: the value of a `--set PATH=VALUE` override, which
/// must give the scene the fitted value to the last bit.
inline std::string ExactNumber(double x) { return FormatNumber(x, 17); }

/// x to 6 significant digits, for messages.
inline std::string ShortNumber(double x) { return FormatNumber(x, 6); }

}  // namespace csim::sim
