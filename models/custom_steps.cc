#include "models/custom_steps.h"

#include <algorithm>

#include "core/error.h"
#include "distribution/data_parallel.h"
#include "models/data_parallel_step.h"

namespace strata {

// One kind of step compiled for one kind of batch: its graph, a Program per phase (each
// fed the whole batch), the metric updates of each phase and the metrics it logs.
struct CustomSteps::Built {
  std::unique_ptr<Graph> graph;
  std::vector<StepBuilder::Phase> phases;
  std::vector<std::unique_ptr<Program>> programs;  // one per phase
  std::vector<std::vector<Tensor>> fetched;         // per phase, reused
  std::vector<metrics::Metric> logs;                // train / test steps: the returned metrics
  std::vector<optimizers::Optimizer> optimizers;    // the train step's, in first-use order
  std::vector<Output> predictions;                  // predict steps: its outputs
  bool predictions_are_call = false;                // predict steps: they are self(x)
  std::size_t x_count = 0, y_count = 0;
  bool weighted = false;
  std::vector<Tensor> metric_stats;                 // scratch for one metric's update
};

CustomSteps::CustomSteps(CustomModel& model, const Device& device, bool for_fit) : model_(model), device_(device) {
  if (auto strategy = distribution::distribution(); for_fit && strategy && strategy->num_processes() > 1) {
    refuse_layers_without_data_parallelism(model, strategy->num_processes());
    communicator_ = &strategy->communicator();
    communicator_->choose_gradient_transport(device_);  // NCCL or host memory, as every process
    auto_shard_ = strategy->options().auto_shard_dataset;
    bucket_bytes_ = strategy->options().bucket_bytes;
  }
}

CustomSteps::CustomSteps(CustomModel& model, const CustomSteps& before)
    : model_(model),
      device_(before.device_),
      train_steps_(before.train_steps_),
      communicator_(before.communicator_),
      auto_shard_(before.auto_shard_),
      bucket_bytes_(before.bucket_bytes_) {}

CustomSteps::~CustomSteps() = default;

namespace {

// A batch's kind: what the step's placeholders are made from (the batch size aside).
std::string custom_steps_signature(const char* kind, const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                   const Tensor& sample_weight) {
  std::string key = kind;
  auto add = [&key](const char* tag, const Tensor& t) {
    key += std::string("|") + tag + to_string(t.dtype()) + t.shape().without_batch().to_string();
  };
  for (const Tensor& t : x) add("x", t);
  for (const Tensor& t : y) add("y", t);
  if (sample_weight.defined()) add("w", sample_weight);
  return key;
}

TensorSpec custom_steps_spec(const Tensor& t) {
  if (t.rank() == 0) throw ShapeError("a custom step's arrays are batches: got a scalar");
  return {t.shape().with_dim(0, kUnknownDim), t.dtype()};
}

}  // namespace

CustomSteps::Built& CustomSteps::built(Kind kind, const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                       const Tensor& sample_weight) {
  const char* name = kind == Kind::train ? "train" : kind == Kind::test ? "test" : "predict";
  const std::string key = custom_steps_signature(name, x, y, sample_weight);
  auto it = built_.find(key);
  if (it != built_.end()) return *it->second;
  if (x.empty()) throw ValueError("model '" + model_.name + "': a step needs at least one input array");
  // A model with a call of its own, compiled before it was built, is built from its first
  // arrays; compile's metrics then measure its outputs.
  model_.build_from_data(x);
  model_.resolve_compiled_outputs();

  auto step = std::make_unique<Built>();
  step->graph = std::make_unique<Graph>();
  Graph& graph = *step->graph;
  std::vector<Output> xs, ys;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::string input =
        i < model_.inputs.size() ? model_.inputs[i].call()->layer.name() : "x_" + std::to_string(i);
    xs.push_back(graph.placeholder(custom_steps_spec(x[i]), input));
  }
  for (std::size_t k = 0; k < y.size(); ++k) {
    ys.push_back(graph.placeholder(custom_steps_spec(y[k]), "y_" + std::to_string(k)));
  }
  Output w;
  if (sample_weight.defined()) w = graph.placeholder({Shape{kUnknownDim}, DType::float32}, "sample_weight");
  step->x_count = x.size();
  step->y_count = y.size();
  step->weighted = sample_weight.defined();

  const bool training = kind == Kind::train;
  StepBuilder builder(graph, model_, xs, ys, w, training, communicator_ ? bucket_bytes_ : 0);
  if (kind == Kind::predict) {
    step->predictions = model_.predict_step(builder);
    if (step->predictions.empty()) throw ValueError("model '" + model_.name + "': predict_step returned no output");
    step->predictions_are_call = step->predictions == builder.own_call_outputs();
  } else {
    step->logs = kind == Kind::train ? model_.train_step(builder) : model_.test_step(builder);
  }
  step->phases = builder.finish();
  step->optimizers = builder.optimizers();
  if (kind == Kind::predict) step->phases.insert(step->phases.begin(), StepBuilder::Phase{step->predictions, {}, {}});
  if (kind != Kind::train && !step->optimizers.empty()) {
    throw ValueError("model '" + model_.name + "': " + name + "_step applies an optimizer; only train_step may");
  }
  // A logged metric is a handle the step returned: an empty one is a mistake to name.
  for (const metrics::Metric& metric : step->logs) {
    if (!metric.defined()) {
      throw ValueError("model '" + model_.name + "': " + name + "_step returned an undefined metric");
    }
  }
  std::vector<Output> feeds = xs;
  feeds.insert(feeds.end(), ys.begin(), ys.end());
  if (w.valid()) feeds.push_back(w);
  // Programs last: compiling finalizes the graph, and every node exists now.
  for (const StepBuilder::Phase& phase : step->phases) {
    step->programs.push_back(std::make_unique<Program>(graph, feeds, phase.fetches, phase.targets, device_));
  }
  step->fetched.resize(step->programs.size());
  // The variables the programs read and write live where they run (as compile places a
  // model's), the optimizers' slots included.
  for (int id = 0; id < graph.num_nodes(); ++id) {
    Variable variable = graph.node(id).variable;
    if (variable.defined() && !variable.value().is_on(device_)) variable.place_on(device_);
  }
  Built& out = *step;
  if (kind == Kind::train) train_built_.push_back(step.get());
  built_.emplace(key, std::move(step));
  return out;
}

void CustomSteps::run(Built& step, const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                      const Tensor& sample_weight, bool training, const BatchShard& shard) {
  feeds_.clear();
  feeds_.insert(feeds_.end(), x.begin(), x.end());
  feeds_.insert(feeds_.end(), y.begin(), y.end());
  if (sample_weight.defined()) feeds_.push_back(sample_weight);
  for (optimizers::Optimizer& o : step.optimizers) o.impl().update_learning_rate();  // schedules
  for (std::size_t p = 0; p < step.programs.size(); ++p) {
    step.programs[p]->run_into(feeds_, step.fetched[p],
                               {.training = training,
                                .step = train_steps_,
                                .sample_offset = shard.offset,
                                .global_batch = shard.global,
                                .collective = communicator_});
    const StepBuilder::Phase& phase = step.phases[p];
    if (communicator_ && !phase.updates.empty()) all_reduce_metric_statistics(step, p, x.front().shape()[0]);
    for (const StepBuilder::MetricUpdate& update : phase.updates) {
      step.metric_stats.assign(step.fetched[p].begin() + static_cast<std::ptrdiff_t>(update.first),
                               step.fetched[p].begin() + static_cast<std::ptrdiff_t>(update.first + update.count));
      metrics::Metric(update.metric).update(step.metric_stats);
      for (Tensor& t : step.metric_stats) t.release();  // the fetch buffers stay unshared for reuse
    }
  }
  for (Tensor& t : feeds_) t.release();  // the caller reuses its batch buffers
  last_ = &step;
}

// Metric statistics are sums over samples (totals, counts, confusion cells): they add up
// over the processes. A Mean of one value per batch (a loss tracker given each process's
// mean loss) would count each process's value once; weighted by the processes' rows it
// adds the global batch's value once, as one process would (a process without rows adds
// nothing, not 0 times its NaN).
void CustomSteps::all_reduce_metric_statistics(Built& step, std::size_t phase, std::int64_t rows) {
  std::vector<Tensor>& fetched = step.fetched[phase];
  const std::vector<StepBuilder::MetricUpdate>& updates = step.phases[phase].updates;
  reduce_buffer_.assign(1, static_cast<double>(rows));
  for (const StepBuilder::MetricUpdate& update : updates) {
    const std::size_t first = reduce_buffer_.size();
    for (std::size_t i = update.first; i < update.first + update.count; ++i) {
      append_statistic(fetched[i], reduce_buffer_);
    }
    if (!update.batch_value) continue;
    for (std::size_t v = first; v < reduce_buffer_.size(); ++v) {
      reduce_buffer_[v] = rows > 0 ? reduce_buffer_[v] * static_cast<double>(rows) : 0.0;
    }
  }
  communicator_->all_reduce_sum(reduce_buffer_.data(), static_cast<std::int64_t>(reduce_buffer_.size()));
  const double global = reduce_buffer_[0];
  std::size_t pos = 1;
  for (const StepBuilder::MetricUpdate& update : updates) {
    const std::size_t first = pos;
    for (std::size_t i = update.first; i < update.first + update.count; ++i) {
      pos += static_cast<std::size_t>(fetched[i].size());
    }
    if (update.batch_value) {
      for (std::size_t v = first; v < pos; ++v) reduce_buffer_[v] = global > 0 ? reduce_buffer_[v] / global : 0.0;
    }
    const double* from = reduce_buffer_.data() + first;
    for (std::size_t i = update.first; i < update.first + update.count; ++i) from = assign_statistic(fetched[i], from);
  }
}

void CustomSteps::train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight,
                             const BatchShard& shard) {
  run(built(Kind::train, x, y, sample_weight), x, y, sample_weight, true, shard);
  ++train_steps_;
}

void CustomSteps::test_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight,
                            const BatchShard& shard) {
  run(built(Kind::test, x, y, sample_weight), x, y, sample_weight, false, shard);
}

std::vector<Tensor> CustomSteps::predict_step(const std::vector<Tensor>& x) {
  std::lock_guard lock(predict_mutex_);
  Built& step = built(Kind::predict, x, {}, Tensor());
  std::vector<Tensor> outputs = step.programs.front()->run(x, {.step = train_steps_});
  for (std::size_t p = 1; p < step.programs.size(); ++p) step.programs[p]->run_into(x, step.fetched[p]);
  return outputs;
}

bool CustomSteps::predict_step_is_call(const std::vector<Tensor>& x) {
  std::lock_guard lock(predict_mutex_);
  return built(Kind::predict, x, {}, Tensor()).predictions_are_call;
}

void CustomSteps::prepare_train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                     const Tensor& sample_weight) {
  built(Kind::train, x, y, sample_weight);
}

void CustomSteps::reset_metrics() {
  for (metrics::Metric& metric : model_.metrics()) metric.reset();
}

std::map<std::string, float> CustomSteps::results() const {
  std::map<std::string, float> logs;
  if (last_) {
    for (const metrics::Metric& metric : last_->logs) logs[metric.name()] = metric.result();
  }
  return logs;
}

void CustomSteps::results_into(std::map<std::string, float>& logs) const {
  if (last_ && logs.size() == last_->logs.size()) {
    bool same_keys = true;
    for (const metrics::Metric& metric : last_->logs) {
      auto it = logs.find(metric.name());
      if (it == logs.end()) {
        same_keys = false;
        break;
      }
      it->second = metric.result();
    }
    if (same_keys) return;
  }
  logs = results();
}

Sharder CustomSteps::sharder() const {
  if (!communicator_) return {};
  return [this](std::vector<Tensor>& x, std::vector<Tensor>& y, Tensor& w) {
    return shard_batch(*communicator_, auto_shard_, x, y, w);
  };
}

void CustomSteps::broadcast_variables(const std::vector<Variable>& variables) const {
  if (communicator_) strata::broadcast_variables(*communicator_, variables);
}

std::vector<Variable> CustomSteps::optimizer_variables() const {
  std::vector<optimizers::Optimizer> all;
  if (model_.optimizer_.defined()) all.push_back(model_.optimizer_);
  for (const Built* step : train_built_) {
    for (const optimizers::Optimizer& o : step->optimizers) {
      if (std::none_of(all.begin(), all.end(), [&](const auto& a) { return &a.impl() == &o.impl(); })) all.push_back(o);
    }
  }
  std::vector<Variable> variables;
  for (const optimizers::Optimizer& o : all) {
    for (const Variable& v : o.variables()) variables.push_back(v);
  }
  return variables;
}

std::size_t CustomSteps::num_outputs() const { return model_.outputs.size(); }

int CustomSteps::num_nodes() const {
  int nodes = 0;
  for (const auto& [key, step] : built_) nodes += step->graph->num_nodes();
  return nodes;
}

int CustomSteps::num_programs() const {
  int programs = 0;
  for (const auto& [key, step] : built_) programs += static_cast<int>(step->programs.size());
  return programs;
}

const Graph& CustomSteps::train_graph() const {
  if (train_built_.empty()) throw ValueError("model '" + model_.name + "' has not built its train step yet (fit it)");
  return *train_built_.front()->graph;
}

}  // namespace strata
