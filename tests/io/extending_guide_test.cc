// docs/extending.md's code, compiled and run: each `// [snippet NAME]` ... `// [end snippet]`
// region below is a code block of the guide (after `<!-- snippet: NAME -->`), and the last
// test checks that the guide quotes every region exactly and holds no other C++ block, so
// the guide cannot drift from code that builds and passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/custom_layer.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "layers/core/input_layer.h"
#include "layers/core/dense.h"
#include "layers/initializers.h"
#include "losses/losses.h"
#include "optimizers/optimizers.h"
#include "models/model.h"
#include "core/eager.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/rng.h"
#include "core/ops/random_ops.h"
#include "core/program.h"
#include "core/autodiff.h"
#include "losses/accuracy_metrics.h"
#include "losses/crossentropy.h"
#include "optimizers/adam.h"
#include "keras_test_util.h"
#include "test_util.h"

namespace extending_guide {
using namespace strata;  // as a user's file has it

// [snippet linear]
class Linear : public CustomLayer {
 public:
  explicit Linear(std::int64_t units = 32, std::string name = "") : CustomLayer("Linear", name), units(units) {}

  // Keras's build(input_shape): the weights, once the input's last dimension is known.
  void build(const std::vector<TensorSpec>& inputs) override {
    w = add_weight("w", {inputs[0].shape.dims().back(), units}, initializers::RandomNormal());
    b = add_weight("b", {units}, initializers::Zeros());
  }

  // Keras's call(inputs): graph ops on symbolic values; gradients come from them.
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {ops::add(ops::matmul(inputs[0], graph.variable(w)), graph.variable(b))};
  }

  std::int64_t units;
  Variable w, b;
};
// [end snippet]

// [snippet mlp_block]
class MLPBlock : public CustomLayer {
 public:
  explicit MLPBlock(std::string name = "") : CustomLayer("MLPBlock", name) {
    linear_1 = track("linear_1", make_layer<Linear>(32));
    linear_2 = track("linear_2", make_layer<Linear>(32));
    linear_3 = track("linear_3", make_layer<Linear>(1));
  }

  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    Output x = ops::relu(call_layer(linear_1, graph, inputs[0]));
    x = ops::relu(call_layer(linear_2, graph, x));
    return {call_layer(linear_3, graph, x)};
  }

  Layer linear_1, linear_2, linear_3;
};
// [end snippet]

// [snippet custom_noise]
class CustomNoise : public CustomLayer {
 public:
  explicit CustomNoise(double stddev, std::string name = "") : CustomLayer("CustomNoise", name), stddev(stddev) {}

  // Keras: `if training: return inputs + noise` / `return inputs`. The graph holds both;
  // the program's mode picks one when it runs (fit trains, predict infers).
  std::vector<Output> call(Graph&, const std::vector<Output>& inputs) override {
    const Output& x = inputs[0];
    Output noise = ops::mul(ops::random_normal_like(x, /*seed=*/1337, current_call), static_cast<float>(stddev));
    return {ops::training_select(ops::add(x, noise), x)};
  }

  double stddev;
};
// [end snippet]

// [snippet serializable_linear]
class SerializableLinear : public CustomLayer {
 public:
  explicit SerializableLinear(std::int64_t units = 32, std::string name = "")
      : CustomLayer("SerializableLinear", name), units(units) {}

  void build(const std::vector<TensorSpec>& inputs) override {
    w = add_weight("w", {inputs[0].shape.dims().back(), units}, initializers::RandomNormal());
    b = add_weight("b", {units}, initializers::Zeros());
  }
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {ops::add(ops::matmul(inputs[0], graph.variable(w)), graph.variable(b))};
  }

  // Keras's get_config: the constructor's arguments (name, trainable and dtype are added).
  io::json get_config() const override { return {{"units", units}}; }
  // Keras's from_config: the saved config, name included, makes the layer again.
  static Layer from_config(const io::json& config) {
    return make_layer<SerializableLinear>(config.at("units").get<std::int64_t>(), config.at("name").get<std::string>());
  }

  std::int64_t units;
  Variable w, b;
};

// Keras: @keras.saving.register_keras_serializable(package="my_package")
const bool registered = saving::register_keras_serializable<SerializableLinear>("my_package");
// [end snippet]

}  // namespace extending_guide

// In namespace strata, not under a using-directive: a unity build shares anonymous namespaces.
namespace strata::extending_guide_tests {
namespace {
using extending_guide::CustomNoise;
using extending_guide::Linear;
using extending_guide::MLPBlock;
using extending_guide::SerializableLinear;

Tensor extending_ramp(const Shape& shape) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  return Tensor::from_vector<float>(shape, v);
}

TEST(ExtendingGuide, LinearBuildsItsWeightsOnFirstCallAndComputesXwPlusB) {
  // [snippet use_linear]
  Layer linear = make_layer<Linear>(4);
  KerasTensor x = Input({2});
  KerasTensor y = linear(x);  // builds w (2, 4) and b (4,)
  Model model(x, y);
  // [end snippet]
  ASSERT_EQ(linear.weights().size(), 2u);
  EXPECT_EQ(linear.weights()[0].path(), linear.name() + "/w");
  EXPECT_EQ(linear.weights()[0].shape(), (Shape{2, 4}));
  EXPECT_EQ(linear.trainable_weights().size(), 2u);
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 4}));
  // y = x w + b, against the weights' own values.
  linear.set_weights({extending_ramp({2, 4}), Tensor::from_vector<float>({4}, {1, 2, 3, 4})});
  const std::vector<float> in{0.5f, -1.0f}, w = extending_ramp({2, 4}).to_vector<float>();
  const std::vector<float> out = model.predict(Tensor::from_vector<float>({1, 2}, in)).to_vector<float>();
  for (int j = 0; j < 4; ++j) {
    EXPECT_FLOAT_EQ(out[static_cast<std::size_t>(j)], in[0] * w[static_cast<std::size_t>(j)] +
                                                          in[1] * w[static_cast<std::size_t>(4 + j)] + float(j + 1));
  }
  // Default names are Keras's, unique per layer.
  EXPECT_NE(make_layer<Linear>(4).name(), linear.name());
}

TEST(ExtendingGuide, NestedLayersTrainAndCountAsTheOuterLayers) {
  // [snippet use_mlp_block]
  Layer mlp = make_layer<MLPBlock>();
  KerasTensor x = Input({64});
  Model model(x, mlp(x));
  // 3 Linear layers: (64*32 + 32) + (32*32 + 32) + (32*1 + 1) parameters.
  // [end snippet]
  EXPECT_EQ(mlp.weights().size(), 6u);
  EXPECT_EQ(model.count_params(), 64 * 32 + 32 + 32 * 32 + 32 + 32 + 1);
  EXPECT_EQ(mlp.trainable_weights().size(), 6u);
  mlp.set_trainable(false);
  EXPECT_EQ(mlp.trainable_weights().size(), 0u);
  mlp.set_trainable(true);
}

TEST(ExtendingGuide, GradientsComeForFreeAndFitTrainsACustomLayer) {
  // [snippet fit_linear]
  KerasTensor x = Input({3});
  Model model(x, make_layer<Linear>(1)(x));
  model.compile({.optimizer = optimizers::SGD({.learning_rate = 0.5}), .loss = losses::MeanSquaredError()});
  // Targets on a plane, y = 2 x0 - x1 + 0.5 x2, which Linear(1) can fit.
  Tensor x_train = extending_ramp({64, 3});
  Tensor y_train = ops::sum(ops::mul(x_train, Tensor::from_vector<float>({1, 3}, {2.f, -1.f, .5f})), {1}, true);
  History history = model.fit(x_train, y_train, {.batch_size = 16, .epochs = 20, .verbose = 0});
  // [end snippet]
  const std::vector<float>& loss = history.history.at("loss");
  EXPECT_LT(loss.back(), 0.1 * loss.front());
  // The step program is built once: training more adds no node.
  const int nodes = model.graph().num_nodes();
  model.fit(x_train, y_train, {.batch_size = 16, .epochs = 2, .verbose = 0});
  EXPECT_EQ(model.graph().num_nodes(), nodes);
}

TEST(ExtendingGuide, TheTrainingFlagIsTheProgramsMode) {
  Layer noise = make_layer<CustomNoise>(0.5);
  Graph graph;
  const Output x = graph.placeholder({Shape{kUnknownDim, 8}, DType::float32});
  noise.impl().built = true;
  const Output y = noise.impl().call(graph, {x})[0];
  Program program(graph, {x}, {y});
  const Tensor in = extending_ramp({4, 8});
  strata::testing::expect_close(program.run({in})[0], in, "inference", 0, 0);
  const std::vector<float> trained = program.run({in}, {.training = true})[0].to_vector<float>();
  const std::vector<float> given = in.to_vector<float>();
  double moved = 0;
  for (std::size_t i = 0; i < given.size(); ++i) moved += std::abs(trained[i] - given[i]);
  EXPECT_GT(moved / static_cast<double>(given.size()), 0.1);
}

TEST(ExtendingGuide, ARegisteredLayerSavesAndLoads) {
  strata::testing::ScratchDir dir;
  // [snippet save_load]
  KerasTensor x = Input({3});
  Model model(x, make_layer<SerializableLinear>(4)(x));
  model.save(dir.file("linear.keras"));
  Model again = models::load_model(dir.file("linear.keras"));
  // [end snippet]
  EXPECT_TRUE(extending_guide::registered);
  for (const char* name : {"linear.keras", "linear.h5"}) {
    model.save(dir.file(name));
    Model loaded = models::load_model(dir.file(name));
    EXPECT_EQ(loaded.layers().back().class_name(), "SerializableLinear") << name;
    EXPECT_EQ(layer_cast<SerializableLinear>(loaded.layers().back()).units, 4) << name;
    strata::testing::expect_close(loaded.predict(extending_ramp({5, 3})), model.predict(extending_ramp({5, 3})), name,
                                  0, 0);
  }
  strata::testing::expect_close(again.predict(extending_ramp({5, 3})), model.predict(extending_ramp({5, 3})), "again",
                                0, 0);
}

// An unregistered class in a file names the class and how to register it.
TEST(ExtendingGuide, AnUnregisteredClassInAFileSaysHowToRegisterIt) {
  const std::string text = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "s", "layers": [
    {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 3], "name": "in"}},
    {"module": null, "class_name": "Unheard", "config": {"name": "u", "units": 2},
     "registered_name": "their_package>Unheard"}]}})";
  EXPECT_THROW_WITH(models::model_from_json(text), NotImplementedError, "class 'Unheard'", "layer 'u'",
                    "'their_package>Unheard'", "register_keras_serializable<Unheard>(\"their_package\")");
  // Registered under another package, it is still not the class the file names.
  const std::string other = R"({"module": "keras", "class_name": "Sequential", "config": {"name": "s", "layers": [
    {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 3], "name": "in"}},
    {"module": null, "class_name": "SerializableLinear", "config": {"name": "l", "units": 2},
     "registered_name": "other_package>SerializableLinear"}]}})";
  EXPECT_THROW_WITH(models::model_from_json(other), NotImplementedError, "'other_package>SerializableLinear'");
}

// Keras's "Writing a training loop from scratch", on separable data shaped as its MNIST
// loop's (16 features and 4 classes here, for speed): class c where feature group c sums
// highest.
struct ExtendingLoopData {
  Tensor x, y;
};
ExtendingLoopData extending_loop_data(std::int64_t n) {
  std::vector<float> x(static_cast<std::size_t>(n * 16));
  std::vector<std::int64_t> y(static_cast<std::size_t>(n));
  std::uint32_t state = 12345;
  for (std::int64_t i = 0; i < n; ++i) {
    float best = -1e9f;
    for (int g = 0; g < 4; ++g) {
      float sum = 0;
      for (int f = 0; f < 4; ++f) {
        state = state * 1664525u + 1013904223u;
        const float v = static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
        x[static_cast<std::size_t>(i * 16 + g * 4 + f)] = v;
        sum += v;
      }
      if (sum > best) {
        best = sum;
        y[static_cast<std::size_t>(i)] = g;
      }
    }
  }
  return {Tensor::from_vector<float>({n, 16}, x), Tensor::from_vector<std::int64_t>({n}, y)};
}

TEST(ExtendingGuide, ATrainingLoopFromScratchRunsOneCompiledStep) {
  const ExtendingLoopData data = extending_loop_data(512);
  const Tensor& x_train = data.x;
  const Tensor& y_train = data.y;
  const std::int64_t n = 512, batch_size = 32;
  std::vector<float> epoch_accuracy;
  set_random_seed(41);  // the weights' draws, whatever tests ran before in this process
  // [snippet training_loop]
  // The model, optimizer, loss and metric of Keras's guide.
  KerasTensor inputs = Input({16});
  KerasTensor h = layers::Dense(64, {.activation = "relu"})(inputs);
  h = layers::Dense(64, {.activation = "relu"})(h);
  Model model(inputs, layers::Dense(4)(h));
  optimizers::Optimizer optimizer = optimizers::Adam({.learning_rate = 1e-2});
  losses::Loss loss_fn = losses::SparseCategoricalCrossentropy({.from_logits = true});
  metrics::Metric train_acc_metric = metrics::SparseCategoricalAccuracy();

  // One training step, built once from symbolic tensors: what Keras's loop records under
  // GradientTape, here a program (forward, loss, gradients, updates) run at every batch.
  Graph graph;
  Output x = graph.placeholder({Shape{kUnknownDim, 16}, DType::float32}, "x");
  Output y = graph.placeholder({Shape{kUnknownDim}, DType::int64}, "y");
  Output logits = model.impl().call(graph, {x})[0];
  Output loss_value = loss_fn(y, logits);
  std::vector<Variable> weights = model.trainable_weights();
  std::vector<Output> weight_nodes;
  for (const Variable& w : weights) weight_nodes.push_back(graph.variable(w));
  std::vector<Output> grads = gradients(loss_value, weight_nodes);
  std::vector<std::pair<Variable, Output>> grads_and_vars;
  for (std::size_t i = 0; i < weights.size(); ++i) grads_and_vars.emplace_back(weights[i], grads[i]);
  std::vector<Output> updates = optimizer.apply_gradients(graph, grads_and_vars);
  std::vector<Output> fetches{loss_value};
  for (const Output& statistic : train_acc_metric.build(y, logits)) fetches.push_back(statistic);
  Program train_step(graph, {x, y}, fetches, updates);

  // The loop: every batch runs the same program; the metric accumulates on the host.
  std::int64_t step = 0;
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (std::int64_t start = 0; start < n; start += batch_size) {
      std::vector<Tensor> batch{ops::slice(x_train, {start, 0}, {batch_size, -1}),
                                ops::slice(y_train, {start}, {batch_size})};
      std::vector<Tensor> out = train_step.run(batch, {.training = true, .step = step++});
      train_acc_metric.update({out.begin() + 1, out.end()});
    }
    epoch_accuracy.push_back(train_acc_metric.result());  // Keras: train_acc_metric.result()
    train_acc_metric.reset();                             // Keras: reset_state()
  }
  // [end snippet]
  ASSERT_EQ(epoch_accuracy.size(), 10u);
  EXPECT_GT(epoch_accuracy.back(), 0.8f);
  EXPECT_GT(epoch_accuracy.back(), epoch_accuracy.front());
  EXPECT_EQ(optimizer.iterations(), 10 * n / batch_size);
  // No graph growth per step: more steps add no node.
  const int nodes = graph.num_nodes();
  for (int i = 0; i < 5; ++i) train_step.run({x_train, y_train}, {.training = true, .step = step++});
  EXPECT_EQ(graph.num_nodes(), nodes);
  // The loop trained the model's own weights: predict sees them.
  const std::vector<float> logits_out = model.predict(x_train).to_vector<float>();
  const std::vector<std::int64_t> labels = y_train.to_vector<std::int64_t>();
  int right = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float* row = logits_out.data() + i * 4;
    right += static_cast<std::int64_t>(std::max_element(row, row + 4) - row) == labels[static_cast<std::size_t>(i)];
  }
  EXPECT_GT(right, static_cast<int>(0.8 * n));
}

// --- the guide quotes these regions exactly ---------------------------------------------------

std::string extending_read_file(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f) << "cannot open " << path;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Lines without the indentation they all share.
std::string extending_dedent(const std::vector<std::string>& lines) {
  std::size_t indent = std::string::npos;
  for (const auto& l : lines) {
    if (l.find_first_not_of(' ') != std::string::npos) indent = std::min(indent, l.find_first_not_of(' '));
  }
  std::string out;
  for (const auto& l : lines) out += (l.size() > indent ? l.substr(indent) : std::string()) + "\n";
  return out;
}

std::map<std::string, std::string> extending_test_snippets(const std::string& source) {
  std::map<std::string, std::string> snippets;
  std::istringstream in(source);
  std::string line, name;
  std::vector<std::string> lines;
  const std::string open = "// [snippet ", close = "// [end snippet]";
  while (std::getline(in, line)) {
    const std::size_t at = line.find(open);
    if (at != std::string::npos && line.find_first_not_of(' ') == at) {
      name = line.substr(at + open.size(), line.find(']', at) - at - open.size());
      lines.clear();
    } else if (line.find_first_not_of(' ') != std::string::npos && line.find(close) == line.find_first_not_of(' ')) {
      snippets[name] = extending_dedent(lines);
      name.clear();
    } else if (!name.empty()) {
      lines.push_back(line);
    }
  }
  return snippets;
}

TEST(ExtendingGuide, TheGuideQuotesTheseSnippetsExactly) {
  const std::string test_dir = std::string(STRATA_TEST_DATA) + "/../io/";
  std::map<std::string, std::string> snippets =
      extending_test_snippets(extending_read_file(test_dir + "extending_guide_test.cc"));
  EXPECT_GE(snippets.size(), 9u);
  // The custom op's regions live in the install test's consumer project, which builds against
  // the installed package as a user's project does.
  const std::map<std::string, std::string> custom_op_snippets =
      extending_test_snippets(extending_read_file(test_dir + "../install/consumer/custom_op.cc"));
  EXPECT_EQ(custom_op_snippets.size(), 3u);
  for (const auto& [name, text] : custom_op_snippets) {
    EXPECT_TRUE(snippets.emplace(name, text).second) << "snippet '" << name << "' defined twice";
  }
  std::istringstream doc(extending_read_file(std::string(STRATA_TEST_DATA) + "/../../docs/extending.md"));
  std::string line, pending;
  std::map<std::string, int> quoted;
  while (std::getline(doc, line)) {
    if (line.rfind("<!-- snippet: ", 0) == 0) {
      pending = line.substr(14, line.find(" -->") - 14);
      continue;
    }
    if (line.rfind("```cpp", 0) == 0) {
      std::string block;
      while (std::getline(doc, line) && line.rfind("```", 0) != 0) block += line + "\n";
      ASSERT_FALSE(pending.empty()) << "docs/extending.md has a C++ block no snippet marks:\n" << block;
      ASSERT_TRUE(snippets.count(pending)) << "docs/extending.md quotes snippet '" << pending
                                          << "', which neither extending_guide_test.cc nor custom_op.cc has";
      EXPECT_EQ(block, snippets.at(pending)) << "snippet '" << pending << "' differs from the test's";
      ++quoted[pending];
    }
    if (!line.empty()) pending.clear();
  }
  for (const auto& [name, text] : snippets) EXPECT_EQ(quoted[name], 1) << "snippet '" << name << "' quoted";
}

}  // namespace
}  // namespace strata::extending_guide_tests
