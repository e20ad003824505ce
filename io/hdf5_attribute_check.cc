#include "io/hdf5_attribute_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "core/error.h"
#include "io/hdf5_encoding_check.h"
#include "io/hdf5_object_header.h"

namespace strata::io::h5 {
namespace {

constexpr std::uint64_t kHeapObjectHeader = 8;  // index, reference count, reserved

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
// read from the message (check_dataspace and check_datatype give them): they must be there.
void check_attribute_data_size(std::uint64_t elements, std::uint64_t element_size, std::uint64_t data_size,
                               FileBytes& file, const std::string& which) {
  if (element_size != 0 && elements > data_size / element_size) {
    file.fail(which + ": its dataspace and datatype declare " + std::to_string(elements) + " elements of " +
              std::to_string(element_size) + " bytes, more than the message's " + std::to_string(data_size) +
              " bytes of data");
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

void check_attribute_messages(const CheckedFile& checked, std::uint64_t object_header,
                              const std::string& where) {
  FileBytes file(checked, where);
  ObjectHeader header(file, object_header);
  std::size_t index = 0;
  for (const Message& m : header.messages()) {
    if (m.type != kAttributeMessage) continue;
    const std::string which = "attribute message " + std::to_string(index++);
    const AttributeParts parts = parse_attribute_message(m.data, file, which);
    // Committed (shared) datatypes and dataspaces are stored elsewhere: libhdf5's to check.
    if (parts.type_shared || parts.space_shared) continue;
    const std::uint64_t element_size =
        check_datatype(m.data.substr(parts.type_offset, parts.type_size), file, which + "'s datatype");
    const std::uint64_t elements =
        check_dataspace(m.data.substr(parts.space_offset, parts.space_size), file, which + "'s dataspace");
    check_attribute_data_size(elements, element_size, parts.data_size, file, which);
  }
}

void check_vlen_string_attribute(const CheckedFile& checked, std::uint64_t object_header,
                                 const std::string& attribute, std::uint64_t elements,
                                 const std::string& where) {
  FileBytes file(checked, where);
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
  const std::uint64_t reference_size = 4 + file.geometry().offset_size + 4;
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
    const std::uint64_t address = c.uint(file.geometry().offset_size);
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
