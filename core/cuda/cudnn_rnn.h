// cuDNN's RNN for the recurrent ops' CUDA kernels (built only with STRATA_WITH_CUDNN;
// core/cuda/rnn_kernels.cc calls it first and runs its own kernels when it declines).
// It takes a subset of the runs Keras on TensorFlow gives cuDNN: an LSTM, or a GRU with
// reset_after, with tanh and sigmoid, no mask and no recurrent dropout drawn — the
// default layers, Bidirectional's halves included (go_backwards and its orders are done
// by reversing steps around cuDNN), input dropout applied before cuDNN as Keras does (the
// own kernels' mask). Keras's weights are packed into cuDNN's weight space each call
// (core/cuda/rnn_weight_layout.h: cuDNN's gate order, Keras's bias as the input bias, or
// both of a GRU's rows), strict float32 (no TF32). A geometry cuDNN declines is said once
// on stderr and runs on the own kernels.
//
// cuDNN's reserve space, which its backward pass needs, is no layout the op's (B, T, K)
// workspace output can take. So the run context keeps one reserve buffer per forward
// node (it only grows, as the run context's workspace does) and a record of the node's
// last cuDNN pass: the workspace output's address and the step. In training the forward
// pass fills the reserve and writes its output sequence, in processing order, into the
// workspace output. A gradient whose workspace input a cuDNN pass wrote in this step runs
// on cuDNN — decided from that record alone — and every other gradient on the own
// kernels (the workspace is then theirs: a pass that declined, or a workspace fed from
// elsewhere). When the reserve is not the pass's own, untouched — an inference pass keeps
// none, and cuDNN's backward pass writes into it, so a second gradient of one pass finds
// it used — the gradient runs the forward pass again, in training mode, first.
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
// The forward and gradient passes enqueued on cuDNN in this process, for tests that must
// know which path ran (a pass captured into a CUDA graph counts once, its replays not).
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
