// The CPU kernels of scatter_update, gather_nd and checked_indices (core/ops/scatter_update.h):
// each index row names the start of a slice of x (its elements past the index depth); every
// index is checked against x's shape before anything is written.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cpu/kernels/copy_input.h"
#include "core/cpu/kernels/numeric_elements.h"
#include "core/cpu/kernels/register.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

// The offset of each index row's slice in a tensor of shape x, checked.
std::vector<std::int64_t> slice_offsets(const KernelContext& ctx, const Shape& x, const Tensor& indices,
                                        std::int64_t& slice_size) {
  const std::string where = ctx.node.op + " '" + ctx.node.name + "'";
  const std::int64_t depth = indices.shape().dims().back();
  const std::int64_t rows = depth == 0 ? 0 : indices.size() / depth;
  slice_size = 1;
  for (int a = static_cast<int>(depth); a < x.rank(); ++a) slice_size *= x[a];
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t offset = 0;
    for (std::int64_t k = 0; k < depth; ++k) {
      const std::int64_t v = whole_number(indices, r * depth + k, where, "indices");
      const std::int64_t size = x[static_cast<int>(k)];
      if (v < 0 || v >= size) {
        std::string row;
        for (std::int64_t j = 0; j < depth; ++j)
          row += (j ? ", " : "") + std::to_string(whole_number(indices, r * depth + j, where, "indices"));
        throw ValueError(where + ": index row " + std::to_string(r) + " [" + row + "] does not index into " +
                         x.to_string());
      }
      offset = offset * size + v;
    }
    offsets[static_cast<std::size_t>(r)] = offset * slice_size;
  }
  return offsets;
}

template <typename T>
void scatter_update_of(KernelContext& ctx) {
  const Tensor &x = ctx.input(0), &indices = ctx.input(1), &updates = ctx.input(2);
  std::int64_t slice = 1;
  const std::vector<std::int64_t> offsets = slice_offsets(ctx, x.shape(), indices, slice);
  T* y = ctx.output(0).data<T>();
  std::copy_n(x.data<T>(), x.size(), y);
  const T* u = updates.data<T>();
  const std::string& reduction = ctx.node.attrs.get<std::string>("reduction");
  for (std::size_t r = 0; r < offsets.size(); ++r) {
    T* out = y + offsets[r];
    const T* in = u + static_cast<std::int64_t>(r) * slice;
    for (std::int64_t j = 0; j < slice; ++j) {
      if (reduction.empty()) {
        out[j] = in[j];
      } else if (reduction == "add") {
        out[j] += in[j];
      } else if (reduction == "max") {
        out[j] = std::max(out[j], in[j]);
      } else if (reduction == "min") {
        out[j] = std::min(out[j], in[j]);
      } else {
        out[j] *= in[j];
      }
    }
  }
}

void scatter_update_kernel(KernelContext& ctx) {
  with_numeric_type(ctx.input(0).dtype(), [&](auto t) { scatter_update_of<decltype(t)>(ctx); });
}

template <typename T>
void gather_nd_of(KernelContext& ctx) {
  const Tensor &x = ctx.input(0), &indices = ctx.input(1);
  std::int64_t slice = 1;
  const std::vector<std::int64_t> offsets = slice_offsets(ctx, x.shape(), indices, slice);
  T* y = ctx.output(0).data<T>();
  for (std::size_t r = 0; r < offsets.size(); ++r)
    std::copy_n(x.data<T>() + offsets[r], slice, y + static_cast<std::int64_t>(r) * slice);
}

void gather_nd_kernel(KernelContext& ctx) {
  with_numeric_type(ctx.input(0).dtype(), [&](auto t) { gather_nd_of<decltype(t)>(ctx); });
}

void checked_indices_kernel(KernelContext& ctx) {
  std::int64_t slice = 1;
  slice_offsets(ctx, Shape(ctx.node.attrs.get<std::vector<std::int64_t>>("shape")), ctx.input(0), slice);
  copy_input_kernel(ctx);
}

}  // namespace

void register_scatter_update_kernels(OpRegistry& r) {
  r.add_kernel("scatter_update", DeviceType::cpu, {.run = scatter_update_kernel});
  r.add_kernel("gather_nd", DeviceType::cpu, {.run = gather_nd_kernel});
  r.add_kernel("checked_indices", DeviceType::cpu, {.run = checked_indices_kernel});
}

}  // namespace strata::cpu
