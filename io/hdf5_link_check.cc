#include "io/hdf5_link_check.h"

#include <set>

#include "core/error.h"

namespace strata::io::h5 {
namespace {

constexpr std::uint64_t kFreeListEnd = 1;  // libhdf5's H5HL_FREE_NULL

// The local heap at `address` (spec III.D): its data segment read whole, and its free
// list walked as libhdf5's H5HL__fl_deserialize walks it, each step checked.
void check_local_heap(FileBytes& file, std::uint64_t address) {
  const unsigned length_size = file.geometry().length_size;
  const unsigned offset_size = file.geometry().offset_size;
  const std::string at = "the local heap at address " + std::to_string(address);
  // Signature, version, 3 reserved bytes, data segment size, free list head, data segment address.
  const std::string prefix = file.read(address, 8 + 2 * length_size + offset_size, "a local heap");
  if (prefix.compare(0, 4, "HEAP") != 0) file.fail("no local heap (HEAP) at address " + std::to_string(address));
  if (prefix[4] != 0) file.fail(at + " has an unknown version");
  Cursor p(prefix, file, "a local heap");
  p.skip(8);
  const std::uint64_t size = p.uint(length_size);
  std::uint64_t free_block = p.uint(length_size);
  const std::uint64_t data_address = p.uint(offset_size);
  const std::string data = file.read(data_address, size, "a local heap's data segment");
  // A free block holds the next block's offset and its own size: a list longer than the
  // segment has room for blocks revisits one, and libhdf5 would never stop.
  std::set<std::uint64_t> visited;
  while (free_block != kFreeListEnd) {
    const std::string block = "free block at offset " + std::to_string(free_block) + " of " + at;
    if (free_block >= size || size - free_block < 2 * std::uint64_t{length_size})
      file.fail("the " + block + " lies outside its " + std::to_string(size) + "-byte data segment");
    if (!visited.insert(free_block).second)
      file.fail(at + " has a free list that returns to offset " + std::to_string(free_block) + " (a cycle)");
    Cursor c(data, file, "a local heap's free block");
    c.seek(static_cast<std::size_t>(free_block));
    const std::uint64_t next = c.uint(length_size);
    const std::uint64_t length = c.uint(length_size);
    if (next == 0) file.fail("the " + block + " names offset 0 as the next free block");
    if (length > size - free_block)
      file.fail("the " + block + " declares " + std::to_string(length) + " bytes, past its " +
                std::to_string(size) + "-byte data segment");
    free_block = next;
  }
}

}  // namespace

void check_link_storage(const CheckedFile& checked, std::uint64_t object_header, const std::string& where) {
  FileBytes file(checked, where);
  ObjectHeader header(file, object_header);
  for (const Message& m : header.messages()) {
    if (m.type != kSymbolTableMessage) continue;
    Cursor c(m.data, file, "a symbol table message");
    c.skip(file.geometry().offset_size);  // the B-tree's address
    check_local_heap(file, c.uint(file.geometry().offset_size));
  }
}

}  // namespace strata::io::h5
