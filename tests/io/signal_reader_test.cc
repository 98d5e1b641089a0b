// The scene's `signals:` (engine/io/signal_reader.h): every kind read into the model's
// signal graph, checked at its defining instants, and each rule broken located at the node
// at fault (the marker string in each scene names it).

#include "engine/io/signal_reader.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using test::CheckRejectedAt;

constexpr double kPi = 3.14159265358979323846;

std::string Scene(const std::string& signals) {
  return "csim: 1\nbodies: [{name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}]\nsignals:\n" +
         signals;
}

TEST_CASE("every kind of signal is read and takes its defining values", "[signal_reader]") {
  const LoadedScene scene = LoadSceneFromText(Scene(R"(  grasp: {type: square, low: 1, high: 16, period: 6, duty: 0.75}
  wiggle: {type: sine, offset: 0.5, amplitude: 2, period: 4, phase: 0.25}
  ramp: {type: table, interpolation: linear, points: [[0, 0], [1, 5]]}
  neg: {type: scale, of: grasp, gain: -1}
  total: {type: sum, of: [grasp, ramp, one]}
  one: {type: constant, value: 1}
)"), "test.yaml", {});
  const control::SignalGraph& s = scene.model.signals;
  REQUIRE(s.size() == 6);
  const int grasp = s.Find("grasp"), wiggle = s.Find("wiggle"), ramp = s.Find("ramp");
  CHECK(grasp == 0);
  // The square wave: high on [0, 4.5) s of every 6 s (SAP paper sec. VI-D).
  CHECK(s.Evaluate(grasp, 0.0) == 16);
  CHECK(s.Evaluate(grasp, 4.4999) == 16);
  CHECK(s.Evaluate(grasp, 4.5) == 1);
  CHECK(s.Evaluate(grasp, 5.9999) == 1);
  CHECK(s.Evaluate(grasp, 6.0) == 16);
  // The sine from its period: a quarter period past the phase's time is the crest.
  CHECK(s.Evaluate(wiggle, 1.0 - 0.25 * 4 / (2 * kPi)) == Approx(2.5));
  CHECK(s.Evaluate(ramp, 0.5) == 2.5);
  CHECK(s.Evaluate(s.Find("neg"), 5.0) == -1);
  CHECK(s.Evaluate(s.Find("total"), 0.5) == 16 + 2.5 + 1);
}

TEST_CASE("signals that break a rule are rejected at the node at fault", "[signal_reader]") {
  CheckRejectedAt(Scene("  a: {type: triangle}\n"), "triangle",
                  "unknown signal type 'triangle' (expected constant, square, sine, table, "
                  "scale or sum)");
  CheckRejectedAt(Scene("  a: {type: constant, value: 1, gain: 2}\n"), "gain",
                  "unknown key 'gain'");
  CheckRejectedAt(Scene("  a: {type: square, low: 0, period: 1}\n"), "{type",
                  "missing required key 'high'");
  CheckRejectedAt(Scene("  a: {type: square, high: 1, period: 0}\n"), "0}",
                  "signal 'a': period must be > 0");
  CheckRejectedAt(Scene("  a: {type: square, high: 1, period: 1, duty: 1.5}\n"), "1.5",
                  "signal 'a': duty must be in [0, 1]");
  CheckRejectedAt(Scene("  a: {type: sine, amplitude: 1, frequency: -2}\n"), "-2",
                  "signal 'a': frequency must be >= 0");
  CheckRejectedAt(Scene("  a: {type: sine, amplitude: 1, frequency: 2, period: 0.5}\n"), "0.5",
                  "give either frequency or period, not both");
  CheckRejectedAt(Scene("  a: {type: table, points: [[0, 1], [2, 3], [1, 4]]}\n"), "1, 4",
                  "signal 'a': keyframe 2: t = 1 is not after keyframe 1's t = 2");
  CheckRejectedAt(Scene("  a: {type: table, points: [[0, 1], [1, 2, 3]]}\n"), "[1, 2, 3]",
                  "a point is [t, value], got 3 numbers");
  CheckRejectedAt(Scene("  a: {type: table, interpolation: spline, points: [[0, 1], [1, 2]]}\n"),
                  "[[0", "spline interpolation needs at least 3 keyframes");
  CheckRejectedAt(Scene("  a: {type: scale, of: b, gain: 2}\n"), "b, gain",
                  "signal 'a': 'b' is not a signal");
  CheckRejectedAt(Scene("  one: {type: constant, value: 1}\n  a: {type: sum, of: [one, two]}\n"),
                  "two", "signal 'a': 'two' is not a signal");
  CheckRejectedAt(Scene("  a: {type: sum, of: []}\n"), "[]", "a sum needs at least one signal");
  CheckRejectedAt(Scene("  a: {type: scale, of: b, gain: 2}\n"
                        "  b: {type: sum, of: [c, a]}\n"
                        "  c: {type: constant, value: 1}\n"),
                  "a]", "signals refer to each other in a cycle: a -> b -> a");
  CheckRejectedAt(Scene("  a/b: {type: constant, value: 1}\n"), "a/b",
                  "signal name 'a/b' must not contain '/'");
}

}  // namespace
}  // namespace csim::io
