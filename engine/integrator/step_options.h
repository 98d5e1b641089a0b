#pragma once
// The choices of the time step that the scene names (settings.gyroscopic,
// settings.tree_solver), apart from theta_method.h so that sim/settings.h, where their
// defaults are defined, does not include the step itself.

namespace csim::integrator {

/// settings.gyroscopic: how the free motion of theta = 0 treats the gyroscopic torque of a
/// lone free body (implicit_gyroscopic.h). theta > 0 ignores it: its iteration already
/// evaluates the forces at v_theta.
enum class Gyroscopic {
  kImplicit,  ///< `implicit`: at the step's midpoint velocity, keeping a torque-free body's
              ///< kinetic energy and angular momentum magnitude
  kExplicit,  ///< `explicit`: at v0 like every other force (the SAP paper's and Drake's)
};

/// settings.tree_solver: how each tree solves with A. Under theta = 0 the contact solve
/// follows the same choice for the tree's Newton block (contact::ArticulatedCliqueSolver).
enum class TreeSolver {
  kAuto,         ///< `auto`: the cheaper of the two by a cost model (MakeStepWorkspace)
  kDense,        ///< `dense`: a dense Cholesky of the tree's block, O(nv^3)
  kArticulated,  ///< `articulated`: the articulated-body recursions, O(bodies)
};

}  // namespace csim::integrator
