// Host side of the array CUDA kernels: each op's strided copies described from the
// tensors' shapes and the node's attributes (core/cuda/array_plan.h), then enqueued on
// the stream — a cudaMemcpyAsync for a copy that is one contiguous run in both tensors,
// else one launch (core/cuda/array.cu). Nothing here allocates while a step runs.
#include "core/cuda/array_kernels.h"

#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda/array_launch.h"
#include "core/cuda/array_plan.h"
#include "core/cuda/check.h"
#include "core/cuda/element_type.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

// The launcher's element type of `t`. (The message is built only when it is thrown.)
ElementType element_of(const KernelContext& ctx, const Tensor& t) {
  if (t.dtype() == DType::string) {
    throw ValueError("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                     "'): string tensors stay on the CPU");
  }
  return element_type(t.dtype(), ctx.node.name);
}

// Enqueues the copy that `plan` describes from `in` to `out` on the stream.
void enqueue(const KernelContext& ctx, CUstream_st* stream, const Tensor& in, Tensor& out, const CopyPlan& plan) {
  const ElementType type = element_of(ctx, in);
  if (plan.empty()) return;
  if (plan.contiguous()) {
    const std::size_t element = size_of(in.dtype());
    const auto* from = static_cast<const char*>(in.device_data()) + static_cast<std::size_t>(plan.in_offset()) * element;
    auto* to = static_cast<char*>(out.device_data()) + static_cast<std::size_t>(plan.out_offset()) * element;
    check(cudaMemcpyAsync(to, from, static_cast<std::size_t>(plan.count()) * element, cudaMemcpyDeviceToDevice, stream),
          ctx, "cudaMemcpyAsync");
    return;
  }
  launch_strided_copy(type, in.device_data(), out.device_data(), plan.copy(), stream);
  check_launch(ctx);
}

// out = in, element for element (the sizes agree by the op's shape inference; checked
// anyway, since a wrong size here would write past a device buffer).
void copy_whole(const KernelContext& ctx, CUstream_st* stream, const Tensor& in, Tensor& out) {
  element_of(ctx, in);
  if (in.size() != out.size() || in.dtype() != out.dtype()) {
    throw ShapeError("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "'): cannot copy " +
                     in.shape().to_string() + " (" + to_string(in.dtype()) + ") into " + out.shape().to_string() +
                     " (" + to_string(out.dtype()) + ")");
  }
  if (in.nbytes() == 0) return;
  check(cudaMemcpyAsync(out.device_data(), in.device_data(), in.nbytes(), cudaMemcpyDeviceToDevice, stream), ctx,
        "cudaMemcpyAsync");
}

const std::vector<std::int64_t>& dims_attr(const KernelContext& ctx, const char* key) {
  return ctx.node.attrs.get<std::vector<std::int64_t>>(key);
}

}  // namespace

void copy_input(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  copy_whole(ctx, stream, ctx.input(0), ctx.output(0));
}

void training_select(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  copy_whole(ctx, stream, ctx.input(ctx.training ? 0 : 1), ctx.output(0));
}

void broadcast_like(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  enqueue(ctx, stream, x, out, plan_broadcast(ctx.node, x.shape(), out.shape()));
}

void transpose(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  enqueue(ctx, stream, x, y, plan_transpose(ctx.node, x.shape(), y.shape(), dims_attr(ctx, "perm")));
}

// As the CPU: the output zeroed (all bits zero is 0.0f), then x copied into its box.
void pad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (y.size() == 0) return;
  const CopyPlan plan = plan_pad(ctx.node, x.shape(), y.shape(), dims_attr(ctx, "before"));
  check(cudaMemsetAsync(y.device_data(), 0, y.nbytes(), stream), ctx, "cudaMemsetAsync");
  enqueue(ctx, stream, x, y, plan);
}

void crop(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  enqueue(ctx, stream, x, y, plan_crop(ctx.node, x.shape(), y.shape(), dims_attr(ctx, "before")));
}

// Each input fills the slab of the output that follows the previous input's along the
// axis.
void concat(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  Tensor& y = ctx.output(0);
  const int axis = y.shape().normalize_axis(static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")));
  std::int64_t slab_start = 0;
  for (const Tensor* x : ctx.inputs) {
    enqueue(ctx, stream, *x, y, plan_concat_input(ctx.node, x->shape(), y.shape(), axis, slab_start));
    slab_start += x->shape().dims()[static_cast<std::size_t>(axis)];
  }
}

void register_array_kernels(OpRegistry& r) {
  // The ops that only give their input another shape (or none) copy it; checked_indices too,
  // unchecked (TensorFlow's GPU scatter_nd drops a row outside the shape, as the one-hot product
  // after it does).
  for (const char* op : {"identity", "stop_gradient", "reshape", "reshape_like", "split_axis", "merge_axes",
                         "expand_dims", "unfold_time", "checked_indices"}) {
    add_kernel(r, op, copy_input);
  }
  add_kernel(r, "broadcast_like", broadcast_like);
  add_kernel(r, "pad", pad);
  add_kernel(r, "crop", crop);
  add_kernel(r, "transpose", transpose);
  add_kernel(r, "concat", concat);
  add_kernel(r, "training_select", training_select);
}

}  // namespace strata::cuda
