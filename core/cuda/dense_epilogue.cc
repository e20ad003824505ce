#include "core/cuda/dense_epilogue.h"

#include <memory>

#include "core/cuda/check.h"
#include "core/cuda/run_context.h"

namespace strata::cuda {

namespace {

constexpr std::uintptr_t kAlignment = 256;

bool aligned(const void* p) { return p == nullptr || reinterpret_cast<std::uintptr_t>(p) % kAlignment == 0; }

cublasLtEpilogue_t epilogue_for(bool bias, bool relu) {
  if (bias) return relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  return relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT;
}

}  // namespace

std::unique_ptr<DenseEpiloguePlan> DenseEpilogue::make_plan(const KernelContext& ctx, const DenseEpilogueKey& key,
                                                            const float* bias) const {
  auto plan = std::make_unique<DenseEpiloguePlan>();
  check(cublasLtMatmulDescCreate(plan->product.out(), CUBLAS_COMPUTE_32F, CUDA_R_32F), ctx,
        "cublasLtMatmulDescCreate");
  const cublasLtEpilogue_t epilogue = epilogue_for(key.bias, key.relu);
  check(cublasLtMatmulDescSetAttribute(plan->product.get(), CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)),
        ctx, "cublasLtMatmulDescSetAttribute(EPILOGUE)");
  if (key.bias) {
    // The heuristic reads the pointer's alignment; run() sets each call's own.
    check(cublasLtMatmulDescSetAttribute(plan->product.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)),
          ctx, "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  }
  // Column-major views of the row-major operands (see the header): A = kernelᵀ, B = xᵀ,
  // D = yᵀ, each with its rows contiguous.
  const auto u = static_cast<std::uint64_t>(key.units), r = static_cast<std::uint64_t>(key.rows),
             k = static_cast<std::uint64_t>(key.inputs);
  check(cublasLtMatrixLayoutCreate(plan->kernel.out(), CUDA_R_32F, u, k, key.units), ctx, "cublasLtMatrixLayoutCreate");
  check(cublasLtMatrixLayoutCreate(plan->x.out(), CUDA_R_32F, k, r, key.inputs), ctx, "cublasLtMatrixLayoutCreate");
  check(cublasLtMatrixLayoutCreate(plan->y.out(), CUDA_R_32F, u, r, key.units), ctx, "cublasLtMatrixLayoutCreate");

  LtPreference preference;
  check(cublasLtMatmulPreferenceCreate(preference.out()), ctx, "cublasLtMatmulPreferenceCreate");
  const std::uint64_t workspace = CublasHandle::kWorkspaceBytes;
  check(cublasLtMatmulPreferenceSetAttribute(preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                             sizeof(workspace)),
        ctx, "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(handle_.get(), plan->product.get(), plan->kernel.get(), plan->x.get(),
                                     plan->y.get(), plan->y.get(), preference.get(), 1, &result, &found);
  // NOT_SUPPORTED is the heuristic's "no algorithm": the classic path takes the geometry.
  if (status != CUBLAS_STATUS_NOT_SUPPORTED) check(status, ctx, "cublasLtMatmulAlgoGetHeuristic");
  plan->usable = status == CUBLAS_STATUS_SUCCESS && found > 0 && result.state == CUBLAS_STATUS_SUCCESS;
  plan->algorithm = result.algo;
  return plan;
}

bool DenseEpilogue::run(const KernelContext& ctx, const RunContext& run, std::int64_t rows, std::int64_t units,
                        std::int64_t inputs, const float* x, const float* kernel, const float* bias, bool relu,
                        float* y) {
  if (rows == 0 || units == 0 || inputs == 0) return false;
  if (!aligned(x) || !aligned(kernel) || !aligned(bias) || !aligned(y)) return false;
  const DenseEpilogueKey key{rows, units, inputs, bias != nullptr, relu};
  DenseEpiloguePlan& plan = plans_.find_or_build(key, [&] { return make_plan(ctx, key, bias); });
  if (!plan.usable) return false;
  if (bias) {
    check(cublasLtMatmulDescSetAttribute(plan.product.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)),
          ctx, "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  }
  const float one = 1.f, zero = 0.f;
  check(cublasLtMatmul(handle_.get(), plan.product.get(), &one, kernel, plan.kernel.get(), x, plan.x.get(), &zero, y,
                       plan.y.get(), y, plan.y.get(), &plan.algorithm, run.blas().workspace(),
                       CublasHandle::kWorkspaceBytes, run.stream().get()),
        ctx, "cublasLtMatmul");
  ++products_;
  return true;
}

DenseEpilogue& RunContext::dense_epilogue() {
  if (!dense_epilogue_) dense_epilogue_ = std::make_shared<DenseEpilogue>(device());
  return *dense_epilogue_;
}

}  // namespace strata::cuda
