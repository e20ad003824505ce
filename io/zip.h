// A small ZIP reader and writer over zlib (stored and deflate entries, Zip64 sizes on
// read), enough for Keras 3 `.keras` archives and NumPy `.npz` files. Archives are read
// whole into memory; every inconsistency is an IOError naming the archive and member.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::io {

class ZipReader {
 public:
  // Reads and indexes the archive at `path` (IOError when it is not a readable ZIP).
  explicit ZipReader(const std::string& path);
  // From bytes already in memory; `source` names them in messages.
  ZipReader(std::string bytes, std::string source);

  const std::vector<std::string>& names() const { return names_; }
  bool contains(const std::string& name) const;
  // The member's uncompressed bytes, CRC-checked.
  std::string read(const std::string& name) const;
  const std::string& source() const { return source_; }

 private:
  struct Entry {
    std::string name;
    std::uint16_t method = 0;
    std::uint32_t crc = 0;
    std::uint64_t compressed = 0, uncompressed = 0, local_offset = 0;
  };
  void index();
  std::string bytes_;
  std::string source_;
  std::vector<Entry> entries_;
  std::vector<std::string> names_;
};

class ZipWriter {
 public:
  // Adds a member; deflate-compressed unless `compress` is false.
  void add(const std::string& name, const std::string& data, bool compress = true);
  // The finished archive's bytes.
  std::string finish() const;

 private:
  struct Entry {
    std::string name;
    std::uint16_t method;
    std::uint32_t crc;
    std::uint32_t compressed, uncompressed, offset;
  };
  std::string body_;
  std::vector<Entry> entries_;
};

// True when `path` starts with a ZIP signature.
bool is_zip_file(const std::string& path);

// Reads a whole file (IOError naming it when that fails).
std::string read_file_bytes(const std::string& path);

}  // namespace strata::io
