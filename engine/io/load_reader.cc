#include "engine/io/load_reader.h"

#include <string>

namespace csim::io {
namespace {

multibody::ExternalLoad ReadLoad(const NodeReader& node, const multibody::Model& model) {
  node.CheckKeys({"body", "point", "force", "torque", "frame", "signal"});
  multibody::ExternalLoad load;
  const NodeReader body = node.Get("body");
  const std::string name = body.AsString();
  if (name == "world") body.Fail("a load on the world moves nothing: name a body");
  load.body = model.FindBody(name);
  if (load.body < 0) body.Fail("unknown body '" + name + "'");
  if (const auto point = node.Find("point")) load.point = point->AsVector3();
  const auto force = node.Find("force");
  const auto torque = node.Find("torque");
  if (!force && !torque) node.Fail("a load needs a force, a torque or both");
  if (force) load.force = force->AsVector3();
  if (torque) load.torque = torque->AsVector3();
  if (const auto frame = node.Find("frame")) {
    const std::string axes = frame->AsString();
    if (axes != "world" && axes != "body")
      frame->Fail("unknown frame '" + axes + "' (expected world or body)");
    load.body_axes = axes == "body";
  }
  if (const auto signal = node.Find("signal")) {
    const std::string signal_name = signal->AsString();
    load.signal = model.signals.Find(signal_name);
    if (load.signal < 0) signal->Fail("unknown signal '" + signal_name + "'");
  }
  return load;
}

}  // namespace

std::vector<multibody::ExternalLoad> ReadLoads(const NodeReader& root,
                                               const multibody::Model& model) {
  std::vector<multibody::ExternalLoad> loads;
  const auto list = root.Find("loads");
  if (!list) return loads;
  for (const NodeReader& item : list->Items()) loads.push_back(ReadLoad(item, model));
  return loads;
}

}  // namespace csim::io
