#include "engine/control/signal.h"

#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <unordered_map>
#include <utility>

#include "engine/common/check.h"

namespace csim::control {
namespace {

constexpr double kTwoPi = 2.0 * 3.14159265358979323846;

SignalError Error(SignalRule rule, int signal, const std::string& name, std::string key,
                  const std::string& message) {
  SignalError error;
  error.rule = rule;
  error.signal = signal;
  error.key = std::move(key);
  error.message = "signal '" + name + "': " + message;
  return error;
}

// Each named parameter must be a finite number.
std::optional<SignalError> CheckFinite(
    int signal, const std::string& name,
    std::initializer_list<std::pair<const char*, double>> parameters) {
  for (const auto& [key, value] : parameters) {
    if (!std::isfinite(value)) {
      return Error(SignalRule::kNotFinite, signal, name, key,
                   std::string(key) + " is not a finite number");
    }
  }
  return std::nullopt;
}

// A signal's own parameters, before any reference is resolved.
std::optional<SignalError> CheckParameters(const SignalSpec& spec, int i) {
  const std::string& name = spec.name;
  if (const auto* c = std::get_if<ConstantSignal>(&spec.definition)) {
    return CheckFinite(i, name, {{"value", c->value}});
  }
  if (const auto* s = std::get_if<SquareSignal>(&spec.definition)) {
    if (auto error = CheckFinite(i, name, {{"low", s->low}, {"high", s->high},
                                           {"period", s->period}, {"duty", s->duty},
                                           {"phase", s->phase}})) {
      return error;
    }
    if (!(s->period > 0.0)) {
      return Error(SignalRule::kPeriodNotPositive, i, name, "period", "period must be > 0");
    }
    if (!(s->duty >= 0.0 && s->duty <= 1.0)) {
      return Error(SignalRule::kDutyOutOfRange, i, name, "duty",
                   "duty must be in [0, 1] (the fraction of the period spent high)");
    }
    return std::nullopt;
  }
  if (const auto* s = std::get_if<SineSignal>(&spec.definition)) {
    if (auto error = CheckFinite(i, name, {{"amplitude", s->amplitude},
                                           {"frequency", s->frequency},
                                           {"phase", s->phase}, {"offset", s->offset}})) {
      return error;
    }
    if (s->frequency < 0.0) {
      return Error(SignalRule::kNegativeFrequency, i, name, "frequency",
                   "frequency must be >= 0");
    }
    return std::nullopt;
  }
  if (const auto* s = std::get_if<TableSignal>(&spec.definition)) {
    if (s->table.num_columns != 1) {
      return Error(SignalRule::kTableColumns, i, name, "points",
                   "a table signal has exactly one value per point");
    }
    TrajectoryBuild build = BuildTrajectory(s->table);
    if (build.error) {
      SignalError error = Error(SignalRule::kTable, i, name, "points", build.error->message);
      error.table_error = std::move(build.error);
      return error;
    }
    return std::nullopt;
  }
  if (const auto* s = std::get_if<ScaleSignal>(&spec.definition)) {
    return CheckFinite(i, name, {{"gain", s->gain}});
  }
  if (const auto* s = std::get_if<SumSignal>(&spec.definition)) {
    if (s->of.empty()) {
      return Error(SignalRule::kEmptySum, i, name, "of", "a sum needs at least one signal");
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// The names a scale or sum refers to, in order (none for the other kinds).
std::vector<std::string> References(const SignalSpec& spec) {
  if (const auto* s = std::get_if<ScaleSignal>(&spec.definition)) return {s->of};
  if (const auto* s = std::get_if<SumSignal>(&spec.definition)) return s->of;
  return {};
}

}  // namespace

SignalGraphBuild BuildSignalGraph(const std::vector<SignalSpec>& specs) {
  SignalGraphBuild build;
  const int n = static_cast<int>(specs.size());

  // Names and each signal's own parameters.
  std::unordered_map<std::string, int> index_of;
  for (int i = 0; i < n; ++i) {
    const std::string& name = specs[i].name;
    if (name.empty()) {
      build.error = Error(SignalRule::kEmptyName, i, name, "name", "a signal needs a name");
      return build;
    }
    if (!index_of.emplace(name, i).second) {
      build.error = Error(SignalRule::kDuplicateName, i, name, "name",
                          "the name is already used by signal " +
                              std::to_string(index_of[name]));
      return build;
    }
    if ((build.error = CheckParameters(specs[i], i))) return build;
  }

  // The nodes, with references resolved to indices.
  SignalGraph graph;
  for (int i = 0; i < n; ++i) {
    const SignalSpec& spec = specs[i];
    SignalGraph::Node node;
    double* p = node.parameter;
    if (const auto* c = std::get_if<ConstantSignal>(&spec.definition)) {
      node.kind = SignalGraph::Kind::kConstant;
      p[0] = c->value;
    } else if (const auto* s = std::get_if<SquareSignal>(&spec.definition)) {
      node.kind = SignalGraph::Kind::kSquare;
      p[0] = s->low, p[1] = s->high, p[2] = s->period, p[3] = s->duty * s->period;
      p[4] = s->phase;
    } else if (const auto* s = std::get_if<SineSignal>(&spec.definition)) {
      node.kind = SignalGraph::Kind::kSine;
      p[0] = s->amplitude, p[1] = kTwoPi * s->frequency, p[2] = s->phase, p[3] = s->offset;
    } else if (const auto* s = std::get_if<TableSignal>(&spec.definition)) {
      node.kind = SignalGraph::Kind::kTable;
      node.table = static_cast<int>(graph.tables_.size());
      graph.tables_.push_back(*BuildTrajectory(s->table).trajectory);  // checked above
    } else if (const auto* s = std::get_if<ScaleSignal>(&spec.definition)) {
      node.kind = SignalGraph::Kind::kScale;
      p[0] = s->gain;
    } else {
      node.kind = SignalGraph::Kind::kSum;
    }
    const std::vector<std::string> references = References(spec);
    node.first_input = static_cast<int>(graph.inputs_.size());
    node.num_inputs = static_cast<int>(references.size());
    for (int j = 0; j < node.num_inputs; ++j) {
      const auto found = index_of.find(references[j]);
      if (found == index_of.end()) {
        build.error = Error(SignalRule::kUnknownReference, i, spec.name, "of",
                            "'" + references[j] + "' is not a signal");
        build.error->reference = j;
        return build;
      }
      graph.inputs_.push_back(found->second);
    }
    graph.nodes_.push_back(node);
    graph.names_.push_back(spec.name);
  }

  // Evaluation order by depth-first search, which also finds any cycle: an input still on
  // the search path closes one. The path holds (signal, how many of its inputs are done).
  enum class Visit { kNew, kOnPath, kDone };
  std::vector<Visit> visit(n, Visit::kNew);
  std::vector<std::pair<int, int>> path;
  for (int root = 0; root < n; ++root) {
    if (visit[root] != Visit::kNew) continue;
    visit[root] = Visit::kOnPath;
    path.emplace_back(root, 0);
    while (!path.empty()) {
      const int node = path.back().first;
      const int next = path.back().second;
      const SignalGraph::Node& data = graph.nodes_[node];
      if (next == data.num_inputs) {
        visit[node] = Visit::kDone;
        graph.evaluation_order_.push_back(node);
        path.pop_back();
        continue;
      }
      ++path.back().second;
      const int input = graph.inputs_[data.first_input + next];
      if (visit[input] == Visit::kOnPath) {
        std::string cycle;
        bool on_cycle = false;
        for (const auto& [member, done] : path) {
          on_cycle = on_cycle || member == input;
          if (on_cycle) cycle += graph.names_[member] + " -> ";
        }
        cycle += graph.names_[input];
        build.error = Error(SignalRule::kCycle, node, graph.names_[node], "of",
                            "signals refer to each other in a cycle: " + cycle +
                                " (each uses the next)");
        build.error->reference = next;
        return build;
      }
      if (visit[input] == Visit::kNew) {
        visit[input] = Visit::kOnPath;
        path.emplace_back(input, 0);
      }
    }
  }
  build.graph = std::move(graph);
  return build;
}

template <typename InputValue>
double SignalGraph::NodeValue(const Node& node, double t, const InputValue& input_value) const {
  const double* p = node.parameter;
  switch (node.kind) {
    case Kind::kConstant:
      return p[0];
    case Kind::kSquare: {
      // (t + phase) mod period, floored so that it lies in [0, period).
      double x = std::fmod(t + p[4], p[2]);
      if (x < 0.0) x += p[2];
      return x < p[3] ? p[1] : p[0];
    }
    case Kind::kSine:
      return p[3] + p[0] * std::sin(p[1] * t + p[2]);
    case Kind::kTable:
      return tables_[node.table].Evaluate(0, t).q;
    case Kind::kScale:
    case Kind::kSum: {
      double sum = 0.0;
      for (int j = 0; j < node.num_inputs; ++j) sum += input_value(inputs_[node.first_input + j]);
      return node.kind == Kind::kScale ? p[0] * sum : sum;
    }
  }
  return 0.0;
}

int SignalGraph::Find(std::string_view name) const {
  for (int i = 0; i < size(); ++i) {
    if (names_[i] == name) return i;
  }
  return -1;
}

double SignalGraph::Evaluate(int signal, double t) const {
  CSIM_CHECK(signal >= 0 && signal < size());
  return NodeValue(nodes_[signal], t, [this, t](int input) { return Evaluate(input, t); });
}

void SignalGraph::EvaluateAll(double t, double* values) const {
  for (int signal : evaluation_order_) {
    values[signal] = NodeValue(nodes_[signal], t, [values](int input) { return values[input]; });
  }
}

}  // namespace csim::control
