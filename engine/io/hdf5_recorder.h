#pragma once
// Writes a run to an HDF5 file laid out as docs/output-format.md (version 1).
//
// Streaming design (HDF5 single-writer/multiple-reader mode, SWMR):
// - Begin creates every group, dataset, attribute and dimension scale, then switches the
//   file to SWMR writing; nothing is created afterwards, as SWMR requires.
// - Record copies the row into chunk-sized buffers preallocated at Begin (contact buffers
//   grow geometrically), so the per-step path does not allocate once warmed up.
// - Rows go to disk in whole chunks, and also when a second of wall time has passed since
//   the last flush; each flush extends every dataset, writes, and H5Dflush-es it with
//   /time last, so len(/time) counts complete rows. Flushing every few rows makes a run
//   several times slower and its file much larger; never flushing loses the run on a
//   crash. The clock is only read in Record and Heartbeat, which the run loop calls after
//   every step, so a buffered row waits at most one flush interval plus one step (plus the
//   write).
// - The writes run on a background thread (background_job.h) while the next rows fill the
//   other of two buffers per dataset: shuffle + gzip of the rows is a sizeable share of a
//   large run's wall time. One write is in flight at most, and the run loop calls HDF5
//   only when none is (a flush first waits for the last write), so the library is never
//   entered from two threads at once. A write's error surfaces as
//   IoError at the next flush (from Record or Heartbeat) or at Finish.
// - The first row (the initial state) is flushed as soon as it is recorded, and waited for.
// - A run killed even with SIGKILL leaves a file at the final path that opens in SWMR read
//   mode with every row up to the last flush (at least the initial state, once recorded)
//   and /status "running".
// - A write that fails ends the run with IoError (csim exits 4); /status stays "running".
//   The file is then abandoned, not closed (AbandonFile): it is left as a killed run
//   leaves it, with every row flushed before. Closing it flushed metadata and a superblock
//   whose end of allocation lay past the end of the file when it could not grow (EFBIG
//   under a file-size limit), and the file did not open at all ("truncated file").
// - One writer per file: Begin takes a lock of its own on the output (LockOutput) before
//   creating it and holds it until Finish or destruction; a second recorder on the same
//   path fails with IoError and leaves the first one's file alone. Readers are not
//   affected.
// - Finish writes the final /status in place (a fixed-length string, rewritable under
//   SWMR) and closes. For a failed run, the file is reopened normally after the SWMR
//   session to add the `failure_reason` root attribute, and /status becomes "failed" only
//   then, so no reader sees "failed" without its reason.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/background_job.h"
#include "engine/io/hdf5_file.h"
#include "engine/sim/recorder.h"

namespace csim::io {

/// A sim::Recorder that streams rows to an HDF5 file (output-format.md).
/// Not thread-safe: one run loop calls Begin, Record..., Finish in order (the writes it
/// hands to its own background thread are serialized with it).
class Hdf5Recorder final : public sim::Recorder {
 public:
  /// `path`: the output file, locked and created (truncated) at Begin. Nothing is touched
  /// before.
  explicit Hdf5Recorder(std::string path);
  /// Flushes buffered rows (best effort, errors ignored) and closes the file if Finish was
  /// not called; /status stays "running", as after a crash. After a failed write the file
  /// is abandoned instead (AbandonFile). Releases the lock on the output.
  ~Hdf5Recorder() override;
  Hdf5Recorder(const Hdf5Recorder&) = delete;
  Hdf5Recorder& operator=(const Hdf5Recorder&) = delete;

  /// Locks the output, creates the file and its whole layout, then starts SWMR writing.
  /// Requires info.model and info.settings. Throws IoError if the file cannot be created
  /// or another process (or recorder) is writing it; that file is then left untouched.
  void Begin(const sim::RunInfo& info) override;
  /// Buffers one row; writes and flushes the first row at once, then on chunk boundaries
  /// and after 1 s of wall time.
  /// The row's q, v and body arrays must have the model's sizes. Throws IoError if a
  /// write fails.
  void Record(const sim::Row& row) override;
  /// Flushes buffered rows when the last flush is older than the flush interval.
  void Heartbeat() override;
  /// Buffers a traced step's Newton history for /solver_trace (created at Begin when the
  /// settings trace some step); it is written with the next flush of rows.
  void RecordSolverTrace(int64_t step, const std::vector<solver::NewtonTraceRow>& rows) override;
  /// Flushes the remaining rows, writes /status (and failure_reason for kFailed; `reason`
  /// empty gives "unknown failure") and closes the file. No-op if Begin did not succeed
  /// or Finish was already called. Throws IoError if a write fails.
  void Finish(sim::RunStatus status, const std::string& reason) override;

  /// Output path as given.
  const std::string& path() const { return path_; }
  /// Rows per chunk of the time series (0 before Begin): at most 512, fewer when a row of
  /// the widest series is large, so one chunk stays near 1 MiB (HDF5's default cache).
  int64_t chunk_rows() const { return chunk_rows_; }
  /// Rows written and flushed so far (what a SWMR reader sees as len(/time)), after
  /// waiting for the write in flight.
  int64_t flushed_rows();

 private:
  /// Begin's HDF5 part: attributes, /status, the scene, the model and the empty series.
  void WriteLayout(const sim::RunInfo& info);
  struct Layout;  // datasets and row buffers, defined in hdf5_recorder.cc

  /// Hands every row buffered since the last flush to the background writer (after the
  /// previous write is done; rethrows its error).
  void FlushRows();
  /// On the writer thread: writes the back buffers and flushes the datasets, /time last.
  void WriteBackBuffers();
  /// Copies one row into buffer slot `slot`.
  void BufferRow(const sim::Row& row, int64_t slot);
  /// BufferRow's part for the row's hydroelastic surfaces and, when recorded, polygons.
  void BufferSurfaces(const sim::Row& row, int64_t slot);
  /// Closes every dataset, then the file (throws IoError if closing fails).
  void CloseFile();
  /// Reopens the closed file without SWMR to record a failed run's reason and status.
  void MarkFailed(const std::string& reason);
  /// After a failed write: drops every HDF5 handle without closing it, so nothing more is
  /// written and the file stays as a killed run would leave it.
  void AbandonFile();
  /// Opens path_ (creating it, never truncating) and takes an exclusive open file
  /// description lock on it, held in lock_fd_. Returns true if it created the file.
  /// Throws IoError if the file cannot be opened or another writer holds the lock.
  bool LockOutput();
  /// Releases the lock (no-op without one).
  void UnlockOutput();

  std::string path_;
  Hdf5File file_;                  // destroyed last: datasets close before the file
  std::unique_ptr<Layout> layout_;
  std::unique_ptr<BackgroundJob> writer_;  // runs WriteBackBuffers; reset before layout_
  int64_t chunk_rows_ = 0;
  int64_t pending_rows_ = 0;       // rows in the front buffers, not yet handed over
  int64_t submitted_rows_ = 0;     // rows handed to the writer (written or in flight)
  int64_t back_rows_ = 0;          // rows and contacts of the write in flight
  int64_t back_contacts_ = 0;
  int64_t back_surfaces_ = 0;
  int64_t back_polygons_ = 0;
  int64_t back_vertices_ = 0;
  int64_t flushed_rows_ = 0;       // rows the writer has written and flushed
  int64_t recorded_contacts_ = 0;  // contacts of every recorded row: the next offset
  int64_t recorded_surfaces_ = 0;  // hydroelastic surfaces of every recorded row: likewise
  int64_t recorded_polygons_ = 0;  // their polygons (output.contact_surfaces): likewise
  int64_t recorded_vertices_ = 0;  // the polygons' vertices: likewise
  std::chrono::steady_clock::time_point last_flush_;
  int lock_fd_ = -1;               // descriptor holding the lock on path_, -1: none
  bool write_failed_ = false;      // a background write threw (set on the writer thread)
  bool begun_ = false;
  bool finished_ = false;
};

}  // namespace csim::io
