#include "io/zip.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.h"

namespace strata::io {

namespace {

std::uint64_t le(const std::string& b, std::size_t at, int n, const std::string& source) {
  // Not `at + n > size`: an offset read from a damaged Zip64 field can be near 2^64, and
  // the sum wraps to a small number that passes (fuzz_npz's finding).
  if (at > b.size() || static_cast<std::size_t>(n) > b.size() - at) {
    throw IOError("'" + source + "' is not a valid ZIP archive: a record at byte " +
                  std::to_string(at) + " runs past the end of the file (truncated?)");
  }
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}

void put(std::string& out, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("cannot open '" + path + "': " + std::strerror(errno));
  // In blocks, not a character at a time through istreambuf_iterator (7% of the time
  // from load_model to the first prediction of ResNet50). The first block is the file's
  // size and one byte, so that one read reaches the end; later ones (a file that grew, or
  // one of unknown size) a megabyte. A megabyte for every file zero-filled 1 MB to read a
  // 500-byte one: the fuzzers of .npz files, which read each input so, ran at a seventh of
  // their speed under AddressSanitizer, most of it in the kernel's page faults.
  std::string bytes;
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  in.clear();
  in.seekg(0, std::ios::beg);
  in.clear();
  std::size_t block = end >= 0 ? static_cast<std::size_t>(end) + 1 : kBlock;
  for (;;) {
    const std::size_t old_size = bytes.size();
    bytes.resize(old_size + block);
    in.read(bytes.data() + old_size, static_cast<std::streamsize>(block));
    bytes.resize(old_size + static_cast<std::size_t>(in.gcount()));
    if (!in) break;
    block = kBlock;
  }
  if (in.bad()) throw IOError("cannot read '" + path + "'");
  return bytes;
}

bool is_zip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char sig[4] = {};
  if (!in.read(sig, 4)) return false;
  return sig[0] == 'P' && sig[1] == 'K' &&
         ((sig[2] == 3 && sig[3] == 4) || (sig[2] == 5 && sig[3] == 6));
}

ZipReader::ZipReader(const std::string& path) : bytes_(read_file_bytes(path)), source_(path) {
  index();
}

ZipReader::ZipReader(std::string bytes, std::string source)
    : bytes_(std::move(bytes)), source_(std::move(source)) {
  index();
}

void ZipReader::index() {
  const std::string& b = bytes_;
  const std::string bad = "'" + source_ + "' is not a valid ZIP archive: ";
  if (b.size() < 22)
    throw IOError(bad + "only " + std::to_string(b.size()) + " bytes (truncated?)");
  std::size_t eocd = std::string::npos;
  const std::size_t lowest = b.size() > 65557 ? b.size() - 65557 : 0;
  for (std::size_t i = b.size() - 22 + 1; i-- > lowest;) {
    if (le(b, i, 4, source_) == 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string::npos)
    throw IOError(bad + "no end-of-central-directory record (truncated?)");
  std::uint64_t count = le(b, eocd + 10, 2, source_);
  std::uint64_t cd_offset = le(b, eocd + 16, 4, source_);
  if (cd_offset == 0xffffffffu || count == 0xffff) {  // Zip64 end of central directory
    if (eocd < 20 || le(b, eocd - 20, 4, source_) != 0x07064b50)
      throw IOError(bad + "missing Zip64 locator");
    std::uint64_t z64 = le(b, eocd - 20 + 8, 8, source_);
    if (le(b, z64, 4, source_) != 0x06064b50) throw IOError(bad + "bad Zip64 end record");
    count = le(b, z64 + 32, 8, source_);
    cd_offset = le(b, z64 + 48, 8, source_);
  }
  std::size_t at = cd_offset;
  for (std::uint64_t n = 0; n < count; ++n) {
    if (le(b, at, 4, source_) != 0x02014b50) {
      throw IOError(bad + "central directory entry " + std::to_string(n) + " at byte " +
                    std::to_string(at) + " has a bad signature");
    }
    Entry e;
    e.method = static_cast<std::uint16_t>(le(b, at + 10, 2, source_));
    e.crc = static_cast<std::uint32_t>(le(b, at + 16, 4, source_));
    e.compressed = le(b, at + 20, 4, source_);
    e.uncompressed = le(b, at + 24, 4, source_);
    std::size_t name_len = le(b, at + 28, 2, source_), extra_len = le(b, at + 30, 2, source_),
                comment_len = le(b, at + 32, 2, source_);
    e.local_offset = le(b, at + 42, 4, source_);
    if (at + 46 + name_len + extra_len > b.size())
      throw IOError(bad + "central directory runs past the end");
    e.name = b.substr(at + 46, name_len);
    // Zip64 extended information: the 0xffffffff fields, in order.
    std::size_t x = at + 46 + name_len, x_end = x + extra_len;
    while (x + 4 <= x_end) {
      std::size_t id = le(b, x, 2, source_), len = le(b, x + 2, 2, source_);
      if (id == 0x0001) {
        std::size_t p = x + 4;
        if (e.uncompressed == 0xffffffffu) e.uncompressed = le(b, p, 8, source_), p += 8;
        if (e.compressed == 0xffffffffu) e.compressed = le(b, p, 8, source_), p += 8;
        if (e.local_offset == 0xffffffffu) e.local_offset = le(b, p, 8, source_);
      }
      x += 4 + len;
    }
    entries_.push_back(e);
    names_.push_back(e.name);
    at += 46 + name_len + extra_len + comment_len;
  }
}

bool ZipReader::contains(const std::string& name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

std::string ZipReader::read(const std::string& name) const {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.name == name; });
  const std::string where = "'" + source_ + "' member '" + name + "'";
  if (it == entries_.end()) {
    std::string have;
    for (const auto& n : names_) have += (have.empty() ? "" : ", ") + n;
    throw IOError("'" + source_ + "' has no member '" + name + "' (it holds: " + have + ")");
  }
  const Entry& e = *it;
  if (le(bytes_, e.local_offset, 4, source_) != 0x04034b50)
    throw IOError(where + ": bad local header signature");
  std::size_t data = e.local_offset + 30 + le(bytes_, e.local_offset + 26, 2, source_) +
                     le(bytes_, e.local_offset + 28, 2, source_);
  if (data > bytes_.size() || e.compressed > bytes_.size() - data) {
    throw IOError(where + ": data runs past the end of the archive (truncated?)");
  }
  if (e.uncompressed > (std::uint64_t{1} << 34))
    throw IOError(where + ": implausible size " + std::to_string(e.uncompressed));
  // The output buffer is sized from the directory before inflating: a damaged size must
  // not allocate gigabytes. Deflate expands at most 1032:1 (zlib's technical details).
  const std::uint64_t most = e.method == 0 ? e.compressed : e.compressed * 1032 + 1024;
  if (e.uncompressed > most) {
    throw IOError(where + ": the directory declares " + std::to_string(e.uncompressed) +
                  " bytes from " + std::to_string(e.compressed) + " stored" +
                  (e.method == 0 ? "" : " compressed") + " (the archive is damaged)");
  }
  std::string out;
  if (e.method == 0) {
    out = bytes_.substr(data, e.compressed);
  } else if (e.method == 8) {
    out.resize(e.uncompressed);
    z_stream s{};
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK) throw IOError(where + ": zlib init failed");
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes_.data() + data));
    s.avail_in = static_cast<uInt>(e.compressed);
    s.next_out = reinterpret_cast<Bytef*>(out.data());
    s.avail_out = static_cast<uInt>(out.size());
    int rc = inflate(&s, Z_FINISH);
    std::uint64_t produced = s.total_out;
    inflateEnd(&s);
    if (rc != Z_STREAM_END || produced != e.uncompressed)
      throw IOError(where + ": corrupt deflate data");
  } else {
    throw IOError(where + ": unsupported compression method " + std::to_string(e.method) +
                  " (stored and deflate are)");
  }
  if (out.size() != e.uncompressed) throw IOError(where + ": size mismatch");
  std::uint32_t crc = static_cast<std::uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
  if (crc != e.crc) throw IOError(where + ": CRC mismatch (the archive is damaged)");
  return out;
}

void ZipWriter::add(const std::string& name, const std::string& data, bool compress) {
  Entry e{name,
          0,
          0,
          0,
          static_cast<std::uint32_t>(data.size()),
          static_cast<std::uint32_t>(body_.size())};
  e.crc = static_cast<std::uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
  std::string payload = data;
  if (compress) {
    std::string out(compressBound(static_cast<uLong>(data.size())) + 64, '\0');
    z_stream s{};
    deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    s.avail_in = static_cast<uInt>(data.size());
    s.next_out = reinterpret_cast<Bytef*>(out.data());
    s.avail_out = static_cast<uInt>(out.size());
    int rc = deflate(&s, Z_FINISH);
    out.resize(s.total_out);
    deflateEnd(&s);
    if (rc != Z_STREAM_END) throw IOError("zip: cannot compress member '" + name + "'");
    payload = std::move(out);
    e.method = 8;
  }
  e.compressed = static_cast<std::uint32_t>(payload.size());
  put(body_, 0x04034b50, 4);
  put(body_, 20, 2);
  put(body_, 0x0800, 2);  // UTF-8 names
  put(body_, e.method, 2);
  put(body_, 0, 2);
  put(body_, 0x21, 2);  // 1980-01-01
  put(body_, e.crc, 4);
  put(body_, e.compressed, 4);
  put(body_, e.uncompressed, 4);
  put(body_, name.size(), 2);
  put(body_, 0, 2);
  body_ += name;
  body_ += payload;
  entries_.push_back(e);
}

std::string ZipWriter::finish() const {
  std::string out = body_;
  const std::size_t cd_start = out.size();
  for (const Entry& e : entries_) {
    put(out, 0x02014b50, 4);
    put(out, 20, 2);
    put(out, 20, 2);
    put(out, 0x0800, 2);
    put(out, e.method, 2);
    put(out, 0, 2);
    put(out, 0x21, 2);
    put(out, e.crc, 4);
    put(out, e.compressed, 4);
    put(out, e.uncompressed, 4);
    put(out, e.name.size(), 2);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, 0, 4);
    put(out, e.offset, 4);
    out += e.name;
  }
  const std::size_t cd_size = out.size() - cd_start;
  put(out, 0x06054b50, 4);
  put(out, 0, 2);
  put(out, 0, 2);
  put(out, entries_.size(), 2);
  put(out, entries_.size(), 2);
  put(out, cd_size, 4);
  put(out, cd_start, 4);
  put(out, 0, 2);
  return out;
}

}  // namespace strata::io
