// The solver diagnostics of a run (settings.output.condition_number and
// Settings::trace_solver_steps, docs/output-format.md "Solver diagnostics"), through
// Simulate and a memory recorder:
//   - they leave the trajectory alone: every recorded state, solver statistic and contact
//     force is the same bits with them on as off (clutter with its island merges, a chain on
//     the floor, the falling sphere), also on two threads;
//   - Newton's history of a traced step ends at the step's recorded momentum error and cost,
//     bit for bit, with one entry per iteration; its cost never rises (the line search's
//     monotone decrease); a second run traces the same bits; near the solution of the
//     falling sphere's landing the convergence is quadratic;
//   - the effective stiction tolerance of each contact model.

#include <catch2/catch.hpp>

#include <cmath>
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

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

io::LoadedScene Scene(const std::string& name, std::vector<std::string> overrides) {
  overrides.push_back("settings.output.every=1");
  return io::LoadScene(std::string(CSIM_SOURCE_DIR) + "/scenes/" + name, overrides);
}

struct Recorded {
  std::vector<Row> rows;
  std::vector<MemoryRecorder::Trace> traces;
};

Recorded Record(io::LoadedScene scene) {
  MemoryRecorder recorder;
  RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  const RunResult result = Simulate(scene.model, scene.settings, info, recorder, {});
  REQUIRE(result.status == RunStatus::kCompleted);
  return {recorder.rows(), recorder.traces()};
}

// Every step traced: 1 .. StepCount.
void TraceAll(io::LoadedScene* scene) {
  for (int64_t s = 1; s <= StepCount(scene->settings); ++s)
    scene->settings.trace_solver_steps.push_back(s);
}

// Two runs recorded the same trajectory bit for bit: states, energies, solver statistics
// (wall time aside) and contacts (the stiction tolerance aside, recorded by one of them).
void CheckSameTrajectory(const std::vector<Row>& a, const std::vector<Row>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("row " << i);
    CHECK(SameBits(a[i].q, b[i].q));
    CHECK(SameBits(a[i].v, b[i].v));
    CHECK(SameBits(a[i].kinetic_energy, b[i].kinetic_energy));
    CHECK(a[i].solver.iterations == b[i].solver.iterations);
    CHECK(SameBits(a[i].solver.momentum_error, b[i].solver.momentum_error));
    CHECK(SameBits(a[i].solver.cost, b[i].solver.cost));
    REQUIRE(a[i].contacts.size() == b[i].contacts.size());
    for (size_t k = 0; k < a[i].contacts.size(); ++k) {
      CHECK(a[i].contacts[k].force == b[i].contacts[k].force);
      CHECK(SameBits(a[i].contacts[k].slip_speed, b[i].contacts[k].slip_speed));
    }
  }
}

// What every trace must satisfy against the row its step produced.
void CheckTraceAgainstRow(const std::vector<solver::NewtonTraceRow>& trace, const Row& row) {
  INFO("step " << row.step);
  if (trace.empty()) return;  // no Newton solve (no constraint)
  REQUIRE(static_cast<int>(trace.size()) == row.solver.iterations + 1);
  for (size_t m = 0; m < trace.size(); ++m) {
    INFO("iteration " << m);
    CHECK(trace[m].iteration == static_cast<int>(m));
    CHECK(trace[m].gradient_norm >= 0.0);
    CHECK(trace[m].momentum_error >= 0.0);
    if (m + 1 < trace.size()) {
      CHECK(trace[m].alpha > 0.0);
      // SAP's line search never raises the cost (docs/design/sap-solver.md §5.2), except
      // where deferred contacts join (their cost counts from there on); up to round-off of
      // the cost, whose terms (A v and J v carried along the steps) are far larger than the
      // sum near a pile's solution: rises of 3e-12 of it were seen on the clutter.
      if (!trace[m + 1].merged)
        CHECK(trace[m + 1].cost <= trace[m].cost + 1e-10 * std::fabs(trace[m].cost));
    } else {
      CHECK(std::isnan(trace[m].alpha));
    }
  }
  CHECK(SameBits(trace.back().momentum_error, row.solver.momentum_error));
  CHECK(SameBits(trace.back().cost, row.solver.cost));
}

// Checks every trace of `r` against its row; returns how many had Newton iterations, and
// in *merges (if not null) how many had a merge of islands.
int CheckTraces(const Recorded& r, int* merges = nullptr) {
  int with_iterations = 0;
  for (const MemoryRecorder::Trace& t : r.traces) {
    REQUIRE(t.step >= 1);
    REQUIRE(static_cast<size_t>(t.step) < r.rows.size());
    REQUIRE(r.rows[t.step].step == t.step);
    CheckTraceAgainstRow(t.rows, r.rows[t.step]);
    with_iterations += t.rows.size() > 1;
    bool merged = false;
    for (const solver::NewtonTraceRow& row : t.rows) merged = merged || row.merged;
    if (merges != nullptr) *merges += merged;
  }
  return with_iterations;
}

// Two hinged chains of eight capsules lying on the floor, each swung along it by its second
// hinge (as tests/sim/simulate_threads_test.cc): trees whose islands' Newton blocks go to the
// articulated-body factorization under symplectic Euler (theta = 0), to the block Cholesky
// under midpoint.
io::LoadedScene ChainsOnTheFloor(const std::string& integrator) {
  return io::LoadSceneFromText(
      testing::TwoChainsOnTheFloorScene("time_step: 1.0e-3, duration: 0.15, tree_solver: "
                                        "articulated, integrator: " + integrator +
                                        ", output: {every: 1}"),
      "chains.yaml", {});
}

TEST_CASE("the solver diagnostics leave the trajectory alone", "[sim][condition][trace]") {
  struct Case {
    std::string name;
    io::LoadedScene scene;
  };
  std::vector<Case> cases;
  cases.push_back({"clutter sap", Scene("clutter_40.yaml", {"settings.duration=0.3"})});
  cases.push_back({"clutter lagged_regularized",
                   Scene("clutter_40.yaml", {"settings.duration=0.2",
                                             "settings.contact_model=lagged_regularized"})});
  cases.push_back({"falling sphere lagged", Scene("falling_sphere.yaml", {"settings.duration=0.2"})});
  cases.push_back({"falling sphere sap", Scene("falling_sphere.yaml", {"settings.duration=0.2",
                                                                       "settings.contact_model=sap"})});
  cases.push_back({"dominoes", Scene("domino_row.yaml", {"settings.duration=0.2"})});
  cases.push_back({"chains, symplectic", ChainsOnTheFloor("symplectic_euler")});
  cases.push_back({"chains, midpoint", ChainsOnTheFloor("midpoint")});
  for (const Case& c : cases) {
    for (int threads : {1, 2}) {
      INFO(c.name << ", threads " << threads);
      io::LoadedScene plain = c.scene;
      plain.settings.threads = threads;
      io::LoadedScene diagnosed = plain;
      diagnosed.settings.output.condition_number = true;
      TraceAll(&diagnosed);
      const Recorded a = Record(plain), b = Record(diagnosed);
      CheckSameTrajectory(a.rows, b.rows);
      CHECK(a.traces.empty());
      CHECK(b.traces.size() == b.rows.size() - 1);
      int merges = 0;
      CHECK(CheckTraces(b, &merges) > 20);
      if (c.name.rfind("clutter", 0) == 0) CHECK(merges > 0);  // the histories of merges too
      // The condition number where a Newton matrix exists, NaN where none does.
      int estimated = 0;
      for (const Row& row : b.rows) {
        if (row.step == 0 || row.contacts.empty()) continue;
        CHECK(row.solver.condition_number >= 1.0);
        ++estimated;
      }
      CHECK(estimated > 20);
      CHECK(std::isnan(b.rows[0].solver.condition_number));
      CHECK(std::isnan(a.rows.back().solver.condition_number));  // off: not estimated
    }
  }
}

TEST_CASE("a traced step traces the same bits in a second run", "[sim][trace]") {
  io::LoadedScene scene = Scene("clutter_40.yaml", {"settings.duration=0.3"});
  scene.settings.trace_solver_steps = {1, 40, 75, 150};
  const Recorded a = Record(scene);
  scene.settings.threads = 3;
  const Recorded b = Record(scene);
  REQUIRE(a.traces.size() == 4);
  REQUIRE(b.traces.size() == 4);
  CHECK(CheckTraces(a) >= 3);
  for (size_t t = 0; t < a.traces.size(); ++t) {
    CHECK(a.traces[t].step == b.traces[t].step);
    REQUIRE(a.traces[t].rows.size() == b.traces[t].rows.size());
    for (size_t m = 0; m < a.traces[t].rows.size(); ++m) {
      const solver::NewtonTraceRow &x = a.traces[t].rows[m], &y = b.traces[t].rows[m];
      CHECK(SameBits(x.cost, y.cost));
      CHECK(SameBits(x.gradient_norm, y.gradient_norm));
      CHECK(SameBits(x.momentum_error, y.momentum_error));
      CHECK(SameBits(x.alpha, y.alpha));
    }
  }
}

// The order of convergence between iterations m - 1, m, m + 1 from the momentum errors
// e: log(e_{m+1} / e_m) / log(e_m / e_{m-1}), 2 for Newton's quadratic convergence.
double ConvergenceOrder(const std::vector<solver::NewtonTraceRow>& t, size_t m) {
  return std::log(t[m + 1].momentum_error / t[m].momentum_error) /
         std::log(t[m].momentum_error / t[m - 1].momentum_error);
}

TEST_CASE("Newton converges quadratically near the solution of the falling sphere's landing",
          "[sim][trace]") {
  // The landing step (contact at t = 0.101 s, step 51 at dt = 2e-3) of the Lagged model:
  // the cost is smooth where the sphere slides (the Hunt & Crossley normal impulse and the
  // soft norm of the slip, docs/design/contact-models.md §3), so Newton's method converges
  // quadratically once the iterate is close (docs/design/sap-solver.md §5.1). The last
  // errors of this step are about 1e-2, 2e-5, 1e-10: the order is 2 to within a few
  // percent; at least 1.8 is asked, as round-off may blunt the last.
  io::LoadedScene scene = Scene("falling_sphere.yaml", {"settings.duration=0.11"});
  scene.settings.trace_solver_steps = {51};
  const Recorded r = Record(scene);
  REQUIRE(r.traces.size() == 1);
  const std::vector<solver::NewtonTraceRow>& t = r.traces[0].rows;
  CheckTraceAgainstRow(t, r.rows[51]);
  REQUIRE(t.size() >= 4);
  // The last three iterates whose errors are all above round-off (1e-13).
  size_t m = t.size() - 2;
  while (m >= 2 && t[m + 1].momentum_error < 1e-13) --m;
  REQUIRE(m >= 1);
  INFO("errors " << t[m - 1].momentum_error << ", " << t[m].momentum_error << ", "
                 << t[m + 1].momentum_error);
  CHECK(t[m].momentum_error < 1e-3);
  CHECK(ConvergenceOrder(t, m) > 1.8);
}

// The stiction tolerances of the contacts of the rows with contacts, per row.
std::vector<std::vector<double>> StictionTolerances(const std::vector<Row>& rows) {
  std::vector<std::vector<double>> out;
  for (const Row& row : rows) {
    if (row.contacts.empty()) continue;
    out.emplace_back();
    for (const ContactRow& c : row.contacts) out.back().push_back(c.stiction_tolerance);
  }
  return out;
}

TEST_CASE("the effective stiction tolerance of each contact model", "[sim][condition]") {
  // The falling sphere: one contact, v_s = 1e-4 m/s, sigma = 1e-3, mu = 0.5.
  const double v_s = 1e-4, mu = 0.5, sigma = 1e-3;
  auto run = [&](const std::string& model) {
    io::LoadedScene scene =
        Scene("falling_sphere.yaml", {"settings.duration=0.2", "settings.contact_model=" + model});
    scene.settings.output.condition_number = true;
    return Record(scene).rows;
  };
  SECTION("lagged and similar: the setting, v_s") {
    for (const char* model : {"lagged", "similar"}) {
      for (const std::vector<double>& row : StictionTolerances(run(model)))
        for (double v : row) CHECK(v == v_s);
    }
  }
  SECTION("lagged_regularized: max(v_s, mu sigma w n0), above v_s in the landing") {
    double largest = 0.0;
    for (const std::vector<double>& row : StictionTolerances(run("lagged_regularized")))
      for (double v : row) {
        CHECK(v >= v_s);
        largest = std::max(largest, v);
      }
    CHECK(largest > 2.0 * v_s);
  }
  SECTION("sap: mu sigma w gamma_n, proportional to the normal impulse") {
    // One sphere rolling on the ground: v_s / (mu sigma gamma_n) is its contact's w, which
    // depends only on the contact point's place on the sphere (the point lies midway across
    // the gap), so it settles with the sphere (the exact formula:
    // tests/solver/sap_friction_cone_constraint_test.cc).
    const std::vector<Row> rows = run("sap");
    std::vector<double> w;
    for (const Row& row : rows) {
      for (const ContactRow& c : row.contacts) {
        if (c.force.isZero(0.0)) {  // apart: it carries nothing
          CHECK(c.stiction_tolerance == 0.0);
          continue;
        }
        const double gamma_n = c.force.dot(c.normal) * 2e-3;  // impulse along the normal
        if (gamma_n > 1e-6) w.push_back(c.stiction_tolerance / (mu * sigma * gamma_n));
      }
    }
    REQUIRE(w.size() > 40);
    // A free sphere's inverse mass along the normal is 1/m = 2 1/kg, its Delassus estimate
    // (sap-problem.md §4) of that order.
    for (double x : w) CHECK((x > 1.0 && x < 10.0));
    for (size_t i = w.size() - 20; i < w.size(); ++i) CHECK(w[i] == Approx(w.back()).epsilon(1e-8));
  }
}

}  // namespace
}  // namespace csim::sim
