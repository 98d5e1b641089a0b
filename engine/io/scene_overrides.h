#pragma once
// `--set PATH=VALUE` overrides of scene values (cli.md).
//
// PATH is dotted; a list is indexed by the `name` of its items (`bodies.ball.mass`) or by
// an integer (`world.geometry.0.radius`); missing map keys on the way are created as empty
// maps (`settings.solver.relative_tolerance=1e-8` works on a scene without `settings`).
// VALUE is parsed as YAML and replaces the node at PATH.
//
// Locations: a bad override is reported in a pseudo-file named after the argument,
// `--set bodies.bal.mass=2:1:8: ...`, with line 1 and the 1-based column of the offending
// character inside the argument text (PATH=VALUE, without the `--set ` prefix). Errors the
// loader finds later inside an overridden value point at the same pseudo-file: each
// override records, in the SourceMap, the key path it replaced and where its VALUE starts
// (a side table keyed by key path, rather than re-marking nodes, because yaml-cpp marks
// cannot name another file).

#include <string>

#include <yaml-cpp/yaml.h>

#include "engine/io/yaml_reader.h"

namespace csim::io {

/// Applies one `PATH=VALUE` argument to the scene tree `root` (a map) in place, and
/// records in `sources` where the new nodes came from. Throws InputError (located in the
/// argument) when the argument has no '=', an empty path element, a list item name or
/// index that does not exist, a path that goes through a scalar, or a VALUE that is not
/// valid YAML.
void ApplyOverride(YAML::Node& root, const std::string& argument, SourceMap* sources);

/// Pseudo file name under which an override's errors are reported: "--set " + argument.
std::string OverrideFileName(const std::string& argument);

}  // namespace csim::io
