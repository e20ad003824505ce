// cuDNN's RNN for the recurrent ops (core/cuda/cudnn_rnn.h): the plans (descriptors and
// sizes per geometry), the reserve spaces kept from a forward pass to its gradient, and
// the two passes.
#include "core/cuda/cudnn_rnn.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/cudnn_check.h"
#include "core/cuda/cudnn_descriptors.h"
#include "core/cuda/cudnn_handle.h"
#include "core/cuda/lru_cache.h"
#include "core/cuda/rnn_launch.h"
#include "core/cuda/rnn_layout_launch.h"
#include "core/cuda/rnn_plan.h"
#include "core/cuda/run_context.h"
#include "core/cuda/workspace.h"
#include "core/cuda/workspace_parts.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/rnn_config.h"

namespace strata::cuda {

namespace {

using RnnDescriptor = CudnnDescriptor<cudnnRNNDescriptor_t, cudnnCreateRNNDescriptor, cudnnDestroyRNNDescriptor>;
using RnnDataDescriptor =
    CudnnDescriptor<cudnnRNNDataDescriptor_t, cudnnCreateRNNDataDescriptor, cudnnDestroyRNNDataDescriptor>;
using DropoutDescriptor =
    CudnnDescriptor<cudnnDropoutDescriptor_t, cudnnCreateDropoutDescriptor, cudnnDestroyDropoutDescriptor>;

std::atomic<int> enabled_state{-1};  // -1: not yet read from the environment
std::atomic<std::int64_t> calls{0};

// How cuDNN declines an RNN it does not run: the NOT_SUPPORTED family (cuDNN 9 adds
// sub-codes to it), or BAD_PARAM, with which it also rejects configurations.
bool refused(cudnnStatus_t status) {
  const int family = static_cast<int>(status) / 1000 * 1000;
  return family == static_cast<int>(CUDNN_STATUS_NOT_SUPPORTED) || family == static_cast<int>(CUDNN_STATUS_BAD_PARAM);
}

// The runs this path takes, a subset of those Keras on TensorFlow gives cuDNN (which also
// takes right-padded masks): an LSTM or a GRU with reset_after, tanh and sigmoid, no mask
// and no recurrent dropout drawn (input dropout is applied before cuDNN, as Keras does),
// with sizes cuDNN's int descriptors take and none empty (the own kernels handle no
// steps and no rows).
bool qualifies(const ops::Config& c, const RnnDropout& d) {
  if (!cudnn_rnn_enabled()) return false;
  const bool cell = c.cell == ops::Cell::lstm || (c.cell == ops::Cell::gru && c.reset_after);
  if (!cell || c.activation != ops::Act::tanh || c.recurrent_activation != ops::Act::sigmoid) return false;
  if (c.has_mask || d.recurrent) return false;
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  for (std::int64_t n : {c.B, c.T, c.F, c.H}) {
    if (n <= 0 || n > kMax) return false;
  }
  return c.B * c.T * c.F <= kMax && c.B * c.T * c.H <= kMax;
}

// Whether the op's input must be reversed into processing order for cuDNN, and its
// output back from processing order (core/ops/rnn_cell.h, RnnLayout).
bool reverses_input(const ops::RnnLayout& L) { return L.go_backwards && !L.input_in_processing_order; }
bool reverses_output(const ops::RnnLayout& L) { return L.go_backwards && L.reverse_output; }

}  // namespace

// One geometry as cuDNN runs it: descriptors, sizes, and where each gate's weights sit
// in the weight space (known after the first call, which has a weight space to ask about).
struct CudnnRnnPlan {
  explicit CudnnRnnPlan(const KernelContext& ctx) : dropout(ctx), rnn(ctx), x(ctx), y(ctx), h(ctx), m(ctx), b(ctx) {}

  DropoutDescriptor dropout;  // first: destroyed after the RNN descriptor that names it
  RnnDescriptor rnn;
  RnnDataDescriptor x, y;
  TensorDescriptor h;
  TensorDescriptor m, b;  // what cudnnGetRNNWeightParams describes a matrix and a bias with
  bool supported = true;  // false: cuDNN refused the geometry, and the own kernels run it
  std::size_t weight_bytes = 0, inference_work = 0, training_work = 0, reserve_bytes = 0;
  bool layout_known = false;
  RnnWeightLayout layout;
};

// A run context's cuDNN RNN state: plans by geometry, and the reserve space each forward
// node keeps for its gradient.
class CudnnRnnCache {
 public:
  CudnnRnnCache(int device, CUstream_st* stream) : device_(device), stream_(stream) {}

  using Key = std::array<std::int64_t, 5>;  // cell, B, T, F, H
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t seed = 0;
      for (std::int64_t v : k) seed = seed * 1000003u ^ std::hash<std::int64_t>{}(v);
      return seed;
    }
  };
  LruCache<Key, CudnnRnnPlan, KeyHash> plans{64};

  // What a forward node's cuDNN pass left for its gradient in the step it ran.
  struct Forward {
    std::unique_ptr<Workspace> reserve;  // made by the first pass in training
    const float* workspace = nullptr;    // the pass's workspace output
    std::int64_t step = -1;
    // The reserve holds this pass's state, untouched: false after an inference pass
    // (which keeps none) and once a gradient's backward pass has used it (cuDNN's
    // backward pass writes into it), so a later gradient runs the pass again first.
    bool reserve_fresh = false;
  };

  // Node `node`'s reserve space of at least `bytes`. Growing it, or making it, while a
  // CUDA graph is captured throws strata::Error: the capture is abandoned and the run
  // goes eager (the warm-up runs before a capture have made it).
  void* reserve_for(int node, std::size_t bytes, bool capturing) {
    Forward& f = forwards_[node];
    if (!f.reserve) {
      if (capturing) throw Error("cuDNN's RNN reserve space would be made while a CUDA graph is captured");
      f.reserve = std::make_unique<Workspace>(device_, stream_);
    }
    f.reserve->set_growth_refused(capturing);
    return f.reserve->get(std::max<std::size_t>(bytes, 256));  // never null, even for 0 bytes
  }
  // Notes that node `node`'s forward pass ran on cuDNN in `step`, writing `workspace`.
  void note_forward(int node, const float* workspace, std::int64_t step, bool reserve_fresh) {
    Forward& f = forwards_[node];
    f.workspace = workspace;
    f.step = step;
    f.reserve_fresh = reserve_fresh;
  }
  // Notes that node `node`'s forward pass ran on the own kernels: no gradient may take
  // an earlier pass's record for this one's.
  void forget_forward(int node) {
    if (const auto it = forwards_.find(node); it != forwards_.end()) {
      it->second.workspace = nullptr;
      it->second.step = -1;
      it->second.reserve_fresh = false;
    }
  }
  // Node `node`'s record when its forward pass ran on cuDNN in `step` and wrote
  // `workspace`; else null (the workspace is in the own kernels' layout).
  Forward* forward_of(int node, const float* workspace, std::int64_t step) {
    const auto it = forwards_.find(node);
    if (it == forwards_.end() || it->second.workspace != workspace || it->second.step != step) return nullptr;
    return &it->second;
  }

 private:
  int device_;
  CUstream_st* stream_;
  std::map<int, Forward> forwards_;
};

// Here rather than in run_context.cc: a build without cuDNN has no CudnnRnnCache, and the
// shared_ptr's deleter is bound where the cache is made.
CudnnRnnCache& RunContext::cudnn_rnns() {
  if (!cudnn_rnns_) cudnn_rnns_ = std::make_shared<CudnnRnnCache>(stream_.device(), stream_.get());
  return *cudnn_rnns_;
}

bool cudnn_rnn_enabled() {
  int state = enabled_state.load(std::memory_order_relaxed);
  if (state < 0) {
    const char* env = std::getenv("STRATA_CUDNN_RNN");
    state = env && std::string(env) == "0" ? 0 : 1;
    int expected = -1;
    if (!enabled_state.compare_exchange_strong(expected, state)) state = expected;
  }
  return state == 1;
}

void set_cudnn_rnn_enabled(bool enabled) { enabled_state.store(enabled ? 1 : 0); }

std::int64_t cudnn_rnn_calls() { return calls.load(); }

namespace {

// Marks `plan` declined, and says so on stderr: the run is right, only slower. Said
// once per plan (a geometry dropped from the cache and met again says it again).
void decline(const KernelContext& ctx, const ops::Config& c, CudnnRnnPlan& plan, const char* call,
             cudnnStatus_t status) {
  std::cerr << "strata: cuDNN's RNN declines " << (c.cell == ops::Cell::lstm ? "an LSTM" : "a GRU") << " of " << c.B
            << "x" << c.T << "x" << c.F << " into " << c.H << " units (" << call << ": " << cudnnGetErrorString(status)
            << "); node '" << ctx.node.name << "' runs on the own kernels\n";
  plan.supported = false;
}

// Builds the plan of `c`'s geometry; a geometry cuDNN refuses gets a plan marked
// unsupported, so later calls decline at once.
std::unique_ptr<CudnnRnnPlan> build_plan(const KernelContext& ctx, cudnnHandle_t handle, const ops::Config& c) {
  auto plan = std::make_unique<CudnnRnnPlan>(ctx);
  const int B = static_cast<int>(c.B), T = static_cast<int>(c.T), F = static_cast<int>(c.F),
            H = static_cast<int>(c.H);
  // Each step: a refusal marks the plan; any other failure throws.
  auto step = [&](cudnnStatus_t status, const char* call) {
    if (status == CUDNN_STATUS_SUCCESS) return true;
    if (refused(status)) {
      decline(ctx, c, *plan, call, status);
      return false;
    }
    check(status, ctx, call);
    return false;
  };
  // No dropout: a one-layer RNN has none between layers, and Keras's is drawn outside cuDNN.
  if (!step(cudnnSetDropoutDescriptor(plan->dropout.get(), handle, 0.f, nullptr, 0, 0), "cudnnSetDropoutDescriptor")) {
    return plan;
  }
  const cudnnRNNMode_t mode = c.cell == ops::Cell::lstm ? CUDNN_LSTM : CUDNN_GRU;
  // Unpacked layouts take padded input and output; every sequence is T steps long, so
  // nothing is padded (and no padding value is given).
  if (!step(cudnnSetRNNDescriptor_v8(plan->rnn.get(), CUDNN_RNN_ALGO_STANDARD, mode, CUDNN_RNN_DOUBLE_BIAS,
                                     CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
                                     CUDNN_FMA_MATH, F, H, H, 1, plan->dropout.get(), CUDNN_RNN_PADDED_IO_ENABLED),
            "cudnnSetRNNDescriptor_v8")) {
    return plan;
  }
  const std::vector<int> lengths(static_cast<std::size_t>(B), T);
  if (!step(cudnnSetRNNDataDescriptor(plan->x.get(), CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, T,
                                      B, F, lengths.data(), nullptr),
            "cudnnSetRNNDataDescriptor") ||
      !step(cudnnSetRNNDataDescriptor(plan->y.get(), CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, T,
                                      B, H, lengths.data(), nullptr),
            "cudnnSetRNNDataDescriptor")) {
    return plan;
  }
  const int dims[3] = {1, B, H}, strides[3] = {B * H, H, 1};
  std::size_t no_reserve = 0;  // inference keeps none
  check(cudnnSetTensorNdDescriptor(plan->h.get(), CUDNN_DATA_FLOAT, 3, dims, strides), ctx,
        "cudnnSetTensorNdDescriptor");
  if (!step(cudnnGetRNNWeightSpaceSize(handle, plan->rnn.get(), &plan->weight_bytes), "cudnnGetRNNWeightSpaceSize") ||
      !step(cudnnGetRNNTempSpaceSizes(handle, plan->rnn.get(), CUDNN_FWD_MODE_INFERENCE, plan->x.get(),
                                      &plan->inference_work, &no_reserve),
            "cudnnGetRNNTempSpaceSizes") ||
      !step(cudnnGetRNNTempSpaceSizes(handle, plan->rnn.get(), CUDNN_FWD_MODE_TRAINING, plan->x.get(),
                                      &plan->training_work, &plan->reserve_bytes),
            "cudnnGetRNNTempSpaceSizes")) {
    return plan;  // declined
  }
  return plan;
}

CudnnRnnPlan& plan_for(const KernelContext& ctx, RunContext& run, const ops::Config& c) {
  const CudnnRnnCache::Key key{static_cast<std::int64_t>(c.cell), c.B, c.T, c.F, c.H};
  cudnnHandle_t handle = run.cudnn().get();
  return run.cudnn_rnns().plans.find_or_build(key, [&] { return build_plan(ctx, handle, c); });
}

// Whether a descriptor cudnnGetRNNWeightParams filled describes `rows` rows of `cols`
// floats, row-major (dimensions of 1 aside, whatever its rank).
bool describes(const KernelContext& ctx, const TensorDescriptor& d, int rows, int cols) {
  cudnnDataType_t type;
  int rank = 0, dims[8] = {}, strides[8] = {};
  check(cudnnGetTensorNdDescriptor(d.get(), 8, &type, &rank, dims, strides), ctx, "cudnnGetTensorNdDescriptor");
  std::vector<std::array<int, 2>> kept;  // (dimension, stride) of every dimension over 1
  for (int i = 0; i < rank && i < 8; ++i) {
    if (dims[i] > 1) kept.push_back({dims[i], strides[i]});
  }
  std::vector<std::array<int, 2>> want;
  if (rows > 1) want.push_back({rows, cols});
  if (cols > 1) want.push_back({cols, 1});
  return type == CUDNN_DATA_FLOAT && kept == want;
}

// Where each gate's weights sit in a weight space at `space` (offsets from its start, the
// same for every weight space of the plan). Throws strata::Error when cuDNN describes a
// matrix or bias of another shape than this code packs (H rows of the input's width).
void learn_layout(const KernelContext& ctx, cudnnHandle_t handle, CudnnRnnPlan& plan, const ops::Config& c,
                  float* space) {
  RnnWeightLayout& l = plan.layout;
  l.F = c.F;
  l.H = c.H;
  l.G = c.G;
  l.two_biases = c.cell == ops::Cell::gru;
  for (int gate = 0; gate < c.G; ++gate) {
    for (bool recurrent : {false, true}) {
      void *matrix = nullptr, *bias = nullptr;
      check(cudnnGetRNNWeightParams(handle, plan.rnn.get(), 0, plan.weight_bytes, space,
                                    cudnn_lin_layer_id(c.cell, gate, recurrent), plan.m.get(), &matrix, plan.b.get(),
                                    &bias),
            ctx, "cudnnGetRNNWeightParams");
      const int H = static_cast<int>(c.H), inputs = static_cast<int>(recurrent ? c.H : c.F);
      if (!matrix || !bias || !describes(ctx, plan.m, H, inputs) || !describes(ctx, plan.b, 1, H)) {
        throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                    "'): cuDNN describes a recurrent weight matrix or bias of another shape than (units, inputs) "
                    "and (units); set STRATA_CUDNN_RNN=0 to run the own kernels");
      }
      const std::int64_t m_at = static_cast<float*>(matrix) - space, b_at = static_cast<float*>(bias) - space;
      (recurrent ? l.recurrent_matrix : l.input_matrix)[gate] = m_at;
      (recurrent ? l.recurrent_bias : l.input_bias)[gate] = b_at;
    }
  }
  plan.layout_known = true;
}

// What both passes hand cuDNN, in one carved block: the sequence lengths, Keras's
// weights packed into cuDNN's weight space, cuDNN's workspace, and the input as cuDNN
// reads it (times the input dropout mask, drawn here as the own kernels draw it, then in
// processing order; x itself when neither applies).
class CudnnOperands {
 public:
  // Adds the parts to `parts`, which the caller carves after adding its own.
  CudnnOperands(WorkspaceParts& parts, const CudnnRnnPlan& plan, const ops::Config& c, const RnnDropout& d,
                std::size_t work_bytes)
      : parts_(parts), work_bytes_(work_bytes) {
    const std::size_t x_bytes = static_cast<std::size_t>(c.B * c.T * c.F) * sizeof(float);
    lengths_ = parts.add(static_cast<std::size_t>(c.B) * sizeof(std::int32_t));
    weights_ = parts.add(plan.weight_bytes);
    work_ = parts.add(work_bytes);
    mask_ = parts.add(d.input ? static_cast<std::size_t>(c.B * c.F) * sizeof(float) : 0);
    dropped_ = parts.add(d.input ? x_bytes : 0);
    reversed_ = parts.add(reverses_input(c) ? x_bytes : 0);
  }

  // Once carved: learns the plan's weight layout at its first call, and enqueues the
  // lengths, the packing and the input on the run context's stream.
  void enqueue(const KernelContext& ctx, RunContext& run, CudnnRnnPlan& plan, const ops::Config& c,
               const RnnDropout& d, const float* x, const float* kernel, const float* recurrent_kernel,
               const float* bias) {
    CUstream_st* stream = run.stream().get();
    if (!plan.layout_known) learn_layout(ctx, run.cudnn().get(), plan, c, weights());
    launch_fill_int32(parts_.at<std::int32_t>(lengths_), c.B, static_cast<std::int32_t>(c.T), stream);
    launch_pack_rnn_weights(plan.layout, kernel, recurrent_kernel, bias, weights(), stream);
    x_ = x;
    if (d.input) {
      launch_rnn_dropout_mask(mask(), c.B * c.F, d.seed, ops::kInputMaskStream, d.input_first, d.input_rate,
                              1.f / (1.f - d.input_rate), stream);
      launch_scale_rows(x_, mask(), parts_.at<float>(dropped_), c.B * c.T, c.F, c.T, stream);
      x_ = parts_.at<float>(dropped_);
    }
    if (reverses_input(c)) {
      launch_reverse_steps(x_, parts_.at<float>(reversed_), c.B, c.T, c.F, stream);
      x_ = parts_.at<float>(reversed_);
    }
  }

  const std::int32_t* lengths() const { return parts_.at<std::int32_t>(lengths_); }
  float* weights() const { return parts_.at<float>(weights_); }
  void* work() const { return parts_.at<void>(work_); }
  std::size_t work_bytes() const { return work_bytes_; }
  float* mask() const { return parts_.at<float>(mask_); }  // null without input dropout
  const float* x() const { return x_; }

 private:
  const WorkspaceParts& parts_;
  std::size_t work_bytes_;
  int lengths_, weights_, work_, mask_, dropped_, reversed_;
  const float* x_ = nullptr;
};

}  // namespace

bool cudnn_rnn_forward(const KernelContext& ctx, RunContext& run, const ops::Config& c, const RnnDropout& d,
                       const RnnForwardIO& io) {
  CudnnRnnPlan* plan = qualifies(c, d) ? &plan_for(ctx, run, c) : nullptr;
  CudnnRnnCache& cache = run.cudnn_rnns();
  if (!plan || !plan->supported) {
    cache.forget_forward(ctx.node.id);
    return false;
  }
  const bool training = ctx.training;
  const std::int64_t B = c.B, T = c.T, H = c.H;
  const bool lstm = c.cell == ops::Cell::lstm;
  // In training the output sequence in processing order goes to the workspace output,
  // where the gradient reads it; in inference straight to y unless it must be reversed.
  const bool y_aside = !training && reverses_output(c);
  WorkspaceParts parts;
  CudnnOperands in(parts, *plan, c, d, training ? plan->training_work : plan->inference_work);
  const int y_proc = parts.add(y_aside ? static_cast<std::size_t>(B * T * H) * sizeof(float) : 0);
  parts.carve(run.workspace());
  void* reserve = training ? cache.reserve_for(ctx.node.id, plan->reserve_bytes, run.capturing()) : nullptr;
  in.enqueue(ctx, run, *plan, c, d, io.x, io.kernel, io.recurrent_kernel, io.bias);
  CUstream_st* stream = run.stream().get();
  float* y = training ? io.workspace : y_aside ? parts.at<float>(y_proc) : io.y;
  check_launch(ctx);
  const cudnnStatus_t status = cudnnRNNForward(
      run.cudnn().get(), plan->rnn.get(), training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, in.lengths(),
      plan->x.get(), in.x(), plan->y.get(), y, plan->h.get(), io.h0, io.h, plan->h.get(), lstm ? io.c0 : nullptr,
      lstm ? io.c : nullptr, plan->weight_bytes, in.weights(), in.work_bytes(), in.work(),
      training ? plan->reserve_bytes : 0, reserve);
  if (refused(status)) {
    // Found only when it runs: the own kernels take this geometry from now on (what was
    // enqueued so far wrote scratch only, and they write every output).
    decline(ctx, c, *plan, "cudnnRNNForward", status);
    cache.forget_forward(ctx.node.id);
    return false;
  }
  check(status, ctx, "cudnnRNNForward");
  if (reverses_output(c)) {
    launch_reverse_steps(y, io.y, B, T, H, stream);
  } else if (y != io.y) {
    check(cudaMemcpyAsync(io.y, y, static_cast<std::size_t>(B * T * H) * sizeof(float), cudaMemcpyDeviceToDevice,
                          stream),
          ctx, "cudaMemcpyAsync");
  }
  if (!lstm) {
    check(cudaMemsetAsync(io.c, 0, static_cast<std::size_t>(B * H) * sizeof(float), stream), ctx, "cudaMemsetAsync");
  }
  check_launch(ctx);
  // Whatever the mode: a gradient of this pass (the workspace output is not the own
  // kernels' layout) must find it, and after an inference pass run it again.
  cache.note_forward(ctx.node.id, io.workspace, ctx.step, training);
  calls.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool cudnn_rnn_backward(const KernelContext& ctx, RunContext& run, const ops::Config& c, const RnnDropout& d,
                        const RnnBackwardIO& io) {
  // Decided by the forward pass alone: a workspace its cuDNN pass wrote in this step has
  // no other reader, whatever the switch or the mode now. (A gradient node built apart
  // from a graph, as the kernel table's, names no producer.)
  if (ctx.node.inputs.size() <= 6 || ctx.node.inputs[6].index != 3) return false;
  const int forward_node = ctx.node.inputs[6].node;
  CudnnRnnCache& cache = run.cudnn_rnns();
  CudnnRnnCache::Forward* forward = cache.forward_of(forward_node, io.workspace, ctx.step);
  if (!forward) return false;
  CudnnRnnPlan& plan = plan_for(ctx, run, c);
  if (!plan.supported) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name +
                "'): cuDNN declines the geometry its forward pass ran on cuDNN");
  }
  const std::int64_t B = c.B, T = c.T, F = c.F, H = c.H;
  const bool lstm = c.cell == ops::Cell::lstm;
  // Without an untouched reserve (an inference pass, or a second gradient of one pass),
  // the forward pass runs again in training mode first, its output aside.
  const bool rerun = !forward->reserve_fresh;
  const std::size_t x_bytes = static_cast<std::size_t>(B * T * F) * sizeof(float),
                    y_bytes = static_cast<std::size_t>(B * T * H) * sizeof(float);
  WorkspaceParts parts;
  CudnnOperands in(parts, plan, c, d, plan.training_work);
  const int dweights = parts.add(plan.weight_bytes);
  const int dx_proc = parts.add(reverses_input(c) ? x_bytes : 0);
  const int dy_proc = parts.add(reverses_output(c) ? y_bytes : 0);
  const int y_again = parts.add(rerun ? y_bytes : 0);
  parts.carve(run.workspace());
  void* reserve = cache.reserve_for(forward_node, plan.reserve_bytes, run.capturing());
  const float* bias = static_cast<const float*>(ctx.input(5).device_data());
  in.enqueue(ctx, run, plan, c, d, io.x, io.kernel, io.recurrent_kernel, bias);
  cudnnHandle_t handle = run.cudnn().get();
  CUstream_st* stream = run.stream().get();
  float* dspace = parts.at<float>(dweights);
  check(cudaMemsetAsync(dspace, 0, plan.weight_bytes, stream), ctx, "cudaMemsetAsync");
  const float* dy = io.dy;
  if (reverses_output(c)) {
    launch_reverse_steps(io.dy, parts.at<float>(dy_proc), B, T, H, stream);
    dy = parts.at<float>(dy_proc);
  }
  float* dx = reverses_input(c) ? parts.at<float>(dx_proc) : io.dx;
  check_launch(ctx);
  // The forward pass's output sequence, in processing order.
  const float* y = rerun ? parts.at<float>(y_again) : io.workspace;
  if (rerun) {
    check(cudnnRNNForward(handle, plan.rnn.get(), CUDNN_FWD_MODE_TRAINING, in.lengths(), plan.x.get(), in.x(),
                          plan.y.get(), parts.at<float>(y_again), plan.h.get(), io.h0, nullptr, plan.h.get(),
                          lstm ? io.c0 : nullptr, nullptr, plan.weight_bytes, in.weights(), in.work_bytes(),
                          in.work(), plan.reserve_bytes, reserve),
          ctx, "cudnnRNNForward (again, for the gradient)");
  }
  check(cudnnRNNBackwardData_v8(handle, plan.rnn.get(), in.lengths(), plan.y.get(), y, dy, plan.x.get(), dx,
                                plan.h.get(), io.h0, io.dh, io.dh0, plan.h.get(), lstm ? io.c0 : nullptr,
                                lstm ? io.dc : nullptr, lstm ? io.dc0 : nullptr, plan.weight_bytes, in.weights(),
                                in.work_bytes(), in.work(), plan.reserve_bytes, reserve),
        ctx, "cudnnRNNBackwardData_v8");
  forward->reserve_fresh = false;  // cuDNN's backward pass writes into the reserve
  check(cudnnRNNBackwardWeights_v8(handle, plan.rnn.get(), CUDNN_WGRAD_MODE_ADD, in.lengths(), plan.x.get(), in.x(),
                                   plan.h.get(), io.h0, plan.y.get(), y, plan.weight_bytes, dspace, in.work_bytes(),
                                   in.work(), plan.reserve_bytes, reserve),
        ctx, "cudnnRNNBackwardWeights_v8");
  launch_unpack_rnn_weight_grads(plan.layout, dspace, io.dkernel, io.drecurrent_kernel, io.dbias, stream);
  if (reverses_input(c)) launch_reverse_steps(dx, io.dx, B, T, F, stream);
  // Through the input dropout: the mask again, row by row.
  if (d.input) launch_scale_rows(io.dx, in.mask(), io.dx, B * T, F, T, stream);
  if (!lstm) {
    check(cudaMemsetAsync(io.dc0, 0, static_cast<std::size_t>(B * H) * sizeof(float), stream), ctx,
          "cudaMemsetAsync");
  }
  check_launch(ctx);
  calls.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace strata::cuda
