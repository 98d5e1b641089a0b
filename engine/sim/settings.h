#pragma once
// Run settings of the scene format (scene-format.md "settings"). The defaults here are the
// format's defaults, in one place (style.md habit 10). The loader fills this struct after
// applying `--set` overrides and command-line options.

#include <string>

#include "engine/contact/contact_parameters.h"
#include "engine/integrator/theta_method.h"

namespace csim::sim {

/// The theta-method of math.md section 1.2: theta weights q and v inside the forces and
/// inside N(q); theta_q weights the velocity used in the position update.
struct IntegratorSettings {
  std::string name = "symplectic_euler";  ///< a named scheme, or "theta" for the general map
  double theta = 0.0;
  double theta_q = 1.0;
};

/// The named schemes (math.md 1.2 table). Returns false for an unknown name.
bool NamedIntegrator(const std::string& name, IntegratorSettings* out);

/// settings.contact_model: the contact layer's kind, the one the problem builder uses.
using ContactModel = contact::ContactModelKind;
const char* ContactModelName(ContactModel model);
/// Parses a scene-format contact model name; returns false if unknown.
bool ParseContactModel(const std::string& name, ContactModel* out);

enum class LineSearch { kExact, kBacktracking };

struct SolverSettings {
  double relative_tolerance = 1.0e-6;   ///< eps_r of the stopping criterion [1]
  double absolute_tolerance = 1.0e-14;  ///< eps_a [1]
  int max_iterations = 100;             ///< Newton iterations per step before the step fails
  LineSearch line_search = LineSearch::kExact;
  /// Warm start of the active set: contacts stuck at the end of a step are modelled as
  /// stuck in the next solve's first prediction_iterations Newton directions (sap_solver.h);
  /// false: plain SAP.
  bool predict_stiction = true;
  /// Newton directions per island that use the predicted stiction (>= 1; see
  /// solver::SapSolverParameters::prediction_iterations).
  int prediction_iterations = 20;
  /// With predict_stiction, contacts that a cut Newton step carries through (or close past)
  /// stiction are predicted stuck in the next directions
  /// (solver::SapSolverParameters::predict_crossings).
  bool predict_crossings = true;
  /// Warm start of each solve: v0 + (v0 - v_-1) (true, "extrapolated") or v0 (false,
  /// "previous"; the SAP paper's choice). See integrator/contact_step.h.
  bool extrapolate_warm_start = true;
  /// An extrapolated guess meeting the stopping criterion to this fraction of the tolerance
  /// is not refined by a Newton step (solver::SapSolverParameters::exact_guess_fraction);
  /// in [0, 1], 0: always refined.
  double exact_guess_fraction = 1.0e-6;
  /// Contacts apart at the warm start do not join islands until they touch
  /// (solver::SapSolverParameters::defer_separated).
  bool defer_separated = true;
};

struct OutputSettings {
  std::string file;       ///< output path; the loader sets "<name>.h5" when absent
  int every = 1;          ///< record every N-th step (first and last always recorded)
  bool contacts = true;   ///< record per-step contact data
  /// gzip level 0-9 of the time series (with shuffle); 0 writes them uncompressed. Level 1
  /// by default: on 1600 free spheres recording every step, 2.0 s against 2.6 s at level 4
  /// for a 4 % larger file; 0.9 s uncompressed, twice the size.
  int compression = 1;
};

struct Settings {
  double time_step = 1.0e-3;                ///< dt [s] > 0
  double duration = 1.0;                    ///< simulated time [s] > 0
  IntegratorSettings integrator;            ///< default symplectic Euler (theta 0, theta_q 1)
  ContactModel contact_model = ContactModel::kSap;
  double near_rigid_threshold = 1.0;        ///< beta [1]
  double stiction_sigma = 1.0e-3;           ///< sigma [1]
  double stiction_tolerance = 1.0e-4;       ///< v_s [m/s]
  double contact_margin = 1.0e-3;           ///< [m]
  contact::DelassusEstimate delassus_estimate = contact::DelassusEstimate::kArticulated;
  /// settings.tree_solver: how each tree's blocks are factored (integrator::TreeSolve).
  integrator::TreeSolve tree_solver = integrator::TreeSolve::kByCost;
  /// settings.gyroscopic: a lone free body's gyroscopic torque under theta = 0
  /// (integrator::Gyroscopic, implicit_gyroscopic.h).
  integrator::Gyroscopic gyroscopic = integrator::Gyroscopic::kImplicit;
  SolverSettings solver;
  OutputSettings output;
  int threads = 1;                          ///< threads of the contact solve (--threads)
};

}  // namespace csim::sim
