#include "models/model.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/error.h"
#include "core/rng.h"
#include "layers/core/float8_quantization.h"
#include "data/batch_source.h"
#include "data/data_adapter.h"
#include "distribution/data_parallel.h"
#include "layers/core/input_layer.h"
#include "models/callbacks.h"
#include "models/compiled_model.h"
#include "models/custom_model.h"
#include "models/custom_steps.h"
#include "models/progress_bar.h"
#include "optimizers/loss_scale_optimizer.h"

namespace strata {

// --- ModelImpl: the recorded layer-call DAG ----------------------------------------------

ModelImpl::ModelImpl(std::vector<KerasTensor> ins, std::vector<KerasTensor> outs, std::string model_name,
                     std::string class_name)
    : LayerImpl(std::move(class_name), model_name.empty() ? default_layer_name("functional") : std::move(model_name)) {
  built = true;
  if (!ins.empty() || !outs.empty()) set_graph(std::move(ins), std::move(outs));
}

ModelImpl::~ModelImpl() = default;

void ModelImpl::set_graph(std::vector<KerasTensor> ins, std::vector<KerasTensor> outs) {
  for (const auto& in : ins) {
    if (!in.defined() || in.call()->layer.class_name() != "InputLayer") {
      throw ValueError("Model '" + name + "': inputs must be tensors made by Input()");
    }
  }
  if (outs.empty()) throw ValueError("Model '" + name + "' needs at least one output");
  std::vector<std::shared_ptr<const LayerCall>> order;
  std::set<const LayerCall*> visited;
  std::set<const LayerCall*> inputs_seen;
  // Depth-first from the outputs: a call is listed after every call it reads from.
  std::function<void(const std::shared_ptr<const LayerCall>&)> visit = [&](const std::shared_ptr<const LayerCall>& c) {
    if (!visited.insert(c.get()).second) return;
    for (const auto& in : c->inputs) visit(in.call());
    order.push_back(c);
  };
  for (const auto& out : outs) {
    if (!out.defined()) throw ValueError("Model '" + name + "': an output is undefined");
    visit(out.call());
  }
  std::set<const LayerCall*> declared;
  for (const auto& in : ins) declared.insert(in.call().get());
  calls.clear();
  layers.clear();
  std::set<const LayerImpl*> seen_layers;
  std::set<std::string> names;
  for (const auto& c : order) {
    bool is_input = c->layer.class_name() == "InputLayer";
    if (is_input && !declared.count(c.get())) {
      throw ValueError("Model '" + name + "': output depends on Input '" + c->layer.name() +
                       "', which is not among the model's inputs");
    }
    if (!is_input) calls.push_back(c);
    if (seen_layers.insert(&c->layer.impl()).second) {
      if (!names.insert(c->layer.name()).second) {
        throw ValueError("Model '" + name + "': two layers are named '" + c->layer.name() +
                         "'; layer names must be unique within a model");
      }
      layers.push_back(c->layer);
    }
  }
  // Declared inputs that the outputs don't use still appear first, in order, as in Keras.
  std::vector<Layer> unused_inputs;
  for (const auto& in : ins) {
    if (!visited.count(in.call().get())) unused_inputs.push_back(in.call()->layer);
  }
  layers.insert(layers.begin(), unused_inputs.begin(), unused_inputs.end());
  inputs = std::move(ins);
  outputs = std::move(outs);
}

std::vector<Output> ModelImpl::call(Graph& graph, const std::vector<Output>& values) {
  return replay(graph, values, nullptr);
}

std::set<const LayerCall*> ModelImpl::masked_calls() const {
  Graph graph;
  std::vector<Output> values;
  for (const auto& in : inputs) values.push_back(graph.placeholder(in.spec()));
  std::set<const LayerCall*> masked;
  // A replay into a graph of its own changes nothing of the model's but the layers'
  // per-call bookkeeping (current_call, current_arguments), which every call resets; held
  // apart from a predict building its programs (which sets the same bookkeeping).
  auto& self = const_cast<ModelImpl&>(*this);
  std::lock_guard<std::mutex> building(self.inference_mutex);
  self.replay(graph, values, &masked);
  return masked;
}

std::vector<Output> ModelImpl::replay(Graph& graph, const std::vector<Output>& values,
                                      std::set<const LayerCall*>* masked_calls) {
  if (values.size() != inputs.size()) {
    throw ValueError("Model '" + name + "' expects " + std::to_string(inputs.size()) + " inputs, got " +
                     std::to_string(values.size()));
  }
  std::unordered_map<const LayerCall*, std::vector<Output>> results;
  for (std::size_t i = 0; i < inputs.size(); ++i) results[inputs[i].call().get()] = {values[i]};
  std::unordered_map<const LayerCall*, std::vector<Output>> masks;  // Keras masks, where any
  for (const auto& c : calls) {
    std::vector<Output> ins, in_masks;
    bool masked = false;
    for (const auto& in : c->inputs) {
      const auto i = static_cast<std::size_t>(in.index());
      ins.push_back(results.at(in.call().get()).at(i));
      auto m = masks.find(in.call().get());
      in_masks.push_back(m != masks.end() && i < m->second.size() ? m->second[i] : Output{});
      masked = masked || in_masks.back().valid();
    }
    if (masked_calls && !in_masks.empty() && in_masks[0].valid()) masked_calls->insert(c.get());
    NameScope scope(graph, c->layer.name());
    LayerImpl& layer = c->layer.impl();
    layer.current_call = c->call_index;
    layer.current_arguments = c->arguments;
    results[c.get()] = call_in_dtype_policy(layer, graph, ins, masked ? in_masks : std::vector<Output>{});
    // Keras's activity_regularizer: each output's penalty over its batch, a model loss.
    if (layer.activity_regularizer.defined() && !layer.regularizes_own_activity()) {
      for (const Output& out : results[c.get()]) graph.add_loss(layer.activity_regularizer.activity_penalty(out));
    }
    auto out_masks = layer.compute_mask(graph, ins, in_masks);
    if (!out_masks.empty()) masks[c.get()] = std::move(out_masks);
  }
  std::vector<Output> outs;
  for (const auto& o : outputs) outs.push_back(results.at(o.call().get()).at(static_cast<std::size_t>(o.index())));
  return outs;
}

std::vector<Layer> ModelImpl::sublayers() const {
  std::vector<Layer> out;
  for (const auto& l : layers) {
    if (l.class_name() != "InputLayer") out.push_back(l);
  }
  return out;
}

// --- Model -----------------------------------------------------------------------------------

Model::Model(const KerasTensor& input, const KerasTensor& output, ModelOptions options)
    : Model(std::vector<KerasTensor>{input}, std::vector<KerasTensor>{output}, std::move(options)) {}

Model::Model(const KerasTensor& input, std::vector<KerasTensor> outputs, ModelOptions options)
    : Model(std::vector<KerasTensor>{input}, std::move(outputs), std::move(options)) {}

Model::Model(std::vector<KerasTensor> inputs, std::vector<KerasTensor> outputs, ModelOptions options)
    : Layer(std::make_shared<ModelImpl>(std::move(inputs), std::move(outputs), std::move(options.name))) {}

Model::Model(std::shared_ptr<ModelImpl> impl) : Layer(std::move(impl)) {}

ModelImpl& Model::model() const { return static_cast<ModelImpl&>(impl()); }

void Model::compile(CompileOptions options) {
  ModelImpl& m = model();
  if (options.auto_scale_loss && m.dtype_policy == "mixed_float16") {
    optimizers::Optimizer optimizer = options.optimizer.resolve();
    if (!optimizers::is_loss_scale_optimizer(optimizer)) {
      options.optimizer = optimizers::LossScaleOptimizer::made_by_compile(optimizer);
    }
  }
  if (auto* custom = dynamic_cast<CustomModel*>(&m)) return custom->compile(std::move(options));
  auto hold = m.usage.exclusive("compile", m.name);
  // All or nothing: a compile that throws leaves the model as it was.
  std::unique_ptr<CompiledModel> compiled;
  if (!m.inputs.empty()) compiled = std::make_unique<CompiledModel>(m, &options);
  m.compile_options = std::move(options);
  m.compiled = std::move(compiled);
}

bool Model::compiled() const { return model().compile_options.has_value(); }

namespace {

// A CustomModel's compiled steps (models/custom_steps.h); null for other models. Before
// compile, predict runs the model's own call as any model's (`required` false).
CustomSteps* custom_steps(ModelImpl& m, const char* what, bool required = true) {
  auto* custom = dynamic_cast<CustomModel*>(&m);
  if (!custom || (!custom->steps() && !required)) return nullptr;
  if (!custom->steps()) {
    throw Error(std::string("You must call compile() before ") + what + " on model '" + m.name + "'");
  }
  return custom->steps();
}

// The steps that run a CustomModel's predict_step: compile's, or before compile steps
// made for predict (Keras's predict runs predict_step, compiled or not); null for other
// models, and before compile where predict_step is Keras's default, self(x): the model's
// inference program gives those outputs, with the inference rewrites, as any model's.
// `x`: a batch of the inputs.
CustomSteps* predict_steps(ModelImpl& m, const std::vector<Tensor>& x) {
  auto* custom = dynamic_cast<CustomModel*>(&m);
  if (!custom) return nullptr;
  if (custom->steps()) return custom->steps();
  CustomSteps& steps = custom->uncompiled_predict_steps();
  return steps.predict_step_is_call(x) ? nullptr : &steps;
}

CompiledModel& require_compiled(ModelImpl& m, const char* what, const std::vector<Tensor>* data = nullptr) {
  if (!m.compile_options) {
    throw Error(std::string("You must call compile() before ") + what + " on model '" + m.name + "'");
  }
  if (!m.compiled) {
    if (m.inputs.empty() && data) m.build_from_data(*data);
    if (m.inputs.empty()) throw Error("model '" + m.name + "' is not built yet: it has no Input and has seen no data");
    auto compiled = std::make_unique<CompiledModel>(m, &*m.compile_options);
    m.compiled = std::move(compiled);
  }
  return *m.compiled;
}

// Called by predict calls that may run on many threads at once: the first to need the
// inference programs builds them (and a Sequential without Input) while the others wait.
CompiledModel& for_inference(ModelImpl& m, const std::vector<Tensor>& x) {
  std::lock_guard lock(m.inference_mutex);
  if (m.inputs.empty()) m.build_from_data(x);
  if (m.compiled) return *m.compiled;
  if (!m.inference) m.inference = std::make_unique<CompiledModel>(m, nullptr);
  return *m.inference;
}

// Keras's evaluate loop over one pass of `source`; `callbacks` may be null (no hooks).
void run_evaluation(StepRunner& c, BatchSource& source, int verbose, std::int64_t max_steps,
                    CallbackList* callbacks) {
  if (!distribution::is_chief()) verbose = 0;  // one progress bar per job
  std::int64_t steps = source.batches_per_pass();
  if (max_steps > 0 && (steps < 0 || max_steps < steps)) steps = max_steps;
  if (steps == DatasetImpl::kInfinite) throw ValueError("evaluation data is infinite (repeat()): pass steps");
  ProgressBar bar(std::max<std::int64_t>(steps, 0), verbose, std::cout);
  std::vector<Tensor> bx, by;
  Tensor bw;
  Logs logs;
  if (callbacks) callbacks->on_test_begin(logs);
  c.reset_metrics();
  source.shard_with(c.sharder());
  source.start(0, 0);
  for (std::int64_t s = 0; steps < 0 || s < steps; ++s) {
    if (callbacks) callbacks->on_test_batch_begin(s, logs);
    if (!source.next(bx, by, bw)) break;
    c.test_step(bx, by, bw, source.shard());
    c.results_into(logs);
    if (callbacks) callbacks->on_test_batch_end(s, logs);
    bar.update(s + 1, logs);
  }
  logs = c.results();
  if (callbacks) callbacks->on_test_end(logs);
  bar.finish(logs);
}

// Keras's class_weight: a weight per sample from its label (an integer target, the
// rounded value of a (N, 1) target, or the argmax of a one-hot target).
Tensor class_weights_to_sample_weights(const std::map<std::int64_t, float>& class_weight, const Tensor& y) {
  const std::int64_t n = y.shape()[0];
  const std::int64_t per = y.size() / n;
  Tensor w(Shape{n});
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t label = 0;
    if (per == 1) {
      label = static_cast<std::int64_t>(std::llround(y.item(i)));
    } else {
      float best = y.item(i * per);
      for (std::int64_t k = 1; k < per; ++k) {
        if (y.item(i * per + k) > best) {
          best = y.item(i * per + k);
          label = k;
        }
      }
    }
    auto it = class_weight.find(label);
    if (it == class_weight.end()) {
      throw ValueError("class_weight has no weight for class " + std::to_string(label) + " (sample " +
                       std::to_string(i) + "); give every class a weight");
    }
    w.data<float>()[i] = it->second;
  }
  return w;
}

Tensor checked_sample_weight(const Tensor& w, std::int64_t n, const char* what) {
  if (!w.defined()) return w;
  if (w.size() != n || w.shape()[0] != n) {
    throw ValueError(std::string(what) + " must hold one weight per sample: expected shape (" + std::to_string(n) +
                     ",), got " + w.shape().to_string());
  }
  Tensor f(Shape{n});
  for (std::int64_t i = 0; i < n; ++i) f.data<float>()[i] = w.item(i);
  return f;
}

void check_batch_size(std::int64_t batch_size) {
  if (batch_size <= 0) throw ValueError("batch_size must be positive, got " + std::to_string(batch_size));
}

// Arrays given with their targets (to fit, evaluate, validation_data, train_on_batch and
// test_on_batch), checked in this one place: each non-empty and finite, one row count for
// all, the inputs the model's, one weight per sample; the targets conformed to the
// model's outputs. `what` names them in messages ("" or "validation_data"). The inputs
// stay the caller's (a copy of the list would allocate each tensor's shape).
struct LabeledArrays {
  std::vector<Tensor> y;
  Tensor sample_weight;
};

LabeledArrays labeled_arrays(const CompiledModel& c, const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                             const Tensor& sample_weight, const std::string& what = "") {
  const std::string prefix = what.empty() ? "" : what + " ";
  const std::int64_t nx = check_arrays(x, prefix + "x"), ny = check_arrays(y, prefix + "y");
  if (nx != ny) {
    throw ValueError((what.empty() ? "" : what + ": ") + "x and y disagree on the number of samples: " +
                     std::to_string(nx) + " and " + std::to_string(ny));
  }
  c.check_inputs(x);
  return {c.conform_targets(y), checked_sample_weight(sample_weight, nx, "sample_weight")};
}

// The same for a CustomModel's steps, which take the arrays as given (Keras passes a
// custom train_step its data unconverted): each checked, one row count, the weights'.
LabeledArrays raw_arrays(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight,
                         const std::string& what = "") {
  const std::string prefix = what.empty() ? "" : what + " ";
  const std::int64_t nx = check_arrays(x, prefix + "x");
  if (!y.empty()) {
    const std::int64_t ny = check_arrays(y, prefix + "y");
    if (nx != ny) {
      throw ValueError((what.empty() ? "" : what + ": ") + "x and y disagree on the number of samples: " +
                       std::to_string(nx) + " and " + std::to_string(ny));
    }
  }
  return {y, checked_sample_weight(sample_weight, nx, "sample_weight")};
}

}  // namespace

History Model::fit(const Tensor& x, const Tensor& y, const FitOptions& options) {
  return fit(std::vector<Tensor>{x}, std::vector<Tensor>{y}, options);
}

namespace {

// Training under the mixed policies is emulated (the gradients rounded where Keras's are,
// core/ops/elementwise.cc; loss scaling under mixed_float16, optimizers/loss_scale_optimizer.h).
// Under "bfloat16" / "float16" Keras keeps the variables and the optimizer's updates in
// that dtype, and float8 layers update their scales from amax histories: neither is
// emulated, so training them is refused, naming the first such layer. Their predictions
// are emulated.
void refuse_low_precision_training(const Layer& layer, const char* what) {
  for (const Layer& sub : layer.impl().sublayers()) {
    if (layers::float8_history_of(sub.impl().quantization_mode)) {
      throw NotImplementedError(std::string(what) + ": layer '" + sub.name() +
                                "' is quantized to float8, whose training (scales updated from the amax histories) "
                                "Strata does not emulate yet; predict, evaluate and save do (docs/precision.md)");
    }
    if (stores_variables_in_compute_dtype(sub.impl().dtype_policy) &&
        sub.impl().low_precision_form() != LowPrecisionForm::not_applicable) {
      throw NotImplementedError(std::string(what) + ": layer '" + sub.name() + "' computes under dtype policy '" +
                                sub.impl().dtype_policy +
                                "', which keeps its variables and their updates in that dtype; Strata does not "
                                "emulate that training yet (the mixed_ policies train; predict, evaluate and save "
                                "do; docs/precision.md)");
    }
    refuse_low_precision_training(sub, what);
  }
}

}  // namespace

History Model::fit(const std::vector<Tensor>& x_in, const std::vector<Tensor>& y_in, const FitOptions& options) {
  refuse_low_precision_training(*this, "fit");
  ModelImpl& m = model();
  auto hold = m.usage.exclusive("fit", m.name);
  CustomSteps* custom = custom_steps(m, "fit");
  CompiledModel* compiled = custom ? nullptr : &require_compiled(m, "fit", &x_in);
  StepRunner& c = custom ? static_cast<StepRunner&>(*custom) : *compiled;
  check_batch_size(options.batch_size);
  if (options.validation_freq <= 0) throw ValueError("validation_freq must be positive");
  LabeledArrays data = custom ? raw_arrays(x_in, y_in, options.sample_weight)
                              : labeled_arrays(*compiled, x_in, y_in, options.sample_weight);
  std::vector<Tensor> x = x_in, y = std::move(data.y);
  Tensor sample_weight = data.sample_weight;
  if (!options.class_weight.empty()) {
    if (sample_weight.defined()) {
      throw ValueError("You cannot use `class_weight` and `sample_weight` at the same time.");
    }
    if (y_in.size() != 1) throw ValueError("`class_weight` is only supported for models with a single output.");
    sample_weight = class_weights_to_sample_weights(options.class_weight, y_in[0]);
  }
  std::vector<Tensor> x_val, y_val;
  Tensor w_val;
  if (options.validation_data && !options.validation_data->dataset.defined()) {
    LabeledArrays val =
        custom ? raw_arrays(options.validation_data->x, options.validation_data->y, Tensor(), "validation_data")
               : labeled_arrays(*compiled, options.validation_data->x, options.validation_data->y, Tensor(),
                                "validation_data");
    x_val = options.validation_data->x;
    y_val = std::move(val.y);
  } else if (!options.validation_data && options.validation_split > 0.0) {
    std::vector<Tensor> ys = y;
    if (sample_weight.defined()) ys.push_back(sample_weight);
    SplitArrays s = split_for_validation(x, ys, options.validation_split);
    x = s.x_train;
    x_val = s.x_val;
    if (sample_weight.defined()) {
      sample_weight = s.y_train.back();
      w_val = s.y_val.back();
      s.y_train.pop_back();
      s.y_val.pop_back();
    }
    y = s.y_train;
    y_val = s.y_val;
  }

  // The shuffle seed is drawn once per fit from the global seed generator: the same
  // set_random_seed gives the same batches.
  const std::uint64_t shuffle_seed = next_seed();
  ArraySource train(x, y, sample_weight, options.batch_size, options.shuffle, shuffle_seed);
  std::unique_ptr<BatchSource> val;
  const std::int64_t val_batch_size = options.validation_batch_size > 0 ? options.validation_batch_size
                                                                        : options.batch_size;
  if (!x_val.empty()) val = std::make_unique<ArraySource>(x_val, y_val, w_val, val_batch_size, false, 0);
  if (options.validation_data && options.validation_data->dataset.defined()) {
    if (custom) {
      val = std::make_unique<DatasetSource>(options.validation_data->dataset, nullptr, custom->num_outputs());
    } else {
      val = std::make_unique<DatasetSource>(
          options.validation_data->dataset,
          [compiled](const std::vector<Tensor>& t) { return compiled->conform_targets(t); }, compiled->num_outputs());
    }
  }
  // A custom train step is built before the first batch, so that a backup restored in
  // on_train_begin finds the optimizers' slot variables it saved.
  if (custom) custom->prepare_train_step(x, y, sample_weight);
  return fit_loop(c, train, val.get(), options, shuffle_seed);
}

History Model::fit(const Dataset& data, const FitOptions& options) {
  refuse_low_precision_training(*this, "fit");
  ModelImpl& m = model();
  auto hold = m.usage.exclusive("fit", m.name);
  CustomSteps* custom = custom_steps(m, "fit");
  CompiledModel* compiled = custom ? nullptr : &require_compiled(m, "fit");
  StepRunner& c = custom ? static_cast<StepRunner&>(*custom) : *compiled;
  if (options.validation_split > 0.0) {
    throw ValueError("validation_split is only supported for arrays; pass validation_data instead");
  }
  if (options.sample_weight.defined() || !options.class_weight.empty()) {
    throw ValueError("sample_weight / class_weight can not be given with a Dataset: put the weights in the data, as a component after the targets (x, y, sample_weight)");
  }
  if (options.validation_freq <= 0) throw ValueError("validation_freq must be positive");
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> conform;
  if (compiled) conform = [compiled](const std::vector<Tensor>& y) { return compiled->conform_targets(y); };
  const std::size_t outputs = custom ? custom->num_outputs() : compiled->num_outputs();
  DatasetSource train(data, conform, outputs);
  if (train.batches_per_pass() == DatasetImpl::kInfinite && options.steps_per_epoch <= 0) {
    throw ValueError("the Dataset is infinite (repeat()): pass steps_per_epoch");
  }
  // As with arrays, a custom train step is built before the first batch (from the
  // Dataset's first batch, read here and again by the loop), so that a backup restored in
  // on_train_begin finds the optimizers' slot variables it saved, and a data-parallel
  // fit broadcasts them.
  if (custom) {
    DatasetSource first(data, nullptr, outputs);
    first.start(0, 0);
    std::vector<Tensor> x, y;
    Tensor w;
    if (first.next(x, y, w)) custom->prepare_train_step(x, y, w);
  }
  std::unique_ptr<BatchSource> val;
  if (options.validation_data) {
    if (options.validation_data->dataset.defined()) {
      val = std::make_unique<DatasetSource>(options.validation_data->dataset, conform, outputs);
    } else {
      LabeledArrays arrays =
          custom ? raw_arrays(options.validation_data->x, options.validation_data->y, Tensor(), "validation_data")
                 : labeled_arrays(*compiled, options.validation_data->x, options.validation_data->y, Tensor(),
                                  "validation_data");
      std::int64_t b = options.validation_batch_size > 0 ? options.validation_batch_size : options.batch_size;
      val = std::make_unique<ArraySource>(options.validation_data->x, std::move(arrays.y), Tensor(), b, false, 0);
    }
  }
  return fit_loop(c, train, val.get(), options, 0);
}

History Model::fit_loop(StepRunner& c, BatchSource& train, BatchSource* val, const FitOptions& options,
                        std::uint64_t shuffle_seed) {
  ModelImpl& m = model();
  const std::int64_t batches_per_pass = train.batches_per_pass();
  const std::int64_t steps = options.steps_per_epoch > 0 ? options.steps_per_epoch : batches_per_pass;
  // Under data-parallel training only process 0 prints.
  const int verbose = distribution::is_chief() ? options.verbose : 0;
  History history;
  history.params = {verbose, options.epochs, steps};
  CallbackList callbacks(options.callbacks, *this, {verbose, options.epochs, steps});
  m.stop_training = false;
  m.resume_from.reset();
  std::vector<Tensor> bx, by;
  Tensor bw;
  // The batch stream: without steps_per_epoch an epoch is one pass (pass = epoch); with
  // it, batches continue across epochs and a new pass starts when one runs out.
  FitState& state = m.fit_state;
  state = FitState{.epoch = options.initial_epoch, .step = 0, .pass = static_cast<std::uint64_t>(options.initial_epoch),
                   .pass_batch = 0, .shuffle_seed = shuffle_seed, .train_steps = c.train_steps()};
  Logs logs, training_logs;
  callbacks.on_train_begin(logs);
  std::int64_t first_step = 0;
  if (m.resume_from) {  // set by a callback (BackupAndRestore) in on_train_begin
    state = *m.resume_from;
    m.resume_from.reset();
    first_step = state.step;
    c.set_train_steps(state.train_steps);
    if (state.shuffle_seed != shuffle_seed) {
      // The arrays' order must be the interrupted run's: rebuild the source's seed.
      if (auto* arrays = dynamic_cast<ArraySource*>(&train)) arrays->set_seed(state.shuffle_seed);
    }
  }
  // Every process starts from process 0's variables (after any restore, which each
  // process made from the same file).
  if (c.communicator()) {
    std::vector<Variable> variables;
    for (const auto& layer : m.sublayers()) {
      for (const auto& v : layer.weights()) variables.push_back(v);
    }
    for (const auto& v : c.optimizer_variables()) variables.push_back(v);
    c.broadcast_variables(variables);
  }
  train.shard_with(c.sharder());
  train.start(state.pass, state.pass_batch);
  for (int epoch = state.epoch; epoch < options.epochs && !m.stop_training; ++epoch) {
    if (verbose) std::cout << "Epoch " << epoch + 1 << "/" << options.epochs << "\n" << std::flush;
    state.epoch = epoch;
    logs.clear();
    callbacks.on_epoch_begin(epoch, logs);
    ProgressBar bar(std::max<std::int64_t>(steps, 0), verbose, std::cout);
    c.reset_metrics();
    for (std::int64_t s = first_step; steps < 0 || s < steps; ++s) {
      callbacks.on_train_batch_begin(s, logs);
      if (!train.next(bx, by, bw)) {
        if (options.steps_per_epoch <= 0) break;  // the epoch's pass is over
        train.start(++state.pass, 0);
        state.pass_batch = 0;
        if (!train.next(bx, by, bw)) throw ValueError("fit: the training data yields no batch");
      }
      ++state.pass_batch;
      c.train_step(bx, by, bw, train.shard());
      state.step = s + 1;
      state.train_steps = c.train_steps();
      c.results_into(logs);  // in place after the epoch's first batch: no allocation
      callbacks.on_train_batch_end(s, logs);
      bar.update(s + 1, logs);
      if (m.stop_training) break;
    }
    first_step = 0;
    logs = c.results();
    if (val && (epoch + 1) % options.validation_freq == 0) {
      run_evaluation(c, *val, 0, options.validation_steps, &callbacks);
      for (const auto& [key, value] : c.results()) logs["val_" + key] = value;
    }
    bar.finish(logs);
    // The next epoch's position, for a backup taken at this epoch's end.
    if (options.steps_per_epoch <= 0 && !m.stop_training) {
      state = FitState{.epoch = epoch + 1, .step = 0, .pass = static_cast<std::uint64_t>(epoch + 1), .pass_batch = 0,
                       .shuffle_seed = state.shuffle_seed, .train_steps = c.train_steps()};
      if (epoch + 1 < options.epochs) train.start(state.pass, 0);
    } else if (!m.stop_training) {
      state.epoch = epoch + 1;
      state.step = 0;
    }
    callbacks.on_epoch_end(epoch, logs);
    for (const auto& [key, value] : logs) history.history[key].push_back(value);
    history.epoch.push_back(epoch);
    training_logs = logs;
  }
  callbacks.on_train_end(training_logs);
  return history;
}

std::map<std::string, float> Model::evaluate(const Tensor& x, const Tensor& y, const EvaluateOptions& options) {
  return evaluate(std::vector<Tensor>{x}, std::vector<Tensor>{y}, options);
}

std::map<std::string, float> Model::evaluate(const std::vector<Tensor>& x, const std::vector<Tensor>& y_in,
                                             const EvaluateOptions& options) {
  auto hold = model().usage.exclusive("evaluate", name());
  CustomSteps* custom = custom_steps(model(), "evaluate");
  CompiledModel* compiled = custom ? nullptr : &require_compiled(model(), "evaluate", &x);
  StepRunner& c = custom ? static_cast<StepRunner&>(*custom) : *compiled;
  check_batch_size(options.batch_size);
  LabeledArrays data = custom ? raw_arrays(x, y_in, options.sample_weight)
                              : labeled_arrays(*compiled, x, y_in, options.sample_weight);
  CallbackList callbacks(options.callbacks, *this, {options.verbose, 1, 0});
  ArraySource source(x, std::move(data.y), data.sample_weight, options.batch_size, false, 0);
  run_evaluation(c, source, options.verbose, options.steps, &callbacks);
  return c.results();
}

std::map<std::string, float> Model::evaluate(const Dataset& data, const EvaluateOptions& options) {
  auto hold = model().usage.exclusive("evaluate", name());
  CallbackList callbacks(options.callbacks, *this, {options.verbose, 1, 0});
  if (CustomSteps* custom = custom_steps(model(), "evaluate")) {
    DatasetSource source(data, nullptr, custom->num_outputs());
    run_evaluation(*custom, source, options.verbose, options.steps, &callbacks);
    return custom->results();
  }
  CompiledModel& c = require_compiled(model(), "evaluate");
  DatasetSource source(data, [&c](const std::vector<Tensor>& y) { return c.conform_targets(y); }, c.num_outputs());
  run_evaluation(c, source, options.verbose, options.steps, &callbacks);
  return c.results();
}

Tensor Model::predict(const Tensor& x, const PredictOptions& options) {
  auto outs = predict(std::vector<Tensor>{x}, options);
  if (outs.size() != 1) throw ValueError("model '" + name() + "' has several outputs: use the vector overload");
  return outs[0];
}

namespace {

// Keras's predict loop over one pass of `source`, arrays or a Dataset alike: every batch
// through the inference program, the outputs joined along the batch axis. `c` is the
// compiled model when the caller already has it (arrays, checked as a whole); for a
// Dataset it is found from the first batch (a Sequential without Input is built from it)
// and every batch's inputs are checked. `rows` >= 0: the rows the steps yield, known up
// front (arrays), so each batch's outputs are copied straight into place; otherwise they
// are kept and joined at the end.
std::vector<Tensor> run_prediction(Model& model, CompiledModel* c, BatchSource& source, std::int64_t steps,
                                   std::int64_t rows, const PredictOptions& options, CustomSteps* custom = nullptr) {
  const bool checked = c != nullptr || custom != nullptr;
  const int verbose = distribution::is_chief() ? options.verbose : 0;  // one progress bar per job
  ProgressBar bar(std::max<std::int64_t>(steps, 0), verbose, std::cout);
  CallbackList callbacks(options.callbacks, model, {verbose, 1, steps});
  Logs logs;
  callbacks.on_predict_begin(logs);
  std::vector<Tensor> bx, by, results;
  std::vector<std::vector<Tensor>> kept;  // rows unknown: each batch's outputs
  Tensor bw;
  std::int64_t done = 0;
  source.start(0, 0);
  for (std::int64_t s = 0; steps < 0 || s < steps; ++s) {
    if (!source.next(bx, by, bw)) break;  // a Dataset of unknown length ends here
    callbacks.on_predict_batch_begin(s, logs);
    if (!checked) {
      c = &for_inference(model.model(), bx);
      c->check_inputs(bx);
    }
    const std::int64_t n = bx.front().shape()[0];
    auto outs = custom ? custom->predict_step(bx) : c->predict_step(bx);
    const std::vector<Tensor>& first = results.empty() && !kept.empty() ? kept.front() : results;
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const bool batch_major = outs[k].rank() > 0 && outs[k].shape()[0] == n;
      const bool same = first.empty() || (outs[k].shape().without_batch() == first[k].shape().without_batch() &&
                                          outs[k].dtype() == first[k].dtype());
      if (!batch_major || !same) {
        throw ShapeError("predict: output " + std::to_string(k) + " of model '" + model.name() + "' has shape " +
                         outs[k].shape().to_string() + " for a batch of " + std::to_string(n) +
                         "; outputs must be batch-major with the same per-sample shape in every batch");
      }
    }
    if (rows < 0) {
      std::vector<Tensor> own;
      for (const auto& o : outs) own.push_back(o.clone());  // the step's buffers are reused
      kept.push_back(std::move(own));
    } else {
      if (results.empty()) {
        for (const auto& o : outs) results.emplace_back(o.shape().with_dim(0, rows), o.dtype());
      }
      for (std::size_t k = 0; k < outs.size(); ++k) {
        const std::size_t row_bytes = outs[k].nbytes() / static_cast<std::size_t>(n);
        std::memcpy(static_cast<char*>(results[k].raw_data()) + static_cast<std::size_t>(done) * row_bytes,
                    outs[k].raw_data(), outs[k].nbytes());
      }
    }
    done += n;
    callbacks.on_predict_batch_end(s, logs);
    bar.update(s + 1, {});
  }
  callbacks.on_predict_end(logs);
  bar.finish({});
  if (rows >= 0) return results;
  if (kept.empty()) throw ValueError("predict: the Dataset yields no batch");
  for (std::size_t k = 0; k < kept.front().size(); ++k) {
    Tensor whole(kept.front()[k].shape().with_dim(0, done), kept.front()[k].dtype());
    std::size_t offset = 0;
    for (const auto& batch : kept) {
      std::memcpy(static_cast<char*>(whole.raw_data()) + offset, batch[k].raw_data(), batch[k].nbytes());
      offset += batch[k].nbytes();
    }
    results.push_back(whole);
  }
  return results;
}

// Keras's predict over arrays of `n` rows (already checked): `steps` batches at most.
std::vector<Tensor> predict_arrays(Model& model, CompiledModel& c, const std::vector<Tensor>& x, std::int64_t n,
                                   const PredictOptions& options) {
  std::int64_t steps = (n + options.batch_size - 1) / options.batch_size;
  if (options.steps > 0 && options.steps < steps) {
    steps = options.steps;
    n = std::min(n, steps * options.batch_size);
  }
  ArraySource source(x, {}, Tensor(), options.batch_size, false, 0);
  return run_prediction(model, &c, source, steps, n, options);
}

// Data-parallel predict: each process predicts its contiguous share of the rows and the
// shares are gathered in process order, so every process returns the whole result.
std::vector<Tensor> predict_shared(Model& model, CompiledModel& c, const std::vector<Tensor>& x, std::int64_t n,
                                   const PredictOptions& options) {
  distribution::Communicator& comm = *c.communicator();
  const std::int64_t size = comm.size(), rank = comm.rank();
  const std::int64_t begin = n * rank / size, end = n * (rank + 1) / size;
  std::vector<Tensor> share;
  for (const auto& t : x) share.push_back(t.slice_rows(begin, end));
  PredictOptions local = options;
  if (!distribution::is_chief()) local.verbose = 0;
  std::vector<Tensor> mine = predict_arrays(model, c, share, end - begin, local);
  std::vector<Tensor> results;
  std::vector<char> gathered;
  for (const auto& part : mine) {
    if (part.dtype() == DType::string) {
      // Handles into this process's string pool mean nothing in another process.
      throw NotImplementedError("predict: model '" + model.name() +
                                "' outputs strings, which processes can not gather; predict outside the DataParallel");
    }
    comm.all_gather(part.raw_data(), static_cast<std::int64_t>(part.nbytes()), gathered);
    Tensor whole(part.shape().with_dim(0, n), part.dtype());
    if (gathered.size() != whole.nbytes()) {
      throw Error("predict: the processes' shares of an output do not add up to " + std::to_string(n) + " rows");
    }
    std::memcpy(whole.raw_data(), gathered.data(), gathered.size());
    results.push_back(whole);
  }
  return results;
}

}  // namespace

std::vector<Tensor> Model::predict(const std::vector<Tensor>& x, const PredictOptions& options) {
  auto hold = model().usage.share("predict", name());
  check_batch_size(options.batch_size);
  std::int64_t n = check_arrays(x, "x");
  if (CustomSteps* custom = predict_steps(model(), x)) {
    std::int64_t steps = (n + options.batch_size - 1) / options.batch_size;
    if (options.steps > 0 && options.steps < steps) {
      steps = options.steps;
      n = std::min(n, steps * options.batch_size);
    }
    ArraySource source(x, {}, Tensor(), options.batch_size, false, 0);
    return run_prediction(*this, nullptr, source, steps, n, options, custom);
  }
  CompiledModel& c = for_inference(model(), x);
  c.check_inputs(x);
  // Every process needs at least one row (and predicts all, with steps, alone).
  if (c.communicator() && options.steps <= 0 && n >= c.communicator()->size()) {
    return predict_shared(*this, c, x, n, options);
  }
  return predict_arrays(*this, c, x, n, options);
}

Tensor Model::predict(const Dataset& data, const PredictOptions& options) {
  auto hold = model().usage.share("predict", name());
  CustomSteps* custom = custom_steps(model(), "predict", false);
  if (!custom && dynamic_cast<CustomModel*>(&model())) {
    // Before compile: which program runs depends on predict_step, built from a first batch.
    DatasetSource first(data, nullptr);
    first.start(0, 0);
    std::vector<Tensor> x, y;
    Tensor w;
    if (first.next(x, y, w)) custom = predict_steps(model(), x);
  }
  DatasetSource source(data, nullptr);
  std::int64_t steps = source.batches_per_pass();
  if (options.steps > 0 && (steps < 0 || options.steps < steps)) steps = options.steps;
  if (steps == DatasetImpl::kInfinite) throw ValueError("predict: the Dataset is infinite (repeat()): pass steps");
  return run_prediction(*this, nullptr, source, steps, -1, options, custom).at(0);
}

std::map<std::string, float> Model::train_on_batch(const Tensor& x, const Tensor& y) {
  return train_on_batch(std::vector<Tensor>{x}, std::vector<Tensor>{y});
}

std::map<std::string, float> Model::train_on_batch(const std::vector<Tensor>& x, const std::vector<Tensor>& y) {
  refuse_low_precision_training(*this, "train_on_batch");
  auto hold = model().usage.exclusive("train_on_batch", name());
  if (CustomSteps* custom = custom_steps(model(), "train_on_batch")) {
    LabeledArrays batch = raw_arrays(x, y, Tensor());
    custom->reset_metrics();
    custom->train_step(x, batch.y);
    return custom->results();
  }
  CompiledModel& c = require_compiled(model(), "train_on_batch", &x);
  LabeledArrays batch = labeled_arrays(c, x, y, Tensor());
  c.reset_metrics();
  c.train_step(x, batch.y);
  return c.results();
}

std::map<std::string, float> Model::test_on_batch(const Tensor& x, const Tensor& y) {
  return test_on_batch(std::vector<Tensor>{x}, std::vector<Tensor>{y});
}

std::map<std::string, float> Model::test_on_batch(const std::vector<Tensor>& x, const std::vector<Tensor>& y) {
  auto hold = model().usage.exclusive("test_on_batch", name());
  if (CustomSteps* custom = custom_steps(model(), "test_on_batch")) {
    LabeledArrays batch = raw_arrays(x, y, Tensor());
    custom->reset_metrics();
    custom->test_step(x, batch.y);
    return custom->results();
  }
  CompiledModel& c = require_compiled(model(), "test_on_batch", &x);
  LabeledArrays batch = labeled_arrays(c, x, y, Tensor());
  c.reset_metrics();
  c.test_step(x, batch.y);
  return c.results();
}

namespace {

void predict_batch_into(const Model& model, const std::vector<Tensor>& x, std::vector<Tensor>& results) {
  auto hold = model.model().usage.share("predict_on_batch", model.name());
  check_arrays(x, "x");
  if (CustomSteps* custom = predict_steps(model.model(), x)) {
    results = custom->predict_step(x);
    return;
  }
  CompiledModel& c = for_inference(model.model(), x);
  c.check_inputs(x);
  c.predict_step_into(x, results);
}

}  // namespace

// The batch-1 serving call. Its vectors of inputs and results live on with the thread,
// so that a call allocates nothing but its result: building them anew took four of a
// prediction's eight allocations (a Tensor's copy allocates its shape), about a tenth of
// a small model's call (docs/performance.md). The input is let go of however the call
// ends; nothing the call runs can call back into it on this thread.
Tensor Model::predict_on_batch(const Tensor& x) {
  thread_local std::vector<Tensor> inputs(1), results;
  struct LetGo {
    ~LetGo() {
      inputs[0].release();
      results.clear();  // keeps the capacity
    }
  } let_go;
  inputs[0] = x;
  predict_batch_into(*this, inputs, results);
  return std::move(results.at(0));
}

std::vector<Tensor> Model::predict_on_batch(const std::vector<Tensor>& x) {
  std::vector<Tensor> results;
  predict_batch_into(*this, x, results);
  return results;
}

const std::vector<Layer>& Model::layers() const { return model().layers; }

Layer Model::get_layer(const std::string& layer_name) const {
  for (const auto& l : model().layers) {
    if (l.name() == layer_name) return l;
  }
  std::string known;
  for (const auto& l : model().layers) known += (known.empty() ? "" : ", ") + l.name();
  throw ValueError("No such layer: '" + layer_name + "' in model '" + name() + "'. Existing layers: " + known);
}

Layer Model::get_layer(int index) const {
  const auto& ls = layers();
  if (index < 0 || index >= static_cast<int>(ls.size())) {
    throw ValueError("get_layer: index " + std::to_string(index) + " out of range; model '" + name() + "' has " +
                     std::to_string(ls.size()) + " layers");
  }
  return ls[static_cast<std::size_t>(index)];
}

optimizers::Optimizer Model::optimizer() const {
  ModelImpl& m = model();
  if (auto* custom = dynamic_cast<CustomModel*>(&m)) return custom->optimizer();
  if (!m.compile_options) throw Error("model '" + m.name + "' has no optimizer: call compile() first");
  return require_compiled(m, "optimizer()").optimizer();
}

const Graph& Model::graph() const {
  if (CustomSteps* custom = custom_steps(model(), "graph()")) return custom->train_graph();
  return require_compiled(model(), "graph()").graph();
}

}  // namespace strata
