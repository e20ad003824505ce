// IDX files: the format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/).
// A file is a 4-byte magic (0, 0, element type, rank), `rank` big-endian uint32
// dimensions, then the elements, row-major and big-endian. Files may be gzip-compressed
// (detected from the content, not the name).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"

namespace strata::io {

// What an IDX header declares.
struct IdxHeader {
  // The element type byte: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32,
  // 0x0E float64.
  std::uint8_t type_code = 0;
  std::vector<std::int64_t> dims;
};

// Reads only the header (cheap even for a large compressed file).
IdxHeader read_idx_header(const std::string& path);

// Reads the whole file as a tensor of `dtype`, values converted exactly as numbers
// (uint8 pixels 0..255 stay 0..255: no scaling). Throws IOError naming the file for a
// missing file, a bad magic, an unknown element type, or a truncated or over-long file.
Tensor read_idx(const std::string& path, DType dtype);

// Images: rank >= 2 (e.g. (N, 28, 28)) as float32 with raw values.
Tensor read_idx_images(const std::string& path);
// Labels: rank 1 (N,) as int64.
Tensor read_idx_labels(const std::string& path);

// Writes an uncompressed IDX file of uint8 elements; used by tests and tools.
void write_idx_uint8(const std::string& path, const std::vector<std::int64_t>& dims,
                     const std::vector<std::uint8_t>& values);

}  // namespace strata::io
