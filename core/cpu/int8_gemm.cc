#include "core/cpu/int8_gemm.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/isa_kernels.h"
#include "core/cpu/parallel.h"
#include "core/cpu/quantize_row.h"
#include "core/error.h"

namespace strata::cpu {

namespace {

// How a path packs its operands: k rounded up to `group` steps, B in panels of `width`
// columns, each step of a panel `group` consecutive k of a column side by side (what one
// lane of the path's multiply-add takes); elements of `bytes` (2: widened to int16); A's
// bytes offset by 128 to unsigned where the instruction wants them so (VNNI).
struct Int8Layout {
  std::int64_t group, width, bytes;
  bool unsigned_a;
  Int8PanelsKernel kernel;
};

constexpr std::int64_t kPortableInt8PanelWidth = 64;

// Row i's sums for columns [col0, col0 + cols) written as `out` says.
void write_int8_row(const std::int32_t* row, std::int64_t i, std::int64_t col0, std::int64_t cols,
                    const Int8Output& out) {
  if (out.values == nullptr) {
    std::memcpy(out.sums + i * out.ld + col0, row, static_cast<std::size_t>(cols) * sizeof(std::int32_t));
    return;
  }
  float* y = out.values + i * out.ld + col0;
  for (std::int64_t j = 0; j < cols; ++j) {
    y[j] = int8_rescaled(row[j], out.column_scales[col0 + j], out.row_scales[i], out.bias, col0 + j, out.relu);
  }
}

// The portable kernel: panels of 64 columns, one step of k at a time, in int32.
void portable_int8_panels(std::int64_t m, const std::uint8_t* a, std::int64_t depth, const std::uint8_t* b,
                          std::int64_t panel_bytes, const std::int32_t* /*offsets*/, std::int64_t n,
                          std::int64_t first, std::int64_t last, const Int8Output& out) {
  constexpr std::int64_t kWidth = kPortableInt8PanelWidth;
  std::int32_t row[kWidth];
  for (std::int64_t p = first; p < last; ++p) {
    const auto* panel = reinterpret_cast<const std::int8_t*>(b + p * panel_bytes);
    const std::int64_t col0 = p * kWidth, cols = std::min(kWidth, n - col0);
    for (std::int64_t i = 0; i < m; ++i) {
      const auto* a_row = reinterpret_cast<const std::int8_t*>(a + i * depth);
      std::fill(row, row + kWidth, 0);
      for (std::int64_t s = 0; s < depth; ++s) {
        const std::int32_t x = a_row[s];
        const std::int8_t* b_step = panel + s * kWidth;
        for (std::int64_t j = 0; j < kWidth; ++j) row[j] += x * b_step[j];
      }
      write_int8_row(row, i, col0, cols, out);
    }
  }
}

Int8Layout int8_layout_of(Int8Path path) {
  switch (path) {
#if defined(STRATA_X86_KERNELS)
    case Int8Path::kAvx512Vnni:
      return {kInt8Avx512DepthGroup, kInt8Avx512PanelWidth, 1, true, avx512::int8_gemm_panels};
    case Int8Path::kAvx2:
      return {kInt8Avx2DepthGroup, kInt8Avx2PanelWidth, 2, false, avx2::int8_gemm_panels};
#else
    case Int8Path::kAvx512Vnni:
    case Int8Path::kAvx2:
#endif
    case Int8Path::kPortable:
      break;
  }
  return {1, kPortableInt8PanelWidth, 1, false, portable_int8_panels};
}

bool cpu_has_avx512_vnni() {
#if defined(STRATA_X86_KERNELS)
  return __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

Int8Path int8_path_for(Isa isa) {
  if (isa == Isa::kAvx512 && cpu_has_avx512_vnni()) return Int8Path::kAvx512Vnni;
  if (isa == Isa::kAvx512 || isa == Isa::kAvx2) return Int8Path::kAvx2;
  return Int8Path::kPortable;
}

// Writes one packed element: a byte, or the value widened to int16.
void put_int8_element(std::uint8_t* out, std::int64_t index, std::int64_t bytes, std::int32_t value) {
  if (bytes == 1) {
    out[index] = static_cast<std::uint8_t>(value);
  } else {
    const auto v = static_cast<std::int16_t>(value);
    std::memcpy(out + 2 * index, &v, sizeof v);
  }
}

void check_int8_depth(std::int64_t k) {
  if (k < 0 || k > kInt8GemmMaxDepth) {
    throw ValueError("int8 product of " + std::to_string(k) + " steps of k: int32 holds the sums of at most " +
                     std::to_string(kInt8GemmMaxDepth) + " (products of int8 reach 2^14)");
  }
}

}  // namespace

const char* int8_path_name(Int8Path path) {
  switch (path) {
    case Int8Path::kPortable:
      return "portable";
    case Int8Path::kAvx2:
      return "avx2";
    case Int8Path::kAvx512Vnni:
      return "avx512_vnni";
  }
  return "?";
}

Int8Path int8_path() { return int8_path_for(kernel_isa()); }

std::vector<Int8Path> supported_int8_paths() {
  std::vector<Int8Path> paths;
  for (Isa isa : supported_isas()) {
    const Int8Path path = int8_path_for(isa);
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  return paths;
}

Int8PackedB::Int8PackedB(std::int64_t k, std::int64_t n, const std::int8_t* b, std::int64_t ldb, Int8Path path)
    : k_(k), n_(n), path_(path) {
  check_int8_depth(k);
  if (n < 0) throw ValueError("int8 product of " + std::to_string(n) + " columns: expected 0 or more");
  const auto paths = supported_int8_paths();
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
    std::string has;
    for (Int8Path p : paths) has += std::string(has.empty() ? "" : ", ") + int8_path_name(p);
    throw ValueError(std::string("int8 product packed for the ") + int8_path_name(path) +
                     " path, which this CPU cannot run (it runs " + has + ")");
  }
  const Int8Layout layout = int8_layout_of(path);
  padded_depth_ = (k + layout.group - 1) / layout.group * layout.group;
  panel_width_ = layout.width;
  panel_bytes_ = padded_depth_ * layout.width * layout.bytes;
  data_.assign(static_cast<std::size_t>(panels() * panel_bytes_), 0);
  offsets_.assign(static_cast<std::size_t>(panels() * layout.width), 0);
  for (std::int64_t p = 0; p < panels(); ++p) {
    std::uint8_t* out = data_.data() + p * panel_bytes_;
    const std::int64_t col0 = p * layout.width, cols = std::min(layout.width, n - col0);
    for (std::int64_t j = 0; j < cols; ++j) {
      std::int32_t sum = 0;
      for (std::int64_t s = 0; s < k; ++s) {
        const std::int32_t value = b[s * ldb + col0 + j];
        sum += value;
        // Step group s / group, column j, position s % group within the group.
        put_int8_element(out, (s / layout.group * layout.width + j) * layout.group + s % layout.group, layout.bytes, value);
      }
      // (a + 128) · b summed over k is a · b summed plus 128 · (B's column sum).
      if (layout.unsigned_a) offsets_[static_cast<std::size_t>(col0 + j)] = 128 * sum;
    }
  }
}

namespace {

// Row i of A (k int8 values) into its packed form at `out`: the path's element (bytes
// offset to unsigned for VNNI, widened to int16 for AVX2) and the padded depth, zeroed.
// One loop per element kind, which the compiler vectorizes, rather than an element at a
// time through put_int8_element.
void pack_int8_row(const Int8Layout& layout, std::int64_t k, std::size_t row_bytes, const std::int8_t* row,
                   std::uint8_t* out) {
  const std::size_t filled = static_cast<std::size_t>(k * layout.bytes);
  if (layout.bytes == 2) {
    for (std::int64_t s = 0; s < k; ++s) {
      const auto value = static_cast<std::int16_t>(row[s]);
      std::memcpy(out + 2 * s, &value, sizeof value);
    }
  } else if (layout.unsigned_a) {  // + 128 in two's complement: the sign bit flipped
    for (std::int64_t s = 0; s < k; ++s) out[s] = static_cast<std::uint8_t>(row[s]) ^ 0x80u;
  } else {
    std::memcpy(out, row, static_cast<std::size_t>(k));
  }
  std::memset(out + filled, 0, row_bytes - filled);
}

// C = (A's rows, each packed by pack(layout, row_bytes, i, out) into the calling thread's
// packing workspace for A; the padding, zeroed, meets B's zeros) · B. The workspace is the
// float GEMM's, which only grows: no allocation per product; the pool fills and reads it
// during this call.
template <typename PackRow>
void gemm_s8_packed_rows(std::int64_t m, const Int8PackedB& b, const Int8Output& out, PackRow pack) {
  const std::int64_t n = b.n();
  if (m == 0 || n == 0) return;
  const Int8Layout layout = int8_layout_of(b.path());
  const std::int64_t depth = b.padded_depth();
  const std::size_t row_bytes = static_cast<std::size_t>(depth * layout.bytes);
  auto* packed_a = reinterpret_cast<std::uint8_t*>(
      packing_buffer(0, (static_cast<std::size_t>(m) * row_bytes + sizeof(float) - 1) / sizeof(float)));
  if (depth > 0) {  // no steps: nothing to pack
    parallel_for(m, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t i = first; i < last; ++i) {
        pack(layout, row_bytes, i, packed_a + static_cast<std::size_t>(i) * row_bytes);
      }
    }, threshold_for(b.k()));
  }
  // Panels of columns split over the threads, each over every row: B's panel stays in
  // cache while the rows pass.
  parallel_for(b.panels(), [&](std::int64_t first, std::int64_t last) {
    layout.kernel(m, packed_a, depth, b.panel(0), b.panel_bytes(), b.column_offsets(), n, first, last, out);
  }, threshold_for(m * depth * layout.width));
}

}  // namespace

void gemm_s8(std::int64_t m, const std::int8_t* a, std::int64_t lda, const Int8PackedB& b, std::int32_t* c,
             std::int64_t ldc) {
  if (m < 0) throw ValueError("int8 product of " + std::to_string(m) + " rows: expected 0 or more");
  const std::int64_t k = b.k();
  gemm_s8_packed_rows(m, b, Int8Output{.sums = c, .ld = ldc},
                      [&](const Int8Layout& layout, std::size_t row_bytes, std::int64_t i, std::uint8_t* out) {
                        pack_int8_row(layout, k, row_bytes, a + i * lda, out);
                      });
}

void gemm_s8_quantizing_rows(std::int64_t m, const float* a, std::int64_t lda, const Int8PackedB& b,
                             float* row_scales, const Int8Rescale& rescale, float* y, std::int64_t ldy) {
  if (m < 0) throw ValueError("int8 product of " + std::to_string(m) + " rows: expected 0 or more");
  const std::int64_t k = b.k();
  if (b.n() == 0 || b.padded_depth() == 0) {  // no rows are packed below: their scales here
    std::vector<std::int8_t> values(static_cast<std::size_t>(k));
    for (std::int64_t i = 0; i < m; ++i) row_scales[i] = quantize_row_int8(a + i * lda, k, values.data());
  }
  gemm_s8_packed_rows(m, b,
                      Int8Output{.values = y, .ld = ldy, .row_scales = row_scales,
                                 .column_scales = rescale.column_scales, .bias = rescale.bias, .relu = rescale.relu},
                      [&](const Int8Layout& layout, std::size_t row_bytes, std::int64_t i, std::uint8_t* out) {
                        if (layout.bytes == 1) {  // quantized straight into the packed row
                          auto* values = reinterpret_cast<std::int8_t*>(out);
                          row_scales[i] = quantize_row_int8(a + i * lda, k, values, layout.unsigned_a ? 0x80 : 0);
                          std::memset(out + k, 0, row_bytes - static_cast<std::size_t>(k));
                          return;
                        }
                        // The row's int8 values in a buffer of the thread's, in L1 while
                        // they are widened.
                        thread_local std::vector<std::int8_t> values;
                        values.resize(static_cast<std::size_t>(k));
                        row_scales[i] = quantize_row_int8(a + i * lda, k, values.data());
                        pack_int8_row(layout, k, row_bytes, values.data(), out);
                      });
}

void gemm_s8(std::int64_t m, std::int64_t n, std::int64_t k, const std::int8_t* a, std::int64_t lda,
             const std::int8_t* b, std::int64_t ldb, std::int32_t* c, std::int64_t ldc) {
  gemm_s8(m, a, lda, Int8PackedB(k, n, b, ldb), c, ldc);
}

}  // namespace strata::cpu
