// The CPU kernels of the diagonal ops (core/ops/diag_ops.h): element (i, i + k) of a matrix
// is diagonal k's element min(i, i + k). float32 and the integer dtypes.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

// Calls f(element of the diagonal, row, column) along diagonal k of a rows x cols matrix.
template <typename F>
void along_diagonal(std::int64_t rows, std::int64_t cols, std::int64_t k, F f) {
  const std::int64_t r0 = std::max<std::int64_t>(0, -k), c0 = std::max<std::int64_t>(0, k);
  for (std::int64_t i = 0; r0 + i < rows && c0 + i < cols; ++i) f(i, r0 + i, c0 + i);
}

void zero(Tensor& t) { std::memset(t.raw_data(), 0, static_cast<std::size_t>(t.size()) * size_of(t.dtype())); }

void copy_element(const Tensor& from, std::int64_t i, Tensor& to, std::int64_t j) {
  const std::size_t bytes = size_of(from.dtype());
  std::memcpy(static_cast<char*>(to.raw_data()) + j * bytes, static_cast<const char*>(from.raw_data()) + i * bytes,
              bytes);
}

void diag_matrix_kernel(KernelContext& ctx) {
  const Tensor& v = ctx.input(0);
  Tensor& m = ctx.output(0);
  zero(m);
  const std::int64_t side = m.shape()[0];
  along_diagonal(side, side, ctx.node.attrs.get<std::int64_t>("k"),
                 [&](std::int64_t i, std::int64_t r, std::int64_t c) { copy_element(v, i, m, r * side + c); });
}

void diag_part_kernel(KernelContext& ctx) {
  const Tensor& m = ctx.input(0);
  Tensor& d = ctx.output(0);
  const std::int64_t cols = m.shape()[1];
  along_diagonal(m.shape()[0], cols, ctx.node.attrs.get<std::int64_t>("k"),
                 [&](std::int64_t i, std::int64_t r, std::int64_t c) { copy_element(m, r * cols + c, d, i); });
}

void diag_part_adjoint_kernel(KernelContext& ctx) {
  const Tensor& v = ctx.input(0);
  Tensor& m = ctx.output(0);
  zero(m);
  const std::int64_t cols = m.shape()[1];
  along_diagonal(m.shape()[0], cols, ctx.node.attrs.get<std::int64_t>("k"),
                 [&](std::int64_t i, std::int64_t r, std::int64_t c) { copy_element(v, i, m, r * cols + c); });
}

}  // namespace

void register_diag_kernels(OpRegistry& r) {
  r.add_kernel("diag_matrix", DeviceType::cpu, {.run = diag_matrix_kernel});
  r.add_kernel("diag_part", DeviceType::cpu, {.run = diag_part_kernel});
  r.add_kernel("diag_part_adjoint", DeviceType::cpu, {.run = diag_part_adjoint_kernel});
}

}  // namespace strata::cpu
