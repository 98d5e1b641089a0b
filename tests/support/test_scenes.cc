#include "tests/support/test_scenes.h"

namespace csim::testing {

std::string TwoChainsOnTheFloorScene(const std::string& settings) {
  std::string s = "csim: 1\nsettings: {" + settings +
                  "}\nworld: {geometry: [{shape: halfspace}]}\nbodies:\n";
  for (const char* chain : {"a", "b"})
    for (int i = 0; i < 8; ++i)
      s += std::string("  - {name: ") + chain + std::to_string(i) + ", mass: 0.1, geometry: "
           "[{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}\n";
  s += "joints:\n";
  for (const char* chain : {"a", "b"}) {
    const std::string x = chain[0] == 'a' ? "0" : "0.5";
    for (int i = 0; i < 8; ++i) {
      const std::string name = chain + std::to_string(i);
      const std::string parent = i == 0 ? "world" : chain + std::to_string(i - 1);
      const std::string position = i == 0 ? "[" + x + ", 0, 0.0099]" : "[0, 0, -0.1]";
      const std::string axis = i % 2 == 1 ? "[0, 1, 0]" : "[1, 0, 0]";
      std::string initial = i == 0 ? ", initial: {q: [1.5707963267948966]}" : "";
      const std::string swing = chain[0] == 'a' ? "3.0" : "-2.0";
      if (i == 1) initial = ", initial: {q: [0.3], v: [" + swing + "]}";
      s += "  - {name: j" + name + ", type: revolute, parent: " + parent + ", child: " + name +
           ", axis: " + axis + ", pose: {position: " + position + "}" + initial + "}\n";
    }
  }
  return s;
}

}  // namespace csim::testing
