// Tests of engine/io/hdf5_recorder.cc (and the hdf5_file.h wrapper and run_summary.cc it
// relies on). Files are written through Hdf5Recorder and read back with the plain HDF5 C
// API, so the layout of output-format.md is checked independently of the wrapper.

#include <hdf5.h>
#include <hdf5_hl.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/common/io_error.h"
#include "engine/io/dependency_versions.h"
#include "engine/io/hdf5_file.h"
#include "engine/io/hdf5_geometry.h"
#include "engine/io/hdf5_recorder.h"
#include "engine/io/run_summary.h"
#include "engine/math/rotation.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/build_variant.h"
#include "tests/support/temp_dir.h"

namespace csim::io {
namespace {

namespace fs = std::filesystem;

/// A fresh directory under /tmp, removed with its files at the end of the test.
using csim::testing::TempDir;

/// Four bodies on joints of four kinds: free base, revolute arm, prescribed prismatic
/// slider (owns no coordinates), fixed tool (owns none). nq = 8, nv = 7.
multibody::Model MakeModel() {
  using multibody::JointType;
  multibody::Model model;
  const struct {
    const char* name;
    JointType type;
    int parent;
    bool prescribed;
  } parts[] = {{"base", JointType::kFree, -1, false},
               {"arm", JointType::kRevolute, 0, false},
               {"slider", JointType::kPrismatic, 1, true},
               {"tool", JointType::kFixed, 1, false}};
  for (const auto& part : parts) {
    multibody::Body body;
    body.name = part.name;
    body.mass = 1.0;
    model.bodies.push_back(body);
    multibody::Joint joint;
    joint.name = std::string(part.name) + "_joint";
    joint.type = part.type;
    joint.parent = part.parent;
    joint.child = static_cast<int>(model.joints.size());
    joint.prescribed = part.prescribed;
    model.joints.push_back(joint);
  }
  multibody::AssignCoordinates(model);
  return model;
}

sim::Settings MakeSettings(bool contacts) {
  sim::Settings settings;
  settings.time_step = 0.01;
  settings.duration = 12.0;
  settings.integrator.name = "theta";
  settings.integrator.theta = 0.5;
  settings.integrator.theta_q = 0.25;
  settings.contact_model = sim::ContactModel::kLagged;
  settings.gyroscopic = integrator::Gyroscopic::kExplicit;
  settings.output.contacts = contacts;
  return settings;
}

/// Model, settings and run info that outlive the recorder using them.
struct Run {
  explicit Run(bool contacts = true) : model(MakeModel()), settings(MakeSettings(contacts)) {
    info.model = &model;
    info.settings = &settings;
    info.scene_name = "test_scene";
    info.scene_file = "scenes/test.yaml";
    info.scene_yaml = "name: test_scene\nsettings: {time_step: 0.01}\n# \xc3\xa9t\xc3\xa9\n";
    info.overrides = {"settings.time_step=0.01", "bodies.arm.mass=2"};
  }
  multibody::Model model;
  sim::Settings settings;
  sim::RunInfo info;
};

/// Row storage sized for `model`, as the run loop preallocates it.
sim::Row MakeRow(const multibody::Model& model) {
  const int nb = model.num_bodies();
  sim::Row row;
  row.q.resize(model.nq);
  row.v.resize(model.nv);
  row.body_position.resize(3, nb);
  row.body_quaternion.resize(4, nb);
  row.body_linear_velocity.resize(3, nb);
  row.body_angular_velocity.resize(3, nb);
  row.contacts.reserve(8);
  return row;
}

/// Contacts of row i: i % 4 of them, so some rows have none.
int ContactsOfRow(int64_t i) { return static_cast<int>(i % 4); }

/// Known values for row i (a pure function of i, so expectations are recomputed exactly).
/// Solver statistics are zero for the initial row 0.
void FillRow(int64_t i, sim::Row* row) {
  const double x = static_cast<double>(i);
  row->step = i;
  row->time = 0.01 * x;
  for (int k = 0; k < row->q.size(); ++k) row->q[k] = x + 0.001 * k;
  for (int k = 0; k < row->v.size(); ++k) row->v[k] = -x + 0.01 * k;
  for (int b = 0; b < row->body_position.cols(); ++b) {
    const double angle = 0.001 * x + b;
    row->body_position.col(b) << x, b, 0.5 * x;
    row->body_quaternion.col(b) << std::cos(angle), 0.0, std::sin(angle), 0.0;
    row->body_linear_velocity.col(b) << b, -x, 1.0;
    row->body_angular_velocity.col(b) << 0.0, x * b, -2.0;
  }
  row->kinetic_energy = 1.5 * x;
  row->potential_energy = -9.81 * x;
  const bool initial = i == 0;
  row->solver.iterations = initial ? 0 : 1 + static_cast<int>(i % 3);
  row->solver.momentum_error = initial ? 0.0 : 1e-10 * static_cast<double>(i % 5);
  row->solver.cost = 0.25 * x;
  row->solver.wall_time = initial ? 0.0 : 2.5e-4;
  row->contacts.clear();
  for (int c = 0; c < ContactsOfRow(i); ++c) {
    sim::ContactRow contact;
    contact.body_a = c - 1;
    contact.body_b = c;
    contact.point = Eigen::Vector3d(x, c, -0.5);
    contact.normal = Eigen::Vector3d(0.0, std::sin(0.1 * c), std::cos(0.1 * c));
    contact.signed_distance = -1e-4 * c;
    contact.force = Eigen::Vector3d(c, 2.0 * x, 9.81);
    contact.slip_speed = 0.1 * c + x;
    row->contacts.push_back(contact);
  }
}

/// Records rows [first, last) of FillRow.
void RecordRows(Hdf5Recorder& recorder, const multibody::Model& model, int64_t first,
                int64_t last) {
  sim::Row row = MakeRow(model);
  for (int64_t i = first; i < last; ++i) {
    FillRow(i, &row);
    recorder.Record(row);
  }
}

// --- Reading back with the plain C API ---------------------------------------------------

/// Opens a file read-only in SWMR mode (also works on a closed file).
Hdf5Id OpenForReading(const std::string& path) {
  SilenceHdf5Errors();
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT));
  REQUIRE(file.valid());
  return file;
}

Hdf5Id OpenDataset(const Hdf5Id& file, const std::string& path) {
  Hdf5Id dataset(H5Dopen2(file.get(), path.c_str(), H5P_DEFAULT));
  INFO(path);
  REQUIRE(dataset.valid());
  return dataset;
}

std::vector<hsize_t> Shape(const Hdf5Id& file, const std::string& path) {
  Hdf5Id dataset = OpenDataset(file, path);
  Hdf5Id space(H5Dget_space(dataset.get()));
  std::vector<hsize_t> dims(H5Sget_simple_extent_ndims(space.get()));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

/// Every element of a numeric dataset, converted to T (mem_type).
template <typename T>
std::vector<T> ReadAll(const Hdf5Id& file, const std::string& path, hid_t mem_type) {
  Hdf5Id dataset = OpenDataset(file, path);
  Hdf5Id space(H5Dget_space(dataset.get()));
  std::vector<T> values(H5Sget_simple_extent_npoints(space.get()));
  if (!values.empty())
    REQUIRE(H5Dread(dataset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  return values;
}

std::vector<double> ReadDoubles(const Hdf5Id& file, const std::string& path) {
  return ReadAll<double>(file, path, H5T_NATIVE_DOUBLE);
}

std::vector<int64_t> ReadInts(const Hdf5Id& file, const std::string& path) {
  return ReadAll<int64_t>(file, path, H5T_NATIVE_INT64);
}

/// A 1-D or scalar dataset of variable-length UTF-8 strings.
std::vector<std::string> ReadVlenStrings(const Hdf5Id& file, const std::string& path) {
  Hdf5Id dataset = OpenDataset(file, path);
  Hdf5Id type(H5Dget_type(dataset.get()));
  REQUIRE(H5Tis_variable_str(type.get()) > 0);
  REQUIRE(H5Tget_cset(type.get()) == H5T_CSET_UTF8);
  Hdf5Id space(H5Dget_space(dataset.get()));
  std::vector<char*> pointers(H5Sget_simple_extent_npoints(space.get()));
  if (!pointers.empty())
    REQUIRE(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    pointers.data()) >= 0);
  std::vector<std::string> values;
  for (char* p : pointers) {
    values.emplace_back(p);
    H5free_memory(p);
  }
  return values;
}

/// /status: a scalar fixed-length, null-padded string.
std::string ReadStatus(const Hdf5Id& file) {
  Hdf5Id dataset = OpenDataset(file, "/status");
  Hdf5Id type(H5Dget_type(dataset.get()));
  REQUIRE(H5Tis_variable_str(type.get()) == 0);
  std::string text(H5Tget_size(type.get()), '\0');
  REQUIRE(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) >= 0);
  return text.substr(0, text.find('\0'));
}

bool HasAttribute(const Hdf5Id& file, const std::string& object, const std::string& name) {
  return H5Aexists_by_name(file.get(), object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

std::string StringAttribute(const Hdf5Id& file, const std::string& object,
                            const std::string& name) {
  Hdf5Id attr(H5Aopen_by_name(file.get(), object.c_str(), name.c_str(), H5P_DEFAULT,
                              H5P_DEFAULT));
  INFO(object << " @" << name);
  REQUIRE(attr.valid());
  Hdf5Id type(H5Aget_type(attr.get()));
  REQUIRE(H5Tis_variable_str(type.get()) > 0);
  char* p = nullptr;
  REQUIRE(H5Aread(attr.get(), type.get(), &p) >= 0);
  std::string value(p);
  H5free_memory(p);
  return value;
}

double NumberAttribute(const Hdf5Id& file, const std::string& name) {
  Hdf5Id attr(H5Aopen_by_name(file.get(), "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(attr.valid());
  double value = 0.0;
  REQUIRE(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value) >= 0);
  return value;
}

/// Runs tools/check_output.py on `path`; returns its exit status, printing its output
/// on failure.
int RunChecker(const std::string& path, bool contacts) {
  const std::string log = path + ".check.txt";
  const std::string command = std::string("/usr/bin/python3 ") + CSIM_CHECK_OUTPUT + " '" +
                              path + "'" + (contacts ? " --contacts" : "") + " > '" + log +
                              "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  UNSCOPED_INFO("check_output.py: " << text.str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Writes rows [0, rows) of FillRow through a recorder, then finishes with `status`.
void WriteRun(const Run& run, const std::string& path, int64_t rows, sim::RunStatus status,
              const std::string& reason = "") {
  Hdf5Recorder recorder(path);
  recorder.Begin(run.info);
  RecordRows(recorder, run.model, 0, rows);
  recorder.Finish(status, reason);
}

// --- Tests -------------------------------------------------------------------------------

/// Rows of the round trip: steps 0..1200, more than two chunks, and 1200 steps with
/// solver statistics whose mean is exact.
constexpr int64_t kRows = 1201;

/// Compares rows [0, n) of every time series and contact dataset with FillRow.
void CheckRowsMatch(const Hdf5Id& file, const multibody::Model& model, int64_t n,
                    bool contacts) {
  const std::vector<double> time = ReadDoubles(file, "/time");
  REQUIRE(static_cast<int64_t>(time.size()) == n);
  const std::vector<int64_t> step = ReadInts(file, "/step");
  const std::vector<double> q = ReadDoubles(file, "/state/q");
  const std::vector<double> v = ReadDoubles(file, "/state/v");
  const std::vector<double> position = ReadDoubles(file, "/bodies/position");
  const std::vector<double> quaternion = ReadDoubles(file, "/bodies/quaternion");
  const std::vector<double> linear = ReadDoubles(file, "/bodies/linear_velocity");
  const std::vector<double> angular = ReadDoubles(file, "/bodies/angular_velocity");
  const std::vector<double> kinetic = ReadDoubles(file, "/energy/kinetic");
  const std::vector<double> potential = ReadDoubles(file, "/energy/potential");
  const std::vector<int64_t> iterations = ReadInts(file, "/solver/iterations");
  const std::vector<double> error = ReadDoubles(file, "/solver/momentum_error");
  const std::vector<double> cost = ReadDoubles(file, "/solver/cost");
  const std::vector<double> wall = ReadDoubles(file, "/solver/wall_time");
  const int nq = model.nq, nv = model.nv, nb = model.num_bodies();
  REQUIRE(q.size() == size_t(n * nq));
  REQUIRE(position.size() == size_t(n * nb * 3));
  REQUIRE(quaternion.size() == size_t(n * nb * 4));
  sim::Row row = MakeRow(model);
  std::vector<sim::ContactRow> expected_contacts;
  int mismatches = 0;
  auto same = [&](double a, double b) { mismatches += a != b; };
  for (int64_t i = 0; i < n; ++i) {
    FillRow(i, &row);
    same(time[i], row.time);
    same(step[i], row.step);
    for (int k = 0; k < nq; ++k) same(q[i * nq + k], row.q[k]);
    for (int k = 0; k < nv; ++k) same(v[i * nv + k], row.v[k]);
    for (int b = 0; b < nb; ++b) {
      for (int k = 0; k < 3; ++k) {
        same(position[(i * nb + b) * 3 + k], row.body_position(k, b));
        same(linear[(i * nb + b) * 3 + k], row.body_linear_velocity(k, b));
        same(angular[(i * nb + b) * 3 + k], row.body_angular_velocity(k, b));
      }
      for (int k = 0; k < 4; ++k) same(quaternion[(i * nb + b) * 4 + k], row.body_quaternion(k, b));
    }
    same(kinetic[i], row.kinetic_energy);
    same(potential[i], row.potential_energy);
    same(iterations[i], row.solver.iterations);
    same(error[i], row.solver.momentum_error);
    same(cost[i], row.solver.cost);
    same(wall[i], row.solver.wall_time);
    expected_contacts.insert(expected_contacts.end(), row.contacts.begin(), row.contacts.end());
  }
  CHECK(mismatches == 0);
  if (!contacts) return;

  // Ragged contacts: offset is the running sum of count; flat datasets hold them in order.
  const std::vector<int64_t> count = ReadInts(file, "/contacts/count");
  const std::vector<int64_t> offset = ReadInts(file, "/contacts/offset");
  REQUIRE(static_cast<int64_t>(count.size()) == n);
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    CHECK(count[i] == ContactsOfRow(i));
    CHECK(offset[i] == total);
    total += count[i];
  }
  const std::vector<int64_t> body_a = ReadInts(file, "/contacts/body_a");
  const std::vector<int64_t> body_b = ReadInts(file, "/contacts/body_b");
  const std::vector<double> point = ReadDoubles(file, "/contacts/point");
  const std::vector<double> normal = ReadDoubles(file, "/contacts/normal");
  const std::vector<double> distance = ReadDoubles(file, "/contacts/signed_distance");
  const std::vector<double> force = ReadDoubles(file, "/contacts/force");
  const std::vector<double> slip = ReadDoubles(file, "/contacts/slip_speed");
  REQUIRE(static_cast<int64_t>(expected_contacts.size()) == total);
  REQUIRE(body_a.size() >= size_t(total));
  REQUIRE(point.size() >= size_t(3 * total));
  for (int64_t m = 0; m < total; ++m) {
    const sim::ContactRow& c = expected_contacts[m];
    same(body_a[m], c.body_a);
    same(body_b[m], c.body_b);
    same(distance[m], c.signed_distance);
    same(slip[m], c.slip_speed);
    for (int k = 0; k < 3; ++k) {
      same(point[3 * m + k], c.point[k]);
      same(normal[3 * m + k], c.normal[k]);
      same(force[3 * m + k], c.force[k]);
    }
  }
  CHECK(mismatches == 0);
}

/// The time series of output-format.md, with their units.
const std::vector<std::pair<std::string, std::string>>& SeriesUnits() {
  static const std::vector<std::pair<std::string, std::string>> units = {
      {"/time", "s"},
      {"/step", "1"},
      {"/state/q", "mixed"},
      {"/state/v", "mixed"},
      {"/bodies/position", "m"},
      {"/bodies/quaternion", "1"},
      {"/bodies/linear_velocity", "m/s"},
      {"/bodies/angular_velocity", "rad/s"},
      {"/energy/kinetic", "J"},
      {"/energy/potential", "J"},
      {"/solver/iterations", "1"},
      {"/solver/momentum_error", "1"},
      {"/solver/cost", "J"},
      {"/solver/wall_time", "s"},
      {"/contacts/count", "1"},
      {"/contacts/offset", "1"},
      {"/contacts/point", "m"},
      {"/contacts/force", "N"},
      {"/contacts/slip_speed", "m/s"}};
  return units;
}

/// Chunked along time, unlimited first dimension, shuffle then gzip.
void CheckExtendible(const Hdf5Id& file, const std::string& path) {
  INFO(path);
  Hdf5Id dataset = OpenDataset(file, path);
  Hdf5Id space(H5Dget_space(dataset.get()));
  hsize_t max_dims[8];
  H5Sget_simple_extent_dims(space.get(), nullptr, max_dims);
  CHECK(max_dims[0] == H5S_UNLIMITED);
  Hdf5Id dcpl(H5Dget_create_plist(dataset.get()));
  CHECK(H5Pget_layout(dcpl.get()) == H5D_CHUNKED);
  REQUIRE(H5Pget_nfilters(dcpl.get()) == 2);
  auto filter = [&](unsigned index) {
    unsigned flags = 0, values[8];
    size_t n_values = 8;  // in: room in `values`; out: how many the filter has
    return H5Pget_filter2(dcpl.get(), index, &flags, &n_values, values, 0, nullptr, nullptr);
  };
  CHECK(filter(0) == H5Z_FILTER_SHUFFLE);
  CHECK(filter(1) == H5Z_FILTER_DEFLATE);
}

TEST_CASE("Hdf5Recorder round trip: every row, contact and label comes back", "[hdf5]") {
  TempDir dir;
  Run run;
  const std::string path = dir.File("run.h5");
  {
    Hdf5Recorder recorder(path);
    recorder.Begin(run.info);
    REQUIRE(recorder.chunk_rows() > 0);
    REQUIRE(kRows > 2 * recorder.chunk_rows());
    RecordRows(recorder, run.model, 0, kRows);
    recorder.Finish(sim::RunStatus::kCompleted, "");
  }
  Hdf5Id file = OpenForReading(path);

  SECTION("root attributes") {
    CHECK(StringAttribute(file, "/", "format") == "csim");
    CHECK(NumberAttribute(file, "format_version") == 1.0);
    CHECK(StringAttribute(file, "/", "csim_version") == VersionString());
    CHECK(StringAttribute(file, "/", "scene_name") == "test_scene");
    CHECK(StringAttribute(file, "/", "scene_file") == "scenes/test.yaml");
    const std::string created = StringAttribute(file, "/", "created");
    CHECK(created.size() == 20);
    CHECK(created[10] == 'T');
    CHECK(created.back() == 'Z');
    CHECK(NumberAttribute(file, "time_step") == 0.01);
    CHECK(NumberAttribute(file, "duration") == 12.0);
    CHECK(StringAttribute(file, "/", "integrator") == "theta");
    CHECK(NumberAttribute(file, "theta") == 0.5);
    CHECK(NumberAttribute(file, "theta_q") == 0.25);
    CHECK(StringAttribute(file, "/", "contact_model") == "lagged");
    CHECK(StringAttribute(file, "/", "gyroscopic") == "explicit");
    CHECK_FALSE(HasAttribute(file, "/", "failure_reason"));
    CHECK(ReadStatus(file) == "completed");
  }
  SECTION("scene and model") {
    CHECK(ReadVlenStrings(file, "/scene/yaml") ==
          std::vector<std::string>{run.info.scene_yaml});
    CHECK(ReadVlenStrings(file, "/scene/overrides") == run.info.overrides);
    CHECK(ReadVlenStrings(file, "/model/body_names") ==
          std::vector<std::string>{"base", "arm", "slider", "tool"});
    CHECK(ReadVlenStrings(file, "/model/joint_names") ==
          std::vector<std::string>{"base_joint", "arm_joint", "slider_joint", "tool_joint"});
    CHECK(ReadVlenStrings(file, "/model/joint_types") ==
          std::vector<std::string>{"free", "revolute", "prismatic", "fixed"});
    CHECK(ReadInts(file, "/model/joint_q_start") == std::vector<int64_t>{0, 7, -1, -1});
    CHECK(ReadInts(file, "/model/joint_v_start") == std::vector<int64_t>{0, 6, -1, -1});
    CHECK(ReadInts(file, "/model/nq") == std::vector<int64_t>{8});
    CHECK(ReadInts(file, "/model/nv") == std::vector<int64_t>{7});
  }
  SECTION("time series and contacts, value for value") {
    CHECK(Shape(file, "/state/q") == std::vector<hsize_t>{kRows, 8});
    CHECK(Shape(file, "/bodies/quaternion") == std::vector<hsize_t>{kRows, 4, 4});
    CHECK(Shape(file, "/contacts/normal")[1] == 3);
    CheckRowsMatch(file, run.model, kRows, true);
  }
  SECTION("element types, units, descriptions, chunking") {
    Hdf5Id iterations = OpenDataset(file, "/solver/iterations");
    Hdf5Id type(H5Dget_type(iterations.get()));
    CHECK(H5Tget_class(type.get()) == H5T_INTEGER);
    CHECK(H5Tget_size(type.get()) == 4);
    for (const auto& [path, units] : SeriesUnits()) {
      INFO(path);
      CHECK(StringAttribute(file, path, "units") == units);
      CHECK(!StringAttribute(file, path, "description").empty());
      CheckExtendible(file, path);
    }
  }
  SECTION("dimension scales") {
    Hdf5Id time = OpenDataset(file, "/time");
    Hdf5Id bodies = OpenDataset(file, "/model/body_names");
    CHECK(H5DSis_scale(time.get()) > 0);
    CHECK(H5DSis_scale(bodies.get()) > 0);
    for (const char* path : {"/step", "/state/q", "/bodies/position", "/solver/wall_time",
                             "/contacts/count"}) {
      INFO(path);
      CHECK(H5DSis_attached(OpenDataset(file, path).get(), time.get(), 0) > 0);
    }
    for (const char* path : {"/bodies/position", "/bodies/quaternion",
                             "/bodies/linear_velocity", "/bodies/angular_velocity"}) {
      INFO(path);
      CHECK(H5DSis_attached(OpenDataset(file, path).get(), bodies.get(), 1) > 0);
    }
  }
  SECTION("check_output.py accepts it") { CHECK(RunChecker(path, true) == 0); }
  SECTION("DescribeRun summarises it") {
    file.Reset();
    const std::string text = DescribeRun(path);
    INFO(text);
    CHECK(text.find("test_scene (scenes/test.yaml)") != std::string::npos);
    CHECK(text.find("completed") != std::string::npos);
    CHECK(text.find("0.01 s") != std::string::npos);
    CHECK(text.find("theta (theta 0.5, theta_q 0.25)") != std::string::npos);
    CHECK(text.find("lagged") != std::string::npos);
    CHECK(text.find("gyroscopic      explicit") != std::string::npos);
    CHECK(text.find("nq 8, nv 7, 4 bodies") != std::string::npos);
    CHECK(text.find("1201 (steps 0 to 1200)") != std::string::npos);
    CHECK(text.find("0 to 12 s") != std::string::npos);
    // Steps 1..1200 (step 0 is the initial state): iterations cycle 2, 3, 1.
    CHECK(text.find("mean 2, max 3") != std::string::npos);
    CHECK(text.find("max 4e-10") != std::string::npos);
    CHECK(text.find("300 ms total, 250 us per step") != std::string::npos);
    // Rows 0..1200 have i % 4 contacts: 300 cycles of 0+1+2+3.
    CHECK(text.find("max 3 per step, 1800 in all") != std::string::npos);
  }
}

TEST_CASE("Hdf5Recorder final status: completed, failed with reason, interrupted",
          "[hdf5]") {
  TempDir dir;
  Run run;
  SECTION("failed") {
    const std::string path = dir.File("failed.h5");
    WriteRun(run, path, 30, sim::RunStatus::kFailed, "non-finite v at step 29");
    CHECK(RunChecker(path, true) == 0);
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadStatus(file) == "failed");
    CHECK(StringAttribute(file, "/", "failure_reason") == "non-finite v at step 29");
    CheckRowsMatch(file, run.model, 30, true);
    file.Reset();
    const std::string text = DescribeRun(path);
    CHECK(text.find("failed: non-finite v at step 29") != std::string::npos);
  }
  SECTION("failed without a reason still gets one") {
    const std::string path = dir.File("failed_no_reason.h5");
    WriteRun(run, path, 3, sim::RunStatus::kFailed);
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadStatus(file) == "failed");
    CHECK(!StringAttribute(file, "/", "failure_reason").empty());
  }
  SECTION("interrupted") {
    const std::string path = dir.File("interrupted.h5");
    WriteRun(run, path, 700, sim::RunStatus::kInterrupted);
    CHECK(RunChecker(path, true) == 0);
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadStatus(file) == "interrupted");
    CHECK_FALSE(HasAttribute(file, "/", "failure_reason"));
    CheckRowsMatch(file, run.model, 700, true);
  }
  SECTION("without contacts there is no /contacts group") {
    Run no_contacts(false);
    const std::string path = dir.File("no_contacts.h5");
    WriteRun(no_contacts, path, 10, sim::RunStatus::kCompleted);
    CHECK(RunChecker(path, false) == 0);
    Hdf5Id file = OpenForReading(path);
    CHECK(H5Lexists(file.get(), "contacts", H5P_DEFAULT) == 0);
    CHECK(ReadStatus(file) == "completed");
    CheckRowsMatch(file, no_contacts.model, 10, false);
  }
}

TEST_CASE("Hdf5Recorder: a model without coordinates (nq = nv = 0)", "[hdf5]") {
  // Every joint fixed or prescribed: /state/q is (N, 0), which HDF5 can only chunk with an
  // unlimited second dimension.
  TempDir dir;
  Run run;
  for (multibody::Joint& joint : run.model.joints) joint.type = multibody::JointType::kFixed;
  multibody::AssignCoordinates(run.model);
  REQUIRE(run.model.nq == 0);
  const std::string path = dir.File("fixed.h5");
  WriteRun(run, path, 20, sim::RunStatus::kCompleted);
  CHECK(RunChecker(path, true) == 0);
  Hdf5Id file = OpenForReading(path);
  CHECK(Shape(file, "/state/q") == std::vector<hsize_t>{20, 0});
  CHECK(ReadInts(file, "/model/joint_q_start") == std::vector<int64_t>{-1, -1, -1, -1});
  CheckRowsMatch(file, run.model, 20, true);
}

TEST_CASE("Hdf5Recorder: joint friction limits and efforts, only in models that have them",
          "[hdf5][joint-friction]") {
  TempDir dir;
  Run run;
  multibody::Joint& arm = run.model.joints[1];  // the revolute joint: velocity 6 of 7
  REQUIRE(arm.v_start == 6);
  arm.friction = Eigen::VectorXd::Constant(1, 2.0);
  // Rows whose arm effort rises to the limit; the free base has no friction.
  const auto write = [&](const std::string& path, double peak) {
    Hdf5Recorder recorder(path);
    recorder.Begin(run.info);
    sim::Row row = MakeRow(run.model);
    row.joint_friction.setZero(run.model.nv);
    for (int64_t i = 0; i < 10; ++i) {
      FillRow(i, &row);
      row.joint_friction[6] = peak * static_cast<double>(i) / 9.0;
      recorder.Record(row);
    }
    recorder.Finish(sim::RunStatus::kCompleted, "");
  };
  const std::string path = dir.File("friction.h5");
  write(path, -2.0);
  {
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadDoubles(file, "/model/joint_friction") ==
          std::vector<double>{0, 0, 0, 0, 0, 0, 2.0});
    CHECK(Shape(file, "/joints/friction_effort") == std::vector<hsize_t>{10, 7});
    CHECK(StringAttribute(file, "/joints/friction_effort", "units") == "mixed");
    const std::vector<double> effort = ReadDoubles(file, "/joints/friction_effort");
    for (int i = 0; i < 10; ++i) {
      CHECK(effort[7 * i + 5] == 0.0);
      CHECK(effort[7 * i + 6] == -2.0 * i / 9.0);
    }
  }
  CHECK(RunChecker(path, true) == 0);
  // An effort beyond the limit is what check_output.py exists to catch.
  const std::string beyond = dir.File("beyond.h5");
  write(beyond, 2.5);
  CHECK(RunChecker(beyond, true) == 1);
  // Without friction in the model neither dataset is written.
  Run plain;
  const std::string plain_path = dir.File("plain.h5");
  WriteRun(plain, plain_path, 5, sim::RunStatus::kCompleted);
  Hdf5Id file = OpenForReading(plain_path);
  CHECK(H5Lexists(file.get(), "joints", H5P_DEFAULT) == 0);
  CHECK(H5Lexists(file.get(), "/model/joint_friction", H5P_DEFAULT) == 0);
}

TEST_CASE("Hdf5Recorder: constraint names, types, row ranges and forces, only in models that "
          "have constraints", "[hdf5][constraints]") {
  TempDir dir;
  Run run;
  multibody::HolonomicConstraint ball, rope;
  ball.type = multibody::HolonomicType::kBall;
  ball.name = "pin";
  ball.body_a = -1;
  ball.body_b = 0;
  ball.X_BQ.p = Eigen::Vector3d(0.1, 0.2, 0.3);
  rope.type = multibody::HolonomicType::kDistance;
  rope.name = "rope";
  rope.body_a = 0;
  rope.body_b = 1;
  rope.length = 1.0;
  rope.X_AP.p = Eigen::Vector3d(-1.0, 0.0, 0.5);
  multibody::HolonomicConstraint coupler;  // joins the joints of bodies 1 (follows) and 2
  coupler.type = multibody::HolonomicType::kCoupler;
  coupler.name = "gear";
  coupler.joint = 2;
  coupler.follows = 1;
  run.model.constraints = {ball, rope, coupler};
  // The joints' frames: the arm's joint 0.4 m up its parent, turned a quarter about z.
  run.model.joints[1].X_PJ = {math::RotationAboutAxis(Eigen::Vector3d::UnitZ(), M_PI / 2),
                              Eigen::Vector3d(0.0, 0.0, 0.4)};
  const std::string path = dir.File("constraints.h5");
  {
    Hdf5Recorder recorder(path);
    recorder.Begin(run.info);
    sim::Row row = MakeRow(run.model);
    row.constraint_impulse.setZero(5);
    for (int64_t i = 0; i < 10; ++i) {
      FillRow(i, &row);
      row.constraint_impulse << i, 2.0 * i, 3.0 * i, -0.5 * i, 4.0 * i;
      recorder.Record(row);
    }
    recorder.Finish(sim::RunStatus::kCompleted, "");
  }
  {
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadVlenStrings(file, "/model/constraint_names") ==
          std::vector<std::string>{"pin", "rope", "gear"});
    CHECK(ReadVlenStrings(file, "/model/constraint_types") ==
          std::vector<std::string>{"ball", "distance", "coupler"});
    CHECK(ReadInts(file, "/model/constraint_first_row") == std::vector<int64_t>{0, 3, 4});
    CHECK(ReadInts(file, "/model/constraint_row_count") == std::vector<int64_t>{3, 1, 1});
    CHECK(Shape(file, "/constraints/impulse") == std::vector<hsize_t>{10, 5});
    CHECK(StringAttribute(file, "/constraints/impulse", "units") == "mixed");
    const std::vector<double> impulse = ReadDoubles(file, "/constraints/impulse");
    for (int i = 0; i < 10; ++i) {
      CHECK(impulse[5 * i + 1] == 2.0 * i);
      CHECK(impulse[5 * i + 3] == -0.5 * i);
    }
    // What each joins: the coupler's bodies are those its joints move, its points zero.
    CHECK(ReadInts(file, "/model/constraint_body_a") == std::vector<int64_t>{-1, 0, 1});
    CHECK(ReadInts(file, "/model/constraint_body_b") == std::vector<int64_t>{0, 1, 2});
    CHECK(Shape(file, "/model/constraint_point_a") == std::vector<hsize_t>{3, 3});
    CHECK(ReadDoubles(file, "/model/constraint_point_a") ==
          std::vector<double>{0, 0, 0, -1.0, 0, 0.5, 0, 0, 0});
    CHECK(ReadDoubles(file, "/model/constraint_point_b") ==
          std::vector<double>{0.1, 0.2, 0.3, 0, 0, 0, 0, 0, 0});
    // Where each joint attaches.
    CHECK(ReadInts(file, "/model/joint_parent") == std::vector<int64_t>{-1, 0, 1, 1});
    CHECK(Shape(file, "/model/joint_position") == std::vector<hsize_t>{4, 3});
    const std::vector<double> position = ReadDoubles(file, "/model/joint_position");
    CHECK(position[5] == 0.4);
    const std::vector<double> quaternion = ReadDoubles(file, "/model/joint_quaternion");
    REQUIRE(quaternion.size() == 16);
    CHECK(quaternion[4] == Approx(std::sqrt(0.5)).epsilon(1e-15));  // w of the quarter turn
    CHECK(quaternion[7] == Approx(std::sqrt(0.5)).epsilon(1e-15));  // z
  }
  CHECK(RunChecker(path, true) == 0);
  {  // The checker wants all of the joint frames once any is there.
    Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(H5Ldelete(file.get(), "/model/joint_quaternion", H5P_DEFAULT) >= 0);
  }
  CHECK(RunChecker(path, true) != 0);
  // Without constraints in the model nothing of them is written.
  Run plain;
  const std::string plain_path = dir.File("plain.h5");
  WriteRun(plain, plain_path, 5, sim::RunStatus::kCompleted);
  Hdf5Id file = OpenForReading(plain_path);
  CHECK(H5Lexists(file.get(), "constraints", H5P_DEFAULT) == 0);
  CHECK(H5Lexists(file.get(), "/model/constraint_names", H5P_DEFAULT) == 0);
}

TEST_CASE("Hdf5Recorder: actuators' model and per-step outputs, only in models that have them",
          "[hdf5][actuators]") {
  TempDir dir;
  Run run;
  // A PD actuator on the revolute joint (velocity 6) and a force actuator beside it (the
  // recorder does not ask for distinct coordinates; the loader does).
  multibody::Actuator pd;
  pd.name = "motor";
  pd.joint = 1;
  pd.dof = 6;
  pd.pd = true;
  pd.kp = 30;
  pd.kd = 2;
  pd.effort_limit = 5;
  multibody::Actuator force = pd;
  force.name = "thruster";
  force.pd = false;
  force.kp = force.kd = 0;
  force.effort_limit = std::numeric_limits<double>::infinity();
  run.model.actuators = {pd, force};
  const auto write = [&](const std::string& path, double peak) {
    Hdf5Recorder recorder(path);
    recorder.Begin(run.info);
    sim::Row row = MakeRow(run.model);
    row.actuator_effort.setZero(2);
    row.actuator_q_target.setConstant(2, std::numeric_limits<double>::quiet_NaN());
    row.actuator_v_target = row.actuator_q_target;
    row.actuator_saturated.assign(2, 0);
    for (int64_t i = 0; i < 10; ++i) {
      FillRow(i, &row);
      row.actuator_effort << peak * static_cast<double>(i) / 9.0, -1.5 * i;
      row.actuator_q_target[0] = 0.1 * i;
      row.actuator_v_target[0] = 0.1;
      row.actuator_saturated[0] = i == 9 ? 1 : 0;
      recorder.Record(row);
    }
    recorder.Finish(sim::RunStatus::kCompleted, "");
  };
  const std::string path = dir.File("actuators.h5");
  write(path, 5.0);
  {
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadVlenStrings(file, "/model/actuator_names") ==
          std::vector<std::string>{"motor", "thruster"});
    CHECK(ReadInts(file, "/model/actuator_joint") == std::vector<int64_t>{1, 1});
    CHECK(ReadInts(file, "/model/actuator_coordinate") == std::vector<int64_t>{6, 6});
    CHECK(ReadDoubles(file, "/model/actuator_kp") == std::vector<double>{30, 0});
    CHECK(ReadDoubles(file, "/model/actuator_kd") == std::vector<double>{2, 0});
    CHECK(ReadDoubles(file, "/model/actuator_effort_limit")[0] == 5.0);
    CHECK(std::isinf(ReadDoubles(file, "/model/actuator_effort_limit")[1]));
    for (const char* series : {"effort", "q_target", "v_target", "saturated"})
      CHECK(Shape(file, std::string("/actuators/") + series) == std::vector<hsize_t>{10, 2});
    const std::vector<double> effort = ReadDoubles(file, "/actuators/effort");
    const std::vector<double> q_target = ReadDoubles(file, "/actuators/q_target");
    const std::vector<int64_t> saturated = ReadInts(file, "/actuators/saturated");
    for (int i = 0; i < 10; ++i) {
      CHECK(effort[2 * i] == 5.0 * i / 9.0);
      CHECK(effort[2 * i + 1] == -1.5 * i);
      CHECK(q_target[2 * i] == 0.1 * i);
      CHECK(std::isnan(q_target[2 * i + 1]));
      CHECK(saturated[2 * i] == (i == 9 ? 1 : 0));
    }
  }
  CHECK(RunChecker(path, true) == 0);
  // An effort beyond its limit is what check_output.py exists to catch.
  const std::string beyond = dir.File("beyond.h5");
  write(beyond, 6.0);
  CHECK(RunChecker(beyond, true) == 1);
  // Without actuators in the model none of the datasets is written.
  Run plain;
  const std::string plain_path = dir.File("plain.h5");
  WriteRun(plain, plain_path, 5, sim::RunStatus::kCompleted);
  Hdf5Id file = OpenForReading(plain_path);
  CHECK(H5Lexists(file.get(), "actuators", H5P_DEFAULT) == 0);
  CHECK(H5Lexists(file.get(), "/model/actuator_names", H5P_DEFAULT) == 0);
}

TEST_CASE("Hdf5Recorder: a live file reads in SWMR mode while it is written", "[hdf5]") {
  TempDir dir;
  Run run;
  const std::string path = dir.File("live.h5");
  Hdf5Recorder recorder(path);
  recorder.Begin(run.info);
  // One full chunk (flushed) plus a few buffered rows.
  RecordRows(recorder, run.model, 0, recorder.chunk_rows() + 5);
  CHECK(recorder.flushed_rows() == recorder.chunk_rows());
  // Another process (the checker) opens it in SWMR read mode while we hold it open.
  CHECK(RunChecker(path, true) == 0);
  recorder.Finish(sim::RunStatus::kCompleted, "");
  CHECK(recorder.flushed_rows() == recorder.chunk_rows() + 5);
}

/// Waits up to 10 s for `path` to exist.
bool WaitForFile(const std::string& path) {
  for (int i = 0; i < 200 && !fs::exists(path); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return fs::exists(path);
}

TEST_CASE("Hdf5Recorder: a failed run gets its reason while a SWMR reader watches",
          "[hdf5]") {
  // HDF5 1.10 SWMR readers keep a shared file lock, which blocks the normal read-write
  // reopen that adds failure_reason after the SWMR session.
  TempDir dir;
  Run run;
  const std::string path = dir.File("watched.h5");
  const std::string ready = dir.File("reader_ready"), done = dir.File("reader_done");
  const std::string exited = dir.File("reader_exited");
  Hdf5Recorder recorder(path);
  recorder.Begin(run.info);
  RecordRows(recorder, run.model, 0, recorder.chunk_rows());
  const std::string reader =
      "import h5py, os, time\n"
      "f = h5py.File('" + path + "', 'r', libver='latest', swmr=True)\n"
      "open('" + ready + "', 'w').close()\n"
      "t0 = time.time()\n"
      "while not os.path.exists('" + done + "') and time.time() - t0 < 10: time.sleep(0.05)\n"
      "f.close()\n"
      "open('" + exited + "', 'w').close()\n";
  std::ofstream(dir.File("reader.py")) << reader;
  REQUIRE(std::system(("/usr/bin/python3 '" + dir.File("reader.py") + "' &").c_str()) == 0);
  REQUIRE(WaitForFile(ready));
  CHECK_NOTHROW(recorder.Finish(sim::RunStatus::kFailed, "solver diverged at step 511"));
  std::ofstream(done) << "";
  CHECK(WaitForFile(exited));
  Hdf5Id file = OpenForReading(path);
  CHECK(ReadStatus(file) == "failed");
  CHECK(StringAttribute(file, "/", "failure_reason") == "solver diverged at step 511");
}

TEST_CASE("Hdf5Recorder: buffering a row does not allocate", "[hdf5]") {
  TempDir dir;
  Run run;
  Hdf5Recorder recorder(dir.File("alloc.h5"));
  recorder.Begin(run.info);
  sim::Row row = MakeRow(run.model);
  FillRow(1, &row);  // 1 contact; rows below stay within the preallocated contact buffer
  recorder.Record(row);
  const size_t before = testing::AllocationCount();
  for (int i = 0; i < 50; ++i) recorder.Record(row);  // far from a chunk boundary
  const size_t after = testing::AllocationCount();
  CHECK(after == before);
  recorder.Finish(sim::RunStatus::kCompleted, "");
}

/// Runs `writer` in a forked child, which must end by killing itself with SIGKILL while its
/// recorder is alive (no Finish, no destructor, no HDF5 close), as a killed csim would end;
/// `writer` returns false when what it checked before the kill does not hold.
void RunUntilKilled(const std::function<bool()>& writer) {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      if (!writer()) _exit(2);
    } catch (...) {
      _exit(1);
    }
    _exit(3);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  INFO("child status " << status << " (exit 1: an exception, 2: a check before the kill)");
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("Hdf5Recorder: a killed writer leaves every flushed row readable", "[hdf5]") {
  TempDir dir;
  Run run;
  const std::string path = dir.File("killed.h5");
  constexpr int64_t kEarlyRows = 40;  // recorded at once: the first flushed, the rest buffered
  RunUntilKilled([&] {
    Hdf5Recorder recorder(path);
    recorder.Begin(run.info);
    RecordRows(recorder, run.model, 0, kEarlyRows);
    std::this_thread::sleep_for(std::chrono::milliseconds(1600));
    // Over a second since the last flush: this row triggers a flush of all 41 rows.
    RecordRows(recorder, run.model, kEarlyRows, kEarlyRows + 1);
    // Buffered only: lost with the process.
    RecordRows(recorder, run.model, kEarlyRows + 1, kEarlyRows + 4);
    if (recorder.flushed_rows() != kEarlyRows + 1) return false;
    raise(SIGKILL);
    return true;
  });
  CHECK(RunChecker(path, true) == 0);
  {
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadStatus(file) == "running");
    CheckRowsMatch(file, run.model, kEarlyRows + 1, true);
  }
  const std::string text = DescribeRun(path);
  INFO(text);
  CHECK(text.find("running") != std::string::npos);
  CHECK(text.find("41 (steps 0 to 40)") != std::string::npos);
}

TEST_CASE("Hdf5Recorder: the initial row is on disk as soon as it is recorded", "[hdf5]") {
  // A run killed before its first timed flush (1-2 s in) must not leave a file with no row
  // at all ("/time is empty").
  TempDir dir;
  Run run;
  const std::string path = dir.File("killed_early.h5");
  RunUntilKilled([&] {
    Hdf5Recorder recorder(path);
    recorder.Begin(run.info);
    RecordRows(recorder, run.model, 0, 1);
    if (recorder.flushed_rows() != 1) return false;
    raise(SIGKILL);  // at once: no timed flush, no Finish
    return true;
  });
  CHECK(RunChecker(path, true) == 0);
  Hdf5Id file = OpenForReading(path);
  CHECK(ReadStatus(file) == "running");
  CHECK(Shape(file, "/time") == std::vector<hsize_t>{1});
  CheckRowsMatch(file, run.model, 1, true);
}

TEST_CASE("Hdf5Recorder: a second writer of the same file fails and changes nothing",
          "[hdf5]") {
  // HDF5's own file lock is gone once SWMR writing starts, so without csim's own lock a
  // second run would truncate the file under the first, and both "succeed" with a corrupt
  // file.
  TempDir dir;
  Run run;
  const std::string path = dir.File("shared.h5");
  Hdf5Recorder first(path);
  first.Begin(run.info);
  const int64_t rows = first.chunk_rows() + 5;
  RecordRows(first, run.model, 0, rows / 2);
  SECTION("another recorder in this process") {
    Hdf5Recorder second(path);
    CHECK_THROWS_AS(second.Begin(run.info), IoError);
    CHECK_THROWS_WITH(Hdf5Recorder(path).Begin(run.info),
                      Catch::Contains(path) && Catch::Contains("another process is writing it"));
  }
  SECTION("a csim run in another process; readers are not blocked") {
    const std::string log = dir.File("second.txt");
    const std::string command = std::string("'") + csim::testing::CsimProgram() + "' run '" +
                                CSIM_SOURCE_DIR + "/scenes/pendulum.yaml' -q -o '" + path +
                                "' > '" + log + "' 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 4));
    CHECK(text.find("another process is writing it") != std::string::npos);
    // A SWMR reader (h5py, in another process) still opens the file being written.
    CHECK(RunChecker(path, true) == 0);
  }
  RecordRows(first, run.model, rows / 2, rows);
  first.Finish(sim::RunStatus::kCompleted, "");
  CHECK(RunChecker(path, true) == 0);
  {
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadStatus(file) == "completed");
    CheckRowsMatch(file, run.model, rows, true);
  }
  // Finish released the lock: the next run may replace the file.
  CHECK_NOTHROW(WriteRun(run, path, 10, sim::RunStatus::kCompleted));
  Hdf5Id file = OpenForReading(path);
  CHECK(Shape(file, "/time") == std::vector<hsize_t>{10});
}

TEST_CASE("Hdf5Recorder: a reader's HDF5 lock on the output does not fail the run", "[hdf5]") {
  // A notebook polling for a run's file may open it (an HDF5 reader takes a shared flock)
  // right after the recorder created it empty for its own lock; an exclusive HDF5 lock
  // taken then would fail, and the run with it.
  TempDir dir;
  Run run;
  const std::string path = dir.File("polled.h5");
  std::ofstream(path) << "";
  const int reader = open(path.c_str(), O_RDONLY);
  REQUIRE(reader >= 0);
  REQUIRE(flock(reader, LOCK_SH | LOCK_NB) == 0);  // what the reader's HDF5 holds
  CHECK_NOTHROW(WriteRun(run, path, 10, sim::RunStatus::kCompleted));
  close(reader);
  CHECK(RunChecker(path, true) == 0);
  Hdf5Id file = OpenForReading(path);
  CHECK(Shape(file, "/time") == std::vector<hsize_t>{10});
}

TEST_CASE("Hdf5Recorder: a write that fails leaves the rows flushed before readable",
          "[hdf5]") {
  // Under a file-size limit (EFBIG, as a full disk), closing the file after the failure
  // can write a superblock whose end of allocation lies past the end of the file, which
  // then does not open at all ("truncated file"). The file must stay as a killed run
  // leaves it.
  TempDir dir;
  Run run;
  // Several limits, so that the writes fail at different points of the file.
  for (const rlim_t limit_kib : {150, 200, 300, 600}) {
    const std::string path = dir.File("limited_" + std::to_string(limit_kib) + ".h5");
    INFO("limit " << limit_kib << " KiB");
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      signal(SIGXFSZ, SIG_IGN);  // a failed write returns EFBIG instead of killing us
      bool failed = false;
      try {
        // As in csim: the IoError leaves the run loop and the recorder is destroyed.
        Hdf5Recorder recorder(path);
        recorder.Begin(run.info);
        const rlimit limit{limit_kib * 1024, limit_kib * 1024};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(4);
        try {
          RecordRows(recorder, run.model, 0, 200 * recorder.chunk_rows());
        } catch (const IoError&) {
          failed = true;
        }
      } catch (...) {
        _exit(3);
      }
      _exit(failed ? 0 : 2);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    INFO("child status " << status);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    CHECK(RunChecker(path, true) == 0);
    CHECK_NOTHROW(DescribeRun(path));
    // Rows as a reader takes them: every series sliced to len(/time), which the series
    // written before /time in the failed write may exceed.
    const Hdf5File file = Hdf5File::Open(path, Hdf5File::Mode::kSwmrRead);
    CHECK(file.OpenDataset("status").ReadString() == "running");
    const std::vector<double> time = file.OpenDataset("time").ReadDoubles();
    const hsize_t n = time.size();
    CHECK(n > 0);
    const std::vector<double> q = file.OpenDataset("state/q").ReadDoubles(n);
    REQUIRE(q.size() == n * run.model.nq);
    sim::Row row = MakeRow(run.model);
    for (hsize_t i = 0; i < n; ++i) {
      FillRow(static_cast<int64_t>(i), &row);
      CHECK(time[i] == row.time);
      for (int k = 0; k < run.model.nq; ++k) CHECK(q[i * run.model.nq + k] == row.q[k]);
    }
  }
}

/// Overwrites `count` bytes of `path` from `offset` with 0xab.
void Corrupt(const std::string& path, std::streamoff offset, size_t count) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekp(offset);
  const std::string garbage(count, '\xab');
  f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  REQUIRE(f.good());
}

/// Address in the file of the object header of `object`.
haddr_t ObjectAddress(const std::string& path, const std::string& object) {
  Hdf5Id file = OpenForReading(path);
  H5O_info_t info{};
  REQUIRE(H5Oget_info_by_name2(file.get(), object.c_str(), &info, H5O_INFO_BASIC,
                               H5P_DEFAULT) >= 0);
  return info.addr;
}

TEST_CASE("DescribeRun of a corrupt file fails with IoError and does not hang", "[hdf5]") {
  // SWMR readers retry a failed metadata checksum (it may be a torn read of a live
  // writer's update) with a doubling sleep; HDF5's default of 100 attempts would, in
  // effect, never end.
  TempDir dir;
  Run run;
  const std::string path = dir.File("corrupt.h5");
  WriteRun(run, path, kRows, sim::RunStatus::kCompleted);
  SECTION("a dataset's object header") {
    // Inside the header, past its signature: a checksum mismatch, not a foreign object.
    const haddr_t header = ObjectAddress(path, "/solver/iterations");
    Corrupt(path, static_cast<std::streamoff>(header) + 16, 32);
    CHECK_THROWS_WITH(DescribeRun(path), Catch::Contains(path) && Catch::Contains("checksum"));
  }
  SECTION("everything after the superblock") {
    Corrupt(path, 48, fs::file_size(path) - 48);
    CHECK_THROWS_AS(DescribeRun(path), IoError);
  }
}

TEST_CASE("Hdf5Recorder: a write that fails on the writer thread surfaces as IoError",
          "[hdf5]") {
  // The writes run on a background thread (background_job.h); its error must reach the
  // run loop (which then stops the run with the I/O exit status), not vanish or crash.
  // A file-size limit in a child process makes the writes fail with EFBIG mid-run.
  // It must come from Record, at the flush after the failed write, and not only from
  // Finish (whose own writes fail too), and HDF5 must not print its error stack.
  TempDir dir;
  Run run;
  const std::string path = dir.File("limited.h5"), errors = dir.File("stderr.txt");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);  // a failed write returns EFBIG instead of killing us
    if (!freopen(errors.c_str(), "w", stderr)) _exit(6);
    try {
      Hdf5Recorder recorder(path);
      recorder.Begin(run.info);
      const rlimit limit{200 * 1024, 200 * 1024};  // bytes: a few chunks past the layout
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(4);
      try {
        RecordRows(recorder, run.model, 0, 200 * recorder.chunk_rows());
      } catch (const IoError& e) {
        _exit(std::string(e.what()).find("File too large") != std::string::npos ? 0 : 5);
      }
      _exit(2);  // Record never reported the failed writes
    } catch (...) {
      _exit(3);  // anything but IoError
    }
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  INFO("child status " << status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::ifstream in(errors);
  const std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(printed.find("HDF5-DIAG") == std::string::npos);
}

TEST_CASE("Hdf5Recorder and DescribeRun report I/O problems as IoError", "[hdf5]") {
  TempDir dir;
  Run run;
  SECTION("output directory does not exist") {
    Hdf5Recorder recorder(dir.File("no/such/dir/run.h5"));
    CHECK_THROWS_AS(recorder.Begin(run.info), IoError);
    CHECK_THROWS_WITH(Hdf5Recorder(dir.File("missing/run.h5")).Begin(run.info),
                      Catch::Contains("missing/run.h5"));
    recorder.Finish(sim::RunStatus::kFailed, "never began");  // harmless
  }
  SECTION("DescribeRun of a missing file") {
    CHECK_THROWS_AS(DescribeRun(dir.File("absent.h5")), IoError);
  }
  SECTION("DescribeRun of a file that is not HDF5") {
    std::ofstream(dir.File("text.h5")) << "not hdf5\n";
    CHECK_THROWS_AS(DescribeRun(dir.File("text.h5")), IoError);
  }
  SECTION("DescribeRun of an HDF5 file that is not a csim file") {
    const std::string path = dir.File("other.h5");
    Hdf5File::Create(path).Close();
    CHECK_THROWS_WITH(DescribeRun(path), Catch::Contains("not a csim output file"));
  }
}


/// Adds one geometry of every kind to the test model: a halfspace in the world, a box and
/// a visual-only sphere on the base, a capsule on the arm, a tetrahedron mesh on the tool.
void AddGeometry(multibody::Model* model) {
  using geometry::Geometry;
  using geometry::ShapeType;
  auto make = [](ShapeType type, Eigen::Vector3d size, Eigen::Vector3d p) {
    Geometry g;
    g.type = type;
    g.size = size;
    g.X_BG.p = p;
    return g;
  };
  model->world_geometry.push_back(make(ShapeType::kHalfspace, {0, 0, 0}, {0, 0, -0.5}));
  Geometry box = make(ShapeType::kBox, {0.1, 0.2, 0.3}, {1, 2, 3});
  box.X_BG.R = Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  model->bodies[0].geometry.push_back(box);
  Geometry sphere = make(ShapeType::kSphere, {0.25, 0, 0}, {0, 0, 0});
  sphere.collide = false;
  model->bodies[0].geometry.push_back(sphere);
  model->bodies[1].geometry.push_back(make(ShapeType::kCapsule, {0.05, 0.4, 0}, {0, 0, 0.2}));
  Geometry mesh = make(ShapeType::kMesh, {0, 0, 0}, {0, 0, 0});
  mesh.mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  mesh.mesh.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  model->bodies[3].geometry.push_back(mesh);
}

TEST_CASE("Hdf5Recorder writes /model/geometry, which reads back", "[hdf5]") {
  TempDir dir;
  Run run;
  AddGeometry(&run.model);
  const std::string path = dir.File("geometry.h5");
  WriteRun(run, path, 5, sim::RunStatus::kCompleted);

  SECTION("datasets, read with the C API") {
    Hdf5Id file = OpenForReading(path);
    CHECK(ReadInts(file, "/model/geometry/body") == std::vector<int64_t>{-1, 0, 0, 1, 3});
    CHECK(ReadVlenStrings(file, "/model/geometry/shape") ==
          std::vector<std::string>{"halfspace", "box", "sphere", "capsule", "mesh"});
    CHECK(ReadInts(file, "/model/geometry/collide") == std::vector<int64_t>{1, 1, 0, 1, 1});
    CHECK(Shape(file, "/model/geometry/size") == std::vector<hsize_t>{5, 3});
    CHECK(Shape(file, "/model/geometry/quaternion") == std::vector<hsize_t>{5, 4});
    const std::vector<double> size = ReadDoubles(file, "/model/geometry/size");
    CHECK(std::vector<double>(size.begin() + 3, size.begin() + 6) ==
          std::vector<double>{0.1, 0.2, 0.3});
    const std::vector<double> position = ReadDoubles(file, "/model/geometry/position");
    CHECK(std::vector<double>(position.begin(), position.begin() + 6) ==
          std::vector<double>{0, 0, -0.5, 1, 2, 3});
    const std::vector<double> quaternion = ReadDoubles(file, "/model/geometry/quaternion");
    CHECK(quaternion[4] == Approx(std::cos(0.25)));
    CHECK(quaternion[7] == Approx(std::sin(0.25)));
    CHECK(ReadInts(file, "/model/geometry/vertex_offset") ==
          std::vector<int64_t>{0, 0, 0, 0, 0});
    CHECK(ReadInts(file, "/model/geometry/vertex_count") == std::vector<int64_t>{0, 0, 0, 0, 4});
    CHECK(ReadInts(file, "/model/geometry/triangle_count") ==
          std::vector<int64_t>{0, 0, 0, 0, 4});
    CHECK(Shape(file, "/model/geometry/vertices") == std::vector<hsize_t>{4, 3});
    CHECK(ReadInts(file, "/model/geometry/triangles") ==
          std::vector<int64_t>{0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3});
    CHECK(StringAttribute(file, "/model/geometry/size", "units") == "m");
    CHECK(!StringAttribute(file, "/model/geometry/shape", "description").empty());
    CHECK(RunChecker(path, true) == 0);
    // No mesh is kept as a file reference: the file and scale datasets are not written.
    CHECK(!Hdf5File::Open(path, Hdf5File::Mode::kReadOnly).Exists("model/geometry/file"));
  }
  SECTION("ReadGeometry returns what MakeGeometryTable built") {
    const GeometryTable expected = MakeGeometryTable(run.model, run.info.scene_file);
    const GeometryTable read = ReadGeometry(Hdf5File::Open(path, Hdf5File::Mode::kReadOnly));
    REQUIRE(read.count() == 5);
    CHECK(read.body == expected.body);
    CHECK(read.shape == expected.shape);
    CHECK(read.size == expected.size);
    CHECK(read.position == expected.position);
    CHECK(read.quaternion == expected.quaternion);
    CHECK(read.collide == expected.collide);
    CHECK(read.vertex_offset == expected.vertex_offset);
    CHECK(read.vertex_count == expected.vertex_count);
    CHECK(read.triangle_offset == expected.triangle_offset);
    CHECK(read.triangle_count == expected.triangle_count);
    CHECK(read.vertices == expected.vertices);
    CHECK(read.triangles == expected.triangles);
  }
}

TEST_CASE("Hdf5Recorder records a visual mesh file relative to the scene's folder", "[hdf5]") {
  // The run's scene is scenes/test.yaml (relative to the current directory, as given); the
  // visual mesh resolved to models/arm/link.dae is ../models/arm/link.dae from the scene.
  TempDir dir;
  Run run;
  AddGeometry(&run.model);
  geometry::Geometry visual;
  visual.type = geometry::ShapeType::kMesh;
  visual.collide = false;
  visual.mesh.file = "models/arm/link.dae";
  visual.mesh.scale = {0.001, 0.002, 0.003};
  run.model.bodies[1].geometry.push_back(visual);
  const std::string path = dir.File("visual.h5");
  WriteRun(run, path, 3, sim::RunStatus::kCompleted);

  const GeometryTable read = ReadGeometry(Hdf5File::Open(path, Hdf5File::Mode::kReadOnly));
  REQUIRE(read.count() == 6);  // halfspace, box, sphere, capsule, the visual mesh, tetrahedron
  CHECK(read.file == std::vector<std::string>{"", "", "", "", "../models/arm/link.dae", ""});
  CHECK(read.scale[4] == Eigen::Vector3d(0.001, 0.002, 0.003));
  CHECK(read.scale[0] == Eigen::Vector3d::Ones());
  CHECK(read.collide[4] == 0);
  CHECK(read.vertex_count[4] == 0);
  CHECK(read.vertex_count[5] == 4);  // the tetrahedron's rows follow unchanged
  CHECK(ResolveMeshFileReference(read.file[4], "scenes/test.yaml") == "models/arm/link.dae");
  CHECK(ResolveMeshFileReference("/abs/link.dae", "scenes/test.yaml") == "/abs/link.dae");
  CHECK(RunChecker(path, true) == 0);
}

TEST_CASE("ReadGeometry: a model without geometry, and a file without the group", "[hdf5]") {
  TempDir dir;
  Run run;
  const std::string path = dir.File("bare.h5");
  WriteRun(run, path, 3, sim::RunStatus::kCompleted);
  CHECK(ReadGeometry(Hdf5File::Open(path, Hdf5File::Mode::kReadOnly)).count() == 0);
  {
    Hdf5File file = Hdf5File::Open(path, Hdf5File::Mode::kReadWrite);
    REQUIRE(H5Ldelete(file.id(), "/model/geometry", H5P_DEFAULT) >= 0);
    file.Close();
  }
  CHECK(ReadGeometry(Hdf5File::Open(path, Hdf5File::Mode::kReadOnly)).count() == 0);
}

}  // namespace
}  // namespace csim::io
