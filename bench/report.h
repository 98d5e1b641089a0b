#pragma once
// Output of csim_bench: a block per configuration on stdout, a summary table at the end,
// and optionally one CSV row per configuration (column list in bench/README.md).

#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "bench/paired_solve.h"
#include "bench/step_series.h"

namespace csim::bench {

/// Everything measured on one configuration.
struct ConfigResult {
  ClutterConfig config;
  std::string scene_command;        ///< the generator command
  double dt = 0.0;                  ///< [s]
  int steps = 0;                    ///< csim steps taken
  int settled_first = 0;            ///< first step of the settled window
  int last_second_first = 0;        ///< first step of the last simulated second
  int repeats = 1;                  ///< csim runs (--repeat); windows: the fastest run's
  double relative_tolerance = 0.0;  ///< csim's eps_r: SAP eq. 26 bounds the momentum error by it
  bool csim_failed = false;
  std::string csim_error;
  SeriesSummary csim_all, csim_settled;
  SeriesSummary csim_last_second;   ///< the last simulated second (the settled target's window)
  bool has_mujoco = false;
  int mujoco_steps = 0;             ///< MuJoCo steps taken (budget may cut them)
  std::string mujoco_note;          ///< why MuJoCo stopped early, if it did
  SeriesSummary mujoco_all, mujoco_settled, mujoco_last_second;
  SeriesSummary csim_common;        ///< csim over MuJoCo's steps [0, mujoco_steps)
  /// --compare: the compared settings (KEY=VALUE, space-separated; empty: none) and the
  /// paired solves of the first run's steps.
  std::string compared;
  PairedSummary paired;
};

/// Prints the detailed block of one configuration.
void PrintConfig(const ConfigResult& r, std::FILE* out);

/// Prints the summary table of every configuration (markdown).
void PrintSummary(const std::vector<ConfigResult>& results, std::FILE* out);

/// Writes the CSV header and rows.
void WriteCsv(const std::vector<ConfigResult>& results, const std::string& path);

}  // namespace csim::bench
