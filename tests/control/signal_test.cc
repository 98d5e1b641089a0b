// engine/control/signal.h at the instants that define each kind: the edges of a square wave
// (with its duty cycle and a phase shift), the zero crossings and peaks of a sine, a table's
// keyframes, and scales and sums of them, against values written from the definitions in
// docs/design/trajectories-and-signals.md §7; then the graph's rules (unknown names,
// cycles, bad parameters), and evaluation without allocation.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/control/signal.h"
#include "tests/support/allocation_counter.h"

namespace csim::control {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

constexpr double kPi = 3.14159265358979323846;

SignalGraph Build(const std::vector<SignalSpec>& specs) {
  SignalGraphBuild build = BuildSignalGraph(specs);
  if (build.error) FAIL(build.error->message);
  REQUIRE(build.graph);
  return *build.graph;
}

SignalError BuildError(const std::vector<SignalSpec>& specs) {
  SignalGraphBuild build = BuildSignalGraph(specs);
  REQUIRE(build.error);
  REQUIRE_FALSE(build.graph);
  return *build.error;
}

// The SAP paper's gripper force (VI-D): 1 N / 16 N, period 6 s, 75 % duty.
SquareSignal Grasp(double phase = 0.0) { return {1.0, 16.0, 6.0, 0.75, phase}; }

TEST_CASE("control signal: a square wave is high for duty * period from each period's start, "
          "shifted by its phase",
          "[control][signal]") {
  const SignalGraph graph = Build({{"grasp", Grasp()}, {"shifted", Grasp(1.5)}});
  const int grasp = graph.Find("grasp");
  REQUIRE(grasp == 0);
  // High on [0, 4.5) + 6 m, low on [4.5, 6) + 6 m.
  CHECK(graph.Evaluate(grasp, 0.0) == 16.0);
  CHECK(graph.Evaluate(grasp, 4.49) == 16.0);
  CHECK(graph.Evaluate(grasp, 4.5) == 1.0);
  CHECK(graph.Evaluate(grasp, 5.99) == 1.0);
  CHECK(graph.Evaluate(grasp, 6.0) == 16.0);
  CHECK(graph.Evaluate(grasp, 10.49) == 16.0);
  CHECK(graph.Evaluate(grasp, 10.5) == 1.0);
  CHECK(graph.Evaluate(grasp, -1.0) == 1.0);  // (-1) mod 6 = 5: low
  // Phase 1.5 s: high while (t + 1.5) mod 6 < 4.5, i.e. on [-1.5, 3) + 6 m.
  const int shifted = graph.Find("shifted");
  CHECK(graph.Evaluate(shifted, 2.99) == 16.0);
  CHECK(graph.Evaluate(shifted, 3.0) == 1.0);
  CHECK(graph.Evaluate(shifted, 4.49) == 1.0);
  CHECK(graph.Evaluate(shifted, 4.5) == 16.0);
  CHECK(graph.Evaluate(shifted, -1.5) == 16.0);
  CHECK(graph.Evaluate(shifted, -2.0) == 1.0);  // (-0.5) mod 6 = 5.5: low

  // Duty 0 is always low, duty 1 always high.
  const SignalGraph extremes = Build({{"never", SquareSignal{-1.0, 1.0, 2.0, 0.0, 0.0}},
                                      {"always", SquareSignal{-1.0, 1.0, 2.0, 1.0, 0.0}}});
  for (double t : {0.0, 0.5, 1.0, 1.999, 2.0, 7.3}) {
    CHECK(extremes.Evaluate(0, t) == -1.0);
    CHECK(extremes.Evaluate(1, t) == 1.0);
  }
}

TEST_CASE("control signal: a sine crosses its offset every half period and peaks between",
          "[control][signal]") {
  // offset + amplitude sin(2 pi f t + phase) with f = 0.5 Hz: crossings at t = 0, 1, 2,
  // maximum at t = 0.5, minimum at t = 1.5; a phase of pi/2 starts at the maximum.
  const SignalGraph graph =
      Build({{"wiggle", SineSignal{2.0, 0.5, 0.0, 1.0}}, {"cosine", SineSignal{2.0, 0.5, kPi / 2, 1.0}}});
  for (double t : {0.0, 1.0, 2.0, 7.0}) CHECK_THAT(graph.Evaluate(0, t), WithinAbs(1.0, 1e-14));
  CHECK_THAT(graph.Evaluate(0, 0.5), WithinAbs(3.0, 1e-15));
  CHECK_THAT(graph.Evaluate(0, 1.5), WithinAbs(-1.0, 1e-15));
  CHECK_THAT(graph.Evaluate(1, 0.0), WithinAbs(3.0, 1e-15));
  CHECK_THAT(graph.Evaluate(1, 0.5), WithinAbs(1.0, 1e-14));
}

TEST_CASE("control signal: a table interpolates its points as a trajectory does",
          "[control][signal]") {
  TableSignal ramp;
  ramp.table.num_columns = 1;
  ramp.table.interpolation = Interpolation::kLinear;
  ramp.table.keyframes = {{0.0, {0.0}, {}}, {1.0, {5.0}, {}}, {3.0, {1.0}, {}}};
  const SignalGraph graph = Build({{"ramp", ramp}, {"one", ConstantSignal{1.0}}});
  CHECK(graph.Evaluate(0, -1.0) == 0.0);
  CHECK_THAT(graph.Evaluate(0, 0.5), WithinAbs(2.5, 1e-15));
  CHECK(graph.Evaluate(0, 1.0) == 5.0);
  CHECK_THAT(graph.Evaluate(0, 2.0), WithinAbs(3.0, 1e-15));
  CHECK(graph.Evaluate(0, 9.0) == 1.0);  // held after the last point
  CHECK(graph.Evaluate(1, 123.0) == 1.0);
}

TEST_CASE("control signal: scales and sums combine their inputs, evaluated one by one or "
          "all at once",
          "[control][signal]") {
  // A diamond: both fingers read the grasp force, one of them negated, and the net is their
  // sum plus a bias; `net` is listed before the signals it uses.
  const std::vector<SignalSpec> specs = {
      {"net", SumSignal{{"left", "right", "bias"}}},
      {"grasp", Grasp()},
      {"left", ScaleSignal{"grasp", 1.0}},
      {"right", ScaleSignal{"grasp", -2.0}},
      {"bias", ConstantSignal{0.25}},
  };
  const SignalGraph graph = Build(specs);
  REQUIRE(graph.size() == 5);
  CHECK(graph.name(3) == "right");
  CHECK(graph.Find("bias") == 4);
  CHECK(graph.Find("nothing") == -1);
  // At t = 1 the grasp is high (16): left 16, right -32, net 16 - 32 + 0.25.
  CHECK(graph.Evaluate(graph.Find("right"), 1.0) == -32.0);
  CHECK(graph.Evaluate(graph.Find("net"), 1.0) == -15.75);
  // At t = 5 it is low (1): net = 1 - 2 + 0.25.
  CHECK(graph.Evaluate(0, 5.0) == -0.75);

  std::vector<double> values(graph.size());
  for (double t : {0.0, 1.0, 4.5, 5.0, 13.0}) {
    graph.EvaluateAll(t, values.data());
    for (int i = 0; i < graph.size(); ++i) CHECK(values[i] == graph.Evaluate(i, t));
  }
}

TEST_CASE("control signal: evaluation does not allocate", "[control][signal]") {
  TableSignal table;
  table.table.num_columns = 1;
  table.table.keyframes = {{0.0, {0.0}, {}}, {1.0, {2.0}, {}}, {2.0, {1.0}, {}}};
  const SignalGraph graph = Build({{"a", Grasp()}, {"b", SineSignal{1.0, 2.0, 0.0, 0.0}},
                                   {"c", table}, {"d", SumSignal{{"a", "b", "c"}}},
                                   {"e", ScaleSignal{"d", 3.0}}});
  std::vector<double> values(graph.size());
  double sum = 0.0;
  const std::size_t before = testing::AllocationCount();
  for (double t = -1.0; t < 10.0; t += 0.01) {
    sum += graph.Evaluate(4, t);
    graph.EvaluateAll(t, values.data());
    sum += values[4];
  }
  CHECK(testing::AllocationCount() - before == 0);
  CHECK(std::isfinite(sum));
}

TEST_CASE("control signal: unknown names and cycles are rejected with the signal and its "
          "reference",
          "[control][signal]") {
  const SignalError unknown = BuildError({{"a", ConstantSignal{1.0}},
                                          {"b", SumSignal{{"a", "missing"}}}});
  CHECK(unknown.rule == SignalRule::kUnknownReference);
  CHECK(unknown.signal == 1);
  CHECK(unknown.reference == 1);
  CHECK(unknown.key == "of");
  CHECK_THAT(unknown.message, Contains("'b'") && Contains("'missing'"));

  const SignalError cycle = BuildError({{"a", ScaleSignal{"b", 2.0}},
                                        {"c", ConstantSignal{1.0}},
                                        {"b", SumSignal{{"c", "a"}}}});
  CHECK(cycle.rule == SignalRule::kCycle);
  CHECK(cycle.signal == 2);     // b's second input closes the cycle
  CHECK(cycle.reference == 1);
  CHECK_THAT(cycle.message, Contains("a -> b -> a"));

  const SignalError self = BuildError({{"echo", ScaleSignal{"echo", 0.5}}});
  CHECK(self.rule == SignalRule::kCycle);
  CHECK(self.signal == 0);
  CHECK(self.reference == 0);
  CHECK_THAT(self.message, Contains("echo -> echo"));
}

TEST_CASE("control signal: bad names and parameters are rejected with the key at fault",
          "[control][signal]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto error = [](const SignalSpec& spec) { return BuildError({{"ok", ConstantSignal{}}, spec}); };

  CHECK(error({"", ConstantSignal{}}).rule == SignalRule::kEmptyName);
  const SignalError duplicate = error({"ok", ConstantSignal{}});
  CHECK(duplicate.rule == SignalRule::kDuplicateName);
  CHECK(duplicate.signal == 1);

  const SignalError not_finite = error({"s", SquareSignal{0.0, nan, 1.0, 0.5, 0.0}});
  CHECK(not_finite.rule == SignalRule::kNotFinite);
  CHECK(not_finite.key == "high");
  CHECK(not_finite.signal == 1);
  const SignalError period = error({"s", SquareSignal{0.0, 1.0, 0.0, 0.5, 0.0}});
  CHECK(period.rule == SignalRule::kPeriodNotPositive);
  CHECK(period.key == "period");
  const SignalError duty = error({"s", SquareSignal{0.0, 1.0, 1.0, 1.5, 0.0}});
  CHECK(duty.rule == SignalRule::kDutyOutOfRange);
  CHECK(duty.key == "duty");
  const SignalError frequency = error({"s", SineSignal{1.0, -1.0, 0.0, 0.0}});
  CHECK(frequency.rule == SignalRule::kNegativeFrequency);
  CHECK(error({"s", ScaleSignal{"ok", nan}}).key == "gain");
  CHECK(error({"s", SumSignal{}}).rule == SignalRule::kEmptySum);

  TableSignal short_table;
  short_table.table.num_columns = 1;
  short_table.table.interpolation = Interpolation::kLinear;
  short_table.table.keyframes = {{0.0, {1.0}, {}}};
  const SignalError table = error({"s", short_table});
  CHECK(table.rule == SignalRule::kTable);
  CHECK(table.key == "points");
  REQUIRE(table.table_error);
  CHECK(table.table_error->rule == TrajectoryRule::kTooFewKeyframes);

  TableSignal wide = short_table;
  wide.table.num_columns = 2;
  CHECK(error({"s", wide}).rule == SignalRule::kTableColumns);
}

}  // namespace
}  // namespace csim::control
