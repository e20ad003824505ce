#include "io/hdf5_attribute_check.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/error.h"

namespace strata::io::h5 {
namespace {

// Bounds: a damaged header may chain continuation blocks in a cycle or claim millions of
// messages; real Keras files have a handful of blocks and dozens of messages.
constexpr int kMaxHeaderBlocks = 4096;
constexpr std::size_t kMaxMessages = 1 << 20;
constexpr std::uint64_t kHeapObjectHeader = 8;  // index, reference count, reserved

// The file's bytes, read on demand; every read is checked against the file's size.
class FileBytes {
 public:
  FileBytes(const FileGeometry& geometry, std::string where)
      : geometry_(geometry), where_(std::move(where)) {
    in_.open(geometry.file_name, std::ios::binary);
    if (!in_) fail("cannot reopen the file to check it");
    in_.seekg(0, std::ios::end);
    size_ = static_cast<std::uint64_t>(in_.tellg());
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw IOError("damaged HDF5 file: " + where_ + ": " + what);
  }

  // `n` bytes at relative address `address`.
  std::string read(std::uint64_t address, std::uint64_t n, const char* what) {
    const std::uint64_t base = geometry_.base_address;
    if (address > size_ || base > size_ - address || n > size_ - base - address) {
      fail(std::string(what) + " at address " + std::to_string(address) + " (" +
           std::to_string(n) + " bytes) lies beyond the end of the file (" +
           std::to_string(size_) + " bytes)");
    }
    std::string out(static_cast<std::size_t>(n), '\0');
    in_.seekg(static_cast<std::streamoff>(base + address));
    in_.read(out.data(), static_cast<std::streamsize>(n));
    if (!in_) fail(std::string("cannot read ") + what);
    return out;
  }

  std::uint64_t size() const { return size_; }
  const FileGeometry& geometry() const { return geometry_; }

 private:
  const FileGeometry& geometry_;
  std::string where_;
  std::ifstream in_;
  std::uint64_t size_ = 0;
};

// Little-endian fields of a block, each read checked against the block's end.
class Cursor {
 public:
  Cursor(const std::string& bytes, FileBytes& file, const char* what)
      : bytes_(bytes), file_(file), what_(what) {}

  std::uint64_t uint(unsigned width) {
    need(width);
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    pos_ += width;
    return v;
  }
  void skip(std::uint64_t n) {
    need(n);
    pos_ += static_cast<std::size_t>(n);
  }
  void need(std::uint64_t n) const {
    if (n > bytes_.size() - pos_)
      file_.fail(std::string(what_) + " is cut short (needs " + std::to_string(n) +
                 " more bytes at byte " + std::to_string(pos_) + " of " +
                 std::to_string(bytes_.size()) + ")");
  }
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  FileBytes& file_;
  const char* what_;
  std::size_t pos_ = 0;
};

std::uint64_t align8(std::uint64_t n) { return (n + 7) & ~std::uint64_t{7}; }

struct Message {
  unsigned type = 0;
  std::string data;
};

constexpr unsigned kContinuationMessage = 0x10;
constexpr unsigned kAttributeMessage = 0x0C;
constexpr unsigned kAttributeInfoMessage = 0x15;

// The messages of an object header, continuation blocks followed (spec IV.A.1).
class ObjectHeader {
 public:
  ObjectHeader(FileBytes& file, std::uint64_t address) : file_(file) {
    const std::string prefix = file.read(address, 4, "the object header");
    if (prefix == "OHDR")
      read_v2(address);
    else if (prefix[0] == 1)
      read_v1(address);
    else
      file.fail("the object header at address " + std::to_string(address) +
                " has an unknown version " + std::to_string(static_cast<unsigned char>(prefix[0])));
  }
  const std::vector<Message>& messages() const { return messages_; }

 private:
  void add(unsigned type, std::string data) {
    if (messages_.size() >= kMaxMessages) file_.fail("the object header has too many messages");
    messages_.push_back({type, std::move(data)});
  }

  // A continuation message's block, checked and counted.
  std::pair<std::uint64_t, std::uint64_t> continuation(const std::string& data) {
    Cursor c(data, file_, "a continuation message");
    const std::uint64_t offset = c.uint(file_.geometry().offset_size);
    const std::uint64_t length = c.uint(file_.geometry().length_size);
    if (++blocks_ > kMaxHeaderBlocks) file_.fail("the object header has too many continuation blocks");
    // A block named twice would be read (and its messages decoded) again and again.
    if (!seen_.insert(offset).second)
      file_.fail("the object header's continuation blocks form a cycle (block at address " +
                 std::to_string(offset) + " again)");
    return {offset, length};
  }

  void read_v1(std::uint64_t address) {
    const std::string prefix = file_.read(address, 16, "the object header");
    Cursor p(prefix, file_, "the object header");
    p.skip(8);  // version, reserved, message count, reference count
    const std::uint64_t size = p.uint(4);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks = {{address + 16, size}};
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const std::string block = file_.read(blocks[b].first, blocks[b].second, "an object header block");
      Cursor c(block, file_, "an object header block");
      while (c.remaining() >= 8) {
        const unsigned type = static_cast<unsigned>(c.uint(2));
        const std::uint64_t length = c.uint(2);
        c.skip(4);  // flags, reserved
        c.need(length);
        std::string data = block.substr(c.pos(), static_cast<std::size_t>(length));
        c.skip(length);
        if (type == kContinuationMessage) blocks.push_back(continuation(data));
        add(type, std::move(data));
      }
    }
  }

  void read_v2(std::uint64_t address) {
    // Signature, version, flags, then optional fields whose presence the flags give.
    const std::string fixed = file_.read(address, 6, "the object header");
    const unsigned version = static_cast<unsigned char>(fixed[4]);
    const unsigned flags = static_cast<unsigned char>(fixed[5]);
    if (version != 2) file_.fail("the object header has an unknown version " + std::to_string(version));
    const unsigned chunk_size_width = 1u << (flags & 3u);
    const std::uint64_t optional = ((flags & 0x20u) ? 16 : 0) + ((flags & 0x10u) ? 4 : 0);
    const std::string size_bytes =
        file_.read(address + 6 + optional, chunk_size_width, "the object header");
    Cursor s(size_bytes, file_, "the object header");
    const std::uint64_t chunk0 = s.uint(chunk_size_width);
    const bool creation_order = (flags & 0x04u) != 0;
    // Blocks as (start of messages, bytes of messages).
    std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks = {
        {address + 6 + optional + chunk_size_width, chunk0}};
    const unsigned header_size = creation_order ? 6 : 4;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const std::string block = file_.read(blocks[b].first, blocks[b].second, "an object header block");
      Cursor c(block, file_, "an object header block");
      while (c.remaining() >= header_size) {
        const unsigned type = static_cast<unsigned>(c.uint(1));
        const std::uint64_t length = c.uint(2);
        c.skip(header_size - 3);  // flags, creation order
        c.need(length);
        std::string data = block.substr(c.pos(), static_cast<std::size_t>(length));
        c.skip(length);
        if (type == kContinuationMessage) {
          auto [offset, total] = continuation(data);
          // "OCHK", messages, checksum.
          if (total < 8) file_.fail("a continuation block is shorter than its signature");
          if (file_.read(offset, 4, "a continuation block") != "OCHK")
            file_.fail("a continuation block has no OCHK signature");
          blocks.push_back({offset + 4, total - 8});
        }
        add(type, std::move(data));
      }
    }
  }

  FileBytes& file_;
  std::vector<Message> messages_;
  int blocks_ = 0;
  std::set<std::uint64_t> seen_;
};

// Where an attribute message (spec IV.A.2.m) keeps its parts, as libhdf5 will find them.
struct AttributeParts {
  std::string name;
  std::size_t type_offset = 0, type_size = 0;
  bool type_shared = false;  // the message holds a reference to a committed datatype
  std::size_t space_offset = 0, space_size = 0;
  bool space_shared = false;
  std::size_t data_offset = 0, data_size = 0;
};

// Reads an attribute message's header and checks what libhdf5 will trust of it: the
// name, datatype and dataspace fields lie inside the message, and the name ends (NUL)
// inside its field (libhdf5 strdup()s it). `which` names the message in errors.
AttributeParts parse_attribute_message(const std::string& message, FileBytes& file,
                                       const std::string& which) {
  Cursor c(message, file, "an attribute message");
  const unsigned version = static_cast<unsigned>(c.uint(1));
  if (version < 1 || version > 3)
    file.fail(which + " has an unknown version " + std::to_string(version));
  const unsigned flags = version == 1 ? 0 : static_cast<unsigned>(c.uint(1));
  if (version == 1) c.skip(1);  // reserved
  const std::uint64_t name_size = c.uint(2);
  const std::uint64_t type_size = c.uint(2);
  const std::uint64_t space_size = c.uint(2);
  if (version == 3) c.skip(1);  // name encoding
  // Version 1 pads each field to eight bytes; the last may end the message unpadded.
  const bool padded = version == 1;
  auto field = [&](std::uint64_t size) { return padded ? align8(size) : size; };
  const std::uint64_t fields = field(name_size) + field(type_size) + space_size;
  if (name_size == 0 || fields > c.remaining())
    file.fail(which + ": its name, datatype and dataspace (" + std::to_string(fields) +
              " bytes) do not fit in the message's " + std::to_string(c.remaining()));
  const std::size_t name_end = message.find('\0', c.pos());
  if (name_end >= c.pos() + name_size)
    file.fail(which + ": its name does not end inside its " + std::to_string(name_size) + "-byte field");
  AttributeParts parts;
  parts.name = message.substr(c.pos(), name_end - c.pos());
  c.skip(field(name_size));
  parts.type_offset = c.pos();
  parts.type_size = static_cast<std::size_t>(type_size);
  parts.type_shared = (flags & 1u) != 0;
  c.skip(field(type_size));
  parts.space_offset = c.pos();
  parts.space_size = static_cast<std::size_t>(space_size);
  parts.space_shared = (flags & 2u) != 0;
  c.skip(std::min<std::uint64_t>(field(space_size), c.remaining()));
  parts.data_offset = c.pos();
  parts.data_size = c.remaining();
  return parts;
}

// libhdf5 copies (element count x element size) bytes of data out of the message, both
// read from the message: they must be there. Committed (shared) datatypes and dataspaces
// are libhdf5's to check.
void check_attribute_data_size(const std::string& message, const AttributeParts& parts,
                               FileBytes& file, const std::string& which) {
  if (parts.type_shared || parts.space_shared || parts.type_size < 8) return;
  Cursor type(message, file, "an attribute's datatype");
  type.seek(parts.type_offset + 4);  // class and version, class bit fields
  const std::uint64_t element_size = type.uint(4);
  Cursor space(message, file, "an attribute's dataspace");
  space.seek(parts.space_offset);
  const unsigned space_version = static_cast<unsigned>(space.uint(1));
  const unsigned rank = static_cast<unsigned>(space.uint(1));
  space.skip(1);  // flags
  std::uint64_t elements = 1;
  if (space_version == 1) {
    space.skip(5);  // reserved
  } else if (space.uint(1) == 2) {
    elements = 0;  // a null dataspace holds nothing
  }
  for (unsigned d = 0; d < rank; ++d) {
    const std::uint64_t extent = space.uint(file.geometry().length_size);
    if (extent != 0 && elements > std::numeric_limits<std::uint64_t>::max() / extent)
      file.fail(which + ": its dataspace's element count overflows");
    elements *= extent;
  }
  if (element_size != 0 && elements > parts.data_size / element_size) {
    file.fail(which + ": its dataspace and datatype declare " + std::to_string(elements) + " elements of " +
              std::to_string(element_size) + " bytes, more than the message's " +
              std::to_string(parts.data_size) + " bytes of data");
  }
}

// One global heap collection (spec III.E) walked as libhdf5 walks it, every object's
// extent checked; object sizes by index.
class HeapCollection {
 public:
  HeapCollection(FileBytes& file, std::uint64_t address) {
    const unsigned length_size = file.geometry().length_size;
    const std::uint64_t header = 8 + length_size;
    const std::string head = file.read(address, header, "a global heap collection");
    if (head.compare(0, 4, "GCOL") != 0)
      file.fail("no global heap collection (GCOL) at address " + std::to_string(address));
    if (head[4] != 1)
      file.fail("the global heap collection at address " + std::to_string(address) +
                " has an unknown version");
    Cursor h(head, file, "a global heap collection");
    h.skip(8);
    const std::uint64_t size = h.uint(length_size);
    if (size < header)
      file.fail("the global heap collection at address " + std::to_string(address) +
                " declares a size smaller than its header");
    const std::string bytes = file.read(address, size, "a global heap collection");
    const std::uint64_t object_header = kHeapObjectHeader + length_size;
    Cursor c(bytes, file, "a global heap collection");
    c.seek(static_cast<std::size_t>(header));
    while (c.remaining() > 0) {
      // libhdf5 takes a tail too small for an object header as free space.
      if (c.remaining() < object_header) break;
      const std::size_t begin = c.pos();
      const unsigned index = static_cast<unsigned>(c.uint(2));
      c.skip(6);  // reference count, reserved
      const std::uint64_t object_size = c.uint(length_size);
      // Object 0 is the free space, its size counting its own header; others are padded
      // to eight bytes. A free space smaller than a header would stall libhdf5's walk.
      const std::uint64_t extent =
          index == 0 ? object_size
                     : (object_size > size ? size + 1 : object_header + align8(object_size));
      if (extent < object_header || extent > bytes.size() - begin)
        file.fail("object " + std::to_string(index) + " of the global heap collection at address " +
                  std::to_string(address) + " runs past the collection's end");
      if (index != 0) sizes_[index] = object_size;
      c.seek(begin + static_cast<std::size_t>(extent));
    }
  }
  // The size of object `index`, or nullopt when the collection has none.
  std::optional<std::uint64_t> size_of(unsigned index) const {
    auto it = sizes_.find(index);
    if (it == sizes_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<unsigned, std::uint64_t> sizes_;
};

}  // namespace

void check_attribute_messages(const FileGeometry& geometry, std::uint64_t object_header,
                              const std::string& where) {
  FileBytes file(geometry, where);
  ObjectHeader header(file, object_header);
  std::size_t index = 0;
  for (const Message& m : header.messages()) {
    if (m.type != kAttributeMessage) continue;
    const std::string which = "attribute message " + std::to_string(index++);
    check_attribute_data_size(m.data, parse_attribute_message(m.data, file, which), file, which);
  }
}

void check_vlen_string_attribute(const FileGeometry& geometry, std::uint64_t object_header,
                                 const std::string& attribute, std::uint64_t elements,
                                 const std::string& where) {
  FileBytes file(geometry, where);
  ObjectHeader header(file, object_header);
  std::optional<AttributeParts> data;
  const std::string* message = nullptr;
  bool dense = false;
  for (const Message& m : header.messages()) {
    if (m.type == kAttributeInfoMessage) dense = true;
    if (m.type != kAttributeMessage) continue;
    AttributeParts parts = parse_attribute_message(m.data, file, "an attribute message");
    if (parts.name == attribute) {
      data = std::move(parts);
      message = &m.data;
      break;
    }
  }
  if (!data) {
    file.fail(dense ? "it is kept in dense attribute storage, which Strata does not read"
                    : "its message is missing from the object header");
  }
  // Each element: length (4), collection address, object index (4). libhdf5 sizes its
  // copy of the data from the datatype's declared size but reads references of this
  // size: the two must agree (a committed datatype is checked by libhdf5 itself).
  const std::uint64_t reference_size = 4 + geometry.offset_size + 4;
  if (!data->type_shared) {
    const std::string type_bytes = message->substr(data->type_offset, data->type_size);
    Cursor type(type_bytes, file, "the attribute's datatype");
    type.skip(4);  // class and version, class bit fields
    const std::uint64_t declared = type.uint(4);
    if (declared != reference_size)
      file.fail("its variable-length datatype declares " + std::to_string(declared) +
                "-byte elements; references in this file are " + std::to_string(reference_size) + " bytes");
    // The base type follows: a string's characters are bytes. libhdf5 sizes its
    // conversion buffers as length x base size (a damaged base size of 788529153 asked it
    // for 13 GB to read a 17-character string).
    type.skip(4);  // the base type's class and version, class bit fields
    const std::uint64_t base = type.uint(4);
    if (base != 1)
      file.fail("its variable-length string datatype declares " + std::to_string(base) +
                "-byte characters");
  }
  if (elements > data->data_size / reference_size)
    file.fail("its data holds fewer than the " + std::to_string(elements) + " strings it declares");
  const std::string references = message->substr(data->data_offset);
  Cursor c(references, file, "the attribute's data");
  std::map<std::uint64_t, HeapCollection> collections;
  for (std::uint64_t i = 0; i < elements; ++i) {
    const std::uint64_t length = c.uint(4);
    const std::uint64_t address = c.uint(geometry.offset_size);
    const unsigned index = static_cast<unsigned>(c.uint(4));
    if (address == 0) continue;  // a null string: libhdf5 reads nothing
    auto it = collections.find(address);
    if (it == collections.end()) it = collections.emplace(address, HeapCollection(file, address)).first;
    const std::optional<std::uint64_t> size = it->second.size_of(index);
    if (index == 0 || !size)
      file.fail("string " + std::to_string(i) + " refers to object " + std::to_string(index) +
                ", which the global heap collection at address " + std::to_string(address) +
                " does not hold");
    if (*size != length)
      file.fail("string " + std::to_string(i) + " has " + std::to_string(length) +
                " bytes but its global heap object has " + std::to_string(*size));
  }
}

}  // namespace strata::io::h5
