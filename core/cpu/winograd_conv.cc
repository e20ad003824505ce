#include "core/cpu/winograd_conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/gemm.h"
#include "core/cpu/parallel.h"
#include "core/cpu/vector_clamp.h"
#include "core/cpu/vector_math.h"

namespace strata::cpu {
namespace {

using Geom = ops::Conv2DGeometry;
using simd::Vec;

constexpr int kTile = 4;   // outputs per side of a block
constexpr int kInput = 6;  // inputs per side of a block: kTile + 3 - 1

// The transforms are written once for a vector of channels (Vec) and for one channel
// (float: the channels after the last whole vector), read and written by simd::load_as
// and simd::store.

// Bᵀ·d along one axis of the 6×6 block.
template <typename T>
inline void input_1d(const T d[6], T r[6]) {
  const T t0 = d[4] - 4.f * d[2], t1 = d[3] - 4.f * d[1];
  const T t2 = d[4] - d[2], t3 = 2.f * (d[3] - d[1]);
  r[0] = 4.f * d[0] - 5.f * d[2] + d[4];
  r[1] = t0 + t1;
  r[2] = t0 - t1;
  r[3] = t2 + t3;
  r[4] = t2 - t3;
  r[5] = 4.f * d[1] - 5.f * d[3] + d[5];
}

// Aᵀ·m along one axis: the 4 outputs of 6 points.
template <typename T>
inline void output_1d(const T m[6], T r[4]) {
  const T s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
  r[0] = m[0] + s12 + s34;
  r[1] = d12 + 2.f * d34;
  r[2] = s12 + 4.f * s34;
  r[3] = d12 + 8.f * d34 + m[5];
}

// One input block's channels [c, c + lanes) into the 36 points: point (i, j) of the block
// goes to v[(i·6 + j)·point_stride + c]. src[i·6 + j] is the input pixel (i, j) of the
// block (a row of zeros where it lies in the padding).
template <typename T>
inline void transform_input(const float* const* src, std::int64_t c, float* v, std::int64_t point_stride) {
  T columns[kInput][kInput];  // Bᵀ·d: row i of the result, column j
  for (int j = 0; j < kInput; ++j) {
    T d[kInput], r[kInput];
    for (int i = 0; i < kInput; ++i) d[i] = simd::load_as(src[i * kInput + j] + c, T{});
    input_1d(d, r);
    for (int i = 0; i < kInput; ++i) columns[i][j] = r[i];
  }
  for (int i = 0; i < kInput; ++i) {
    T r[kInput];
    input_1d(columns[i], r);
    for (int j = 0; j < kInput; ++j) simd::store(v + (i * kInput + j) * point_stride + c, r[j]);
  }
}

// Where a block's outputs go and what is added to them: output (i, j) to out[i·4 + j],
// plus bias (per channel, or null) and residual[i·4 + j] (with has_residual), then relu
// or relu6 (silu and a rounding are applied to whole rows after: apply_row_passes).
struct OutputBlock {
  float* out[kTile * kTile];
  const float* residual[kTile * kTile];
  const float* bias = nullptr;
  bool has_residual = false;
  Activation clamp = Activation::kNone;
};

// One block's 36 products (point (i, j) at m[(i·6 + j)·point_stride + o]) back to its
// 4×4 outputs, channels [o, o + lanes), with the epilogue in apply_epilogue's order:
// (v + bias) + residual, then the clamp. (Applied by apply_epilogue a float at a time
// after the transform, it had been a third of a 32x32x16 layer's time.)
template <typename T>
inline void transform_output(const float* m, std::int64_t point_stride, std::int64_t o, const OutputBlock& to) {
  T columns[kTile][kInput];  // Aᵀ·m
  for (int j = 0; j < kInput; ++j) {
    T p[kInput], r[kTile];
    for (int i = 0; i < kInput; ++i) p[i] = simd::load_as(m + (i * kInput + j) * point_stride + o, T{});
    output_1d(p, r);
    for (int i = 0; i < kTile; ++i) columns[i][j] = r[i];
  }
  const T bias = to.bias ? simd::load_as(to.bias + o, T{}) : T{};
  for (int i = 0; i < kTile; ++i) {
    T r[kTile];
    output_1d(columns[i], r);
    for (int j = 0; j < kTile; ++j) {
      T v = r[j];
      if (to.bias) v = v + bias;
      if (to.has_residual) v = v + simd::load_as(to.residual[i * kTile + j] + o, T{});
      simd::store(to.out[i * kTile + j] + o, simd::clamp(to.clamp, v));
    }
  }
}

// G, the kernel's transform (U = G·g·Gᵀ): point (ξ, ν) of U is Σ G[ξ][a]·G[ν][b]·g[a][b].
constexpr float kG[kInput][3] = {{1.f / 4, 0, 0},
                                 {-1.f / 6, -1.f / 6, -1.f / 6},
                                 {-1.f / 6, 1.f / 6, -1.f / 6},
                                 {1.f / 24, 1.f / 12, 1.f / 6},
                                 {1.f / 24, -1.f / 12, 1.f / 6},
                                 {0, 0, 1.f}};

// A block's place: image n, block row ty and column tx (blocks numbered over image, row,
// column).
struct Block {
  std::int64_t n, oy, ox;  // its first output pixel
};
Block block_at(const Geom& g, std::int64_t t) {
  const std::int64_t across = (g.ow + kTile - 1) / kTile, down = (g.oh + kTile - 1) / kTile;
  const std::int64_t n = t / (across * down), r = t % (across * down);
  return {n, r / across * kTile, r % across * kTile};
}

// Asks for the cache lines of a block's window a block-row ahead (the block below this
// one): rows [y0, y0 + rows) and columns [x0, x0 + cols) of image pixels of `channels`
// floats, clipped to the image, each row's pixels one run of memory. A block-row's rows
// are short runs of memory read side by side, which the hardware's prefetchers did not
// fetch ahead: at batch 128 the 32x32x16 layer's blocks waited on their inputs.
void prefetch_window(const float* tensor, const Geom& g, std::int64_t n, std::int64_t h, std::int64_t w,
                     std::int64_t channels, std::int64_t y0, std::int64_t rows, std::int64_t x0, std::int64_t cols,
                     bool for_write) {
  if (n >= g.n) return;
  const std::int64_t c0 = std::max<std::int64_t>(x0, 0), c1 = std::min(x0 + cols, w);
  if (c0 >= c1) return;
  for (std::int64_t y = std::max<std::int64_t>(y0, 0); y < std::min(y0 + rows, h); ++y) {
    const char* from = reinterpret_cast<const char*>(tensor + ((n * h + y) * w + c0) * channels);
    const char* to = reinterpret_cast<const char*>(tensor + ((n * h + y) * w + c1) * channels);
    for (const char* line = from; line < to; line += 64) {
      if (for_write) {
        __builtin_prefetch(line, 1);
      } else {
        __builtin_prefetch(line, 0);
      }
    }
  }
}

// Per-thread buffers that only grow: the transformed inputs, the products, a row of
// zeros for pixels in the padding, a sink for outputs past the image's edge, one point of
// a kernel's transform (or the kernel gradient's 36), and the filter gradient's chunks.
enum Buffer { kInputs, kProducts, kZeros, kSink, kKernelPoint, kChunkSums, kBufferSlots };
float* thread_buffer(Buffer slot, std::size_t floats) {
  thread_local std::vector<float> buffers[kBufferSlots];
  std::vector<float>& b = buffers[slot];
  if (b.size() < floats) b.resize(floats);
  return b.data();
}

// Where a pass's transformed inputs (or products) lie: block b's row of point p at
// b·block + p·point. Point-major (point = blocks·C, block = C) keeps each product's rows
// together; block-major (block = 36·C, point = C) each block's points, so a block's
// transform writes (or reads) one run of memory. Measured per layer (predict_on_batch,
// batch 32, 60 calls): block-major was faster from 64 channels (8x8x64 0.164-0.166 ms
// against 0.189-0.191, 56x56x64 13.3-13.5 against 14.3-14.8), point-major below (32x32x16
// 0.46-0.49 against 0.49-0.71, 16x16x32 0.236-0.237 against 0.256-0.259).
//
// A point-major point's rows end one cache line past the next point's start: 36 rows of
// blocks·C floats a multiple of 4 KB apart (96 blocks of 16 channels are 6 KB, every other
// point at the same offset) fall in the same few sets of the L1 cache, and each block's
// 36 stores (or loads) evicted each other.
constexpr std::int64_t kPointPadFloats = 16;
struct Strides {
  std::int64_t block, point;
};
Strides point_major(std::int64_t blocks, std::int64_t channels) {
  return {channels, blocks * channels + kPointPadFloats};
}
Strides strides_for(std::int64_t blocks, std::int64_t channels) {
  return channels >= 64 ? Strides{kWinogradPoints * channels, channels} : point_major(blocks, channels);
}
// The floats a pass of `blocks` blocks of `channels` channels needs in either layout.
std::size_t pass_floats(std::int64_t blocks, std::int64_t channels) {
  return static_cast<std::size_t>(kWinogradPoints * (blocks * channels + kPointPadFloats));
}

// Blocks [first + b0, first + b1): each block's inputs, Bᵀ·d·B, into the 36 points' rows
// (laid out by `in`).
void transform_inputs(const Geom& g, const float* x, std::int64_t first, std::int64_t b0, std::int64_t b1, float* v,
                      const Strides& in) {
  constexpr int kLanes = simd::kLanes;
  float* zeros = thread_buffer(kZeros, static_cast<std::size_t>(g.c));
  std::fill_n(zeros, g.c, 0.f);
  const float* src[kInput * kInput];
  for (std::int64_t b = b0; b < b1; ++b) {
    const Block at = block_at(g, first + b);
    const float* image = x + at.n * g.h * g.w * g.c;
    for (int i = 0; i < kInput; ++i) {
      const std::int64_t iy = at.oy + i - g.pt;
      for (int j = 0; j < kInput; ++j) {
        const std::int64_t ix = at.ox + j - g.pl;
        const bool inside = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
        src[i * kInput + j] = inside ? image + (iy * g.w + ix) * g.c : zeros;
      }
    }
    const Block below = block_at(g, first + b + (g.ow + kTile - 1) / kTile);
    prefetch_window(x, g, below.n, g.h, g.w, g.c, below.oy - g.pt, kInput, below.ox - g.pl, kInput, false);
    float* rows = v + b * in.block;
    std::int64_t c = 0;
    for (; c + kLanes <= g.c; c += kLanes) transform_input<Vec>(src, c, rows, in.point);
    for (; c < g.c; ++c) transform_input<float>(src, c, rows, in.point);
  }
}

// Blocks [first + b0, first + b1): each block's products (laid out by `in`), Aᵀ·m·A, to
// its outputs, with the epilogue.
void transform_outputs(const Geom& g, const float* m, const Strides& in, std::int64_t first, std::int64_t b0,
                       std::int64_t b1, float* y, const Epilogue& epilogue) {
  constexpr int kLanes = simd::kLanes;
  float* sink = thread_buffer(kSink, static_cast<std::size_t>(g.o));
  OutputBlock to;
  to.bias = epilogue.bias;
  to.has_residual = epilogue.residual != nullptr;
  to.clamp = epilogue.activation == Activation::kSilu ? Activation::kNone : epilogue.activation;
  for (std::int64_t b = b0; b < b1; ++b) {
    const Block at = block_at(g, first + b);
    const std::int64_t rows = std::min<std::int64_t>(kTile, g.oh - at.oy);
    const std::int64_t cols = std::min<std::int64_t>(kTile, g.ow - at.ox);
    for (int i = 0; i < kTile; ++i) {
      for (int j = 0; j < kTile; ++j) {
        const bool inside = i < rows && j < cols;
        const std::int64_t pixel = (at.n * g.oh + at.oy + i) * g.ow + at.ox + j;
        // Outputs past the image's last row or column (a partial block) go to the sink,
        // unread, and read their residual there.
        to.out[i * kTile + j] = inside ? y + pixel * g.o : sink;
        const bool reads_residual = inside && to.has_residual;
        to.residual[i * kTile + j] = reads_residual ? epilogue.residual + pixel * epilogue.residual_ld : sink;
      }
    }
    const float* products = m + b * in.block;
    std::int64_t o = 0;
    for (; o + kLanes <= g.o; o += kLanes) transform_output<Vec>(products, in.point, o, to);
    for (; o < g.o; ++o) transform_output<float>(products, in.point, o, to);
    if (epilogue.works_on_rows()) {
      for (std::int64_t i = 0; i < rows; ++i) apply_row_passes(epilogue, to.out[i * kTile], cols * g.o);
    }
  }
}

// Two schedules. A transformed kernel of up to kPrivateKernelFloats (36·C·O: 64 channels
// in and out) stays in each core's L2: each thread takes whole groups of blocks through
// the three stages alone, its inputs and products never leaving its cache. A larger one is read by
// points: each pass of blocks is transformed by all threads, its 36 products split over
// the threads by point (each thread reads only its points' matrices), and transformed
// back by all threads.
constexpr std::int64_t kPrivateKernelFloats = kWinogradPoints * 64 * 64;
// A thread's group: its inputs and products (36·blocks·(C + O) floats) within about
// 512 KB.
constexpr std::int64_t kGroupFloats = std::int64_t{1} << 17;

std::int64_t rows_of_24(std::int64_t blocks) { return std::max<std::int64_t>(24, blocks / 24 * 24); }

// Blocks per pass of the staged schedule: the pass's inputs and products within about
// 4 MB, the share of the last-level cache the stages between them keep hot, but at least
// C·O/(C + O) blocks, so that reading the transformed kernel once per pass costs no more
// than the pass's own inputs and products.
std::int64_t blocks_per_pass(const Geom& g, std::int64_t blocks) {
  constexpr std::int64_t kPassFloats = std::int64_t{1} << 20;
  const std::int64_t per_block = kWinogradPoints * (g.c + g.o);
  const std::int64_t pass = std::max(kPassFloats / per_block, g.c * g.o / (g.c + g.o));
  return std::min(rows_of_24(pass + 23), blocks);
}

// A·dY·Aᵀ along one axis (A is Aᵀ's transpose, 6×4): the adjoint of output_1d.
template <typename T>
inline void gradient_1d(const T y[4], T r[6]) {
  r[0] = y[0];
  r[1] = y[0] + y[1] + y[2] + y[3];
  r[2] = y[0] - y[1] + y[2] - y[3];
  r[3] = y[0] + 2.f * y[1] + 4.f * y[2] + 8.f * y[3];
  r[4] = y[0] - 2.f * y[1] + 4.f * y[2] - 8.f * y[3];
  r[5] = y[3];
}

// One block's output gradient (dY(i, j) at src[i·4 + j] + o; a row of zeros past the
// image's edge) to its 36 points, A·dY·Aᵀ: point (i, j) to w[(i·6 + j)·point_stride + o].
template <typename T>
inline void transform_gradient(const float* const* src, std::int64_t o, float* w, std::int64_t point_stride) {
  T columns[kInput][kTile];  // A·dY
  for (int j = 0; j < kTile; ++j) {
    T y[kTile], r[kInput];
    for (int i = 0; i < kTile; ++i) y[i] = simd::load_as(src[i * kTile + j] + o, T{});
    gradient_1d(y, r);
    for (int i = 0; i < kInput; ++i) columns[i][j] = r[i];
  }
  for (int i = 0; i < kInput; ++i) {
    T r[kInput];
    gradient_1d(columns[i], r);
    for (int j = 0; j < kInput; ++j) simd::store(w + (i * kInput + j) * point_stride + o, r[j]);
  }
}

// Blocks [first + b0, first + b1): each block's output gradient to the 36 points' rows
// (laid out by `in`).
void transform_gradients(const Geom& g, const float* dy, std::int64_t first, std::int64_t b0, std::int64_t b1,
                         float* w, const Strides& in) {
  constexpr int kLanes = simd::kLanes;
  float* zeros = thread_buffer(kZeros, static_cast<std::size_t>(g.o));
  std::fill_n(zeros, g.o, 0.f);
  const float* src[kTile * kTile];
  for (std::int64_t b = b0; b < b1; ++b) {
    const Block at = block_at(g, first + b);
    for (int i = 0; i < kTile; ++i) {
      for (int j = 0; j < kTile; ++j) {
        const bool inside = at.oy + i < g.oh && at.ox + j < g.ow;
        src[i * kTile + j] = inside ? dy + ((at.n * g.oh + at.oy + i) * g.ow + at.ox + j) * g.o : zeros;
      }
    }
    const Block below = block_at(g, first + b + (g.ow + kTile - 1) / kTile);
    prefetch_window(dy, g, below.n, g.oh, g.ow, g.o, below.oy, kTile, below.ox, kTile, false);
    float* rows = w + b * in.block;
    std::int64_t o = 0;
    for (; o + kLanes <= g.o; o += kLanes) transform_gradient<Vec>(src, o, rows, in.point);
    for (; o < g.o; ++o) transform_gradient<float>(src, o, rows, in.point);
  }
}

}  // namespace

bool winograd_supports(const Geom& g) {
  return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.groups == 1;
}

bool winograd_applies(const Geom& g) {
  static const char* const setting = std::getenv("STRATA_WINOGRAD");
  if (setting && std::string_view(setting) == "0") return false;
  if (!winograd_supports(g)) return false;
  if (setting && std::string_view(setting) == "1") return true;
  // Measured (docs/performance.md, "3×3 convolutions"): with fewer than 16 channels in or
  // out the transforms cost more than the products they save (8 in, 32 out: 1.6-2x
  // slower; 16 and 16: even at one image, 1.5-2x faster at 32); with few blocks for their
  // channels, reading the transformed kernel (4 times the kernel's size) costs more than
  // the products save (7x7x512 at one image: 1.45x slower, even at two, 1.7x faster at
  // eight). So the choice depends on the batch, and an image's outputs may differ in the
  // last bits between batch sizes, as with Keras's own kernels.
  const std::int64_t blocks = g.n * ((g.oh + kTile - 1) / kTile) * ((g.ow + kTile - 1) / kTile);
  return g.c >= 16 && g.o >= 16 && 32 * blocks * (g.c + g.o) >= g.c * g.o;
}

void WinogradKernel::transform(const float* kernel, std::int64_t c, std::int64_t o) {
  c_ = c;
  o_ = o;
  use_packed_ = packed_gemm_available();
  isa_ = use_packed_ ? kernel_isa() : Isa::kPortable;
  const std::int64_t plane = c * o;
  // Packed, the products read only the packed copies: each point's plain matrix is made
  // in one plane-sized buffer of the thread's and packed from there, not kept (four
  // times the kernel's size; 180 MB for ResNet50's 3×3 layers). One point at a time, as
  // a sum over the 9 taps of whole planes (kernel[tap·C·O + i], HWIO), vectorized over i;
  // a training step transforms every kernel again.
  u_.resize(use_packed_ ? 0 : static_cast<std::size_t>(kWinogradPoints * plane));
  u_.shrink_to_fit();
  float* point_buffer = use_packed_ ? thread_buffer(kKernelPoint, static_cast<std::size_t>(plane)) : nullptr;
  for (int p = 0; p < kWinogradPoints; ++p) {
    float* __restrict out = use_packed_ ? point_buffer : u_.data() + p * plane;
    std::fill_n(out, plane, 0.f);
    for (int tap = 0; tap < 9; ++tap) {
      const float coefficient = kG[p / kInput][tap / 3] * kG[p % kInput][tap % 3];
      if (coefficient == 0.f) continue;
      const float* __restrict g = kernel + tap * plane;
      for (std::int64_t i = 0; i < plane; ++i) out[i] += coefficient * g[i];
    }
    if (use_packed_) {
      packed_[p].pack(false, c, o, out, o);
    } else {
      packed_[p].pack(false, 0, 0, nullptr, 0);
    }
  }
}

void WinogradKernel::multiply(int point, std::int64_t rows, const float* v, std::int64_t ldv, float* m,
                              std::int64_t ldm) const {
  if (use_packed_) {
    packed_gemm_prepacked(rows, v, ldv, packed_[point], m, ldm, false);
  } else {
    gemm_serial(false, false, rows, o_, c_, v, ldv, u_.data() + point * c_ * o_, o_, m, ldm, false);
  }
}

void winograd_conv2d(const Geom& g, const float* x, const WinogradKernel& u, float* y, const Epilogue& epilogue) {
  const std::int64_t blocks = g.n * ((g.oh + kTile - 1) / kTile) * ((g.ow + kTile - 1) / kTile);
  if (blocks == 0 || g.o == 0) return;
  // Both schedules give the same bits: each output's sums do not depend on which rows
  // share its product.
  if (kWinogradPoints * g.c * g.o <= kPrivateKernelFloats) {
    // Groups of at most the cache's blocks, a whole number of them per thread, of equal
    // size (a multiple of 4 blocks): at one image the work is a few groups, and uneven
    // groups left a thread idle (ResNet50's 56x56x64 layer took 0.42 ms instead of 0.33).
    const int threads = num_threads();
    const std::int64_t most = std::max<std::int64_t>(4, kGroupFloats / (kWinogradPoints * (g.c + g.o)));
    std::int64_t groups = (blocks + most - 1) / most;
    groups = (groups + threads - 1) / threads * threads;
    const std::int64_t group = std::min(blocks, ((blocks + groups - 1) / groups + 3) / 4 * 4);
    parallel_for((blocks + group - 1) / group, [&](std::int64_t g0, std::int64_t g1) {
      float* v = thread_buffer(kInputs, pass_floats(group, g.c));
      float* m = thread_buffer(kProducts, pass_floats(group, g.o));
      for (std::int64_t at = g0; at < g1; ++at) {
        const std::int64_t first = at * group, count = std::min(group, blocks - first);
        const Strides vs = strides_for(count, g.c), ms = strides_for(count, g.o);
        transform_inputs(g, x, first, 0, count, v, vs);
        for (int p = 0; p < kWinogradPoints; ++p) {
          u.multiply(p, count, v + p * vs.point, vs.block, m + p * ms.point, ms.block);
        }
        transform_outputs(g, m, ms, first, 0, count, y, epilogue);
      }
    }, 2);
    return;
  }
  const std::int64_t pass = blocks_per_pass(g, blocks);
  // The pass's transformed inputs and products, in the calling thread's buffers; every
  // thread of the pass writes its rows.
  float* v = thread_buffer(kInputs, pass_floats(pass, g.c));
  float* m = thread_buffer(kProducts, pass_floats(pass, g.o));
  for (std::int64_t first = 0; first < blocks; first += pass) {
    const std::int64_t count = std::min(pass, blocks - first);
    const Strides vs = strides_for(count, g.c), ms = strides_for(count, g.o);
    parallel_for(count, [&](std::int64_t b0, std::int64_t b1) { transform_inputs(g, x, first, b0, b1, v, vs); }, 2);
    parallel_for(kWinogradPoints, [&](std::int64_t p0, std::int64_t p1) {
      for (std::int64_t p = p0; p < p1; ++p) {
        u.multiply(static_cast<int>(p), count, v + p * vs.point, vs.block, m + p * ms.point, ms.block);
      }
    }, 2);
    parallel_for(count, [&](std::int64_t b0, std::int64_t b1) {
      transform_outputs(g, m, ms, first, b0, b1, y, epilogue);
    }, 2);
  }
}

// The filter gradient's chunks in the private schedule: a fixed count, not one per thread,
// so that the sums' order (and the bits) do not depend on the number of threads.
constexpr std::int64_t kFilterGradChunks = 16;
constexpr std::int64_t kChunkSumFloats = std::int64_t{1} << 19;

void winograd_conv2d_filter_grad(const Geom& g, const float* x, const float* dy, float* dk) {
  const std::int64_t blocks = g.n * ((g.oh + kTile - 1) / kTile) * ((g.ow + kTile - 1) / kTile);
  const std::int64_t plane = g.c * g.o;
  // dU, the gradient of the transformed kernel: point p's C×O matrix at p·C·O, summed over
  // every block. dU_p (C × O) += V_pᵀ (C × blocks) · W_p (blocks × O), with V and W
  // point-major (each point's rows one matrix, the depth of its product).
  float* du = thread_buffer(kKernelPoint, static_cast<std::size_t>(kWinogradPoints * plane));
  std::fill_n(du, kWinogradPoints * plane, 0.f);
  const auto accumulate = [&](std::int64_t count, const float* v, const float* w, float* into, int p0, int p1) {
    const Strides vs = point_major(count, g.c), ws = point_major(count, g.o);
    for (int p = p0; p < p1; ++p) {
      gemm_serial(true, false, g.c, g.o, count, v + p * vs.point, g.c, w + p * ws.point, g.o, into + p * plane, g.o,
                  true);
    }
  };
  if (blocks > 0 && kWinogradPoints * plane <= kPrivateKernelFloats) {
    // Private schedule, as the forward pass's: each chunk of blocks transformed and
    // multiplied by one thread in cache-sized groups, into a dU of its own; the chunks'
    // dUs added in chunk order. (Staged, each pass's transforms were written by one core
    // and read by the other, from buffers larger than either's cache: ResNet-20's
    // 32x32x16 layer at batch 128 took about a third longer.)
    const std::int64_t group =
        std::min(blocks, std::max<std::int64_t>(4, kGroupFloats / (kWinogradPoints * (g.c + g.o))) / 4 * 4);
    const std::int64_t groups = (blocks + group - 1) / group;
    // At most kChunkSumFloats of chunk sums (their writes and the final sum cost as much
    // as the products at 64x64 channels), in an even count: two threads take equal shares.
    const std::int64_t by_memory = std::max<std::int64_t>(2, kChunkSumFloats / (kWinogradPoints * plane) / 2 * 2);
    const std::int64_t chunks = std::min({kFilterGradChunks, by_memory, groups});
    float* partial = thread_buffer(kChunkSums, static_cast<std::size_t>(chunks * kWinogradPoints * plane));
    parallel_for(chunks, [&](std::int64_t c0, std::int64_t c1) {
      float* v = thread_buffer(kInputs, pass_floats(group, g.c));
      float* w = thread_buffer(kProducts, pass_floats(group, g.o));
      for (std::int64_t chunk = c0; chunk < c1; ++chunk) {
        float* into = partial + chunk * kWinogradPoints * plane;
        std::fill_n(into, kWinogradPoints * plane, 0.f);
        for (std::int64_t at = chunk * groups / chunks; at < (chunk + 1) * groups / chunks; ++at) {
          const std::int64_t first = at * group, count = std::min(group, blocks - first);
          transform_inputs(g, x, first, 0, count, v, point_major(count, g.c));
          transform_gradients(g, dy, first, 0, count, w, point_major(count, g.o));
          accumulate(count, v, w, into, 0, kWinogradPoints);
        }
      }
    }, 1);
    parallel_for(kWinogradPoints * plane, [&](std::int64_t i0, std::int64_t i1) {
      for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
        const float* __restrict from = partial + chunk * kWinogradPoints * plane;
        simd::for_lanes(i1 - i0, [&](std::int64_t i, auto t) {
          simd::store(du + i0 + i, simd::load_as(du + i0 + i, t) + simd::load_as(from + i0 + i, t));
        });
      }
    }, 4096);
  } else if (blocks > 0) {
    // Staged: each pass's blocks transformed by all threads, its points' products split
    // over them (each point by one thread: the same bits on any count).
    const std::int64_t pass = blocks_per_pass(g, blocks);
    float* v = thread_buffer(kInputs, pass_floats(pass, g.c));
    float* w = thread_buffer(kProducts, pass_floats(pass, g.o));
    for (std::int64_t first = 0; first < blocks; first += pass) {
      const std::int64_t count = std::min(pass, blocks - first);
      parallel_for(count, [&](std::int64_t b0, std::int64_t b1) {
        transform_inputs(g, x, first, b0, b1, v, point_major(count, g.c));
        transform_gradients(g, dy, first, b0, b1, w, point_major(count, g.o));
      }, 2);
      parallel_for(kWinogradPoints, [&](std::int64_t p0, std::int64_t p1) {
        accumulate(count, v, w, du, static_cast<int>(p0), static_cast<int>(p1));
      }, 2);
    }
  }
  // dk = Gᵀ·dU·G: tap (ky, kx) is Σ over points (ξ, ν) of G[ξ][ky]·G[ν][kx]·dU_ξν.
  parallel_for(9, [&](std::int64_t t0, std::int64_t t1) {
    for (std::int64_t tap = t0; tap < t1; ++tap) {
      float* __restrict out = dk + tap * plane;
      std::fill_n(out, plane, 0.f);
      for (int p = 0; p < kWinogradPoints; ++p) {
        const float coefficient = kG[p / kInput][tap / 3] * kG[p % kInput][tap % 3];
        if (coefficient == 0.f) continue;
        const float* __restrict from = du + p * plane;
        simd::for_lanes(plane, [&](std::int64_t i, auto t) {
          simd::store(out + i, simd::load_as(out + i, t) + coefficient * simd::load_as(from + i, t));
        });
      }
    }
  }, 1);
}

}  // namespace strata::cpu
