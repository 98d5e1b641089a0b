#pragma once
// The items of a repeatable command-line flag whose arguments are comma-separated lists
// (`--sensitivities a,b --sensitivities c`, `--observe`): one splitting rule for every
// such flag, each with its own message for an empty item.

#include <functional>
#include <string>
#include <vector>

namespace csim {

/// The items of `arguments`, split at commas, in order ("a,b", "c" -> a, b, c). An empty
/// item ("a,,b", "a,", "") calls on_empty with the argument that holds it; on_empty must
/// throw (the caller's InputError at its flag).
std::vector<std::string> SplitCommaSeparated(
    const std::vector<std::string>& arguments,
    const std::function<void(const std::string& argument)>& on_empty);

}  // namespace csim
