#pragma once
// Per-step measurements of one simulator on one configuration, and their summaries over a
// window of steps (all steps, or the settled phase at the end).

#include <array>
#include <vector>

namespace csim::bench {

/// Buckets of csim's Newton work (StepSample::work_by_size, work_by_iterations): island
/// size in trees 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+ (powers of two), and the island's
/// Newton iterations 0-1, 2-4, 5-9, 10-19, 20+.
constexpr int kWorkSizeBuckets = 7;
constexpr int kWorkIterationBuckets = 5;
/// Kinds of Newton update (solver::SapSolverStats): along a predicted direction, plain with
/// an active-set change, plain on fixed pieces (smooth).
constexpr int kWorkKinds = 3;
const char* WorkKindLabel(int kind);
int WorkSizeBucket(int trees);
int WorkIterationBucket(int iterations);
/// Labels of the buckets ("1", "2-3", ..., "64+"; "0-1", ..., "20+").
const char* WorkSizeLabel(int bucket);
const char* WorkIterationLabel(int bucket);

/// One step. Stage times are 0 when a simulator does not report them (MuJoCo).
struct StepSample {
  double seconds = 0.0;        ///< wall time of the whole step [s]
  int iterations = 0;          ///< Newton iterations of the contact solve (csim: rounds
                               ///< until the last island converged)
  double island_iterations = 0.0;  ///< csim: island iterations weighted by island size
  int islands = 0;             ///< csim: independent islands of the step
  int contacts = 0;            ///< contact points (csim: constraints) of the step
  double free_motion = 0.0;    ///< free motion v*, A [s]
  double collision = 0.0;      ///< broad and narrow phase [s]
  double build = 0.0;          ///< problem build outside collision (kinematics, Jacobians) [s]
  double assembly = 0.0;       ///< Newton-system assembly H = A + J^T G J [s]
  double factorization = 0.0;  ///< Cholesky and solve [s]
  double line_search = 0.0;    ///< line searches [s]
  double solve = 0.0;          ///< whole contact solve [s]
  /// csim's collision query (geometry::CollisionCounts): candidate pairs sent to the narrow
  /// phase, those that touched, and those of two shapes with extended features (box, mesh,
  /// cylinder, capsule; the costly case). What the collision time per object grows with.
  double narrow_phase_pairs = 0.0, touching_pairs = 0.0, feature_pairs = 0.0;
  /// csim: 1/2 v^T M v after the step, M from the step's start (outside the timed region):
  /// shows whether the "settled" window is settled [J]
  double kinetic_energy = 0.0;
  /// csim: the step's Newton work in tree-iterations (each island's trees times its Newton
  /// iterations), split by island size and by the island's iterations (buckets above).
  /// Shows which islands the work of a growing pile goes to.
  std::array<double, kWorkSizeBuckets> work_by_size{};
  std::array<double, kWorkIterationBuckets> work_by_iterations{};
  /// The same work by kind of Newton update (kWorkKinds; each island's trees times its
  /// updates of that kind): whether a big island's iterations change its active set or
  /// converge on fixed pieces.
  std::array<double, kWorkKinds> work_by_kind{};
  /// csim: the dimensionless momentum error of the step's solution (SAP eq. 32; 0 without
  /// contact) and whether some island stopped by the cost criterion (docs/design/sap-solver.md
  /// §2.2) rather than by SAP eq. 26, which alone bounds that error by the tolerance eps_r.
  double momentum_error = 0.0;
  bool cost_criterion = false;
};

/// Summary of a window of steps [first, last).
struct SeriesSummary {
  int steps = 0;
  double mean_seconds = 0.0, median_seconds = 0.0, max_seconds = 0.0;
  double mean_iterations = 0.0;
  int max_iterations = 0;
  double mean_contacts = 0.0;
  double mean_island_iterations = 0.0, mean_islands = 0.0;
  /// csim's accuracy over the window: the median momentum error; the largest over the
  /// steps every island of which met SAP eq. 26 (bounded by eps_r); the steps some island
  /// of which stopped by the cost criterion, and their largest error.
  double median_momentum_error = 0.0, max_certified_error = 0.0;
  int cost_criterion_steps = 0;
  double max_cost_criterion_error = 0.0;
  /// The largest momentum error over the window, either kind of step.
  double max_momentum_error() const {
    return max_certified_error > max_cost_criterion_error ? max_certified_error
                                                          : max_cost_criterion_error;
  }
  StepSample mean;             ///< every field averaged
  double total_seconds = 0.0;  ///< sum of the step times [s]
};

/// Summarises samples[first, last) (empty window: zeros).
SeriesSummary Summarize(const std::vector<StepSample>& samples, int first, int last);

/// Median of x (the mean of the middle two for an even count; 0 for none).
double Median(std::vector<double> x);

}  // namespace csim::bench
