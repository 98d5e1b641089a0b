#pragma once
// Command line of csim_bench (bench/README.md): which clutter configurations to run and
// how long, whether to compare with MuJoCo, and where to write the CSV; and the part of it
// the tools that sample one clutter's steps share (csim_export_problems, csim_factor_bench).

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace csim::bench {

/// One clutter configuration: tools/make_clutter.py -n objects [--no-walls] --dt dt.
struct ClutterConfig {
  int objects = 40;      ///< number of dropped objects, 10..400
  bool walls = true;     ///< container walls (false: floor only)
  double dt = 2.0e-3;    ///< time step, also the material's tau_d [s]
  int columns = 0;       ///< make_clutter.py --columns (0: the generator's four)
  double column_spacing = 0.0;  ///< make_clutter.py --column-spacing [m] (0: its 0.4 m)
  std::string contact_model = "sap";  ///< make_clutter.py --contact-model
  double hunt_crossley = 0.0;         ///< make_clutter.py --hunt-crossley [s/m]
  int seed = 1;          ///< make_clutter.py --seed: which pile (the random assortment)
  /// Not empty: a scene file run as it is (--scene) instead of a generated clutter; the
  /// fields above but dt then do not apply, and dt is the scene's time step.
  std::string scene;
};

struct BenchOptions {
  std::vector<int> objects{10, 40, 80, 160};
  std::vector<bool> walls{true, false};
  std::vector<double> dts{2.0e-3, 1.0e-3};
  double duration = 2.0;     ///< simulated time per configuration [s]
  double settled = 1.0;      ///< the last `settled` seconds are the settled phase [s]
  /// make_clutter.py --seed of each pile. One run is one chaotic pile, whose Newton work
  /// scatters from seed to seed (results/paired_solver_options.md); several seeds give the
  /// spread (tools/bench_targets.py averages rows that differ only in the seed).
  std::vector<int> seeds{1};
  bool mujoco = true;        ///< compare with MuJoCo when it was compiled in
  /// Wall-time budget of MuJoCo's steps per configuration [s]: past it MuJoCo stops and
  /// the ratio is taken over the steps both simulators took (MuJoCo's steps of the largest
  /// piles are slow: results/benchmarks.md). <= 0: no budget.
  double mujoco_budget = 120.0;
  std::string csv;           ///< CSV output path ("" none)
  std::string python = "/usr/bin/python3";  ///< interpreter for the generator
  std::string generator;     ///< tools/make_clutter.py (default: in the source tree)
  bool quick = false;        ///< reduced configuration (CI smoke run)
  int threads = 1;           ///< csim's contact-solve threads (csim run --threads), >= 1
  /// Time csim's stages for the split lines and columns (--no-stage-times: off, those read
  /// 0). The clock reads cost about 0.1 us a step, which matters for microsecond steps.
  bool stage_times = true;
  /// > 0: stack `per_column` objects per column (make_clutter.py --columns ceil(N / P), no
  /// walls), so the columns, and the energy per object, do not grow with N.
  int per_column = 0;
  /// > 0: the columns this far apart [m] (make_clutter.py --column-spacing, no walls); far
  /// enough that the collapsed piles never meet, the work per object does not depend on N.
  double column_spacing = 0.0;
  /// csim runs per configuration (csim only): each window reports the run whose mean time
  /// per step there was lowest (the simulation is deterministic; only the times differ).
  /// The repeats go round all configurations (main.cc), so a slow phase of the machine
  /// does not fall on one configuration only.
  int repeat = 1;
  /// csim's contact model (make_clutter.py --contact-model): sap, lagged,
  /// lagged_regularized or similar; the Hunt & Crossley models get the materials'
  /// dissipation d = `hunt_crossley` (make_clutter.py --hunt-crossley).
  std::string contact_model = "sap";
  double hunt_crossley = 10.0;  ///< [s/m], the clutter of the ICF paper (sec. IX-A)
  /// Scene files to run instead of the clutter grid (--scene), one configuration each, at
  /// the scene's own time step: other scenes in both simulators, such as the ropes of
  /// tools/run_rope_bench.sh (whatever bench/mjcf_writer.h can express for MuJoCo).
  std::vector<std::string> scenes;
  /// KEY=VALUE overrides applied to every configuration's scene (--set, as csim's own). The
  /// MJCF is written from the overridden scene, so its time step, gravity, bodies and
  /// friction reach MuJoCo too; csim's solver and contact-model settings do not.
  std::vector<std::string> overrides;
  /// KEY=VALUE settings of csim's solver (--compare, settings.solver.* only): each step's
  /// contact problem is solved again with the run's solver settings and with these, from
  /// the same warm start (bench/paired_solve.h). Empty: no paired comparison.
  std::vector<std::string> compare;

  /// Every configuration, objects outermost, then walls, then dt, then the seed.
  std::vector<ClutterConfig> Configurations() const;
};

/// Parses argv; exits the process on --help or a usage error (exit status 2).
BenchOptions ParseOptions(int argc, char** argv);

/// The command line of a tool that steps one generated clutter and samples every `every`-th
/// step from `skip` on (csim_export_problems, csim_factor_bench). Each tool sets its own
/// defaults before AddClutterSamplingOptions.
struct ClutterSamplingOptions {
  int objects = 40;            ///< -n: number of dropped objects
  std::string walls = "with";  ///< --walls: with or without
  double dt = 2.0e-3;          ///< --dt: time step [s]
  double duration = 2.0;       ///< --duration: simulated time [s]
  double skip = 0.0;           ///< --skip: no sample before this time [s]
  int every = 25;              ///< --every: a sample every this many steps
  int seed = 1;                ///< --seed: make_clutter.py --seed

  /// The clutter these options name (the generator's defaults for the rest).
  ClutterConfig Config() const;
};

/// Adds -n/--objects (min_objects to 400), --walls, --dt, --duration, --skip, --every and
/// --seed, parsed into *o; `sample` says in their help what the tool takes from a step
/// ("problem").
void AddClutterSamplingOptions(CLI::App* app, ClutterSamplingOptions* o, int min_objects,
                               const std::string& sample);

}  // namespace csim::bench
