#include "engine/common/comma_separated.h"

#include <cstdlib>
#include <utility>

namespace csim {

std::vector<std::string> SplitCommaSeparated(
    const std::vector<std::string>& arguments,
    const std::function<void(const std::string& argument)>& on_empty) {
  std::vector<std::string> out;
  for (const std::string& argument : arguments) {
    size_t start = 0;
    for (;;) {
      const size_t comma = argument.find(',', start);
      std::string item =
          argument.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (item.empty()) {
        on_empty(argument);
        std::abort();  // on_empty must throw: an empty item is never an item
      }
      out.push_back(std::move(item));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

}  // namespace csim
