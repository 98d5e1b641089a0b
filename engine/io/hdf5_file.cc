#include "engine/io/hdf5_file.h"

#include <hdf5_hl.h>

#include <algorithm>
#include <array>
#include <utility>

#include "engine/common/check.h"
#include "engine/common/io_error.h"

namespace csim::io {
namespace {

/// Largest rank of the datasets csim writes, (N, nb, 4), with room to spare; fixed-size
/// arrays of this length keep AppendRows free of heap allocation.
constexpr int kMaxRank = 8;
using Dims = std::array<hsize_t, kMaxRank>;

/// A variable-length UTF-8 string type (caller owns the id).
Hdf5Id VariableStringType() {
  Hdf5Id type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

/// File type of a numeric dataset: little-endian, so files are portable.
hid_t FileType(Hdf5Type type) {
  switch (type) {
    case Hdf5Type::kFloat64: return H5T_IEEE_F64LE;
    case Hdf5Type::kInt32: return H5T_STD_I32LE;
    case Hdf5Type::kInt64: return H5T_STD_I64LE;
    case Hdf5Type::kInt8: return H5T_STD_I8LE;
  }
  return H5T_IEEE_F64LE;
}

/// Decodes `count` strings stored with `file_type` (variable- or fixed-length); `read`
/// fills a buffer given the memory type to read with. Returns false if `read` fails.
template <typename ReadFn>
bool DecodeStrings(hid_t file_type, size_t count, ReadFn read, std::vector<std::string>* out) {
  // Reading with a copy of the file type avoids charset conversion, which HDF5 refuses.
  Hdf5Id mem_type(H5Tcopy(file_type));
  out->clear();
  if (H5Tis_variable_str(file_type) > 0) {
    std::vector<char*> pointers(count, nullptr);
    if (count > 0 && read(mem_type.get(), pointers.data()) < 0) return false;
    for (char* p : pointers) {
      out->emplace_back(p ? p : "");
      H5free_memory(p);
    }
    return true;
  }
  const size_t size = H5Tget_size(file_type);
  std::vector<char> bytes(count * size);
  if (count > 0 && read(mem_type.get(), bytes.data()) < 0) return false;
  for (size_t i = 0; i < count; ++i) {
    std::string s(bytes.data() + i * size, size);
    // Null- or space-padded: strip the padding (and a terminator).
    s.erase(std::min(s.find('\0'), s.size()));
    if (H5Tget_strpad(file_type) == H5T_STR_SPACEPAD) s.erase(s.find_last_not_of(' ') + 1);
    out->push_back(std::move(s));
  }
  return true;
}

/// Per-dimension product, from `first` on.
hsize_t Product(const std::vector<hsize_t>& dims, size_t first) {
  hsize_t n = 1;
  for (size_t i = first; i < dims.size(); ++i) n *= dims[i];
  return n;
}

/// The callback of LastHdf5Error: keeps the first (innermost) description.
herr_t KeepInnermost(unsigned n, const H5E_error2_t* err, void* data) {
  if (n == 0 && err->desc) *static_cast<std::string*>(data) = err->desc;
  return 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Hdf5Id

Hdf5Id& Hdf5Id::operator=(Hdf5Id&& other) noexcept {
  if (this != &other) {
    Reset();
    id_ = other.Release();
  }
  return *this;
}

hid_t Hdf5Id::Release() {
  hid_t id = id_;
  id_ = -1;
  return id;
}

herr_t Hdf5Id::Reset() {
  if (id_ < 0) return 0;
  hid_t id = Release();
  switch (H5Iget_type(id)) {
    case H5I_FILE: return H5Fclose(id);
    case H5I_GROUP: return H5Gclose(id);
    case H5I_DATASET: return H5Dclose(id);
    case H5I_ATTR: return H5Aclose(id);
    case H5I_DATATYPE: return H5Tclose(id);
    case H5I_DATASPACE: return H5Sclose(id);
    case H5I_GENPROP_LST: return H5Pclose(id);
    default: return H5Idec_ref(id) < 0 ? -1 : 0;
  }
}

// ---------------------------------------------------------------------------------------
// Errors

std::string LastHdf5Error() {
  std::string message;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, KeepInnermost, &message);
  // System errors read "unable to open file: name = ..., errno = 2, error message = 'No
  // such file or directory', flags = ...": keep just the system's message.
  const std::string key = "error message = '";
  const size_t start = message.find(key);
  if (start != std::string::npos) {
    const size_t end = message.find('\'', start + key.size());
    if (end != std::string::npos)
      return message.substr(start + key.size(), end - start - key.size());
  }
  return message;
}

// ---------------------------------------------------------------------------------------
// Hdf5Object

std::string Hdf5Object::ChildPath(const std::string& name) const {
  if (name.empty()) return path_;
  if (name[0] == '/') return name;
  return path_ == "/" ? "/" + name : path_ + "/" + name;
}

void Hdf5Object::Fail(const std::string& what, const std::string& child) const {
  // Read HDF5's message first: any later HDF5 call would clear its error stack.
  std::string detail = LastHdf5Error();
  std::string message = "cannot " + what + " '" + ChildPath(child) + "' in '" + file_name_ + "'";
  if (!detail.empty()) message += ": " + detail;
  throw IoError(message);
}

void Hdf5Object::WriteAttribute(const std::string& name, hid_t file_type, hid_t mem_type,
                                const void* value) {
  // Replacing is simpler than checking that an existing attribute has the same type.
  if (H5Aexists(id(), name.c_str()) > 0 && H5Adelete(id(), name.c_str()) < 0)
    Fail("replace attribute " + name + " of");
  Hdf5Id space(H5Screate(H5S_SCALAR));
  Hdf5Id attr(H5Acreate2(id(), name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) Fail("create attribute " + name + " of");
  if (H5Awrite(attr.get(), mem_type, value) < 0) Fail("write attribute " + name + " of");
}

void Hdf5Object::SetAttribute(const std::string& name, const std::string& value) {
  Hdf5Id type = VariableStringType();
  const char* p = value.c_str();
  WriteAttribute(name, type.get(), type.get(), &p);
}

void Hdf5Object::SetAttribute(const std::string& name, double value) {
  WriteAttribute(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void Hdf5Object::SetAttribute(const std::string& name, int32_t value) {
  WriteAttribute(name, H5T_STD_I32LE, H5T_NATIVE_INT32, &value);
}

void Hdf5Object::SetAttribute(const std::string& name, int64_t value) {
  WriteAttribute(name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

bool Hdf5Object::HasAttribute(const std::string& name) const {
  return H5Aexists(id(), name.c_str()) > 0;
}

void Hdf5Object::ReadAttribute(const std::string& name, hid_t mem_type, void* value) const {
  Hdf5Id attr(H5Aopen(id(), name.c_str(), H5P_DEFAULT));
  if (!attr.valid()) Fail("open attribute " + name + " of");
  if (H5Aread(attr.get(), mem_type, value) < 0) Fail("read attribute " + name + " of");
}

std::string Hdf5Object::GetStringAttribute(const std::string& name) const {
  Hdf5Id attr(H5Aopen(id(), name.c_str(), H5P_DEFAULT));
  if (!attr.valid()) Fail("open attribute " + name + " of");
  Hdf5Id type(H5Aget_type(attr.get()));
  if (H5Tget_class(type.get()) != H5T_STRING) Fail("read string attribute " + name + " of");
  std::vector<std::string> values;
  auto read = [&](hid_t mem, void* buf) { return H5Aread(attr.get(), mem, buf); };
  if (!DecodeStrings(type.get(), 1, read, &values)) Fail("read attribute " + name + " of");
  return values.front();
}

double Hdf5Object::GetDoubleAttribute(const std::string& name) const {
  double value = 0.0;
  ReadAttribute(name, H5T_NATIVE_DOUBLE, &value);
  return value;
}

int64_t Hdf5Object::GetIntAttribute(const std::string& name) const {
  int64_t value = 0;
  ReadAttribute(name, H5T_NATIVE_INT64, &value);
  return value;
}

// ---------------------------------------------------------------------------------------
// Hdf5Dataset

Hdf5Dataset::Hdf5Dataset(Hdf5Id id, std::string file_name, std::string path)
    : Hdf5Object(std::move(id), std::move(file_name), std::move(path)) {
  ReadShape();
}

hsize_t Hdf5Dataset::row_size() const { return Product(shape_, 1); }

void Hdf5Dataset::AppendRows(const double* data, hsize_t count) {
  Append(H5T_NATIVE_DOUBLE, data, count);
}

void Hdf5Dataset::AppendRows(const int32_t* data, hsize_t count) {
  Append(H5T_NATIVE_INT32, data, count);
}

void Hdf5Dataset::AppendRows(const int64_t* data, hsize_t count) {
  Append(H5T_NATIVE_INT64, data, count);
}

void Hdf5Dataset::AppendRows(const int8_t* data, hsize_t count) {
  Append(H5T_NATIVE_INT8, data, count);
}

void Hdf5Dataset::Append(hid_t mem_type, const void* data, hsize_t count) {
  CSIM_CHECK(!shape_.empty() && shape_.size() <= static_cast<size_t>(kMaxRank));
  if (count == 0) return;
  const hsize_t first = shape_[0];
  shape_[0] += count;
  if (H5Dset_extent(id(), shape_.data()) < 0) {
    shape_[0] = first;
    Fail("extend dataset");
  }
  if (row_size() == 0) return;  // a (N, 0) series: nothing to write
  // Select rows [first, first + count) of the file and the whole memory block.
  const int rank = static_cast<int>(shape_.size());
  Dims start{}, block{};
  std::copy(shape_.begin(), shape_.end(), block.begin());
  start[0] = first;
  block[0] = count;
  Hdf5Id file_space(H5Dget_space(id()));
  Hdf5Id mem_space(H5Screate_simple(rank, block.data(), nullptr));
  if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                          block.data(), nullptr) < 0 ||
      H5Dwrite(id(), mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
    Fail("append rows to dataset");
}

void Hdf5Dataset::WriteFixedString(const std::string& value) {
  Hdf5Id type(H5Dget_type(id()));
  const size_t size = H5Tget_size(type.get());
  std::string padded = value.substr(0, size);
  padded.resize(size, '\0');
  if (H5Dwrite(id(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, padded.data()) < 0)
    Fail("write string dataset");
}

void Hdf5Dataset::Flush() {
  if (H5Dflush(id()) < 0) Fail("flush dataset");
}

void Hdf5Dataset::Refresh() {
  if (H5Drefresh(id()) < 0) Fail("refresh dataset");
  ReadShape();
}

void Hdf5Dataset::ReadShape() {
  Hdf5Id space(H5Dget_space(id()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || rank > kMaxRank) Fail("read the shape of dataset");
  shape_.assign(rank, 0);
  H5Sget_simple_extent_dims(space.get(), shape_.data(), nullptr);
}

void Hdf5Dataset::Read(hid_t mem_type, hsize_t max_rows, void* data) const {
  if (shape_.empty()) {
    if (H5Dread(id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) Fail("read dataset");
    return;
  }
  Dims start{}, block{};
  std::copy(shape_.begin(), shape_.end(), block.begin());
  block[0] = std::min(max_rows, shape_[0]);
  if (block[0] * row_size() == 0) return;
  const int rank = static_cast<int>(shape_.size());
  Hdf5Id file_space(H5Dget_space(id()));
  Hdf5Id mem_space(H5Screate_simple(rank, block.data(), nullptr));
  if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                          block.data(), nullptr) < 0 ||
      H5Dread(id(), mem_type, mem_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
    Fail("read dataset");
}

std::vector<double> Hdf5Dataset::ReadDoubles(hsize_t max_rows) const {
  std::vector<double> values(std::min(max_rows, rows()) * row_size());
  Read(H5T_NATIVE_DOUBLE, max_rows, values.data());
  return values;
}

std::vector<int64_t> Hdf5Dataset::ReadInts(hsize_t max_rows) const {
  std::vector<int64_t> values(std::min(max_rows, rows()) * row_size());
  Read(H5T_NATIVE_INT64, max_rows, values.data());
  return values;
}

std::vector<std::string> Hdf5Dataset::ReadStrings() const {
  Hdf5Id type(H5Dget_type(id()));
  if (H5Tget_class(type.get()) != H5T_STRING) Fail("read strings from non-string dataset");
  std::vector<std::string> values;
  auto read = [&](hid_t mem, void* buf) {
    return H5Dread(id(), mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  };
  if (!DecodeStrings(type.get(), Product(shape_, 0), read, &values)) Fail("read dataset");
  return values;
}

std::string Hdf5Dataset::ReadString() const {
  std::vector<std::string> values = ReadStrings();
  if (values.size() != 1) Fail("read a single string from dataset");
  return values.front();
}

void Hdf5Dataset::MakeDimensionScale(const std::string& name) {
  if (H5DSset_scale(id(), name.c_str()) < 0) Fail("make a dimension scale of");
}

void Hdf5Dataset::AttachDimensionScale(const Hdf5Dataset& scale, unsigned dim) {
  if (H5DSattach_scale(id(), scale.id(), dim) < 0)
    Fail("attach dimension scale " + scale.path() + " to");
}

// ---------------------------------------------------------------------------------------
// Hdf5Group

Hdf5Group Hdf5Group::CreateGroup(const std::string& name) {
  Hdf5Id group(H5Gcreate2(id(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!group.valid()) Fail("create group", name);
  return Hdf5Group(std::move(group), file_name_, ChildPath(name));
}

Hdf5Group Hdf5Group::OpenGroup(const std::string& name) const {
  Hdf5Id group(H5Gopen2(id(), name.c_str(), H5P_DEFAULT));
  if (!group.valid()) Fail("open group", name);
  return Hdf5Group(std::move(group), file_name_, ChildPath(name));
}

bool Hdf5Group::Exists(const std::string& name) const {
  // H5Lexists fails (rather than answering false) when an intermediate group is missing,
  // so test each prefix of the path in turn.
  size_t end = name.empty() || name[0] != '/' ? 0 : 1;
  while (end < name.size()) {
    end = std::min(name.find('/', end), name.size());
    if (H5Lexists(id(), name.substr(0, end).c_str(), H5P_DEFAULT) <= 0) return false;
    ++end;
  }
  return !name.empty();
}

Hdf5Dataset Hdf5Group::OpenDataset(const std::string& name) const {
  Hdf5Id dataset(H5Dopen2(id(), name.c_str(), H5P_DEFAULT));
  if (!dataset.valid()) Fail("open dataset", name);
  return Hdf5Dataset(std::move(dataset), file_name_, ChildPath(name));
}

Hdf5Dataset Hdf5Group::CreateScalar(const std::string& name, int32_t value) {
  Hdf5Id space(H5Screate(H5S_SCALAR));
  Hdf5Id dataset(H5Dcreate2(id(), name.c_str(), H5T_STD_I32LE, space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
  if (!dataset.valid() ||
      H5Dwrite(dataset.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) < 0)
    Fail("create dataset", name);
  return Hdf5Dataset(std::move(dataset), file_name_, ChildPath(name));
}

Hdf5Dataset Hdf5Group::CreateString(const std::string& name, const std::string& value) {
  Hdf5Id type = VariableStringType();
  Hdf5Id space(H5Screate(H5S_SCALAR));
  Hdf5Id dataset(H5Dcreate2(id(), name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
  const char* p = value.c_str();
  if (!dataset.valid() ||
      H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &p) < 0)
    Fail("create dataset", name);
  return Hdf5Dataset(std::move(dataset), file_name_, ChildPath(name));
}

Hdf5Dataset Hdf5Group::CreateFixedString(const std::string& name, const std::string& value,
                                         size_t size) {
  Hdf5Id type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), size);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  Hdf5Id space(H5Screate(H5S_SCALAR));
  Hdf5Id dataset(H5Dcreate2(id(), name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
  if (!dataset.valid()) Fail("create dataset", name);
  Hdf5Dataset result(std::move(dataset), file_name_, ChildPath(name));
  result.WriteFixedString(value);
  return result;
}

Hdf5Dataset Hdf5Group::CreateStringList(const std::string& name,
                                        const std::vector<std::string>& values) {
  Hdf5Id type = VariableStringType();
  const hsize_t n = values.size();
  Hdf5Id space(H5Screate_simple(1, &n, nullptr));
  Hdf5Id dataset(H5Dcreate2(id(), name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
  std::vector<const char*> pointers;
  for (const std::string& s : values) pointers.push_back(s.c_str());
  if (!dataset.valid() ||
      (n > 0 && H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                         pointers.data()) < 0))
    Fail("create dataset", name);
  return Hdf5Dataset(std::move(dataset), file_name_, ChildPath(name));
}

Hdf5Dataset Hdf5Group::CreateIntList(const std::string& name,
                                     const std::vector<int32_t>& values) {
  const hsize_t n = values.size();
  Hdf5Id space(H5Screate_simple(1, &n, nullptr));
  Hdf5Id dataset(H5Dcreate2(id(), name.c_str(), H5T_STD_I32LE, space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
  if (!dataset.valid() ||
      (n > 0 && H5Dwrite(dataset.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                         values.data()) < 0))
    Fail("create dataset", name);
  return Hdf5Dataset(std::move(dataset), file_name_, ChildPath(name));
}

Hdf5Dataset Hdf5Group::CreateExtendible(const std::string& name, Hdf5Type type,
                                        const std::vector<hsize_t>& row_shape,
                                        hsize_t chunk_rows, int gzip_level) {
  CSIM_CHECK(row_shape.size() < static_cast<size_t>(kMaxRank) && chunk_rows > 0);
  std::vector<hsize_t> dims{0}, max_dims{H5S_UNLIMITED}, chunk{chunk_rows};
  for (hsize_t n : row_shape) {
    dims.push_back(n);
    // A chunk dimension must be >= 1 and <= a fixed maximum, so an empty trailing
    // dimension (nq = 0: every joint prescribed) is declared unlimited instead.
    max_dims.push_back(n > 0 ? n : H5S_UNLIMITED);
    chunk.push_back(std::max<hsize_t>(n, 1));
  }
  const int rank = static_cast<int>(dims.size());
  Hdf5Id space(H5Screate_simple(rank, dims.data(), max_dims.data()));
  Hdf5Id dcpl(H5Pcreate(H5P_DATASET_CREATE));
  const bool compressed = gzip_level > 0;
  if (H5Pset_chunk(dcpl.get(), rank, chunk.data()) < 0 ||
      (compressed &&
       (H5Pset_shuffle(dcpl.get()) < 0 || H5Pset_deflate(dcpl.get(), gzip_level) < 0)))
    Fail("set up chunking for dataset", name);
  Hdf5Id dataset(H5Dcreate2(id(), name.c_str(), FileType(type), space.get(), H5P_DEFAULT,
                            dcpl.get(), H5P_DEFAULT));
  if (!dataset.valid()) Fail("create dataset", name);
  return Hdf5Dataset(std::move(dataset), file_name_, ChildPath(name));
}

// ---------------------------------------------------------------------------------------
// Hdf5File

namespace {

/// Attempts at reading a checksummed piece of metadata in SWMR read mode. A failed
/// checksum there may be a torn read of metadata the writer is rewriting at that moment,
/// so HDF5 retries, sleeping 1 ns, then twice as long after each failure: its default of
/// 100 attempts backs off for 2^100 ns, and a corrupt file (whose checksum never matches)
/// hung `csim info` for good. 31 attempts give up after about 2^30 ns (~1 s) in all, still
/// ages next to the microseconds a concurrent write of a few hundred bytes takes.
constexpr unsigned kSwmrReadAttempts = 31;

/// File access properties with the latest format (required by SWMR).
Hdf5Id LatestFormatAccess() {
  Hdf5Id fapl(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  return fapl;
}

/// Builds the IoError of a failed open or create (no Hdf5Object exists yet).
[[noreturn]] void FailFile(const std::string& what, const std::string& file_name) {
  std::string detail = LastHdf5Error();
  throw IoError("cannot " + what + " '" + file_name + "'" + (detail.empty() ? "" : ": " + detail));
}

}  // namespace

void SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

void ClearHdf5Errors() { H5Eclear2(H5E_DEFAULT); }

void DisableHdf5ExitCleanup() { H5dont_atexit(); }

Hdf5File Hdf5File::Create(const std::string& file_name, bool file_locking) {
  SilenceHdf5Errors();
  Hdf5Id fapl = LatestFormatAccess();
  if (!file_locking) H5Pset_file_locking(fapl.get(), false, true);
  Hdf5Id file(H5Fcreate(file_name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
  if (!file.valid()) FailFile("create HDF5 file", file_name);
  Hdf5File result;
  result.id_ = std::move(file);
  result.file_name_ = file_name;
  result.path_ = "/";
  return result;
}

Hdf5File Hdf5File::Open(const std::string& file_name, Mode mode) {
  SilenceHdf5Errors();
  Hdf5Id fapl = LatestFormatAccess();
  unsigned flags = H5F_ACC_RDONLY;
  if (mode == Mode::kReadWrite) flags = H5F_ACC_RDWR;
  if (mode == Mode::kReadWriteUnlocked) {
    flags = H5F_ACC_RDWR;
    H5Pset_file_locking(fapl.get(), false, true);
  }
  if (mode == Mode::kSwmrRead) {
    flags = H5F_ACC_RDONLY | H5F_ACC_SWMR_READ;
    H5Pset_metadata_read_attempts(fapl.get(), kSwmrReadAttempts);
  }
  Hdf5Id file(H5Fopen(file_name.c_str(), flags, fapl.get()));
  if (!file.valid()) FailFile("open HDF5 file", file_name);
  Hdf5File result;
  result.id_ = std::move(file);
  result.file_name_ = file_name;
  result.path_ = "/";
  return result;
}

void Hdf5File::StartSwmrWrite() {
  if (H5Fstart_swmr_write(id()) < 0) Fail("start SWMR writing in");
}

void Hdf5File::FlushAll() {
  if (H5Fflush(id(), H5F_SCOPE_GLOBAL) < 0) Fail("flush");
}

void Hdf5File::Close() {
  if (!valid()) return;
  if (id_.Reset() < 0) Fail("close");
}

}  // namespace csim::io
