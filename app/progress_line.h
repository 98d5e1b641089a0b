#pragma once
// The one-line progress display of `csim run` (docs/cli.md): steps, simulated time,
// real-time factor and ETA, redrawn in place with '\r' on stderr about five times a second.
// No package provides one on Debian 12 and the need is small, so it is written here.

#include <cstdio>
#include <string>

#include "engine/sim/simulate.h"

namespace csim::app {

/// Formats "step 1200/5000  t 1.200/5.000 s  12.3x real time  ETA 0:03" (no '\r').
std::string FormatProgress(const sim::Progress& progress, double duration);

/// Formats a duration of wall time as "M:SS" or "H:MM:SS"; "--:--" when not finite.
std::string FormatEta(double seconds);

class ProgressLine {
 public:
  /// Draws on `out` (stderr) when `enabled`; otherwise every call does nothing.
  /// `duration` is the simulated time the run will reach [s].
  ProgressLine(std::FILE* out, bool enabled, double duration);
  /// Redraws the line; calls closer than `min_interval_` apart are skipped.
  void Update(const sim::Progress& progress);
  /// Erases the line so that the next message starts at column 0. Idempotent.
  void Clear();

 private:
  std::FILE* out_;
  bool enabled_;
  double duration_;                 ///< [s] simulated
  double last_draw_wall_ = -1.0;    ///< Progress::wall_time of the last draw [s]
  size_t drawn_width_ = 0;          ///< characters on screen, to blank a shorter line
  static constexpr double kMinInterval = 0.2;  ///< [s] ~5 Hz
};

}  // namespace csim::app
