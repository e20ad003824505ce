// Dataset sources backed by files: .npy / .npz (a small reader of Strata's own, enough
// for NumPy's np.save / np.savez / np.savez_compressed output), CSV and IDX.
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "io/csv.h"
#include "io/dataset.h"
#include "io/idx.h"

namespace strata {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("cannot open '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <typename T>
T le(const std::string& b, std::size_t at, const std::string& what) {
  if (at + sizeof(T) > b.size()) throw IOError(what + ": truncated");
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

// One .npy payload -> Tensor (float32 for floats and bool, int64 for integers).
Tensor parse_npy(const std::string& b, const std::string& where) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw IOError(where + ": not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(b[6]);
  std::size_t header_len, offset;
  if (major == 1) {
    header_len = le<std::uint16_t>(b, 8, where);
    offset = 10;
  } else {
    header_len = le<std::uint32_t>(b, 8, where);
    offset = 12;
  }
  std::string header = b.substr(offset, header_len);
  auto field = [&](const std::string& key) {
    auto k = header.find("'" + key + "'");
    if (k == std::string::npos) throw IOError(where + ": header has no '" + key + "': " + header);
    return header.substr(header.find(':', k) + 1);
  };
  std::string descr = field("descr");
  descr = descr.substr(descr.find('\'') + 1);
  descr = descr.substr(0, descr.find('\''));
  if (field("fortran_order").find("True") < field("fortran_order").find(',')) {
    throw IOError(where + ": Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  }
  std::string shape_text = field("shape");
  shape_text = shape_text.substr(shape_text.find('(') + 1);
  shape_text = shape_text.substr(0, shape_text.find(')'));
  std::vector<std::int64_t> dims;
  std::stringstream ss(shape_text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.find_first_of("0123456789") != std::string::npos) dims.push_back(std::stoll(part));
  }
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  const char* data = b.data() + offset + header_len;
  const std::size_t available = b.size() - offset - header_len;
  char order = descr.empty() ? '?' : descr[0];
  if (order == '>') throw IOError(where + ": big-endian arrays are not supported ('" + descr + "')");
  std::string kind = descr.substr(1);
  auto need = [&](std::size_t bytes) {
    if (available < bytes * static_cast<std::size_t>(n)) {
      throw IOError(where + ": truncated data (" + std::to_string(available) + " bytes for " + std::to_string(n) +
                    " elements of '" + descr + "')");
    }
  };
  auto convert = [&](auto tag, DType dtype) {
    using T = decltype(tag);
    need(sizeof(T));
    Tensor out{Shape(dims), dtype};
    for (std::int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, data + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
      if (dtype == DType::float32) {
        out.data<float>()[i] = static_cast<float>(v);
      } else {
        out.data<std::int64_t>()[i] = static_cast<std::int64_t>(v);
      }
    }
    return out;
  };
  if (kind == "f4") return convert(float{}, DType::float32);
  if (kind == "f8") return convert(double{}, DType::float32);
  if (kind == "b1") return convert(std::uint8_t{}, DType::float32);
  if (kind == "u1") return convert(std::uint8_t{}, DType::int64);
  if (kind == "i1") return convert(std::int8_t{}, DType::int64);
  if (kind == "i2") return convert(std::int16_t{}, DType::int64);
  if (kind == "i4") return convert(std::int32_t{}, DType::int64);
  if (kind == "i8") return convert(std::int64_t{}, DType::int64);
  if (kind == "u2") return convert(std::uint16_t{}, DType::int64);
  if (kind == "u4") return convert(std::uint32_t{}, DType::int64);
  throw IOError(where + ": unsupported dtype '" + descr + "'");
}

std::string inflate_raw(const char* data, std::size_t size, std::size_t expected, const std::string& where) {
  std::string out(expected, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw IOError(where + ": zlib init failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  zs.avail_in = static_cast<uInt>(size);
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(expected);
  int rc = inflate(&zs, Z_FINISH);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) throw IOError(where + ": corrupt deflate data");
  return out;
}

// The members of a zip archive (central directory; zip64 sizes; stored or deflated).
std::map<std::string, std::string> read_zip(const std::string& path) {
  std::string b = read_file(path);
  std::size_t eocd = b.rfind(std::string("PK\x05\x06", 4));
  if (eocd == std::string::npos) throw IOError(path + ": not a zip/.npz archive (no end of central directory)");
  std::uint64_t entries = le<std::uint16_t>(b, eocd + 10, path);
  std::uint64_t cd = le<std::uint32_t>(b, eocd + 16, path);
  if (cd == 0xFFFFFFFFu || entries == 0xFFFF) {
    std::size_t loc = b.rfind(std::string("PK\x06\x07", 4), eocd);
    if (loc == std::string::npos) throw IOError(path + ": zip64 locator missing");
    std::uint64_t z64 = le<std::uint64_t>(b, loc + 8, path);
    entries = le<std::uint64_t>(b, z64 + 32, path);
    cd = le<std::uint64_t>(b, z64 + 48, path);
  }
  std::map<std::string, std::string> members;
  std::size_t at = cd;
  for (std::uint64_t e = 0; e < entries; ++e) {
    if (le<std::uint32_t>(b, at, path) != 0x02014b50u) throw IOError(path + ": corrupt central directory");
    std::uint16_t method = le<std::uint16_t>(b, at + 10, path);
    std::uint64_t csize = le<std::uint32_t>(b, at + 20, path), usize = le<std::uint32_t>(b, at + 24, path);
    std::uint16_t name_len = le<std::uint16_t>(b, at + 28, path), extra_len = le<std::uint16_t>(b, at + 30, path);
    std::uint16_t comment_len = le<std::uint16_t>(b, at + 32, path);
    std::uint64_t local = le<std::uint32_t>(b, at + 42, path);
    std::string name = b.substr(at + 46, name_len);
    // zip64 extra field: the 0xFFFFFFFF fields, in order usize, csize, offset.
    std::size_t x = at + 46 + name_len, x_end = x + extra_len;
    while (x + 4 <= x_end) {
      std::uint16_t id = le<std::uint16_t>(b, x, path), len = le<std::uint16_t>(b, x + 2, path);
      if (id == 0x0001) {
        std::size_t p = x + 4;
        if (usize == 0xFFFFFFFFu) usize = le<std::uint64_t>(b, p, path), p += 8;
        if (csize == 0xFFFFFFFFu) csize = le<std::uint64_t>(b, p, path), p += 8;
        if (local == 0xFFFFFFFFu) local = le<std::uint64_t>(b, p, path);
      }
      x += 4 + len;
    }
    std::size_t data = local + 30 + le<std::uint16_t>(b, local + 26, path) + le<std::uint16_t>(b, local + 28, path);
    if (data + csize > b.size()) throw IOError(path + ": member '" + name + "' is truncated");
    if (method == 0) {
      members[name] = b.substr(data, csize);
    } else if (method == 8) {
      members[name] = inflate_raw(b.data() + data, csize, usize, path + ":" + name);
    } else {
      throw IOError(path + ": member '" + name + "' uses unsupported compression method " + std::to_string(method));
    }
    at += 46 + name_len + extra_len + comment_len;
  }
  return members;
}

}  // namespace

Dataset Dataset::from_npy(const std::string& x_path, const std::string& y_path) {
  Tensor x = parse_npy(read_file(x_path), x_path);
  if (y_path.empty()) return from_tensors(std::vector<Tensor>{x});
  return from_tensors(x, parse_npy(read_file(y_path), y_path));
}

Dataset Dataset::from_npz(const std::string& path, const std::string& x_key, const std::string& y_key) {
  auto members = read_zip(path);
  auto get = [&](const std::string& key) {
    auto it = members.find(key + ".npy");
    if (it == members.end()) {
      std::string known;
      for (const auto& [k, v] : members) known += (known.empty() ? "'" : ", '") + k.substr(0, k.size() - 4) + "'";
      throw ValueError(path + " has no array '" + key + "'; it holds " + known);
    }
    return parse_npy(it->second, path + ":" + key);
  };
  Tensor x = get(x_key);
  if (y_key.empty()) return from_tensors(std::vector<Tensor>{x});
  return from_tensors(x, get(y_key));
}

Dataset Dataset::from_csv(const std::string& path, const CsvDatasetOptions& options) {
  io::CsvTable table = io::read_csv(path, {.header = options.header, .delimiter = options.delimiter});
  std::vector<std::string> features = options.columns;
  if (features.empty()) {
    for (const auto& c : table.columns) {
      if (c != options.label_column) features.push_back(c);
    }
  }
  Tensor x = table.select(features);
  if (options.label_column.empty()) return from_tensors(std::vector<Tensor>{x});
  Tensor y = table.select({options.label_column});
  return from_tensors(x, y.reshaped(Shape{table.rows}));
}

Dataset Dataset::from_idx(const std::string& images_path, const std::string& labels_path) {
  return from_tensors(io::read_idx_images(images_path), io::read_idx_labels(labels_path));
}

}  // namespace strata
