#pragma once
// The clutter scenes of the benchmark come from the project's own generator
// (tools/make_clutter.py, the scene of the SAP paper sec. VI-C), run at bench time into a
// temporary directory, so the benchmark always measures exactly what the generator
// produces and no generated YAML has to be kept in the tree.

#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "engine/io/scene_loader.h"

namespace csim::bench {

/// Runs `python generator -n N [--no-walls] --dt DT --duration D --seed S [--columns K]
/// -o TMP` and
/// returns the scene text, plus the command (for the report) in *command.
/// Throws std::runtime_error when the generator fails.
std::string GenerateClutterScene(const BenchOptions& options, const ClutterConfig& config,
                                 std::string* command);

/// Generates `config` for `duration` seconds with the source tree's tools/make_clutter.py
/// (GenerateClutterScene) and loads it with `overrides` (KEY=VALUE, as csim --set); the
/// generator's command in *command. Throws std::runtime_error when the generator fails and
/// the scene loader's errors when the scene does not load.
io::LoadedScene LoadClutterScene(const ClutterConfig& config, double duration,
                                 const std::vector<std::string>& overrides,
                                 std::string* command);

/// Short name of a configuration: the scene file's name without its directory and
/// extension for --scene; "clutter-40 walls dt=2e-3", "clutter-160 no-walls
/// 16-columns dt=2e-3", "clutter-160 no-walls dt=2e-3 seed=3" (the seed unless it is 1).
std::string ConfigName(const ClutterConfig& config);

}  // namespace csim::bench
