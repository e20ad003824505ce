// The CUDA kernels of the fused recurrent ops (registered by register_*_kernels, below;
// the CPU kernels are in core/cpu/kernels/rnn.cc). For a subset of the runs Keras on
// TensorFlow gives cuDNN — an LSTM or a GRU with reset_after, tanh and sigmoid, no mask, no
// recurrent dropout drawn — they run cuDNN's RNN (core/cuda/cudnn_rnn.h, in a build with
// cuDNN), and the gradient of such a pass too. Everything else, and everything when cuDNN
// declines, runs on our own kernels: every cell (simple_rnn, lstm, gru with reset_after
// true or false), activation, mask, direction and dropout the CPU kernel takes, with the
// CPU kernel's outputs — y, the last h and c, and the (B, T, K) workspace laid out as the
// CPU writes it (core/ops/rnn_cell.h), so that either device's own-kernel gradient reads
// either's workspace. Products are cuBLAS SGEMMs on the run context's stream (TF32 off):
// x·kernel for all steps at once, then h·recurrent_kernel per step (and, for a GRU with
// reset_after = false, (r·h)·U_h per step); the gate math is one fused kernel per step over
// all batch rows (core/cuda/rnn.cu). Dropout masks are the CPU's, bit for bit (the same
// Philox element rule, core/ops/rnn_cell.h). Temporaries live in the run context's
// workspace. Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and
// compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// rnn_zero_state(x) -> zeros (batch, units).
void rnn_zero_state(KernelContext& ctx);
// rnn_sequence(x, h0, c0, kernel, recurrent_kernel, bias[, mask]) -> y, h, c, workspace.
void rnn_sequence(KernelContext& ctx);
// rnn_sequence_grad(x, h0, c0, kernel, recurrent_kernel, bias, workspace, dy, dh, dc[,
// mask]) -> dx, dh0, dc0, dkernel, drecurrent_kernel, dbias.
void rnn_sequence_grad(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_rnn_kernels(OpRegistry& registry);

}  // namespace strata::cuda
