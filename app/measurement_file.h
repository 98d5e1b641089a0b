#pragma once
// The measurement files of `csim fit` (docs/cli.md, "--data"): a csim output file or a CSV
// read as it is (ReadMeasurement), then laid out in the scene's coordinates
// (ToMeasurement).

#include <string>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::app {

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

/// The file's rows in the scene's layout. A row holds t and either all nq coordinates or,
/// for a CSV with --observe (`observe`), only the observed joints' coordinates (each joint's
/// nq in --observe order); then the other joints' entries are the scene's initial
/// coordinates, which enter no residual. Throws InputError for an unknown observed joint or
/// a CSV row of neither width.
sim::Measurement ToMeasurement(const std::string& path, const MeasurementFile& file,
                               const multibody::Model& model,
                               const std::vector<std::string>& observe);

}  // namespace csim::app
