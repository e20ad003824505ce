// Rewrites for a graph's inference programs (predict, evaluate): the same answer, within
// float32 rounding, in fewer and cheaper steps. One model graph serves training and
// inference, so its layers build what both need (BatchNormalization computes its batch
// statistics and selects them by the run's mode); a program compiled to run only in
// inference mode is compiled from rewritten fetches instead:
//  1. the mode resolved: training_select reads its inference input, dropout is its input
//     (so the batch statistics are never computed), and an identity (Keras's Identity
//     layer, a StochasticDepth that drops nothing), a stop_gradient (no gradient is
//     taken here) or a multiplication of x by ones made from x's shape (a noise-shaped
//     Dropout's mask, resolved to its ones) is its input;
//  2. a per-channel affine map folded (BatchNormalization's (x − mean)·scale + beta, and a
//     bias added after a convolution): into the preceding conv2d or dense, whose kernel
//     is multiplied by the scale and whose bias absorbs the shift, else into one
//     multiply-add x·scale + shift; a bias added after a dense_int8 (an int8 Dense
//     layer's) becomes its bias, added in the same pass (its kernel holds int8 values: no
//     scale folds into it);
//  3. where the Program runs on the CPU, an add of a conv2d and a tensor of its shape (a
//     residual block's skip connection) fused into the conv2d's epilogue, and a
//     multiplication of a pointwise conv2d's input by a scale per image and channel (a
//     squeeze-and-excitation block's) fused into the conv2d, which scales its kernel
//     instead, where that is fewer products (its output channels fewer than the pixels);
//  4. a relu that reads only a conv2d, dense or dense_int8 fused into its epilogue, and a relu6 or
//     silu into a conv2d's where the Program runs on the CPU (the GEMM applies it as it
//     writes);
//  5. where the Program runs on the CPU, a LayerNormalization over the last axis, composed
//     of reductions and elementwise ops, made one op (core/ops/layer_norm_ops.h).
// (A product of two bfloat16 values, an emulated bfloat16 layer's, is marked for the
// bfloat16 GEMM when it is built, for training and inference alike: core/ops/matmul.cc.)
// The rewritten nodes are new nodes of the graph; the original ones are left as they
// are, so a training program compiled from the original fetches is never rewritten. The
// folded kernels are computed from variables alone: an inference Program computes them
// once and again only when a weight changes (core/program.h, 5.).
#pragma once

#include <vector>

#include "core/graph.h"

namespace strata {

// What rewrite_for_inference did, counted by rewrite.
struct InferenceRewrites {
  int modes_resolved = 0;      // training_select, dropout and batch_normalization nodes resolved
  int affines_folded = 0;      // per-channel affine maps folded into a conv2d or dense
  int affines_collapsed = 0;   // (x − m)·s + b maps left as one multiply-add
  int activations_fused = 0;   // relus (relu6s, silus) fused into a conv2d's or dense's epilogue
  int identities_dropped = 0;  // identity and stop_gradient nodes, multiplications by ones, bypassed
  int residuals_fused = 0;     // adds of a conv2d and a tensor its shape fused into its epilogue
  int pads_folded = 0;         // zero paddings (ZeroPadding2D) made a conv2d's own padding
  int input_scales_fused = 0;  // per-image channel scales (squeeze-and-excitation) fused into a pointwise conv2d
  int layer_norms_fused = 0;   // LayerNormalizations (last axis) made one layer_normalization_inference
};

struct InferenceRewriteOptions {
  // The Program runs on the CPU: relu6 and silu also fuse into the conv2d before them, a
  // residual add into the conv2d it adds, a squeeze-and-excitation scale into the
  // pointwise conv2d that reads the scaled values, and a LayerNormalization becomes one
  // op. Only the CPU has those kernels: a Program for a GPU is rewritten with this off,
  // and keeps them as their own ops.
  bool cpu_program = true;
};

// The outputs that compute `roots` in inference mode with the rewrites above, in the same
// order (an output nothing rewrote is returned as it is). Adds nodes to `graph`, which
// must not be finalized yet: call it before any Program is compiled from the graph.
std::vector<Output> rewrite_for_inference(Graph& graph, const std::vector<Output>& roots,
                                          InferenceRewrites* report = nullptr,
                                          const InferenceRewriteOptions& options = {});

}  // namespace strata
