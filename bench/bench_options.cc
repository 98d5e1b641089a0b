#include "bench/bench_options.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "bench/paired_solve.h"

namespace csim::bench {

std::vector<ClutterConfig> BenchOptions::Configurations() const {
  std::vector<ClutterConfig> out;
  if (!scenes.empty()) {
    for (const std::string& path : scenes) {
      ClutterConfig c;
      c.scene = path;
      out.push_back(c);
    }
    return out;
  }
  for (int n : objects)
    for (bool w : walls)
      for (double dt : dts)
        for (int seed : seeds)
          out.push_back({n, w, dt, per_column > 0 ? (n + per_column - 1) / per_column : 0,
                         column_spacing, contact_model,
                         contact_model == "sap" ? 0.0 : hunt_crossley, seed, ""});
  return out;
}

// --quick: clutter-10 and clutter-40 with walls at dt = 2e-3 for 0.4 s (a CI smoke run of
// well under a minute with MuJoCo; not a measurement).
void ApplyQuick(BenchOptions* o) {
  o->objects = {10, 40};
  o->walls = {true};
  o->dts = {2.0e-3};
  o->duration = 0.4;
  o->settled = 0.1;
  o->mujoco_budget = 10.0;
}

BenchOptions ParseOptions(int argc, char** argv) {
  BenchOptions o;
  CLI::App app{"csim_bench: the SAP paper's clutter scene in csim (and MuJoCo), per-step costs"};
  std::string walls = "both";
  bool no_mujoco = false;
  app.add_flag("--quick", o.quick, "reduced configuration for a smoke run (overrides the lists)");
  app.add_option("-n,--objects", o.objects, "object counts")->delimiter(',');
  app.add_option("--walls", walls, "with, without or both")
      ->check(CLI::IsMember({"with", "without", "both"}));
  app.add_option("--dt", o.dts, "time steps [s]")->delimiter(',');
  app.add_option("--duration", o.duration, "simulated time per configuration [s]");
  app.add_option("--settled", o.settled, "length of the settled phase at the end [s]");
  app.add_option("--seed", o.seeds, "make_clutter.py --seed, one pile per seed (list)")
      ->delimiter(',');
  app.add_flag("--no-mujoco", no_mujoco, "csim only");
  bool no_stage_times = false;
  app.add_flag("--no-stage-times", no_stage_times,
               "do not time csim's stages (the split reads 0; the clock reads cost about 0.1 us "
               "a step)");
  app.add_option("--mujoco-budget", o.mujoco_budget,
                 "MuJoCo wall-time budget per configuration [s] (<= 0: none)");
  app.add_option("--csv", o.csv, "write one CSV row per configuration here");
  app.add_option("--python", o.python, "interpreter that runs the generator");
  app.add_option("--generator", o.generator, "path of tools/make_clutter.py");
  app.add_option("--threads", o.threads, "csim's contact-solve threads (islands in parallel)")
      ->check(CLI::PositiveNumber);
  app.add_option("--per-column", o.per_column,
                 "objects per column (make_clutter.py --columns ceil(N/P)); needs --walls without")
      ->check(CLI::PositiveNumber);
  app.add_option("--column-spacing", o.column_spacing,
                 "distance between columns [m] (make_clutter.py --column-spacing); needs --walls without")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeat", o.repeat,
                 "csim runs per configuration, fastest per window reported; the runs go round the "
                 "configurations; needs --no-mujoco")
      ->check(CLI::PositiveNumber);
  app.add_option("--contact-model", o.contact_model,
                 "csim's contact model (make_clutter.py --contact-model; MuJoCo keeps its own)")
      ->check(CLI::IsMember({"sap", "lagged", "lagged_regularized", "similar"}));
  app.add_option("--hunt-crossley", o.hunt_crossley,
                 "Hunt & Crossley dissipation d [s/m] of the materials with a Hunt & Crossley "
                 "contact model (default 10, the ICF paper's clutter)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--set", o.overrides,
                 "KEY=VALUE override of every configuration's scene, as csim --set (repeatable), "
                 "e.g. --set settings.stiction_sigma=1e-2");
  app.add_option("--compare", o.compare,
                 "KEY=VALUE of csim's solver (settings.solver.*, repeatable): after every step, "
                 "solve its contact problem again from its warm start with the run's settings "
                 "and with these, and report both (bench/paired_solve.h)");
  app.add_option("--scene", o.scenes,
                 "scene files to run instead of the clutter grid, each at its own time step "
                 "(the object, wall, dt, seed and column options do not apply)")
      ->check(CLI::ExistingFile);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    std::exit(code == 0 ? 0 : 2);
  }
  if (o.quick) ApplyQuick(&o);
  if (o.seeds.empty()) {
    std::fprintf(stderr, "csim_bench: --seed needs at least one seed\n");
    std::exit(2);
  }
  if (walls == "with") o.walls = {true};
  if (walls == "without") o.walls = {false};
  o.mujoco = !no_mujoco;
  o.stage_times = !no_stage_times;
  if (o.per_column > 0 && (o.walls.size() != 1 || o.walls[0])) {
    std::fprintf(stderr, "csim_bench: --per-column needs --walls without (the container holds four columns)\n");
    std::exit(2);
  }
  if (o.column_spacing > 0 && (o.walls.size() != 1 || o.walls[0])) {
    std::fprintf(stderr, "csim_bench: --column-spacing needs --walls without (the container holds the columns)\n");
    std::exit(2);
  }
  if (o.repeat > 1 && o.mujoco) {
    std::fprintf(stderr, "csim_bench: --repeat needs --no-mujoco (MuJoCo alternates with one csim run)\n");
    std::exit(2);
  }
  try {
    CheckComparedSettings(o.compare);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "csim_bench: %s\n", e.what());
    std::exit(2);
  }
  if (o.generator.empty()) o.generator = std::string(CSIM_SOURCE_DIR) + "/tools/make_clutter.py";
  return o;
}

ClutterConfig ClutterSamplingOptions::Config() const {
  ClutterConfig config;
  config.objects = objects;
  config.walls = walls == "with";
  config.dt = dt;
  config.seed = seed;
  return config;
}

void AddClutterSamplingOptions(CLI::App* app, ClutterSamplingOptions* o, int min_objects,
                               const std::string& sample) {
  app->add_option("-n,--objects", o->objects, "objects of the clutter")
      ->check(CLI::Range(min_objects, 400));
  app->add_option("--walls", o->walls, "with or without")
      ->check(CLI::IsMember({"with", "without"}));
  app->add_option("--dt", o->dt, "time step [s]")->check(CLI::PositiveNumber);
  app->add_option("--duration", o->duration, "simulated time [s]")->check(CLI::PositiveNumber);
  app->add_option("--skip", o->skip, "no " + sample + " before this time [s]")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--every", o->every, "a " + sample + " every this many steps")
      ->check(CLI::PositiveNumber);
  app->add_option("--seed", o->seed, "make_clutter.py --seed");
}

}  // namespace csim::bench
