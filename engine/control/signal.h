#pragma once
// Signals: named scalar functions of time that scale open-loop inputs (an actuator's
// feed-forward, a load), docs/design/trajectories-and-signals.md §7.
//
// The scene gives each signal by kind; `scale` and `sum` refer to other signals by name.
// BuildSignalGraph resolves the names once into an immutable flat array of nodes that
// refer to their inputs by index, rejecting unknown names and cycles; evaluating then
// needs neither allocation nor indirect calls. Design choice: one node struct with a kind
// tag and a switch, rather than std::function or a class per kind, so that the whole graph
// is plain data that can be copied, inspected and written out.

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/control/trajectory.h"

namespace csim::control {

/// `constant`: value.
struct ConstantSignal {
  double value = 0.0;
};

/// `square`: high while (t + phase) mod period < duty * period, low otherwise. The mod is
/// the floored one (in [0, period) for a negative t + phase too).
struct SquareSignal {
  double low = 0.0;
  double high = 1.0;    ///< the scene requires it
  double period = 1.0;  ///< [s], > 0; the scene requires it
  double duty = 0.5;    ///< fraction of the period spent high, in [0, 1]
  double phase = 0.0;   ///< time shift [s]: the wave at t is the unshifted wave at t + phase
};

/// `sine`: offset + amplitude sin(2 pi frequency t + phase), as a prescribed joint's sine.
struct SineSignal {
  double amplitude = 1.0;  ///< the scene requires it
  double frequency = 1.0;  ///< [Hz], >= 0; the scene requires it or `period` (1 / frequency)
  double phase = 0.0;      ///< [rad]
  double offset = 0.0;
};

/// `table`: a one-column keyframe trajectory of the signal's value (`points` are its
/// keyframes' t and q; `interpolation`, `end_velocity`, `after` as for trajectories).
struct TableSignal {
  KeyframeTable table;
};

/// `scale`: gain times the signal named `of`.
struct ScaleSignal {
  std::string of;
  double gain = 1.0;
};

/// `sum`: the sum of the signals named in `of` (at least one).
struct SumSignal {
  std::vector<std::string> of;
};

/// One entry of the scene's `signals:` map.
struct SignalSpec {
  std::string name;
  std::variant<ConstantSignal, SquareSignal, SineSignal, TableSignal, ScaleSignal, SumSignal>
      definition;
};

/// The rules BuildSignalGraph checks: each signal's own parameters in the given order, then
/// the references between signals.
enum class SignalRule {
  kEmptyName,          ///< a signal without a name
  kDuplicateName,      ///< two signals with the same name
  kNotFinite,          ///< a parameter is NaN or infinite
  kPeriodNotPositive,  ///< square: period <= 0
  kDutyOutOfRange,     ///< square: duty outside [0, 1]
  kNegativeFrequency,  ///< sine: frequency < 0
  kTable,              ///< table: its keyframes break a TrajectoryRule (see `table_error`)
  kTableColumns,       ///< table: not exactly one column
  kEmptySum,           ///< sum: `of` is empty
  kUnknownReference,   ///< scale or sum: `of` names no signal
  kCycle,              ///< scale or sum: a signal depends on itself
};

/// The first rule the signals break. `message` says what is wrong in words, naming the
/// signal, without a file location: the loader adds it.
struct SignalError {
  SignalRule rule = SignalRule::kEmptyName;
  int signal = -1;     ///< index into the specs
  std::string key;     ///< the scene key at fault (`period`, `duty`, `of`, `points`, ...)
  int reference = -1;  ///< the index into a sum's `of` (0 for a scale); -1: none
  std::optional<TrajectoryError> table_error;  ///< rule kTable: the table's own error
  std::string message;
};

class SignalGraph;
struct SignalGraphBuild;

/// Checks `specs` and, if they pass, resolves them into a graph whose signal i is specs[i].
SignalGraphBuild BuildSignalGraph(const std::vector<SignalSpec>& specs);

/// The signals of a scene, immutable. Signal i is the i-th spec given to BuildSignalGraph.
class SignalGraph {
 public:
  /// A graph without signals (a scene that defines none).
  SignalGraph() = default;

  int size() const { return static_cast<int>(nodes_.size()); }
  const std::string& name(int signal) const { return names_[signal]; }
  /// The index of the signal called `name`, or -1.
  int Find(std::string_view name) const;

  /// The value of `signal` at time t [s]. Does not allocate.
  double Evaluate(int signal, double t) const;

  /// Every signal's value at time t [s] into values[0 .. size()), inputs before the
  /// signals that use them, each once. Does not allocate.
  void EvaluateAll(double t, double* values) const;

 private:
  friend SignalGraphBuild BuildSignalGraph(const std::vector<SignalSpec>& specs);

  enum class Kind { kConstant, kSquare, kSine, kTable, kScale, kSum };
  struct Node {
    Kind kind = Kind::kConstant;
    /// constant: value; square: low, high, period, duty * period, phase;
    /// sine: amplitude, 2 pi frequency, phase, offset; scale: gain.
    double parameter[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    int table = -1;        ///< table: index into tables_
    int first_input = 0;   ///< scale, sum: their inputs are inputs_[first_input ..
    int num_inputs = 0;    ///<   first_input + num_inputs)
  };
  /// A node's value at t, given a function that returns the value of an input signal.
  template <typename InputValue>
  double NodeValue(const Node& node, double t, const InputValue& input_value) const;

  std::vector<Node> nodes_;
  std::vector<std::string> names_;
  std::vector<int> inputs_;             ///< the inputs of every scale and sum, node by node
  std::vector<Trajectory> tables_;      ///< the trajectories of the table signals
  std::vector<int> evaluation_order_;   ///< every signal once, each after its inputs
};

/// BuildSignalGraph's answer: exactly one of the two is set.
struct SignalGraphBuild {
  std::optional<SignalGraph> graph;
  std::optional<SignalError> error;
};

}  // namespace csim::control
