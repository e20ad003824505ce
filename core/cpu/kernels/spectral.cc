// The CPU kernels of rfft and irfft (core/ops/spectral_ops.h) on KISS FFT's real
// transforms (kiss_fftr, kiss_fftri; BSD-3-Clause, Debian's libkissfft-dev; odd lengths on
// its complex transform, kiss_fft), chosen by
// measurement among the maintained libraries Debian ships (docs/audio.md). A plan per
// transform length is made on a kernel's first run and kept in its cache; each row's
// transform reads and writes the tensors in place (KISS FFT's complex type is two floats,
// real then imaginary, the ops' layout). Rows run on the thread pool, each worker with a
// plan of its own (a plan holds scratch).
#include <kissfft/kiss_fftr.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/cpu/thread_pool.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

static_assert(sizeof(kiss_fft_cpx) == 2 * sizeof(float), "KISS FFT built for float, real then imaginary");

// One KISS FFT plan (forward or inverse) of length n: the real transform (kiss_fftr) for
// even n, which it requires; for odd n the complex one (kiss_fft) on rows made complex,
// with buffers of n points.
class KissPlan {
 public:
  KissPlan(std::int64_t n, bool inverse) : n_(n) {
    if (n % 2 == 0) {
      real_ = kiss_fftr_alloc(static_cast<int>(n), inverse ? 1 : 0, nullptr, nullptr);
    } else {
      complex_ = kiss_fft_alloc(static_cast<int>(n), inverse ? 1 : 0, nullptr, nullptr);
      in_.resize(static_cast<std::size_t>(n));
      out_.resize(static_cast<std::size_t>(n));
    }
    if (!real_ && !complex_) throw Error("KISS FFT could not plan a transform of length " + std::to_string(n));
  }
  ~KissPlan() {
    if (real_) kiss_fftr_free(real_);
    if (complex_) kiss_fft_free(complex_);
  }
  KissPlan(const KissPlan&) = delete;
  KissPlan& operator=(const KissPlan&) = delete;

  // The n / 2 + 1 bins of the real signal x (n samples).
  void forward(const float* x, kiss_fft_cpx* bins) {
    if (real_) return kiss_fftr(real_, x, bins);
    for (std::int64_t i = 0; i < n_; ++i) in_[static_cast<std::size_t>(i)] = {x[i], 0.f};
    kiss_fft(complex_, in_.data(), out_.data());
    std::copy(out_.begin(), out_.begin() + n_ / 2 + 1, bins);
  }
  // The real signal (n samples, unnormalized) of the Hermitian spectrum whose first n / 2 + 1
  // bins are given (the imaginary part of bin 0 ignored, as kiss_fftri does).
  void inverse(const kiss_fft_cpx* bins, float* x) {
    if (real_) return kiss_fftri(real_, bins, x);
    const std::int64_t half = n_ / 2;
    for (std::int64_t k = 0; k <= half; ++k) in_[static_cast<std::size_t>(k)] = bins[k];
    for (std::int64_t k = 1; k <= half; ++k) in_[static_cast<std::size_t>(n_ - k)] = {bins[k].r, -bins[k].i};
    kiss_fft(complex_, in_.data(), out_.data());
    for (std::int64_t i = 0; i < n_; ++i) x[i] = out_[static_cast<std::size_t>(i)].r;
  }

 private:
  std::int64_t n_;
  kiss_fftr_cfg real_ = nullptr;
  kiss_fft_cfg complex_ = nullptr;
  std::vector<kiss_fft_cpx> in_, out_;  // the odd lengths' rows, made complex
};

// A plan per task, for one length and direction, kept between runs.
struct Plans : KernelCache {
  std::int64_t n = 0;
  std::vector<std::unique_ptr<KissPlan>> per_task;
};

Plans& plans_for(KernelContext& ctx, std::int64_t n, bool inverse, int tasks) {
  auto* plans = dynamic_cast<Plans*>(ctx.cache.get());
  if (!plans || plans->n != n || plans->per_task.size() < static_cast<std::size_t>(tasks)) {
    auto fresh = std::make_unique<Plans>();
    fresh->n = n;
    for (int i = 0; i < tasks; ++i) fresh->per_task.push_back(std::make_unique<KissPlan>(n, inverse));
    plans = fresh.get();
    ctx.cache = std::move(fresh);
  }
  return *plans;
}

// f(plan, row) for every row, in one block of rows per task of the pool.
template <typename F>
void each_row(const Plans& plans, std::int64_t rows, int tasks, F&& f) {
  auto task = [&](int t) {
    const std::int64_t begin = rows * t / tasks, end = rows * (t + 1) / tasks;
    for (std::int64_t r = begin; r < end; ++r) f(*plans.per_task[static_cast<std::size_t>(t)], r);
  };
  pool().run(tasks, task);
}

void rfft_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  const std::int64_t n = x.shape()[x.shape().rank() - 1];
  const std::int64_t rows = n > 0 ? x.size() / n : 0, bins = n / 2 + 1;
  const int tasks = static_cast<int>(std::min<std::int64_t>(pool().size(), std::max<std::int64_t>(rows, 1)));
  const Plans& plans = plans_for(ctx, n, false, tasks);
  const float* in = x.data<float>();
  auto* spectra = reinterpret_cast<kiss_fft_cpx*>(out.data<float>());
  each_row(plans, rows, tasks, [&](KissPlan& plan, std::int64_t r) { plan.forward(in + r * n, spectra + r * bins); });
}

void irfft_kernel(KernelContext& ctx) {
  const Tensor& spectrum = ctx.input(0);
  Tensor& out = ctx.output(0);
  const std::int64_t n = ctx.node.attrs.get<std::int64_t>("n");
  const std::int64_t bins = n / 2 + 1, rows = out.size() / n;
  const int tasks = static_cast<int>(std::min<std::int64_t>(pool().size(), std::max<std::int64_t>(rows, 1)));
  const Plans& plans = plans_for(ctx, n, true, tasks);
  const auto* in = reinterpret_cast<const kiss_fft_cpx*>(spectrum.data<float>());
  float* signals = out.data<float>();
  each_row(plans, rows, tasks, [&](KissPlan& plan, std::int64_t r) { plan.inverse(in + r * bins, signals + r * n); });
}

}  // namespace

void register_spectral_kernels(OpRegistry& r) {
  r.add_kernel("rfft", DeviceType::cpu, {.run = rfft_kernel});
  r.add_kernel("irfft", DeviceType::cpu, {.run = irfft_kernel});
}

}  // namespace strata::cpu
