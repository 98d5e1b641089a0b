// settings.threads end to end: the clutter scene (scenes/clutter_40.yaml, its first 0.3 s,
// while the columns collapse into several islands) run with one and with two threads
// records bit-identical states, solver statistics and contact forces at every step, with
// SAP and with a Hunt & Crossley contact model; so do two articulated chains on the floor,
// whose islands' Newton blocks are factored by the articulated-body recursions.

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"
#include "tests/support/test_scenes.h"

namespace csim::sim {
namespace {

bool SameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

// Runs `scene` with `threads` threads and returns the rows it recorded.
std::vector<Row> Record(io::LoadedScene scene, int threads) {
  scene.settings.threads = threads;
  MemoryRecorder recorder;
  RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  const RunResult result = Simulate(scene.model, scene.settings, info, recorder, {});
  REQUIRE(result.status == RunStatus::kCompleted);
  return recorder.rows();
}

// Checks that two runs recorded the same rows bit for bit: states, solver statistics and
// contact forces. Returns how many rows have contacts.
int CheckSameRows(const std::vector<Row>& one, const std::vector<Row>& two) {
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
  return with_contact;
}

io::LoadedScene Clutter(const std::string& model) {
  return io::LoadScene(std::string(CSIM_SOURCE_DIR) + "/scenes/clutter_40.yaml",
                       {"settings.duration=0.3", "settings.output.every=1",
                        "settings.contact_model=" + model});
}

TEST_CASE("clutter with two threads records the one-thread run bit for bit",
          "[sim][threads]") {
  const std::string model = GENERATE(std::string("sap"), std::string("lagged_regularized"));
  INFO("contact model " << model);
  const std::vector<Row> one = Record(Clutter(model), 1), two = Record(Clutter(model), 2);
  REQUIRE(one.size() == 151);
  CHECK(CheckSameRows(one, two) > 50);  // the run exercises the contact solver
}

// Two hinged chains of eight capsules lying on the floor, each swung along it by its second
// hinge: two islands, each with its tree's Newton block factored by the articulated-body
// recursions (settings.tree_solver: articulated; contact::ArticulatedCliqueSolver), solved
// on two threads: every step as on one, bit for bit.
std::string TwoChainsOnTheFloor() {
  return testing::TwoChainsOnTheFloorScene(
      "time_step: 1.0e-3, duration: 0.3, tree_solver: articulated, output: {every: 1}");
}

TEST_CASE("two chains on the floor, their Newton blocks by the recursions, on two threads",
          "[sim][threads][clique-solver]") {
  const auto chains = [] {
    return io::LoadSceneFromText(TwoChainsOnTheFloor(), "chains.yaml", {});
  };
  const std::vector<Row> one = Record(chains(), 1), two = Record(chains(), 2);
  CHECK(CheckSameRows(one, two) > 250);  // in contact throughout
  CHECK(one.back().v.norm() > 0.1);  // and still moving
}

}  // namespace
}  // namespace csim::sim
