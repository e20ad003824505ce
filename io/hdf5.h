// Small RAII wrappers over the HDF5 C API: a file, its groups, datasets and attributes.
// Every handle closes itself; HDF5's automatic error printing is off; every failure is an
// IOError (or ValueError for a wrong type) naming the file and the path inside it, with
// HDF5's own innermost reason appended. <hdf5.h> is not included here: identifiers are
// held privately, so users of this header need no HDF5 include path.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "core/variable.h"

namespace strata::io::h5 {

class CheckedFile;  // io/hdf5_object_header.h

// What Strata's checks of a file being read keep while it is open, shared by the file and
// every group and dataset opened from it: the groups whose link storage has been checked
// (each is checked once), and the file opened for the checks (by the first one).
struct FileChecks {
  std::set<std::string> checked_groups;
  std::shared_ptr<CheckedFile> file;
};

// Owns one HDF5 identifier (file, group, dataset, attribute, dataspace, datatype or
// property list) and closes it with the matching H5*close. Move-only.
class Handle {
 public:
  Handle() = default;
  explicit Handle(std::int64_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(other.release()) {}
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  bool valid() const { return id_ >= 0; }
  std::int64_t get() const { return id_; }
  std::int64_t release() noexcept;
  void reset() noexcept;

 private:
  std::int64_t id_ = -1;
};

// How a string attribute is stored when written: what h5py does with a Python `str`
// (variable-length UTF-8) or `bytes` (variable-length ASCII).
enum class StringEncoding { utf8, ascii };

class Group;
class Dataset;

// What a written dataset's elements are: the tensor's own dtype, int8, IEEE half
// precision, or bfloat16 (as h5py writes ml_dtypes' bfloat16: 2-byte opaque elements, the
// attribute dtype = "bfloat16").
using FileElement = Variable::Stored;
// How files store a variable (Variable::stored_as).
inline FileElement stored_element(const Variable& v) { return v.stored_as(); }

// Where things live in the file: the file's root group or any group below it.
class Location {
 public:
  const std::string& file_name() const { return file_name_; }
  // Absolute path inside the file: "/", "/layers/dense/vars".
  const std::string& path() const { return path_; }
  // "'file.h5' at '/layers/dense'": the where-part of messages.
  std::string where(const std::string& child = "") const;
  std::string child_path(const std::string& child) const;

  // Links below this location; `name` may be a relative path "a/b/c".
  bool exists(const std::string& name) const;
  bool has_group(const std::string& name) const;
  bool has_dataset(const std::string& name) const;
  // Names of the direct children (groups and datasets), in HDF5's name order.
  std::vector<std::string> children() const;

  Group open_group(const std::string& name) const;
  // Creates the group, and missing groups on its path.
  Group create_group(const std::string& name);
  // The group if it exists, else creates it.
  Group require_group(const std::string& name);
  Dataset open_dataset(const std::string& name) const;
  // Writes a little-endian dataset of the tensor's dtype and shape (rank 0: a scalar
  // dataspace), contiguous, uncompressed: what h5py writes for a NumPy array. A '/' in
  // `name` creates intermediate groups, as h5py does ("dense/kernel:0").
  // `as` int8: a float32 tensor of integers in [-128, 127] written as an int8 dataset (a
  // quantized layer's kernel); float16 / bfloat16: a float32 tensor rounded to that format
  // (Variable::stored_as).
  Dataset create_dataset(const std::string& name, const Tensor& value, FileElement as = FileElement::own);

  // --- attributes ---
  bool has_attribute(const std::string& name) const;
  std::vector<std::string> attribute_names() const;
  // A scalar (or one-element) string attribute, fixed- or variable-length.
  std::string read_string_attribute(const std::string& name) const;
  // A 1-D string array attribute, fixed- or variable-length; a numeric array with no
  // elements (what Keras writes for "no weights") reads as {}. When `name` is absent but
  // `name0`, `name1`, ... exist (Keras splits attributes over 64 KiB), they are joined.
  std::vector<std::string> read_string_list_attribute(const std::string& name) const;
  // A scalar variable-length string, as h5py writes `attrs[name] = "text"` (or bytes).
  void write_string_attribute(const std::string& name, const std::string& value,
                              StringEncoding encoding = StringEncoding::utf8);
  // A 1-D fixed-length null-padded ASCII array, as h5py writes a NumPy 'S' array (Keras's
  // `layer_names`, `weight_names`); an empty list is written as an empty float64 array,
  // and one over 64512 bytes is split into `name0`, `name1`, ... as Keras does.
  void write_string_list_attribute(const std::string& name, const std::vector<std::string>& values);

 protected:
  Location(Handle handle, std::string file_name, std::string path, std::shared_ptr<FileChecks> checks)
      : handle_(std::move(handle)), file_name_(std::move(file_name)), path_(std::move(path)),
        checks_(std::move(checks)) {}
  Location() = default;
  // Before libhdf5 decodes this object's attribute messages (any attribute lookup does),
  // checks them once (io/hdf5_attribute_check.h).
  void check_attributes() const;
  // Before libhdf5 lists this group's links, checks their storage (io/hdf5_link_check.h);
  // lookups by name check each group on their path.
  void check_links() const;

  Handle handle_;
  std::string file_name_;
  std::string path_;
  mutable bool attributes_checked_ = false;
  std::shared_ptr<FileChecks> checks_ = std::make_shared<FileChecks>();
};

class Group : public Location {
 public:
  Group() = default;

 private:
  friend class Location;
  Group(Handle handle, std::string file_name, std::string path, std::shared_ptr<FileChecks> checks)
      : Location(std::move(handle), std::move(file_name), std::move(path), std::move(checks)) {}
};

class Dataset {
 public:
  Dataset() = default;
  const std::string& file_name() const { return file_name_; }
  const std::string& path() const { return path_; }

  Shape shape() const;
  // "float32", "float64", "int64", "uint8", "string"...: for messages.
  std::string type_name() const;
  // Converts to `dtype` as HDF5 does (float64/float16 -> float32, any integer width ->
  // int64). Reading floating-point data as an integer dtype is a ValueError; bfloat16
  // datasets (Keras's attr dtype="bfloat16": 2-byte opaque elements) are widened to float32.
  Tensor read(DType dtype) const;

 private:
  friend class Location;
  void check_storage_holds(const Shape& declared, std::size_t element_bytes,
                           const std::string& where) const;
  Tensor read_bfloat16(DType dtype, const std::string& where) const;
  void check_chunk_count(std::int64_t plist, const Shape& declared, std::uint64_t needed_bytes,
                         const std::string& where) const;
  Dataset(Handle handle, std::string file_name, std::string path, std::shared_ptr<FileChecks> checks)
      : handle_(std::move(handle)), file_name_(std::move(file_name)), path_(std::move(path)),
        checks_(std::move(checks)) {}

  Handle handle_;
  std::string file_name_;
  std::string path_;
  std::shared_ptr<FileChecks> checks_ = std::make_shared<FileChecks>();
};

class File : public Location {
 public:
  enum class Mode {
    read,      // existing file, read-only
    create,    // new file; fails if it exists
    truncate,  // new file, replacing an existing one
  };
  File() = default;
  File(const std::string& path, Mode mode);
  // Closes (flushing to disk) and reports failure as IOError. Open groups and datasets
  // of this file become invalid. The destructor closes too, silently.
  void close();
};

// True when `path` exists and starts with the HDF5 signature.
bool is_hdf5_file(const std::string& path);

}  // namespace strata::io::h5
