#include "models/custom_model.h"

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "distribution/data_parallel.h"
#include "models/compiled_model.h"
#include "layers/core/input_layer.h"
#include "models/custom_steps.h"

namespace strata {

CustomModel::CustomModel(std::vector<KerasTensor> inputs, std::vector<KerasTensor> outputs, std::string name,
                         std::string class_name)
    : ModelImpl(std::move(inputs), std::move(outputs),
                // Keras names a subclass after its class ("gan", "gan_1", ...).
                name.empty() && class_name != "Functional" ? default_layer_name(class_name) : std::move(name),
                class_name) {}

CustomModel::CustomModel(const KerasTensor& input, const KerasTensor& output, std::string name)
    : CustomModel(std::vector<KerasTensor>{input}, std::vector<KerasTensor>{output}, std::move(name)) {}

CustomModel::~CustomModel() = default;

namespace {

// The targets of a loss, as compile's built-in steps expect them (LossImpl::target_spec).
Shape custom_model_target_shape(const losses::Loss* loss, const Shape& prediction) {
  return loss ? loss->target_spec({prediction, DType::float32}).shape : prediction;
}

}  // namespace

void CustomModel::rebuild_steps() {
  uncompiled_predict_steps_.reset();
  if (steps_) steps_ = std::make_unique<CustomSteps>(*this, *steps_);
}

namespace {

// compile's checks of losses and metrics against the model's outputs, and Keras's compiled
// metrics: the loss tracker, then each metric per output (resolved as compile's built-in
// steps resolve "accuracy": from the targets' and outputs' shapes), with the output each
// measures. Changes nothing.
std::pair<std::vector<metrics::Metric>, std::vector<CustomModel::MetricTarget>> compiled_metrics_for(
    const std::string& name, const std::vector<KerasTensor>& outputs, const CompileOptions& options,
    const std::vector<losses::Loss>& losses) {
  if (!losses.empty() && losses.size() != 1 && losses.size() != outputs.size()) {
    throw ValueError("compile: the model has " + std::to_string(outputs.size()) + " outputs but " +
                     std::to_string(losses.size()) + " losses were given");
  }
  if (!options.loss_weights.empty() && options.loss_weights.size() != outputs.size()) {
    throw ValueError("compile: loss_weights has " + std::to_string(options.loss_weights.size()) + " entries for " +
                     std::to_string(outputs.size()) + " outputs");
  }
  if ((!options.metrics.empty() || !options.weighted_metrics.empty()) && outputs.empty()) {
    throw ValueError("compile: model '" + name +
                     "' has no outputs of its own, so compile's metrics have nothing to measure; track the metrics in "
                     "the model (override metrics())");
  }
  std::vector<metrics::Metric> tracked_metrics{metrics::Mean({.name = "loss"})};
  std::vector<CustomModel::MetricTarget> targets{{0, false}};
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const losses::Loss* loss = losses.empty() ? nullptr : &losses[losses.size() == 1 ? 0 : k];
    const Shape& predicted = outputs[k].shape();
    // As compile's built-in steps (and Keras's CompileMetrics): the metrics, then the
    // weighted metrics, a second copy of the same metric named "weighted_" + its name.
    for (const bool weighted : {false, true}) {
      for (const std::string& id : weighted ? options.weighted_metrics : options.metrics) {
        metrics::Metric metric = metrics::get(id, custom_model_target_shape(loss, predicted), predicted);
        if (weighted && std::count(options.metrics.begin(), options.metrics.end(), id)) {
          metric.impl().name = "weighted_" + metric.name();
        }
        if (outputs.size() > 1) metric.impl().name = outputs[k].call()->layer.name() + "_" + metric.name();
        tracked_metrics.push_back(metric);
        targets.push_back({k, weighted});
      }
    }
  }
  return {std::move(tracked_metrics), std::move(targets)};
}

}  // namespace

void CustomModel::compile(CompileOptions options) {
  auto hold = usage.exclusive("compile", name);
  std::vector<losses::Loss> losses = options.loss.losses();
  // A model with a call of its own may be compiled before it is built (Keras's usual
  // order): its outputs, and the metrics measuring them, come with its first data.
  std::pair<std::vector<metrics::Metric>, std::vector<MetricTarget>> resolved;
  const bool resolve_now = !outputs.empty() || !inputs.empty();
  if (resolve_now) resolved = compiled_metrics_for(name, outputs, options, losses);
  // As compile's: the named device, else under a DataParallel of several processes this
  // process's share of the machine's GPUs, else the process's default.
  const auto strategy = distribution::distribution();
  const Device device = !options.device.empty()                           ? parse_device(options.device)
                        : strategy && strategy->num_processes() > 1 ? strategy->default_device()
                                                                     : default_device();
  optimizers::Optimizer optimizer = options.optimizer.resolve();
  // Made before anything changes: joining a data-parallel job can fail (a peer gone).
  auto steps = std::make_unique<CustomSteps>(*this, device, /*for_fit=*/true);
  // All or nothing: nothing above changed the model.
  losses_ = std::move(losses);
  loss_weights_ = options.loss_weights;
  optimizer_ = std::move(optimizer);
  compiled_metrics_ = std::move(resolved.first);  // empty until resolved: it always holds the loss tracker then
  metric_targets_ = std::move(resolved.second);
  compile_options = std::move(options);
  compiled.reset();
  inference.reset();
  steps_ = std::move(steps);
  uncompiled_predict_steps_.reset();
}

CustomSteps& CustomModel::uncompiled_predict_steps() {
  std::lock_guard lock(uncompiled_predict_mutex_);
  if (!uncompiled_predict_steps_) {
    uncompiled_predict_steps_ = std::make_unique<CustomSteps>(*this, default_device(), /*for_fit=*/false);
  }
  return *uncompiled_predict_steps_;
}

void CustomModel::resolve_compiled_outputs() {
  if (!compiled_metrics_.empty() || !compile_options) return;
  auto [tracked, targets] = compiled_metrics_for(name, outputs, *compile_options, losses_);
  compiled_metrics_ = std::move(tracked);
  metric_targets_ = std::move(targets);
}

std::vector<KerasTensor> CustomModel::call(const std::vector<KerasTensor>&) {
  no_call_ = true;
  return {};
}

bool CustomModel::build_call(const std::vector<TensorSpec>& specs) {
  if (no_call_) return false;  // known since the first try: no Inputs made for nothing
  // Named, so that building takes no default name ("input_layer", ...) from the user's own.
  std::vector<KerasTensor> in;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    in.push_back(Input(specs[i].shape.without_batch(),
                       {.dtype = specs[i].dtype,
                        .name = name + "_input" + (specs.size() > 1 ? "_" + std::to_string(i) : "")}));
  }
  std::vector<KerasTensor> out = call(in);
  if (no_call_) return false;
  if (out.empty()) throw ValueError("model '" + name + "': call() returned no output");
  set_graph(std::move(in), std::move(out));
  built_from_call_ = true;
  return true;
}

void CustomModel::build(const std::vector<Shape>& input_shapes, const std::vector<DType>& dtypes) {
  if (!inputs.empty()) throw ValueError("model '" + name + "' is built already");
  if (input_shapes.empty()) throw ValueError("build: model '" + name + "' needs an input shape");
  std::vector<TensorSpec> specs;
  for (std::size_t i = 0; i < input_shapes.size(); ++i) {
    specs.push_back({input_shapes[i].with_batch(kUnknownDim), i < dtypes.size() ? dtypes[i] : DType::float32});
  }
  if (!build_call(specs)) {
    throw ValueError("build: model '" + name +
                     "' has no call of its own: override call(inputs), or make it from inputs and outputs");
  }
}

void CustomModel::build_from_data(const std::vector<Tensor>& x) {
  if (!inputs.empty() || x.empty()) return;
  std::vector<TensorSpec> specs;
  for (const Tensor& t : x) {
    if (t.rank() == 0) throw ShapeError("model '" + name + "': its input arrays are batches, got a scalar");
    specs.push_back({t.shape().with_dim(0, kUnknownDim), t.dtype()});
  }
  build_call(specs);
}

// Keras's compute_metrics: the loss tracker takes the loss; each other metric its
// output's targets and predictions (compile made one per output).
void CustomModel::update_metrics(StepBuilder& step, const StepLogs& logs, Output loss,
                                 const std::vector<Output>& y_pred) {
  const std::vector<Output>& y = step.y();
  for (const metrics::Metric& metric : logs) {
    if (metric.name() == "loss") {
      step.update_state(metric, loss);
      continue;
    }
    MetricTarget target;
    for (std::size_t i = 0; i < compiled_metrics_.size(); ++i) {
      if (&compiled_metrics_[i].impl() == &metric.impl()) target = metric_targets_[i];
    }
    const std::size_t k = target.output;
    if (k >= y.size() || k >= y_pred.size()) {
      throw ValueError("model '" + name + "': metric '" + metric.name() + "' needs targets for output " +
                       std::to_string(k) + ", but the batch has " + std::to_string(y.size()) + " target arrays");
    }
    step.update_state(metric, y[k], y_pred[k], target.weighted ? step.sample_weight() : Output());
  }
}

StepLogs CustomModel::train_step(StepBuilder& step) {
  std::vector<Output> y_pred = step.call(step.x());
  Output loss = step.compute_loss(step.y(), y_pred, step.sample_weight());
  std::vector<Variable> trainable = trainable_variables();
  // Keras's default train_step differentiates the optimizer's scaled loss (a
  // LossScaleOptimizer's), and logs the loss itself.
  optimizers::Optimizer opt = optimizer();
  step.apply(opt, step.gradients(opt.scale_loss(step.graph(), loss), trainable), trainable);
  StepLogs logs = metrics();
  update_metrics(step, logs, loss, y_pred);
  return logs;
}

StepLogs CustomModel::test_step(StepBuilder& step) {
  std::vector<Output> y_pred = step.call(step.x());
  Output loss = step.compute_loss(step.y(), y_pred, step.sample_weight());
  StepLogs logs = metrics();
  update_metrics(step, logs, loss, y_pred);
  return logs;
}

std::vector<Output> CustomModel::predict_step(StepBuilder& step) { return step.call(step.x()); }

std::vector<metrics::Metric> CustomModel::metrics() const { return compiled_metrics_; }

std::vector<Variable> CustomModel::trainable_variables() const {
  std::vector<Variable> out;
  if (!trainable) return out;
  std::vector<Layer> layers = tracked_;
  for (const Layer& layer : sublayers()) layers.push_back(layer);  // repeats are skipped below
  for (const Layer& layer : layers) {
    for (const Variable& v : layer.trainable_weights()) {
      if (std::none_of(out.begin(), out.end(), [&](const Variable& o) { return o.id() == v.id(); })) out.push_back(v);
    }
  }
  return out;
}

optimizers::Optimizer CustomModel::optimizer() const {
  if (!optimizer_.defined()) throw ValueError("model '" + name + "' has no optimizer: call compile() first");
  return optimizer_;
}

std::vector<Layer> CustomModel::sublayers() const {
  std::vector<Layer> out = ModelImpl::sublayers();
  // A tracked layer the model's own call uses is one of its call's layers already.
  for (const Layer& layer : tracked_) {
    if (std::none_of(out.begin(), out.end(), [&](const Layer& l) { return &l.impl() == &layer.impl(); })) {
      out.push_back(layer);
    }
  }
  return out;
}

Layer CustomModel::track(const std::string& attribute, Layer layer) {
  if (!layer.defined()) throw ValueError("model '" + name + "': track('" + attribute + "') was given no layer");
  // A .keras file keeps the layer under its attribute, beside `layers` and the model's own
  // `vars`; Keras's walk skips names starting with "__".
  if (attribute.empty() || attribute.find('/') != std::string::npos || attribute == "layers" ||
      attribute == "vars" || attribute.starts_with("__")) {
    throw ValueError("model '" + name + "': '" + attribute +
                     "' cannot name a tracked layer (empty, with '/', starting with '__', or 'layers' or 'vars', "
                     "which the model's file uses itself)");
  }
  for (std::size_t i = 0; i < tracked_.size(); ++i) {
    if (attributes_[i] == attribute) throw ValueError("model '" + name + "' already tracks '" + attribute + "'");
    if (&tracked_[i].impl() == &layer.impl()) {
      throw ValueError("model '" + name + "' already tracks layer '" + layer.name() + "' as '" + attributes_[i] + "'");
    }
  }
  tracked_.push_back(layer);
  attributes_.push_back(attribute);
  return layer;
}

}  // namespace strata
