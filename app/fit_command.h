#pragma once
// `csim fit` (docs/cli.md): fits material parameters (and the runs' initial states) of a
// scene to measured joint coordinates (csim output files or CSVs, one run each) with
// Levenberg-Marquardt. The driver is engine/sim/trajectory_fit.h; the measurement files are
// read by measurement_file.h, the report and FIT.h5 (docs/output-format.md "Fit files")
// written by fit_report.h.

#include <string>
#include <vector>

namespace csim::app {

/// Options of `csim fit`.
struct FitOptions {
  std::string scene;                ///< scene file
  std::vector<std::string> data;    ///< --data MEAS (repeatable: an ensemble)
  std::vector<std::string> params;  ///< --param PATH (repeatable; commas split too)
  std::vector<std::string> sets;    ///< --set PATH=VALUE, applied before the parameters
  std::vector<std::string> bounds;  ///< --bound PATH=LO:HI (repeatable)
  std::string window;               ///< --window T0:T1, empty: every measurement time
  std::string initial_state;        ///< --initial-state scene|data; empty: scene
  bool fit_initial_state = false;   ///< --fit-initial-state
  std::vector<std::string> observe; ///< --observe JOINT[,JOINT...] (repeatable)
  std::string sigma;                ///< --sigma POSITION,ANGLE; empty: unweighted
  int max_iterations = 50;          ///< --max-iterations
  std::string output;               ///< -o FIT.h5; empty: none written
};

/// `csim fit`: exit 0 when the fit converged, 1 for a refused request (bad path, an
/// unidentifiable parameter, ...), 3 when it did not converge or a run failed, 4 for I/O.
int FitCommand(const FitOptions& options);

}  // namespace csim::app
