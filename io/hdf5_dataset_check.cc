#include "io/hdf5_dataset_check.h"

#include <cstdint>
#include <string>
#include <utility>

#include "io/hdf5_encoding_check.h"

namespace strata::io::h5 {
namespace {

// Layout classes.
constexpr unsigned kCompact = 0, kContiguous = 1, kChunked = 2, kVirtual = 3;
// libhdf5's limits, which it enforces itself: a chunk's rank with its element size
// (H5O_LAYOUT_NDIMS) and the filters in a pipeline (H5Z_MAX_NFILTERS).
constexpr std::uint64_t kMaxChunkDims = 33;
constexpr std::uint64_t kMaxFilters = 32;
// Filters numbered below this are libhdf5's own; version 2 stores no name for them.
constexpr std::uint64_t kFirstUserFilter = 256;

// One message's fields, read front to back; a part the message declares must lie inside
// it. Errors name the message: "<where>: its fill value message declares ...".
class Fields {
 public:
  Fields(const Message& m, FileBytes& file, std::string which)
      : bytes_(m.data), file_(file), which_(std::move(which)), cursor_(m.data, file, which_.c_str()) {}
  Fields(const Fields&) = delete;  // the cursor names its errors by which_'s characters
  Fields& operator=(const Fields&) = delete;

  [[noreturn]] void fail(const std::string& what) const { file_.fail(which_ + " " + what); }
  std::uint64_t uint(unsigned width) { return cursor_.uint(width); }
  void skip(std::uint64_t n) { cursor_.skip(n); }
  std::uint64_t address() { return cursor_.uint(file_.geometry().offset_size); }
  std::uint64_t length() { return cursor_.uint(file_.geometry().length_size); }
  // `n` bytes of `what`, declared by the message, which libhdf5 copies as they come.
  void declared(std::uint64_t n, const std::string& what) {
    if (n > cursor_.remaining())
      fail("declares " + what + " of " + std::to_string(n) + " bytes at byte " + std::to_string(cursor_.pos()) +
           ", but the " + std::to_string(bytes_.size()) + "-byte message has " + std::to_string(cursor_.remaining()) +
           " left");
    cursor_.skip(n);
  }
  // A NUL-terminated name in a field of `field` bytes, which libhdf5 measures with strlen().
  void name_in(std::uint64_t field, const std::string& what) {
    declared(field, what);
    const std::size_t start = cursor_.pos() - static_cast<std::size_t>(field);
    if (bytes_.find('\0', start) >= cursor_.pos())
      fail("has " + what + " at byte " + std::to_string(start) + " that does not end inside its " +
           std::to_string(field) + "-byte field");
  }

 private:
  const std::string& bytes_;
  FileBytes& file_;
  std::string which_;
  Cursor cursor_;
};

// Fill value message (spec IV.A.2.f), versions 1 to 3: the value is copied by its size.
void check_fill_value(Fields& f) {
  const unsigned version = static_cast<unsigned>(f.uint(1));
  bool has_value = false;
  if (version == 1 || version == 2) {
    f.skip(2);  // space allocation time, fill value write time
    has_value = f.uint(1) != 0;  // fill value defined
  } else if (version == 3) {
    const unsigned flags = static_cast<unsigned>(f.uint(1));
    has_value = (flags & 0x10u) == 0 && (flags & 0x20u) != 0;  // not "undefined", and "has a value"
  } else {
    return;  // libhdf5 refuses an unknown version itself
  }
  if (!has_value) return;
  const std::uint64_t size = f.uint(4);
  // Versions 1 and 2 decode the size signed: libhdf5 copies nothing for a negative one.
  if (version < 3 && size >= 0x80000000u) return;
  f.declared(size, "a fill value");
}

// The old fill value message (spec IV.A.2.e): a size, and the value copied by it.
void check_old_fill_value(Fields& f) { f.declared(f.uint(4), "a fill value"); }

// A version 4 chunked layout after its class: flags, the chunk's dimensions (each in as
// many bytes as the message says), and the chunk index's own fields.
void check_chunk_index(Fields& f) {
  const unsigned flags = static_cast<unsigned>(f.uint(1));
  const std::uint64_t dims = f.uint(1);
  const std::uint64_t width = f.uint(1);
  if (dims > kMaxChunkDims || width == 0 || width > 8) return;  // refused by libhdf5
  f.declared(width * dims, "its chunk dimensions");
  switch (f.uint(1)) {  // the chunk index's type
    case 1:  // a single chunk: its filtered size and filter mask when filtered
      if (flags & 0x02u) {
        f.length();
        f.skip(4);
      }
      break;
    case 2:  // implicit
      break;
    case 3:  // fixed array: page bits
      f.skip(1);
      break;
    case 4:  // extensible array: five parameters of a byte each
      f.skip(5);
      break;
    case 5:  // version 2 B-tree: node size, split and merge percentages
      f.skip(6);
      break;
    default:
      return;  // refused by libhdf5
  }
  f.address();
}

// Data layout message (spec IV.A.2.i), versions 1 to 4.
void check_layout(Fields& f) {
  const unsigned version = static_cast<unsigned>(f.uint(1));
  if (version < 1 || version > 4) return;  // refused by libhdf5
  if (version < 3) {
    const std::uint64_t dims = f.uint(1);
    if (dims > kMaxChunkDims) return;  // refused by libhdf5
    const unsigned layout_class = static_cast<unsigned>(f.uint(1));
    f.skip(5);  // reserved
    if (layout_class != kCompact) f.address();
    f.declared(4 * dims, "its dimensions");
    if (layout_class == kCompact) f.declared(f.uint(4), "compact data");
    return;
  }
  switch (f.uint(1)) {
    case kCompact:
      f.declared(f.uint(2), "compact data");
      return;
    case kContiguous:
      f.address();
      f.length();
      return;
    case kChunked:
      if (version == 3) {
        const std::uint64_t dims = f.uint(1);
        if (dims == 0 || dims > kMaxChunkDims) return;  // refused by libhdf5
        f.address();
        f.declared(4 * dims, "its chunk dimensions");
      } else {
        check_chunk_index(f);
      }
      return;
    case kVirtual:
      if (version >= 4)
        f.fail("describes a virtual dataset, which maps the data of other files; a Keras file never has one, "
               "and Strata does not open files a model names");
      return;
    default:
      return;  // refused by libhdf5
  }
}

// Filter pipeline message (spec IV.A.2.l), versions 1 and 2: each filter's name (read
// by strlen()) and client data (read by count) inside the message.
void check_filter_pipeline(Fields& f) {
  const unsigned version = static_cast<unsigned>(f.uint(1));
  if (version < 1 || version > 2) return;  // refused by libhdf5
  const std::uint64_t filters = f.uint(1);
  if (filters > kMaxFilters) return;  // refused by libhdf5
  if (version == 1) f.skip(6);        // reserved
  for (std::uint64_t i = 0; i < filters; ++i) {
    const std::uint64_t id = f.uint(2);
    const std::uint64_t name_length = version == 2 && id < kFirstUserFilter ? 0 : f.uint(2);
    f.skip(2);  // flags
    const std::uint64_t values = f.uint(2);
    const std::string which = "filter " + std::to_string(i) + "'s";
    if (name_length > 0) f.name_in(name_length, which + " name");
    f.declared(4 * values, which + " client data");
    if (version == 1 && values % 2 == 1) f.declared(4, which + " padding");
  }
}

// The messages of a dataset's storage, and their checks.
struct StorageCheck {
  unsigned type;
  const char* name;
  void (*check)(Fields&);
};
constexpr StorageCheck kStorageChecks[] = {{kFillValueMessage, "fill value", check_fill_value},
                                           {kOldFillValueMessage, "old fill value", check_old_fill_value},
                                           {kLayoutMessage, "layout", check_layout},
                                           {kFilterPipelineMessage, "filter pipeline", check_filter_pipeline}};

}  // namespace

void check_dataset_messages(const CheckedFile& checked, std::uint64_t object_header, const std::string& where) {
  FileBytes file(checked, where);
  ObjectHeader header(file, object_header);
  for (const Message& m : header.messages()) {
    if ((m.flags & kSharedMessageFlag) != 0) continue;
    switch (m.type) {
      case kDatatypeMessage:
        check_datatype(m.data, file, "its datatype message");
        break;
      case kDataspaceMessage:
        check_dataspace(m.data, file, "its dataspace message");
        break;
      case kExternalFileListMessage:
        file.fail("its data is kept in external files (an external file list message); a Keras file never "
                  "does that, and Strata does not open files a model names");
      default:
        for (const StorageCheck& c : kStorageChecks) {
          if (c.type != m.type) continue;
          Fields f(m, file, std::string("its ") + c.name + " message");
          c.check(f);
        }
        break;
    }
  }
}

}  // namespace strata::io::h5
