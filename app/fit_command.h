#pragma once
// `csim fit` (docs/cli.md): fits material parameters of a scene to measured joint
// coordinates (a csim output file or a CSV) with Levenberg-Marquardt; the driver is
// engine/sim/trajectory_fit.h, this file reads the measurement, prints the report and
// writes FIT.h5 (docs/output-format.md "Fit files").

#include <string>
#include <vector>

namespace csim::app {

/// Options of `csim fit`.
struct FitOptions {
  std::string scene;                ///< scene file
  std::vector<std::string> data;    ///< --data MEAS (one for now)
  std::vector<std::string> params;  ///< --param PATH (repeatable; commas split too)
  std::vector<std::string> sets;    ///< --set PATH=VALUE, applied before the parameters
  std::string window;               ///< --window T0:T1, empty: every measurement time
  bool fit_initial_state = false;   ///< --fit-initial-state (refused so far)
  int max_iterations = 50;          ///< --max-iterations
  std::string output;               ///< -o FIT.h5; empty: none written
};

/// Reads MEAS: a csim output (/time, /state/q) or, for a name ending in .csv, rows of
/// `t, q_0, ..., q_{nq-1}` (comma- or space-separated; lines starting with '#' or not
/// starting with a number are skipped). Fills time and q (one vector per row).
void ReadMeasurement(const std::string& path, std::vector<double>* time,
                     std::vector<std::vector<double>>* q);

/// `csim fit`: exit 0 when the fit converged, 1 for a refused request (bad path, an
/// unidentifiable parameter, ...), 3 when it did not converge or a run failed, 4 for I/O.
int FitCommand(const FitOptions& options);

}  // namespace csim::app
