#pragma once
// The run loop writes through this interface, so tests can record in memory and the HDF5
// recorder (engine/io/hdf5_recorder.h) knows nothing of the dynamics.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/sim/settings.h"
#include "engine/solver/newton_trace.h"

namespace csim::sim {

/// What a recorder needs to know before the first row: written once at the start.
struct RunInfo {
  const multibody::Model* model = nullptr;
  const Settings* settings = nullptr;
  std::string scene_name;                 ///< settings "name" or the file stem
  std::string scene_file;                 ///< path of the scene file as given
  std::string scene_yaml;                 ///< exact scene text that was run, overrides applied
  std::vector<std::string> overrides;     ///< the --set arguments, in order
};

/// Statistics of the solve that produced a row (/solver/* in output-format.md).
struct SolverStats {
  int iterations = 0;             ///< Newton iterations of the step
  double momentum_error = 0.0;    ///< dimensionless (SAP eq. 32); free-motion residual without contact
  double cost = 0.0;              ///< [J] convex cost at the solution (0 without contact)
  double wall_time = 0.0;         ///< [s] wall time of the whole step
  /// Condition number of the Newton matrix at the solution, the largest over islands
  /// (settings.output.condition_number); NaN when not estimated, without a Newton solve,
  /// and in the initial row.
  double condition_number = std::numeric_limits<double>::quiet_NaN();
};

/// One contact of a row (/contacts/* in output-format.md). Normal points from a into b.
struct ContactRow {
  int body_a = -1, body_b = -1;   ///< body indices, -1 world
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< world [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< world, unit
  double signed_distance = 0.0;   ///< phi0 [m], negative in overlap
  Eigen::Vector3d force = Eigen::Vector3d::Zero();    ///< on b, world [N]
  double slip_speed = 0.0;        ///< [m/s]
  /// Effective stiction tolerance of the step's friction law [m/s]
  /// (contact::ContactReport::stiction_tolerance); recorded with
  /// settings.output.condition_number.
  double stiction_tolerance = 0.0;
  /// With sensitivities (Settings::sensitivities): the contact's piece at the solution
  /// (solver::ContactRegion: 0 none, 1 stiction, 2 sliding) and its kink distance [1].
  int8_t region = 0;
  double kink_distance = 1.0;
};

/// The forward sensitivities of a row (Settings::sensitivities non-empty; output-format.md
/// "Extension: sensitivities"). The flags are over the steps since the previous row.
struct SensitivityRow {
  Eigen::MatrixXd dq;  ///< (nv, np) dq/dp in the tangent at q (configuration_tangent.h)
  Eigen::MatrixXd dv;  ///< (nv, np) dv/dp
  int32_t one_sided = 0;            ///< columns differenced one-sided, summed over the steps
  int32_t unmatched = 0;            ///< columns whose both sides changed piece, summed
  int8_t approximate_geometry = 0;  ///< some step had a contact with differenced geometry
  double min_kink_distance = 1.0;   ///< smallest kink distance over the steps (1: none)
  /// (np) per column, the largest over the steps of the lower bound on a material's friction
  /// that its contacts' impulses imply (integrator::TrajectorySensitivity::friction_bounds;
  /// -inf: not a friction column, or no contact of the material carried a normal impulse).
  /// In memory only (csim fit's refusal of a friction that does not act reads it); the HDF5
  /// recorder does not write it.
  Eigen::VectorXd friction_bound;
};

/// One hydroelastic contact surface of a row (/hydroelastic/* in output-format.md): the
/// sums over its polygons' contacts, which are contacts[first_contact, + num_contacts).
struct SurfaceRow {
  int body_a = -1, body_b = -1;   ///< body indices, -1 world
  int first_contact = 0;          ///< index into the row's contacts
  int num_contacts = 0;           ///< its polygons (>= 1)
  double area = 0.0;              ///< [m^2]
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();  ///< area centroid, world [m]
  Eigen::Vector3d force = Eigen::Vector3d::Zero();     ///< on b, world [N]
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();    ///< on b about the centroid, world [N m]
};

/// One recorded row. Filled by the run loop into preallocated storage; valid only during
/// Recorder::Record.
struct Row {
  int64_t step = 0;
  double time = 0.0;                      ///< [s]
  Eigen::VectorXd q, v;                   ///< (nq), (nv)
  Eigen::Matrix3Xd body_position;         ///< (3, nb) body origins, world [m]
  Eigen::Matrix4Xd body_quaternion;       ///< (4, nb) w, x, y, z
  Eigen::Matrix3Xd body_linear_velocity;  ///< (3, nb) velocity of the body origin, world [m/s]
  Eigen::Matrix3Xd body_angular_velocity; ///< (3, nb) world [rad/s]
  double kinetic_energy = 0.0;            ///< [J]
  double potential_energy = 0.0;          ///< [J] gravity + joint springs
  SolverStats solver;
  std::vector<ContactRow> contacts;       ///< empty until contact exists
  std::vector<SurfaceRow> surfaces;       ///< hydroelastic contact surfaces, in contact order
  /// The surfaces' polygons, with settings.output.contact_surfaces (else empty): one per
  /// contact of `surfaces`, surface after surface (surface s's polygon j is its contact
  /// s.first_contact + j), each a run of consecutive vertices.
  std::vector<int> polygon_vertex_count;         ///< (P) >= 3, counter-clockwise about the normal
  std::vector<Eigen::Vector3d> vertex_position;  ///< (V) world [m]
  std::vector<double> vertex_pressure;           ///< (V) [Pa], the polygon's linear field there
  /// (nv) joint friction effort of the step that produced the row [N or N m] (impulse / dt,
  /// 0 on coordinates without friction, and in the initial row); empty when the model has
  /// no joint friction.
  Eigen::VectorXd joint_friction;
  /// (rows) impulse of each holonomic constraint row over the step that produced the row
  /// [N s or N m s] (0 in the initial row and for a constraint skipped that step);
  /// empty when the model has no constraints.
  Eigen::VectorXd constraint_impulse;
  /// Per actuator (Model::actuators order), what it delivered over the step that produced
  /// the row (contact::ActuatorOutputs): effort [N m or N], q_d, v_d (NaN for force
  /// actuators) and whether the effort limit was reached; in the initial row efforts 0 and
  /// the targets at t = 0. Empty when the model has no actuators.
  Eigen::VectorXd actuator_effort, actuator_q_target, actuator_v_target;
  std::vector<int8_t> actuator_saturated;
  /// Empty matrices unless Settings::sensitivities is non-empty; S_0 in the initial row.
  SensitivityRow sensitivity;
};

enum class RunStatus { kRunning, kCompleted, kInterrupted, kFailed };
const char* RunStatusName(RunStatus status);

class Recorder {
 public:
  virtual ~Recorder() = default;
  /// Called once before the first row.
  virtual void Begin(const RunInfo& info) = 0;
  /// Called for each recorded row, in increasing step order.
  virtual void Record(const Row& row) = 0;
  /// Called after every step, recorded or not, so a recorder can flush buffered rows on a
  /// wall-clock schedule even when output.every is large. Must be cheap.
  virtual void Heartbeat() {}
  /// Called for each step of Settings::trace_solver_steps the run reached (completed or
  /// failed), before its row is recorded: its contact solve's Newton history, one row per
  /// iteration (empty when the step had no Newton solve).
  virtual void RecordSolverTrace(int64_t /*step*/,
                                 const std::vector<solver::NewtonTraceRow>& /*rows*/) {}
  /// Called once at the end; reason is non-empty for kFailed.
  virtual void Finish(RunStatus status, const std::string& reason) = 0;
};

}  // namespace csim::sim
