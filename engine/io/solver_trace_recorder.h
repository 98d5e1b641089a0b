#pragma once
// Records the Newton history of traced steps (`csim run --trace-solver`,
// Settings::trace_solver_steps) into /solver_trace (output-format.md, "Solver
// diagnostics"): per traced step its /step, the offset of its first iteration and its count
// of iterations; per iteration m its cost, scaled gradient norm, momentum error, line-search
// step length and whether deferred contacts merged.
//
// Hdf5Recorder owns one (it is not a sim::Recorder of its own) and streams it with its
// rows: the traced steps are buffered (Buffer), handed over at each flush of rows (Swap)
// and written by the recorder's background writer (WriteBack), so /solver_trace follows
// the recorder's SWMR and threading rules (hdf5_recorder.h). /solver/condition_number and
// /contacts/stiction_tolerance, the other solver diagnostics, are columns of the rows and
// contacts Hdf5Recorder writes anyway, so they stay there.

#include <cstdint>
#include <vector>

#include "engine/io/hdf5_series.h"
#include "engine/solver/newton_trace.h"

namespace csim::io {

/// The /solver_trace datasets with their buffers. Default-constructed, it records nothing
/// (no step is traced) and every method is a no-op.
class SolverTraceRecorder {
 public:
  SolverTraceRecorder() = default;
  /// Creates /solver_trace and its (empty) datasets in `file`, compressed at `gzip`
  /// (0: none). Call before the file starts SWMR writing.
  SolverTraceRecorder(Hdf5File& file, int gzip);

  /// Buffers traced step `step`'s Newton history `rows` (iteration 0, the initial guess,
  /// first); nothing reaches the file before the next Swap and WriteBack.
  void Buffer(int64_t step, const std::vector<solver::NewtonTraceRow>& rows);
  /// True when steps were buffered since the last Swap.
  bool has_pending() const { return pending_steps_ > 0; }
  /// The buffered steps become the back buffers' (the previous WriteBack must be done).
  void Swap();
  /// On the writer thread: appends the back buffers, iterations before the per-step
  /// datasets, /solver_trace/count last, and flushes every dataset.
  void WriteBack();
  /// Gives up every dataset handle without closing it (Hdf5Object::Abandon).
  void AbandonDatasets();

 private:
  /// Calls fn on every per-iteration series.
  template <typename Fn>
  void ForEachIterationSeries(Fn fn);
  /// Calls fn on every per-traced-step series, `count` last (readers take its length as
  /// the number of complete traced steps).
  template <typename Fn>
  void ForEachStepSeries(Fn fn);

  bool enabled_ = false;
  // Per traced step.
  FlatSeries<int64_t> step_, offset_;
  FlatSeries<int32_t> count_;
  // Per Newton iteration of the traced steps, flat as the contacts.
  FlatSeries<int32_t> iteration_;
  FlatSeries<double> cost_, gradient_norm_, momentum_error_, alpha_;
  FlatSeries<int8_t> merged_;
  int64_t recorded_rows_ = 0;  // iterations of every buffered step: the next offset
  int64_t pending_steps_ = 0;  // steps and iterations buffered since the last Swap
  int64_t pending_rows_ = 0;
  int64_t back_steps_ = 0;     // steps and iterations of the back buffers
  int64_t back_rows_ = 0;
};

}  // namespace csim::io
