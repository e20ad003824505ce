#include "io/hdf5_object_header.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/error.h"

namespace strata::io::h5 {
namespace {

// Bounds: a damaged header may chain continuation blocks in a cycle or claim millions of
// messages; real Keras files have a handful of blocks and dozens of messages.
constexpr int kMaxHeaderBlocks = 4096;
constexpr std::size_t kMaxMessages = 1 << 20;

}  // namespace

// ---------------------------------------------------------------- CheckedFile

CheckedFile::CheckedFile(FileGeometry geometry, const std::string& where) : geometry_(std::move(geometry)) {
  fd_ = ::open(geometry_.file_name.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
    if (fd_ >= 0) ::close(fd_);
    throw IOError("damaged HDF5 file: " + where + ": cannot reopen the file to check it");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
}

CheckedFile::~CheckedFile() { ::close(fd_); }

bool CheckedFile::read_at(std::uint64_t offset, std::string& out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<std::size_t>(got);
  }
  return true;
}

// ---------------------------------------------------------------- FileBytes

void FileBytes::fail(const std::string& what) const {
  throw IOError("damaged HDF5 file: " + where_ + ": " + what);
}

std::string FileBytes::read(std::uint64_t address, std::uint64_t n, const char* what) {
  const std::uint64_t base = geometry().base_address, size = file_.size();
  if (address > size || base > size - address || n > size - base - address) {
    fail(std::string(what) + " at address " + std::to_string(address) + " (" + std::to_string(n) +
         " bytes) lies beyond the end of the file (" + std::to_string(size) + " bytes)");
  }
  std::string out(static_cast<std::size_t>(n), '\0');
  if (!file_.read_at(base + address, out)) fail(std::string("cannot read ") + what);
  return out;
}

// ---------------------------------------------------------------- Cursor

std::uint64_t Cursor::uint(unsigned width) {
  need(width);
  std::uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
  pos_ += width;
  return v;
}

void Cursor::skip(std::uint64_t n) {
  need(n);
  pos_ += static_cast<std::size_t>(n);
}

void Cursor::need(std::uint64_t n) const {
  if (n > bytes_.size() - pos_)
    file_.fail(std::string(what_) + " is cut short (needs " + std::to_string(n) + " more bytes at byte " +
               std::to_string(pos_) + " of " + std::to_string(bytes_.size()) + ")");
}

// ---------------------------------------------------------------- ObjectHeader

ObjectHeader::ObjectHeader(FileBytes& file, std::uint64_t address) : file_(file) {
  const std::string prefix = file.read(address, 4, "the object header");
  if (prefix == "OHDR")
    read_v2(address);
  else if (prefix[0] == 1)
    read_v1(address);
  else
    file.fail("the object header at address " + std::to_string(address) + " has an unknown version " +
              std::to_string(static_cast<unsigned char>(prefix[0])));
}

void ObjectHeader::add(unsigned type, std::string data, unsigned flags) {
  if (messages_.size() >= kMaxMessages) file_.fail("the object header has too many messages");
  messages_.push_back({type, std::move(data), flags});
}

// A continuation message's block, checked and counted.
std::pair<std::uint64_t, std::uint64_t> ObjectHeader::continuation(const std::string& data) {
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

void ObjectHeader::read_v1(std::uint64_t address) {
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
      const unsigned flags = static_cast<unsigned>(c.uint(1));
      c.skip(3);  // reserved
      c.need(length);
      std::string data = block.substr(c.pos(), static_cast<std::size_t>(length));
      c.skip(length);
      if (type == kContinuationMessage) blocks.push_back(continuation(data));
      add(type, std::move(data), flags);
    }
  }
}

void ObjectHeader::read_v2(std::uint64_t address) {
  // Signature, version, flags, then optional fields whose presence the flags give.
  const std::string fixed = file_.read(address, 6, "the object header");
  const unsigned version = static_cast<unsigned char>(fixed[4]);
  const unsigned flags = static_cast<unsigned char>(fixed[5]);
  if (version != 2) file_.fail("the object header has an unknown version " + std::to_string(version));
  const unsigned chunk_size_width = 1u << (flags & 3u);
  const std::uint64_t optional = ((flags & 0x20u) ? 16 : 0) + ((flags & 0x10u) ? 4 : 0);
  const std::string size_bytes = file_.read(address + 6 + optional, chunk_size_width, "the object header");
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
      const unsigned flags = static_cast<unsigned>(c.uint(1));
      c.skip(header_size - 4);  // creation order
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
      add(type, std::move(data), flags);
    }
  }
}

}  // namespace strata::io::h5
