// settings.output.contact_surfaces (docs/scene-format.md) and the polygon datasets it adds
// to /hydroelastic (docs/output-format.md "Extension: hydroelastic contact surfaces"): the
// key loads, off by default, and is rejected without output.contacts; the file holds the
// rows' polygons with consistent offsets (read back with the HDF5 wrapper, compared with
// the rows a memory recorder kept of the same run), tools/check_output.py accepts it;
// without the key the file has none of them; recording the polygons does not allocate in
// the step loop once warmed up.

#include <sys/wait.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "engine/io/hdf5_file.h"
#include "engine/io/hdf5_recorder.h"
#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/scene_errors.h"
#include "tests/support/temp_dir.h"

namespace csim::io {
namespace {

namespace fs = std::filesystem;

const std::string kSoftBox = std::string(CSIM_SOURCE_DIR) + "/scenes/soft_box_on_floor.yaml";

using csim::testing::TempDir;

// Runs `scene` to its end through `recorder`; REQUIREs a completed run.
void Run(const LoadedScene& scene, sim::Recorder& recorder) {
  sim::RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  info.scene_name = "soft_box_on_floor";
  const sim::RunResult result = sim::Simulate(scene.model, scene.settings, info, recorder, {});
  INFO(result.reason);
  REQUIRE(result.status == sim::RunStatus::kCompleted);
}

// tools/check_output.py's exit status on `path` (its report shown on failure).
int CheckOutput(const std::string& path) {
  const std::string log = path + ".check.txt";
  const int status = std::system((std::string("/usr/bin/python3 ") + CSIM_CHECK_OUTPUT + " '" +
                                  path + "' --contacts > '" + log + "' 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  UNSCOPED_INFO("check_output.py: " << text.str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("output.contact_surfaces loads, is off by default and needs output.contacts",
          "[io][hydroelastic]") {
  CHECK_FALSE(LoadSceneFromText("csim: 1\n", "t.yaml", {}).settings.output.contact_surfaces);
  CHECK(LoadSceneFromText("csim: 1\nsettings: {output: {contact_surfaces: true}}\n", "t.yaml", {})
            .settings.output.contact_surfaces);
  // At the value at fault.
  test::CheckRejectedAt(
      "csim: 1\nsettings:\n  output: {contacts: false, contact_surfaces: true}\n", "true}",
      "contact_surfaces needs contacts: true");
  test::CheckRejectedAt("csim: 1\nsettings:\n  output: {contact_surfaces: 3}\n", "3}",
                        "expected true or false");
}

TEST_CASE("the polygons of every recorded row come back from the file with consistent offsets",
          "[io][hydroelastic]") {
  TempDir dir;
  // Every third step: the offsets count the recorded rows' polygons only.
  const LoadedScene scene =
      LoadScene(kSoftBox, {"settings.duration=0.05", "settings.output.every=3",
                           "settings.output.contact_surfaces=true"});
  sim::MemoryRecorder memory;
  Run(scene, memory);
  const std::string path = dir.File("soft_box.h5");
  {
    Hdf5Recorder recorder(path);
    Run(scene, recorder);
  }
  CHECK(CheckOutput(path) == 0);

  // The rows' polygons, flattened as the file holds them.
  std::vector<int64_t> surface_count, contact_count, vertex_count;
  std::vector<double> position, pressure;
  for (const sim::Row& row : memory.rows()) {
    surface_count.push_back(static_cast<int64_t>(row.surfaces.size()));
    for (const sim::SurfaceRow& s : row.surfaces) contact_count.push_back(s.num_contacts);
    vertex_count.insert(vertex_count.end(), row.polygon_vertex_count.begin(),
                        row.polygon_vertex_count.end());
    for (const Eigen::Vector3d& p : row.vertex_position)
      position.insert(position.end(), p.data(), p.data() + 3);
    pressure.insert(pressure.end(), row.vertex_pressure.begin(), row.vertex_pressure.end());
  }
  REQUIRE(memory.rows().size() == 18);  // rows 0, 3, ..., 48 and the last, 50
  REQUIRE(std::accumulate(contact_count.begin(), contact_count.end(), int64_t{0}) ==
          static_cast<int64_t>(vertex_count.size()));
  REQUIRE(!vertex_count.empty());

  const Hdf5File file = Hdf5File::Open(path, Hdf5File::Mode::kReadOnly);
  CHECK(file.OpenDataset("hydroelastic/count").ReadInts() == surface_count);
  CHECK(file.OpenDataset("hydroelastic/contact_count").ReadInts() == contact_count);
  CHECK(file.OpenDataset("hydroelastic/polygon_vertex_count").ReadInts() == vertex_count);
  CHECK(file.OpenDataset("hydroelastic/vertex_position").ReadDoubles() == position);
  CHECK(file.OpenDataset("hydroelastic/vertex_pressure").ReadDoubles() == pressure);
  CHECK(file.OpenDataset("hydroelastic/vertex_position").shape() ==
        std::vector<hsize_t>{pressure.size(), 3});
  // Offsets: each surface's polygons and each polygon's vertices follow the ones before.
  std::vector<int64_t> first_polygon{0}, vertex_offset{0};
  for (int64_t c : contact_count) first_polygon.push_back(first_polygon.back() + c);
  for (int64_t c : vertex_count) vertex_offset.push_back(vertex_offset.back() + c);
  first_polygon.pop_back(), vertex_offset.pop_back();
  CHECK(file.OpenDataset("hydroelastic/first_polygon").ReadInts() == first_polygon);
  CHECK(file.OpenDataset("hydroelastic/polygon_vertex_offset").ReadInts() == vertex_offset);
}

TEST_CASE("without output.contact_surfaces the file has no polygons", "[io][hydroelastic]") {
  TempDir dir;
  const LoadedScene scene = LoadScene(kSoftBox, {"settings.duration=0.01"});
  const std::string path = dir.File("soft_box.h5");
  {
    Hdf5Recorder recorder(path);
    Run(scene, recorder);
  }
  const Hdf5File file = Hdf5File::Open(path, Hdf5File::Mode::kReadOnly);
  CHECK(file.Exists("hydroelastic/contact_count"));
  for (const char* name : {"first_polygon", "polygon_vertex_offset", "polygon_vertex_count",
                           "vertex_position", "vertex_pressure"})
    CHECK_FALSE(file.Exists(std::string("hydroelastic/") + name));
  CHECK(CheckOutput(path) == 0);
}

// Heap allocations made between consecutive rows (by the steps and the recording).
class AllocationRecorder : public sim::Recorder {
 public:
  void Begin(const sim::RunInfo&) override {}
  void Record(const sim::Row& row) override {
    const std::size_t now = csim::testing::AllocationCount();
    if (last_ != 0) allocations_.push_back(now - last_);
    polygons_ += row.polygon_vertex_count.size();
    last_ = csim::testing::AllocationCount();
  }
  void Finish(sim::RunStatus, const std::string&) override {}
  std::vector<std::size_t> allocations_;
  std::size_t polygons_ = 0;

 private:
  std::size_t last_ = 0;
};

TEST_CASE("recording the polygons does not allocate in the step loop once warmed up",
          "[io][hydroelastic]") {
  const LoadedScene scene =
      LoadScene(kSoftBox, {"settings.duration=0.2", "settings.output.contact_surfaces=true"});
  AllocationRecorder recorder;
  Run(scene, recorder);
  REQUIRE(recorder.polygons_ > 0);
  REQUIRE(recorder.allocations_.size() == 200);
  // The box lands within the first steps; from step 50 on its surface keeps its shape.
  std::size_t after_warm_up = 0;
  for (size_t i = 50; i < recorder.allocations_.size(); ++i)
    after_warm_up += recorder.allocations_[i];
  CHECK(after_warm_up == 0);
}

}  // namespace
}  // namespace csim::io
