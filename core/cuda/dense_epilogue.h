// Dense on CUDA with its bias and relu in cuBLASLt's epilogue (built only with
// STRATA_WITH_CUDA): y = act(x · kernel + bias) as one product, where cuBLAS's classic
// GEMM writes x · kernel and a second kernel then reads and rewrites y for the bias and
// the relu.
//
// Layout: cuBLASLt is column-major, where the row-major y (rows × units) reads as
// yᵀ (units × rows) = kernelᵀ (units × in) · xᵀ (in × rows), with no transposes; and
// Keras's bias, one per unit, is one per row of yᵀ, which is what the BIAS epilogues
// broadcast (a vector as long as D has rows).
//
// Strict float32 (CUBLAS_COMPUTE_32F, no TF32), as the classic path. The algorithm is
// cuBLASLt's heuristic's first choice for the geometry, the epilogue and the cuBLAS
// handle's fixed workspace, asked once per geometry and kept (an LRU of plans, as the
// cuDNN convolution plans are kept): a step does no host search, and one geometry always
// runs one algorithm, so its bits do not change from step to step.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

#include "core/cuda/cublaslt_handle.h"
#include "core/cuda/lru_cache.h"

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

class RunContext;

struct DenseEpilogueKey {
  std::int64_t rows = 0, units = 0, inputs = 0;
  bool bias = false, relu = false;
  bool operator==(const DenseEpilogueKey&) const = default;
};

struct DenseEpilogueKeyHash {
  std::size_t operator()(const DenseEpilogueKey& key) const noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the fields
    for (const std::uint64_t v : {static_cast<std::uint64_t>(key.rows), static_cast<std::uint64_t>(key.units),
                                  static_cast<std::uint64_t>(key.inputs),
                                  static_cast<std::uint64_t>(key.bias) << 1 | static_cast<std::uint64_t>(key.relu)}) {
      h = (h ^ v) * 0x100000001b3ULL;
    }
    return static_cast<std::size_t>(h);
  }
};

// A cuBLASLt descriptor owned by an object that destroys it.
template <typename Descriptor, cublasStatus_t (*Destroy)(Descriptor)>
class LtDescriptor {
 public:
  LtDescriptor() = default;
  ~LtDescriptor() {
    if (descriptor_) Destroy(descriptor_);
  }
  LtDescriptor(const LtDescriptor&) = delete;
  LtDescriptor& operator=(const LtDescriptor&) = delete;
  Descriptor* out() { return &descriptor_; }  // for the Create call
  Descriptor get() const { return descriptor_; }

 private:
  Descriptor descriptor_ = nullptr;
};

using LtMatmulDesc = LtDescriptor<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtMatrixLayout = LtDescriptor<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = LtDescriptor<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

// One geometry's descriptors and algorithm. `usable` is false when the heuristic offered
// no algorithm: that geometry then always takes the classic path.
struct DenseEpiloguePlan {
  LtMatmulDesc product;
  LtMatrixLayout kernel, x, y;
  cublasLtMatmulAlgo_t algorithm{};
  bool usable = false;
};

// A run context's cuBLASLt handle and plans (RunContext::dense_epilogue, made by the
// first Dense with a bias or a relu). Not thread-safe: a run context serves one
// execution state at a time.
class DenseEpilogue {
 public:
  static constexpr std::size_t kCapacity = 256;

  explicit DenseEpilogue(int device) : handle_(device) {}

  // Enqueues y = act(x · kernel + bias) on the run context's stream (bias null: none;
  // relu false: no activation) and returns true; or returns false, enqueuing nothing,
  // where cuBLASLt has no algorithm for it, a dimension is 0 (the classic path writes
  // the zeros and the bias of an empty product), or an operand is not 256-byte aligned
  // (the alignment cuBLASLt's heuristic assumes by default, which the start of every
  // tensor's storage has); the caller then runs the product and the bias and relu pass. Throws strata::Error
  // naming ctx's op when cuBLASLt fails.
  bool run(const KernelContext& ctx, const RunContext& run, std::int64_t rows, std::int64_t units, std::int64_t inputs,
           const float* x, const float* kernel, const float* bias, bool relu, float* y);

  using Plans = LruCache<DenseEpilogueKey, DenseEpiloguePlan, DenseEpilogueKeyHash>;
  const Plans& plans() const { return plans_; }
  // Products run through the epilogue since the context was made.
  std::int64_t products() const { return products_; }

 private:
  std::unique_ptr<DenseEpiloguePlan> make_plan(const KernelContext& ctx, const DenseEpilogueKey& key,
                                               const float* bias) const;

  CublasLtHandle handle_;
  Plans plans_{kCapacity};
  std::int64_t products_ = 0;
};

}  // namespace strata::cuda
