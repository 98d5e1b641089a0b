#include "engine/io/collision_filter_reader.h"

#include <algorithm>
#include <string>

namespace csim::io {
namespace {

int ReadBody(const NodeReader& node, const multibody::Model& model) {
  const std::string name = node.AsString();
  if (name == "world") return -1;
  const int b = model.FindBody(name);
  if (b < 0) node.Fail("unknown body '" + name + "'");
  return b;
}

}  // namespace

std::vector<std::pair<int, int>> ReadCollisionFilter(const NodeReader& root,
                                                     const multibody::Model& model) {
  std::vector<std::pair<int, int>> pairs;
  const auto filter = root.Find("collision_filter");
  if (!filter) return pairs;
  filter->CheckKeys({"exclude", "groups"});
  if (auto exclude = filter->Find("exclude")) {
    for (const NodeReader& pair : exclude->Items()) {
      const std::vector<NodeReader> items = pair.Items();
      if (items.size() != 2) pair.Fail("an excluded pair lists exactly two bodies");
      const int a = ReadBody(items[0], model), b = ReadBody(items[1], model);
      if (a == b) items[1].Fail("a body is paired with itself");
      pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
  }
  if (auto groups = filter->Find("groups")) {
    for (const NodeReader& group : groups->Items()) {
      std::vector<int> bodies;
      for (const NodeReader& item : group.Items()) bodies.push_back(ReadBody(item, model));
      for (size_t i = 0; i < bodies.size(); ++i)
        for (size_t k = i + 1; k < bodies.size(); ++k)
          if (bodies[i] != bodies[k])
            pairs.emplace_back(std::min(bodies[i], bodies[k]), std::max(bodies[i], bodies[k]));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

}  // namespace csim::io
