// Host side of the spectral CUDA kernels: cuFFT plans and executions on the run's stream.
#include "core/cuda/spectral_kernels.h"

#include <cufft.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/cuda/workspace.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

void check_cufft(cufftResult status, const KernelContext& ctx, const char* call) {
  if (status != CUFFT_SUCCESS) [[unlikely]] {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "'): " + call +
                " failed: cuFFT status " + std::to_string(static_cast<int>(status)));
  }
}

// One cuFFT plan: `batch` transforms of length n, R2C or C2R, destroyed with the handle.
class CufftPlan {
 public:
  CufftPlan(const KernelContext& ctx, int n, int batch, cufftType type) : n_(n), batch_(batch), type_(type) {
    int length = n;
    const int bins = n / 2 + 1;
    const bool forward = type == CUFFT_R2C;
    check_cufft(cufftPlanMany(&handle_, 1, &length, nullptr, 1, forward ? n : bins, nullptr, 1, forward ? bins : n,
                              type, batch),
                ctx, "cufftPlanMany");
  }
  ~CufftPlan() { cufftDestroy(handle_); }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  bool fits(int n, int batch, cufftType type) const { return n == n_ && batch == batch_ && type == type_; }
  cufftHandle get() const { return handle_; }

 private:
  cufftHandle handle_ = 0;
  int n_, batch_;
  cufftType type_;
};

struct PlanCache : KernelCache {
  std::unique_ptr<CufftPlan> plan;
};

// The kernel's plan for these transforms, made once and kept while they stay the same,
// bound to the run's stream.
cufftHandle plan_for(KernelContext& ctx, std::int64_t n, std::int64_t rows, cufftType type) {
  auto* cache = dynamic_cast<PlanCache*>(ctx.cache.get());
  if (!cache) {
    auto fresh = std::make_unique<PlanCache>();
    cache = fresh.get();
    ctx.cache = std::move(fresh);
  }
  const int length = static_cast<int>(n), batch = static_cast<int>(rows);
  if (!cache->plan || !cache->plan->fits(length, batch, type)) {
    cache->plan.reset();
    cache->plan = std::make_unique<CufftPlan>(ctx, length, batch, type);
  }
  check_cufft(cufftSetStream(cache->plan->get(), run_context(ctx).stream().get()), ctx, "cufftSetStream");
  return cache->plan->get();
}

}  // namespace

void rfft(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  const std::int64_t n = x.shape()[x.shape().rank() - 1];
  const std::int64_t rows = x.size() / n;
  if (rows == 0) return;
  const cufftHandle plan = plan_for(ctx, n, rows, CUFFT_R2C);
  // An out-of-place R2C leaves its input as it is.
  check_cufft(cufftExecR2C(plan, const_cast<cufftReal*>(floats(x)), reinterpret_cast<cufftComplex*>(floats(out))),
              ctx, "cufftExecR2C");
}

void irfft(KernelContext& ctx) {
  const Tensor& spectrum = ctx.input(0);
  Tensor& out = ctx.output(0);
  const std::int64_t n = ctx.node.attrs.get<std::int64_t>("n");
  const std::int64_t bins = n / 2 + 1, rows = out.size() / n;
  if (rows == 0) return;
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  const std::size_t bytes = static_cast<std::size_t>(spectrum.size()) * sizeof(float);
  auto* copy = static_cast<float*>(run.workspace().get(bytes));
  const cufftHandle plan = plan_for(ctx, n, rows, CUFFT_C2R);
  check(cudaMemcpyAsync(copy, floats(spectrum), bytes, cudaMemcpyDeviceToDevice, stream), ctx, "cudaMemcpyAsync");
  // The imaginary parts of bin 0 and bin n/2 of every row.
  const std::size_t pitch = static_cast<std::size_t>(bins) * 2 * sizeof(float);
  for (float* imag : {copy + 1, copy + (bins - 1) * 2 + 1}) {
    check(cudaMemset2DAsync(imag, pitch, 0, sizeof(float), static_cast<std::size_t>(rows), stream), ctx,
          "cudaMemset2DAsync");
  }
  check_cufft(cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(copy), floats(out)), ctx, "cufftExecC2R");
}

void register_spectral_kernels(OpRegistry& r) {
  add_kernel(r, "rfft", rfft);
  add_kernel(r, "irfft", irfft);
}

}  // namespace strata::cuda
