#include "io/idx.h"

#include <zlib.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/error.h"
#include "io/safe_file.h"

namespace strata::io {

namespace {

// A gzip or plain file, read sequentially: zlib reads uncompressed files transparently.
class GzReader {
 public:
  explicit GzReader(const std::string& path) : path_(path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw IOError("IDX file '" + path + "' does not exist");
    }
    if (std::filesystem::is_directory(path, ec)) {
      throw IOError("IDX file '" + path + "' is a directory, expected a file");
    }
    file_ = gzopen(path.c_str(), "rb");
    if (!file_) {
      throw IOError("cannot open IDX file '" + path + "': " + std::strerror(errno));
    }
    gzbuffer(file_, 1 << 18);
  }
  ~GzReader() {
    if (file_) gzclose_r(file_);
  }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  // Reads up to n bytes; returns how many were read. Throws IOError on corrupt data
  // (a truncated gzip stream counts as a short read, reported by the caller).
  std::size_t read(void* out, std::size_t n) {
    auto* dst = static_cast<unsigned char*>(out);
    std::size_t total = 0;
    while (total < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - total, 1u << 30));
      const int got = gzread(file_, dst + total, chunk);
      if (got < 0) {
        int code = 0;
        const char* msg = gzerror(file_, &code);
        if (code == Z_BUF_ERROR) break;  // unexpected end of a gzip stream: short read
        throw IOError("cannot read IDX file '" + path_ + "': " + (msg ? msg : "zlib error") +
                      " (corrupt gzip data?)");
      }
      if (got == 0) break;
      total += static_cast<std::size_t>(got);
    }
    return total;
  }

 private:
  std::string path_;
  gzFile file_ = nullptr;
};

std::size_t element_size(std::uint8_t type_code) {
  switch (type_code) {
    case 0x08:
    case 0x09:
      return 1;
    case 0x0B:
      return 2;
    case 0x0C:
    case 0x0D:
      return 4;
    case 0x0E:
      return 8;
    default:
      return 0;
  }
}

std::string hex_byte(unsigned v) {
  static const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[(v >> 4) & 0xF] + digits[v & 0xF];
}

std::string dims_string(const std::vector<std::int64_t>& dims) {
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  if (dims.size() == 1) s += ",";
  return s + ")";
}

std::uint32_t load_be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

IdxHeader parse_header(GzReader& in, const std::string& path) {
  unsigned char magic[4];
  const std::size_t got = in.read(magic, 4);
  if (got < 4) {
    throw IOError("IDX file '" + path + "' is truncated: expected a 4-byte magic number, found " +
                  std::to_string(got) + " bytes");
  }
  IdxHeader header;
  header.type_code = magic[2];
  if (magic[0] != 0 || magic[1] != 0 || element_size(magic[2]) == 0) {
    throw IOError("IDX file '" + path +
                  "' has a bad magic number: expected 00 00 <type> <rank> "
                  "with type one of 0x08 0x09 0x0b 0x0c 0x0d 0x0e, found " +
                  hex_byte(magic[0]) + " " + hex_byte(magic[1]) + " " + hex_byte(magic[2]) + " " +
                  hex_byte(magic[3]));
  }
  const int rank = magic[3];
  std::vector<unsigned char> raw(static_cast<std::size_t>(rank) * 4);
  const std::size_t got_dims = in.read(raw.data(), raw.size());
  if (got_dims < raw.size()) {
    throw IOError("IDX file '" + path + "' is truncated: expected " + std::to_string(rank) +
                  " dimensions (" + std::to_string(raw.size()) + " bytes) after the magic, found " +
                  std::to_string(got_dims) + " bytes");
  }
  for (int i = 0; i < rank; ++i) header.dims.push_back(load_be32(&raw[4 * i]));
  return header;
}

template <typename Src>
Src load_be(const unsigned char* p) {
  std::make_unsigned_t<std::conditional_t<
      sizeof(Src) == 8, std::int64_t,
      std::conditional_t<sizeof(Src) == 4, std::int32_t,
                         std::conditional_t<sizeof(Src) == 2, std::int16_t, std::int8_t>>>>
      bits = 0;
  for (std::size_t i = 0; i < sizeof(Src); ++i) bits = (bits << 8) | p[i];
  return std::bit_cast<Src>(bits);
}

template <typename Dst>
void idx_convert(std::uint8_t type_code, const unsigned char* src, Dst* dst, std::int64_t n) {
  switch (type_code) {
    case 0x08:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<Dst>(src[i]);
      break;
    case 0x09:
      for (std::int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<Dst>(static_cast<std::int8_t>(src[i]));
      break;
    case 0x0B:
      for (std::int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<Dst>(load_be<std::int16_t>(src + 2 * i));
      break;
    case 0x0C:
      for (std::int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<Dst>(load_be<std::int32_t>(src + 4 * i));
      break;
    case 0x0D:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<Dst>(load_be<float>(src + 4 * i));
      break;
    case 0x0E:
      for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<Dst>(load_be<double>(src + 8 * i));
      break;
  }
}

}  // namespace

IdxHeader read_idx_header(const std::string& path) {
  GzReader in(path);
  return parse_header(in, path);
}

Tensor read_idx(const std::string& path, DType dtype) {
  GzReader in(path);
  const IdxHeader header = parse_header(in, path);
  const bool float_data = header.type_code == 0x0D || header.type_code == 0x0E;
  if (float_data && dtype != DType::float32) {
    throw ValueError("IDX file '" + path + "' holds floating-point data; reading it as " +
                     to_string(dtype) + " would truncate values");
  }
  std::int64_t count = 1;
  for (std::int64_t d : header.dims) {
    if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / 16 / d) {
      throw IOError("IDX file '" + path + "' declares dimensions " + dims_string(header.dims) +
                    ", too large to load");
    }
    count *= d;
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * element_size(header.type_code);
  // Read in steps, so that memory follows the data actually there, not what a damaged
  // header claims (a 20-byte file may declare 2^40 elements).
  std::vector<unsigned char> raw;
  std::size_t got = 0;
  while (got < bytes) {
    const std::size_t step = std::min<std::size_t>(bytes - got, std::size_t{1} << 24);
    raw.resize(got + step);
    const std::size_t n = in.read(raw.data() + got, step);
    got += n;
    if (n < step) break;
  }
  if (got < bytes) {
    throw IOError("IDX file '" + path + "' is truncated: dimensions " + dims_string(header.dims) +
                  " need " + std::to_string(bytes) + " data bytes after the header, found " +
                  std::to_string(got));
  }
  unsigned char extra = 0;
  if (in.read(&extra, 1) != 0) {
    throw IOError("IDX file '" + path + "' has data past the " + std::to_string(bytes) +
                  " bytes that dimensions " + dims_string(header.dims) +
                  " declare: not an IDX file, or a wrong header");
  }
  Tensor out(Shape(header.dims), dtype);
  switch (dtype) {
    case DType::float32:
      idx_convert(header.type_code, raw.data(), out.data<float>(), count);
      break;
    case DType::int32:
      idx_convert(header.type_code, raw.data(), out.data<std::int32_t>(), count);
      break;
    case DType::int64:
      idx_convert(header.type_code, raw.data(), out.data<std::int64_t>(), count);
      break;
    case DType::string:
      throw ValueError("IDX file '" + path + "' holds numbers; it cannot be read as strings");
  }
  return out;
}

Tensor read_idx_images(const std::string& path) {
  const IdxHeader header = read_idx_header(path);
  if (header.dims.size() < 2) {
    throw IOError("IDX file '" + path +
                  "' should hold images (rank >= 2, e.g. (N, 28, 28)), "
                  "found rank " +
                  std::to_string(header.dims.size()) + " with dimensions " +
                  dims_string(header.dims));
  }
  return read_idx(path, DType::float32);
}

Tensor read_idx_labels(const std::string& path) {
  const IdxHeader header = read_idx_header(path);
  if (header.dims.size() != 1) {
    throw IOError("IDX file '" + path + "' should hold labels (rank 1, (N,)), found rank " +
                  std::to_string(header.dims.size()) + " with dimensions " +
                  dims_string(header.dims));
  }
  return read_idx(path, DType::int64);
}

void write_idx_uint8(const std::string& path, const std::vector<std::int64_t>& dims,
                     const std::vector<std::uint8_t>& values) {
  std::int64_t count = 1;
  for (std::int64_t d : dims) count *= d;
  if (count != static_cast<std::int64_t>(values.size())) {
    throw ValueError("write_idx_uint8: dimensions " + dims_string(dims) + " hold " +
                     std::to_string(count) + " elements, got " + std::to_string(values.size()));
  }
  std::string bytes = {0, 0, 0x08, static_cast<char>(dims.size())};
  for (std::int64_t d : dims) {
    const auto v = static_cast<std::uint32_t>(d);  // big-endian
    for (int shift : {24, 16, 8, 0}) bytes += static_cast<char>((v >> shift) & 0xff);
  }
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size());
  write_file_atomically(path, bytes);
}

}  // namespace strata::io
