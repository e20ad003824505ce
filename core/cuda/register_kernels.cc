// The CUDA device's entries in the op table: for each op family of core/ops, the ops
// that run on CUDA devices and the kernel each runs (declared in core/cuda/*_kernels.h,
// launched from the *.cu files). Registered when libstrata is loaded, after the op
// families and the CPU kernels (register_device_kernels); an op not named here has no
// CUDA kernel, and compile refuses a CUDA program that needs it, by name.
#include "core/cuda/array_kernels.h"
#include "core/cuda/batch_matmul_kernels.h"
#include "core/cuda/collective_kernels.h"
#include "core/cuda/dropout_kernels.h"
#include "core/cuda/elementwise_kernels.h"
#include "core/cuda/embedding_kernels.h"
#include "core/cuda/indicator_kernels.h"
#include "core/cuda/matmul_kernels.h"
#include "core/cuda/pick_kernels.h"
#include "core/cuda/pool_kernels.h"
#include "core/cuda/reduce_kernels.h"
#include "core/cuda/rnn_kernels.h"
#include "core/cuda/sequence_kernels.h"
#include "core/cuda/softmax_kernels.h"
#include "core/cuda/sources_kernels.h"
#include "core/cuda/update_kernels.h"
#include "core/cuda/upsample_kernels.h"
#include "core/op_registry.h"
#ifdef STRATA_WITH_CUDNN
#include "core/cuda/conv_kernels.h"
#endif

namespace strata::cuda {

namespace {

void add(OpRegistry& r, const std::string& op, KernelFn kernel) {
  r.add_kernel(op, DeviceType::cuda, {.run = std::move(kernel)});
}

// A kernel that reads something of the run on the host: a captured CUDA graph would
// replay what it read once (core/cuda_graph_policy.h).
void add_host_reading(OpRegistry& r, const std::string& op, KernelFn kernel,
                      std::function<std::string(const Node&)> graph_refusal) {
  r.add_kernel(op, DeviceType::cuda, {.run = std::move(kernel), .graph_refusal = std::move(graph_refusal)});
}

void register_source_kernels(OpRegistry& r) {
  add(r, "constant", constant);
  add(r, "fill_like", fill_like);
  add(r, "identity", copy_input);
  add(r, "stop_gradient", copy_input);
  add(r, "cast", cast);
}

void register_elementwise_kernels(OpRegistry& r) {
  add(r, "select", select);
  const std::pair<const char*, BinaryOp> binary_ops[] = {
      {"add", BinaryOp::add},         {"sub", BinaryOp::sub},
      {"mul", BinaryOp::mul},         {"div", BinaryOp::div},
      {"maximum", BinaryOp::maximum}, {"minimum", BinaryOp::minimum},
      {"equal", BinaryOp::equal},     {"not_equal", BinaryOp::not_equal},
      {"greater", BinaryOp::greater}, {"greater_equal", BinaryOp::greater_equal},
      {"less", BinaryOp::less},       {"less_equal", BinaryOp::less_equal},
      {"relu_grad", BinaryOp::relu_grad}};
  for (const auto& entry : binary_ops) {
    const BinaryOp op = entry.second;  // a copy to capture (clang before 16 cannot capture a binding)
    add(r, entry.first, [op](KernelContext& c) { binary(c, op); });
  }
  const std::pair<const char*, UnaryOp> unary_ops[] = {
      {"neg", UnaryOp::neg},         {"exp", UnaryOp::exp},   {"log", UnaryOp::log},
      {"sqrt", UnaryOp::sqrt},       {"square", UnaryOp::square}, {"abs", UnaryOp::abs},
      {"sign", UnaryOp::sign},       {"tanh", UnaryOp::tanh}, {"sigmoid", UnaryOp::sigmoid},
      {"relu", UnaryOp::relu},       {"erf", UnaryOp::erf},   {"softplus", UnaryOp::softplus}};
  for (const auto& entry : unary_ops) {
    const UnaryOp op = entry.second;
    add(r, entry.first, [op](KernelContext& c) { unary(c, op); });
  }
}

void register_shape_kernels(OpRegistry& r) {
  add(r, "reshape", copy_input);
  add(r, "reshape_like", copy_input);
  add(r, "broadcast_like", broadcast_like);
  add(r, "sum_to_like", sum_to_like);
}

void register_reduce_kernels(OpRegistry& r) {
  add(r, "reduce_sum", reduce_sum);
  add(r, "reduce_mean", reduce_mean);
  add(r, "reduce_max", reduce_max);
  add(r, "expand_to", expand_to);
}

void register_matmul_kernels(OpRegistry& r) {
  add(r, "dense", dense);
  add(r, "matmul", matmul);
}

void register_nn_kernels(OpRegistry& r) {
  add(r, "softmax", softmax);
  add(r, "softmax_grad", softmax_grad);
  add(r, "sparsemax", sparsemax);
  add(r, "sparsemax_grad", sparsemax_grad);
  add(r, "log_softmax", log_softmax);
  add(r, "pick", pick);
  add(r, "unpick", unpick);
  add(r, "argmax", argmax);
  add(r, "dropout", dropout);
}

void register_update_kernels(OpRegistry& r) {
  add(r, "assign", assign);
  add(r, "assign_add", assign_add);
}

void register_optimizer_update_kernels(OpRegistry& r) {
  add(r, "apply_sgd", apply_sgd);
  add(r, "apply_adam", apply_adam);
  add(r, "apply_rmsprop", apply_rmsprop);
  add(r, "apply_adagrad", apply_adagrad);
}

// The recurrent kernels draw their dropout masks' step on the host.
std::string dropout_step_on_the_host(const Node& node) {
  const bool dropout = node.attrs.get_or<double>("dropout", 0.0) > 0.0 ||
                       node.attrs.get_or<double>("recurrent_dropout", 0.0) > 0.0;
  return dropout ? "takes the step of its dropout masks on the host" : "";
}

void register_rnn_kernels(OpRegistry& r) {
  add_host_reading(r, "rnn_sequence", rnn_sequence, dropout_step_on_the_host);
  add_host_reading(r, "rnn_sequence_grad", rnn_sequence_grad, dropout_step_on_the_host);
  add(r, "rnn_zero_state", rnn_zero_state);
}

void register_sequence_kernels(OpRegistry& r) {
  add(r, "concat_last", concat_last);
  add(r, "split_last", split_last);
  add(r, "embedding_lookup", embedding_lookup);
  add(r, "embedding_lookup_grad", embedding_lookup_grad);
  add(r, "repeat_vector", repeat_vector);
  add(r, "unfold_time", copy_input);
}

// Convolutions are written on cuDNN: a CUDA build that did not find it has none, and
// compile refuses a CUDA program with a convolution by name.
void register_conv_kernels(OpRegistry& r) {
#ifdef STRATA_WITH_CUDNN
  add(r, "conv2d", conv2d);
  add(r, "conv2d_backprop_input", conv2d_backprop_input);
  add(r, "conv2d_backprop_filter", conv2d_backprop_filter);
  add(r, "conv3d", conv3d);
  add(r, "conv3d_backprop_input", conv3d_backprop_input);
  add(r, "conv3d_backprop_filter", conv3d_backprop_filter);
#endif
}

void register_pool_kernels(OpRegistry& r) {
  add(r, "max_pool2d", max_pool2d);
  add(r, "max_pool2d_grad", max_pool2d_grad);
  add(r, "max_pool2d_relu_grad", max_pool2d_relu_grad);
  add(r, "avg_pool2d", avg_pool2d);
  add(r, "avg_pool2d_grad", avg_pool2d_grad);
  add(r, "upsample_nearest2d", upsample_nearest2d);
}

void register_array_kernels(OpRegistry& r) {
  add(r, "split_axis", copy_input);
  add(r, "merge_axes", copy_input);
  add(r, "expand_dims", copy_input);
  add(r, "pad", pad);
  add(r, "crop", crop);
  add(r, "transpose", transpose);
  add(r, "concat", concat);
  add(r, "training_select", training_select);
}

void register_batch_matmul_kernels(OpRegistry& r) { add(r, "batch_matmul", batch_matmul); }

void register_indicator_kernels(OpRegistry& r) {
  add(r, "causal_mask", causal_mask);
  add(r, "one_hot", one_hot);
}

// The collectives call the communicator from the host.
std::string host_call_refusal(const Node&) { return "calls the communicator from the host"; }

void register_collective_kernels(OpRegistry& r) {
  add_host_reading(r, "all_reduce_start", all_reduce_start, host_call_refusal);
  add_host_reading(r, "all_reduce_wait", all_reduce_wait, host_call_refusal);
}

void register_kernels(OpRegistry& r) {
  register_source_kernels(r);
  register_elementwise_kernels(r);
  register_shape_kernels(r);
  register_reduce_kernels(r);
  register_matmul_kernels(r);
  register_nn_kernels(r);
  register_update_kernels(r);
  register_optimizer_update_kernels(r);
  register_rnn_kernels(r);
  register_sequence_kernels(r);
  register_conv_kernels(r);
  register_pool_kernels(r);
  register_array_kernels(r);
  register_batch_matmul_kernels(r);
  register_indicator_kernels(r);
  register_collective_kernels(r);
}

// libstrata is a shared library whose every object is linked in, so this initializer
// runs whenever the library is loaded.
const bool registered = register_device_kernels(register_kernels);

}  // namespace

}  // namespace strata::cuda
