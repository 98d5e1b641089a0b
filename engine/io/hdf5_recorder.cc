#include "engine/io/hdf5_recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/common/check.h"
#include "engine/common/io_error.h"
#include "engine/io/dependency_versions.h"
#include "engine/io/hdf5_geometry.h"
#include "engine/io/hdf5_model.h"
#include "engine/io/hdf5_series.h"
#include "engine/io/solver_trace_recorder.h"

namespace csim::io {
namespace {

using Clock = std::chrono::steady_clock;

/// Wall time between flushes while a chunk fills; the contract promises at most 2 s.
constexpr auto kFlushInterval = std::chrono::seconds(1);
/// Rows per chunk of the time series, at most (flushing on chunk boundaries of hundreds of rows
/// costs little; smaller chunks keep a live reader close behind the run).
constexpr int64_t kMaxChunkRows = 512;
/// Target size of one chunk of the widest series: HDF5's default chunk cache is 1 MiB.
constexpr int64_t kTargetChunkBytes = int64_t{1} << 20;
/// Bytes of the fixed-length /status string ("interrupted" is the longest value).
constexpr size_t kStatusSize = 16;
constexpr int32_t kFormatVersion = 1;

/// Rows per chunk for a model: a chunk of the widest series stays near kTargetChunkBytes.
int64_t ChunkRows(const multibody::Model& model) {
  const int64_t widest = std::max({model.nq, model.nv, 4 * model.num_bodies(), 1});
  const int64_t row_bytes = widest * static_cast<int64_t>(sizeof(double));
  return std::clamp<int64_t>(kTargetChunkBytes / row_bytes, 1, kMaxChunkRows);
}

/// Current UTC time in ISO 8601, e.g. "2025-03-01T12:34:56Z".
std::string NowIso8601Utc() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

/// Root attributes known at the start (output-format.md "Root attributes").
void WriteRootAttributes(Hdf5File& file, const sim::RunInfo& info) {
  const sim::Settings& settings = *info.settings;
  file.SetAttribute("format", "csim");
  file.SetAttribute("format_version", kFormatVersion);
  file.SetAttribute("csim_version", VersionString());
  file.SetAttribute("scene_name", info.scene_name);
  file.SetAttribute("scene_file", info.scene_file);
  file.SetAttribute("created", NowIso8601Utc());
  file.SetAttribute("time_step", settings.time_step);
  file.SetAttribute("duration", settings.duration);
  file.SetAttribute("integrator", settings.integrator.name);
  file.SetAttribute("theta", settings.integrator.theta);
  file.SetAttribute("theta_q", settings.integrator.theta_q);
  file.SetAttribute("contact_model", sim::ContactModelName(settings.contact_model));
  file.SetAttribute("gyroscopic",
                    settings.gyroscopic == integrator::Gyroscopic::kImplicit ? "implicit" : "explicit");
}

/// /scene/yaml and /scene/overrides.
void WriteScene(Hdf5File& file, const sim::RunInfo& info) {
  Hdf5Group scene = file.CreateGroup("scene");
  Hdf5Dataset yaml = scene.CreateString("yaml", info.scene_yaml);
  Describe(yaml, "", "exact scene text that was run, overrides applied");
  Hdf5Dataset overrides = scene.CreateStringList("overrides", info.overrides);
  Describe(overrides, "", "the --set arguments, in order");
}

}  // namespace

/// Every dataset the recorder writes to while the run goes on, with its buffer.
struct Hdf5Recorder::Layout {
  int nq = 0, nv = 0, nb = 0;  // model sizes, checked against each row
  bool contacts = false;       // settings.output.contacts
  bool joint_friction = false; // the model has joint friction: /joints/friction_effort
  int constraint_rows = 0;     // rows of the model's constraints: /constraints/impulse
  int na = 0;                  // number of actuators: /actuators/* when > 0
  int64_t pending_contacts = 0;
  bool surfaces = false;       // contacts recorded and the model has hydroelastic geometry
  int64_t pending_surfaces = 0;
  bool polygons = false;       // surfaces recorded and settings.output.contact_surfaces
  int64_t pending_polygons = 0, pending_vertices = 0;
  bool condition = false;      // settings.output.condition_number
  int np = 0;                  // sensitivity columns: /sensitivity/* when > 0

  Hdf5Dataset status;
  Hdf5Dataset body_names;
  Series<double> time;
  Series<int64_t> step;
  Series<double> q, v;
  Series<double> position, quaternion, linear_velocity, angular_velocity;
  Series<double> kinetic, potential;
  Series<int32_t> iterations;
  Series<double> momentum_error, cost, wall_time;
  Series<double> condition_number;
  Series<double> friction_effort;
  Series<double> constraint_impulse;
  Series<double> actuator_effort, actuator_q_target, actuator_v_target;
  Series<int8_t> actuator_saturated;
  Series<double> sensitivity_dq, sensitivity_dv, sensitivity_min_kink;
  Series<int32_t> sensitivity_one_sided, sensitivity_unmatched;
  Series<int8_t> sensitivity_approximate, sensitivity_near_kink;
  Series<int32_t> contact_count;
  Series<int64_t> contact_offset;
  FlatSeries<int32_t> body_a, body_b;
  FlatSeries<double> point, normal, signed_distance, force, slip_speed;
  FlatSeries<double> stiction_tolerance;
  FlatSeries<int8_t> region;
  FlatSeries<double> kink_distance;
  Series<int32_t> surface_count;
  Series<int64_t> surface_offset;
  FlatSeries<int32_t> surface_body_a, surface_body_b, surface_contact_count;
  FlatSeries<int64_t> surface_first_contact;
  FlatSeries<double> surface_area, surface_centroid, surface_force, surface_moment;
  FlatSeries<int64_t> surface_first_polygon, polygon_vertex_offset;
  FlatSeries<int32_t> polygon_vertex_count;
  FlatSeries<double> vertex_position, vertex_pressure;
  SolverTraceRecorder solver_trace;  // records nothing unless some step is traced

  /// Calls fn on every time series but /time (which is always written last).
  template <typename Fn>
  void ForEachSeriesButTime(Fn fn) {
    fn(step), fn(q), fn(v);
    fn(position), fn(quaternion), fn(linear_velocity), fn(angular_velocity);
    fn(kinetic), fn(potential);
    fn(iterations), fn(momentum_error), fn(cost), fn(wall_time);
    if (condition) fn(condition_number);
    if (joint_friction) fn(friction_effort);
    if (constraint_rows > 0) fn(constraint_impulse);
    if (na > 0) fn(actuator_effort), fn(actuator_q_target), fn(actuator_v_target);
    if (na > 0) fn(actuator_saturated);
    if (np > 0) fn(sensitivity_dq), fn(sensitivity_dv), fn(sensitivity_one_sided);
    if (np > 0) fn(sensitivity_unmatched), fn(sensitivity_approximate);
    if (np > 0) fn(sensitivity_min_kink), fn(sensitivity_near_kink);
    if (contacts) fn(contact_count), fn(contact_offset);
    if (surfaces) fn(surface_count), fn(surface_offset);
  }
  /// Calls fn on every flat per-surface series (none without surfaces).
  template <typename Fn>
  void ForEachSurfaceSeries(Fn fn) {
    if (!surfaces) return;
    fn(surface_body_a), fn(surface_body_b), fn(surface_first_contact), fn(surface_contact_count);
    fn(surface_area), fn(surface_centroid), fn(surface_force), fn(surface_moment);
    if (polygons) fn(surface_first_polygon);
  }
  /// Calls fn on every flat per-polygon series (none without polygons).
  template <typename Fn>
  void ForEachPolygonSeries(Fn fn) {
    if (polygons) fn(polygon_vertex_offset), fn(polygon_vertex_count);
  }
  /// Calls fn on every flat per-vertex series (none without polygons).
  template <typename Fn>
  void ForEachVertexSeries(Fn fn) {
    if (polygons) fn(vertex_position), fn(vertex_pressure);
  }
  /// Calls fn on every flat per-contact series (none when contacts are off).
  template <typename Fn>
  void ForEachContactSeries(Fn fn) {
    if (!contacts) return;
    fn(body_a), fn(body_b), fn(point), fn(normal), fn(signed_distance), fn(force);
    fn(slip_speed);
    if (condition) fn(stiction_tolerance);
    if (np > 0) fn(region), fn(kink_distance);
  }

  /// Gives up every dataset handle without closing it (Hdf5Object::Abandon).
  void AbandonDatasets() {
    status.Abandon();
    body_names.Abandon();
    time.dataset().Abandon();
    ForEachSeriesButTime([](auto& series) { series.dataset().Abandon(); });
    ForEachContactSeries([](auto& series) { series.dataset().Abandon(); });
    ForEachSurfaceSeries([](auto& series) { series.dataset().Abandon(); });
    ForEachPolygonSeries([](auto& series) { series.dataset().Abandon(); });
    ForEachVertexSeries([](auto& series) { series.dataset().Abandon(); });
    solver_trace.AbandonDatasets();
  }

  void CreateSeries(Hdf5File& file, hsize_t chunk_rows, int gzip);
  void CreateSensitivities(Hdf5File& file, const std::vector<std::string>& paths,
                           hsize_t chunk_rows, int gzip);
  void CreateContacts(Hdf5File& file, hsize_t chunk_rows, int gzip);
  void CreateContactRegions(Hdf5File& file, int gzip);
  void CreateSurfaces(Hdf5File& file, hsize_t chunk_rows, int gzip);
  void CreatePolygons(Hdf5File& file, int gzip);
  void AttachScales();
};

void Hdf5Recorder::Layout::CreateSeries(Hdf5File& file, hsize_t chunk_rows, int gzip) {
  const hsize_t b = nb;
  for (const char* group : {"state", "bodies", "energy", "solver"}) file.CreateGroup(group);
  time = {file, "time", {}, chunk_rows, gzip, "s", "simulated time of the row"};
  step = {file, "step", {}, chunk_rows, gzip, "1", "step index of each row"};
  q = {file, "state/q", {hsize_t(nq)}, chunk_rows, gzip, "mixed",
       "generalised positions (units per joint coordinate, scene-format.md)"};
  v = {file, "state/v", {hsize_t(nv)}, chunk_rows, gzip, "mixed",
       "generalised velocities (units per joint coordinate, scene-format.md)"};
  position = {file, "bodies/position", {b, 3}, chunk_rows, gzip, "m",
              "body frame origin, world frame"};
  quaternion = {file, "bodies/quaternion", {b, 4}, chunk_rows, gzip, "1",
                "body orientation in the world frame, w, x, y, z"};
  linear_velocity = {file, "bodies/linear_velocity", {b, 3}, chunk_rows, gzip, "m/s",
                     "velocity of the body frame origin, world frame"};
  angular_velocity = {file, "bodies/angular_velocity", {b, 3}, chunk_rows, gzip, "rad/s",
                      "angular velocity of the body, world frame"};
  kinetic = {file, "energy/kinetic", {}, chunk_rows, gzip, "J", "kinetic energy"};
  potential = {file, "energy/potential", {}, chunk_rows, gzip, "J",
               "potential energy: gravity + joint springs"};
  iterations = {file, "solver/iterations", {}, chunk_rows, gzip, "1",
                "Newton iterations of the step that produced the row"};
  momentum_error = {file, "solver/momentum_error", {}, chunk_rows, gzip, "1",
                    "dimensionless momentum error of the step (SAP paper eq. 32)"};
  cost = {file, "solver/cost", {}, chunk_rows, gzip, "J",
          "value of the convex cost at the solution"};
  wall_time = {file, "solver/wall_time", {}, chunk_rows, gzip, "s", "wall time of the whole step"};
  if (condition) {
    condition_number = {file, "solver/condition_number", {}, chunk_rows, gzip, "1",
                        "2-norm condition number of the Newton matrix at the solution, the "
                        "largest over islands (Lanczos estimate); NaN without a Newton solve"};
  }
  if (constraint_rows > 0) {
    file.CreateGroup("constraints");
    constraint_impulse = {file, "constraints/impulse", {hsize_t(constraint_rows)}, chunk_rows,
                          gzip, "mixed",
                          "holonomic constraint impulse over the step per row [N*s or N*m*s], "
                          "rows per /model/constraint_first_row"};
  }
  if (na > 0) {
    file.CreateGroup("actuators");
    const std::vector<hsize_t> shape{hsize_t(na)};
    actuator_effort = {file, "actuators/effort", shape, chunk_rows, gzip, "mixed",
                       "effort each actuator delivered over the step (impulse / dt) [N*m or N]"};
    actuator_q_target = {file, "actuators/q_target", shape, chunk_rows, gzip, "mixed",
                         "position target q_d of the step [rad or m], NaN: force actuator"};
    actuator_v_target = {file, "actuators/v_target", shape, chunk_rows, gzip, "mixed",
                         "velocity target v_d of the step [rad/s or m/s], NaN: force actuator"};
    actuator_saturated = {file, "actuators/saturated", shape, chunk_rows, gzip, "1",
                          "1 where the effort is at the effort limit"};
  }
  if (!joint_friction) return;
  file.CreateGroup("joints");
  friction_effort = {file, "joints/friction_effort", {hsize_t(nv)}, chunk_rows, gzip, "mixed",
                     "joint dry friction effort of the step (impulse / dt) per velocity "
                     "coordinate [N or N*m], within +-/model/joint_friction"};
}

void Hdf5Recorder::Layout::CreateSensitivities(Hdf5File& file,
                                               const std::vector<std::string>& paths,
                                               hsize_t chunk_rows, int gzip) {
  np = static_cast<int>(paths.size());
  Hdf5Group group = file.CreateGroup("sensitivity");
  Hdf5Dataset parameters = group.CreateStringList("parameters", paths);
  Describe(parameters, "", "parameter path of each column (--sensitivities), in order");
  const std::vector<hsize_t> shape{hsize_t(nv), hsize_t(np)};
  sensitivity_dq = {file, "sensitivity/dq", shape, chunk_rows, gzip, "mixed",
                    "dq/dp in the velocity-space tangent at q (nv rows, not nq; a quaternion "
                    "moves by Exp(delta)) [m or rad per unit of p]"};
  sensitivity_dv = {file, "sensitivity/dv", shape, chunk_rows, gzip, "mixed",
                    "dv/dp [m/s or rad/s per unit of p]"};
  sensitivity_one_sided = {file, "sensitivity/one_sided", {}, chunk_rows, gzip, "1",
                           "columns whose state partials were one-sided differences, summed "
                           "over the steps since the previous row"};
  sensitivity_unmatched = {file, "sensitivity/unmatched", {}, chunk_rows, gzip, "1",
                           "columns whose both perturbed assemblies changed the contact set or "
                           "piece, summed over the steps since the previous row"};
  sensitivity_approximate = {file, "sensitivity/approximate_geometry", {}, chunk_rows, gzip, "1",
                             "1 when a step since the previous row had a contact whose geometry "
                             "is differenced through the narrow phase (not analytic)"};
  sensitivity_min_kink = {file, "sensitivity/min_kink_distance", {}, chunk_rows, gzip, "1",
                          "smallest contact kink distance over the steps since the previous "
                          "row, 1 without contacts"};
  sensitivity_near_kink = {file, "sensitivity/near_kink", {}, chunk_rows, gzip, "1",
                           "1 where min_kink_distance < 1e-6: a region boundary within reach"};
}

void Hdf5Recorder::Layout::CreateContacts(Hdf5File& file, hsize_t chunk_rows, int gzip) {
  file.CreateGroup("contacts");
  contact_count = {file, "contacts/count", {}, chunk_rows, gzip, "1", "contacts of the step"};
  contact_offset = {file, "contacts/offset", {}, chunk_rows, gzip, "1",
                    "index of the row's first contact in the flat /contacts datasets"};
  body_a = {file, "contacts/body_a", {}, gzip, "1", "body index of side a, -1 for world"};
  body_b = {file, "contacts/body_b", {}, gzip, "1", "body index of side b, -1 for world"};
  point = {file, "contacts/point", {3}, gzip, "m", "contact point, world frame"};
  normal = {file, "contacts/normal", {3}, gzip, "1",
            "unit normal, world frame, pointing from a into b"};
  signed_distance = {file, "contacts/signed_distance", {}, gzip, "m",
                     "phi0 at the start of the step (negative: overlap)"};
  force = {file, "contacts/force", {3}, gzip, "N",
           "contact force on b (impulse / dt), world frame; a feels the opposite"};
  slip_speed = {file, "contacts/slip_speed", {}, gzip, "m/s", "tangential speed at the solution"};
  if (condition) {
    stiction_tolerance = {file, "contacts/stiction_tolerance", {}, gzip, "m/s",
                          "effective stiction tolerance of the step's friction law: SAP "
                          "mu sigma w gamma_n, Hunt & Crossley models eps_s"};
  }
}

void Hdf5Recorder::Layout::CreateContactRegions(Hdf5File& file, int gzip) {
  region = {file, "contacts/region", {}, gzip, "1",
            "piece of the contact law at the solution: 0 none, 1 stiction, 2 sliding"};
  kink_distance = {file, "contacts/kink_distance", {}, gzip, "1",
                   "distance to the nearest region boundary (sine of an angle for SAP, "
                   "relative for Hunt & Crossley), 0 on it"};
}

void Hdf5Recorder::Layout::CreateSurfaces(Hdf5File& file, hsize_t chunk_rows, int gzip) {
  file.CreateGroup("hydroelastic");
  surface_count = {file, "hydroelastic/count", {}, chunk_rows, gzip, "1",
                   "hydroelastic contact surfaces of the step"};
  surface_offset = {file, "hydroelastic/offset", {}, chunk_rows, gzip, "1",
                    "index of the row's first surface in the flat /hydroelastic datasets"};
  surface_body_a = {file, "hydroelastic/body_a", {}, gzip, "1", "body index of side a, -1 for world"};
  surface_body_b = {file, "hydroelastic/body_b", {}, gzip, "1", "body index of side b, -1 for world"};
  surface_first_contact = {file, "hydroelastic/first_contact", {}, gzip, "1",
                           "index in the flat /contacts datasets of the surface's first polygon"};
  surface_contact_count = {file, "hydroelastic/contact_count", {}, gzip, "1",
                           "polygons of the surface: consecutive /contacts entries"};
  surface_area = {file, "hydroelastic/area", {}, gzip, "m^2", "area of the kept polygons"};
  surface_centroid = {file, "hydroelastic/centroid", {3}, gzip, "m",
                      "area centroid of the surface, world frame"};
  surface_force = {file, "hydroelastic/force", {3}, gzip, "N",
                   "total force on b (sum of its polygons' /contacts/force), world frame"};
  surface_moment = {file, "hydroelastic/moment", {3}, gzip, "N*m",
                    "total moment on b about the centroid, world frame"};
}

void Hdf5Recorder::Layout::CreatePolygons(Hdf5File& file, int gzip) {
  surface_first_polygon = {file, "hydroelastic/first_polygon", {}, gzip, "1",
                           "index in the flat polygon datasets of the surface's first polygon "
                           "(its contact_count polygons are consecutive)"};
  polygon_vertex_offset = {file, "hydroelastic/polygon_vertex_offset", {}, gzip, "1",
                           "index of the polygon's first vertex in the flat vertex datasets"};
  polygon_vertex_count = {file, "hydroelastic/polygon_vertex_count", {}, gzip, "1",
                          "vertices of the polygon (>= 3), counter-clockwise about its "
                          "contact's normal"};
  vertex_position = {file, "hydroelastic/vertex_position", {3}, gzip, "m",
                     "polygon vertex, world frame"};
  vertex_pressure = {file, "hydroelastic/vertex_pressure", {}, gzip, "Pa",
                     "pressure at the vertex: the polygon's linear pressure field"};
}

void Hdf5Recorder::Layout::AttachScales() {
  // /time names the first axis of every series; body names the second axis of /bodies/*.
  time.dataset().MakeDimensionScale("time");
  body_names.MakeDimensionScale("body_names");
  ForEachSeriesButTime([&](auto& series) {
    series.dataset().AttachDimensionScale(time.dataset(), 0);
  });
  for (auto* series : {&position, &quaternion, &linear_velocity, &angular_velocity})
    series->dataset().AttachDimensionScale(body_names, 1);
}

// ---------------------------------------------------------------------------------------

Hdf5Recorder::Hdf5Recorder(std::string path) : path_(std::move(path)) {}

Hdf5Recorder::~Hdf5Recorder() {
  if (begun_ && !finished_) {
    // A destructor cannot report (nor throw): on an error the rows flushed before stay
    // readable.
    try {
      FlushRows();
    } catch (...) {
    }
  }
  writer_.reset();  // lets the write in flight finish (its error dropped), then joins
  if (write_failed_ && layout_ != nullptr) AbandonFile();
  layout_.reset();     // datasets close before file_
  file_ = Hdf5File();  // closes quietly, while the lock still keeps other writers out
  UnlockOutput();
}

void Hdf5Recorder::Begin(const sim::RunInfo& info) {
  CSIM_CHECK(!begun_ && info.model != nullptr && info.settings != nullptr);
  // The writer thread starts before the file exists: when the system refuses a thread
  // (a low `ulimit -u`, no memory), there is no file left behind saying "running".
  try {
    writer_ = std::make_unique<BackgroundJob>([this] {
      SilenceHdf5Errors();  // on the writer's thread (hdf5_file.h)
      try {
        WriteBackBuffers();
      } catch (...) {
        write_failed_ = true;  // read after Wait or the join, which order it
        ClearHdf5Errors();     // the IoError has the message; the thread may end next
        throw;
      }
    });
  } catch (const std::system_error& e) {
    throw IoError("cannot start the thread that writes '" + path_ + "': " + e.what());
  }
  const multibody::Model& model = *info.model;
  chunk_rows_ = ChunkRows(model);
  // Before the file is created (truncated): a second run on the same output stops here
  // and the first one's file stays whole.
  const bool created = LockOutput();
  bool truncated = false;
  try {
    // HDF5's own lock is off: ours (LockOutput) keeps other writers out, and with HDF5's
    // a reader polling for the file (a notebook) could hold its shared lock on the empty
    // file LockOutput created just as HDF5 asked for its exclusive one, failing the run.
    file_ = Hdf5File::Create(path_, /*file_locking=*/false);
    truncated = true;
    WriteLayout(info);
  } catch (...) {
    // Nothing has been simulated yet, so nothing is lost: a file without its layout
    // (a full disk, say) would only be a corrupt file. A file we did not create and
    // could not truncate is someone else's: left alone.
    layout_.reset();
    file_ = Hdf5File();  // closes quietly: the error to report is the one in flight
    if (created || truncated) std::remove(path_.c_str());
    UnlockOutput();
    throw;
  }
  last_flush_ = Clock::now();
  begun_ = true;
}

void Hdf5Recorder::WriteLayout(const sim::RunInfo& info) {
  const multibody::Model& model = *info.model;

  auto layout = std::make_unique<Layout>();
  layout->nq = model.nq;
  layout->nv = model.nv;
  layout->nb = model.num_bodies();
  layout->contacts = info.settings->output.contacts;
  layout->condition = info.settings->output.condition_number;
  layout->joint_friction = model.HasJointFriction();
  layout->constraint_rows = multibody::TotalHolonomicRows(model.constraints);
  layout->na = static_cast<int>(model.actuators.size());
  WriteRootAttributes(file_, info);
  layout->status = file_.CreateFixedString("status", "running", kStatusSize);
  Describe(layout->status, "", "running, completed, interrupted or failed");
  WriteScene(file_, info);
  layout->body_names = WriteModel(file_, model);
  {
    Hdf5Group model_group = file_.OpenGroup("model");
    // /model/geometry (extension)
    WriteGeometry(model_group, MakeGeometryTable(model, info.scene_file));
  }
  const int gzip = info.settings->output.compression;
  layout->CreateSeries(file_, chunk_rows_, gzip);
  if (!info.settings->sensitivities.empty())
    layout->CreateSensitivities(file_, info.settings->sensitivities, chunk_rows_, gzip);
  if (layout->contacts) layout->CreateContacts(file_, chunk_rows_, gzip);
  if (layout->contacts && layout->np > 0) layout->CreateContactRegions(file_, gzip);
  layout->surfaces = layout->contacts && model.HasHydroelasticGeometry();
  if (layout->surfaces) layout->CreateSurfaces(file_, chunk_rows_, gzip);
  layout->polygons = layout->surfaces && info.settings->output.contact_surfaces;
  if (layout->polygons) layout->CreatePolygons(file_, gzip);
  if (!info.settings->trace_solver_steps.empty())
    layout->solver_trace = SolverTraceRecorder(file_, gzip);
  layout->AttachScales();
  layout_ = std::move(layout);

  // Everything exists: from here on only raw data changes, as SWMR requires.
  file_.StartSwmrWrite();
}

void Hdf5Recorder::Record(const sim::Row& row) {
  CSIM_CHECK(begun_ && !finished_);
  BufferRow(row, pending_rows_);
  ++pending_rows_;
  const int64_t recorded = submitted_rows_ + pending_rows_;
  if (recorded == 1) {
    // The first row (the initial state) is written at once and waited for: a run killed
    // before its first timed flush would leave a file without a single row, which no
    // reader accepts. Once per run, so the wait costs nothing that matters.
    FlushRows();
    writer_->Wait();
    return;
  }
  const bool chunk_full = recorded % chunk_rows_ == 0;
  // steady_clock::now() is a vDSO call (tens of ns): cheap enough for every row.
  if (chunk_full || Clock::now() - last_flush_ >= kFlushInterval) FlushRows();
}

void Hdf5Recorder::Heartbeat() {
  if (begun_ && !finished_ && pending_rows_ > 0 && Clock::now() - last_flush_ >= kFlushInterval)
    FlushRows();
}

void Hdf5Recorder::BufferRow(const sim::Row& row, int64_t slot) {
  Layout& l = *layout_;
  CSIM_CHECK(row.q.size() == l.nq && row.v.size() == l.nv);
  CSIM_CHECK(row.body_position.cols() == l.nb && row.body_quaternion.cols() == l.nb &&
             row.body_linear_velocity.cols() == l.nb &&
             row.body_angular_velocity.cols() == l.nb);
  *l.time.Row(slot) = row.time;
  *l.step.Row(slot) = row.step;
  std::copy_n(row.q.data(), l.nq, l.q.Row(slot));
  std::copy_n(row.v.data(), l.nv, l.v.Row(slot));
  // Column-major (3, nb) Eigen storage is exactly the row-major (nb, 3) of the file.
  std::copy_n(row.body_position.data(), 3 * l.nb, l.position.Row(slot));
  std::copy_n(row.body_quaternion.data(), 4 * l.nb, l.quaternion.Row(slot));
  std::copy_n(row.body_linear_velocity.data(), 3 * l.nb, l.linear_velocity.Row(slot));
  std::copy_n(row.body_angular_velocity.data(), 3 * l.nb, l.angular_velocity.Row(slot));
  *l.kinetic.Row(slot) = row.kinetic_energy;
  *l.potential.Row(slot) = row.potential_energy;
  *l.iterations.Row(slot) = row.solver.iterations;
  *l.momentum_error.Row(slot) = row.solver.momentum_error;
  *l.cost.Row(slot) = row.solver.cost;
  *l.wall_time.Row(slot) = row.solver.wall_time;
  if (l.condition) *l.condition_number.Row(slot) = row.solver.condition_number;
  if (l.joint_friction) {
    CSIM_CHECK(row.joint_friction.size() == l.nv);
    std::copy_n(row.joint_friction.data(), l.nv, l.friction_effort.Row(slot));
  }
  if (l.constraint_rows > 0) {
    CSIM_CHECK(row.constraint_impulse.size() == l.constraint_rows);
    std::copy_n(row.constraint_impulse.data(), l.constraint_rows, l.constraint_impulse.Row(slot));
  }
  if (l.na > 0) {
    CSIM_CHECK(row.actuator_effort.size() == l.na && row.actuator_saturated.size() == size_t(l.na));
    std::copy_n(row.actuator_effort.data(), l.na, l.actuator_effort.Row(slot));
    std::copy_n(row.actuator_q_target.data(), l.na, l.actuator_q_target.Row(slot));
    std::copy_n(row.actuator_v_target.data(), l.na, l.actuator_v_target.Row(slot));
    std::copy_n(row.actuator_saturated.data(), l.na, l.actuator_saturated.Row(slot));
  }
  if (l.np > 0) {
    const sim::SensitivityRow& r = row.sensitivity;
    CSIM_CHECK(r.dq.rows() == l.nv && r.dq.cols() == l.np && r.dv.rows() == l.nv &&
               r.dv.cols() == l.np);
    double* dq = l.sensitivity_dq.Row(slot);
    double* dv = l.sensitivity_dv.Row(slot);
    for (int i = 0; i < l.nv; ++i) {  // row-major (nv, np) from Eigen's column-major
      for (int j = 0; j < l.np; ++j) {
        dq[i * l.np + j] = r.dq(i, j);
        dv[i * l.np + j] = r.dv(i, j);
      }
    }
    *l.sensitivity_one_sided.Row(slot) = r.one_sided;
    *l.sensitivity_unmatched.Row(slot) = r.unmatched;
    *l.sensitivity_approximate.Row(slot) = r.approximate_geometry;
    *l.sensitivity_min_kink.Row(slot) = r.min_kink_distance;
    *l.sensitivity_near_kink.Row(slot) = r.min_kink_distance < 1e-6 ? 1 : 0;
  }
  if (!l.contacts) return;
  const int64_t count = static_cast<int64_t>(row.contacts.size());
  *l.contact_count.Row(slot) = static_cast<int32_t>(count);
  *l.contact_offset.Row(slot) = recorded_contacts_;
  for (const sim::ContactRow& c : row.contacts) {
    l.body_a.Push(c.body_a);
    l.body_b.Push(c.body_b);
    l.point.Push(c.point);
    l.normal.Push(c.normal);
    l.signed_distance.Push(c.signed_distance);
    l.force.Push(c.force);
    l.slip_speed.Push(c.slip_speed);
    if (l.condition) l.stiction_tolerance.Push(c.stiction_tolerance);
    if (l.np > 0) l.region.Push(c.region), l.kink_distance.Push(c.kink_distance);
  }
  if (l.surfaces) BufferSurfaces(row, slot);
  recorded_contacts_ += count;
  l.pending_contacts += count;
}

void Hdf5Recorder::RecordSolverTrace(int64_t step,
                                     const std::vector<solver::NewtonTraceRow>& rows) {
  CSIM_CHECK(begun_ && !finished_);
  // Written with the next flush of rows, which follows within the flush interval (the
  // traced step's own row, or Finish).
  layout_->solver_trace.Buffer(step, rows);
}

void Hdf5Recorder::BufferSurfaces(const sim::Row& row, int64_t slot) {
  Layout& l = *layout_;
  const int64_t surfaces = static_cast<int64_t>(row.surfaces.size());
  *l.surface_count.Row(slot) = static_cast<int32_t>(surfaces);
  *l.surface_offset.Row(slot) = recorded_surfaces_;
  int64_t polygons = 0;  // of the row so far: one per contact of its surfaces
  for (const sim::SurfaceRow& s : row.surfaces) {
    l.surface_body_a.Push(s.body_a);
    l.surface_body_b.Push(s.body_b);
    l.surface_first_contact.Push(recorded_contacts_ + s.first_contact);
    l.surface_contact_count.Push(s.num_contacts);
    l.surface_area.Push(s.area);
    l.surface_centroid.Push(s.centroid);
    l.surface_force.Push(s.force);
    l.surface_moment.Push(s.moment);
    if (l.polygons) l.surface_first_polygon.Push(recorded_polygons_ + polygons);
    polygons += s.num_contacts;
  }
  recorded_surfaces_ += surfaces;
  l.pending_surfaces += surfaces;
  if (!l.polygons) return;
  CSIM_CHECK(static_cast<int64_t>(row.polygon_vertex_count.size()) == polygons);
  int64_t vertices = 0;
  for (int n : row.polygon_vertex_count) {
    l.polygon_vertex_offset.Push(recorded_vertices_ + vertices);
    l.polygon_vertex_count.Push(n);
    vertices += n;
  }
  CSIM_CHECK(static_cast<int64_t>(row.vertex_position.size()) == vertices &&
             static_cast<int64_t>(row.vertex_pressure.size()) == vertices);
  for (const Eigen::Vector3d& p : row.vertex_position) l.vertex_position.Push(p);
  for (double p : row.vertex_pressure) l.vertex_pressure.Push(p);
  recorded_polygons_ += polygons;
  recorded_vertices_ += vertices;
  l.pending_polygons += polygons;
  l.pending_vertices += vertices;
}

void Hdf5Recorder::FlushRows() {
  Layout& l = *layout_;
  // The last write must be done before its back buffers are reused (and reports its
  // error here, one flush late).
  writer_->Wait();
  // Taken before writing, so that after a failed write the destructor does not append
  // the same rows a second time.
  const int64_t rows = std::exchange(pending_rows_, 0);
  const int64_t contacts = std::exchange(l.pending_contacts, 0);
  const int64_t surfaces = std::exchange(l.pending_surfaces, 0);
  const int64_t polygons = std::exchange(l.pending_polygons, 0);
  const int64_t vertices = std::exchange(l.pending_vertices, 0);
  last_flush_ = Clock::now();
  if (rows == 0 && !l.solver_trace.has_pending()) return;
  l.solver_trace.Swap();
  l.ForEachContactSeries([&](auto& series) { series.Swap(); });
  l.ForEachSurfaceSeries([&](auto& series) { series.Swap(); });
  l.ForEachPolygonSeries([&](auto& series) { series.Swap(); });
  l.ForEachVertexSeries([&](auto& series) { series.Swap(); });
  l.ForEachSeriesButTime([&](auto& series) { series.Swap(); });
  l.time.Swap();
  back_rows_ = rows;
  back_contacts_ = contacts;
  back_surfaces_ = surfaces;
  back_polygons_ = polygons;
  back_vertices_ = vertices;
  submitted_rows_ += rows;
  writer_->Submit();
}

void Hdf5Recorder::WriteBackBuffers() {
  // On the writer thread. Order: contacts, vertices and polygons before what points at
  // them, /time last, so a reader that slices to len(/time) only sees complete rows.
  Layout& l = *layout_;
  l.ForEachContactSeries([&](auto& series) { series.WriteBack(back_contacts_); });
  l.ForEachVertexSeries([&](auto& series) { series.WriteBack(back_vertices_); });
  l.ForEachPolygonSeries([&](auto& series) { series.WriteBack(back_polygons_); });
  l.ForEachSurfaceSeries([&](auto& series) { series.WriteBack(back_surfaces_); });
  l.solver_trace.WriteBack();
  l.ForEachSeriesButTime([&](auto& series) { series.WriteBack(back_rows_); });
  l.time.WriteBack(back_rows_);
  flushed_rows_ += back_rows_;
}

int64_t Hdf5Recorder::flushed_rows() {
  if (writer_ != nullptr) writer_->WaitUntilDone();  // a query: the next flush reports errors
  return flushed_rows_;
}

void Hdf5Recorder::Finish(sim::RunStatus status, const std::string& reason) {
  if (!begun_ || finished_) return;
  finished_ = true;
  FlushRows();
  writer_->Wait();
  const bool failed = status == sim::RunStatus::kFailed;
  if (!failed) layout_->status.WriteFixedString(sim::RunStatusName(status));
  CloseFile();
  if (failed) MarkFailed(reason.empty() ? "unknown failure" : reason);
  UnlockOutput();  // the file is complete: another run may now replace it
}

void Hdf5Recorder::CloseFile() {
  layout_.reset();
  file_.Close();
}

void Hdf5Recorder::AbandonFile() {
  // As if the process had been killed at the failed write: HDF5 writes nothing more, and
  // the file keeps every row flushed before it and opens in SWMR read mode (/status
  // "running"). Closing instead flushed metadata and a superblock whose end of allocation
  // lay past the end of a file that could not grow (EFBIG under a file-size limit), and
  // then the whole file failed to open ("truncated file: eof = ... stored_eof = ...").
  layout_->AbandonDatasets();
  layout_.reset();
  file_.Abandon();
}

bool Hdf5Recorder::LockOutput() {
  // Why a lock of our own: HDF5's flock() on the file is released when SWMR writing
  // starts, so a second run could truncate the file under the first. An open file
  // description lock (F_OFD_SETLK) does not interact with HDF5's flock(), is not dropped
  // when HDF5 closes its own descriptor of the file (a classic POSIX lock would be), and
  // blocks no reader, since readers never ask for it. O_CREAT without O_TRUNC: taking the
  // lock changes nothing in a file another run is writing. O_CLOEXEC: no child inherits it.
  int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  const bool created = fd >= 0;
  if (fd < 0 && errno == EEXIST) fd = open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw IoError("cannot create '" + path_ + "': " + std::strerror(errno));
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file, however long
  if (fcntl(fd, F_OFD_SETLK, &lock) == 0) {
    lock_fd_ = fd;
    return created;
  }
  const int error = errno;
  close(fd);
  if (error == EAGAIN || error == EACCES)
    throw IoError("cannot write '" + path_ + "': another process is writing it");
  // A file system without record locks (ENOLCK, EINVAL on some network mounts): write
  // unprotected, as before, rather than not at all.
  return created;
}

void Hdf5Recorder::UnlockOutput() {
  if (lock_fd_ < 0) return;
  close(lock_fd_);  // the last descriptor of the open file description: the lock goes
  lock_fd_ = -1;
}

void Hdf5Recorder::MarkFailed(const std::string& reason) {
  // Attributes cannot be created under SWMR: reopen the closed file normally. A notebook
  // watching the run in SWMR mode holds HDF5's shared file lock (1.10 readers keep it),
  // which would make the failure reason unwritable; the lock guards against a second
  // writer, and the only writer (this object) has closed, so retry without it.
  Hdf5File file;
  try {
    file = Hdf5File::Open(path_, Hdf5File::Mode::kReadWrite);
  } catch (const IoError&) {
    file = Hdf5File::Open(path_, Hdf5File::Mode::kReadWriteUnlocked);
  }
  file.SetAttribute("failure_reason", reason);
  file.OpenDataset("status").WriteFixedString(sim::RunStatusName(sim::RunStatus::kFailed));
  file.Close();
}

}  // namespace csim::io
