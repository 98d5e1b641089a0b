#pragma once
// Typed, located access to a parsed YAML tree (scene-format.md "Errors").
//
// Every accessor knows the file name and the key path of its node, so that any rejection
// reads `FILE:LINE:COL: what is wrong (key path)` with 1-based line and column (yaml-cpp
// marks are 0-based). Nodes that did not come from the scene file but from a `--set`
// override are located through a SourceMap, which points them back at the override text.
//
// Design choice: reads never go through a non-const YAML::Node, because yaml-cpp's
// non-const operator[] silently inserts missing keys into the tree.
//
// Design choice: the vertices and triangles of an imported mesh (model_expansion.h) travel
// beside the tree, in the SourceMap, attached to the key path of their geometry node, rather
// than as YAML nodes. One node per vertex and per triangle would cost most of the load of a
// robot with fine meshes (each number written as text and parsed back); the SourceMap already
// records what the expansion generated and goes wherever a node is read, and a key path can
// be neither written nor overridden by a user, so the data cannot be reached by mistake.
// Rejected: an internal key in the geometry node naming a side table (a key a user could
// still write), and passing the table down the model builder's calls beside every node.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <yaml-cpp/yaml.h>

#include "engine/common/input_error.h"

namespace csim::io {

/// A mesh given by its vertices [m] and triangles (0-based indices into the vertices), as an
/// imported model gives it (an MJCF mesh as MuJoCo compiled it).
struct GeneratedMesh {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<Eigen::Vector3i> triangles;
};

/// Maps key paths of nodes that were substituted into the tree (by `--set` overrides) or
/// generated (by the model expansion) to the text they came from, and keeps the meshes the
/// expansion attached to its nodes. Nodes not covered are located by their own mark in `file`.
class SourceMap {
 public:
  /// `file` is the scene path as given by the user.
  explicit SourceMap(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  /// The node at `path` and everything below it was parsed from a text whose first
  /// character is at `value_start` (marks inside that text are offset from there).
  void AddSubstitution(const std::string& path, const SourceLocation& value_start);

  /// The node at exactly `path` was created (an empty map) because of the text at `where`.
  void AddCreated(const std::string& path, const SourceLocation& where);

  /// The node at `path` and everything below it was generated from the element at `where`
  /// of another file (a robot model expanded by model_expansion.h): all are located there.
  void AddGenerated(const std::string& path, const SourceLocation& where);

  /// The mesh geometry node at `path` (generated, AddGenerated) has the vertices and
  /// triangles of `mesh`, which are not in the tree (see the design choice above).
  void AddGeneratedMesh(const std::string& path, GeneratedMesh mesh);

  /// The mesh attached to the node at exactly `path` by AddGeneratedMesh, or null.
  const GeneratedMesh* FindGeneratedMesh(const std::string& path) const;

  /// Location of the node with key path `path` and yaml-cpp mark `mark` (0-based).
  SourceLocation Locate(const std::string& path, const YAML::Mark& mark) const;

 private:
  enum class Kind {
    kSubstituted,  ///< AddSubstitution: the subtree, marks shifted into the override text
    kCreated,      ///< AddCreated: exactly the path
    kGenerated,    ///< AddGenerated: the subtree, all at one location
  };
  struct Entry {
    std::string path;
    SourceLocation where;
    Kind kind;
  };
  std::string file_;
  std::vector<Entry> entries_;  ///< in registration order; later entries win
  std::map<std::string, GeneratedMesh> meshes_;  ///< by key path of their geometry node
};

/// True if `prefix` equals `path` or is a whole-component prefix of it
/// ("bodies[0]" is a prefix of "bodies[0].mass" but not of "bodies[0]x").
bool IsPathPrefix(const std::string& prefix, const std::string& path);

/// A const view of one YAML node with its key path and source map. Cheap to copy.
/// Every failing check throws csim::InputError located at the node it concerns.
class NodeReader {
 public:
  /// `path` is the key path of `node` ("" for the document root); `sources` must outlive
  /// the reader.
  NodeReader(YAML::Node node, std::string path, const SourceMap* sources);

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  /// 1-based location of this node.
  SourceLocation Location() const;
  /// The vertices and triangles the model expansion attached to this node
  /// (SourceMap::AddGeneratedMesh), or null.
  const GeneratedMesh* GeneratedMeshData() const;
  /// Throws InputError at this node with message `what (key path)`.
  [[noreturn]] void Fail(const std::string& what) const;

  bool IsMap() const { return node_.IsMap(); }
  bool IsSequence() const { return node_.IsSequence(); }
  bool IsScalar() const { return node_.IsScalar(); }

  // ---- Maps -----------------------------------------------------------------------------
  /// Fails unless this node is a map (a null node counts as an empty map).
  void ExpectMap() const;
  /// Fails on the first key not in `allowed` (keys starting with "x-" are always allowed),
  /// and as Entries() does. Implies ExpectMap().
  void CheckKeys(const std::vector<std::string>& allowed) const;
  /// True if the map has `key` (with any value, including null).
  bool Has(const std::string& key) const;
  /// The value of a required key; fails at this map if it is missing.
  NodeReader Get(const std::string& key) const;
  /// The value of an optional key, or nullopt.
  std::optional<NodeReader> Find(const std::string& key) const;
  /// The key node and value node of every entry, in file order. Fails on a non-scalar key
  /// and on a duplicate key (yaml-cpp would silently keep both).
  std::vector<std::pair<NodeReader, NodeReader>> Entries() const;

  // ---- Sequences ------------------------------------------------------------------------
  /// The items of a sequence (a null node counts as empty); fails on any other node.
  std::vector<NodeReader> Items() const;

  // ---- Scalars --------------------------------------------------------------------------
  /// A finite number; with `allow_inf`, +infinity (`.inf`) is accepted too.
  double AsDouble(bool allow_inf = false) const;
  /// A finite number > 0 (or +inf with `allow_inf`).
  double AsPositive(bool allow_inf = false) const;
  /// A finite number >= 0.
  double AsNonNegative() const;
  /// An integer.
  int AsInt() const;
  bool AsBool() const;
  /// A scalar string (not a map or sequence; a null is rejected).
  std::string AsString() const;
  /// A sequence of finite numbers of length `size` (any length if size < 0). With
  /// `scalar_ok` and size 1, a plain number is accepted as a one-element vector.
  Eigen::VectorXd AsVector(int size, bool scalar_ok = false) const;
  Eigen::Vector3d AsVector3() const;

  // ---- Optional keys with defaults ------------------------------------------------------
  double DoubleOr(const std::string& key, double fallback, bool allow_inf = false) const;
  double PositiveOr(const std::string& key, double fallback) const;
  double NonNegativeOr(const std::string& key, double fallback, bool allow_inf = false) const;
  int IntOr(const std::string& key, int fallback) const;
  bool BoolOr(const std::string& key, bool fallback) const;
  std::string StringOr(const std::string& key, const std::string& fallback) const;

 private:
  NodeReader Child(const YAML::Node& node, const std::string& path) const {
    return NodeReader(node, path, sources_);
  }
  /// The value of `key` (which must exist). An empty value (`mass:` with nothing after it)
  /// is located at its key: yaml-cpp marks a null value where the next token starts, often
  /// the line below.
  NodeReader Value(const std::string& key) const;
  /// Fails on a quoted scalar (a string) where `expected` (a number, ...) is wanted.
  void RejectQuoted(const std::string& expected) const;
  /// Parses a scalar as a double, failing on non-numbers and NaN.
  double ParseNumber() const;

  YAML::Node node_;
  std::string path_;
  const SourceMap* sources_;
  YAML::Mark mark_;  ///< where this node is reported; node_.Mark() unless set by Value()
};

/// Joins a map key onto a key path: ("bodies[0]", "mass") -> "bodies[0].mass".
std::string JoinPath(const std::string& path, const std::string& key);
/// Joins a sequence index onto a key path: ("bodies", 3) -> "bodies[3]".
std::string IndexPath(const std::string& path, int index);

}  // namespace csim::io
