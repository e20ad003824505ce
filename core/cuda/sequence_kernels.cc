// Host side of the sequence CUDA kernels: rows and columns off the shapes, then one
// launch (core/cuda/sequence.cu).
#include "core/cuda/kernel_registration.h"
#include "core/cuda/sequence_kernels.h"

#include <string>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/run_context.h"
#include "core/cuda/sequence_launch.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

// The product of every dim but the last: the rows of a tensor read as a matrix.
std::int64_t rows_of(const Shape& s) { return s.product(0, s.rank() - 1); }
std::int64_t last_of(const Shape& s) { return s.dims().back(); }

}  // namespace

void concat_last(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  launch_concat_last(floats(a), floats(b), floats(out), rows_of(out.shape()), last_of(a.shape()), last_of(b.shape()),
                     stream);
  check_launch(ctx);
}

void split_last(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& g = ctx.input(0);
  Tensor& a = ctx.output(0);
  Tensor& b = ctx.output(1);
  const std::int64_t rows = rows_of(a.shape()), a_cols = last_of(a.shape()), b_cols = last_of(b.shape());
  if (g.size() != rows * (a_cols + b_cols)) {  // the kernel would read past g
    throw ShapeError("split_last '" + ctx.node.name + "': " + g.shape().to_string() + " does not split into " +
                     a.shape().to_string() + " and " + b.shape().to_string());
  }
  launch_split_last(floats(g), floats(a), floats(b), rows, a_cols, b_cols, stream);
  check_launch(ctx);
}

void repeat_vector(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  launch_repeat_vector(floats(x), floats(ctx.output(0)), x.shape()[0], ctx.node.attrs.get<std::int64_t>("n"),
                       x.shape()[1], stream);
  check_launch(ctx);
}

void register_sequence_kernels(OpRegistry& r) {
  add_kernel(r, "concat_last", concat_last);
  add_kernel(r, "split_last", split_last);
  add_kernel(r, "repeat_vector", repeat_vector);
}

}  // namespace strata::cuda
