#pragma once
// Reading the scene's `signals:` map (scene-format.md "signals") into the model's signal
// graph (control/signal.h).
//
// Each entry is `NAME: {type: constant | square | sine | table | scale | sum, ...}`. The keys
// of each type are checked here, with the values a type requires; control::BuildSignalGraph
// then checks the parameters' ranges, resolves `of` and finds cycles, and its first error is
// reported at the key or `of` item it names (docs/design/trajectories-and-signals.md §8).

#include "engine/control/signal.h"
#include "engine/io/yaml_reader.h"

namespace csim::io {

/// The signals of the scene's root map (none without `signals:`), signal i being the i-th
/// entry in file order. Throws InputError at the first rule broken.
control::SignalGraph ReadSignals(const NodeReader& root);

}  // namespace csim::io
