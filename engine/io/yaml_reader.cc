#include "engine/io/yaml_reader.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace csim::io {
namespace {

/// Human name of a node's kind, for "expected X, got Y" messages.
std::string KindName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    default: return "an undefined node";
  }
}

/// Shifts a mark inside a substituted text so that it is relative to where that text
/// starts: the first line of the text starts at value_start's column.
SourceLocation ShiftInto(const SourceLocation& value_start, const YAML::Mark& mark) {
  SourceLocation where = value_start;
  if (mark.is_null()) return where;
  if (mark.line == 0) {
    where.column = value_start.column + mark.column;
  } else {
    where.line = value_start.line + mark.line;
    where.column = mark.column + 1;
  }
  return where;
}

}  // namespace

std::string JoinPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string IndexPath(const std::string& path, int index) {
  return path + "[" + std::to_string(index) + "]";
}

bool IsPathPrefix(const std::string& prefix, const std::string& path) {
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  if (path.size() == prefix.size() || prefix.empty()) return true;
  const char next = path[prefix.size()];
  return next == '.' || next == '[';
}

// ---- SourceMap ---------------------------------------------------------------------------

void SourceMap::AddSubstitution(const std::string& path, const SourceLocation& value_start) {
  entries_.push_back({path, value_start, Kind::kSubstituted});
}

void SourceMap::AddCreated(const std::string& path, const SourceLocation& where) {
  entries_.push_back({path, where, Kind::kCreated});
}

void SourceMap::AddGenerated(const std::string& path, const SourceLocation& where) {
  entries_.push_back({path, where, Kind::kGenerated});
}

void SourceMap::AddGeneratedMesh(const std::string& path, GeneratedMesh mesh) {
  meshes_[path] = std::move(mesh);
}

const GeneratedMesh* SourceMap::FindGeneratedMesh(const std::string& path) const {
  const auto it = meshes_.find(path);
  return it == meshes_.end() ? nullptr : &it->second;
}

SourceLocation SourceMap::Locate(const std::string& path, const YAML::Mark& mark) const {
  // The latest override that covers the node decides: it replaced whatever came before.
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const bool created = it->kind == Kind::kCreated;
    if (created ? it->path == path : IsPathPrefix(it->path, path)) {
      return it->kind == Kind::kSubstituted ? ShiftInto(it->where, mark) : it->where;
    }
  }
  if (mark.is_null()) return {file_, 0, 0};
  return {file_, mark.line + 1, mark.column + 1};
}

// ---- NodeReader --------------------------------------------------------------------------

NodeReader::NodeReader(YAML::Node node, std::string path, const SourceMap* sources)
    : node_(std::move(node)), path_(std::move(path)), sources_(sources), mark_(node_.Mark()) {}

SourceLocation NodeReader::Location() const { return sources_->Locate(path_, mark_); }

const GeneratedMesh* NodeReader::GeneratedMeshData() const {
  return sources_->FindGeneratedMesh(path_);
}

NodeReader NodeReader::Value(const std::string& key) const {
  NodeReader value = Child(node_[key], JoinPath(path_, key));
  if (value.node_.IsNull()) {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) value.mark_ = it->first.Mark();
    }
  }
  return value;
}

void NodeReader::Fail(const std::string& what) const {
  const std::string shown = path_.empty() ? "top level" : path_;
  throw InputError(Location(), what + " (" + shown + ")");
}

void NodeReader::ExpectMap() const {
  if (!node_.IsMap() && !node_.IsNull()) Fail("expected a map, got " + KindName(node_));
}

void NodeReader::CheckKeys(const std::vector<std::string>& allowed) const {
  ExpectMap();
  for (const auto& [key, value] : Entries()) {
    const std::string name = key.node().Scalar();
    if (name.rfind("x-", 0) == 0) continue;  // user annotations (scene-format.md)
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      key.Fail("unknown key '" + name + "'");
    }
  }
}

bool NodeReader::Has(const std::string& key) const {
  return node_.IsMap() && node_[key].IsDefined();
}

NodeReader NodeReader::Get(const std::string& key) const {
  ExpectMap();
  if (!Has(key)) Fail("missing required key '" + key + "'");
  return Value(key);
}

std::optional<NodeReader> NodeReader::Find(const std::string& key) const {
  ExpectMap();
  if (!Has(key)) return std::nullopt;
  return Value(key);
}

std::vector<std::pair<NodeReader, NodeReader>> NodeReader::Entries() const {
  ExpectMap();
  std::vector<std::pair<NodeReader, NodeReader>> out;
  if (node_.IsNull()) return out;
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key_text = it->first.IsScalar() ? it->first.Scalar() : "?";
    const std::string child_path = JoinPath(path_, key_text);
    const NodeReader key = Child(it->first, child_path);
    if (!it->first.IsScalar()) {
      key.Fail("a map key must be a plain name, got " + KindName(key.node()));
    }
    if (!seen.insert(key_text).second) key.Fail("duplicate key '" + key_text + "'");
    NodeReader value = Child(it->second, child_path);
    if (value.node_.IsNull()) value.mark_ = it->first.Mark();  // as Value() does
    out.emplace_back(key, value);
  }
  return out;
}

std::vector<NodeReader> NodeReader::Items() const {
  if (!node_.IsSequence() && !node_.IsNull()) Fail("expected a list, got " + KindName(node_));
  std::vector<NodeReader> out;
  for (size_t i = 0; i < node_.size(); ++i) {
    out.push_back(Child(node_[i], IndexPath(path_, static_cast<int>(i))));
  }
  return out;
}

void NodeReader::RejectQuoted(const std::string& expected) const {
  // yaml-cpp converts the string "0.5" to a number as readily as 0.5; the format does
  // not: a quoted scalar is a string, and a number where one is expected is a wrong type.
  if (node_.Tag() == "!") {
    Fail("expected " + expected + ", got the quoted string " + KindName(node_) +
         " (write it without quotes)");
  }
}

double NodeReader::ParseNumber() const {
  if (!node_.IsScalar()) Fail("expected a number, got " + KindName(node_));
  RejectQuoted("a number");
  double value = 0.0;
  if (!YAML::convert<double>::decode(node_, value)) {
    Fail("expected a number, got " + KindName(node_));
  }
  if (std::isnan(value)) Fail("expected a finite number, got " + KindName(node_));
  return value;
}

double NodeReader::AsDouble(bool allow_inf) const {
  const double value = ParseNumber();
  if (std::isinf(value) && !(allow_inf && value > 0)) {
    Fail("expected a finite number, got " + KindName(node_));
  }
  return value;
}

double NodeReader::AsPositive(bool allow_inf) const {
  const double value = AsDouble(allow_inf);
  if (!(value > 0)) Fail("must be positive, got " + KindName(node_));
  return value;
}

double NodeReader::AsNonNegative() const {
  const double value = AsDouble();
  if (value < 0) Fail("must not be negative, got " + KindName(node_));
  return value;
}

int NodeReader::AsInt() const {
  int value = 0;
  if (!node_.IsScalar() || !YAML::convert<int>::decode(node_, value)) {
    Fail("expected an integer, got " + KindName(node_));
  }
  RejectQuoted("an integer");
  return value;
}

bool NodeReader::AsBool() const {
  bool value = false;
  if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, value)) {
    Fail("expected true or false, got " + KindName(node_));
  }
  RejectQuoted("true or false");
  return value;
}

std::string NodeReader::AsString() const {
  if (!node_.IsScalar()) Fail("expected a name, got " + KindName(node_));
  return node_.Scalar();
}

Eigen::VectorXd NodeReader::AsVector(int size, bool scalar_ok) const {
  if (scalar_ok && size == 1 && node_.IsScalar()) return Eigen::VectorXd::Constant(1, AsDouble());
  if (!node_.IsSequence()) {
    const std::string want = size < 0 ? "a list of numbers"
                                      : "a list of " + std::to_string(size) + " numbers";
    Fail("expected " + want + ", got " + KindName(node_));
  }
  const std::vector<NodeReader> items = Items();
  if (size >= 0 && static_cast<int>(items.size()) != size) {
    Fail("expected " + std::to_string(size) + " numbers, got " + std::to_string(items.size()));
  }
  Eigen::VectorXd out(items.size());
  for (size_t i = 0; i < items.size(); ++i) out[i] = items[i].AsDouble();
  return out;
}

Eigen::Vector3d NodeReader::AsVector3() const { return AsVector(3); }

double NodeReader::DoubleOr(const std::string& key, double fallback, bool allow_inf) const {
  const auto child = Find(key);
  return child ? child->AsDouble(allow_inf) : fallback;
}

double NodeReader::PositiveOr(const std::string& key, double fallback) const {
  const auto child = Find(key);
  return child ? child->AsPositive() : fallback;
}

double NodeReader::NonNegativeOr(const std::string& key, double fallback, bool allow_inf) const {
  const auto child = Find(key);
  if (!child) return fallback;
  const double value = child->AsDouble(allow_inf);
  if (value < 0) child->Fail("must not be negative, got " + KindName(child->node()));
  return value;
}

int NodeReader::IntOr(const std::string& key, int fallback) const {
  const auto child = Find(key);
  return child ? child->AsInt() : fallback;
}

bool NodeReader::BoolOr(const std::string& key, bool fallback) const {
  const auto child = Find(key);
  return child ? child->AsBool() : fallback;
}

std::string NodeReader::StringOr(const std::string& key, const std::string& fallback) const {
  const auto child = Find(key);
  return child ? child->AsString() : fallback;
}

}  // namespace csim::io
