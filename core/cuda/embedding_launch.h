// Launchers of the embedding CUDA kernels (core/cuda/embedding.cu), called by
// core/cuda/embedding_kernels.cc. Plain pointers and sizes only. `table` is (vocab, dim)
// row-major; ids are float32 (truncated toward zero, as the CPU kernel casts them),
// int32 or int64, `ids` of them. An id outside [0, vocab) is reported through `fault`
// with values (id, its flat index, vocab); a float id that is NaN or outside int64's
// range reads as int64's minimum, as x86's conversion gives it. Each enqueues on `stream`
// and returns at once; launch errors are for the caller to check.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/cuda/element_type.h"
#include "core/cuda/fault_record.h"

struct CUstream_st;

namespace strata::cuda {

struct EmbeddingShape {
  std::int64_t ids = 0;    // how many ids (rows looked up, or rows of the gradient)
  std::int64_t vocab = 0;  // the table's rows
  std::int64_t dim = 0;    // the table's columns
};

// out[i, :] = table[ids[i], :]; a row of NaN for an id outside [0, vocab).
void launch_embedding_lookup(const float* table, const void* ids, ElementType id_type, float* out,
                             const EmbeddingShape& s, FaultSite fault, CUstream_st* stream);

// The scratch bytes launch_embedding_grad needs (256-byte aligned parts, in one block).
std::size_t embedding_grad_scratch_bytes(const EmbeddingShape& s);
// out (vocab, dim) = the sum of g's rows (ids, dim) by id: out[v, :] adds g[i, :] over
// every i with ids[i] == v in increasing i, starting from 0 — the CPU kernel's sums in
// the CPU's order, without atomics. Rows of ids outside [0, vocab) add nothing (and are
// reported). Writes all of out. Returns CUDA's status of the sort as an int (0: success).
int launch_embedding_grad(const float* g, const void* ids, ElementType id_type, float* out, const EmbeddingShape& s,
                          void* scratch, std::size_t scratch_bytes, FaultSite fault, CUstream_st* stream);

}  // namespace strata::cuda
