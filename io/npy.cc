#include "io/npy.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>
#include <regex>

#include "core/error.h"
#include "core/string_pool.h"
#include "io/safe_file.h"
#include "io/zip.h"

namespace strata::io {

namespace {

template <typename From, typename To>
void convert(const char* src, To* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, src + i * static_cast<std::int64_t>(sizeof(From)), sizeof(From));
    dst[i] = static_cast<To>(v);
  }
}

}  // namespace

namespace {

// NumPy's string arrays: 'U<n>' (n UTF-32LE code points per element, NUL-padded) and
// 'S<n>' (n bytes, NUL-padded), read as string tensors (UTF-8).
void append_utf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// The code points of UTF-8 text; false when it is not valid UTF-8.
bool utf8_code_points(std::string_view s, std::vector<std::uint32_t>& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= s.size() + (extra == 0 ? 1 : 0)) return false;
    std::uint32_t c = extra == 0 ? b : b & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto n = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((n & 0xC0) != 0x80) return false;
      c = (c << 6) | (n & 0x3F);
    }
    out.push_back(c);
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

Tensor strings_from_npy(const std::string& b, std::size_t data, const Shape& shape, std::int64_t n,
                        const std::string& descr, const std::string& source) {
  const bool wide = descr[1] == 'U';
  std::size_t width = 0;
  try {
    width = static_cast<std::size_t>(std::stoul(descr.substr(2)));
  } catch (const std::exception&) {
    throw IOError("'" + source + "': dtype '" + descr + "' has no element size");
  }
  // NumPy never writes a string dtype of size 0 ('U0' arrays are saved as 'U1'); with
  // elements of no bytes, a shape of a billion would be read from a file of a hundred
  // bytes. A size past the file's data is damage too, where there are elements to read;
  // an array of none has no data, but its size must still not overflow below (2^62
  // characters are 0 bytes in 64 bits: a division by zero, which fuzz_npy found).
  constexpr std::size_t kMaxStringWidth = std::size_t{1} << 40;
  if (width == 0 || width > kMaxStringWidth || (n > 0 && width > b.size() - data)) {
    throw IOError("'" + source + "': dtype '" + descr + "' declares elements of " + std::to_string(width) +
                  (wide ? " characters" : " bytes") + ", and the data holds " + std::to_string(b.size() - data) +
                  " bytes");
  }
  const std::size_t item = width * (wide ? 4 : 1);
  if ((b.size() - data) / item < static_cast<std::size_t>(n)) {
    throw IOError("'" + source + "': data holds " + std::to_string(b.size() - data) + " bytes, shape " +
                  shape.to_string() + " of '" + descr + "' needs " + std::to_string(n) + " elements of " +
                  std::to_string(item) + " (truncated?)");
  }
  Tensor t(shape, DType::string);
  StringValue* out = t.data<StringValue>();
  std::string text;
  for (std::int64_t i = 0; i < n; ++i) {
    const char* e = b.data() + data + static_cast<std::size_t>(i) * item;
    text.clear();
    if (wide) {
      for (std::size_t k = 0; k < width; ++k) {
        std::uint32_t c;
        std::memcpy(&c, e + 4 * k, 4);
        if (c == 0) break;  // NumPy pads with NULs (and drops trailing ones)
        if (c > 0x10FFFF) throw IOError("'" + source + "': element " + std::to_string(i) + " is not Unicode text");
        append_utf8(text, c);
      }
    } else {
      std::size_t len = width;
      while (len > 0 && e[len - 1] == '\0') --len;
      text.assign(e, len);
    }
    out[i] = intern_string(text);
  }
  return t;
}

// Writes a string tensor's elements as 'U<n>' (or 'S<n>' when one is not UTF-8) into
// `data` and returns the descr.
std::string strings_to_npy(const Tensor& t, std::string& data) {
  std::vector<std::vector<std::uint32_t>> points(static_cast<std::size_t>(t.size()));
  bool utf8 = true;
  std::size_t width = 1, bytes = 1;
  const StringValue* v = t.data<StringValue>();
  for (std::int64_t i = 0; i < t.size(); ++i) {
    bytes = std::max<std::size_t>(bytes, v[i].size);
    if (utf8 && !utf8_code_points(v[i].view(), points[static_cast<std::size_t>(i)])) utf8 = false;
    if (utf8) width = std::max(width, points[static_cast<std::size_t>(i)].size());
  }
  if (!utf8) {
    for (std::int64_t i = 0; i < t.size(); ++i) {
      data.append(v[i].view());
      data.append(bytes - v[i].size, '\0');
    }
    return "|S" + std::to_string(bytes);
  }
  for (const auto& p : points) {
    for (std::size_t k = 0; k < width; ++k) {
      const std::uint32_t c = k < p.size() ? p[k] : 0;
      data.append(reinterpret_cast<const char*>(&c), 4);
    }
  }
  return "<U" + std::to_string(width);
}

}  // namespace

Tensor npy_from_bytes(const std::string& b, const std::string& source) {
  const std::string bad = "'" + source + "' is not a valid .npy file: ";
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0)
    throw IOError(bad + "no \\x93NUMPY signature");
  const int major = static_cast<unsigned char>(b[6]);
  std::size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(b[8]) |
                 (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw IOError(bad + "truncated header");
    for (int i = 3; i >= 0; --i)
      header_len =
          (header_len << 8) | static_cast<unsigned char>(b[8 + static_cast<std::size_t>(i)]);
    start = 12;
  } else {
    throw IOError(bad + "unknown format version " + std::to_string(major));
  }
  if (start + header_len > b.size())
    throw IOError(bad + "header runs past the end of the file (truncated?)");
  // NumPy's own limit (np.load's max_header_size); it also keeps the regular expressions
  // below, which recurse per character, off long inputs.
  constexpr std::size_t kMaxHeader = 10000;
  if (header_len > kMaxHeader)
    throw IOError(bad + "a header of " + std::to_string(header_len) + " bytes, over NumPy's limit of " +
                  std::to_string(kMaxHeader));
  const std::string header = b.substr(start, header_len);
  std::smatch m;
  static const std::regex descr_re("'descr'\\s*:\\s*'([^']*)'");
  static const std::regex fortran_re("'fortran_order'\\s*:\\s*(True|False)");
  static const std::regex shape_re("'shape'\\s*:\\s*\\(([^)]*)\\)");
  if (!std::regex_search(header, m, descr_re))
    throw IOError(bad + "header has no 'descr': " + header);
  const std::string descr = m[1];
  if (std::regex_search(header, m, fortran_re) && m[1] == "True") {
    throw NotImplementedError(
        "'" + source +
        "': Fortran-order arrays are not supported (save with np.ascontiguousarray)");
  }
  if (!std::regex_search(header, m, shape_re))
    throw IOError(bad + "header has no 'shape': " + header);
  std::vector<std::int64_t> dims;
  const std::string shape_text = m[1];
  static const std::regex dim_re("(\\d+)");
  for (auto it = std::sregex_iterator(shape_text.begin(), shape_text.end(), dim_re);
       it != std::sregex_iterator(); ++it) {
    const std::string d = (*it)[1];
    if (d.size() > 15) throw IOError(bad + "implausible dimension " + d);
    dims.push_back(std::stoll(d));
  }
  constexpr std::size_t kMaxRank = 64;  // NumPy 2's NPY_MAXDIMS
  if (dims.size() > kMaxRank)
    throw IOError(bad + "a shape of rank " + std::to_string(dims.size()) + ", over NumPy's limit of " +
                  std::to_string(kMaxRank));
  Shape shape(dims);
  std::int64_t n = 1;
  for (auto d : dims) {
    if (d != 0 && n > (std::int64_t{1} << 40) / d)
      throw IOError(bad + "implausible shape " + shape.to_string());
    n *= d;
  }
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '=')) {
    throw NotImplementedError("'" + source + "': dtype '" + descr +
                              "' is not supported (little-endian numbers are)");
  }
  const std::string kind = descr.substr(1);
  if (kind[0] == 'U' || kind[0] == 'S') return strings_from_npy(b, start + header_len, shape, n, descr, source);
  std::size_t item = 0;
  DType dtype = DType::float32;
  if (kind == "f4" || kind == "f8") {
    item = kind == "f4" ? 4 : 8;
  } else if (kind == "i8" || kind == "u4") {
    item = kind == "i8" ? 8 : 4;
    dtype = DType::int64;
  } else if (kind == "i4" || kind == "i2" || kind == "u2" || kind == "i1" || kind == "u1" ||
             kind == "b1") {
    item = static_cast<std::size_t>(kind[1] - '0');
    dtype = DType::int32;
  } else {
    throw NotImplementedError("'" + source + "': dtype '" + descr + "' is not supported");
  }
  const std::size_t data = start + header_len;
  if (b.size() - data < static_cast<std::size_t>(n) * item) {
    throw IOError(bad + "data holds " + std::to_string(b.size() - data) + " bytes, shape " +
                  shape.to_string() + " of '" + descr + "' needs " +
                  std::to_string(static_cast<std::size_t>(n) * item) + " (truncated?)");
  }
  Tensor t(shape, dtype);
  const char* src = b.data() + data;
  if (kind == "f4")
    convert<float>(src, t.data<float>(), n);
  else if (kind == "f8")
    convert<double>(src, t.data<float>(), n);
  else if (kind == "i8")
    convert<std::int64_t>(src, t.data<std::int64_t>(), n);
  else if (kind == "u4")
    convert<std::uint32_t>(src, t.data<std::int64_t>(), n);
  else if (kind == "i4")
    convert<std::int32_t>(src, t.data<std::int32_t>(), n);
  else if (kind == "i2")
    convert<std::int16_t>(src, t.data<std::int32_t>(), n);
  else if (kind == "u2")
    convert<std::uint16_t>(src, t.data<std::int32_t>(), n);
  else if (kind == "i1")
    convert<std::int8_t>(src, t.data<std::int32_t>(), n);
  else
    convert<std::uint8_t>(src, t.data<std::int32_t>(), n);  // u1, b1
  return t;
}

std::string npy_to_bytes(const Tensor& t) {
  std::string string_data;
  const std::string descr = t.dtype() == DType::string ? strings_to_npy(t, string_data)
                            : t.dtype() == DType::float32 ? "<f4"
                            : t.dtype() == DType::int32   ? "<i4"
                                                          : "<i8";
  std::string shape;
  for (int i = 0; i < t.rank(); ++i)
    shape += (i ? ", " : "") + std::to_string(t.shape().dims()[static_cast<std::size_t>(i)]);
  if (t.rank() == 1) shape += ",";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  if (t.dtype() == DType::string) {
    out += string_data;
  } else {
    out.append(static_cast<const char*>(t.raw_data()), t.nbytes());
  }
  return out;
}

Tensor load_npy(const std::string& path) { return npy_from_bytes(read_file_bytes(path), path); }

void save_npy(const std::string& path, const Tensor& tensor) {
  write_file_atomically(path, npy_to_bytes(tensor));
}

std::vector<std::pair<std::string, Tensor>> load_npz(const std::string& path) {
  ZipReader zip(path);
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& name : zip.names()) {
    std::string key = name.ends_with(".npy") ? name.substr(0, name.size() - 4) : name;
    out.emplace_back(key, npy_from_bytes(zip.read(name), path + "' member '" + name));
  }
  return out;
}

void save_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays,
              bool compressed) {
  ZipWriter zip;
  for (const auto& [name, t] : arrays) zip.add(name + ".npy", npy_to_bytes(t), compressed);
  write_file_atomically(path, zip.finish());
}

}  // namespace strata::io
