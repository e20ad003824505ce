#include "io/hdf5.h"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <type_traits>

#include "core/error.h"
#include "core/precision_rounding.h"
#include "io/hdf5_attribute_check.h"
#include "io/hdf5_dataset_check.h"
#include "io/hdf5_link_check.h"

namespace strata::io::h5 {

static_assert(std::is_same_v<hid_t, std::int64_t>,
              "io/hdf5.h stores HDF5 identifiers as int64_t (HDF5 >= 1.10)");

namespace {

// Keras's limit for one attribute (HDF5_OBJECT_HEADER_LIMIT in its saving code).
constexpr std::size_t kAttributeLimit = 64512;

// HDF5 prints its error stack to stderr by default; we report errors as exceptions. The
// setting is per thread in thread-safe builds, so every entry point calls this.
void quiet() {
  thread_local bool done = false;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    done = true;
  }
}

// The innermost description on HDF5's error stack (the most specific one, e.g.
// "truncated file: eof = 96, sblock->base_addr = 0, stored_eof = 2144"), then clears it.
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* err, void* data) -> herr_t {
        if (err && err->desc && *err->desc) *static_cast<std::string*>(data) = err->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason.empty() ? std::string() : " (HDF5: " + reason + ")";
}

[[noreturn]] void fail(const std::string& what) { throw IOError(what + hdf5_reason()); }

hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

void check(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

std::string join_path(const std::string& base, const std::string& child) {
  if (child.empty()) return base;
  if (child.front() == '/') return child;
  return base == "/" ? "/" + child : base + "/" + child;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Shape space_shape(hid_t space, const std::string& where) {
  const H5S_class_t cls = H5Sget_simple_extent_type(space);
  if (cls == H5S_SCALAR) return Shape{};
  if (cls != H5S_SIMPLE) fail("unsupported (null) dataspace in " + where);
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) fail("cannot read the dataspace of " + where);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space, dims.data(), nullptr),
        "cannot read the shape of " + where);
  return Shape(std::vector<std::int64_t>(dims.begin(), dims.end()));
}

std::string type_name_of(hid_t type) {
  const std::size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_FLOAT:
      return "float" + std::to_string(8 * size);
    case H5T_INTEGER:
      return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * size);
    case H5T_STRING:
      return "string";
    case H5T_COMPOUND:
      return "compound";
    case H5T_ENUM:
      return "enum";
    default:
      return "an unsupported HDF5 type";
  }
}

hid_t native_type(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return H5T_NATIVE_FLOAT;
    case DType::int32:
      return H5T_NATIVE_INT32;
    case DType::int64:
      return H5T_NATIVE_INT64;
    case DType::string:
      throw NotImplementedError("HDF5 datasets of strings are not supported (weights are numbers)");
  }
  return H5T_NATIVE_FLOAT;
}

hid_t file_type(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return H5T_IEEE_F32LE;
    case DType::int32:
      return H5T_STD_I32LE;
    case DType::int64:
      return H5T_STD_I64LE;
    case DType::string:
      throw NotImplementedError("HDF5 datasets of strings are not supported (weights are numbers)");
  }
  return H5T_IEEE_F32LE;
}

// The checks of io/hdf5_attribute_check.h read the file's bytes from disk: they are for
// files opened to read (a file being written is ours, and partly still in libhdf5's cache).
bool opened_read_only(hid_t object) {
  Handle file(check_id(H5Iget_file_id(object), "H5Iget_file_id"));
  unsigned intent = 0;
  check(H5Fget_intent(file.get(), &intent), "H5Fget_intent");
  return (intent & H5F_ACC_RDWR) == 0;
}

// Where the file's addresses start and how wide they are, for the checks.
FileGeometry geometry_of(hid_t location, const std::string& file_name) {
  Handle file(check_id(H5Iget_file_id(location), "cannot find the file of " + file_name));
  Handle plist(check_id(H5Fget_create_plist(file.get()), "H5Fget_create_plist"));
  std::size_t offset_size = 0, length_size = 0;
  hsize_t user_block = 0;
  check(H5Pget_sizes(plist.get(), &offset_size, &length_size), "H5Pget_sizes");
  check(H5Pget_userblock(plist.get(), &user_block), "H5Pget_userblock");
  return FileGeometry{.file_name = file_name,
                      .base_address = user_block,
                      .offset_size = static_cast<unsigned>(offset_size),
                      .length_size = static_cast<unsigned>(length_size)};
}

// The file opened for Strata's checks: by the first check of the open file, then kept
// with it (io/hdf5_object_header.h). Null for a file being written, which is Strata's
// own and not checked.
const CheckedFile* checked_file(FileChecks& checks, hid_t location, const std::string& file_name,
                                const std::string& where) {
  if (!checks.file) {
    if (!opened_read_only(location)) return nullptr;
    checks.file = std::make_shared<CheckedFile>(geometry_of(location, file_name), where);
  }
  return checks.file.get();
}

std::uint64_t object_header_address(hid_t location, const std::string& where) {
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  check(H5Oget_info3(location, &info, H5O_INFO_BASIC), "cannot locate the object of " + where);
  haddr_t address = 0;
  check(H5VLnative_token_to_addr(location, info.token, &address),
        "cannot locate the object of " + where);
  return address;
#else
  H5O_info_t info;
  check(H5Oget_info2(location, &info, H5O_INFO_BASIC), "cannot locate the object of " + where);
  return info.addr;
#endif
}

// libhdf5 decodes a dataset's messages (datatype, dataspace, layout, fill value, filter
// pipeline) when it opens it: check those of the object at `name` below `loc` before
// anything opens it (io/hdf5_dataset_check.h). Finding its header decodes no message.
// An object libhdf5 cannot find is left to the open that follows, which fails as it did
// before the check.
void check_before_opening(hid_t loc, const std::string& name, const std::string& file_name,
                          const std::string& where, FileChecks& checks) {
  const CheckedFile* file = checked_file(checks, loc, file_name, where);
  if (file == nullptr) return;
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  haddr_t address = 0;
  if (H5Oget_info_by_name3(loc, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0 ||
      H5VLnative_token_to_addr(loc, info.token, &address) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
#else
  H5O_info_t info;
  if (H5Oget_info_by_name2(loc, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  const haddr_t address = info.addr;
#endif
  if (info.type != H5O_TYPE_DATASET) return;  // groups have no datatype or dataspace
  check_dataset_messages(*file, address, where);
}

// libhdf5 decodes every attribute message of an object on any attribute lookup: check
// them first (io/hdf5_attribute_check.h).
void check_attributes_of(hid_t object, const std::string& file_name, const std::string& where,
                         FileChecks& checks) {
  const CheckedFile* file = checked_file(checks, object, file_name, where);
  if (file == nullptr) return;
  check_attribute_messages(*file, object_header_address(object, where), where);
}

// libhdf5 builds a group's local heap (its free list unchecked) on the first name looked
// up in it: check the group's link storage first (io/hdf5_link_check.h), once per group
// of the file.
void check_links_of(hid_t group, const std::string& file_name, const std::string& path, FileChecks& checks) {
  if (checks.checked_groups.contains(path)) return;
  const std::string where = "'" + file_name + "' at '" + path + "'";
  if (const CheckedFile* file = checked_file(checks, group, file_name, where)) {
    check_link_storage(*file, object_header_address(group, where), where);
  }
  checks.checked_groups.insert(path);
}

// H5I type of the object at `name` below `loc` (the file `file_name`'s group at `path`),
// or H5I_BADID when there is none. Every group on the way is checked before libhdf5
// looks a name up in it (once per open file: `checks`).
H5I_type_t object_type(hid_t loc, const std::string& file_name, const std::string& path,
                       const std::string& name, FileChecks& checks) {
  quiet();
  // H5Lexists needs every intermediate link to exist: check component by component.
  std::string prefix = name.starts_with("/") ? "/" : "";
  for (const std::string& part : split_path(name)) {
    const std::string group = prefix.size() > 1 ? prefix.substr(0, prefix.size() - 1) : prefix;
    const std::string group_path = join_path(path, group);
    if (!checks.checked_groups.contains(group_path)) {
      check_before_opening(loc, group.empty() ? "." : group, file_name, "'" + file_name + "' at '" + group_path + "'",
                           checks);
      Handle group_handle(H5Oopen(loc, group.empty() ? "." : group.c_str(), H5P_DEFAULT));
      if (!group_handle.valid() || H5Iget_type(group_handle.get()) != H5I_GROUP) {  // a dataset has no links
        H5Eclear2(H5E_DEFAULT);
        return H5I_BADID;
      }
      check_links_of(group_handle.get(), file_name, group_path, checks);
    }
    prefix += part;
    if (H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return H5I_BADID;
    }
    prefix += "/";
  }
  check_before_opening(loc, name, file_name, "'" + file_name + "' at '" + join_path(path, name) + "'", checks);
  Handle obj(H5Oopen(loc, name.c_str(), H5P_DEFAULT));
  if (!obj.valid()) {
    H5Eclear2(H5E_DEFAULT);
    return H5I_BADID;
  }
  return H5Iget_type(obj.get());
}

// Reads every element of a string attribute, fixed- or variable-length. `owner` is the
// group or file holding attribute `name`, opened as `attr`.
std::vector<std::string> read_strings(hid_t owner, const std::string& file_name,
                                      const std::string& name, hid_t attr,
                                      const std::string& where, FileChecks& checks) {
  Handle type(check_id(H5Aget_type(attr), "cannot read the type of attribute " + where));
  Handle space(check_id(H5Aget_space(attr), "cannot read the dataspace of attribute " + where));
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) fail("cannot count the elements of attribute " + where);
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(n));
  if (n == 0) return out;
  const htri_t is_vlen = H5Tis_variable_str(type.get());
  if (is_vlen < 0) fail("cannot read the string type of attribute " + where);
  if (is_vlen > 0) {
    // libhdf5 trusts the global heap these strings live in: check it first.
    if (const CheckedFile* file = checked_file(checks, owner, file_name, "attribute " + where)) {
      check_vlen_string_attribute(*file, object_header_address(owner, where), name, static_cast<std::uint64_t>(n),
                                  "attribute " + where);
    }
    Handle mem(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"));
    check(H5Tset_size(mem.get(), H5T_VARIABLE), "H5Tset_size");
    check(H5Tset_cset(mem.get(), H5Tget_cset(type.get())), "H5Tset_cset");
    std::vector<char*> ptrs(static_cast<std::size_t>(n), nullptr);
    check(H5Aread(attr, mem.get(), ptrs.data()), "cannot read attribute " + where);
    for (char* p : ptrs) {
      out.emplace_back(p ? p : "");
      if (p) H5free_memory(p);
    }
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) fail("attribute " + where + " has a zero-size string type");
  Handle mem(check_id(H5Tcopy(type.get()), "H5Tcopy"));
  std::vector<char> buffer(size * static_cast<std::size_t>(n), '\0');
  check(H5Aread(attr, mem.get(), buffer.data()), "cannot read attribute " + where);
  const bool space_padded = H5Tget_strpad(type.get()) == H5T_STR_SPACEPAD;
  for (hssize_t i = 0; i < n; ++i) {
    const char* begin = buffer.data() + static_cast<std::size_t>(i) * size;
    std::size_t len = strnlen(begin, size);
    if (space_padded) {
      while (len > 0 && begin[len - 1] == ' ') --len;
    }
    out.emplace_back(begin, len);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- Handle

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.release();
  }
  return *this;
}

std::int64_t Handle::release() noexcept {
  const std::int64_t id = id_;
  id_ = -1;
  return id;
}

void Handle::reset() noexcept {
  if (id_ < 0) return;
  quiet();
  // An object of a file closed with H5F_CLOSE_STRONG is already gone.
  if (H5Iis_valid(id_) > 0) {
    switch (H5Iget_type(id_)) {
      case H5I_FILE:
        H5Fclose(id_);
        break;
      case H5I_GROUP:
        H5Gclose(id_);
        break;
      case H5I_DATASET:
        H5Dclose(id_);
        break;
      case H5I_ATTR:
        H5Aclose(id_);
        break;
      case H5I_DATASPACE:
        H5Sclose(id_);
        break;
      case H5I_DATATYPE:
        H5Tclose(id_);
        break;
      case H5I_GENPROP_LST:
        H5Pclose(id_);
        break;
      default:
        H5Idec_ref(id_);
        break;
    }
  }
  H5Eclear2(H5E_DEFAULT);
  id_ = -1;
}

// ---------------------------------------------------------------- Location

std::string Location::where(const std::string& child) const {
  return "'" + file_name_ + "' at '" + child_path(child) + "'";
}

std::string Location::child_path(const std::string& child) const { return join_path(path_, child); }

bool Location::exists(const std::string& name) const {
  return object_type(handle_.get(), file_name_, path_, name, *checks_) != H5I_BADID;
}

bool Location::has_group(const std::string& name) const {
  return object_type(handle_.get(), file_name_, path_, name, *checks_) == H5I_GROUP;
}

bool Location::has_dataset(const std::string& name) const {
  return object_type(handle_.get(), file_name_, path_, name, *checks_) == H5I_DATASET;
}

std::vector<std::string> Location::children() const {
  quiet();
  check_links();
  std::vector<std::string> names;
  hsize_t index = 0;
  H5L_iterate_t callback = [](hid_t, const char* name, const auto*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  check(H5Literate(handle_.get(), H5_INDEX_NAME, H5_ITER_INC, &index, callback, &names),
        "cannot list the members of " + where());
  return names;
}

Group Location::open_group(const std::string& name) const {
  quiet();
  const H5I_type_t type = object_type(handle_.get(), file_name_, path_, name, *checks_);
  if (type == H5I_BADID) throw IOError("HDF5 file " + where(name) + ": no such group");
  if (type != H5I_GROUP)
    throw IOError("HDF5 file " + where(name) + ": expected a group, found a dataset");
  Handle g(check_id(H5Gopen2(handle_.get(), name.c_str(), H5P_DEFAULT),
                    "cannot open group " + where(name)));
  return Group(std::move(g), file_name_, child_path(name), checks_);
}

Group Location::create_group(const std::string& name) {
  quiet();
  Handle lcpl(check_id(H5Pcreate(H5P_LINK_CREATE), "H5Pcreate"));
  check(H5Pset_create_intermediate_group(lcpl.get(), 1), "H5Pset_create_intermediate_group");
  Handle g(check_id(H5Gcreate2(handle_.get(), name.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                    "cannot create group " + where(name)));
  return Group(std::move(g), file_name_, child_path(name), checks_);
}

Group Location::require_group(const std::string& name) {
  return has_group(name) ? open_group(name) : create_group(name);
}

Dataset Location::open_dataset(const std::string& name) const {
  quiet();
  const H5I_type_t type = object_type(handle_.get(), file_name_, path_, name, *checks_);
  if (type == H5I_BADID) throw IOError("HDF5 file " + where(name) + ": no such dataset");
  if (type != H5I_DATASET)
    throw IOError("HDF5 file " + where(name) + ": expected a dataset, found a group");
  Handle d(check_id(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT),
                    "cannot open dataset " + where(name)));
  return Dataset(std::move(d), file_name_, child_path(name), checks_);
}

namespace {

const char* element_name(FileElement as) {
  switch (as) {
    case FileElement::int8:
      return "int8";
    case FileElement::float16:
      return "float16";
    case FileElement::bfloat16:
      return "bfloat16";
    case FileElement::own:
      break;
  }
  return "their own dtype";
}

// h5py's float16: IEEE half precision, little-endian.
Handle half_type() {
  Handle type(check_id(H5Tcopy(H5T_IEEE_F32LE), "H5Tcopy"));
  check(H5Tset_fields(type.get(), 15, 10, 5, 0, 10), "H5Tset_fields");
  check(H5Tset_size(type.get(), 2), "H5Tset_size");
  check(H5Tset_ebias(type.get(), 15), "H5Tset_ebias");
  return type;
}

// float32 values as 16-bit words of `as` (float16 or bfloat16), each rounded to it.
std::vector<std::uint16_t> sixteen_bit_words(const Tensor& host, FileElement as) {
  const float* v = host.data<float>();
  std::vector<std::uint16_t> words(static_cast<std::size_t>(host.size()));
  for (std::size_t i = 0; i < words.size(); ++i) {
    words[i] = as == FileElement::float16 ? float16_bits(round_to_float16(v[i])) : bfloat16_bits(round_to_bfloat16(v[i]));
  }
  return words;
}

}  // namespace

Dataset Location::create_dataset(const std::string& name, const Tensor& value, FileElement as) {
  quiet();
  if (!value.defined()) throw ValueError("cannot write an undefined tensor to " + where(name));
  if (as != FileElement::own && value.dtype() != DType::float32) {
    throw ValueError("cannot write " + to_string(value.dtype()) + " values as " + element_name(as) + " to " +
                     where(name));
  }
  Handle space;
  if (value.rank() == 0) {
    space = Handle(check_id(H5Screate(H5S_SCALAR), "H5Screate"));
  } else {
    const auto& d = value.shape().dims();
    std::vector<hsize_t> dims(d.begin(), d.end());
    space = Handle(check_id(
        H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
        "cannot make a dataspace of shape " + value.shape().to_string() + " for " + where(name)));
  }
  Handle lcpl(check_id(H5Pcreate(H5P_LINK_CREATE), "H5Pcreate"));
  check(H5Pset_create_intermediate_group(lcpl.get(), 1), "H5Pset_create_intermediate_group");
  Handle sixteen_bits;  // float16's or bfloat16's type (h5py writes bfloat16 as 2-byte opaque elements)
  if (as == FileElement::float16) sixteen_bits = half_type();
  if (as == FileElement::bfloat16) sixteen_bits = Handle(check_id(H5Tcreate(H5T_OPAQUE, 2), "H5Tcreate"));
  const hid_t stored = sixteen_bits.valid()          ? sixteen_bits.get()
                       : as == FileElement::int8     ? H5T_STD_I8LE
                                                     : file_type(value.dtype());
  Handle d(check_id(H5Dcreate2(handle_.get(), name.c_str(), stored, space.get(),
                               lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                    "cannot create dataset " + where(name)));
  if (as == FileElement::bfloat16) {  // how h5py marks ml_dtypes' bfloat16
    Handle text(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"));
    check(H5Tset_size(text.get(), H5T_VARIABLE), "H5Tset_size");
    check(H5Tset_cset(text.get(), H5T_CSET_UTF8), "H5Tset_cset");
    Handle scalar(check_id(H5Screate(H5S_SCALAR), "H5Screate"));
    Handle attr(check_id(H5Acreate2(d.get(), "dtype", text.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                         "cannot create attribute 'dtype' of " + where(name)));
    const char* bfloat16 = "bfloat16";
    check(H5Awrite(attr.get(), text.get(), &bfloat16), "cannot write attribute 'dtype' of " + where(name));
  }
  if (value.size() > 0 && (as == FileElement::float16 || as == FileElement::bfloat16)) {
    const std::vector<std::uint16_t> words = sixteen_bit_words(value.to(Device{}), as);
    check(H5Dwrite(d.get(), stored, H5S_ALL, H5S_ALL, H5P_DEFAULT, words.data()), "cannot write dataset " + where(name));
  } else if (value.size() > 0) {
    // A model's variables may live on a GPU: the file is written from a copy on the host.
    const Tensor host = value.to(Device{});
    if (as == FileElement::int8) {
      const float* v = host.data<float>();
      for (std::int64_t i = 0; i < host.size(); ++i) {
        if (!(v[i] >= -128.f && v[i] <= 127.f && v[i] == std::nearbyint(v[i]))) {
          throw ValueError("cannot write " + std::to_string(v[i]) + " as int8 to " + where(name) +
                           " (int8 values are integers in [-128, 127])");
        }
      }
    }
    check(H5Dwrite(d.get(), native_type(value.dtype()), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                   host.raw_data()),
          "cannot write dataset " + where(name));
  }
  return Dataset(std::move(d), file_name_, child_path(name), checks_);
}

void Location::check_links() const { check_links_of(handle_.get(), file_name_, path_, *checks_); }

void Location::check_attributes() const {
  if (attributes_checked_) return;
  check_attributes_of(handle_.get(), file_name_, where(), *checks_);
  attributes_checked_ = true;
}

bool Location::has_attribute(const std::string& name) const {
  quiet();
  check_attributes();
  const htri_t found = H5Aexists(handle_.get(), name.c_str());
  if (found < 0) fail("cannot look up attribute '" + name + "' of " + where());
  return found > 0;
}

std::vector<std::string> Location::attribute_names() const {
  quiet();
  check_attributes();
  std::vector<std::string> names;
  hsize_t index = 0;
  check(H5Aiterate2(
            handle_.get(), H5_INDEX_NAME, H5_ITER_INC, &index,
            [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
              static_cast<std::vector<std::string>*>(data)->emplace_back(name);
              return 0;
            },
            &names),
        "cannot list the attributes of " + where());
  return names;
}

std::string Location::read_string_attribute(const std::string& name) const {
  quiet();
  const std::string what = "'" + name + "' of " + where();
  if (!has_attribute(name))
    throw IOError("HDF5 file " + where() + " has no attribute '" + name + "'");
  Handle attr(
      check_id(H5Aopen(handle_.get(), name.c_str(), H5P_DEFAULT), "cannot open attribute " + what));
  Handle type(check_id(H5Aget_type(attr.get()), "cannot read the type of attribute " + what));
  if (H5Tget_class(type.get()) != H5T_STRING) {
    throw ValueError("attribute " + what + ": expected a string, found " +
                     type_name_of(type.get()));
  }
  std::vector<std::string> values = read_strings(handle_.get(), file_name_, name, attr.get(), what, *checks_);
  if (values.size() != 1) {
    throw ValueError("attribute " + what + ": expected one string, found " +
                     std::to_string(values.size()));
  }
  return values.front();
}

std::vector<std::string> Location::read_string_list_attribute(const std::string& name) const {
  quiet();
  if (!has_attribute(name)) {
    std::vector<std::string> joined;
    int chunk = 0;
    while (has_attribute(name + std::to_string(chunk))) {
      auto part = read_string_list_attribute(name + std::to_string(chunk));
      joined.insert(joined.end(), part.begin(), part.end());
      ++chunk;
    }
    if (chunk == 0) throw IOError("HDF5 file " + where() + " has no attribute '" + name + "'");
    return joined;
  }
  const std::string what = "'" + name + "' of " + where();
  Handle attr(
      check_id(H5Aopen(handle_.get(), name.c_str(), H5P_DEFAULT), "cannot open attribute " + what));
  Handle type(check_id(H5Aget_type(attr.get()), "cannot read the type of attribute " + what));
  if (H5Tget_class(type.get()) != H5T_STRING) {
    Handle space(
        check_id(H5Aget_space(attr.get()), "cannot read the dataspace of attribute " + what));
    if (H5Sget_simple_extent_npoints(space.get()) == 0) return {};  // Keras: no weights
    throw ValueError("attribute " + what + ": expected strings, found " + type_name_of(type.get()));
  }
  return read_strings(handle_.get(), file_name_, name, attr.get(), what, *checks_);
}

void Location::write_string_attribute(const std::string& name, const std::string& value,
                                      StringEncoding encoding) {
  quiet();
  const std::string what = "'" + name + "' of " + where();
  if (has_attribute(name))
    check(H5Adelete(handle_.get(), name.c_str()), "cannot replace attribute " + what);
  Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"));
  check(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check(H5Tset_cset(type.get(), encoding == StringEncoding::utf8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII),
        "H5Tset_cset");
  Handle space(check_id(H5Screate(H5S_SCALAR), "H5Screate"));
  Handle attr(check_id(
      H5Acreate2(handle_.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
      "cannot create attribute " + what));
  const char* data = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &data), "cannot write attribute " + what);
}

namespace {

void write_fixed_strings(hid_t loc, const std::string& name, const std::string& what,
                         const std::vector<std::string>& values, std::size_t begin, std::size_t end,
                         std::size_t item_size) {
  if (H5Aexists(loc, name.c_str()) > 0) {
    check(H5Adelete(loc, name.c_str()), "cannot replace attribute " + what);
  }
  const hsize_t n = end - begin;
  Handle space(check_id(H5Screate_simple(1, &n, nullptr), "H5Screate_simple"));
  if (begin == end) {  // h5py writes [] as an empty float64 array
    Handle attr(check_id(
        H5Acreate2(loc, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
        "cannot create attribute " + what));
    return;
  }
  Handle type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy"));
  check(H5Tset_size(type.get(), item_size), "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "H5Tset_strpad");
  check(H5Tset_cset(type.get(), H5T_CSET_ASCII), "H5Tset_cset");
  std::vector<char> buffer(item_size * n, '\0');
  for (std::size_t i = begin; i < end; ++i) {
    std::memcpy(buffer.data() + (i - begin) * item_size, values[i].data(), values[i].size());
  }
  Handle attr(
      check_id(H5Acreate2(loc, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
               "cannot create attribute " + what));
  check(H5Awrite(attr.get(), type.get(), buffer.data()), "cannot write attribute " + what);
}

}  // namespace

void Location::write_string_list_attribute(const std::string& name,
                                           const std::vector<std::string>& values) {
  quiet();
  const std::string what = "'" + name + "' of " + where();
  std::size_t item_size = 1;
  for (const std::string& v : values) {
    if (v.size() > kAttributeLimit) {
      throw ValueError("attribute " + what + ": the string '" + v.substr(0, 64) + "...' is " +
                       std::to_string(v.size()) + " bytes, over HDF5's attribute limit of " +
                       std::to_string(kAttributeLimit));
    }
    item_size = std::max(item_size, v.size());
  }
  // Split like numpy.array_split into the fewest chunks that each fit the limit.
  const std::size_t n = values.size();
  std::size_t chunks = 1;
  auto chunk_len = [&](std::size_t c, std::size_t k) { return n / k + (c < n % k ? 1 : 0); };
  while (chunk_len(0, chunks) * item_size > kAttributeLimit) ++chunks;
  if (chunks == 1) {
    write_fixed_strings(handle_.get(), name, what, values, 0, n, item_size);
    return;
  }
  std::size_t begin = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t len = chunk_len(c, chunks);
    const std::string part = name + std::to_string(c);
    write_fixed_strings(handle_.get(), part, "'" + part + "' of " + where(), values, begin,
                        begin + len, item_size);
    begin += len;
  }
}

// ---------------------------------------------------------------- Dataset

Shape Dataset::shape() const {
  quiet();
  const std::string where = "'" + file_name_ + "' at '" + path_ + "'";
  Handle space(check_id(H5Dget_space(handle_.get()), "cannot read the dataspace of " + where));
  return space_shape(space.get(), where);
}

std::string Dataset::type_name() const {
  quiet();
  Handle type(check_id(H5Dget_type(handle_.get()),
                       "cannot read the type of '" + file_name_ + "' at '" + path_ + "'"));
  return type_name_of(type.get());
}

// A damaged dataspace may declare far more than the file holds; the tensor is allocated
// from it before libhdf5 reads, so the declared bytes are checked against the bytes
// stored first. Unfiltered data is stored in full (h5py always writes it); filtered
// (compressed) chunks expand at most about 1032:1 (deflate's limit), plus chunk padding.
void Dataset::check_storage_holds(const Shape& declared, std::size_t element_bytes,
                                  const std::string& where) const {
  const std::uint64_t needed =
      static_cast<std::uint64_t>(declared.num_elements()) * static_cast<std::uint64_t>(element_bytes);
  if (needed == 0) return;
  const std::uint64_t stored = H5Dget_storage_size(handle_.get());
  Handle plist(check_id(H5Dget_create_plist(handle_.get()), "cannot read the layout of " + where));
  const int filters = H5Pget_nfilters(plist.get());
  if (filters < 0) fail("cannot read the filters of " + where);
  const std::uint64_t most = filters == 0 ? stored : stored * 1032 + (std::uint64_t{1} << 20);
  if (needed > most) {
    throw IOError("dataset " + where + " declares shape " + declared.to_string() + " (" +
                  std::to_string(needed) + " bytes) but the file stores " + std::to_string(stored) +
                  " bytes of it" + (filters == 0 ? "" : " compressed") + " (truncated or damaged)");
  }
  if (H5Pget_layout(plist.get()) == H5D_CHUNKED) check_chunk_count(plist.get(), declared, needed, where);
}

// libhdf5 reads a chunked dataset by first mapping every chunk the selection touches,
// a few kilobytes of memory per chunk whatever the chunk holds, so a damaged layout
// message that declares one-element chunks turns a 20 KB file into gigabytes. h5py
// chunks at 8 KiB or more (more for bigger datasets); a chunk count past 65536 plus one
// per 16 KiB of data is refused before libhdf5 maps anything.
void Dataset::check_chunk_count(std::int64_t plist, const Shape& declared, std::uint64_t needed_bytes,
                                const std::string& where) const {
  constexpr std::uint64_t kMostChunksAtAnySize = 65536;
  constexpr std::uint64_t kBytesPerExtraChunk = 16384;
  const std::uint64_t most = kMostChunksAtAnySize + needed_bytes / kBytesPerExtraChunk;
  std::vector<hsize_t> chunk(static_cast<std::size_t>(declared.rank()));
  if (declared.rank() == 0 || H5Pget_chunk(plist, declared.rank(), chunk.data()) != declared.rank()) {
    fail("cannot read the chunk shape of " + where);
  }
  std::uint64_t chunks = 1;
  for (int axis = 0; axis < declared.rank(); ++axis) {
    if (chunk[axis] == 0) fail("dataset " + where + " declares a chunk of extent 0");
    const auto extent = static_cast<std::uint64_t>(declared[axis]);
    const std::uint64_t along = (extent + chunk[axis] - 1) / chunk[axis];
    chunks = along != 0 && chunks > most / along ? most + 1 : chunks * along;  // saturates
  }
  if (chunks > most) {
    throw IOError("dataset " + where + " declares shape " + declared.to_string() + " in more than " +
                  std::to_string(most) + " chunks, the most Strata reads at this size (damaged layout?)");
  }
}

Tensor Dataset::read_bfloat16(DType dtype, const std::string& where) const {
  Handle type(check_id(H5Dget_type(handle_.get()), "cannot read the type of " + where));
  const H5T_class_t cls = H5Tget_class(type.get());
  if ((cls != H5T_OPAQUE && cls != H5T_INTEGER) || H5Tget_size(type.get()) != 2) {
    throw ValueError("dataset " + where + " is marked bfloat16 but holds " + type_name_of(type.get()) +
                     ", expected 2-byte elements");
  }
  if (dtype != DType::float32) {
    throw ValueError("dataset " + where + " holds bfloat16 values; reading them as " + to_string(dtype) +
                     " would truncate them");
  }
  const Shape declared = shape();
  check_storage_holds(declared, 2, where);
  std::vector<std::uint16_t> words(static_cast<std::size_t>(declared.num_elements()));
  if (!words.empty()) {
    // The file's own type as the memory type: the bytes as they are (little-endian, as
    // h5py writes them on x86).
    check(H5Dread(handle_.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, words.data()),
          "cannot read dataset " + where + " as bfloat16");
  }
  Tensor out(declared, DType::float32);
  float* v = out.data<float>();
  for (std::size_t i = 0; i < words.size(); ++i) v[i] = bfloat16_value(words[i]);
  return out;
}

Tensor Dataset::read(DType dtype) const {
  quiet();
  const std::string where = "'" + file_name_ + "' at '" + path_ + "'";
  check_attributes_of(handle_.get(), file_name_, where, *checks_);
  if (H5Aexists(handle_.get(), "dtype") > 0) {
    Handle attr(check_id(H5Aopen(handle_.get(), "dtype", H5P_DEFAULT),
                         "cannot open attribute dtype of " + where));
    Handle type(check_id(H5Aget_type(attr.get()), "H5Aget_type"));
    if (H5Tget_class(type.get()) == H5T_STRING) {
      auto values = read_strings(handle_.get(), file_name_, "dtype", attr.get(), "'dtype' of " + where, *checks_);
      if (values.size() == 1 && values[0] == "bfloat16") return read_bfloat16(dtype, where);
    }
  }
  H5Eclear2(H5E_DEFAULT);
  Handle type(check_id(H5Dget_type(handle_.get()), "cannot read the type of " + where));
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
    throw ValueError("dataset " + where + " holds " + type_name_of(type.get()) +
                     ", expected numbers to read as " + to_string(dtype));
  }
  if (cls == H5T_FLOAT && dtype != DType::float32) {
    throw ValueError("dataset " + where + " holds " + type_name_of(type.get()) +
                     "; reading it as " + to_string(dtype) + " would truncate values");
  }
  const Shape declared = shape();
  check_storage_holds(declared, H5Tget_size(type.get()), where);
  Tensor out(declared, dtype);
  if (out.size() > 0) {
    check(H5Dread(handle_.get(), native_type(dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.raw_data()),
          "cannot read dataset " + where + " as " + to_string(dtype));
  }
  return out;
}

// ---------------------------------------------------------------- File

File::File(const std::string& path, Mode mode) {
  quiet();
  file_name_ = path;
  path_ = "/";
  std::error_code ec;
  if (mode == Mode::read) {
    if (!std::filesystem::exists(path, ec)) {
      throw IOError("cannot open HDF5 file '" + path + "': it does not exist");
    }
    if (std::filesystem::is_directory(path, ec)) {
      throw IOError("cannot open HDF5 file '" + path + "': it is a directory");
    }
    if (H5Fis_hdf5(path.c_str()) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      throw IOError("cannot open '" + path +
                    "' as HDF5: no HDF5 signature found (expected an "
                    "HDF5 file such as Keras's .h5 files)");
    }
  }
  Handle fapl(check_id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"));
  // Closing the file closes every object still open in it: nothing keeps it open
  // behind our back, so a rename right after close() sees a complete file.
  check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), "H5Pset_fclose_degree");
  hid_t id = -1;
  switch (mode) {
    case Mode::read:
      id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
      if (id < 0) fail("cannot open HDF5 file '" + path + "' (truncated or corrupt?)");
      break;
    case Mode::create:
      id = H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get());
      if (id < 0) fail("cannot create HDF5 file '" + path + "'");
      break;
    case Mode::truncate:
      id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
      if (id < 0) fail("cannot create HDF5 file '" + path + "'");
      break;
  }
  handle_ = Handle(id);
}

void File::close() {
  quiet();
  if (!handle_.valid()) return;
  checks_->file.reset();  // the descriptor the checks read through
  const hid_t id = handle_.release();
  if (H5Fclose(id) < 0) fail("cannot close (flush) HDF5 file '" + file_name_ + "'");
}

bool is_hdf5_file(const std::string& path) {
  quiet();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  const htri_t result = H5Fis_hdf5(path.c_str());
  H5Eclear2(H5E_DEFAULT);
  return result > 0;
}

}  // namespace strata::io::h5
