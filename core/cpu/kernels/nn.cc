// The CPU kernels of the neural-network ops (core/ops/nn_ops.cc): softmax, log_softmax,
// sparsemax and their gradients, pick/unpick (sparse labels), argmax, dropout.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/rng.h"

namespace strata::cpu {

namespace {

// Calls fn(row_pointer_in, row_pointer_out, stride) for each 1-D lane along `axis`.
template <typename Fn>
void for_each_lane(const Tensor& in, Tensor& out, int axis, Fn fn) {
  const Shape& s = in.shape();
  axis = s.normalize_axis(axis);
  const std::int64_t n = s.dims()[axis];
  const std::int64_t inner = s.product(axis + 1, s.rank());
  const std::int64_t outer = s.product(0, axis);
  const float* src = in.data<float>();
  float* dst = out.data<float>();
  cpu::parallel_for(outer * inner, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t lane = b; lane < e; ++lane) {
      std::int64_t o = lane / inner, i = lane % inner;
      fn(src + o * n * inner + i, dst + o * n * inner + i, n, inner);
    }
  }, cpu::threshold_for(n));
}

// Each lane's exponentials are computed once, into the output, then scaled. A contiguous
// lane (the usual last axis) runs on Eigen's vectorized exp, accurate to a few ulp.
void softmax_kernel(KernelContext& ctx, bool log_space) {
  for_each_lane(ctx.input(0), ctx.output(0), static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")),
                [log_space](const float* x, float* y, std::int64_t n, std::int64_t stride) {
                  if (n == 0) return;  // an empty axis: nothing to normalize (no max to read)
                  if (stride == 1) {
                    const Eigen::Map<const Eigen::ArrayXf> xs(x, n);
                    Eigen::Map<Eigen::ArrayXf> ys(y, n);
                    const float mx = xs.maxCoeff();
                    ys = (xs - mx).exp();
                    const float sum = ys.sum();
                    // (x - max) - log(sum): adding max into the log-sum-exp first would
                    // round it at max's magnitude (an error of 6e-5 at logits near 1000).
                    if (log_space) {
                      ys = (xs - mx) - std::log(sum);
                    } else {
                      ys *= 1.f / sum;
                    }
                    return;
                  }
                  float mx = -std::numeric_limits<float>::infinity();
                  for (std::int64_t k = 0; k < n; ++k) mx = std::max(mx, x[k * stride]);
                  float sum = 0.f;
                  for (std::int64_t k = 0; k < n; ++k) sum += (y[k * stride] = std::exp(x[k * stride] - mx));
                  if (log_space) {
                    const float log_sum = std::log(sum);
                    for (std::int64_t k = 0; k < n; ++k) y[k * stride] = (x[k * stride] - mx) - log_sum;
                  } else {
                    const float inv = 1.f / sum;
                    for (std::int64_t k = 0; k < n; ++k) y[k * stride] *= inv;
                  }
                });
}

// y * (g - sum(g * y)) along each lane: the softmax's gradient, given its output y.
void softmax_grad_kernel(KernelContext& ctx) {
  const Tensor& g = ctx.input(0);
  const float* pg = g.data<float>();
  const float* base = ctx.input(1).data<float>();
  for_each_lane(ctx.input(1), ctx.output(0), static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")),
                [pg, base](const float* y, float* out, std::int64_t n, std::int64_t stride) {
                  const float* gl = pg + (y - base);  // g's lane: the same offset as y's
                  if (stride == 1) {
                    const Eigen::Map<const Eigen::ArrayXf> gs(gl, n), ys(y, n);
                    Eigen::Map<Eigen::ArrayXf>(out, n) = ys * (gs - (gs * ys).sum());
                    return;
                  }
                  float s = 0.f;
                  for (std::int64_t k = 0; k < n; ++k) s += gl[k * stride] * y[k * stride];
                  for (std::int64_t k = 0; k < n; ++k) out[k * stride] = y[k * stride] * (gl[k * stride] - s);
                });
}

// Sparsemax as Keras 3 computes it (keras.activations.sparsemax, every backend): sort the
// lane descending (z), cumulative sums c, support j <= k where z_j > (c_j - 1) / j, and
// tau = (c_1 + ... + c_k - 1) / k, y = max(x - tau, 0). Keras sums the cumulative sums
// where the paper (Martins & Astudillo 2016) takes c_k, so its lanes need not sum to 1;
// Strata computes Keras's, so Keras models predict the same.
struct SparsemaxLane {
  std::vector<std::int64_t> order;  // lane positions, by value descending
  std::int64_t k = 1;
  float tau = 0.f;
};

void sparsemax_lane(const float* x, std::int64_t n, std::int64_t stride, SparsemaxLane& lane) {
  lane.order.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) lane.order[i] = i;
  std::stable_sort(lane.order.begin(), lane.order.end(),
                   [&](std::int64_t a, std::int64_t b) { return x[a * stride] > x[b * stride]; });
  double cumulative = 0.0, sum_of_cumulative = 0.0;
  lane.k = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const float z = x[lane.order[j] * stride];
    cumulative += z;
    if (z - (cumulative - 1.0) / static_cast<double>(j + 1) > 0.0) {
      ++lane.k;
      sum_of_cumulative += cumulative;
    }
  }
  lane.k = std::max<std::int64_t>(lane.k, 1);
  lane.tau = static_cast<float>((sum_of_cumulative - 1.0) / static_cast<double>(lane.k));
}

void sparsemax_kernel(KernelContext& ctx) {
  for_each_lane(ctx.input(0), ctx.output(0), static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")),
                [](const float* x, float* y, std::int64_t n, std::int64_t stride) {
                  thread_local SparsemaxLane lane;  // reused: no allocation per lane
                  sparsemax_lane(x, n, stride, lane);
                  for (std::int64_t i = 0; i < n; ++i) y[i * stride] = std::max(x[i * stride] - lane.tau, 0.f);
                });
}

// The gradient of Keras's sparsemax: with m_i = [x_i - tau >= 0] (TF's maximum passes
// ties to x) and tau's derivative (k - r_i + 1) / k for the element of rank r_i <= k,
// dx_i = m_i g_i - (k - r_i + 1) / k * sum_j m_j g_j.
void sparsemax_grad_kernel(KernelContext& ctx) {
  const Tensor& g = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const int axis = static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis"));
  // Lanes of x and g line up: walk x's lanes and read g at the same offsets.
  const float* g0 = g.data<float>();
  const float* x0 = x.data<float>();
  for_each_lane(x, ctx.output(0), axis, [&](const float* xl, float* dl, std::int64_t n, std::int64_t stride) {
    const float* gl = g0 + (xl - x0);
    thread_local SparsemaxLane lane;
    sparsemax_lane(xl, n, stride, lane);
    double masked_sum = 0.0;
    for (std::int64_t i = 0; i < n; ++i)
      if (xl[i * stride] - lane.tau >= 0.f) masked_sum += gl[i * stride];
    for (std::int64_t i = 0; i < n; ++i) dl[i * stride] = xl[i * stride] - lane.tau >= 0.f ? gl[i * stride] : 0.f;
    for (std::int64_t r = 0; r < lane.k; ++r) {
      const double dtau = static_cast<double>(lane.k - r) / static_cast<double>(lane.k);
      dl[lane.order[r] * stride] -= static_cast<float>(dtau * masked_sum);
    }
  });
}

// Labels may be integer or float (Keras accepts float sparse labels); values must be
// whole numbers in [0, classes).
std::int64_t label_at(const Tensor& labels, std::int64_t i, std::int64_t classes, const Node& node) {
  std::int64_t v = 0;
  switch (labels.dtype()) {
    case DType::float32: {
      float f = labels.data<float>()[i];
      if (!(f >= 0.f) || f != std::floor(f)) {
        throw ValueError(node.name + ": label " + std::to_string(f) + " at index " + std::to_string(i) +
                         " is not a class index in [0, " + std::to_string(classes) + ")");
      }
      v = static_cast<std::int64_t>(f);
      break;
    }
    case DType::int32: v = labels.data<std::int32_t>()[i]; break;
    case DType::int64: v = labels.data<std::int64_t>()[i]; break;
    case DType::string: throw ValueError(node.name + ": string labels (map them to class indices first)");
  }
  if (v < 0 || v >= classes) {
    throw ValueError(node.name + ": label " + std::to_string(v) + " at index " + std::to_string(i) +
                     " is out of range [0, " + std::to_string(classes) + ")");
  }
  return v;
}

// Dropout over 64 elements whose Philox blocks are `words` (element t takes word t % 4
// of block t / 4): kept where the word's uniform is ≥ rate, scaled by keep_scale. The
// uniform is (word >> 8)·2⁻²⁴ exactly, so "≥ rate" is the integer test (word >> 8) ≥
// ⌈rate·2²⁴⌉ — the same decision as the float comparison, sixteen words at a time.
void apply_dropout_run(const Philox::Words16& words, float rate, float keep_scale, const float* x, float* out) {
#if defined(__AVX512F__) && defined(__BMI2__)
  const auto threshold = static_cast<std::uint32_t>(std::ceil(static_cast<double>(rate) * 16777216.0));
  const __m512i limit = _mm512_set1_epi32(static_cast<int>(threshold));
  std::uint32_t kept[4];  // bit j of kept[w]: element 4j + w is kept
  for (int w = 0; w < 4; ++w) {
    const __m512i word = _mm512_loadu_si512(words[static_cast<std::size_t>(w)].data());
    kept[w] = _mm512_cmpge_epu32_mask(_mm512_srli_epi32(word, 8), limit);
  }
  const __m512 scale = _mm512_set1_ps(keep_scale);
  for (int q = 0; q < 4; ++q) {  // elements 16q .. 16q + 15: blocks 4q .. 4q + 3
    std::uint32_t mask = 0;
    for (int w = 0; w < 4; ++w) mask |= _pdep_u32((kept[w] >> (4 * q)) & 0xF, 0x1111u << w);
    _mm512_storeu_ps(out + 16 * q, _mm512_maskz_mul_ps(static_cast<__mmask16>(mask), _mm512_loadu_ps(x + 16 * q), scale));
  }
#else
  for (int t = 0; t < 64; ++t) {
    out[t] = Philox::to_uniform(words[static_cast<std::size_t>(t % 4)][static_cast<std::size_t>(t / 4)]) >= rate
                 ? x[t] * keep_scale
                 : 0.f;
  }
#endif
}

void pick_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  std::int64_t classes = x.shape().dims().back();
  const float* px = x.data<float>();
  float* po = ctx.output(0).data<float>();
  for (std::int64_t i = 0; i < labels.size(); ++i) {
    po[i] = px[i * classes + label_at(labels, i, classes, ctx.node)];
  }
}

void unpick_kernel(KernelContext& ctx) {
  const Tensor& g = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  Tensor& out = ctx.output(0);
  std::int64_t classes = out.shape().dims().back();
  float* po = out.data<float>();
  std::fill_n(po, out.size(), 0.f);
  const float* pg = g.data<float>();
  for (std::int64_t i = 0; i < labels.size(); ++i) {
    po[i * classes + label_at(labels, i, classes, ctx.node)] = pg[i];
  }
}

void argmax_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int axis = x.shape().normalize_axis(static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")));
  const std::int64_t n = x.shape().dims()[axis];
  const std::int64_t inner = x.shape().product(axis + 1, x.rank());
  const std::int64_t outer = x.shape().product(0, axis);
  const float* px = x.data<float>();
  std::int64_t* po = ctx.output(0).data<std::int64_t>();
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const float* lane = px + o * n * inner + i;
      std::int64_t best = 0;
      for (std::int64_t k = 1; k < n; ++k) {
        if (lane[k * inner] > lane[best * inner]) best = k;
      }
      po[o * inner + i] = best;
    }
  }
}

void dropout_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  const float* px = x.data<float>();
  float* po = out.data<float>();
  const float rate = static_cast<float>(ctx.node.attrs.get<double>("rate"));
  if (!ctx.training || rate == 0.f) {
    std::copy_n(px, x.size(), po);
    return;
  }
  // Keyed on (seed, step), counting elements: masks of different steps never
  // overlap, whatever the batch sizes.
  Philox rng(mix_seed(static_cast<std::uint64_t>(ctx.node.attrs.get<std::int64_t>("seed")),
                      static_cast<std::uint64_t>(ctx.step)),
             static_cast<std::uint64_t>(ctx.node.attrs.get<std::int64_t>("stream")));
  const float keep_scale = 1.f / (1.f - rate);
  // Elements are numbered in the step's global batch: a data-parallel shard
  // starting at sample_offset draws the mask a single process would.
  const std::int64_t first = x.rank() > 0 && x.shape()[0] > 0 ? ctx.sample_offset * (x.size() / x.shape()[0]) : 0;
  // Element g takes word g % 4 of Philox block g / 4: one block (ten rounds) per
  // four elements, and the mask does not depend on how the range is split. Runs
  // of 64 elements that start a block take their 16 blocks at once (bits16).
  auto keep = [&](std::uint32_t word, std::int64_t i) {
    po[i] = Philox::to_uniform(word) >= rate ? px[i] * keep_scale : 0.f;
  };
  cpu::parallel_for(x.size(), [&](std::int64_t b, std::int64_t e) {
    std::int64_t i = b;
    auto one_block = [&] {
      const std::int64_t g = first + i;
      const auto words = rng.bits(static_cast<std::uint64_t>(g / 4));
      for (std::int64_t j = g % 4; j < 4 && i < e; ++j, ++i) keep(words[static_cast<std::size_t>(j)], i);
    };
    while (i < e && (first + i) % 4 != 0) one_block();
    Philox::Words16 words;
    for (; i + 64 <= e; i += 64) {
      rng.bits16(static_cast<std::uint64_t>((first + i) / 4), words);
      apply_dropout_run(words, rate, keep_scale, px + i, po + i);
    }
    while (i < e) one_block();
  }, cpu::threshold_for(8));
}

}  // namespace

void register_nn_kernels(OpRegistry& r) {
  r.add_kernel("softmax", DeviceType::cpu, {.run = [](KernelContext& ctx) { softmax_kernel(ctx, false); }});
  r.add_kernel("softmax_grad", DeviceType::cpu, {.run = softmax_grad_kernel});
  r.add_kernel("sparsemax", DeviceType::cpu, {.run = sparsemax_kernel});
  r.add_kernel("sparsemax_grad", DeviceType::cpu, {.run = sparsemax_grad_kernel});
  r.add_kernel("log_softmax", DeviceType::cpu, {.run = [](KernelContext& ctx) { softmax_kernel(ctx, true); }});
  r.add_kernel("pick", DeviceType::cpu, {.run = pick_kernel});
  r.add_kernel("unpick", DeviceType::cpu, {.run = unpick_kernel});
  r.add_kernel("argmax", DeviceType::cpu, {.run = argmax_kernel});
  r.add_kernel("dropout", DeviceType::cpu, {.run = dropout_kernel});
}

}  // namespace strata::cpu
