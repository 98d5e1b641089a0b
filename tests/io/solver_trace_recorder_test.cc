// Tests of engine/io/solver_trace_recorder.cc: the /solver_trace layout of
// output-format.md ("Solver diagnostics") as written through two flushes, read back with
// the hdf5_file.h wrapper. Whole runs with --trace-solver are checked by
// tools/python/tests/test_solver_diagnostics.py.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "engine/io/hdf5_file.h"
#include "engine/io/solver_trace_recorder.h"

namespace csim::io {
namespace {

namespace fs = std::filesystem;

/// A traced step's history of `iterations` Newton iterations (iterations + 1 rows), with
/// values derived from `step` so that each row is told apart on reading.
std::vector<solver::NewtonTraceRow> History(int64_t step, int iterations) {
  std::vector<solver::NewtonTraceRow> rows;
  for (int m = 0; m <= iterations; ++m) {
    solver::NewtonTraceRow r;
    r.iteration = m;
    r.cost = -double(step) - 0.1 * m;
    r.gradient_norm = std::ldexp(1.0, -m);
    r.momentum_error = 0.01 * m;
    r.alpha = m < iterations ? 1.0 : std::numeric_limits<double>::quiet_NaN();
    r.merged = m == 1;
    rows.push_back(r);
  }
  return rows;
}

std::vector<int64_t> Ints(const Hdf5File& file, const char* path) {
  return file.OpenDataset(path).ReadInts();
}

TEST_CASE("SolverTraceRecorder writes traced steps flat, with offsets and counts", "[hdf5][trace]") {
  std::string dir = (fs::temp_directory_path() / "csim_trace_XXXXXX").string();
  REQUIRE(mkdtemp(dir.data()) != nullptr);
  const std::string path = dir + "/trace.h5";
  {
    Hdf5File file = Hdf5File::Create(path);
    SolverTraceRecorder trace(file, /*gzip=*/0);
    trace.Buffer(5, History(5, 2));
    trace.Buffer(7, History(7, 0));
    CHECK(trace.has_pending());
    trace.Swap();
    CHECK_FALSE(trace.has_pending());
    trace.WriteBack();
    trace.Buffer(60, History(60, 1));
    trace.Swap();
    trace.WriteBack();
  }
  const Hdf5File file = Hdf5File::Open(path, Hdf5File::Mode::kReadOnly);
  CHECK(Ints(file, "solver_trace/step") == std::vector<int64_t>{5, 7, 60});
  CHECK(Ints(file, "solver_trace/offset") == std::vector<int64_t>{0, 3, 4});
  CHECK(Ints(file, "solver_trace/count") == std::vector<int64_t>{3, 1, 2});
  CHECK(Ints(file, "solver_trace/iteration") == std::vector<int64_t>{0, 1, 2, 0, 0, 1});
  CHECK(Ints(file, "solver_trace/merged") == std::vector<int64_t>{0, 1, 0, 0, 0, 1});
  const std::vector<double> cost = file.OpenDataset("solver_trace/cost").ReadDoubles();
  CHECK(cost == std::vector<double>{History(5, 2)[0].cost, History(5, 2)[1].cost,
                                    History(5, 2)[2].cost, History(7, 0)[0].cost,
                                    History(60, 1)[0].cost, History(60, 1)[1].cost});
  const std::vector<double> alpha = file.OpenDataset("solver_trace/alpha").ReadDoubles();
  REQUIRE(alpha.size() == 6);
  CHECK(std::isnan(alpha[2]));
  CHECK(alpha[4] == 1.0);
  CHECK(file.OpenDataset("solver_trace/gradient_norm").ReadDoubles()[1] == 0.5);
  fs::remove_all(dir);
}

TEST_CASE("a default SolverTraceRecorder records nothing", "[hdf5][trace]") {
  SolverTraceRecorder trace;
  trace.Buffer(1, History(1, 3));
  CHECK_FALSE(trace.has_pending());
  trace.Swap();
  trace.WriteBack();  // no dataset to write: a no-op
  trace.AbandonDatasets();
}

}  // namespace
}  // namespace csim::io
