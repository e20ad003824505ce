#include "core/execution_state.h"

#include <cstring>

#include "core/program.h"

#if defined(STRATA_WITH_CUDA)
#include "core/cuda/run_context.h"
#else
namespace strata::cuda {
// Without the CUDA backend no state ever makes one, but the owning pointer's deleter
// still needs a complete type to compile.
class RunContext {};
}  // namespace strata::cuda
#endif

namespace strata {

ExecutionState::ExecutionState(const Program& program)
    : program_(program),
      buffers_(static_cast<std::size_t>(program.num_buffers_)),
      feed_slots_(program.feeds_.size()),
      shapes_(program.steps_.size()),
      executions_(static_cast<std::size_t>(program.graph_.num_nodes()), 0) {
  contexts_.reserve(program.steps_.size());
  for (const auto& step : program.steps_) {
    KernelContext ctx{program.graph_.node(step.node), {}, {}, false, 0};
    for (int v : step.inputs) ctx.inputs.push_back(resolve(v));
    for (int v : step.outputs) ctx.outputs.push_back(resolve(v));
    contexts_.push_back(std::move(ctx));
  }
#if defined(STRATA_WITH_CUDA)
  if (program.device_.type == DeviceType::cuda) {
    cuda_ = std::make_unique<cuda::RunContext>(program.device_.index);
    for (KernelContext& ctx : contexts_) ctx.cuda = cuda_.get();
  }
#endif
}

ExecutionState::~ExecutionState() {
  // A run that threw may have left work on the stream; the buffers must outlive it. A
  // destructor cannot report the device's error, and the run that caused it already did.
  try {
    finish_device_work();
  } catch (...) {
  }
}

// Kernels on a GPU only enqueue their work: wait for it before anything reads results.
void ExecutionState::finish_device_work() {
#if defined(STRATA_WITH_CUDA)
  if (cuda_) cuda_->synchronize();
#endif
}

Tensor* ExecutionState::resolve(int value) {
  const Program::Value& v = program_.values_[static_cast<std::size_t>(value)];
  if (v.buffer >= 0) return &buffers_[static_cast<std::size_t>(v.buffer)];
  if (v.feed >= 0) return &feed_slots_[static_cast<std::size_t>(v.feed)];
  // Variables are shared by every state: runs read them in place (and a Program that
  // writes them runs one call at a time).
  return &const_cast<Node&>(program_.graph_.node(v.variable)).variable.value();
}

void ExecutionState::release_feeds() {
  for (auto& slot : feed_slots_) slot.release();
}

// Copies fetched values out (variables or computed values), reusing result tensors that
// already have the right shape and are not shared.
void ExecutionState::copy_fetches(bool variables, std::vector<Tensor>& results) {
  for (std::size_t i = 0; i < program_.fetch_values_.size(); ++i) {
    const int value = program_.fetch_values_[i];
    if ((program_.values_[static_cast<std::size_t>(value)].variable >= 0) != variables) continue;
    const Tensor& src = *resolve(value);
    Tensor& dst = results[i];
    if (!src.on_cpu()) {  // fetches are copied out to the CPU
      dst = src.to(Device{});
    } else if (dst.defined() && dst.shape() == src.shape() && dst.dtype() == src.dtype() && dst.use_count() == 1) {
      std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
    } else {
      dst = src.clone();
    }
  }
}

// Shapes are re-inferred only when the fed shapes changed (the batch may vary).
void ExecutionState::infer_if_changed(std::size_t s) {
  KernelContext& ctx = contexts_[s];
  ShapeCache& cache = shapes_[s];
  bool same = cache.valid;
  for (std::size_t i = 0; same && i < ctx.inputs.size(); ++i) {
    same = ctx.inputs[i]->shape() == cache.inputs[i].shape && ctx.inputs[i]->dtype() == cache.inputs[i].dtype;
  }
  if (same) return;
  cache.inputs.clear();
  for (const Tensor* t : ctx.inputs) cache.inputs.push_back({t->shape(), t->dtype()});
  const Node& node = ctx.node;
  cache.outputs = node.def->infer(InferContext{node.op, cache.inputs, node.attrs});
  cache.valid = true;
}

// Sets a step's run options and shapes its outputs for the fed shapes.
void ExecutionState::prepare(std::size_t s, const RunOptions& options) {
  KernelContext& ctx = contexts_[s];
  ctx.training = options.training;
  ctx.step = options.step;
  ctx.sample_offset = options.sample_offset;
  ctx.global_batch = options.global_batch;
  ctx.collective = options.collective;
  infer_if_changed(s);
  const auto& outputs = shapes_[s].outputs;
  for (std::size_t o = 0; o < ctx.outputs.size(); ++o) {
    ctx.outputs[o]->reset(outputs[o].shape, outputs[o].dtype, program_.device_);
  }
}

void ExecutionState::run(const std::vector<Tensor>& feeds, std::vector<Tensor>& results,
                         const RunOptions& options) {
  // Feeds from another device are copied in: the one place data crosses devices.
  // (Assigned, not built from a conditional: assigning reuses the slot's shape storage.)
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i].is_on(program_.device_)) {
      feed_slots_[i] = feeds[i];
    } else {
      feed_slots_[i] = feeds[i].to(program_.device_);
    }
  }
  results.resize(program_.fetch_values_.size());

  // A fetched variable shows the value the step read: it is copied out before the first
  // update runs. Computed fetches live in buffers no later step reuses or writes.
  bool variables_copied = false;
  std::size_t ran_with_previous = contexts_.size();  // a step its pair already ran
  for (std::size_t s = 0; s < contexts_.size(); ++s) {
    KernelContext& ctx = contexts_[s];
    const Node& node = ctx.node;
    if (node.def->stateful && !variables_copied) {
      finish_device_work();
      copy_fetches(true, results);
      variables_copied = true;
    }
    if (node.def->fed || s == ran_with_previous) continue;
    prepare(s, options);
    const Program::Step& step = program_.steps_[s];
    if (step.pair_kernel) {
      const auto second = static_cast<std::size_t>(step.paired_with);
      prepare(second, options);
      if ((*step.pair_kernel)(ctx, contexts_[second])) {
        ++executions_[static_cast<std::size_t>(node.id)];
        ++executions_[static_cast<std::size_t>(contexts_[second].node.id)];
        ran_with_previous = second;
        continue;
      }
    }
    (*step.kernel)(ctx);
    ++executions_[static_cast<std::size_t>(node.id)];
  }
  finish_device_work();
  if (!variables_copied) copy_fetches(true, results);
  copy_fetches(false, results);
  release_feeds();
}

}  // namespace strata
