// Forward sensitivities through a run (Settings::sensitivities, `csim run --sensitivities`,
// docs/output-format.md "Extension: sensitivities"), through the loader, Simulate and a
// memory recorder:
//   - the sliding box's dv/dmu and dq/dmu at the end of its sliding against central
//     differences of two whole runs at mu +- h, solved to a tight tolerance;
//   - the trajectory is the same bits with and without sensitivities;
//   - the /sensitivity rows and the contacts' regions and kink distances are the same bits
//     with Settings::threads = 2 as with 1;
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

TEST_CASE("a run's dv/dm and dq/dm match central differences of two runs through the loader",
          "[sim][sensitivity]") {
  // `bodies.sphere.mass` on the falling sphere (a rigid sphere, its inertia from its
  // geometry, so the loader scales it with the mass), under SAP on a ground softened to
  // 1e5 N/m: compliant (R_n from k, not the near-rigid term, under which a mass would scale
  // the whole problem and leave v unchanged). The column against two whole runs with
  // `--set bodies.sphere.mass=M (1 +- 1e-5)`, which checks that the perturbed models are what
  // the loader makes. 0.15 s: the fall (mass-free), the landing at 0.1 s and the sliding
  // after it, where friction spins the sphere up (its inertia scaled with the mass).
  const std::vector<std::string> tight{"settings.duration=0.15", "settings.output.every=1",
                                       "settings.contact_model=sap",
                                       "materials.ground.stiffness=1e5",
                                       "settings.solver.relative_tolerance=1e-13",
                                       "settings.solver.absolute_tolerance=1e-300"};
  const std::string file = std::string(CSIM_SOURCE_DIR) + "/scenes/falling_sphere.yaml";
  const std::vector<Row> rows = Run(io::LoadScene(file, tight), {"bodies.sphere.mass"});
  // h = 1e-5 m: the runs' difference carries the solves' tolerance, about
  // eps_r |v| / h = 1e-13 * 2 / h relative to |dv/dm| = 0.17, 2e-6 at h = 1e-6 m (measured
  // there: 3e-7, against 2e-8 at 1e-5 m and 9e-9 at 1e-4 m: the columns converge).
  const double m = 0.5, h = 1e-5 * m;
  auto at = [&](double value) {
    std::vector<std::string> o = tight;
    o.push_back("bodies.sphere.mass=" + Str(value));
    return Run(io::LoadScene(file, o), {}).back();
  };
  const Row plus = at(m + h), minus = at(m - h);
  const Row& last = rows.back();
  REQUIRE(last.sensitivity.dv.cols() == 1);
  const Eigen::VectorXd fd_v = (plus.v - minus.v) / (2 * h);
  const Eigen::Vector3d fd_x = (plus.q.tail<3>() - minus.q.tail<3>()) / (2 * h);
  const double dv_error =
      (last.sensitivity.dv.col(0) - fd_v).norm() / std::max(1e-2, fd_v.norm());
  const double dx_error = (last.sensitivity.dq.col(0).tail<3>() - fd_x).norm() /
                          std::max(1e-2, fd_x.norm());
  WARN("run sensitivity, falling sphere d/dm at t = 0.15 s: |dv/dm| = "
       << last.sensitivity.dv.col(0).norm() << " (FD " << fd_v.norm()
       << "), relative difference dv " << dv_error << ", dx " << dx_error << "; one-sided columns " << last.sensitivity.one_sided
       << ", min kink distance " << last.sensitivity.min_kink_distance);
  CHECK(fd_v.norm() > 1e-2);  // the mass matters
  CHECK(dv_error < 1e-6);
  CHECK(dx_error < 1e-6);
  CHECK(rows.front().sensitivity.dv.norm() == 0.0);
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

TEST_CASE("sensitivities on two threads are the same bits as on one", "[sim][sensitivity]") {
  // `--threads 2`: the contact solve's islands and the columns' differences run on two
  // threads (docs/design/sensitivities.md §6.2); every recorded row must be the one thread's.
  // The sliding box (one body, four corners: approximate geometry) with a column of every
  // kind, and clutter-40 over its first 0.3 s (impacts, many islands and contacts).
  struct Case {
    std::string file;
    std::vector<std::string> overrides;
    std::vector<std::string> columns;
  };
  const std::string scenes = std::string(CSIM_SOURCE_DIR) + "/scenes/";
  const Case cases[] = {
      {scenes + "sliding_box.yaml",
       {"settings.output.every=1"},
       {"materials.default.friction", "materials.default.dissipation_time", "bodies.box.mass",
        "joints.box.q[5]", "joints.box.v[3]"}},
      {scenes + "clutter_40.yaml",
       {"settings.duration=0.3", "settings.output.every=1"},
       {"materials.object.friction", "materials.container.dissipation_time",
        "joints.box_000.q[5]", "joints.sphere_001.v[3]"}}};
  for (const Case& c : cases) {
    INFO(c.file);
    io::LoadedScene scene = io::LoadScene(c.file, c.overrides);
    const std::vector<Row> one = Run(scene, c.columns);
    scene.settings.threads = 2;
    const std::vector<Row> two = Run(scene, c.columns);
    REQUIRE(two.size() == one.size());
    int contacts = 0;
    for (size_t i = 0; i < one.size(); ++i) {
      INFO("row " << i);
      const SensitivityRow &a = one[i].sensitivity, &b = two[i].sensitivity;
      REQUIRE(a.dv.cols() == static_cast<int>(c.columns.size()));
      CHECK(SameBits(one[i].q, two[i].q));
      CHECK(SameBits(one[i].v, two[i].v));
      CHECK(b.dq.rows() == a.dq.rows());
      CHECK(b.dq.cols() == a.dq.cols());
      CHECK(std::memcmp(a.dq.data(), b.dq.data(), sizeof(double) * a.dq.size()) == 0);
      CHECK(std::memcmp(a.dv.data(), b.dv.data(), sizeof(double) * a.dv.size()) == 0);
      CHECK(b.one_sided == a.one_sided);
      CHECK(b.unmatched == a.unmatched);
      CHECK(b.approximate_geometry == a.approximate_geometry);
      CHECK(std::memcmp(&a.min_kink_distance, &b.min_kink_distance, sizeof(double)) == 0);
      REQUIRE(two[i].contacts.size() == one[i].contacts.size());
      for (size_t k = 0; k < one[i].contacts.size(); ++k) {
        CHECK(two[i].contacts[k].region == one[i].contacts[k].region);
        CHECK(std::memcmp(&two[i].contacts[k].kink_distance, &one[i].contacts[k].kink_distance,
                          sizeof(double)) == 0);
      }
      contacts += static_cast<int>(one[i].contacts.size());
    }
    int one_sided = 0;
    for (const Row& row : one) one_sided += row.sensitivity.one_sided;
    std::printf("sensitivities on 1 and 2 threads, %s: %zu rows, %d contacts, %d one-sided "
                "columns\n",
                scene.name.c_str(), one.size(), contacts, one_sided);
    CHECK(contacts > 0);
    CHECK(one.back().sensitivity.dv.norm() > 0.0);
  }
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
  const SensitivityParameter mass = ParseSensitivityPath(model, "bodies.box.mass");
  CHECK(mass.kind == SensitivityParameter::Kind::kBodyMass);
  CHECK(mass.index == 0);
  // A finite stiffness has a column (the sliding box's default material is rigid, .inf).
  const io::LoadedScene soft = SlidingBox({"materials.default.stiffness=1e6"});
  const SensitivityParameter k = ParseSensitivityPath(soft.model, "materials.default.stiffness");
  CHECK(k.kind == SensitivityParameter::Kind::kMaterial);
  CHECK(k.contact == solver::ContactParameter::kStiffness);
  // A body whose mass comes from its density has no mass entry for `--set` to change.
  const io::LoadedScene dense = SlidingBox({"bodies.box={name: box, density: 1000, "
                                            "geometry: [{shape: box, size: [0.1, 0.1, 0.1]}], "
                                            "pose: {position: [0, 0, 0.055]}}"});
  try {
    ParseSensitivityPath(dense.model, "bodies.box.mass");
    FAIL("a density body's mass was accepted");
  } catch (const InputError& e) {
    INFO(e.message());
    CHECK(e.message().find("comes from its density") != std::string::npos);
  }
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
  CHECK(has(error({"materials.default.stiffness"}), "stiffness .inf has no derivative"));
  CHECK(has(error({"bodies.lid.mass"}), "'bodies.lid.mass' names no body of the scene"));
  CHECK(has(error({"bodies.box.volume"}), "names no body parameter"));
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
