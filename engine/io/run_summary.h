#pragma once
// `csim info RUN.h5` (cli.md): a human-readable summary of an output file written by
// Hdf5Recorder (output-format.md). Reads in SWMR mode, so it also describes a run that is
// still being written (or was killed): it then counts the rows flushed so far.

#include <string>

namespace csim::io {

/// Returns a multi-line summary of the run in `h5_path`, one "label  value" line each:
/// scene name and file, csim version, creation time, status (with failure_reason), the
/// settings used (time step, duration, integrator with theta/theta_q, contact model),
/// nq/nv/bodies, rows and step range, time range, solver statistics (mean and max Newton
/// iterations, max momentum error, total and mean wall time per step; the row of step 0,
/// the initial state, is left out as no step produced it) and, when recorded, contacts
/// (max per step, total). Ends with a newline.
/// Throws IoError if the file cannot be opened or is not a csim output file.
std::string DescribeRun(const std::string& h5_path);

}  // namespace csim::io
