#include "engine/io/solver_trace_recorder.h"

#include <utility>

namespace csim::io {

SolverTraceRecorder::SolverTraceRecorder(Hdf5File& file, int gzip) : enabled_(true) {
  file.CreateGroup("solver_trace");
  step_ = {file, "solver_trace/step", {}, gzip, "1",
           "traced step: the /step of the row it produced"};
  offset_ = {file, "solver_trace/offset", {}, gzip, "1",
             "index of the traced step's first iteration in the flat datasets"};
  count_ = {file, "solver_trace/count", {}, gzip, "1",
            "iterations recorded for the traced step: its Newton iterations + 1"};
  iteration_ = {file, "solver_trace/iteration", {}, gzip, "1",
                "Newton iteration m (0: the initial guess)"};
  cost_ = {file, "solver_trace/cost", {}, gzip, "J", "convex cost at iteration m"};
  gradient_norm_ = {file, "solver_trace/gradient_norm", {}, gzip, "sqrt(J)",
                    "norm of the gradient scaled by diag(A)^-1/2 (SAP eq. 26)"};
  momentum_error_ = {file, "solver_trace/momentum_error", {}, gzip, "1",
                     "dimensionless momentum error at iteration m (SAP eq. 32)"};
  alpha_ = {file, "solver_trace/alpha", {}, gzip, "1",
            "line-search step length from iteration m (smallest over islands); NaN at "
            "the last"};
  merged_ = {file, "solver_trace/merged", {}, gzip, "1",
             "1 where deferred contacts joined islands at iteration m (their cost counts "
             "from there: the cost may rise only at such an iteration)"};
}

template <typename Fn>
void SolverTraceRecorder::ForEachIterationSeries(Fn fn) {
  fn(iteration_), fn(cost_), fn(gradient_norm_), fn(momentum_error_), fn(alpha_), fn(merged_);
}

template <typename Fn>
void SolverTraceRecorder::ForEachStepSeries(Fn fn) {
  fn(step_), fn(offset_), fn(count_);
}

void SolverTraceRecorder::Buffer(int64_t step, const std::vector<solver::NewtonTraceRow>& rows) {
  if (!enabled_) return;
  step_.Push(step);
  offset_.Push(recorded_rows_);
  count_.Push(static_cast<int32_t>(rows.size()));
  for (const solver::NewtonTraceRow& r : rows) {
    iteration_.Push(r.iteration);
    cost_.Push(r.cost);
    gradient_norm_.Push(r.gradient_norm);
    momentum_error_.Push(r.momentum_error);
    alpha_.Push(r.alpha);
    merged_.Push(static_cast<int8_t>(r.merged));
  }
  recorded_rows_ += static_cast<int64_t>(rows.size());
  ++pending_steps_;
  pending_rows_ += static_cast<int64_t>(rows.size());
}

void SolverTraceRecorder::Swap() {
  if (!enabled_) return;
  ForEachIterationSeries([](auto& series) { series.Swap(); });
  ForEachStepSeries([](auto& series) { series.Swap(); });
  back_steps_ = std::exchange(pending_steps_, 0);
  back_rows_ = std::exchange(pending_rows_, 0);
}

void SolverTraceRecorder::WriteBack() {
  if (!enabled_) return;
  // What the steps point at goes first, so a reader never sees an offset past the end.
  ForEachIterationSeries([&](auto& series) { series.WriteBack(back_rows_); });
  ForEachStepSeries([&](auto& series) { series.WriteBack(back_steps_); });
}

void SolverTraceRecorder::AbandonDatasets() {
  if (!enabled_) return;
  ForEachIterationSeries([](auto& series) { series.dataset().Abandon(); });
  ForEachStepSeries([](auto& series) { series.dataset().Abandon(); });
}

}  // namespace csim::io
