#include "models/compiled_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/inference_rewrite.h"
#include "core/ops.h"
#include "core/samples_apart.h"
#include "distribution/gradient_buckets.h"
#include "layers/core/input_layer.h"
#include "models/data_parallel_step.h"
#include "models/model.h"
#include "models/samples_apart.h"

namespace strata {

namespace {

// `shape` fits `spec` in every dimension but the batch (checked on every call: without
// building a shape).
bool compatible_but_for_batch(const Shape& shape, const Shape& spec) {
  const auto& a = shape.dims();
  const auto& b = spec.dims();
  if (a.size() != b.size()) return false;
  for (std::size_t i = 1; i < a.size(); ++i) {
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) return false;
  }
  return true;
}

template <typename From, typename To>
void cast_values(const Tensor& in, Tensor& out) {
  const From* src = in.data<From>();
  To* dst = out.data<To>();
  for (std::int64_t i = 0; i < in.size(); ++i) dst[i] = static_cast<To>(src[i]);
}

template <typename To>
void cast_to(const Tensor& in, Tensor& out) {
  switch (in.dtype()) {
    case DType::float32: cast_values<float, To>(in, out); break;
    case DType::int32: cast_values<std::int32_t, To>(in, out); break;
    case DType::int64: cast_values<std::int64_t, To>(in, out); break;
    case DType::string: break;  // refused by cast_targets
  }
}

// Converts targets to the dtype the loss expects. Float class labels must be whole
// numbers: 1.7 is an error, never silently class 1.
Tensor cast_targets(const Tensor& t, DType dtype, const std::string& output) {
  if (t.dtype() == dtype) return t;
  if (t.dtype() == DType::string || dtype == DType::string) {
    throw ValueError("target for output '" + output + "': expected " + to_string(dtype) + " targets, got " +
                     to_string(t.dtype()) + " (map string labels to numbers first, e.g. with StringLookup)");
  }
  if (t.dtype() == DType::float32 && dtype != DType::float32) {
    const float* p = t.data<float>();
    for (std::int64_t i = 0; i < t.size(); ++i) {
      if (p[i] != std::floor(p[i])) {
        throw ValueError("target for output '" + output + "': label " + std::to_string(p[i]) + " at index " +
                         std::to_string(i) + " is not a class index (sparse labels must be whole numbers)");
      }
    }
  }
  Tensor out(t.shape(), dtype);
  switch (dtype) {
    case DType::float32: cast_to<float>(t, out); break;
    case DType::int32: cast_to<std::int32_t>(t, out); break;
    case DType::int64: cast_to<std::int64_t>(t, out); break;
    case DType::string: break;  // refused above
  }
  return out;
}

// Sparse labels index the prediction's classes. Checked here, on the host, before a step
// reads them (fit conforms whole arrays before its first step, a dataset batch by batch):
// fit refuses a bad label before it trains on the batches ahead of it, and on a GPU, whose
// kernels cannot throw (they write NaN), the label is still named. `labels`
// holds int64 (cast_targets made them so).
void check_class_indices(const Tensor& labels, std::int64_t classes, const std::string& output) {
  if (labels.dtype() != DType::int64 || !labels.on_cpu()) return;  // the kernels check what this cannot read
  const std::int64_t* p = labels.data<std::int64_t>();
  for (std::int64_t i = 0; i < labels.size(); ++i) {
    if (p[i] < 0 || p[i] >= classes) {
      throw ValueError("target for output '" + output + "': label " + std::to_string(p[i]) + " at index " +
                       std::to_string(i) + " is out of range [0, " + std::to_string(classes) + "): the output has " +
                       std::to_string(classes) + " classes");
    }
  }
}

// Keras creates a model's variables on the device the model runs on; here compiling puts
// them there once its Programs are made (a Program's run refuses a variable elsewhere).
// Recompiling for another device moves them again. Placement that fails part way (out of
// device memory) moves back what it moved: the model's previous compilation reads them.
void place_variables(const Graph& graph, const Device& device) {
  std::vector<std::pair<Variable, Device>> moved;
  try {
    for (int id = 0; id < graph.num_nodes(); ++id) {
      Variable variable = graph.node(id).variable;
      if (!variable.defined() || variable.value().is_on(device)) continue;
      const Device from = variable.value().device();
      variable.place_on(device);
      moved.emplace_back(variable, from);
    }
  } catch (...) {
    for (auto& [variable, from] : moved) {
      try {
        variable.place_on(from);
      } catch (...) {  // the first error is the one to report
      }
    }
    throw;
  }
}

// The named device, else under a DataParallel of several processes this process's share
// of the machine's GPUs, else the process's default (the first GPU, else the CPU).
Device compile_device(const CompileOptions* options) {
  if (options && !options->device.empty()) return parse_device(options->device);
  if (options) {
    if (auto strategy = distribution::distribution(); strategy && strategy->num_processes() > 1) {
      return strategy->default_device();
    }
  }
  return default_device();
}

}  // namespace

CompiledModel::CompiledModel(ModelImpl& model, const CompileOptions* options)
    : graph_(std::make_unique<Graph>()),
      device_(compile_device(options)) {
  for (const auto& in : model.inputs) {
    const auto& input_layer = static_cast<const InputLayerImpl&>(in.call()->layer.impl());
    x_specs_.push_back(in.spec());
    input_names_.push_back(input_layer.name);
    x_inputs_.push_back(graph_->placeholder(in.spec(), input_layer.name));
  }
  outputs_ = model.call(*graph_, x_inputs_);
  for (const auto& out : model.outputs) output_names_.push_back(out.call()->layer.name());
  // A sample at a time needs inputs of any batch size (not an Input's fixed batch_size).
  samples_apart_ = device_.type == DeviceType::cpu && predicts_samples_apart(model) &&
                   std::all_of(x_specs_.begin(), x_specs_.end(), [](const TensorSpec& s) {
                     return s.shape.rank() > 0 && s.shape.dims()[0] == kUnknownDim;
                   });
  if (!options) {
    const InferenceFetches inference = rewrite_inference_fetches({outputs_});
    predict_ = std::make_unique<Program>(*graph_, x_inputs_, inference.fetches[0], inference.updates, device_);
    place_variables(*graph_, device_);
    return;
  }

  distribution_ = distribution::distribution();
  if (distribution_ && distribution_->num_processes() > 1) {
    refuse_layers_without_data_parallelism(model, distribution_->num_processes());
    communicator_ = &distribution_->communicator();
    communicator_->choose_gradient_transport(device_);  // NCCL or host memory, as every process
  }

  // Losses: one per output (a single loss applies to every output).
  std::vector<losses::Loss> losses = options->loss.losses();
  if (losses.empty()) throw ValueError("compile: a loss is required to train (pass .loss = ...)");
  if (losses.size() == 1) losses.resize(outputs_.size(), losses[0]);
  if (losses.size() != outputs_.size()) {
    throw ValueError("compile: the model has " + std::to_string(outputs_.size()) + " outputs but " +
                     std::to_string(losses.size()) + " losses were given");
  }
  std::vector<float> weights = options->loss_weights;
  if (weights.empty()) weights.assign(outputs_.size(), 1.0f);
  if (weights.size() != outputs_.size()) {
    throw ValueError("compile: loss_weights has " + std::to_string(weights.size()) + " entries for " +
                     std::to_string(outputs_.size()) + " outputs");
  }

  // Two sets of loss and metric nodes: unweighted, and weighted by a fed per-sample
  // weight. Each Program runs only the set it fetches.
  sample_weight_input_ = graph_->placeholder({Shape{kUnknownDim}, DType::float32}, "sample_weight");
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    TensorSpec spec = losses[k].target_spec(outputs_[k].spec());
    y_specs_.push_back(spec);
    const Shape& predicted = outputs_[k].spec().shape;
    sparse_classes_.push_back(losses[k].sparse_targets() && predicted.rank() > 0 ? predicted.dims().back() : -1);
    y_inputs_.push_back(graph_->placeholder(spec, output_names_[k] + "_target"));
  }
  // The trainable weights, and the penalties of their regularizers (Keras's model.losses
  // holds one per trainable weight with a regularizer, whichever layer made it).
  std::vector<Variable> trainable;
  if (model.trainable) {
    for (const auto& layer : model.sublayers()) {
      for (const auto& v : layer.trainable_weights()) trainable.push_back(v);
    }
  }
  std::vector<WeightRule> rules;
  for (const auto& layer : model.sublayers()) {
    for (const auto& rule : layer.weight_rules()) {
      const bool is_trainable = std::any_of(trainable.begin(), trainable.end(),
                                            [&](const Variable& v) { return v.id() == rule.variable.id(); });
      const bool seen = std::any_of(rules.begin(), rules.end(),
                                    [&](const WeightRule& r) { return r.variable.id() == rule.variable.id(); });
      if (is_trainable && !seen) rules.push_back(rule);
    }
  }
  std::vector<Output> weight_penalties;
  for (const auto& rule : rules) {
    if (rule.regularizer.defined()) weight_penalties.push_back(rule.regularizer(graph_->variable(rule.variable)));
  }
  struct Built {
    std::vector<Output> fetches;
    Output total;
  };
  auto build_losses = [&](Output sample_weight) {
    Built b;
    std::vector<Output> output_losses;
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      Output loss = losses[k](y_inputs_[k], outputs_[k], sample_weight);
      output_losses.push_back(loss);
      Output weighted = weights[k] == 1.0f ? loss : ops::mul(loss, weights[k]);
      b.total = b.total.valid() ? ops::add(b.total, weighted) : weighted;
    }
    // The layers' own losses (Keras's model.losses), unweighted by samples, as Keras adds them.
    for (const Output& layer_loss : graph_->losses()) b.total = ops::add(b.total, layer_loss);
    for (const Output& penalty : weight_penalties) b.total = ops::add(b.total, penalty);
    b.fetches.push_back(b.total);
    if (outputs_.size() > 1) b.fetches.insert(b.fetches.end(), output_losses.begin(), output_losses.end());
    return b;
  };
  Built plain = build_losses({});
  Built weighted = build_losses(sample_weight_input_);
  loss_names_.push_back("loss");
  if (outputs_.size() > 1) {
    for (std::size_t k = 0; k < outputs_.size(); ++k) loss_names_.push_back(output_names_[k] + "_loss");
  }
  loss_trackers_.resize(loss_names_.size());

  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    for (int pass = 0; pass < 2; ++pass) {
      const bool weighted_metric = pass == 1;
      for (const auto& id : weighted_metric ? options->weighted_metrics : options->metrics) {
        metrics::Metric metric = metrics::get(id, y_specs_[k].shape, outputs_[k].shape());
        if (weighted_metric && std::count(options->metrics.begin(), options->metrics.end(), id)) {
          metric.impl().name = "weighted_" + metric.name();  // as Keras names the second copy
        }
        if (outputs_.size() > 1) metric.impl().name = output_names_[k] + "_" + metric.name();
        auto stats = metric.build(y_inputs_[k], outputs_[k]);
        auto stats_w = weighted_metric ? metric.build(y_inputs_[k], outputs_[k], sample_weight_input_) : stats;
        plain.fetches.insert(plain.fetches.end(), stats.begin(), stats.end());
        weighted.fetches.insert(weighted.fetches.end(), stats_w.begin(), stats_w.end());
        metric_fetch_counts_.push_back(stats.size());
        metrics_.push_back(metric);
      }
    }
  }
  std::vector<Output> fetches = plain.fetches;
  Output total = plain.total;

  // Gradients of the total loss for every trainable weight, then the optimizer's updates.
  optimizer_ = options->optimizer.resolve();
  std::vector<Output> variable_nodes;
  for (const auto& v : trainable) variable_nodes.push_back(graph_->variable(v));
  // The step's targets: the optimizer's updates and the layers' own state updates
  // (moving statistics, carried RNN states). A Program runs stateful nodes in graph
  // order after every read, so the order of this list doesn't matter.
  std::vector<char> has_gradient(trainable.size(), 0);
  auto optimizer_updates = [&](Output loss) {
    std::vector<Output> grads = gradients(optimizer_.scale_loss(*graph_, loss), variable_nodes);
    for (std::size_t i = 0; i < grads.size(); ++i) has_gradient[i] = has_gradient[i] || grads[i].valid();
    // Data-parallel: every process applies the same update, from the gradient of the
    // global batch's mean loss (distribution/gradient_buckets.h).
    if (communicator_) {
      grads = distribution::all_reduce_gradients(x_inputs_.front(), grads, distribution_->options().bucket_bytes);
    }
    std::vector<std::pair<Variable, Output>> grads_and_vars;
    for (std::size_t i = 0; i < trainable.size(); ++i) {
      if (grads[i].valid()) grads_and_vars.emplace_back(trainable[i], grads[i]);
    }
    std::vector<Output> updates = optimizer_.apply_gradients(*graph_, grads_and_vars);
    std::vector<Output> layer_updates = graph_->updates(true);
    updates.insert(updates.end(), layer_updates.begin(), layer_updates.end());
    return updates;
  };
  std::vector<Output> updates = optimizer_updates(total);
  std::vector<Output> updates_weighted = optimizer_updates(weighted.total);
  // Keras's optimizer assigns constraint(w) to each constrained weight with a gradient
  // after the step's updates. A step's stateful nodes run after all of its reads, so the
  // constraints read the updated weights in a Program of their own, run after each step.
  std::vector<Output> constraint_updates;
  for (const auto& rule : rules) {
    if (!rule.constraint.defined()) continue;
    const auto at = std::find_if(trainable.begin(), trainable.end(),
                                 [&](const Variable& v) { return v.id() == rule.variable.id(); });
    if (!has_gradient[static_cast<std::size_t>(at - trainable.begin())]) continue;
    const Output w = graph_->variable(rule.variable);
    constraint_updates.push_back(ops::assign(w, rule.constraint(w)));
  }

  std::vector<Output> feeds = x_inputs_;
  feeds.insert(feeds.end(), y_inputs_.begin(), y_inputs_.end());
  std::vector<Output> feeds_weighted = feeds;
  feeds_weighted.push_back(sample_weight_input_);
  // The inference programs' fetches rewritten (core/inference_rewrite.h); the training
  // programs' never are. Every node exists now: the Programs are compiled last
  // (compiling finalizes the graph).
  const InferenceFetches inference = rewrite_inference_fetches({outputs_, fetches, weighted.fetches});
  predict_ = std::make_unique<Program>(*graph_, x_inputs_, inference.fetches[0], inference.updates, device_);
  test_ = std::make_unique<Program>(*graph_, feeds, inference.fetches[1], inference.updates, device_);
  train_ = std::make_unique<Program>(*graph_, feeds, fetches, updates, device_);
  test_weighted_ =
      std::make_unique<Program>(*graph_, feeds_weighted, inference.fetches[2], inference.updates, device_);
  train_weighted_ = std::make_unique<Program>(*graph_, feeds_weighted, weighted.fetches, updates_weighted, device_);
  if (!constraint_updates.empty()) {
    constrain_ = std::make_unique<Program>(*graph_, std::vector<Output>{}, std::vector<Output>{}, constraint_updates,
                                           device_);
  }
  place_variables(*graph_, device_);
}

// Every set of fetches and the updates of inference mode, rewritten together (what they
// share is rewritten once).
CompiledModel::InferenceFetches CompiledModel::rewrite_inference_fetches(
    const std::vector<std::vector<Output>>& fetch_sets) {
  std::vector<Output> roots;
  for (const auto& set : fetch_sets) roots.insert(roots.end(), set.begin(), set.end());
  const std::vector<Output> updates = graph_->updates(false);
  roots.insert(roots.end(), updates.begin(), updates.end());
  const std::vector<Output> rewritten = rewrite_for_inference(
      *graph_, roots, &inference_rewrites_, {.cpu_program = device_.type == DeviceType::cpu});
  InferenceFetches out;
  auto next = rewritten.begin();
  for (const auto& set : fetch_sets) {
    out.fetches.emplace_back(next, next + static_cast<std::ptrdiff_t>(set.size()));
    next += static_cast<std::ptrdiff_t>(set.size());
  }
  out.updates.assign(next, rewritten.end());
  return out;
}

void CompiledModel::check_inputs(const std::vector<Tensor>& x) const {
  if (x.size() != x_specs_.size()) {
    throw ValueError("the model expects " + std::to_string(x_specs_.size()) + " input arrays, got " +
                     std::to_string(x.size()));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i].dtype() != x_specs_[i].dtype) {
      throw ValueError("input '" + input_names_[i] + "' expects dtype " + to_string(x_specs_[i].dtype) + ", got " +
                       to_string(x[i].dtype()));
    }
    if (!compatible_but_for_batch(x[i].shape(), x_specs_[i].shape)) {
      throw ShapeError("input '" + input_names_[i] + "' expects shape " + x_specs_[i].shape.to_string() +
                       ", got " + x[i].shape().to_string());
    }
  }
}

std::vector<Tensor> CompiledModel::conform_targets(const std::vector<Tensor>& y) const {
  if (!trainable()) throw Error("the model must be compiled (model.compile) before it is given targets");
  if (y.size() != y_specs_.size()) {
    throw ValueError("the model has " + std::to_string(y_specs_.size()) + " outputs, got " + std::to_string(y.size()) +
                     " target arrays");
  }
  std::vector<Tensor> out;
  for (std::size_t k = 0; k < y.size(); ++k) {
    const TensorSpec& spec = y_specs_[k];
    Tensor t = cast_targets(y[k], spec.dtype, output_names_[k]);
    // Keras accepts sparse labels shaped (N, 1) and binary targets shaped (N,).
    if (t.rank() == spec.shape.rank() + 1 && t.shape().dims().back() == 1) {
      auto d = t.shape().dims();
      d.pop_back();
      t = t.reshaped(Shape(d));
    } else if (t.rank() + 1 == spec.shape.rank() && spec.shape.dims().back() == 1) {
      auto d = t.shape().dims();
      d.push_back(1);
      t = t.reshaped(Shape(d));
    }
    if (!t.shape().is_compatible_with(spec.shape.with_dim(0, kUnknownDim))) {
      throw ShapeError("target for output '" + output_names_[k] + "' expects shape " + spec.shape.to_string() +
                       ", got " + y[k].shape().to_string());
    }
    if (sparse_classes_[k] >= 0) check_class_indices(t, sparse_classes_[k], output_names_[k]);
    out.push_back(t);
  }
  return out;
}

std::vector<Tensor> CompiledModel::predict_step(const std::vector<Tensor>& x) {
  if (splits_samples(x)) return run_samples_apart(*predict_, x);
  return predict_->run(x);
}

void CompiledModel::predict_step_into(const std::vector<Tensor>& x, std::vector<Tensor>& results) {
  if (splits_samples(x)) {
    results = run_samples_apart(*predict_, x);
    return;
  }
  predict_->run_into(x, results);
}

bool CompiledModel::splits_samples(const std::vector<Tensor>& x) const {
  return samples_apart_ && can_run_samples_apart(*predict_, x);
}

// Steps reuse the member feed and fetch vectors: a steady-state step allocates nothing.
const std::vector<Tensor>& CompiledModel::gather_feeds(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                                       const Tensor& sample_weight) {
  step_feeds_.resize(x.size() + y.size() + (sample_weight.defined() ? 1 : 0));
  std::size_t i = 0;
  for (const auto& t : x) step_feeds_[i++] = t;
  for (const auto& t : y) step_feeds_[i++] = t;
  if (sample_weight.defined()) step_feeds_[i] = sample_weight;
  return step_feeds_;
}

void CompiledModel::train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                               const Tensor& sample_weight, const BatchShard& shard) {
  if (y.empty()) throw ValueError("fit needs targets: the data has inputs only");
  optimizer_.impl().update_learning_rate();  // a schedule sets the rate variable
  Program& program = sample_weight.defined() ? *train_weighted_ : *train_;
  program.run_into(gather_feeds(x, y, sample_weight), step_fetches_,
                   {.training = true, .step = train_steps_, .sample_offset = shard.offset,
                    .global_batch = shard.global, .collective = communicator_});
  for (auto& t : step_feeds_) t.release();  // the caller reuses its batch buffers
  if (constrain_) constrain_->run_into({}, constraint_fetches_);
  ++train_steps_;
  std::int64_t batch_size = x.front().shape()[0];
  if (communicator_) all_reduce_logs(step_fetches_, batch_size);
  update_logs(step_fetches_, batch_size);
}

void CompiledModel::test_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                              const Tensor& sample_weight, const BatchShard& shard) {
  if (y.empty()) throw ValueError("evaluate needs targets: the data has inputs only");
  Program& program = sample_weight.defined() ? *test_weighted_ : *test_;
  program.run_into(gather_feeds(x, y, sample_weight), step_fetches_,
                   {.sample_offset = shard.offset, .global_batch = shard.global});
  for (auto& t : step_feeds_) t.release();
  std::int64_t batch_size = x.front().shape()[0];
  if (communicator_) all_reduce_logs(step_fetches_, batch_size);
  update_logs(step_fetches_, batch_size);
}

// The losses are means over this process's samples: summed as mean * count, with the
// count, they give the global batch's mean. Metric statistics are sums (counts, totals,
// confusion cells): they add up.
void CompiledModel::all_reduce_logs(std::vector<Tensor>& fetched, std::int64_t& batch_size) {
  const std::size_t losses = loss_trackers_.size();
  reduce_buffer_.clear();
  for (std::size_t i = 0; i < losses; ++i) {
    reduce_buffer_.push_back(batch_size > 0 ? static_cast<double>(fetched[i].item()) * static_cast<double>(batch_size)
                                            : 0.0);
  }
  reduce_buffer_.push_back(static_cast<double>(batch_size));
  for (std::size_t i = losses; i < fetched.size(); ++i) append_statistic(fetched[i], reduce_buffer_);
  communicator_->all_reduce_sum(reduce_buffer_.data(), static_cast<std::int64_t>(reduce_buffer_.size()));
  const double global = reduce_buffer_[losses];
  for (std::size_t i = 0; i < losses; ++i) {
    fetched[i].data<float>()[0] = global > 0 ? static_cast<float>(reduce_buffer_[i] / global) : 0.f;
  }
  const double* from = reduce_buffer_.data() + losses + 1;
  for (std::size_t i = losses; i < fetched.size(); ++i) from = assign_statistic(fetched[i], from);
  batch_size = static_cast<std::int64_t>(global);
}

Sharder CompiledModel::sharder() const {
  if (!communicator_) return {};
  return [this](std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) {
    return shard_batch(*communicator_, auto_shard(), x, y, w);
  };
}

void CompiledModel::broadcast_variables(const std::vector<Variable>& variables) const {
  if (communicator_) strata::broadcast_variables(*communicator_, variables);
}

void CompiledModel::update_logs(const std::vector<Tensor>& fetched, std::int64_t batch_size) {
  std::size_t pos = 0;
  for (auto& tracker : loss_trackers_) tracker.update(fetched[pos++].item(), static_cast<double>(batch_size));
  metric_stats_.resize(metrics_.size());
  for (std::size_t m = 0; m < metrics_.size(); ++m) {
    std::vector<Tensor>& stats = metric_stats_[m];
    stats.resize(metric_fetch_counts_[m]);
    for (std::size_t k = 0; k < stats.size(); ++k) stats[k] = fetched[pos + k];
    metrics_[m].update(stats);
    for (auto& t : stats) t.release();  // the fetch buffers must stay unshared for reuse
    pos += metric_fetch_counts_[m];
  }
}

void CompiledModel::reset_metrics() {
  for (auto& t : loss_trackers_) t.reset();
  for (auto& m : metrics_) m.reset();
}

std::map<std::string, float> CompiledModel::results() const {
  std::map<std::string, float> logs;
  for (std::size_t i = 0; i < loss_names_.size(); ++i) logs[loss_names_[i]] = loss_trackers_[i].result();
  for (const auto& m : metrics_) logs[m.name()] = m.result();
  return logs;
}

void CompiledModel::results_into(std::map<std::string, float>& logs) const {
  if (logs.size() == loss_names_.size() + metrics_.size()) {
    bool same_keys = true;
    for (std::size_t i = 0; i < loss_names_.size() && same_keys; ++i) {
      auto it = logs.find(loss_names_[i]);
      if (it == logs.end()) same_keys = false;
      else it->second = loss_trackers_[i].result();
    }
    for (std::size_t m = 0; m < metrics_.size() && same_keys; ++m) {
      auto it = logs.find(metrics_[m].name());
      if (it == logs.end()) same_keys = false;
      else it->second = metrics_[m].result();
    }
    if (same_keys) return;
  }
  logs = results();
}

}  // namespace strata
