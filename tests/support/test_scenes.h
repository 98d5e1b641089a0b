#pragma once
// Scene texts built in code for tests that need the same scene in several files.

#include <string>

namespace csim::testing {

/// Two hinged chains of eight capsules lying on the floor, each swung along it by its
/// second hinge: two islands whose trees' Newton blocks a test can send to the
/// articulated-body recursions (settings.tree_solver: articulated). `settings` is the text
/// inside the scene's `settings: {...}` map.
std::string TwoChainsOnTheFloorScene(const std::string& settings);

/// A chain of six capsules (0.1 kg each) joined by ball joints, lying on the floor, its
/// first link held by a ball joint to the world: one tree of 18 velocities with two
/// contacts per capsule. Time step 1 ms (settings: {time_step: 1.0e-3}).
std::string BallChainOnTheFloorScene();

/// Two 1 kg boxes (10 cm) on the ground, one material (rigid, friction 0.5): `a` launched
/// along x at 1 m/s (it slides), `b` at rest; 0.15 s of 10 ms steps solved to 1e-12 relative
/// (the fit's tests: observing one body of two).
std::string TwoBoxesOnTheGroundScene();

/// Bodies on fixed axes touching the floor (integrator/fixed_axis_partials.h): a cylinder
/// rolling in a vertical plane (planar joint, spring and damper on x), a box sliding on a rail
/// along x (prismatic, spring), a wheel pressed on the floor on a horizontal axle (revolute,
/// spinning, so its rim slides) and, when `ball`, a ball dropping on the box. One material
/// (k = 1e4 N/m, friction 0.8) with dissipation time `dissipation_time` [s]; steps of 2 ms.
std::string FixedAxisRigScene(bool ball, double dissipation_time = 0.02);

}  // namespace csim::testing
