#include "models/model.h"

#include <cstring>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/error.h"
#include "core/rng.h"
#include "layers/input_layer.h"
#include "models/compiled_model.h"
#include "models/data_adapter.h"
#include "models/progress_bar.h"

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
    NameScope scope(graph, c->layer.name());
    LayerImpl& layer = c->layer.impl();
    layer.current_call = c->call_index;
    results[c.get()] = masked ? layer.call_masked(graph, ins, in_masks) : layer.call(graph, ins);
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

Model::Model(std::vector<KerasTensor> inputs, std::vector<KerasTensor> outputs, ModelOptions options)
    : Layer(std::make_shared<ModelImpl>(std::move(inputs), std::move(outputs), std::move(options.name))) {}

Model::Model(std::shared_ptr<ModelImpl> impl) : Layer(std::move(impl)) {}

ModelImpl& Model::model() const { return static_cast<ModelImpl&>(impl()); }

void Model::compile(CompileOptions options) {
  ModelImpl& m = model();
  // All or nothing: a compile that throws leaves the model as it was.
  std::unique_ptr<CompiledModel> compiled;
  if (!m.inputs.empty()) compiled = std::make_unique<CompiledModel>(m, &options);
  m.compile_options = std::move(options);
  m.compiled = std::move(compiled);
}

bool Model::compiled() const { return model().compile_options.has_value(); }

namespace {

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

CompiledModel& for_inference(ModelImpl& m, const std::vector<Tensor>& x) {
  if (m.inputs.empty()) m.build_from_data(x);
  if (m.compiled) return *m.compiled;
  if (!m.inference) m.inference = std::make_unique<CompiledModel>(m, nullptr);
  return *m.inference;
}

void run_evaluation(CompiledModel& c, const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                    std::int64_t batch_size, int verbose) {
  std::int64_t n = x.front().shape()[0];
  std::int64_t steps = (n + batch_size - 1) / batch_size;
  auto order = epoch_order(n, false, 0, 0);
  ProgressBar bar(steps, verbose, std::cout);
  std::vector<Tensor> bx, by;
  c.reset_metrics();
  for (std::int64_t s = 0; s < steps; ++s) {
    std::int64_t begin = s * batch_size, end = std::min(n, begin + batch_size);
    gather_batch(x, order, begin, end, bx);
    gather_batch(y, order, begin, end, by);
    c.test_step(bx, by);
    bar.update(s + 1, c.results());
  }
  bar.finish(c.results());
}

void check_batch_size(std::int64_t batch_size) {
  if (batch_size <= 0) throw ValueError("batch_size must be positive, got " + std::to_string(batch_size));
}

}  // namespace

History Model::fit(const Tensor& x, const Tensor& y, const FitOptions& options) {
  return fit(std::vector<Tensor>{x}, std::vector<Tensor>{y}, options);
}

History Model::fit(const std::vector<Tensor>& x_in, const std::vector<Tensor>& y_in, const FitOptions& options) {
  ModelImpl& m = model();
  CompiledModel& c = require_compiled(m, "fit", &x_in);
  check_batch_size(options.batch_size);
  std::int64_t n_x = check_arrays(x_in, "x");
  std::int64_t n_y = check_arrays(y_in, "y");
  if (n_x != n_y) {
    throw ValueError("x and y disagree on the number of samples: " + std::to_string(n_x) + " and " + std::to_string(n_y));
  }
  c.check_inputs(x_in);
  std::vector<Tensor> x = x_in, y = c.conform_targets(y_in);
  std::vector<Tensor> x_val, y_val;
  if (options.validation_data) {
    std::int64_t vx = check_arrays(options.validation_data->x, "validation_data x");
    std::int64_t vy = check_arrays(options.validation_data->y, "validation_data y");
    if (vx != vy) {
      throw ValueError("validation_data: x and y disagree on the number of samples: " + std::to_string(vx) + " and " +
                       std::to_string(vy));
    }
    c.check_inputs(options.validation_data->x);
    x_val = options.validation_data->x;
    y_val = c.conform_targets(options.validation_data->y);
  } else if (options.validation_split > 0.0) {
    SplitArrays s = split_for_validation(x, y, options.validation_split);
    x = s.x_train;
    y = s.y_train;
    x_val = s.x_val;
    y_val = s.y_val;
  }

  const std::int64_t n = x.front().shape()[0];
  const std::int64_t steps = (n + options.batch_size - 1) / options.batch_size;
  // The shuffle seed is drawn once per fit from the global seed generator: the same
  // set_random_seed gives the same batches.
  const std::uint64_t shuffle_seed = next_seed();
  History history;
  history.params = {options.verbose, options.epochs, steps};
  m.stop_training = false;
  std::vector<Tensor> bx, by;
  for (int epoch = options.initial_epoch; epoch < options.epochs && !m.stop_training; ++epoch) {
    if (options.verbose) std::cout << "Epoch " << epoch + 1 << "/" << options.epochs << "\n" << std::flush;
    auto order = epoch_order(n, options.shuffle, shuffle_seed, epoch);
    ProgressBar bar(steps, options.verbose, std::cout);
    c.reset_metrics();
    for (std::int64_t s = 0; s < steps; ++s) {
      std::int64_t begin = s * options.batch_size, end = std::min(n, begin + options.batch_size);
      gather_batch(x, order, begin, end, bx);
      gather_batch(y, order, begin, end, by);
      c.train_step(bx, by);
      bar.update(s + 1, c.results());
    }
    std::map<std::string, float> logs = c.results();
    if (!x_val.empty()) {
      run_evaluation(c, x_val, y_val, options.batch_size, 0);
      for (const auto& [key, value] : c.results()) logs["val_" + key] = value;
    }
    bar.finish(logs);
    for (const auto& [key, value] : logs) history.history[key].push_back(value);
    history.epoch.push_back(epoch);
  }
  return history;
}

std::map<std::string, float> Model::evaluate(const Tensor& x, const Tensor& y, const EvaluateOptions& options) {
  return evaluate(std::vector<Tensor>{x}, std::vector<Tensor>{y}, options);
}

std::map<std::string, float> Model::evaluate(const std::vector<Tensor>& x, const std::vector<Tensor>& y_in,
                                             const EvaluateOptions& options) {
  CompiledModel& c = require_compiled(model(), "evaluate", &x);
  check_batch_size(options.batch_size);
  std::int64_t nx = check_arrays(x, "x"), ny = check_arrays(y_in, "y");
  if (nx != ny) {
    throw ValueError("x and y disagree on the number of samples: " + std::to_string(nx) + " and " + std::to_string(ny));
  }
  c.check_inputs(x);
  run_evaluation(c, x, c.conform_targets(y_in), options.batch_size, options.verbose);
  return c.results();
}

Tensor Model::predict(const Tensor& x, const PredictOptions& options) {
  auto outs = predict(std::vector<Tensor>{x}, options);
  if (outs.size() != 1) throw ValueError("model '" + name() + "' has several outputs: use the vector overload");
  return outs[0];
}

std::vector<Tensor> Model::predict(const std::vector<Tensor>& x, const PredictOptions& options) {
  check_batch_size(options.batch_size);
  std::int64_t n = check_arrays(x, "x");
  CompiledModel& c = for_inference(model(), x);
  c.check_inputs(x);
  auto order = epoch_order(n, false, 0, 0);
  std::vector<Tensor> results, bx;
  std::int64_t steps = (n + options.batch_size - 1) / options.batch_size;
  ProgressBar bar(steps, options.verbose, std::cout);
  for (std::int64_t s = 0; s < steps; ++s) {
    std::int64_t begin = s * options.batch_size, end = std::min(n, begin + options.batch_size);
    gather_batch(x, order, begin, end, bx);
    auto outs = c.predict_step(bx);
    if (results.empty()) {
      for (const auto& o : outs) results.emplace_back(o.shape().with_dim(0, n), o.dtype());
    }
    for (std::size_t k = 0; k < outs.size(); ++k) {
      if (outs[k].rank() == 0 || outs[k].shape()[0] != end - begin ||
          outs[k].shape().without_batch() != results[k].shape().without_batch() || outs[k].dtype() != results[k].dtype()) {
        throw ShapeError("predict: output " + std::to_string(k) + " of model '" + name() + "' has shape " +
                         outs[k].shape().to_string() + " for a batch of " + std::to_string(end - begin) +
                         "; outputs must be batch-major with the same per-sample shape in every batch");
      }
      std::size_t row_bytes = outs[k].nbytes() / static_cast<std::size_t>(end - begin);
      std::memcpy(static_cast<char*>(results[k].raw_data()) + static_cast<std::size_t>(begin) * row_bytes,
                  outs[k].raw_data(), outs[k].nbytes());
    }
    bar.update(s + 1, {});
  }
  bar.finish({});
  return results;
}

std::map<std::string, float> Model::train_on_batch(const Tensor& x, const Tensor& y) {
  return train_on_batch(std::vector<Tensor>{x}, std::vector<Tensor>{y});
}

std::map<std::string, float> Model::train_on_batch(const std::vector<Tensor>& x, const std::vector<Tensor>& y) {
  CompiledModel& c = require_compiled(model(), "train_on_batch", &x);
  check_arrays(x, "x");
  check_arrays(y, "y");
  c.check_inputs(x);
  c.reset_metrics();
  c.train_step(x, c.conform_targets(y));
  return c.results();
}

std::map<std::string, float> Model::test_on_batch(const Tensor& x, const Tensor& y) {
  return test_on_batch(std::vector<Tensor>{x}, std::vector<Tensor>{y});
}

std::map<std::string, float> Model::test_on_batch(const std::vector<Tensor>& x, const std::vector<Tensor>& y) {
  CompiledModel& c = require_compiled(model(), "test_on_batch", &x);
  check_arrays(x, "x");
  check_arrays(y, "y");
  c.check_inputs(x);
  c.reset_metrics();
  c.test_step(x, c.conform_targets(y));
  return c.results();
}

Tensor Model::predict_on_batch(const Tensor& x) { return predict_on_batch(std::vector<Tensor>{x}).at(0); }

std::vector<Tensor> Model::predict_on_batch(const std::vector<Tensor>& x) {
  check_arrays(x, "x");
  CompiledModel& c = for_inference(model(), x);
  c.check_inputs(x);
  return c.predict_step(x);
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

const Graph& Model::graph() const { return require_compiled(model(), "graph()").graph(); }

}  // namespace strata
