#pragma once
// Scene texts built in code for tests that need the same scene in several files.

#include <string>

namespace csim::testing {

/// Two hinged chains of eight capsules lying on the floor, each swung along it by its
/// second hinge: two islands whose trees' Newton blocks a test can send to the
/// articulated-body recursions (settings.tree_solver: articulated). `settings` is the text
/// inside the scene's `settings: {...}` map.
std::string TwoChainsOnTheFloorScene(const std::string& settings);

}  // namespace csim::testing
