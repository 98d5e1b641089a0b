#pragma once
// A thin RAII layer over the HDF5 C API: only what the recorder (hdf5_recorder.h) and the
// run summary (run_summary.h) need, so that neither handles a raw hid_t.
//
// Design choices:
// - Every handle closes itself (Hdf5Id). Closing a file whose datasets are still open
//   would keep it open until the last one closes (HDF5's default "weak" close degree),
//   so owners destroy datasets before the file; Hdf5File::Close reports close errors.
// - Every failure becomes csim::IoError naming the file and the object. HDF5's own error
//   stack printing is silenced; its innermost message is appended to ours instead.
// - Element types are chosen by C++ overload (double, int32_t, int64_t), not templates,
//   so the header does not expose HDF5 type ids to callers.
// - Strings that label things are variable-length UTF-8 (h5py returns str, xarray can
//   select on them). The one exception is /status: a fixed-length string, because a
//   variable-length one lives in the global heap and cannot be rewritten under SWMR.

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace csim::io {

/// Owns one HDF5 identifier of any kind and closes it with the matching H5?close.
/// Move-only. An id < 0 means "empty".
class Hdf5Id {
 public:
  Hdf5Id() = default;
  /// Takes ownership of `id` (may be negative: empty).
  explicit Hdf5Id(hid_t id) : id_(id) {}
  ~Hdf5Id() { Reset(); }
  Hdf5Id(Hdf5Id&& other) noexcept : id_(other.Release()) {}
  Hdf5Id& operator=(Hdf5Id&& other) noexcept;
  Hdf5Id(const Hdf5Id&) = delete;
  Hdf5Id& operator=(const Hdf5Id&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Gives up ownership and returns the id.
  hid_t Release();
  /// Closes the id (if any), ignoring errors; returns the close call's result (< 0 on error).
  herr_t Reset();

 private:
  hid_t id_ = -1;
};

/// Silences HDF5's automatic error printing for the calling thread. Called by every
/// entry point below; cheap. Exposed for tests that use the C API directly.
void SilenceHdf5Errors();

/// Innermost message of the current HDF5 error stack ("" if none), e.g. "file signature
/// not found"; for a failed system call, just the system's message ("Permission denied").
std::string LastHdf5Error();

/// Empties the calling thread's HDF5 error stack (what LastHdf5Error reads). A thread
/// that ends after a failed call clears it first: the thread-safe HDF5 1.10.8 frees an
/// ending thread's stack but not the messages it copied into it, a leak.
void ClearHdf5Errors();

/// Common part of files, groups and datasets: a handle plus names for error messages,
/// and the attributes that any object can carry.
class Hdf5Object {
 public:
  hid_t id() const { return id_.get(); }
  bool valid() const { return id_.valid(); }
  /// Path of the file on disk.
  const std::string& file_name() const { return file_name_; }
  /// Path of the object inside the file ("/" for the root group).
  const std::string& path() const { return path_; }

  /// Creates or overwrites a scalar attribute. Strings are variable-length UTF-8.
  void SetAttribute(const std::string& name, const std::string& value);
  void SetAttribute(const std::string& name, const char* value) {
    SetAttribute(name, std::string(value));
  }
  void SetAttribute(const std::string& name, double value);
  void SetAttribute(const std::string& name, int32_t value);
  void SetAttribute(const std::string& name, int64_t value);

  bool HasAttribute(const std::string& name) const;
  /// Reads a scalar string attribute (variable- or fixed-length).
  std::string GetStringAttribute(const std::string& name) const;
  /// Reads a scalar numeric attribute converted to double.
  double GetDoubleAttribute(const std::string& name) const;
  /// Reads a scalar integer attribute converted to int64.
  int64_t GetIntAttribute(const std::string& name) const;

  /// Gives up the handle without closing it, so HDF5 writes nothing more for it: for a
  /// file whose writes failed, where closing would flush metadata that points past what
  /// reached the disk (see Hdf5Recorder). The library keeps the object open until exit.
  void Abandon() { id_.Release(); }

  /// Throws IoError "cannot <what> '<path>/<child>' in '<file>': <HDF5 message>".
  [[noreturn]] void Fail(const std::string& what, const std::string& child = "") const;

 protected:
  Hdf5Object() = default;
  Hdf5Object(Hdf5Id id, std::string file_name, std::string path)
      : id_(std::move(id)), file_name_(std::move(file_name)), path_(std::move(path)) {}
  /// Path of a child object named `name`.
  std::string ChildPath(const std::string& name) const;
  void WriteAttribute(const std::string& name, hid_t file_type, hid_t mem_type,
                      const void* value);
  void ReadAttribute(const std::string& name, hid_t mem_type, void* value) const;

  Hdf5Id id_;
  std::string file_name_;
  std::string path_;
};

/// A dataset: fixed-size (labels, scalars) or extendible along its first dimension (time
/// series). Rows are the slices along the first dimension.
class Hdf5Dataset : public Hdf5Object {
 public:
  Hdf5Dataset() = default;
  /// Wraps an open dataset id; reads its current shape.
  Hdf5Dataset(Hdf5Id id, std::string file_name, std::string path);

  /// Current shape (rank 0 for a scalar). Kept up to date by AppendRows and Refresh.
  const std::vector<hsize_t>& shape() const { return shape_; }
  /// Length of the first dimension (1 for a scalar).
  hsize_t rows() const { return shape_.empty() ? 1 : shape_[0]; }
  /// Number of elements in one row (product of the trailing dimensions).
  hsize_t row_size() const;

  /// Extends the first dimension by `count` rows and writes them from `data`, which holds
  /// count * row_size() elements in row-major order. Does not allocate on the heap
  /// beyond what HDF5 does internally. count == 0 is a no-op.
  void AppendRows(const double* data, hsize_t count);
  void AppendRows(const int32_t* data, hsize_t count);
  void AppendRows(const int64_t* data, hsize_t count);
  void AppendRows(const int8_t* data, hsize_t count);

  /// Overwrites a scalar fixed-length string dataset in place (truncated to its size).
  void WriteFixedString(const std::string& value);

  /// Flushes this dataset's data and metadata to disk (H5Dflush); SWMR readers see it.
  void Flush();
  /// Re-reads the shape from the file (H5Drefresh), for SWMR readers.
  void Refresh();

  /// Reads the first min(max_rows, rows()) rows, converted to the requested type.
  std::vector<double> ReadDoubles(hsize_t max_rows = ~hsize_t{0}) const;
  std::vector<int64_t> ReadInts(hsize_t max_rows = ~hsize_t{0}) const;
  /// Reads every element of a string dataset (variable- or fixed-length, any rank).
  std::vector<std::string> ReadStrings() const;
  /// Reads a scalar string dataset.
  std::string ReadString() const;

  /// Makes this dataset an HDF5 dimension scale named `name` (H5DSset_scale).
  void MakeDimensionScale(const std::string& name);
  /// Attaches the dimension scale `scale` to dimension `dim` of this dataset.
  void AttachDimensionScale(const Hdf5Dataset& scale, unsigned dim);

 private:
  void Append(hid_t mem_type, const void* data, hsize_t count);
  void Read(hid_t mem_type, hsize_t max_rows, void* data) const;
  /// Reads the current extent into shape_.
  void ReadShape();

  std::vector<hsize_t> shape_;
};

/// Element type of a numeric dataset in the file (always little-endian).
enum class Hdf5Type { kFloat64, kInt32, kInt64, kInt8 };

/// Turns off HDF5's printing of its error stack to stderr on the calling thread: the
/// wrapper reports errors itself, as IoError. Debian's HDF5 is the thread-safe build,
/// whose error settings are per thread, so a thread that calls HDF5 (Hdf5Recorder's
/// writer) calls this first; Hdf5File::Create and Open call it for theirs.
void SilenceHdf5Errors();

/// Keeps HDF5 from closing, at process exit, what is still open. Call first thing in
/// main, before any other HDF5 call (later it has no effect). Why: after a write failed
/// (disk full, file-size limit), closing the file fails and its id stays open; HDF5
/// 1.10.8's exit handler then crashed closing it (H5F__close_cb, SIGSEGV), after csim
/// had reported the I/O error. Every file csim writes is closed explicitly before exit,
/// so the handler had nothing else to do.
void DisableHdf5ExitCleanup();

/// A group; also the base of Hdf5File (whose root group it is).
class Hdf5Group : public Hdf5Object {
 public:
  Hdf5Group() = default;
  Hdf5Group(Hdf5Id id, std::string file_name, std::string path)
      : Hdf5Object(std::move(id), std::move(file_name), std::move(path)) {}

  Hdf5Group CreateGroup(const std::string& name);
  Hdf5Group OpenGroup(const std::string& name) const;
  /// True if a link `name` (a relative or absolute path) exists below this group.
  bool Exists(const std::string& name) const;
  Hdf5Dataset OpenDataset(const std::string& name) const;

  /// Scalar datasets.
  Hdf5Dataset CreateScalar(const std::string& name, int32_t value);
  /// A scalar variable-length UTF-8 string.
  Hdf5Dataset CreateString(const std::string& name, const std::string& value);
  /// A scalar fixed-length string of `size` bytes (null-padded), rewritable in SWMR mode.
  Hdf5Dataset CreateFixedString(const std::string& name, const std::string& value,
                                size_t size);
  /// A 1-D dataset of variable-length UTF-8 strings.
  Hdf5Dataset CreateStringList(const std::string& name,
                               const std::vector<std::string>& values);
  /// A 1-D int32 dataset.
  Hdf5Dataset CreateIntList(const std::string& name, const std::vector<int32_t>& values);

  /// An empty extendible dataset of shape (0, row_shape...) with an unlimited first
  /// dimension, chunks of `chunk_rows` rows, shuffle + gzip(`gzip_level`), or no filter at
  /// all for gzip_level 0.
  Hdf5Dataset CreateExtendible(const std::string& name, Hdf5Type type,
                               const std::vector<hsize_t>& row_shape, hsize_t chunk_rows,
                               int gzip_level = 4);
};

/// An HDF5 file; the object itself is the root group.
class Hdf5File : public Hdf5Group {
 public:
  /// How an existing file is opened.
  enum class Mode {
    kReadOnly,
    kReadWrite,
    /// Read-write without taking HDF5's file lock. With HDF5 1.10, SWMR readers hold a
    /// shared lock for as long as they keep the file open, which blocks kReadWrite; only
    /// for short edits of a file whose writer has closed (see Hdf5Recorder::Finish).
    kReadWriteUnlocked,
    /// Read-only, while a SWMR writer may still be appending. A piece of metadata whose
    /// checksum stays wrong (a corrupt file) fails after about a second of retries.
    kSwmrRead,
  };

  Hdf5File() = default;
  Hdf5File(Hdf5File&&) = default;
  Hdf5File& operator=(Hdf5File&&) = default;
  /// Closes quietly (errors are lost; call Close() to see them).
  ~Hdf5File() = default;

  /// Creates (truncates) a file with the latest format, as SWMR requires. With
  /// `file_locking` false, HDF5 takes no lock of its own on it: for a writer that already
  /// holds one (Hdf5Recorder), which a reader's HDF5 lock must then not block.
  static Hdf5File Create(const std::string& file_name, bool file_locking = true);
  /// Opens an existing file.
  static Hdf5File Open(const std::string& file_name, Mode mode);

  /// Switches a file opened for writing to SWMR writing (H5Fstart_swmr_write). No object
  /// or attribute may be created afterwards. Every attribute id must be closed.
  void StartSwmrWrite();
  /// Flushes everything in the file (H5Fflush).
  void FlushAll();
  /// Closes the file, throwing IoError if that fails. Objects opened from it should be
  /// destroyed first. No-op if already closed.
  void Close();
};

}  // namespace csim::io
