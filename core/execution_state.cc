#include "core/execution_state.h"

#include <cstring>
#include <iostream>

#include "core/device.h"
#include "core/device_backend.h"
#include "core/error.h"
#include "core/program.h"
#include "core/sized_outputs.h"

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
    ctx.outputs_read = &step.outputs_read;
    contexts_.push_back(std::move(ctx));
  }
  if (program.device_.type != DeviceType::cpu) {
    DeviceBackend* backend = device_backend(program.device_.type);
    if (!backend) throw Error("this build of Strata cannot run on " + to_string(program.device_));
    device_run_ = backend->new_run(program.device_.index);
    for (KernelContext& ctx : contexts_) ctx.device_run = device_run_.get();
    device_feeds_.resize(program.feeds_.size());
    if (const std::string reason = plan_graph_refusal(); !reason.empty()) refuse_graphs(reason);
  }
}

// What a CUDA graph cannot replay faithfully, found in the plan.
std::string ExecutionState::plan_graph_refusal() const {
  if (program_.writes_variables_) {
    for (int value : program_.fetch_values_) {
      const int variable = program_.values_[static_cast<std::size_t>(value)].variable;
      if (variable < 0) continue;
      // Eager runs copy such a fetch out mid-run, before the first update; a graph runs
      // the updates without stopping.
      return "it fetches variable '" + program_.graph_.node(variable).name +
             "', which its updates write (the fetch is copied out before the first update)";
    }
  }
  for (const Program::Step& step : program_.steps_) {
    if (step.run_if < 0) continue;
    // A graph replays every update it recorded; whether one runs is decided on the host.
    return "its update '" + program_.graph_.node(step.node).name +
           "' runs only where a condition computed in the step holds (a RunIfScope)";
  }
  for (const KernelContext& ctx : contexts_) {
    const Node& node = ctx.node;
    const DeviceKernel* kernel = node.def->on(program_.device_.type);
    if (!kernel || !kernel->graph_refusal) continue;
    if (std::string why = kernel->graph_refusal(node); !why.empty()) {
      return "op '" + node.op + "' (node '" + node.name + "') " + why;
    }
  }
  return {};
}

void ExecutionState::refuse_graphs(const std::string& reason) {
  graph_.reset();
  graph_policy_.refuse(reason);
  report_graph_refusal();
}

// A state refused while graphs are off is counted at its first run with them on: until
// then it refused nothing anyone asked for.
void ExecutionState::report_graph_refusal() {
  if (!cuda_graphs_enabled() || !graph_policy_.report_refusal()) return;
  count_cuda_graph_refusal();
  if (log_device_placement()) {
    std::cerr << "CUDA graphs off for an execution state on " << to_string(program_.device_) << ": "
              << graph_policy_.refusal() << "; its runs launch their kernels one by one\n";
  }
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
  if (device_run_) device_run_->synchronize();
}

bool ExecutionState::condition_holds(int value) {
  for (const auto& [seen, holds] : conditions_) {
    if (seen == value) return holds;
  }
  const Tensor* condition = resolve(value);
  bool holds = false;
  if (condition->is_on(Device{})) {
    holds = condition->item() != 0.f;
  } else {
    finish_device_work();  // computed by this run's kernels, maybe still in flight
    holds = condition->to(Device{}).item() != 0.f;
  }
  conditions_.emplace_back(value, holds);
  return holds;
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
    const Shape& shape = outputs[o].shape;
    if (shape.is_fully_defined()) {
      ctx.outputs[o]->reset(shape, outputs[o].dtype, program_.device_);
      continue;
    }
    // A size that depends on the data (text_vectorize's rows padded to a batch's longest)
    // is None even for fed shapes: the output starts empty there and its kernel sizes it;
    // the steps after it infer their shapes from what it wrote. Only a node that says its
    // kernels do so (kSizesOutputsAttr) may: any other would write into an empty buffer.
    if (!ctx.node.attrs.get_or<bool>(kSizesOutputsAttr, false)) {
      throw ShapeError(ctx.node.op + " ('" + ctx.node.name + "'): output " + std::to_string(o) + " inferred as " +
                       shape.to_string() + " for the fed shapes, which its kernels do not size");
    }
    std::vector<std::int64_t> dims = shape.dims();
    for (auto& d : dims) d = d == kUnknownDim ? 0 : d;
    ctx.outputs[o]->reset(Shape(dims), outputs[o].dtype, program_.device_);
  }
}

void ExecutionState::run(const std::vector<Tensor>& feeds, std::vector<Tensor>& results,
                         const RunOptions& options) {
  if (device_run_) return run_on_device(feeds, results, options);
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
  const bool variables_copied = run_steps(options, results, false);
  if (!variables_copied) copy_fetches(true, results);
  copy_fetches(false, results);
  release_feeds();
}

void ExecutionState::count_execution(int node_id, bool capturing) {
  if (capturing) {
    graph_nodes_.push_back(node_id);
  } else {
    ++executions_[static_cast<std::size_t>(node_id)];
  }
}

bool ExecutionState::invariants_current() const {
  const std::vector<int>& sources = program_.invariant_sources_;
  if (!invariants_ran_) return false;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const Program::Value& v = program_.values_[static_cast<std::size_t>(sources[i])];
    if (program_.graph_.node(v.variable).variable.value().version() != invariant_versions_[i]) return false;
  }
  return true;
}

bool ExecutionState::run_steps(const RunOptions& options, std::vector<Tensor>& results, bool capturing) {
  // A fetched variable shows the value the step read: it is copied out before the first
  // update runs. Computed fetches live in buffers no later step reuses or writes. A
  // captured run never stops there (a Program that fetches a variable it updates is not
  // captured, nor one whose kernels report bad input at that stop).
  bool variables_copied = false;
  std::size_t ran_with_previous = contexts_.size();  // a step its pair already ran
  // The invariant steps run when a variable they read changed since they last ran (and
  // always in a capture, which must record every step); the versions are noted before
  // they run, and kept only once the run has ended.
  const bool skip_invariants = !capturing && invariants_current();
  if (!skip_invariants && !capturing) {
    invariants_ran_ = false;
    invariant_versions_.clear();
    for (int value : program_.invariant_sources_) {
      const Program::Value& v = program_.values_[static_cast<std::size_t>(value)];
      invariant_versions_.push_back(program_.graph_.node(v.variable).variable.value().version());
    }
  }
  conditions_.clear();
  for (std::size_t s = 0; s < contexts_.size(); ++s) {
    KernelContext& ctx = contexts_[s];
    const Node& node = ctx.node;
    if (node.def->stateful && !variables_copied && !capturing) {
      finish_device_work();
      copy_fetches(true, results);
      variables_copied = true;
    }
    if (node.def->fed || s == ran_with_previous) continue;
    const Program::Step& step = program_.steps_[s];
    if (skip_invariants && step.invariant) continue;
    if (step.run_if >= 0 && !condition_holds(step.run_if)) continue;
    prepare(s, options);
    if (step.pair_kernel) {
      const auto second = static_cast<std::size_t>(step.paired_with);
      prepare(second, options);
      if ((*step.pair_kernel)(ctx, contexts_[second])) {
        count_execution(node.id, capturing);
        count_execution(contexts_[second].node.id, capturing);
        ran_with_previous = second;
        continue;
      }
    }
    (*step.kernel)(ctx);
    count_execution(node.id, capturing);
  }
  if (!capturing) finish_device_work();  // a capture only records: run_on_device launches, then waits
  if (!capturing) invariants_ran_ = true;
  return variables_copied;
}

// Fed tensors from the host (or another device) are copied on the state's stream into
// buffers the state keeps: their addresses hold while the shapes do (Tensor::reset only
// grows), so a captured graph can read them, and a steady-state step allocates nothing
// for its feeds. A tensor on the Program's device is read in place, as before (no copy
// of a large operand); a graph records its address and is dropped if the next run feeds
// another.
void ExecutionState::copy_feeds_in(const std::vector<Tensor>& feeds) {
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    const Tensor& feed = feeds[i];
    if (feed.is_on(program_.device_)) {
      feed_slots_[i] = feed;
      continue;
    }
    if (feed.dtype() == DType::string) {  // no device holds strings: Tensor::to says so
      feed_slots_[i] = feed.to(program_.device_);
      continue;
    }
    Tensor& buffer = device_feeds_[i];
    feed_slots_[i].release();  // the buffer is not shared, so reset keeps its storage
    buffer.reset(feed.shape(), feed.dtype(), program_.device_);
    if (feed.nbytes() > 0) {
      const bool from_device = !feed.on_cpu();
      device_run_->copy_in(buffer.device_data(), from_device ? feed.device_data() : feed.raw_data(),
                           feed.nbytes(), from_device);
    }
    feed_slots_[i] = buffer;
  }
}

// The addresses a replay reads that this state's runs do not keep fixed by themselves:
// the fed tensors' (the caller's own when on the device; else this state's buffers) and
// the variables' storage (Variable::place_on replaces it).
void ExecutionState::note_graph_addresses() {
  graph_addresses_.clear();
  for (const Tensor& slot : feed_slots_) graph_addresses_.push_back(slot.device_data());
  for (int id : program_.variable_nodes_) {
    // Read through const: the non-const accessor would count a write (Tensor::version).
    const Tensor& value = program_.graph_.node(id).variable.value();
    graph_addresses_.push_back(value.device_data());
  }
}

void ExecutionState::run_on_device(const std::vector<Tensor>& feeds, std::vector<Tensor>& results,
                                const RunOptions& options) {
  copy_feeds_in(feeds);
  results.resize(program_.fetch_values_.size());
  GraphRunMode mode = GraphRunMode::eager;
  if (cuda_graphs_enabled() && options.collective == nullptr) {
    report_graph_refusal();
    note_graph_addresses();
    mode = graph_policy_.decide(feeds, options.training, graph_addresses_);
  } else {
    graph_policy_.drop_graph();  // switched off (or a collective run): warm up again after
  }
  if (mode != GraphRunMode::replay) graph_.reset();
  if (mode == GraphRunMode::capture && !capture_graph(options, results)) mode = GraphRunMode::eager;

  bool variables_copied = false;
  if (mode == GraphRunMode::eager) {
    const std::int64_t armed = device_run_->checking_launches();
    variables_copied = run_steps(options, results, false);
    if (device_run_->checking_launches() != armed && !graph_policy_.refused()) {
      // Such a run stops before its first update to report bad input; a replay cannot.
      refuse_graphs("its kernels check their input on the device (the check stops the run before its updates)");
    }
  } else {
    replay_graph(options);  // also the first run of a graph just captured: capturing ran nothing
    finish_device_work();
  }
  if (!variables_copied) copy_fetches(true, results);
  copy_fetches(false, results);
  release_feeds();
}

bool ExecutionState::capture_graph(const RunOptions& options, std::vector<Tensor>& results) {
  // The step and sample offset the captured kernels read on the device, as the eager
  // kernels would write them.
  device_run_->set_run_scalars(options.step, options.sample_offset);
  const std::int64_t armed = device_run_->checking_launches();
  graph_nodes_.clear();
  try {
    graph_ = device_run_->record([&] {
      run_steps(options, results, true);
      if (device_run_->checking_launches() != armed) {
        throw Error("its kernels check their input on the device (the check stops the run before its updates)");
      }
    });
  } catch (const std::exception& e) {
    // Whatever failed, the capture ran nothing: the run goes eager, now and from now on.
    graph_nodes_.clear();
    refuse_graphs(std::string("capturing its run failed: ") + e.what());
    return false;
  }
  graph_policy_.captured(graph_addresses_);
  count_cuda_graph_event(GraphRunMode::capture);
  return true;
}

void ExecutionState::replay_graph(const RunOptions& options) {
  device_run_->set_run_scalars(options.step, options.sample_offset);
  graph_->launch();
  for (int id : graph_nodes_) ++executions_[static_cast<std::size_t>(id)];
  count_cuda_graph_event(GraphRunMode::replay);
}

}  // namespace strata
