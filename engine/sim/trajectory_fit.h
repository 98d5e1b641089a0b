#pragma once
// The fitting driver of `csim fit` (docs/cli.md, docs/design/sensitivities.md "csim fit"):
// parameters of a scene fitted to measured joint coordinates by Levenberg-Marquardt
// (engine/fit) with the Jacobian from the runs' forward sensitivities (Settings::
// sensitivities).
//
// Runs: one per measurement (data file). Every run shares the scene and its material (and
// other positive) parameters; each starts from its own initial state: the scene's (after
// --set; one measurement only) or its data's first sample in the window
// (InitialState::kData: q_meas(t0), v from the data's recorded velocities or else the
// tangent difference of its first two samples over their time step; joints the data does
// not give start at the scene's state). A run that starts at t0 > 0 is simulated from
// t = 0 and its times are shifted by t0 (refused for a scene with time-dependent inputs).
//
// Each evaluation at parameters p builds the scene once through the caller's SceneFactory
// with the overrides
//   user --set ..., PATH_j=p_j (%.17g) for the shared (log) parameters
// then forces settings.output.every=1, settings.duration = the run's last measurement time
// (minus t0), settings.solver.relative_tolerance <= 1e-12, and for each run sets the joints'
// initial q and v on a copy of the model (the run's initial state with its initial-state
// parameters applied, below) and runs Simulate into a MemoryRecorder, with sensitivities for
// the run's own columns only (the shared paths and its own initial-state paths) when the
// Jacobian is wanted. The model built for one p serves every run and the next evaluation at
// the same shared values (LM's Jacobian evaluation after an accepted trial).
//
// Residuals, stacked run after run, one block per measurement time t_i in the window:
//   e_i = W (q_sim(t_i) (-) q_meas(t_i))[observed]
// (ConfigurationDifference: the tangent at q_meas, so rotations are handled; a free body's
// block is [rotation vector in rad; position in m]) restricted to the observed joints'
// tangent coordinates, W = diag(1/sigma) with sigma_position [m] on translational
// coordinates and sigma_angle [rad] on rotational ones (both 1: unweighted). A measurement
// time that is not a simulated row time (to 1e-9 s) takes the linear blend of the residuals
// and sensitivities of the two rows around it. The Jacobian de_i/dp = W dq/dp (tangent at
// q_sim, Row::sensitivity.dq): the Gauss-Newton approximation that drops the d(-)/dq_sim
// correction, exact at zero residual. It is block sparse: a run's rows have entries only in
// the shared columns and its own initial-state columns.
//
// Parameters (any path ParseSensitivityPath accepts):
//   - shared, ParameterScale::kLog: every path that is not an initial-state one
//     (materials.NAME.friction, ...): positive, set through the scene overrides;
//   - per run, ParameterScale::kLinear: joints.NAME.q[i] and joints.NAME.v[i], one parameter
//     per run (per data file). v[i] is the initial velocity coordinate itself. q[i] is a
//     tangent coordinate: for a translational or joint coordinate (a revolute angle, a
//     prismatic slide, a free body's position) the initial coordinate itself; for a rotation
//     tangent of a free or ball joint the rotation vector of the offset from the run's
//     reference orientation (0 at the start), q0 = q_ref (+) delta, whose columns are the
//     run's sensitivities to the joint's three rotation tangents times the rotation's
//     Jacobian at delta (J_l for a free joint, J_r for a ball joint).
//   fit_initial_state adds every run's q[i] and v[i] of every joint with coordinates.
//
// Bounds (options.bounds, --bound): box bounds on shared parameters, held by projection
// (levenberg_marquardt.h); a parameter that ends on a bound with the cost still falling
// outward has the verdict kAtBound (no standard error: it is fixed there, not estimated).
//
// Identifiability is checked at the start, before any iteration: a parameter whose column
// of de/d eta is (numerically) zero, or a direction of the column-scaled Jacobian with a
// singular value below 1e-6 of the largest (fit_statistics.h), is refused with an
// InputError located at "--param" naming the parameter or the combination. A material's
// friction refused so (its contacts only stick: dgamma/dmu = 0) comes with the lower bound
// the data gives it: the friction its contacts need to hold their impulses at the start,
// the largest over the steps after each run's first measurement time and over the
// material's contacts of r = |gamma_t| / gamma_n against its own material and
// r mu_o / (2 mu_o - r) against one of friction mu_o (FitEvaluator::friction_bounds,
// integrator::TrajectorySensitivity::friction_bounds).

#include <Eigen/Dense>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/fit/fit_statistics.h"
#include "engine/fit/levenberg_marquardt.h"
#include "engine/multibody/model.h"
#include "engine/sim/settings.h"

namespace csim::sim {

/// Measured joint coordinates (a csim output's /time, /state/q and /state/v, or a CSV).
struct Measurement {
  std::string source;              ///< file name, for messages
  std::vector<double> time;        ///< (N) ascending [s]
  std::vector<Eigen::VectorXd> q;  ///< (N) each nq, the scene's coordinate layout
  /// (N) each nv, the recorded velocities; empty when the data has none (a CSV).
  std::vector<Eigen::VectorXd> v;
  /// The joints whose coordinates q gives; empty: all. The other joints' entries of q are
  /// placeholders (the scene's initial coordinates) that enter no residual.
  std::vector<std::string> joints;
};

/// Where each run starts.
enum class InitialState {
  kScene,  ///< the scene's initial state (after --set): one measurement only
  kData,   ///< the data's first sample in the window
};

/// A user's bounds on a shared parameter (--bound PATH=LO:HI), in the parameter's unit:
/// the fit keeps lo <= p <= hi (fit::ParameterBounds, by projection). An open side is
/// -inf (lo) or +inf (hi).
struct ParameterBound {
  std::string path;  ///< one of the shared --param paths
  double lo = -std::numeric_limits<double>::infinity();  ///< >= 0 (a log parameter)
  double hi = std::numeric_limits<double>::infinity();   ///< > lo
};

struct TrajectoryFitOptions {
  std::vector<std::string> parameters;  ///< --param paths, in order
  /// --bound: at most one per shared --param path; refused for any other path, lo >= hi, a
  /// negative lo or a start outside [lo, hi]. Initial-state parameters stay unbounded.
  std::vector<ParameterBound> bounds;
  std::vector<std::string> overrides;   ///< the user's --set arguments, applied first
  double window_begin = -std::numeric_limits<double>::infinity();  ///< [s]
  double window_end = std::numeric_limits<double>::infinity();     ///< [s]
  int max_iterations = 50;
  double solver_relative_tolerance = 1e-12;
  InitialState initial_state = InitialState::kScene;
  /// Every run's initial q (tangent) and v of every joint coordinate as parameters.
  bool fit_initial_state = false;
  /// Joints whose coordinates enter the residuals; empty: every joint with coordinates.
  std::vector<std::string> observe;
  double sigma_position = 1.0;  ///< [m] > 0, residual weight 1/sigma on translations
  double sigma_angle = 1.0;     ///< [rad] > 0, residual weight 1/sigma on rotations
};

/// Builds the model and settings of the scene with these --set overrides; throws
/// InputError for an invalid value.
using SceneFactory = std::function<void(const std::vector<std::string>& overrides,
                                        multibody::Model* model, Settings* settings)>;

struct TrajectoryFitResult {
  /// (n) the fit's parameters: the shared ones in --param order, then per run its
  /// initial-state ones. `parameters` holds the paths, `run` the run (data file index) of
  /// an initial-state parameter or -1 for a shared one, `scale` how it was fitted.
  std::vector<std::string> parameters;
  std::vector<int> run;
  std::vector<fit::ParameterScale> scale;
  Eigen::VectorXd start;                ///< (n) starting values
  /// (n) the bounds the fit kept: options.bounds' lo and hi for a bounded shared
  /// parameter, -inf and +inf for an open side (every side of an initial-state one).
  std::vector<double> lower_bound, upper_bound;
  int num_runs = 0;                     ///< data files
  std::vector<int> run_samples;         ///< (num_runs) measurement times in the window
  std::vector<double> run_t0;           ///< (num_runs) data time of the run's t = 0 [s]
  int num_samples = 0;                  ///< measurement times in the window, all runs
  int num_residuals = 0;                ///< m = num_samples * observed coordinates
  int observed_coordinates = 0;         ///< residuals per measurement time
  /// (num_runs) each run's initial q (nq) and v (nv) at the start and at the fitted values.
  std::vector<Eigen::VectorXd> initial_q_start, initial_v_start, initial_q, initial_v;
  fit::LevenbergMarquardtResult lm;
  fit::FitStatistics statistics;
  /// At the last Jacobian evaluation (the final point), over all runs: steps near non-smooth
  /// points (a column differenced one-sided or straddling a change of contact set, or a kink
  /// distance below 1e-6: /sensitivity/near_kink), and the smallest kink distance (1: none).
  int kink_steps = 0;
  double min_kink_distance = 1.0;
  /// A parameter whose column of de/d eta vanished at the final point by the rule that
  /// refuses it at the start (norm <= 1e-9 sqrt(m)) has the verdict kNoLongerActs in
  /// statistics: a log parameter driven towards 0 (or infinity) where it no longer acts.
  /// Such an end is a minimum on the boundary of the parameter space, not an estimate: the
  /// app reports it as not converged. Returns the first such parameter, -1 when none is.
  int FirstNoLongerActing() const;
  /// Parameter j as a readable name: the path, and for an initial-state parameter of
  /// several runs its run ("joints.box.v[3] (data 1)").
  std::string Label(int j) const;
  /// Label(j) of every parameter, in order.
  std::vector<std::string> Labels() const;
  /// "--set PATH=VALUE" lines of the fitted shared values (initial-state parameters have no
  /// single --set path; they are in initial_q / initial_v).
  std::vector<std::string> SetLines() const;
};

/// Fits; throws InputError for a refused request (a bad or unsupported path, an
/// unidentifiable parameter, a measurement that does not fit the scene, a scene that does
/// not run at the start, several measurements starting from the scene's state, a bad bound
/// or a start outside its bounds). A fit that
/// ends without converging is not an error: see lm.status.
TrajectoryFitResult FitTrajectory(const SceneFactory& factory,
                                  const std::vector<Measurement>& data,
                                  const TrajectoryFitOptions& options);

/// One measurement.
TrajectoryFitResult FitTrajectory(const SceneFactory& factory, const Measurement& data,
                                  const TrajectoryFitOptions& options);

}  // namespace csim::sim
