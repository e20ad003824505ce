// The CUDA kernels of conv2d, conv2d_backprop_input and conv2d_backprop_filter, and of
// conv3d and its two gradients (registered by register_*_kernels, below; the CPU
// kernels are in core/cpu/kernels/conv.cc and conv3d.cc), through cuDNN. Defined only in
// a build with cuDNN (core/cuda/cudnn_conv_kernels.cc, one implementation over the
// spatial rank); this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void conv2d(KernelContext& ctx);
void conv2d_backprop_input(KernelContext& ctx);
void conv2d_backprop_filter(KernelContext& ctx);

void conv3d(KernelContext& ctx);
void conv3d_backprop_input(KernelContext& ctx);
void conv3d_backprop_filter(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_conv_kernels(OpRegistry& registry);

}  // namespace strata::cuda
