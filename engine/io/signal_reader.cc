#include "engine/io/signal_reader.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/io/model_builder.h"
#include "engine/io/trajectory_reader.h"

namespace csim::io {
namespace {

using control::SignalSpec;

/// `points: [[t, value], ...]` and the table options, as a one-column keyframe table.
control::TableSignal ReadTable(const NodeReader& node) {
  node.CheckKeys({"type", "points", "interpolation", "end_velocity", "after"});
  control::TableSignal table;
  table.table.num_columns = 1;
  ReadTableOptions(node, &table.table);
  for (const NodeReader& point : node.Get("points").Items()) {
    const std::vector<NodeReader> parts = point.Items();
    if (parts.size() != 2) point.Fail("a point is [t, value], got " +
                                      std::to_string(parts.size()) + " numbers");
    table.table.keyframes.push_back({parts[0].AsDouble(), {parts[1].AsDouble()}, {}});
  }
  return table;
}

/// The definition of one signal, by its `type`.
SignalSpec ReadSignal(const NodeReader& key, const NodeReader& node) {
  SignalSpec spec;
  spec.name = ReadName(key, "signal");
  const NodeReader type_node = node.Get("type");
  const std::string type = type_node.AsString();
  if (type == "constant") {
    node.CheckKeys({"type", "value"});
    spec.definition = control::ConstantSignal{node.Get("value").AsDouble()};
  } else if (type == "square") {
    node.CheckKeys({"type", "low", "high", "period", "duty", "phase"});
    control::SquareSignal s;
    s.low = node.DoubleOr("low", s.low);
    s.high = node.Get("high").AsDouble();
    s.period = node.Get("period").AsDouble();
    s.duty = node.DoubleOr("duty", s.duty);
    s.phase = node.DoubleOr("phase", s.phase);
    spec.definition = s;
  } else if (type == "sine") {
    node.CheckKeys({"type", "amplitude", "frequency", "period", "phase", "offset"});
    control::SineSignal s;
    s.amplitude = node.Get("amplitude").AsDouble();
    const auto frequency = node.Find("frequency");
    const auto period = node.Find("period");
    if (frequency && period) period->Fail("give either frequency or period, not both");
    if (!frequency && !period) node.Fail("missing required key 'frequency' (or 'period')");
    s.frequency = frequency ? frequency->AsDouble() : 1.0 / period->AsPositive();
    s.phase = node.DoubleOr("phase", s.phase);
    s.offset = node.DoubleOr("offset", s.offset);
    spec.definition = s;
  } else if (type == "table") {
    spec.definition = ReadTable(node);
  } else if (type == "scale") {
    node.CheckKeys({"type", "of", "gain"});
    spec.definition = control::ScaleSignal{node.Get("of").AsString(), node.Get("gain").AsDouble()};
  } else if (type == "sum") {
    node.CheckKeys({"type", "of"});
    control::SumSignal s;
    for (const NodeReader& item : node.Get("of").Items()) s.of.push_back(item.AsString());
    spec.definition = s;
  } else {
    type_node.Fail("unknown signal type '" + type +
                   "' (expected constant, square, sine, table, scale or sum)");
  }
  return spec;
}

/// The node a BuildSignalGraph error is about (`node` is the signal's map, `key` its name).
NodeReader LocateSignalError(const control::SignalError& error, const NodeReader& key,
                             const NodeReader& node) {
  using control::SignalRule;
  if (error.rule == SignalRule::kEmptyName || error.rule == SignalRule::kDuplicateName)
    return key;
  if (error.rule == SignalRule::kTable && error.table_error) {
    const NodeReader points = node.Get("points");
    return LocateTrajectoryError(*error.table_error, points.Items(), points, points);
  }
  const auto at = node.Find(error.key);
  if (!at) return node;
  if (error.reference >= 0 && at->IsSequence()) {
    const std::vector<NodeReader> items = at->Items();
    if (error.reference < static_cast<int>(items.size())) return items[error.reference];
  }
  return *at;
}

}  // namespace

control::SignalGraph ReadSignals(const NodeReader& root) {
  const auto section = root.Find("signals");
  if (!section) return {};
  std::vector<SignalSpec> specs;
  std::vector<std::pair<NodeReader, NodeReader>> entries = section->Entries();
  for (const auto& [key, value] : entries) specs.push_back(ReadSignal(key, value));
  control::SignalGraphBuild build = control::BuildSignalGraph(specs);
  if (build.error) {
    const auto& [key, value] = entries[build.error->signal];
    LocateSignalError(*build.error, key, value).Fail(build.error->message);
  }
  return std::move(*build.graph);
}

}  // namespace csim::io
