// cuDNN's RNN for the recurrent ops' CUDA kernels (built only with STRATA_WITH_CUDNN;
// core/cuda/rnn_kernels.cc calls it first and runs its own kernels when it declines).
// It takes a run where Keras on TensorFlow takes cuDNN's: an LSTM, or a GRU with
// reset_after, with tanh and sigmoid, no mask and no dropout drawn — the default layers,
// Bidirectional's halves included (go_backwards and its orders are done by reversing
// steps around cuDNN). Keras's weights are packed into cuDNN's weight space each call
// (core/cuda/rnn_weight_layout.h: cuDNN's gate order, Keras's bias as the input bias,
// or both of a GRU's rows), strict float32 (no TF32).
//
// In training the forward pass keeps cuDNN's reserve space for the gradient, which the
// op's (B, T, K) workspace output cannot hold: the run context keeps it per forward node
// (one buffer that only grows, as the run context's workspace does), with the workspace
// output's address and the run's step, and the forward pass writes its output sequence in
// processing order into the workspace output. The gradient runs on cuDNN when it finds
// that record for its workspace input in this step, and on the own kernels otherwise
// (a workspace the CPU layout fills: a forward pass that declined, or one fed from
// elsewhere). Whether a run qualifies is decided alike on both sides, from the op's
// attributes, its shapes and the run's mode.
#pragma once

#include <cstdint>

namespace strata {
struct KernelContext;
namespace ops {
struct Config;
}
}  // namespace strata

namespace strata::cuda {

class RunContext;
struct RnnDropout;
struct RnnForwardIO;
struct RnnBackwardIO;

// Whether recurrent ops may run on cuDNN (true unless STRATA_CUDNN_RNN=0 was in the
// environment at the first call): off, every run takes the own kernels — what the
// kernel table compares with the CPU, and the baseline cuDNN's speed is measured against.
bool cudnn_rnn_enabled();
void set_cudnn_rnn_enabled(bool enabled);
// The calls cuDNN has run in this process (forward and gradient passes), for tests that
// must know which path ran.
std::int64_t cudnn_rnn_calls();

// rnn_sequence's work on cuDNN, enqueued on the run context's stream; false (nothing
// enqueued) when the run does not qualify or cuDNN refuses its geometry. Throws
// strata::Error when cuDNN fails.
bool cudnn_rnn_forward(const KernelContext& ctx, RunContext& run, const ops::Config& c, const RnnDropout& d,
                       const RnnForwardIO& io);
// rnn_sequence_grad's, when its forward pass ran on cuDNN in this step (above).
bool cudnn_rnn_backward(const KernelContext& ctx, RunContext& run, const ops::Config& c, const RnnDropout& d,
                        const RnnBackwardIO& io);

}  // namespace strata::cuda
