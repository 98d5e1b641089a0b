#pragma once
// `csim fit` (docs/cli.md): fits material parameters (and the runs' initial states) of a
// scene to measured joint coordinates (csim output files or CSVs, one run each) with
// Levenberg-Marquardt; the driver is engine/sim/trajectory_fit.h, this file reads the
// measurements, prints the report and writes FIT.h5 (docs/output-format.md "Fit files").

#include <string>
#include <vector>

namespace csim::app {

/// Options of `csim fit`.
struct FitOptions {
  std::string scene;                ///< scene file
  std::vector<std::string> data;    ///< --data MEAS (repeatable: an ensemble)
  std::vector<std::string> params;  ///< --param PATH (repeatable; commas split too)
  std::vector<std::string> sets;    ///< --set PATH=VALUE, applied before the parameters
  std::string window;               ///< --window T0:T1, empty: every measurement time
  std::string initial_state;        ///< --initial-state scene|data; empty: scene
  bool fit_initial_state = false;   ///< --fit-initial-state
  std::vector<std::string> observe; ///< --observe JOINT[,JOINT...] (repeatable)
  std::string sigma;                ///< --sigma POSITION,ANGLE; empty: unweighted
  int max_iterations = 50;          ///< --max-iterations
  std::string output;               ///< -o FIT.h5; empty: none written
};

/// A measurement file as read, before it is matched to the scene.
struct MeasurementFile {
  std::vector<double> time;              ///< (N) increasing [s]
  std::vector<std::vector<double>> q;    ///< (N) rows, all of one width
  std::vector<std::vector<double>> v;    ///< (N) rows of /state/v; empty for a CSV
  std::vector<int> lines;                ///< (N) 1-based line of each CSV row; empty for HDF5
};

/// Reads MEAS: a csim output (/time, /state/q, /state/v when present) or, for a name ending
/// in .csv, rows of `t, q...` (comma, semicolon, tab or space separated; blank lines, lines
/// starting with '#' and header lines before the first row of numbers are skipped). A row
/// that is not all numbers, a row of another width or a time that does not increase is an
/// InputError naming the file and line.
MeasurementFile ReadMeasurement(const std::string& path);

/// `csim fit`: exit 0 when the fit converged, 1 for a refused request (bad path, an
/// unidentifiable parameter, ...), 3 when it did not converge or a run failed, 4 for I/O.
int FitCommand(const FitOptions& options);

}  // namespace csim::app
