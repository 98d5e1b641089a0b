// Simulate's RunControl (engine/sim/simulate.h): on_first_row comes once, when the initial
// state is the only row recorded, before the first step; csim's `run` releases a held
// second signal there (app/signals.h), so its file never ends with no row.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"

namespace csim::sim {
namespace {

TEST_CASE("on_first_row is called once, with the initial state recorded and no step taken",
          "[simulate]") {
  io::LoadedScene scene =
      io::LoadScene(std::string(CSIM_SOURCE_DIR) + "/scenes/pendulum.yaml",
                    {"settings.duration=0.01", "settings.output.every=1"});
  MemoryRecorder recorder;
  RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  std::vector<int64_t> rows_at_call;  // rows recorded, and the last row's step, per call
  RunControl control;
  control.on_first_row = [&] {
    rows_at_call.push_back(static_cast<int64_t>(recorder.rows().size()));
    rows_at_call.push_back(recorder.rows().back().step);
  };
  const RunResult result = Simulate(scene.model, scene.settings, info, recorder, control);
  REQUIRE(result.status == RunStatus::kCompleted);
  CHECK(rows_at_call == std::vector<int64_t>{1, 0});
  CHECK(recorder.rows().size() > 2);  // the steps came after it
}

}  // namespace
}  // namespace csim::sim
