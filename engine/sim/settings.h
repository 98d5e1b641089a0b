#pragma once
// Run settings of the scene format (scene-format.md "settings"), field for key: every
// default of a settings key is defined once, here or in the struct of the layer below that
// this one embeds (contact::ContactSettings for the contact keys, solver::SapSolverParameters
// for settings.solver). The loader fills it after applying `--set` overrides and
// command-line options. settings.gravity lives in multibody::Model.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/contact/contact_parameters.h"
#include "engine/integrator/step_options.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::sim {

/// settings.integrator: the theta-method of docs/design/time-step.md §2. theta weights q and v
/// inside the forces and inside N(q); theta_q weights the velocity used in the position
/// update. The defaults are symplectic_euler's row of NamedIntegrator.
struct IntegratorSettings {
  std::string name = "symplectic_euler";  ///< a named scheme, or "theta" for the general map
  double theta = 0.0;                     ///< [1] in [0, 1]
  double theta_q = 1.0;                   ///< [1] in [0, 1]
};

/// The named schemes (docs/design/time-step.md §2.3). Returns false for an unknown name.
bool NamedIntegrator(const std::string& name, IntegratorSettings* out);

using contact::ContactModel;
/// The scene-format name of a contact model (`sap`, `lagged`, ...).
const char* ContactModelName(ContactModel model);
/// Parses a scene-format contact model name; returns false if unknown.
bool ParseContactModel(const std::string& name, ContactModel* out);

struct OutputSettings {
  std::string file;       ///< output path; the loader sets "<name>.h5" when absent
  int every = 1;          ///< record every N-th step (first and last always recorded)
  bool contacts = true;   ///< record per-step contact data
  /// Also record each hydroelastic polygon's vertices and vertex pressures (needs
  /// `contacts`; /hydroelastic/polygon_* and vertex_* in output-format.md).
  bool contact_surfaces = false;
  int compression = 1;    ///< gzip level 0-9 of the time series (with shuffle); 0: none
  /// Also record each step's condition number of the Newton matrix at the solution
  /// (/solver/condition_number) and each contact's effective stiction tolerance
  /// (/contacts/stiction_tolerance, with `contacts`).
  bool condition_number = false;
};

/// The contact keys (contact_model, near_rigid_threshold, stiction_sigma,
/// stiction_tolerance, contact_margin, delassus_estimate, contact_surface) sit directly under
/// `settings` in the scene, so they are inherited rather than a member.
struct Settings : contact::ContactSettings {
  double time_step = 1.0e-3;      ///< dt [s] > 0
  double duration = 1.0;          ///< simulated time [s] > 0
  IntegratorSettings integrator;  ///< default symplectic Euler (theta 0, theta_q 1)
  integrator::TreeSolver tree_solver = integrator::TreeSolver::kAuto;
  integrator::Gyroscopic gyroscopic = integrator::Gyroscopic::kImplicit;
  solver::SapSolverParameters solver;  ///< settings.solver.*, plus the solver's internals
  OutputSettings output;
  int threads = 1;                ///< threads of the contact solve (`--threads`)
  /// Steps whose contact solve's Newton history is recorded (`--trace-solver`), ascending,
  /// each in [1, StepCount]: step s is the one that ends at t = s dt (the row /step = s).
  std::vector<int64_t> trace_solver_steps;
  /// Parameter paths of the forward sensitivities (`--sensitivities`, sensitivity_paths.h),
  /// in column order; empty: none computed.
  std::vector<std::string> sensitivities;
};

}  // namespace csim::sim
