// The embedding CUDA kernels. The lookup is a thread per output element (neighbouring
// threads read neighbouring columns of a row). The gradient is a scatter-add made
// deterministic: the ids are sorted (CUB's radix sort, which is stable) with their
// positions, and a thread per output element (v, d) finds v's run of sorted ids by
// binary search and adds g[i, d] over it in increasing i — the CPU kernel's sums in the
// CPU's order, so equal bits on both devices and from run to run, where atomicAdd would
// add in whatever order the threads reach it. Every output element is written (rows no
// id names sum nothing: 0), so no zero fill comes first. The price: a row that many ids
// name (a padding id) is summed by one thread per column, in sequence.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cub/device/device_radix_sort.cuh>
#include <cstdint>
#include <limits>

#include "core/cuda/element_dispatch.cuh"
#include "core/cuda/embedding_launch.h"
#include "core/cuda/fault_record.cuh"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

constexpr std::int64_t kNoToken = std::numeric_limits<std::int64_t>::min();

// The row an id names, before the range check: the CPU kernel's static_cast. C++ leaves
// the cast of a float outside int64's range (or NaN) undefined; x86, where the CPU kernel
// runs, gives int64's minimum, which is out of range and reported: so does this.
__device__ inline std::int64_t token_of(float id) {
  return id >= -0x1p63f && id < 0x1p63f ? static_cast<std::int64_t>(id) : kNoToken;
}
__device__ inline std::int64_t token_of(std::int32_t id) { return id; }
__device__ inline std::int64_t token_of(std::int64_t id) { return id; }

template <typename Id>
__global__ void lookup_kernel(const float* __restrict__ table, const Id* __restrict__ ids, float* __restrict__ out,
                              EmbeddingShape s, FaultSite fault) {
  const std::int64_t n = s.ids * s.dim;
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t i = o / s.dim, d = o - i * s.dim;
    const std::int64_t v = token_of(ids[i]);
    if (v < 0 || v >= s.vocab) {
      if (d == 0) report_fault(fault, v, i, s.vocab);
      out[o] = CUDART_NAN_F;
    } else {
      out[o] = table[v * s.dim + d];
    }
  }
}

// The sort's input: each id as an unsigned key (an id out of range becomes `vocab`,
// which sorts after every row and names none) and its position.
template <typename Id>
__global__ void sort_keys_kernel(const Id* __restrict__ ids, std::uint64_t* __restrict__ keys,
                                 std::int64_t* __restrict__ positions, EmbeddingShape s, FaultSite fault) {
  for (std::int64_t i = first_index(); i < s.ids; i += grid_stride()) {
    std::int64_t v = token_of(ids[i]);
    if (v < 0 || v >= s.vocab) {
      report_fault(fault, v, i, s.vocab);
      v = s.vocab;
    }
    keys[i] = static_cast<std::uint64_t>(v);
    positions[i] = i;
  }
}

// The first of the n sorted keys that is not below `key`.
__device__ inline std::int64_t lower_bound(const std::uint64_t* keys, std::int64_t n, std::uint64_t key) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__global__ void sum_rows_kernel(const float* __restrict__ g, const std::uint64_t* __restrict__ sorted_keys,
                                const std::int64_t* __restrict__ sorted_positions, float* __restrict__ out,
                                EmbeddingShape s) {
  const std::int64_t n = s.vocab * s.dim;
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t v = o / s.dim, d = o - v * s.dim;
    const std::int64_t first = lower_bound(sorted_keys, s.ids, static_cast<std::uint64_t>(v));
    const std::int64_t end = lower_bound(sorted_keys, s.ids, static_cast<std::uint64_t>(v) + 1);
    float sum = 0.f;
    for (std::int64_t k = first; k < end; ++k) sum += g[sorted_positions[k] * s.dim + d];
    out[o] = sum;
  }
}

// The bits a key takes: keys are in [0, vocab].
int key_bits(std::int64_t vocab) {
  int bits = 0;
  while (bits < 63 && (vocab >> bits) != 0) ++bits;
  return bits;
}

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The parts of the gradient's scratch block, in order.
struct GradScratch {
  std::uint64_t* keys = nullptr;
  std::uint64_t* sorted_keys = nullptr;
  std::int64_t* positions = nullptr;
  std::int64_t* sorted_positions = nullptr;
  void* sort_storage = nullptr;
  std::size_t sort_bytes = 0;
  std::size_t total = 0;
};

// Whether the sort runs: there are ids, and rows to sum them into.
bool sorts(const EmbeddingShape& s) { return s.ids > 0 && s.vocab > 0 && s.dim > 0; }

// The layout of the scratch block at `base` (null: sizes only, no pointer is used).
GradScratch carve(const EmbeddingShape& s, void* base) {
  GradScratch parts;
  if (s.ids == 0) return parts;
  if (sorts(s)) {
    // A null storage pointer only asks CUB for the bytes it needs: nothing is launched.
    // Should the query fail, the sort itself fails with too little storage, and says so.
    cub::DeviceRadixSort::SortPairs(nullptr, parts.sort_bytes, static_cast<const std::uint64_t*>(nullptr),
                                    static_cast<std::uint64_t*>(nullptr), static_cast<const std::int64_t*>(nullptr),
                                    static_cast<std::int64_t*>(nullptr), s.ids, 0, key_bits(s.vocab));
  }
  const std::size_t keys = aligned(static_cast<std::size_t>(s.ids) * sizeof(std::uint64_t));
  const std::size_t positions = aligned(static_cast<std::size_t>(s.ids) * sizeof(std::int64_t));
  parts.total = 2 * keys + 2 * positions + aligned(parts.sort_bytes);
  if (!base) return parts;
  char* at = static_cast<char*>(base);
  parts.keys = reinterpret_cast<std::uint64_t*>(at);
  parts.sorted_keys = reinterpret_cast<std::uint64_t*>(at + keys);
  parts.positions = reinterpret_cast<std::int64_t*>(at + 2 * keys);
  parts.sorted_positions = reinterpret_cast<std::int64_t*>(at + 2 * keys + positions);
  parts.sort_storage = at + 2 * keys + 2 * positions;
  return parts;
}

}  // namespace

void launch_embedding_lookup(const float* table, const void* ids, ElementType id_type, float* out,
                             const EmbeddingShape& s, FaultSite fault, CUstream_st* stream) {
  const std::int64_t n = s.ids * s.dim;
  if (n == 0) return;
  with_elements(ids, id_type, [&](const auto* typed) {
    lookup_kernel<<<blocks_for(n), kThreads, 0, stream>>>(table, typed, out, s, fault);
  });
}

std::size_t embedding_grad_scratch_bytes(const EmbeddingShape& s) { return carve(s, nullptr).total; }

int launch_embedding_grad(const float* g, const void* ids, ElementType id_type, float* out, const EmbeddingShape& s,
                          void* scratch, std::size_t scratch_bytes, FaultSite fault, CUstream_st* stream) {
  GradScratch parts = carve(s, scratch);
  if (parts.total > scratch_bytes) return static_cast<int>(cudaErrorInvalidValue);
  if (s.ids > 0) {  // every id is checked, even with no rows to sum into (the CPU kernel checks each)
    with_elements(ids, id_type, [&](const auto* typed) {
      sort_keys_kernel<<<blocks_for(s.ids), kThreads, 0, stream>>>(typed, parts.keys, parts.positions, s, fault);
    });
  }
  const std::int64_t n = s.vocab * s.dim;
  if (n == 0) return static_cast<int>(cudaSuccess);
  if (sorts(s)) {
    const cudaError_t status = cub::DeviceRadixSort::SortPairs(
        parts.sort_storage, parts.sort_bytes, parts.keys, parts.sorted_keys, parts.positions, parts.sorted_positions,
        s.ids, 0, key_bits(s.vocab), stream);
    if (status != cudaSuccess) return static_cast<int>(status);
  }
  sum_rows_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, parts.sorted_keys, parts.sorted_positions, out, s);
  return static_cast<int>(cudaSuccess);
}

}  // namespace strata::cuda
