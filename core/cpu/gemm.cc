#include "core/cpu/gemm.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/gemv.h"
#include "core/cpu/packed_gemm.h"
#include "core/cpu/parallel.h"

namespace strata::cpu {

namespace {

using Index = Eigen::Index;

// Eigen's blocking with its packing buffers in our workspace instead of fresh heap memory.
class WorkspaceBlocking : public Eigen::internal::level3_blocking<float, float> {
 public:
  WorkspaceBlocking(Index rows, Index cols, Index depth) {
    this->m_mc = rows;
    this->m_nc = cols;
    this->m_kc = depth;
    Eigen::internal::computeProductBlockingSizes<float, float, 1>(this->m_kc, this->m_mc, this->m_nc, Index{1});
    const std::size_t size_a = static_cast<std::size_t>(this->m_kc * this->m_mc);
    const std::size_t size_b = static_cast<std::size_t>(this->m_kc * this->m_nc);
    thread_local AlignedBuffer workspace;
    // Keep B's block 64-byte aligned after A's.
    const std::size_t offset = (size_a + 15) / 16 * 16;
    float* base = workspace.reserve(offset + size_b);
    this->m_blockA = base;
    this->m_blockB = base + offset;
  }
};

// One block of the product, with Eigen's single-threaded kernel. Storage orders of the
// operands follow the transposes: a transposed row-major matrix is column-major.
template <int LhsOrder, int RhsOrder>
void product_block(Index m, Index n, Index k, const float* a, Index lda, const float* b, Index ldb, float* c,
                   Index ldc) {
  WorkspaceBlocking blocking(m, n, k);
  Eigen::internal::general_matrix_matrix_product<Index, float, LhsOrder, false, float, RhsOrder, false,
                                                 Eigen::RowMajor, 1>::run(m, n, k, a, lda, b, ldb, c, 1, ldc, 1.0f,
                                                                           blocking, nullptr);
}

// Our packed kernel (packed_gemm.h) where the build has it (AVX-512), else Eigen's.
bool use_packed_kernel() { return packed_gemm_available(); }

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRowMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using StridedVector = Eigen::Map<const Eigen::VectorXf, 0, Eigen::InnerStride<>>;

// c = a·B for a row a and a row-major B of at most kGemvWholeRowColumns columns, on
// `tasks` threads: each reads a contiguous run of whole rows of B (the matrix-vector
// kernel streams whole rows faster than parts of them) into a partial row, and the
// caller adds the partial rows. The caller starts first and the worker's run ends later
// (it is handed its task across cores, and measured slower on the same rows), so the
// caller takes a little more than an equal share.
void split_depth(int tasks, Index n, Index k, const float* a, Index inc_a, const float* b, Index ldb, float* c) {
  const Index padded = (n + 15) / 16 * 16;  // each partial row on whole cache lines
  thread_local AlignedBuffer partial_rows;
  float* partial = partial_rows.reserve(static_cast<std::size_t>((tasks - 1) * padded));
  // 1.10 to 1.25 times an equal share measured best for the MLP's batch-1 prediction
  // (docs/performance.md); equal shares were 7% slower.
  constexpr Index kCallerSharePercent = 115;
  const Index caller_rows = std::min(k, k * kCallerSharePercent / (100 * Index{tasks}));
  const Index per = (k - caller_rows + tasks - 2) / (tasks - 1);
  auto part = [&](int t) {
    const Index begin = t == 0 ? 0 : std::min(k, caller_rows + (t - 1) * per);
    const Index end = t == 0 ? caller_rows : std::min(k, begin + per);
    float* out = t == 0 ? c : partial + (t - 1) * padded;
    if (begin == end) {
      std::fill_n(out, n, 0.0f);
    } else {
      gemv_row(n, end - begin, a + begin * inc_a, inc_a, b + begin * ldb, ldb, out);
    }
  };
  pool().run(tasks, part);
  for (int t = 1; t < tasks; ++t) {
    const float* p = partial + (t - 1) * padded;
    for (Index j = 0; j < n; ++j) c[j] += p[j];
  }
}

// One row or one column of output: a matrix-vector product. GEMM would pack the whole
// other operand for a single row (batch-1 inference), which costs more than the math.
// The product is bound by reading the matrix (from L2 at batch 1); split over threads,
// each core reads its own part, which then stays in its own cache from call to call: runs
// of whole rows of B for a row times a matrix of up to 256 columns (split_depth), blocks
// of columns otherwise. A row times a row-major matrix (a batch-1 Dense layer) runs
// Strata's kernel (gemv.h) where the build has it; the other layouts run Eigen's.
bool try_gemv(bool ta, bool tb, Index m, Index n, Index k, const float* a, Index lda, const float* b, Index ldb,
              float* c, Index ldc) {
  if (m != 1 && n != 1) return false;
  const Index outputs = m == 1 ? n : m;
  const bool parallel = outputs * k >= kGemvParallelMacs && num_threads() > 1;
  if (parallel && m == 1 && !tb && gemv_available() && n <= kGemvWholeRowColumns) {
    // Rows of B per thread that pay for the exchange of partial rows: the MLP's
    // 784-deep layer gained 10% from splitting k, its 256-deep one nothing, and a
    // 1x256x256 product alone ran slower (docs/performance.md); those keep the column
    // split.
    const Index min_rows = 256;
    const int tasks = static_cast<int>(std::min<Index>(num_threads(), k / min_rows));
    if (tasks > 1) {
      split_depth(tasks, n, k, a, ta ? lda : 1, b, ldb, c);
      return true;
    }
  }
  const Index grain = 16;  // whole vector registers per thread
  const int tasks = parallel ? static_cast<int>(std::min<Index>(num_threads(), (outputs + grain - 1) / grain)) : 1;
  const Index per = (outputs + Index{tasks} * grain - 1) / (Index{tasks} * grain) * grain;
  auto part = [&](int t) {
    const Index begin = std::min(outputs, t * per), end = std::min(outputs, begin + per);
    if (begin >= end) return;
    const Index len = end - begin;
    if (m == 1 && !tb && gemv_available()) {
      gemv_row(len, k, a, ta ? lda : 1, b + begin, ldb, c + begin);
    } else if (m == 1) {
      StridedVector a_row(a, k, Eigen::InnerStride<>(ta ? lda : 1));
      Eigen::Map<Eigen::RowVectorXf> c_row(c + begin, len);
      if (tb) {
        c_row.noalias() = (ConstRowMap(b + begin * ldb, len, k, Eigen::OuterStride<>(ldb)) * a_row).transpose();
      } else {
        c_row.noalias() = a_row.transpose() * ConstRowMap(b + begin, k, len, Eigen::OuterStride<>(ldb));
      }
    } else {
      StridedVector b_col(b, k, Eigen::InnerStride<>(tb ? 1 : ldb));
      Eigen::Map<Eigen::VectorXf, 0, Eigen::InnerStride<>> c_col(c + begin * ldc, len, Eigen::InnerStride<>(ldc));
      if (ta) {
        c_col.noalias() = ConstRowMap(a + begin, k, len, Eigen::OuterStride<>(lda)).transpose() * b_col;
      } else {
        c_col.noalias() = ConstRowMap(a + begin * lda, len, k, Eigen::OuterStride<>(lda)) * b_col;
      }
    }
  };
  pool().run(tasks, part);
  return true;
}

// Products of few outputs over many steps of k (a small layer's kernel gradient over a
// large batch: 64x64x2048 with A transposed). Split by rows, each thread packed all of B
// for a few rows of C, a copy per thread as large as its share of the arithmetic over
// m / threads rows; split by depth, each thread packs its own part of B, multiplies its
// part of A, and the caller adds the threads' partial products (m·n floats each). On
// an AVX2-only Zen 3, 64x64x2048 A^T ran 1.33x as fast as split by rows, and went from
// 90-96% of the best of OpenBLAS and oneDNN to 112-113% (docs/performance.md).
constexpr std::int64_t kDepthSplitMaxOutputs = 128 * 128;
// Steps of k per thread at least: the caller adds each thread's m·n partial products, so
// a thread's share must be long against them (and a machine with many cores takes fewer
// tasks than threads).
constexpr std::int64_t kDepthSplitMinSteps = 256;
int depth_split_tasks(int threads, std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m * n > kDepthSplitMaxOutputs || k < 4 * std::max(m, n)) return 1;
  return static_cast<int>(std::min<std::int64_t>(threads, k / kDepthSplitMinSteps));
}

void gemm_split_depth(int threads, bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                      std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
                      const Epilogue& epilogue) {
  const std::int64_t padded = (n + 15) / 16 * 16;  // each partial row on whole cache lines
  const std::int64_t partial_floats = m * padded;
  thread_local AlignedBuffer partial_products;
  float* partial = partial_products.reserve(static_cast<std::size_t>((threads - 1) * partial_floats));
  const std::int64_t per = (k + threads - 1) / threads;
  auto part = [&](int t) {
    const std::int64_t begin = std::min(k, t * per), end = std::min(k, begin + per);
    float* out = t == 0 ? c : partial + (t - 1) * partial_floats;
    const std::int64_t ld_out = t == 0 ? ldc : padded;
    // Steps [begin, end) of k: columns of op(A) (rows of a transposed A), rows of op(B).
    const float* a_part = ta ? a + begin * lda : a + begin;
    const float* b_part = tb ? b + begin : b + begin * ldb;
    gemm_serial(ta, tb, m, n, end - begin, a_part, lda, b_part, ldb, out, ld_out, /*accumulate=*/false);
  };
  pool().run(threads, part);
  for (int t = 1; t < threads; ++t) {
    const float* p = partial + (t - 1) * partial_floats;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) c[i * ldc + j] += p[i * padded + j];
    }
  }
  apply_epilogue(epilogue, c, ldc, m, n);
}

}  // namespace

void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
          const float* b, std::int64_t ldb, float* c, std::int64_t ldc, const Epilogue& epilogue) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0f);
    return apply_epilogue(epilogue, c, ldc, m, n);
  }
  if (try_gemv(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) return apply_epilogue(epilogue, c, ldc, m, n);
  const int threads = num_threads();
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  // Below 4 Mflop one thread does it. Split, a product this small runs faster in a loop
  // of calls (the 10-class layers' 655 kflop gradients at 1.7x), but inside a model the
  // second core must first fetch the operands the first core just wrote: with 5e5 here
  // the transformer's batch-1 prediction (64x64x64 projections) went from 48 to 65 µs.
  if (threads <= 1 || flops < 4e6) return gemm_serial(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, false, epilogue);
  if (const int tasks = depth_split_tasks(threads, m, n, k); tasks > 1) {
    return gemm_split_depth(tasks, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, epilogue);
  }
  // Split the larger of rows and columns into one contiguous block per thread.
  const bool split_rows = m >= n;
  const std::int64_t extent = split_rows ? m : n;
  // Columns in blocks of whole registers. Rows in equal shares: a product's last rows get
  // a tile of their own height, so a share need not be whole tiles, and blocks of 16 rows
  // gave 49 rows (a ConvNeXtTiny layer at batch 1) as 32 and 17.
  const std::int64_t grain = split_rows ? 1 : 16;
  auto part = [&](int t) {
    const std::int64_t nt = threads;
    const std::int64_t per = (extent + nt * grain - 1) / (nt * grain) * grain;
    const std::int64_t begin = std::min(extent, t * per), end = std::min(extent, begin + per);
    if (begin < end) {
      if (split_rows) {
        // Rows of op(A): row-major A advances by rows, a transposed A by columns.
        const float* a_block = ta ? a + begin : a + begin * lda;
        gemm_serial(ta, tb, end - begin, n, k, a_block, lda, b, ldb, c + begin * ldc, ldc, /*accumulate=*/false,
                    epilogue.from_row(begin));
      } else {
        // Columns of op(B): row-major B advances by columns, a transposed B by rows.
        const float* b_block = tb ? b + begin * ldb : b + begin;
        gemm_serial(ta, tb, m, end - begin, k, a, lda, b_block, ldb, c + begin, ldc, /*accumulate=*/false,
                    epilogue.from_column(begin));
      }
    }
  };
  pool().run(threads, part);
}

// Floats of B (2 MB) from which a product of fewer rows than columns is split by columns
// (gemm_prepacked).
constexpr std::int64_t kColumnSplitWeights = std::int64_t{1} << 19;

void gemm_prepacked(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b, float* c, std::int64_t ldc,
                    const Epilogue& epilogue) {
  const std::int64_t n = b.n(), k = b.k();
  if (m == 0 || n == 0) return;
  const int threads = num_threads();
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (threads <= 1 || flops < 4e6) return packed_gemm_prepacked(m, a, lda, b, c, ldc, false, epilogue);
  // Rows split: each thread reads all of B and writes whole rows of C, which the next
  // layer, split by rows too, reads on the same core. With fewer rows than columns and a
  // B of at least 2 MB (a layer's weights at batch 1, from L3 or memory), the
  // columns are split instead, and each thread reads half of B: ConvNeXtTiny's 49-row
  // Dense layers (768x3072, 3072x768) at batch 1 took 1.5-1.9x as long split by rows.
  // With smaller weights the rows stay split: MobileNetV2's batch-1 prediction ran 2-4%
  // slower with every product of fewer rows than columns split by columns, the
  // Transformer block's 2% with its 1 MB 256x1024 layer split so.
  if (m >= n || k * n < kColumnSplitWeights) {
    if (m < 2 * 16) return packed_gemm_prepacked(m, a, lda, b, c, ldc, false, epilogue);
    const std::int64_t per = (m + threads - 1) / threads;  // equal shares of rows
    auto part = [&](int t) {
      const std::int64_t begin = std::min(m, t * per), end = std::min(m, begin + per);
      if (begin < end) {
        packed_gemm_prepacked(end - begin, a + begin * lda, lda, b, c + begin * ldc, ldc, false,
                              epilogue.from_row(begin));
      }
    };
    return pool().run(threads, part);
  }
  // Columns in equal shares of whole slivers (a share of B starts at a sliver).
  const std::int64_t width = b.sliver_width();
  const std::int64_t per = (n + threads * width - 1) / (threads * width) * width;
  auto part = [&](int t) {
    const std::int64_t begin = std::min(n, t * per), end = std::min(n, begin + per);
    if (begin < end) packed_gemm_prepacked_columns(m, a, lda, b, begin, end, c, ldc, false, epilogue);
  };
  pool().run(threads, part);
}

void gemm_serial(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                 const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                 const Epilogue& epilogue) {
  if (m == 0 || n == 0) return;
  if (use_packed_kernel()) return packed_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, accumulate, epilogue);
  // Eigen's kernel accumulates: C = 0 first unless accumulating.
  if (!accumulate) {
    for (std::int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0f);
  }
  if (k > 0) {
    if (!ta && !tb) {
      product_block<Eigen::RowMajor, Eigen::RowMajor>(m, n, k, a, lda, b, ldb, c, ldc);
    } else if (!ta && tb) {
      product_block<Eigen::RowMajor, Eigen::ColMajor>(m, n, k, a, lda, b, ldb, c, ldc);
    } else if (ta && !tb) {
      product_block<Eigen::ColMajor, Eigen::RowMajor>(m, n, k, a, lda, b, ldb, c, ldc);
    } else {
      product_block<Eigen::ColMajor, Eigen::ColMajor>(m, n, k, a, lda, b, ldb, c, ldc);
    }
  }
  apply_epilogue(epilogue, c, ldc, m, n);
}

void gemm_batched(bool ta, bool tb, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k,
                  const float* a, std::int64_t lda, std::int64_t stride_a, const float* b, std::int64_t ldb,
                  std::int64_t stride_b, float* c, std::int64_t ldc, std::int64_t stride_c) {
  if (batch <= 0 || m == 0 || n == 0) return;
  const int threads = num_threads();
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  auto product = [&](std::int64_t i) {  // gemm_serial zeroes C when k is 0
    gemm_serial(ta, tb, m, n, k, a + i * stride_a, lda, b + i * stride_b, ldb, c + i * stride_c, ldc, false);
  };
  // A product big enough to split is split (gemm); otherwise whole products are shared
  // out, contiguous runs of them per thread, unless all of them together are too small
  // to be worth a fork-join.
  if (flops >= 4e6 || batch == 1) {
    for (std::int64_t i = 0; i < batch; ++i) {
      gemm(ta, tb, m, n, k, a + i * stride_a, lda, b + i * stride_b, ldb, c + i * stride_c, ldc);
    }
    return;
  }
  const int tasks = threads <= 1 || flops * static_cast<double>(batch) < 4e6
                        ? 1
                        : static_cast<int>(std::min<std::int64_t>(threads, batch));
  const std::int64_t per = (batch + tasks - 1) / tasks;
  auto part = [&](int t) {
    const std::int64_t begin = std::min(batch, t * per), end = std::min(batch, begin + per);
    for (std::int64_t i = begin; i < end; ++i) product(i);
  };
  pool().run(tasks, part);
}

}  // namespace strata::cpu
