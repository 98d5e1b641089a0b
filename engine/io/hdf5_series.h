#pragma once
// The double-buffered datasets Hdf5Recorder streams a run into (hdf5_recorder.h,
// "Streaming design"), shared by the writers of its groups (solver_trace_recorder.h).
//
// Two kinds, by how many values a row brings:
// - Series: one row of a fixed shape per recorded step (/time, /state/q, ...). Its buffers
//   hold one chunk of rows each, allocated once, so buffering a row never allocates.
// - FlatSeries: any number of values per step, stored flat (per contact, surface,
//   polygon, vertex, traced step or traced iteration); a per-row offset and count, written
//   by the owner, say which values belong to which row. Its buffers grow geometrically and
//   keep their capacity.
// Both fill a front buffer on the run loop's thread; a flush swaps the buffers and the
// background writer appends the back one while the next values fill the front.

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "engine/io/hdf5_file.h"

namespace csim::io {

/// Values per chunk of a FlatSeries dataset.
constexpr hsize_t kFlatChunkRows = 1024;
/// Values a FlatSeries' buffers hold before their first (geometric) growth.
constexpr size_t kInitialFlatCapacity = 1024;

/// The file's element type for a buffer's element type T.
template <typename T>
constexpr Hdf5Type TypeOf();
template <>
constexpr Hdf5Type TypeOf<double>() { return Hdf5Type::kFloat64; }
template <>
constexpr Hdf5Type TypeOf<int32_t>() { return Hdf5Type::kInt32; }
template <>
constexpr Hdf5Type TypeOf<int64_t>() { return Hdf5Type::kInt64; }
template <>
constexpr Hdf5Type TypeOf<int8_t>() { return Hdf5Type::kInt8; }

/// Sets the `units` and `description` attributes every dataset carries.
inline void Describe(Hdf5Dataset& dataset, const char* units, const char* description) {
  dataset.SetAttribute("units", units);
  dataset.SetAttribute("description", description);
}

/// One time series: its extendible dataset and two buffers of one chunk of rows each.
template <typename T>
class Series {
 public:
  Series() = default;
  /// Creates dataset `path` of shape (0, row_shape...), compressed at `gzip` (0: none), and
  /// buffers of `chunk_rows` rows.
  Series(Hdf5Group& root, const char* path, const std::vector<hsize_t>& row_shape,
         hsize_t chunk_rows, int gzip, const char* units, const char* description)
      : dataset_(root.CreateExtendible(path, TypeOf<T>(), row_shape, chunk_rows, gzip)),
        row_size_(static_cast<int64_t>(dataset_.row_size())) {
    Describe(dataset_, units, description);
    front_.resize(chunk_rows * row_size_);
    back_.resize(front_.size());
  }
  /// Start of front buffer slot `slot` (row_size_ elements). Reads no member of the
  /// dataset, which the writer thread may be extending meanwhile.
  T* Row(int64_t slot) { return front_.data() + slot * row_size_; }
  /// The buffered rows become the back buffer's; the front is free for the next ones.
  void Swap() { front_.swap(back_); }
  /// Appends the first `rows` rows of the back buffer to the file and flushes the dataset.
  void WriteBack(int64_t rows) {
    dataset_.AppendRows(back_.data(), static_cast<hsize_t>(rows));
    dataset_.Flush();
  }
  Hdf5Dataset& dataset() { return dataset_; }

 private:
  Hdf5Dataset dataset_;
  int64_t row_size_ = 0;  // elements per row
  std::vector<T> front_, back_;
};

/// One flat dataset, (M,) or (M, 3), with any count of values per recorded step.
template <typename T>
class FlatSeries {
 public:
  FlatSeries() = default;
  /// Creates dataset `path` of shape (0, row_shape...), compressed at `gzip` (0: none).
  FlatSeries(Hdf5Group& root, const char* path, const std::vector<hsize_t>& row_shape,
             int gzip, const char* units, const char* description)
      : dataset_(root.CreateExtendible(path, TypeOf<T>(), row_shape, kFlatChunkRows, gzip)) {
    Describe(dataset_, units, description);
    front_.reserve(kInitialFlatCapacity * dataset_.row_size());
    back_.reserve(front_.capacity());
  }
  void Push(T value) { front_.push_back(value); }
  void Push(const Eigen::Vector3d& value) {
    front_.insert(front_.end(), value.data(), value.data() + 3);
  }
  /// The pending values become the back buffer's. The last write emptied the old back
  /// buffer, unless it failed: what it left is dropped, not appended to.
  void Swap() {
    front_.swap(back_);
    front_.clear();
  }
  /// Appends the back buffer's `count` values (rows of the dataset), flushes the dataset,
  /// empties the buffer.
  void WriteBack(int64_t count) {
    dataset_.AppendRows(back_.data(), static_cast<hsize_t>(count));
    dataset_.Flush();
    back_.clear();
  }
  Hdf5Dataset& dataset() { return dataset_; }

 private:
  Hdf5Dataset dataset_;
  std::vector<T> front_, back_;
};

}  // namespace csim::io
