#include "tests/support/test_scenes.h"

#include <cstdio>

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

std::string BallChainOnTheFloorScene() {
  return R"(
csim: 1
settings: {time_step: 1.0e-3}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: l0, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: l1, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: l2, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: l3, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: l4, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
  - {name: l5, mass: 0.1, geometry: [{shape: capsule, radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}
joints:
  - {name: j0, type: ball, parent: world, child: l0, pose: {position: [0, 0, 0.0099]},
     initial: {q: [0.7071067811865476, 0.7071067811865475, 0, 0]}}
  - {name: j1, type: ball, parent: l0, child: l1, pose: {position: [0, 0, -0.1]}}
  - {name: j2, type: ball, parent: l1, child: l2, pose: {position: [0, 0, -0.1]}}
  - {name: j3, type: ball, parent: l2, child: l3, pose: {position: [0, 0, -0.1]}}
  - {name: j4, type: ball, parent: l3, child: l4, pose: {position: [0, 0, -0.1]}}
  - {name: j5, type: ball, parent: l4, child: l5, pose: {position: [0, 0, -0.1]}}
)";
}

std::string TwoBoxesOnTheGroundScene() {
  return R"(csim: 1
name: two_boxes
settings:
  time_step: 0.01
  duration: 0.15
  integrator: symplectic_euler
  contact_margin: 0.02
  solver: {relative_tolerance: 1.0e-12}
materials:
  default: {stiffness: .inf, dissipation_time: 0.0, friction: 0.5}
world:
  geometry:
    - {shape: halfspace}
bodies:
  - name: a
    mass: 1.0
    geometry:
      - {shape: box, size: [0.1, 0.1, 0.1]}
    pose: {position: [0, 0, 0.055]}
    velocity: {linear: [1.0, 0, 0]}
  - name: b
    mass: 1.0
    geometry:
      - {shape: box, size: [0.1, 0.1, 0.1]}
    pose: {position: [0, 1, 0.05]}
)";
}

std::string FixedAxisRigScene(bool ball, double dissipation_time) {
  char tau[32];
  std::snprintf(tau, sizeof tau, "%.17g", dissipation_time);
  std::string yaml = R"(
csim: 1
settings: {time_step: 2.0e-3}
materials:
  default: {stiffness: 1.0e4, dissipation_time: )" + std::string(tau) + R"(, friction: 0.8}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: cylinder, mass: 0.5, geometry: [{shape: cylinder, radius: 0.05, length: 0.1}]}
  - {name: slider, mass: 0.3, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}]}
  - {name: wheel, mass: 0.4, geometry: [{shape: cylinder, radius: 0.05, length: 0.04,
     pose: {rpy: [1.5707963267948966, 0, 0]}}]}
)";
  if (ball)
    yaml += R"(  - {name: ball, mass: 0.2, geometry: [{shape: sphere, radius: 0.03}],
     pose: {position: [0.02, 0.5, 0.0805]}, velocity: {linear: [0.1, 0, -0.5], angular: [1, 2, 0]}}
)";
  yaml += R"(joints:
  - {name: plane, type: planar, parent: world, child: cylinder, collide: true,
     pose: {position: [0, 0, 0.0498], rpy: [1.5707963267948966, 0, 0]},
     initial: {q: [0.1, 0.0, 0.0], v: [0.3, 0.0, -6.0]},
     spring: {stiffness: [100.0, 0.0, 0.0], rest: [0.0, 0.0, 0.0]}, damping: [0.5, 0.0, 0.0]}
  - {name: rail, type: prismatic, parent: world, child: slider, axis: [1, 0, 0], collide: true,
     pose: {position: [0, 0.5, 0.0499]}, initial: {q: [0.0], v: [1.0]},
     spring: {stiffness: [20.0], rest: [0.1]}}
  - {name: axle, type: revolute, parent: world, child: wheel, axis: [0, 1, 0], collide: true,
     pose: {position: [0, -0.5, 0.0499]}, initial: {q: [0.2], v: [8.0]}}
)";
  return yaml;
}

}  // namespace csim::testing
