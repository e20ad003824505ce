#include "io/hdf5_encoding_check.h"

#include <cstdint>
#include <limits>

namespace strata::io::h5 {
namespace {

// Datatype classes (spec IV.A.2.d).
enum : unsigned {
  kFixedPoint = 0,
  kFloatingPoint = 1,
  kTime = 2,
  kString = 3,
  kBitfield = 4,
  kOpaque = 5,
  kCompound = 6,
  kReference = 7,
  kEnumerated = 8,
  kVariableLength = 9,
  kArray = 10,
};

// libhdf5 recurses into base and member types without a limit; real files nest a few
// levels (a vlen of an array of a compound). A deeper encoding is refused rather than
// walked, so that a damaged one cannot exhaust the stack here.
constexpr int kMaxNesting = 32;
constexpr unsigned kMaxArrayRank = 32;  // H5S_MAX_RANK, which libhdf5 enforces (arrays, dataspaces)

// The field's bytes, read front to back; every read is checked against the field's end.
class Walk {
 public:
  Walk(const std::string& field, FileBytes& file, const std::string& which)
      : field_(field), file_(file), which_(which) {}

  [[noreturn]] void fail(const std::string& what) const { file_.fail(which_ + ": " + what); }

  std::uint64_t uint(unsigned width) {
    need(width, "a field");
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(field_[pos_ + i])) << (8 * i);
    pos_ += width;
    return v;
  }
  void skip(std::uint64_t n, const char* what) {
    need(n, what);
    pos_ += static_cast<std::size_t>(n);
  }
  // A NUL-terminated name, as libhdf5 strdup()s it; versions 1 and 2 pad it (with its
  // NUL) to a multiple of eight bytes, version 3 does not.
  void name(unsigned version, const char* what) {
    const std::size_t end = field_.find('\0', pos_);
    if (end == std::string::npos)
      fail(std::string(what) + " at byte " + std::to_string(pos_) + " does not end inside the " +
           std::to_string(field_.size()) + "-byte datatype");
    const std::uint64_t length = end - pos_;
    skip(version >= 3 ? length + 1 : (length + 8) / 8 * 8, what);
  }

  // One datatype, nested `depth` levels deep; returns its declared size in bytes.
  std::uint64_t datatype(int depth) {
    if (depth > kMaxNesting) fail("its types nest more than " + std::to_string(kMaxNesting) + " levels deep");
    const unsigned class_and_version = static_cast<unsigned>(uint(1));
    const unsigned type_class = class_and_version & 0x0fu, version = class_and_version >> 4;
    if (version < 1 || version > 3) fail("a datatype has an unknown version " + std::to_string(version));
    const std::uint64_t bits = uint(3);
    const std::uint64_t size = uint(4);
    switch (type_class) {
      case kFixedPoint:
      case kBitfield:
        skip(4, "a bit offset and precision");
        break;
      case kFloatingPoint:
        skip(12, "a floating-point layout");
        break;
      case kTime:
        skip(2, "a time precision");
        break;
      case kString:
      case kReference:
        break;
      case kOpaque:  // libhdf5 copies the tag by its declared length
        skip(bits & 0xffu, "an opaque tag");
        break;
      case kCompound: {
        const std::uint64_t members = bits & 0xffffu;
        // Version 3 encodes each member's offset in as few bytes as the size needs.
        unsigned offset_width = 4;
        if (version >= 3) {
          offset_width = 1;
          for (std::uint64_t s = size; s >= 256; s >>= 8) ++offset_width;
        }
        for (std::uint64_t m = 0; m < members; ++m) {
          name(version, "a compound member's name");
          skip(offset_width, "a compound member's offset");
          // Version 1: dimensionality, reserved, permutation, reserved, four dimensions.
          if (version == 1) skip(28, "a compound member's dimensions");
          datatype(depth + 1);
        }
        break;
      }
      case kEnumerated: {
        const std::uint64_t members = bits & 0xffffu;
        const std::uint64_t base_size = datatype(depth + 1);
        for (std::uint64_t m = 0; m < members; ++m) name(version, "an enumeration's name");
        // libhdf5 copies members x base size bytes of values.
        if (base_size != 0 && members > remaining() / base_size)
          fail("its enumeration declares " + std::to_string(members) + " values of " + std::to_string(base_size) +
               " bytes, more than the " + std::to_string(remaining()) + " bytes left in the datatype");
        skip(members * base_size, "an enumeration's values");
        break;
      }
      case kVariableLength:
        datatype(depth + 1);
        break;
      case kArray: {
        const unsigned rank = static_cast<unsigned>(uint(1));
        if (rank > kMaxArrayRank) fail("an array datatype has rank " + std::to_string(rank));
        if (version < 3) skip(3, "an array datatype's reserved bytes");
        skip(4 * std::uint64_t{rank}, "an array datatype's dimensions");
        if (version < 3) skip(4 * std::uint64_t{rank}, "an array datatype's permutation");
        datatype(depth + 1);
        break;
      }
      default:
        fail("a datatype has an unknown class " + std::to_string(type_class));
    }
    return size;
  }

 private:
  std::uint64_t remaining() const { return field_.size() - pos_; }
  void need(std::uint64_t n, const char* what) const {
    if (n > remaining())
      fail(std::string(what) + " at byte " + std::to_string(pos_) + " runs past the end of the " +
           std::to_string(field_.size()) + "-byte datatype");
  }

  const std::string& field_;
  FileBytes& file_;
  const std::string& which_;
  std::size_t pos_ = 0;
};

}  // namespace

std::uint64_t check_datatype(const std::string& field, FileBytes& file, const std::string& which) {
  return Walk(field, file, which).datatype(0);
}

std::uint64_t check_dataspace(const std::string& field, FileBytes& file, const std::string& which) {
  Cursor c(field, file, "a dataspace");
  const unsigned version = static_cast<unsigned>(c.uint(1));
  if (version < 1 || version > 2) file.fail(which + " has an unknown version " + std::to_string(version));
  const std::uint64_t rank = c.uint(1);
  if (rank > kMaxArrayRank) file.fail(which + " has rank " + std::to_string(rank));
  const unsigned flags = static_cast<unsigned>(c.uint(1));
  std::uint64_t elements = 1;
  if (version == 1) {
    c.skip(5);  // reserved
  } else if (c.uint(1) == 2) {  // the dataspace's type
    elements = 0;               // a null dataspace holds nothing
  }
  const unsigned length_size = file.geometry().length_size;
  const std::uint64_t per_dimension = std::uint64_t{length_size} * ((flags & 1u) ? 2 : 1);
  if (rank * per_dimension > c.remaining())
    file.fail(which + ": its " + std::to_string(rank) + " dimensions do not fit in its " +
              std::to_string(field.size()) + " bytes");
  for (std::uint64_t d = 0; d < rank; ++d) {
    const std::uint64_t extent = c.uint(length_size);
    if (extent != 0 && elements > std::numeric_limits<std::uint64_t>::max() / extent)
      file.fail(which + ": its element count overflows");
    elements *= extent;
  }
  return elements;
}

}  // namespace strata::io::h5
