// settings.threads end to end: the clutter scene (scenes/clutter_40.yaml, its first 0.3 s,
// while the columns collapse into several islands) run with one and with two threads
// records bit-identical states, solver statistics and contact forces at every step, with
// SAP and with a Hunt & Crossley contact model.

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"

namespace csim::sim {
namespace {

bool SameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

std::vector<Row> RunClutter(int threads, const std::string& model) {
  io::LoadedScene scene = io::LoadScene(std::string(CSIM_SOURCE_DIR) + "/scenes/clutter_40.yaml",
                                        {"settings.duration=0.3", "settings.output.every=1",
                                         "settings.contact_model=" + model});
  scene.settings.threads = threads;
  MemoryRecorder recorder;
  RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  const RunResult result = Simulate(scene.model, scene.settings, info, recorder, {});
  REQUIRE(result.status == RunStatus::kCompleted);
  return recorder.rows();
}

TEST_CASE("clutter with two threads records the one-thread run bit for bit",
          "[sim][threads]") {
  const std::string model = GENERATE(std::string("sap"), std::string("lagged_regularized"));
  INFO("contact model " << model);
  const std::vector<Row> one = RunClutter(1, model), two = RunClutter(2, model);
  REQUIRE(one.size() == 151);
  REQUIRE(two.size() == one.size());
  int with_contact = 0;
  for (size_t i = 0; i < one.size(); ++i) {
    INFO("step " << one[i].step);
    CHECK(SameBits(one[i].q, two[i].q));
    CHECK(SameBits(one[i].v, two[i].v));
    CHECK(one[i].solver.iterations == two[i].solver.iterations);
    CHECK(one[i].solver.momentum_error == two[i].solver.momentum_error);
    CHECK(one[i].solver.cost == two[i].solver.cost);
    REQUIRE(one[i].contacts.size() == two[i].contacts.size());
    for (size_t k = 0; k < one[i].contacts.size(); ++k)
      CHECK(one[i].contacts[k].force == two[i].contacts[k].force);
    with_contact += !one[i].contacts.empty();
  }
  CHECK(with_contact > 50);  // the run exercises the contact solver
}

}  // namespace
}  // namespace csim::sim
