#include "app/progress_line.h"

#include <cmath>
#include <string>

namespace csim::app {

std::string FormatEta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e8) return "--:--";
  const long total = std::lround(seconds);
  const long h = total / 3600, m = (total / 60) % 60, s = total % 60;
  char buf[32];
  if (h > 0) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", h, m, s);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", m, s);
  }
  return buf;
}

std::string FormatProgress(const sim::Progress& p, double duration) {
  // Real-time factor: simulated seconds per wall second; ETA extrapolates it.
  const double rtf = p.wall_time > 0 ? p.time / p.wall_time : 0.0;
  const double eta = rtf > 0 ? (duration - p.time) / rtf : NAN;
  char buf[160];
  std::snprintf(buf, sizeof buf, "step %lld/%lld  t %.3f/%.3f s  %.3gx real time  ETA %s",
                static_cast<long long>(p.step), static_cast<long long>(p.total_steps), p.time,
                duration, rtf, FormatEta(eta).c_str());
  return buf;
}

ProgressLine::ProgressLine(std::FILE* out, bool enabled, double duration)
    : out_(out), enabled_(enabled), duration_(duration) {}

void ProgressLine::Update(const sim::Progress& progress) {
  if (!enabled_) return;
  if (last_draw_wall_ >= 0 && progress.wall_time - last_draw_wall_ < kMinInterval) return;
  last_draw_wall_ = progress.wall_time;
  std::string line = FormatProgress(progress, duration_);
  const size_t width = line.size();
  // Pad with blanks rather than an ANSI erase, so a forced --progress into a file stays clean.
  if (width < drawn_width_) line.append(drawn_width_ - width, ' ');
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
  drawn_width_ = width;
}

void ProgressLine::Clear() {
  if (!enabled_ || drawn_width_ == 0) return;
  std::fprintf(out_, "\r%s\r", std::string(drawn_width_, ' ').c_str());
  std::fflush(out_);
  drawn_width_ = 0;
}

}  // namespace csim::app
