// The CPU kernels of batch_normalization and its gradient (core/ops/batch_norm_ops.h).
// x is seen as (outer, C, inner): C channels on the normalized axis, `inner` elements
// after it (1 for channels last, Keras's default). Per-channel sums run over blocks of
// rows (channels last) or over whole channels (otherwise), each block or channel summed by
// one thread, the partials added in block order: the sums depend on the shape alone, not
// on the thread count. Forward: the mean and the variance (channels last in one pass, by
// blocks; otherwise the mean, then the variance of x − mean), then the normalization; the
// gradient: the sums of dy and of dy·(x − mean), then dx.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cpu/vector_math.h"
#include "core/op_registry.h"

namespace strata::cpu {
namespace {

struct Layout {
  std::int64_t outer = 1, channels = 1, inner = 1;
  std::int64_t count() const { return outer * inner; }  // elements per channel
};

Layout layout_of(const Shape& s, int axis) {
  Layout l;
  for (int d = 0; d < axis; ++d) l.outer *= s.dims()[static_cast<std::size_t>(d)];
  l.channels = s.dims()[static_cast<std::size_t>(axis)];
  for (int d = axis + 1; d < s.rank(); ++d) l.inner *= s.dims()[static_cast<std::size_t>(d)];
  return l;
}

constexpr std::int64_t kNormRowsPerBlock = 256;  // as the reductions' (core/cpu/kernels/reduce.cc)

// Channels last, a row's C channels are looped over a vector at a time (simd::for_lanes:
// GCC does not vectorize a loop of unknown length at -O2).
using simd::for_lanes;
using simd::load_as;
using simd::store;

// out[k][c] = Σ over channel c's elements of its K terms. Channels last,
// terms(r, c, t, v) writes row r's K terms for the channels [c, c + lanes of t) into v[K];
// rows run in blocks, one thread a block, each block's sums held in registers (four rows
// at a time into four partial sums: kept in memory, each row's add had waited for the
// last one's store), the blocks' partials added in order. Otherwise element(c, i, v)
// writes element i's terms into v, and each channel is summed by one thread. The sums
// depend on the shape alone.
template <int K, typename Terms, typename Element>
void channel_sums(const Layout& l, Terms terms, Element element, const std::array<float*, K>& out) {
  const std::int64_t C = l.channels;
  if (l.inner == 1) {
    const std::int64_t blocks = std::max<std::int64_t>(1, (l.outer + kNormRowsPerBlock - 1) / kNormRowsPerBlock);
    float* partials = scratch(1, static_cast<std::size_t>(blocks * K * C));
    parallel_for(blocks, [&](std::int64_t b0, std::int64_t b1) {
      for (std::int64_t b = b0; b < b1; ++b) {
        const std::int64_t r0 = b * kNormRowsPerBlock, r1 = std::min(l.outer, r0 + kNormRowsPerBlock);
        for_lanes(C, [&](std::int64_t c, auto t) {
          using T = decltype(t);
          T sums[K][4] = {};
          T v[K];
          std::int64_t r = r0;
          for (; r + 4 <= r1; r += 4) {
            for (int j = 0; j < 4; ++j) {
              terms(r + j, c, t, v);
              for (int k = 0; k < K; ++k) sums[k][j] += v[k];
            }
          }
          for (; r < r1; ++r) {
            terms(r, c, t, v);
            for (int k = 0; k < K; ++k) sums[k][0] += v[k];
          }
          for (int k = 0; k < K; ++k) {
            store(partials + (b * K + k) * C + c, (sums[k][0] + sums[k][1]) + (sums[k][2] + sums[k][3]));
          }
        });
      }
    }, threshold_for(kNormRowsPerBlock * C));
    for (int k = 0; k < K; ++k) {
      float* sum = out[static_cast<std::size_t>(k)];
      std::copy_n(partials + k * C, C, sum);
      for (std::int64_t b = 1; b < blocks; ++b) {
        const float* part = partials + (b * K + k) * C;
        for (std::int64_t c = 0; c < C; ++c) sum[c] += part[c];
      }
    }
    return;
  }
  parallel_for(C, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      float sum[K] = {};
      for (std::int64_t o = 0; o < l.outer; ++o) {
        const std::int64_t base = (o * C + c) * l.inner;
        for (std::int64_t i = 0; i < l.inner; ++i) {
          float v[K];
          element(c, base + i, v);
          for (int k = 0; k < K; ++k) sum[k] += v[k];
        }
      }
      for (int k = 0; k < K; ++k) out[static_cast<std::size_t>(k)][c] = sum[k];
    }
  }, threshold_for(l.count()));
}

// Every element: channels last, row(r) for each row of C; otherwise element(c, i).
template <typename Row, typename Element>
void for_each_element(const Layout& l, Row row, Element element) {
  if (l.inner == 1) {
    parallel_for(l.outer, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) row(r);
    }, threshold_for(l.channels));
    return;
  }
  parallel_for(l.outer * l.channels, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t c = r % l.channels, base = r * l.inner;
      for (std::int64_t i = 0; i < l.inner; ++i) element(c, base + i);
    }
  }, threshold_for(l.inner));
}

// One block's moments for the channels [c, c + lanes) of T: `rows` rows of x (row stride
// C, from x) into out[0] = m_b (their mean), out[stride] = Σ(x − m_b), out[2·stride] =
// Σ(x − m_b)². Sums in registers, four rows at a time in four partial sums: kept in
// memory, each row's add waited for the last one's store (the statistics ran at half the
// speed of the normalization that reads and writes as much).
template <typename T>
void block_moments(const float* x, std::int64_t C, std::int64_t rows, float* out, std::int64_t stride, T) {
  T sum[4] = {};
  std::int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    for (int k = 0; k < 4; ++k) sum[k] += load_as(x + (r + k) * C, T{});
  }
  for (; r < rows; ++r) sum[0] += load_as(x + r * C, T{});
  const float per = rows > 0 ? 1.f / static_cast<float>(rows) : 1.f;
  const T mean = ((sum[0] + sum[1]) + (sum[2] + sum[3])) * per;
  T residual[4] = {}, squares[4] = {};
  for (r = 0; r + 4 <= rows; r += 4) {
    for (int k = 0; k < 4; ++k) {
      const T d = load_as(x + (r + k) * C, T{}) - mean;
      residual[k] += d;
      squares[k] += d * d;
    }
  }
  for (; r < rows; ++r) {
    const T d = load_as(x + r * C, T{}) - mean;
    residual[0] += d;
    squares[0] += d * d;
  }
  store(out, mean);
  store(out + stride, (residual[0] + residual[1]) + (residual[2] + residual[3]));
  store(out + 2 * stride, (squares[0] + squares[1]) + (squares[2] + squares[3]));
}

// The batch's mean and variance per channel, channels last, in one pass over x from
// memory: each block of kNormRowsPerBlock rows its own mean m_b, then, while the block is in
// cache, Σ(x − m_b) and Σ(x − m_b)² (Chan, Golub and LeVeque's corrected two-pass sums);
// the blocks combined in block order, in double, by the pairwise update
// M2 = Σ [M2_b + n_b·(mean_b − mean)²]. Two passes over the whole batch read x from memory
// twice. mean_b − mean is taken in double because, for values far from zero with a small
// spread, float block means would round it (tests/core/batch_norm_statistics_test.cc).
// The sums depend on the shape alone.
void block_statistics(const Layout& l, const float* px, float* mean, float* variance) {
  const std::int64_t C = l.channels;
  const std::int64_t blocks = std::max<std::int64_t>(1, (l.outer + kNormRowsPerBlock - 1) / kNormRowsPerBlock);
  // Block b: m_b, Σ(x − m_b), Σ(x − m_b)².
  float* partials = scratch(1, static_cast<std::size_t>(blocks * 3 * C));
  parallel_for(blocks, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      float* block = partials + b * 3 * C;
      const std::int64_t r0 = b * kNormRowsPerBlock, r1 = std::min(l.outer, r0 + kNormRowsPerBlock);
      for_lanes(C, [&](std::int64_t c, auto t) { block_moments(px + r0 * C + c, C, r1 - r0, block + c, C, t); });
    }
  }, threshold_for(kNormRowsPerBlock * C));
  const auto rows_in = [&](std::int64_t b) {
    return static_cast<double>(std::min(l.outer, (b + 1) * kNormRowsPerBlock) - b * kNormRowsPerBlock);
  };
  // As reduce_mean: a mean over no elements is 0.
  const double per = l.outer > 0 ? 1.0 / static_cast<double>(l.outer) : 1.0;
  for (std::int64_t c = 0; c < C; ++c) {
    double sum = 0;
    for (std::int64_t b = 0; b < blocks; ++b) {
      const float* block = partials + b * 3 * C;
      sum += rows_in(b) * static_cast<double>(block[c]) + static_cast<double>(block[C + c]);
    }
    const double batch_mean = sum * per;
    double m2 = 0;
    for (std::int64_t b = 0; b < blocks; ++b) {
      const float* block = partials + b * 3 * C;
      const double n = rows_in(b);
      if (n == 0) continue;
      const double residual = block[C + c];
      const double d = static_cast<double>(block[c]) + residual / n - batch_mean;
      m2 += static_cast<double>(block[2 * C + c]) - residual * residual / n + n * d * d;
    }
    mean[c] = static_cast<float>(batch_mean);
    variance[c] = static_cast<float>(m2 * per);
  }
}

// The normalization's factor per channel: γ / √(variance + ε), in the composite's order
// (ops::batch_normalization_inference): 1/√(variance + ε), then times γ.
void scales(const float* gamma, const float* variance, float epsilon, std::int64_t channels, float* out) {
  for (std::int64_t c = 0; c < channels; ++c) out[c] = 1.f / std::sqrt(variance[c] + epsilon) * gamma[c];
}

void batch_normalization_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int axis = static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis"));
  const float epsilon = static_cast<float>(ctx.node.attrs.get<double>("epsilon"));
  const Layout l = layout_of(x.shape(), axis);
  const std::int64_t C = l.channels;
  const float* px = x.data<float>();
  const float* gamma = ctx.input(1).data<float>();
  const float* beta = ctx.input(2).data<float>();
  float* mean = ctx.output(1).data<float>();
  float* variance = ctx.output(2).data<float>();
  if (ctx.training && l.inner == 1) {
    block_statistics(l, px, mean, variance);
  } else if (ctx.training) {
    // As reduce_mean: a mean over no elements is 0.
    const float per = l.count() > 0 ? 1.f / static_cast<float>(l.count()) : 1.f;
    const auto rows_unused = [](std::int64_t, std::int64_t, auto, auto*) {};  // channels last: block_statistics
    channel_sums<1>(l, rows_unused, [&](std::int64_t, std::int64_t i, float* v) { v[0] = px[i]; }, {mean});
    for (std::int64_t c = 0; c < C; ++c) mean[c] *= per;
    channel_sums<1>(
        l, rows_unused,
        [&](std::int64_t c, std::int64_t i, float* v) {
          const float d = px[i] - mean[c];
          v[0] = d * d;
        },
        {variance});
    for (std::int64_t c = 0; c < C; ++c) variance[c] *= per;
  } else {
    std::copy_n(ctx.input(3).data<float>(), C, mean);
    std::copy_n(ctx.input(4).data<float>(), C, variance);
  }
  float* s = scratch(0, static_cast<std::size_t>(C));
  scales(gamma, variance, epsilon, C, s);
  float* py = ctx.output(0).data<float>();
  for_each_element(
      l,
      [&](std::int64_t r) {
        const float* xr = px + r * C;
        float* yr = py + r * C;
        for_lanes(C, [&](std::int64_t c, auto t) {
          store(yr + c, (load_as(xr + c, t) - load_as(mean + c, t)) * load_as(s + c, t) + load_as(beta + c, t));
        });
      },
      [&](std::int64_t c, std::int64_t i) { py[i] = (px[i] - mean[c]) * s[c] + beta[c]; });
}

void batch_normalization_grad_kernel(KernelContext& ctx) {
  const Tensor& dy = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const int axis = static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis"));
  const float epsilon = static_cast<float>(ctx.node.attrs.get<double>("epsilon"));
  const Layout l = layout_of(x.shape(), axis);
  const std::int64_t C = l.channels;
  const float* pdy = dy.data<float>();
  const float* px = x.data<float>();
  const float* gamma = ctx.input(2).data<float>();
  const float* mean = ctx.input(3).data<float>();
  const float* variance = ctx.input(4).data<float>();
  const float* dmean = ctx.input(5).data<float>();
  const float* dvariance = ctx.input(6).data<float>();
  float* dgamma = ctx.output(1).data<float>();
  float* dbeta = ctx.output(2).data<float>();
  // dbeta = Σ dy, and Σ dy·(x − mean) into dgamma, to be scaled.
  channel_sums<2>(
      l,
      [&](std::int64_t r, std::int64_t c, auto t, decltype(t) v[2]) {
        v[0] = load_as(pdy + r * C + c, t);
        v[1] = v[0] * (load_as(px + r * C + c, t) - load_as(mean + c, t));
      },
      [&](std::int64_t c, std::int64_t i, float* v) {
        v[0] = pdy[i];
        v[1] = pdy[i] * (px[i] - mean[c]);
      },
      {dbeta, dgamma});
  // dx = a·dy + b·(x − mean) + shift per channel. In training (the statistics the batch's):
  // a = γr, b = −γr³·Σdy(x − μ)/N + 2·dvar/N, shift = −γr·Σdy/N + dμ/N; otherwise the
  // statistics are constants: a = γr, b = shift = 0.
  float* a = scratch(0, static_cast<std::size_t>(3 * C));
  float* b = a + C;
  float* shift = b + C;
  const float per = l.count() > 0 ? 1.f / static_cast<float>(l.count()) : 0.f;
  for (std::int64_t c = 0; c < C; ++c) {
    const float r = 1.f / std::sqrt(variance[c] + epsilon);
    const float sum_dy = dbeta[c], sum_dy_centered = dgamma[c];
    a[c] = gamma[c] * r;
    if (ctx.training) {
      b[c] = -gamma[c] * r * r * r * sum_dy_centered * per + 2.f * dvariance[c] * per;
      shift[c] = -gamma[c] * r * sum_dy * per + dmean[c] * per;
    } else {
      b[c] = 0.f;
      shift[c] = 0.f;
    }
    dgamma[c] = sum_dy_centered * r;
  }
  float* pdx = ctx.output(0).data<float>();
  for_each_element(
      l,
      [&](std::int64_t r) {
        const float* dyr = pdy + r * C;
        const float* xr = px + r * C;
        float* dxr = pdx + r * C;
        for_lanes(C, [&](std::int64_t c, auto t) {
          const auto centered = load_as(xr + c, t) - load_as(mean + c, t);
          store(dxr + c, load_as(a + c, t) * load_as(dyr + c, t) + load_as(b + c, t) * centered + load_as(shift + c, t));
        });
      },
      [&](std::int64_t c, std::int64_t i) { pdx[i] = a[c] * pdy[i] + b[c] * (px[i] - mean[c]) + shift[c]; });
}

}  // namespace

void register_batch_norm_kernels(OpRegistry& r) {
  r.add_kernel("batch_normalization", DeviceType::cpu, {.run = batch_normalization_kernel});
  r.add_kernel("batch_normalization_grad", DeviceType::cpu, {.run = batch_normalization_grad_kernel});
}

}  // namespace strata::cpu
