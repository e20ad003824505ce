// An HDF5 file's own bytes, read by Strata to check a structure before libhdf5 trusts it
// (io/hdf5_attribute_check.h, io/hdf5_link_check.h): the file read with every read
// bounded by its size, little-endian fields read with every read bounded by their block,
// and an object header's messages with its continuation blocks followed.
//
// Format: HDF5 File Format Specification version 3.0, sections III.A (superblock
// addresses) and IV.A (object headers v1 and v2).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace strata::io::h5 {

// What the checks need to know of the open file; libhdf5 has parsed the superblock.
struct FileGeometry {
  std::string file_name;
  std::uint64_t base_address = 0;  // absolute offset that file addresses are relative to
  unsigned offset_size = 8;        // bytes in an address
  unsigned length_size = 8;        // bytes in a length
};

// The file opened once for every check of one open HDF5 file (io/hdf5.h keeps it with
// the file): a model's load runs a check per object, and opening the file and asking
// libhdf5 for its geometry per check made loading NASNetMobile a third slower (88-90
// against 65-68 ms; docs/reliability.md). Read with pread, at any offset.
class CheckedFile {
 public:
  // `where` names the file in the IOError when it cannot be opened.
  CheckedFile(FileGeometry geometry, const std::string& where);
  ~CheckedFile();
  CheckedFile(const CheckedFile&) = delete;
  CheckedFile& operator=(const CheckedFile&) = delete;

  const FileGeometry& geometry() const { return geometry_; }
  std::uint64_t size() const { return size_; }
  // Fills `out` from absolute offset `offset`; false when the file ends or a read fails.
  bool read_at(std::uint64_t offset, std::string& out) const;

 private:
  FileGeometry geometry_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The file's bytes, read on demand for one check; every read is checked against the
// file's size. Failures are IOError "damaged HDF5 file: <where>: <what>".
class FileBytes {
 public:
  FileBytes(const CheckedFile& file, std::string where) : file_(file), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& what) const;
  // `n` bytes at relative address `address`.
  std::string read(std::uint64_t address, std::uint64_t n, const char* what);

  std::uint64_t size() const { return file_.size(); }
  const FileGeometry& geometry() const { return file_.geometry(); }

 private:
  const CheckedFile& file_;
  std::string where_;
};

// Little-endian fields of a block, each read checked against the block's end.
class Cursor {
 public:
  Cursor(const std::string& bytes, FileBytes& file, const char* what)
      : bytes_(bytes), file_(file), what_(what) {}

  std::uint64_t uint(unsigned width);
  void skip(std::uint64_t n);
  void need(std::uint64_t n) const;
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  FileBytes& file_;
  const char* what_;
  std::size_t pos_ = 0;
};

inline std::uint64_t align8(std::uint64_t n) { return (n + 7) & ~std::uint64_t{7}; }

// Message types (spec IV.A.2).
constexpr unsigned kDataspaceMessage = 0x01;
constexpr unsigned kDatatypeMessage = 0x03;
constexpr unsigned kOldFillValueMessage = 0x04;
constexpr unsigned kFillValueMessage = 0x05;
constexpr unsigned kExternalFileListMessage = 0x07;
constexpr unsigned kLayoutMessage = 0x08;
constexpr unsigned kFilterPipelineMessage = 0x0B;
constexpr unsigned kAttributeMessage = 0x0C;
constexpr unsigned kContinuationMessage = 0x10;
constexpr unsigned kSymbolTableMessage = 0x11;
constexpr unsigned kAttributeInfoMessage = 0x15;
// Message flags: the message is shared (its data refers to the message kept elsewhere).
constexpr unsigned kSharedMessageFlag = 0x02;

struct Message {
  unsigned type = 0;
  std::string data;
  unsigned flags = 0;  // bit 1: the message is shared (its data refers to the real one)
};

// The messages of an object header, continuation blocks followed (spec IV.A.1); a header
// whose continuation blocks repeat, or with more blocks or messages than any real file
// has, is refused.
class ObjectHeader {
 public:
  ObjectHeader(FileBytes& file, std::uint64_t address);
  const std::vector<Message>& messages() const { return messages_; }

 private:
  void add(unsigned type, std::string data, unsigned flags);
  std::pair<std::uint64_t, std::uint64_t> continuation(const std::string& data);
  void read_v1(std::uint64_t address);
  void read_v2(std::uint64_t address);

  FileBytes& file_;
  std::vector<Message> messages_;
  int blocks_ = 0;
  std::set<std::uint64_t> seen_;
};

}  // namespace strata::io::h5
