#pragma once
// A recorder that keeps every row in memory: for tests and for studies driven from C++.

#include <cstdint>
#include <vector>

#include "engine/sim/recorder.h"

namespace csim::sim {

class MemoryRecorder : public Recorder {
 public:
  void Begin(const RunInfo& info) override { info_ = info; }
  void Record(const Row& row) override { rows_.push_back(row); }
  void RecordSolverTrace(int64_t step, const std::vector<solver::NewtonTraceRow>& rows) override {
    traces_.push_back({step, rows});
  }
  void Finish(RunStatus status, const std::string& reason) override {
    status_ = status;
    reason_ = reason;
  }

  const std::vector<Row>& rows() const { return rows_; }
  /// The traced steps' Newton histories, in step order.
  struct Trace {
    int64_t step = 0;
    std::vector<solver::NewtonTraceRow> rows;
  };
  const std::vector<Trace>& traces() const { return traces_; }
  RunStatus status() const { return status_; }
  const std::string& reason() const { return reason_; }

 private:
  RunInfo info_;
  std::vector<Row> rows_;
  std::vector<Trace> traces_;
  RunStatus status_ = RunStatus::kRunning;
  std::string reason_;
};

}  // namespace csim::sim
