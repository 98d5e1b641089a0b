// Forward sensitivities through a run (Settings::sensitivities, `csim run --sensitivities`,
// docs/output-format.md "Extension: sensitivities"), through the loader, Simulate and a
// memory recorder:
//   - the sliding box's dv/dmu and dq/dmu at the end of its sliding against central
//     differences of two whole runs at mu +- h, solved to a tight tolerance;
//   - the trajectory is the same bits with and without sensitivities;
//   - each recorded contact's region agrees with its slip against the stiction tolerance,
//     in a run that has both stiction and sliding;
//   - the parameter paths: what they map to, and the errors of bad ones.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/sensitivity_paths.h"
#include "engine/sim/simulate.h"

namespace csim::sim {
namespace {

using integrator::SensitivityParameter;

bool SameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

// The sliding box (a free body on four corners, mu = 0.5), every step recorded.
io::LoadedScene SlidingBox(std::vector<std::string> overrides) {
  overrides.push_back("settings.output.every=1");
  return io::LoadScene(std::string(CSIM_SOURCE_DIR) + "/scenes/sliding_box.yaml", overrides);
}

std::vector<Row> Run(io::LoadedScene scene, const std::vector<std::string>& sensitivities) {
  scene.settings.sensitivities = sensitivities;
  MemoryRecorder recorder;
  RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  const RunResult result = Simulate(scene.model, scene.settings, info, recorder, {});
  INFO(result.reason);
  REQUIRE(result.status == RunStatus::kCompleted);
  return recorder.rows();
}

std::string Str(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

TEST_CASE("a run's dv/dmu and dq/dmu match central differences of two runs",
          "[sim][sensitivity]") {
  // 0.15 s: the box still slides (it stops at ~0.2 s), so mu acts on every step.
  const std::vector<std::string> tight{"settings.duration=0.15",
                                       "settings.solver.relative_tolerance=1e-13",
                                       "settings.solver.absolute_tolerance=1e-300"};
  const std::vector<Row> rows = Run(SlidingBox(tight), {"materials.default.friction"});
  const double mu = 0.5, h = 1e-6 * mu;
  auto at = [&](double value) {
    std::vector<std::string> o = tight;
    o.push_back("materials.default.friction=" + Str(value));
    return Run(SlidingBox(o), {}).back();
  };
  const Row plus = at(mu + h), minus = at(mu - h);
  const Row& last = rows.back();
  REQUIRE(last.sensitivity.dv.cols() == 1);
  const Eigen::VectorXd fd_v = (plus.v - minus.v) / (2 * h);
  // The free joint: v = [angular; linear], q = [quaternion; position].
  const Eigen::Vector3d fd_x = (plus.q.tail<3>() - minus.q.tail<3>()) / (2 * h);
  const double dv_error =
      (last.sensitivity.dv.col(0) - fd_v).norm() / std::max(1.0, fd_v.norm());
  const double dx_error = (last.sensitivity.dq.col(0).tail<3>() - fd_x).norm() /
                          std::max(1e-2, fd_x.norm());
  WARN("run sensitivity, sliding box d/dmu at t = 0.15 s: |dv/dmu| = "
       << last.sensitivity.dv.col(0).norm() << ", relative difference dv " << dv_error
       << ", dx " << dx_error << "; one-sided columns "
       << last.sensitivity.one_sided << ", min kink distance "
       << last.sensitivity.min_kink_distance);
  CHECK(fd_v.norm() > 0.1);  // friction matters: v_x ~ v0 - mu g t
  CHECK(dv_error < 1e-6);
  CHECK(dx_error < 1e-6);
  // The initial row holds S_0 = 0 for a material column.
  CHECK(rows.front().sensitivity.dv.norm() == 0.0);
  CHECK(rows.front().sensitivity.dq.norm() == 0.0);
}

TEST_CASE("sensitivities leave the trajectory the same bits", "[sim][sensitivity]") {
  const std::vector<Row> without = Run(SlidingBox({}), {});
  const std::vector<Row> with =
      Run(SlidingBox({}), {"materials.default.friction", "joints.box.v[3]", "joints.box.q[5]"});
  REQUIRE(with.size() == without.size());
  for (size_t i = 0; i < with.size(); ++i) {
    INFO("row " << i);
    CHECK(SameBits(with[i].q, without[i].q));
    CHECK(SameBits(with[i].v, without[i].v));
    CHECK(with[i].solver.iterations == without[i].solver.iterations);
    CHECK(std::memcmp(&with[i].solver.cost, &without[i].solver.cost, sizeof(double)) == 0);
    REQUIRE(with[i].contacts.size() == without[i].contacts.size());
    for (size_t k = 0; k < with[i].contacts.size(); ++k)
      CHECK(with[i].contacts[k].force == without[i].contacts[k].force);
    CHECK(with[i].sensitivity.dv.cols() == 3);
    CHECK(without[i].sensitivity.dv.size() == 0);
  }
  // S_0 of the initial-state columns: e_index.
  CHECK(with.front().sensitivity.dv(3, 1) == 1.0);
  CHECK(with.front().sensitivity.dq(5, 2) == 1.0);
}

TEST_CASE("/contacts/region follows the contact's slip", "[sim][sensitivity]") {
  // The box slides, stops at ~0.2 s and then sticks: both regions.
  const std::vector<Row> rows = Run(SlidingBox({}), {"materials.default.friction"});
  int stuck = 0, sliding = 0;
  for (const Row& row : rows) {
    if (row.step == 0) continue;
    for (const ContactRow& c : row.contacts) {
      INFO("step " << row.step << " slip " << c.slip_speed << " tolerance "
                   << c.stiction_tolerance << " region " << int(c.region));
      CHECK(c.kink_distance >= 0.0);
      CHECK(c.kink_distance <= 1.0);
      if (c.region == 1) {
        ++stuck;
        CHECK(c.slip_speed <= c.stiction_tolerance * (1 + 1e-9));
      } else {
        REQUIRE(c.region == 2);
        ++sliding;
        CHECK(c.slip_speed > c.stiction_tolerance);
      }
    }
  }
  CHECK(stuck > 0);
  CHECK(sliding > 0);
}

TEST_CASE("sensitivity parameter paths", "[sim][sensitivity]") {
  const io::LoadedScene scene = SlidingBox({});
  const multibody::Model& model = scene.model;
  const SensitivityParameter mu = ParseSensitivityPath(model, "materials.default.friction");
  CHECK(mu.kind == SensitivityParameter::Kind::kMaterial);
  CHECK(mu.contact == solver::ContactParameter::kMu);
  CHECK(mu.index == model.default_material);
  CHECK(ParseSensitivityPath(model, "materials.default.dissipation_time").contact ==
        solver::ContactParameter::kDissipationTime);
  CHECK(ParseSensitivityPath(model, "materials.default.hunt_crossley").contact ==
        solver::ContactParameter::kHuntCrossley);
  const SensitivityParameter vx = ParseSensitivityPath(model, "joints.box.v[3]");
  CHECK(vx.kind == SensitivityParameter::Kind::kInitialVelocity);
  CHECK(vx.index == 3);
  CHECK(ParseSensitivityPath(model, "joints.box.q[0]").kind ==
        SensitivityParameter::Kind::kInitialPosition);
  CHECK(SplitSensitivityPaths({"a,b", "c"}) == std::vector<std::string>{"a", "b", "c"});

  auto error = [&](const std::vector<std::string>& paths) -> std::string {
    try {
      ParseSensitivityPaths(model, SplitSensitivityPaths(paths));
    } catch (const InputError& e) {
      CHECK(e.where().file == "--sensitivities");
      return e.message();
    }
    return "";
  };
  auto has = [](const std::string& text, const std::string& part) {
    INFO(text);
    return text.find(part) != std::string::npos;
  };
  CHECK(has(error({"materials.steel.friction"}), "'materials.steel.friction' names no material"));
  CHECK(has(error({"materials.default.stiffness"}), "not supported yet"));
  CHECK(has(error({"bodies.box.mass"}), "not supported yet"));
  CHECK(has(error({"materials.default.colour"}), "names no material parameter"));
  CHECK(has(error({"joints.box.q[6]"}), "out of range"));
  CHECK(has(error({"joints.slider.v[0]"}), "names no joint"));
  CHECK(has(error({"joints.box.q[-1]"}), "is not a parameter path"));
  CHECK(has(error({"friction"}), "is not a parameter path"));
  CHECK(has(error({"materials.default.friction,"}), "empty parameter path"));
  CHECK(has(error({"joints.box.v[0]", "joints.box.v[0]"}), "given twice"));
  CHECK(has(error({"foo"}), "accepted: materials.NAME.friction"));
}

}  // namespace
}  // namespace csim::sim
