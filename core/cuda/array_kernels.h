// The CUDA kernels of the ops that move data without arithmetic
// (registered by register_*_kernels, below; the CPU kernels are in
// core/cpu/kernels/sources.cc, shape.cc and array.cc), with the CPU kernels' results bit for bit and
// their dtypes: float32, and int32 and int64 where the CPU kernel takes them (labels pass
// through reshapes, crops and concatenations). String tensors never reach a GPU
// (Tensor::to refuses them). Outputs are copies, as on the CPU: the executor gives every
// output its own buffer. Defined only in a build with STRATA_WITH_CUDA; this header is
// plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// reshape, reshape_like, expand_dims, split_axis, merge_axes, identity, stop_gradient and
// unfold_time (TimeDistributed's (B*T, ...) to (B, T, ...)): the output holds the input's
// elements in the same order (one device-to-device copy on the stream).
void copy_input(KernelContext& ctx);
// training_select: a copy of input 0 in training mode, of input 1 otherwise.
void training_select(KernelContext& ctx);
// broadcast_like: x repeated along the dims it broadcasts over to the output's shape.
void broadcast_like(KernelContext& ctx);
// transpose: out.shape[i] = x.shape[perm[i]].
void transpose(KernelContext& ctx);
// pad: zeros, then x copied in at the `before` offsets.
void pad(KernelContext& ctx);
// crop: the box of x that starts at the `before` offsets.
void crop(KernelContext& ctx);
// concat: each input copied in turn into its slab of the output along the axis.
void concat(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_array_kernels(OpRegistry& registry);

}  // namespace strata::cuda
