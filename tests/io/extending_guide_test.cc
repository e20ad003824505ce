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
#include "io/zip.h"
#include "layers/core/input_layer.h"
#include "layers/core/dense.h"
#include "layers/regularization/dropout.h"
#include "layers/initializers.h"
#include "losses/losses.h"
#include "optimizers/optimizers.h"
#include "models/model.h"
#include "core/eager.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/rng.h"
#include "core/ops/random_ops.h"
#include "core/ops/sequence_ops.h"
#include "core/program.h"
#include "core/autodiff.h"
#include "losses/accuracy_metrics.h"
#include "losses/crossentropy.h"
#include "optimizers/adam.h"
#include "data/dataset.h"
#include "losses/regression_metrics.h"
#include "models/callbacks.h"
#include "models/callbacks_backup.h"
#include "models/custom_model.h"
#include "models/custom_steps.h"
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

// [snippet model_subclass]
class MLP : public CustomModel {
 public:
  explicit MLP(std::int64_t units = 16) : CustomModel({}, {}, "", "MLP") {
    hidden = track("hidden", layers::Dense(units, {.activation = "relu"}));
    dropout = track("dropout", layers::Dropout(0.25, {.seed = 3}));
    out = track("out", layers::Dense(1));
  }

  // Keras's call(self, inputs): run once, on symbolic inputs, when the model is built.
  std::vector<KerasTensor> call(const std::vector<KerasTensor>& inputs) override {
    return {out(dropout(hidden(inputs[0])))};
  }

  Layer hidden, dropout, out;
};
// [end snippet]

// [snippet registered_model_subclass]
class Tower : public CustomModel {
 public:
  explicit Tower(std::int64_t units = 8, std::string name = "")
      : CustomModel({}, {}, std::move(name), "Tower"), units(units) {
    hidden = track("hidden", layers::Dense(units, {.activation = "relu"}));
    out = track("out", layers::Dense(1));
  }
  std::vector<KerasTensor> call(const std::vector<KerasTensor>& inputs) override {
    return {out(hidden(inputs[0]))};
  }

  // Keras's get_config and from_config: what it takes to make the model again. Saving adds
  // name, trainable and dtype, as Keras's base Model does.
  io::json get_config() const override { return {{"units", units}}; }
  static Model from_config(const io::json& config) {
    return make_model<Tower>(config.at("units").get<std::int64_t>(), config.at("name").get<std::string>());
  }

  std::int64_t units;
  Layer hidden, out;
};

// Keras: @keras.saving.register_keras_serializable(package="my_package") on the class.
const bool tower_registered = saving::register_keras_serializable<Tower>("my_package");
// [end snippet]

// [snippet custom_train_step]
class MyModel : public CustomModel {
 public:
  using CustomModel::CustomModel;

  // Keras's train_step(self, data), called once on symbolic tensors: the program it
  // builds is what fit runs on every batch.
  StepLogs train_step(StepBuilder& step) override {
    Output x = step.x()[0], y = step.y()[0];
    Output y_pred = step.call(x);                // self(x, training=True)
    Output loss = step.compute_loss(y, y_pred);  // self.compute_loss(y=y, y_pred=y_pred)
    std::vector<Variable> trainable_vars = trainable_variables();
    std::vector<Output> gradients = step.gradients(loss, trainable_vars);  // tape.gradient(loss, trainable_vars)
    step.apply(optimizer(), gradients, trainable_vars);  // self.optimizer.apply(gradients, trainable_vars)
    // Update the metrics (includes the metric that tracks the loss).
    for (metrics::Metric& metric : metrics()) {
      if (metric.name() == "loss") {
        step.update_state(metric, loss);
      } else {
        step.update_state(metric, y, y_pred);
      }
    }
    return metrics();  // Keras: {m.name: m.result() for m in self.metrics}
  }
};
// [end snippet]

// [snippet lower_level_step]
class LowerLevelModel : public CustomModel {
 public:
  using CustomModel::CustomModel;

  StepLogs train_step(StepBuilder& step) override {
    Output x = step.x()[0], y = step.y()[0];
    Output y_pred = step.call(x);
    Output loss = loss_fn(y, y_pred);  // our own loss: compile was given none
    std::vector<Variable> trainable_vars = trainable_variables();
    step.apply(optimizer(), step.gradients(loss, trainable_vars), trainable_vars);
    // Compute our own metrics.
    step.update_state(loss_tracker, loss);
    step.update_state(mae_metric, y, y_pred);
    return {loss_tracker, mae_metric};
  }

  // Keras's `metrics` property: the metrics listed here are reset at the start of each
  // epoch of fit() and of evaluate(); without it, results would accumulate across epochs.
  std::vector<metrics::Metric> metrics() const override { return {loss_tracker, mae_metric}; }

  metrics::Mean loss_tracker{{.name = "loss"}};
  metrics::MeanAbsoluteError mae_metric{{.name = "mae"}};
  losses::Loss loss_fn = losses::MeanSquaredError();
};
// [end snippet]

// [snippet weighted_step]
class WeightedModel : public CustomModel {
 public:
  using CustomModel::CustomModel;

  StepLogs train_step(StepBuilder& step) override {
    // Keras's `x, y, sample_weight = data`: invalid (None) when fit was given no weights.
    Output x = step.x()[0], y = step.y()[0], sample_weight = step.sample_weight();
    Output y_pred = step.call(x);
    // The loss function is configured in compile(); sample_weight weighs each sample.
    Output loss = step.compute_loss(y, y_pred, sample_weight);
    std::vector<Variable> trainable_vars = trainable_variables();
    step.apply(optimizer(), step.gradients(loss, trainable_vars), trainable_vars);
    for (metrics::Metric& metric : metrics()) {
      if (metric.name() == "loss") {
        step.update_state(metric, loss);
      } else {
        step.update_state(metric, y, y_pred, sample_weight);
      }
    }
    return metrics();
  }
};
// [end snippet]

// [snippet custom_test_step]
class EvalModel : public CustomModel {
 public:
  using CustomModel::CustomModel;

  // Keras's test_step(self, data): what evaluate (and fit's validation) runs per batch.
  StepLogs test_step(StepBuilder& step) override {
    Output x = step.x()[0], y = step.y()[0];
    Output y_pred = step.call(x);  // self(x, training=False): evaluate's programs infer
    Output loss = step.compute_loss(y, y_pred);
    for (metrics::Metric& metric : metrics()) {
      if (metric.name() != "loss") {
        step.update_state(metric, y, y_pred);
      } else {
        step.update_state(metric, loss);
      }
    }
    return metrics();
  }
};
// [end snippet]

// [snippet gan]
// keras.random.normal(shape=(batch_size, columns), seed=...): new draws at every step.
Output random_normal_rows(Output rows_like, std::int64_t columns, std::uint64_t stream) {
  return ops::random_normal_like(ops::random_uniform_rows(rows_like, columns, true, 1337, stream), 1337, stream);
}

class GAN : public CustomModel {
 public:
  GAN(Model discriminator, Model generator, std::int64_t latent_dim)
      : CustomModel({}, {}, "", "GAN"),
        discriminator(track("discriminator", discriminator)),
        generator(track("generator", generator)),
        latent_dim(latent_dim) {}

  std::vector<metrics::Metric> metrics() const override { return {d_loss_tracker, g_loss_tracker}; }

  // Keras's compile(d_optimizer, g_optimizer, loss_fn), which calls super().compile().
  void compile(optimizers::Optimizer d, optimizers::Optimizer g, losses::Loss loss) {
    d_optimizer = d;
    g_optimizer = g;
    loss_fn = loss;
    CustomModel::compile({});
  }

  StepLogs train_step(StepBuilder& step) override {
    Output real_images = step.x()[0];
    Output column = ops::reduce_mean(real_images, {1}, true);  // (batch_size, 1), shapes the labels
    // Sample random points in the latent space and decode them to fake images.
    Output random_latent_vectors = random_normal_rows(real_images, latent_dim, 0);
    Output generated_images = step.call(generator, random_latent_vectors);
    // Combine them with real images, and label them: 1 for fake, 0 for real.
    Output combined_images = ops::concat({generated_images, real_images}, 0);
    Output labels = ops::concat({ops::ones_like(column), ops::zeros_like(column)}, 0);
    // Add random noise to the labels - important trick!
    labels = ops::add(labels, ops::mul(ops::random_uniform_rows(labels, 1, true, 1337, 1), 0.05f));
    // Train the discriminator.
    Output predictions = step.call(discriminator, combined_images);
    Output d_loss = loss_fn(labels, predictions);
    std::vector<Variable> d_weights = discriminator.trainable_weights();
    step.apply(d_optimizer, step.gradients(d_loss, d_weights), d_weights);
    step.update_state(d_loss_tracker, d_loss);

    // Keras trains the generator through the discriminator it just updated: a new phase.
    step.next_phase();
    random_latent_vectors = random_normal_rows(real_images, latent_dim, 2);
    Output misleading_labels = ops::zeros_like(column);  // "all real images"
    // Train the generator (note that we should *not* update the weights of the discriminator)!
    predictions = step.call(discriminator, step.call(generator, random_latent_vectors));
    Output g_loss = loss_fn(misleading_labels, predictions);
    std::vector<Variable> g_weights = generator.trainable_weights();
    step.apply(g_optimizer, step.gradients(g_loss, g_weights), g_weights);
    step.update_state(g_loss_tracker, g_loss);
    return {d_loss_tracker, g_loss_tracker};
  }

  Layer discriminator, generator;
  std::int64_t latent_dim;
  optimizers::Optimizer d_optimizer, g_optimizer;
  losses::Loss loss_fn;
  metrics::Mean d_loss_tracker{{.name = "d_loss"}};
  metrics::Mean g_loss_tracker{{.name = "g_loss"}};
};
// [end snippet]

// [snippet compute_sum]
class ComputeSum : public CustomLayer {
 public:
  explicit ComputeSum(std::int64_t input_dim, std::string name = "")
      : CustomLayer("ComputeSum", name), input_dim(input_dim) {}

  void build(const std::vector<TensorSpec>&) override {
    total = add_weight("total", {input_dim}, initializers::Zeros(), {.trainable = false});
  }

  // Keras: self.total.assign_add(ops.sum(inputs, axis=0)); return self.total
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    Output batch_sum = ops::reduce_sum(inputs[0], {0});
    add_update(graph, ops::assign_add(graph.variable(total), batch_sum));
    // A program reads before it updates: the new total is the total read plus this sum.
    return {ops::add(graph.variable(total), batch_sum)};
  }

  std::int64_t input_dim;
  Variable total;
};
// [end snippet]

// [snippet activity_regularization_layer]
// A layer that creates an activity regularization loss.
class ActivityRegularizationLayer : public CustomLayer {
 public:
  explicit ActivityRegularizationLayer(double rate = 1e-2, std::string name = "")
      : CustomLayer("ActivityRegularizationLayer", name), rate(rate) {}

  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    add_loss(graph, ops::mul(ops::reduce_mean(inputs[0]), static_cast<float>(rate)));  // self.add_loss(...)
    return inputs;
  }

  double rate;
};
// [end snippet]

// [snippet masking_layers]
// Makes a mask: 1 where the id is not 0 (Keras's compute_mask with mask_zero).
class CustomEmbedding : public CustomLayer {
 public:
  CustomEmbedding(std::int64_t input_dim, std::int64_t output_dim, bool mask_zero = false, std::string name = "")
      : CustomLayer("CustomEmbedding", name), input_dim(input_dim), output_dim(output_dim), mask_zero(mask_zero) {}

  void build(const std::vector<TensorSpec>&) override {
    embeddings = add_weight("embeddings", {input_dim, output_dim}, initializers::RandomNormal());
  }
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {ops::embedding_lookup(graph.variable(embeddings), inputs[0], name)};
  }
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override {
    if (!mask_zero) return {};
    return {ops::not_equal(ops::cast(inputs[0], DType::float32), ops::constant(graph, 0.f))};
  }

  std::int64_t input_dim, output_dim;
  bool mask_zero;
  Variable embeddings;
};

// Passes the mask on: it changes no time step (Keras's supports_masking = True).
class MyActivation : public CustomLayer {
 public:
  explicit MyActivation(std::string name = "") : CustomLayer("MyActivation", name) { supports_masking = true; }
  std::vector<Output> call(Graph&, const std::vector<Output>& inputs) override { return {ops::relu(inputs[0])}; }
};

// Uses the mask: a softmax over the time steps that gives padding none of the weight.
class TemporalSoftmax : public CustomLayer {
 public:
  explicit TemporalSoftmax(std::string name = "") : CustomLayer("TemporalSoftmax", name) {}

  std::vector<Output> call(Graph&, const std::vector<Output>& inputs) override {
    return {ops::softmax(inputs[0], 1)};  // no mask came: every step counts
  }
  // Keras's call(self, inputs, mask=None), called when the inputs carry a mask.
  std::vector<Output> call_masked(Graph&, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override {
    Output broadcast_float_mask = ops::expand_dims(masks[0], -1);  // (batch, steps, 1)
    Output inputs_exp = ops::mul(ops::exp(inputs[0]), broadcast_float_mask);
    Output inputs_sum = ops::reduce_sum(inputs_exp, {1}, true);
    return {ops::div(inputs_exp, inputs_sum)};
  }
};
// [end snippet]

// [snippet vae]
// Uses (z_mean, z_log_var) to sample z, the vector encoding a digit.
class Sampling : public CustomLayer {
 public:
  explicit Sampling(std::string name = "") : CustomLayer("Sampling", name) {}
  bool accepts_input_count(std::size_t n) const override { return n == 2; }

  std::vector<Output> call(Graph&, const std::vector<Output>& inputs) override {
    const Output& z_mean = inputs[0];
    const Output& z_log_var = inputs[1];
    Output epsilon = ops::random_normal_like(z_mean, /*seed=*/1337, current_call);
    return {ops::add(z_mean, ops::mul(ops::exp(ops::mul(z_log_var, 0.5f)), epsilon))};
  }
};

// Maps inputs to a triplet (z_mean, z_log_var, z), and adds the KL divergence
// regularization loss (Keras's model adds it in its call; here the layer that has the
// graph's values does).
class Encoder : public CustomLayer {
 public:
  explicit Encoder(std::int64_t latent_dim = 32, std::int64_t intermediate_dim = 64, std::string name = "encoder")
      : CustomLayer("Encoder", name) {
    dense_proj = track("dense_proj", layers::Dense(intermediate_dim, {.activation = "relu"}));
    dense_mean = track("dense_mean", layers::Dense(latent_dim));
    dense_log_var = track("dense_log_var", layers::Dense(latent_dim));
    sampling = track("sampling", make_layer<Sampling>());
  }

  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    Output x = call_layer(dense_proj, graph, inputs[0]);
    Output z_mean = call_layer(dense_mean, graph, x);
    Output z_log_var = call_layer(dense_log_var, graph, x);
    Output z = call_layer(sampling, graph, std::vector<Output>{z_mean, z_log_var})[0];
    // kl_loss = -0.5 * mean(z_log_var - square(z_mean) - exp(z_log_var) + 1)
    Output kl = ops::add(ops::sub(ops::sub(z_log_var, ops::square(z_mean)), ops::exp(z_log_var)), 1.f);
    add_loss(graph, ops::mul(ops::reduce_mean(kl), -0.5f));
    return {z_mean, z_log_var, z};
  }

  Layer dense_proj, dense_mean, dense_log_var, sampling;
};

// Converts z, the encoded digit vector, back into a readable digit.
class Decoder : public CustomLayer {
 public:
  explicit Decoder(std::int64_t original_dim, std::int64_t intermediate_dim = 64, std::string name = "decoder")
      : CustomLayer("Decoder", name) {
    dense_proj = track("dense_proj", layers::Dense(intermediate_dim, {.activation = "relu"}));
    dense_output = track("dense_output", layers::Dense(original_dim, {.activation = "sigmoid"}));
  }

  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {call_layer(dense_output, graph, call_layer(dense_proj, graph, inputs[0]))};
  }

  Layer dense_proj, dense_output;
};

// Combines the encoder and decoder into an end-to-end model for training.
class VariationalAutoEncoder : public CustomModel {
 public:
  VariationalAutoEncoder(std::int64_t original_dim, std::int64_t intermediate_dim = 64, std::int64_t latent_dim = 32)
      : CustomModel({}, {}, "autoencoder", "VariationalAutoEncoder") {
    encoder = track("encoder", make_layer<Encoder>(latent_dim, intermediate_dim));
    decoder = track("decoder", make_layer<Decoder>(original_dim, intermediate_dim));
  }

  std::vector<KerasTensor> call(const std::vector<KerasTensor>& inputs) override {
    std::vector<KerasTensor> encoded = encoder(inputs);  // z_mean, z_log_var, z
    return {decoder(encoded[2])};
  }

  Layer encoder, decoder;
};
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

// A Model subclass with its own call, compiled before it is built: the first fit builds
// it from the arrays' shapes, and it then trains, predicts and evaluates as the functional
// model of the same layers does, with the same weights and the same dropout draws.
TEST(ExtendingGuide, AModelSubclassWithItsOwnCallTrainsAsTheFunctionalModelOfItsLayers) {
  const Tensor x = extending_ramp({64, 4});
  const Tensor y = extending_ramp({64, 1});
  // [snippet use_model_subclass]
  Model model = make_model<extending_guide::MLP>(16);
  model.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  History history = model.fit(x, y, {.batch_size = 16, .epochs = 3, .verbose = 0});  // builds it
  // [end snippet]
  EXPECT_EQ(history.history.at("mae").size(), 3u);
  auto& mlp = model_cast<extending_guide::MLP>(model);
  ASSERT_EQ(model.get_weights().size(), 4u) << "each tracked layer's weights once";
  EXPECT_EQ(mlp.hidden.weights()[0].shape(), (Shape{4, 16}));

  // The functional model of the same layers, from the subclass's weights before fitting.
  Model fresh = make_model<extending_guide::MLP>(16);
  model_cast<extending_guide::MLP>(fresh).build({Shape{4}});
  KerasTensor in = Input({4});
  KerasTensor h = layers::Dropout(0.25, {.seed = 3})(layers::Dense(16, {.activation = "relu"})(in));
  Model functional(in, layers::Dense(1)(h));
  functional.set_weights(fresh.get_weights());
  fresh.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  functional.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  set_random_seed(5);
  const History want = functional.fit(x, y, {.batch_size = 16, .epochs = 3, .verbose = 0});
  set_random_seed(5);
  const History got = fresh.fit(x, y, {.batch_size = 16, .epochs = 3, .verbose = 0});
  for (std::size_t e = 0; e < 3; ++e) {
    EXPECT_NEAR(got.history.at("loss")[e], want.history.at("loss")[e], 1e-6) << "epoch " << e;
  }
  strata::testing::expect_close(fresh.predict(x, {.verbose = 0}), functional.predict(x, {.verbose = 0}),
                                "predict", 1e-6, 1e-6);
  EXPECT_NEAR(fresh.evaluate(x, y, {.verbose = 0}).at("mae"), functional.evaluate(x, y, {.verbose = 0}).at("mae"),
              1e-6);

  // Built once; a model without a call of its own has nothing to build.
  EXPECT_THROW_WITH(mlp.build({Shape{4}}), ValueError, "is built already");
  auto plain = std::make_shared<CustomModel>();
  EXPECT_THROW_WITH(plain->build({Shape{4}}), ValueError, "has no call of its own");
}

// Built, a Model subclass quantizes as its functional twin does: its call's Dense layers
// become int8 layers and predict what the twin's predict.
TEST(ExtendingGuide, AModelSubclassQuantizesAsItsFunctionalTwin) {
  const Tensor x = extending_ramp({64, 4});
  const Tensor y = extending_ramp({64, 1});
  Model model = make_model<extending_guide::MLP>(16);
  model.compile({.optimizer = "adam", .loss = "mse"});
  model.fit(x, y, {.batch_size = 16, .epochs = 2, .verbose = 0});
  KerasTensor in = Input({4});
  KerasTensor h = layers::Dropout(0.25, {.seed = 3})(layers::Dense(16, {.activation = "relu"})(in));
  Model functional(in, layers::Dense(1)(h));
  functional.set_weights(model.get_weights());
  const Tensor before = model.predict(x, {.verbose = 0});
  model.quantize("int8");
  functional.quantize("int8");
  const Tensor after = model.predict(x, {.verbose = 0});
  strata::testing::expect_close(after, functional.predict(x, {.verbose = 0}), "int8", 1e-6, 1e-6);
  EXPECT_FALSE(after.to_vector<float>() == before.to_vector<float>()) << "the int8 kernels round";
}

// Before compile, predict builds it too; saved, it is the functional model of its call
// (a file naming its own class is not written yet: docs/extending.md, "Not yet").
TEST(ExtendingGuide, AModelSubclassPredictsBeforeCompileAndSavesAsItsFunctionalGraph) {
  strata::testing::ScratchDir dir;
  Model model = make_model<extending_guide::MLP>(8);
  const Tensor x = extending_ramp({5, 4});
  const Tensor y = model.predict(x, {.verbose = 0});
  EXPECT_EQ(y.shape(), (Shape{5, 1}));
  for (const char* file : {"mlp.keras", "mlp.h5"}) {
    model.save(dir.file(file));
    Model again = models::load_model(dir.file(file));
    strata::testing::expect_close(again.predict(x, {.verbose = 0}), y, file, 0, 0);
  }
}

TEST(ExtendingGuide, ARegisteredModelSubclassSavesAndLoadsAsItsOwnClass) {
  ASSERT_TRUE(extending_guide::tower_registered);
  strata::testing::ScratchDir dir;
  const Tensor x_train = extending_ramp({32, 4});
  const Tensor y_train = ops::sum(x_train, {1}, true);
  // [snippet save_model_subclass]
  Model model = make_model<extending_guide::Tower>(8);
  model.compile({.optimizer = "adam", .loss = "mse"});
  model.fit(x_train, y_train, {.epochs = 1, .verbose = 0});  // builds it
  model.save(dir.file("tower.keras"));  // "class_name": "Tower", "registered_name": "my_package>Tower"

  Model again = models::load_model(dir.file("tower.keras"));
  extending_guide::Tower& tower = model_cast<extending_guide::Tower>(again);  // its own class again
  // [end snippet]
  EXPECT_EQ(tower.units, 8);
  const Tensor x = extending_ramp({5, 4});
  strata::testing::expect_close(again.predict(x, {.verbose = 0}), model.predict(x, {.verbose = 0}), "tower", 0, 0);
  const io::json config = io::json::parse(io::ZipReader(dir.file("tower.keras")).read("config.json"));
  EXPECT_EQ(config["class_name"], "Tower");
  EXPECT_EQ(config["registered_name"], "my_package>Tower");
  EXPECT_EQ(config["compile_config"]["loss"], "mean_squared_error");
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
  std::vector<Output> grads = gradients(loss_value, weights);            // tape.gradient(loss_value, weights)
  std::vector<Output> updates = optimizer.apply(graph, grads, weights);  // optimizer.apply(grads, weights)
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

// --- Customizing what happens in fit() ----------------------------------------------------------
using extending_guide::EvalModel;
using extending_guide::GAN;
using extending_guide::LowerLevelModel;
using extending_guide::MyModel;
using extending_guide::WeightedModel;

// Keras's guide trains on np.random.random((1000, 32)) and np.random.random((1000, 1));
// here a fixed ramp of 1024 rows (whole batches of 32: Keras's loss tracker of a custom
// step averages batches, fit's built-in one samples, which agree on equal batches).
struct StepData {
  Tensor x, y;
};
StepData step_data(std::int64_t n = 1024) {
  std::vector<float> x(static_cast<std::size_t>(n * 32)), y(static_cast<std::size_t>(n));
  std::uint32_t state = 7;
  for (auto& v : x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    float s = 0;
    for (int j = 0; j < 32; ++j) s += x[static_cast<std::size_t>(i * 32 + j)] * (j % 3 == 0 ? 0.2f : -0.1f);
    y[static_cast<std::size_t>(i)] = s;
  }
  return {Tensor::from_vector<float>({n, 32}, x), Tensor::from_vector<float>({n, 1}, y)};
}

// The same weights in a built-in model and a custom one (Keras: the same seed).
template <typename T>
Model twin_of(const Model& built_in, const std::string& activation = "") {
  KerasTensor inputs = Input({32});
  Model model = make_model<T>(inputs, layers::Dense(1, {.activation = activation})(inputs));
  model.set_weights(built_in.get_weights());
  return model;
}

Model built_in_model(const std::string& activation = "") {
  set_random_seed(3);
  KerasTensor inputs = Input({32});
  return Model(inputs, layers::Dense(1, {.activation = activation})(inputs));
}

void expect_history_near(const History& got, const History& want, const std::string& key, double tolerance) {
  ASSERT_TRUE(got.history.count(key)) << key;
  ASSERT_TRUE(want.history.count(key)) << key;
  const auto& a = got.history.at(key);
  const auto& b = want.history.at(key);
  ASSERT_EQ(a.size(), b.size()) << key;
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tolerance) << key << " epoch " << i;
}

TEST(ExtendingGuide, ACustomTrainStepTrainsAsFitsOwn) {
  const StepData data = step_data();
  const Tensor& x = data.x;
  const Tensor& y = data.y;
  Model reference = built_in_model();
  Model twin = twin_of<MyModel>(reference);
  Model plain = twin_of<CustomModel>(reference);  // the default train_step: Keras's own
  // [snippet use_custom_train_step]
  // Construct and compile an instance of MyModel (Keras: MyModel(inputs, outputs)).
  KerasTensor inputs = Input({32});
  KerasTensor outputs = layers::Dense(1)(inputs);
  Model model = make_model<MyModel>(inputs, outputs);
  model.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  // Just use `fit` as usual.
  History history = model.fit(x, y, {.epochs = 3, .verbose = 0});
  // [end snippet]
  EXPECT_EQ(history.history.at("loss").size(), 3u);
  EXPECT_TRUE(history.history.count("mae"));

  reference.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  twin.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  plain.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  set_random_seed(11);  // the same shuffles
  History want = reference.fit(x, y, {.epochs = 3, .verbose = 0});
  set_random_seed(11);
  History got = twin.fit(x, y, {.epochs = 3, .verbose = 0});
  set_random_seed(11);
  History by_default = plain.fit(x, y, {.epochs = 3, .verbose = 0});
  expect_history_near(got, want, "loss", 1e-6);
  expect_history_near(got, want, "mae", 1e-6);
  expect_history_near(by_default, want, "loss", 1e-6);
  EXPECT_LT(want.history.at("loss").back(), want.history.at("loss").front());
  EXPECT_EQ(twin.optimizer().iterations(), 3 * 1024 / 32);
  strata::testing::expect_close(twin.predict(x, {.verbose = 0}), reference.predict(x, {.verbose = 0}), "weights",
                                1e-5, 1e-5);
  // evaluate runs the default test_step: the loss and the metrics, as fit's own.
  const auto scores = twin.evaluate(x, y, {.verbose = 0});
  const auto expected = reference.evaluate(x, y, {.verbose = 0});
  EXPECT_NEAR(scores.at("loss"), expected.at("loss"), 1e-5);
  EXPECT_NEAR(scores.at("mae"), expected.at("mae"), 1e-5);
}

// quantize replaces the Dense kernels: the custom steps built on the float ones are dropped
// as compile's are, so predict and fit then run the int8 layers, as the built-in model does.
TEST(ExtendingGuide, ACustomStepIsBuiltAgainAfterQuantize) {
  const StepData data = step_data(256);
  Model reference = built_in_model();
  Model twin = twin_of<MyModel>(reference);
  for (Model* m : {&reference, &twin}) m->compile({.optimizer = "adam", .loss = "mse"});
  set_random_seed(5);
  reference.fit(data.x, data.y, {.epochs = 1, .verbose = 0});
  set_random_seed(5);
  twin.fit(data.x, data.y, {.epochs = 1, .verbose = 0});
  const Tensor float_prediction = twin.predict(data.x, {.verbose = 0});
  reference.quantize("int8");
  twin.quantize("int8");
  const Tensor quantized = reference.predict(data.x, {.verbose = 0});
  float moved = 0;  // the int8 kernels round: the quantized model predicts otherwise
  const auto q = quantized.to_vector<float>(), f = float_prediction.to_vector<float>();
  for (std::size_t i = 0; i < q.size(); ++i) moved = std::max(moved, std::fabs(q[i] - f[i]));
  EXPECT_GT(moved, 1e-4f);
  strata::testing::expect_close(twin.predict(data.x, {.verbose = 0}), quantized, "predict after quantize", 1e-6, 1e-6);
  set_random_seed(6);
  History want = reference.fit(data.x, data.y, {.epochs = 2, .verbose = 0});
  set_random_seed(6);
  History got = twin.fit(data.x, data.y, {.epochs = 2, .verbose = 0});
  expect_history_near(got, want, "loss", 1e-6);
  strata::testing::expect_close(twin.predict(data.x, {.verbose = 0}), reference.predict(data.x, {.verbose = 0}),
                                "predict after fit after quantize", 1e-5, 1e-5);
}

TEST(ExtendingGuide, ACustomStepIsBuiltOnceAndFittingAddsNoNode) {
  const StepData data = step_data(256);
  Model model = twin_of<MyModel>(built_in_model());
  model.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  const Tensor half = ops::slice(data.x, {0, 0}, {128, -1});
  model.fit(data.x, data.y, {.epochs = 1, .verbose = 0, .validation_data = ValidationData(data.x, data.y)});
  model.evaluate(data.x, data.y, {.verbose = 0});
  model.predict(data.x, {.verbose = 0});
  CustomSteps& steps = *model_cast<MyModel>(model).steps();
  const int nodes = steps.num_nodes(), programs = steps.num_programs();
  const int train_nodes = model.graph().num_nodes();
  EXPECT_EQ(programs, 3);  // train, test, predict: one phase each
  model.fit(data.x, data.y, {.epochs = 3, .verbose = 0, .validation_data = ValidationData(data.x, data.y)});
  model.fit(half, ops::slice(data.y, {0, 0}, {128, -1}), {.batch_size = 50, .epochs = 1, .verbose = 0});
  model.evaluate(half, ops::slice(data.y, {0, 0}, {128, -1}), {.batch_size = 7, .verbose = 0});
  model.predict(half, {.batch_size = 3, .verbose = 0});
  model.train_on_batch(half, ops::slice(data.y, {0, 0}, {128, -1}));
  EXPECT_EQ(steps.num_nodes(), nodes);
  EXPECT_EQ(steps.num_programs(), programs);
  EXPECT_EQ(model.graph().num_nodes(), train_nodes);
}

TEST(ExtendingGuide, ALowerLevelStepTracksItsOwnMetricsResetEachEpoch) {
  const StepData data = step_data(512);
  Model reference = built_in_model();
  // [snippet use_lower_level_step]
  KerasTensor inputs = Input({32});
  Model model = make_model<LowerLevelModel>(inputs, layers::Dense(1)(inputs));
  // We don't pass a loss or metrics here.
  model.compile({.optimizer = "adam"});
  History history = model.fit(data.x, data.y, {.epochs = 5, .verbose = 0});
  // [end snippet]
  EXPECT_EQ(history.history.size(), 2u);  // "loss" and "mae"
  EXPECT_LT(history.history.at("mae").back(), history.history.at("mae").front());

  // The same step without the `metrics` override: nothing resets the trackers, so each
  // epoch's result averages every batch so far (Keras's guide warns of exactly this).
  class Unlisted : public LowerLevelModel {
   public:
    using LowerLevelModel::LowerLevelModel;
    std::vector<metrics::Metric> metrics() const override { return {}; }
  };
  Model listed = twin_of<LowerLevelModel>(reference), unlisted = twin_of<Unlisted>(reference);
  listed.compile({.optimizer = "adam"});
  unlisted.compile({.optimizer = "adam"});
  std::vector<float> batch_logs;
  auto record = callbacks::LambdaCallback(
      {.on_train_batch_end = [&](std::int64_t, Logs& logs) { batch_logs.push_back(logs.at("loss")); }});
  set_random_seed(5);
  History reset = listed.fit(data.x, data.y, {.epochs = 2, .verbose = 0, .callbacks = {record}});
  set_random_seed(5);
  History accumulated = unlisted.fit(data.x, data.y, {.epochs = 2, .verbose = 0});
  const auto& r = reset.history.at("loss");
  const auto& a = accumulated.history.at("loss");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(a[0], r[0], 1e-6);
  EXPECT_NEAR(a[1], (r[0] + r[1]) / 2, 1e-5);  // 16 batches an epoch, both epochs averaged
  EXPECT_GT(std::abs(a[1] - r[1]), 1e-4);
  // The callback saw the running logs: the last batch's is the epoch's.
  ASSERT_EQ(batch_logs.size(), 2u * 512 / 32);
  EXPECT_FLOAT_EQ(batch_logs[15], r[0]);
  EXPECT_FLOAT_EQ(batch_logs.back(), r[1]);
  // compile gave no loss: the default test step cannot compute one, and says so.
  EXPECT_THROW_WITH(listed.evaluate(data.x, data.y, {.verbose = 0}), ValueError, "compute_loss",
                    "loss given to compile");
}

TEST(ExtendingGuide, SampleWeightAndClassWeightReachACustomStep) {
  const StepData data = step_data(512);
  std::vector<float> labels = data.y.to_vector<float>();
  for (float& v : labels) v = v > 0 ? 1.f : 0.f;
  const Tensor y = Tensor::from_vector<float>({512, 1}, labels);
  std::vector<float> w(512);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 4) * 0.5f;
  const Tensor sample_weight = Tensor::from_vector<float>({512}, w);
  for (const bool by_class : {false, true}) {
    Model reference = built_in_model("sigmoid");
    Model twin = twin_of<WeightedModel>(reference, "sigmoid");
    reference.compile({.optimizer = "rmsprop", .loss = "binary_crossentropy"});
    twin.compile({.optimizer = "rmsprop", .loss = "binary_crossentropy", .metrics = {"accuracy"}});
    FitOptions options{.epochs = 3, .verbose = 0};
    if (by_class) {
      options.class_weight = {{0, 1.f}, {1, 3.f}};
    } else {
      options.sample_weight = sample_weight;
    }
    set_random_seed(9);
    History want = reference.fit(data.x, y, options);
    set_random_seed(9);
    History got = twin.fit(data.x, y, options);
    expect_history_near(got, want, "loss", 1e-6);
    EXPECT_TRUE(got.history.count("accuracy"));
  }
  // Unweighted, the same step runs with an invalid sample weight (Keras's None).
  Model reference = built_in_model("sigmoid");
  Model twin = twin_of<WeightedModel>(reference, "sigmoid");
  reference.compile({.optimizer = "rmsprop", .loss = "binary_crossentropy"});
  twin.compile({.optimizer = "rmsprop", .loss = "binary_crossentropy"});
  set_random_seed(9);
  History want = reference.fit(data.x, y, {.epochs = 2, .verbose = 0});
  set_random_seed(9);
  expect_history_near(twin.fit(data.x, y, {.epochs = 2, .verbose = 0}), want, "loss", 1e-6);
}

// compile's weighted_metrics: the default steps update them with the batch's sample
// weight, and a metric in both lists is logged twice (the second "weighted_" + its name),
// as compile's built-in steps and Keras's CompileMetrics do.
TEST(ExtendingGuide, WeightedMetricsTakeTheSampleWeightInTheDefaultSteps) {
  const StepData data = step_data(256);
  std::vector<float> w(256);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.25f;
  const Tensor sample_weight = Tensor::from_vector<float>({256}, w);
  Model reference = built_in_model();
  Model twin = twin_of<CustomModel>(reference);
  const CompileOptions options{.optimizer = "adam", .loss = "mse", .metrics = {"mae"}, .weighted_metrics = {"mae", "mse"}};
  reference.compile(options);
  twin.compile(options);
  set_random_seed(9);
  History want = reference.fit(data.x, data.y, {.epochs = 2, .verbose = 0, .sample_weight = sample_weight});
  set_random_seed(9);
  History got = twin.fit(data.x, data.y, {.epochs = 2, .verbose = 0, .sample_weight = sample_weight});
  for (const char* key : {"loss", "mae", "weighted_mae", "mse"}) expect_history_near(got, want, key, 1e-6);
  EXPECT_EQ(got.history.size(), want.history.size());
  // Weighted and unweighted differ here: the weights are not all equal.
  EXPECT_GT(std::abs(got.history.at("mae").back() - got.history.at("weighted_mae").back()), 1e-4);
  const auto want_scores = reference.evaluate(data.x, data.y, {.verbose = 0, .sample_weight = sample_weight});
  const auto got_scores = twin.evaluate(data.x, data.y, {.verbose = 0, .sample_weight = sample_weight});
  for (const char* key : {"loss", "mae", "weighted_mae", "mse"}) EXPECT_NEAR(got_scores.at(key), want_scores.at(key), 1e-6) << key;
}

TEST(ExtendingGuide, ACustomTestStepDrivesEvaluateAndValidation) {
  const StepData data = step_data(256);
  const Tensor& x = data.x;
  const Tensor& y = data.y;
  Model reference = built_in_model();
  // Counts the times the step is built (once per kind of batch).
  class Counting : public EvalModel {
   public:
    using EvalModel::EvalModel;
    StepLogs test_step(StepBuilder& step) override {
      ++builds;
      return EvalModel::test_step(step);
    }
    int builds = 0;
  };
  Model counted = twin_of<Counting>(reference);
  // [snippet use_custom_test_step]
  KerasTensor inputs = Input({32});
  Model model = make_model<EvalModel>(inputs, layers::Dense(1)(inputs));
  model.compile({.loss = "mse", .metrics = {"mae"}});
  // Evaluate with our custom test_step.
  std::map<std::string, float> scores = model.evaluate(x, y);
  // [end snippet]
  EXPECT_EQ(scores.size(), 2u);
  reference.compile({.loss = "mse", .metrics = {"mae"}});
  counted.compile({.loss = "mse", .metrics = {"mae"}});
  const auto want = reference.evaluate(x, y, {.verbose = 0});
  const auto got = counted.evaluate(x, y, {.verbose = 0});
  EXPECT_NEAR(got.at("loss"), want.at("loss"), 1e-6);
  EXPECT_NEAR(got.at("mae"), want.at("mae"), 1e-6);
  EXPECT_EQ(model_cast<Counting>(counted).builds, 1);
  // fit's validation runs the same test step, built once for all epochs.
  History history = counted.fit(x, y, {.epochs = 3, .verbose = 0, .validation_data = ValidationData(x, y)});
  EXPECT_EQ(model_cast<Counting>(counted).builds, 1);
  ASSERT_EQ(history.history.at("val_loss").size(), 3u);
  EXPECT_NEAR(history.history.at("val_loss").back(), counted.evaluate(x, y, {.verbose = 0}).at("loss"), 1e-6);
}

// MNIST-like digits, 8x8 in [0, 1]: a bar in one of eight places, plus noise.
Tensor gan_digits(std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n * 64));
  std::uint32_t state = 99;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t bar = i % 8;
    for (std::int64_t p = 0; p < 64; ++p) {
      state = state * 1664525u + 1013904223u;
      const float noise = 0.1f * static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
      const bool on = (i % 2 == 0) ? p / 8 == bar : p % 8 == bar;
      v[static_cast<std::size_t>(i * 64 + p)] = (on ? 0.9f : 0.f) + noise;
    }
  }
  return Tensor::from_vector<float>({n, 64}, v);
}

TEST(ExtendingGuide, AGANTrainsBothNetsWithTheirOwnOptimizers) {
  set_random_seed(21);
  const Tensor all_digits = gan_digits(256);
  // [snippet use_gan]
  const std::int64_t latent_dim = 8;
  KerasTensor image = Input({64});
  KerasTensor h = layers::Dense(32, {.activation = "relu"})(image);
  Model discriminator(image, layers::Dense(1)(h), {.name = "discriminator"});
  KerasTensor latent = Input({latent_dim});
  KerasTensor g = layers::Dense(32, {.activation = "relu"})(latent);
  Model generator(latent, layers::Dense(64, {.activation = "sigmoid"})(g), {.name = "generator"});

  Model gan = make_model<GAN>(discriminator, generator, latent_dim);
  model_cast<GAN>(gan).compile(optimizers::Adam({.learning_rate = 0.0003}), optimizers::Adam({.learning_rate = 0.0003}),
                               losses::BinaryCrossentropy({.from_logits = true}));
  // The real images only: the step makes its own labels.
  Dataset dataset = Dataset::from_tensors({all_digits}).shuffle(256, 1).batch(32);
  History history = gan.fit(dataset, {.epochs = 2, .verbose = 0});
  // [end snippet]
  GAN& model = model_cast<GAN>(gan);
  const std::vector<Tensor> d_before = discriminator.get_weights(), g_before = generator.get_weights();
  std::vector<std::string> batch_keys;
  std::vector<float> epoch_d_loss;
  auto record = callbacks::LambdaCallback({
      .on_epoch_end = [&](int, Logs& logs) { epoch_d_loss.push_back(logs.at("d_loss")); },
      .on_train_batch_end =
          [&](std::int64_t, Logs& logs) {
            if (batch_keys.empty()) {
              for (const auto& [key, value] : logs) batch_keys.push_back(key);
            }
          },
  });
  History more = gan.fit(dataset, {.epochs = 3, .verbose = 0, .callbacks = {record}});
  for (const char* key : {"d_loss", "g_loss"}) {
    ASSERT_EQ(history.history.at(key).size(), 2u) << key;
    ASSERT_EQ(more.history.at(key).size(), 3u) << key;
    for (float v : more.history.at(key)) EXPECT_TRUE(std::isfinite(v)) << key;
  }
  EXPECT_EQ(more.history.size(), 2u);
  EXPECT_EQ(batch_keys, (std::vector<std::string>{"d_loss", "g_loss"}));
  EXPECT_EQ(epoch_d_loss, more.history.at("d_loss"));
  // Each net trained with its own optimizer, one update per batch (8 a pass).
  EXPECT_EQ(model.d_optimizer.iterations(), 5 * 8);
  EXPECT_EQ(model.g_optimizer.iterations(), 5 * 8);
  auto moved = [](const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const auto u = a[i].to_vector<float>(), v = b[i].to_vector<float>();
      for (std::size_t j = 0; j < u.size(); ++j) d += std::abs(u[j] - v[j]);
    }
    return d;
  };
  EXPECT_GT(moved(discriminator.get_weights(), d_before), 0.0);
  EXPECT_GT(moved(generator.get_weights(), g_before), 0.0);
  // The GAN's weights are both nets'; its train step is two programs (the two phases).
  EXPECT_EQ(gan.weights().size(), discriminator.weights().size() + generator.weights().size());
  EXPECT_EQ(model.steps()->num_programs(), 2);
  // Both nets still predict as models of their own: the generator makes 8x8 images in
  // [0, 1] that the discriminator scores with finite logits.
  const Tensor fakes = generator.predict(ops::mul(extending_ramp({64, latent_dim}), 4.f), {.verbose = 0});
  EXPECT_EQ(fakes.shape(), (Shape{64, 64}));
  for (float p : fakes.to_vector<float>()) EXPECT_TRUE(p >= 0.f && p <= 1.f);
  for (float logit : discriminator.predict(fakes, {.verbose = 0}).to_vector<float>()) EXPECT_TRUE(std::isfinite(logit));
}

// MyModel's fit, interrupted by an exception after `interrupt_at` batches (never: -1) and
// backed up every batch into `backup` (none: ""), run by `fit` on the model; the final
// weights and the optimizer's step count.
std::pair<std::vector<Tensor>, std::int64_t> fit_custom_step_with_backup(
    const std::string& backup, int interrupt_at, const std::function<void(Model&, std::vector<Callback>)>& fit) {
  set_random_seed(17);
  KerasTensor inputs = Input({32});
  Model model = make_model<MyModel>(inputs, layers::Dense(1)(inputs));
  model.compile({.optimizer = "adam", .loss = "mse", .metrics = {"mae"}});
  int batches = 0;
  std::vector<Callback> cbs;
  if (!backup.empty()) cbs.push_back(callbacks::BackupAndRestore(backup, {.save_freq = std::int64_t{1}}));
  cbs.push_back(callbacks::LambdaCallback({.on_train_batch_end = [&](std::int64_t, Logs&) {
    if (++batches == interrupt_at) throw std::runtime_error("interrupted");
  }}));
  fit(model, cbs);
  return {model.get_weights(), model.optimizer().iterations()};
}

// Interrupted in its second epoch and resumed from the backup, the fit ends with the
// uninterrupted one's weights, bit for bit.
void expect_custom_step_resumes(const std::function<void(Model&, std::vector<Callback>)>& fit) {
  strata::testing::ScratchDir dir;
  const auto [want, want_iterations] = fit_custom_step_with_backup("", -1, fit);
  EXPECT_THROW(fit_custom_step_with_backup(dir.file("backup"), 21, fit), std::runtime_error);
  const auto [got, got_iterations] = fit_custom_step_with_backup(dir.file("backup"), -1, fit);
  EXPECT_EQ(got_iterations, want_iterations);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) strata::testing::expect_close(got[i], want[i], "weight", 0, 0);
}

TEST(ExtendingGuide, ACustomStepResumesFromABackupAsFitsOwn) {
  const StepData data = step_data(256);
  expect_custom_step_resumes([&](Model& model, std::vector<Callback> cbs) {
    set_random_seed(23);
    model.fit(data.x, data.y, {.batch_size = 16, .epochs = 3, .verbose = 0, .callbacks = std::move(cbs)});
  });
}

// The same on a shuffled Dataset: the step is built from the Dataset's first batch before
// the backup is restored, so the optimizer's slots it saved are there to take it.
TEST(ExtendingGuide, ACustomStepResumesFromABackupOnADataset) {
  const StepData data = step_data(256);
  expect_custom_step_resumes([&](Model& model, std::vector<Callback> cbs) {
    model.fit(Dataset::from_tensors(data.x, data.y).shuffle(64, 5).batch(16),
              {.epochs = 3, .verbose = 0, .callbacks = std::move(cbs)});
  });
}

TEST(ExtendingGuide, ACustomPredictStepDrivesPredict) {
  // Keras's predict_step(data): here probabilities from a model that outputs logits.
  class Probabilities : public CustomModel {
   public:
    using CustomModel::CustomModel;
    std::vector<Output> predict_step(StepBuilder& step) override { return {ops::sigmoid(step.call(step.x()[0]))}; }
  };
  const StepData data = step_data(100);
  Model reference = built_in_model();
  Model model = twin_of<Probabilities>(reference);
  const std::vector<float> logits = reference.predict(data.x, {.verbose = 0}).to_vector<float>();
  auto expect_probabilities = [&](const Tensor& got, const char* what) {
    const std::vector<float> probabilities = got.to_vector<float>();
    ASSERT_EQ(probabilities.size(), logits.size()) << what;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      EXPECT_NEAR(probabilities[i], 1 / (1 + std::exp(-logits[i])), 1e-6) << what << " row " << i;
    }
  };
  // Compiled or not, predict runs predict_step, as Keras's predict does: on arrays, on a
  // Dataset and one batch at a time.
  for (const bool compiled : {false, true}) {
    if (compiled) model.compile({.optimizer = "sgd", .loss = "mse"});
    const char* what = compiled ? "compiled" : "uncompiled";
    expect_probabilities(model.predict(data.x, {.batch_size = 16, .verbose = 0}), what);
    expect_probabilities(model.predict(Dataset::from_tensors({data.x}).batch(16), {.verbose = 0}), what);
    const Tensor one = model.predict_on_batch(ops::slice(data.x, {0, 0}, {1, -1}));
    EXPECT_NEAR(one.item(), 1 / (1 + std::exp(-logits[0])), 1e-6) << what;
  }
  // A model whose predict_step is Keras's own, self(x), predicts with the model's
  // inference program before compile, as any model does.
  Model plain = twin_of<CustomModel>(reference);
  strata::testing::expect_close(plain.predict(data.x, {.verbose = 0}), reference.predict(data.x, {.verbose = 0}),
                                "self(x)", 0, 0);
}

// next_phase(): a later phase reads the weights an earlier one updated (Keras's step runs
// in order); without it, every read of the step sees the weights as the step began.
TEST(ExtendingGuide, ANextPhaseReadsWhatTheLastOneUpdated) {
  class TwoHalves : public CustomModel {
   public:
    TwoHalves(const KerasTensor& in, const KerasTensor& out, bool split) : CustomModel(in, out), split(split) {}
    // y = w x on ones: the loss is w, its gradient 1, and SGD(1.0) takes w from 1 to 0.
    StepLogs train_step(StepBuilder& step) override {
      Output loss = ops::reduce_mean(step.call(step.x()[0]));
      std::vector<Variable> w = trainable_variables();
      step.apply(sgd, step.gradients(loss, w), w);
      step.update_state(before, loss);
      if (split) step.next_phase();
      step.update_state(after, ops::reduce_mean(step.call(step.x()[0])));
      return {before, after};
    }
    bool split;
    optimizers::Optimizer sgd = optimizers::SGD({.learning_rate = 1.0});
    metrics::Mean before{{.name = "before"}}, after{{.name = "after"}};
  };
  for (const bool split : {true, false}) {
    KerasTensor in = Input({1});
    Model model = make_model<TwoHalves>(in, layers::Dense(1, {.use_bias = false})(in), split);
    model.set_weights({Tensor::from_vector<float>({1, 1}, {1.f})});
    model.compile({});
    const std::vector<Tensor> ones{Tensor::from_vector<float>({2, 1}, {1.f, 1.f})};
    const std::map<std::string, float> logs = model.train_on_batch(ones, std::vector<Tensor>{});  // x alone
    EXPECT_FLOAT_EQ(logs.at("before"), 1.f) << split;
    EXPECT_FLOAT_EQ(logs.at("after"), split ? 0.f : 1.f) << split;
    EXPECT_FLOAT_EQ(model.get_weights()[0].item(), 0.f) << split;
    EXPECT_EQ(model_cast<TwoHalves>(model).steps()->num_programs(), split ? 2 : 1);
  }
}

TEST(ExtendingGuide, ANonTrainableWeightUpdatedInCallAccumulatesOverCalls) {
  // [snippet use_compute_sum]
  Layer my_sum = make_layer<extending_guide::ComputeSum>(2);
  KerasTensor x = Input({2});
  Model model(x, my_sum(x));
  Tensor ones = Tensor::from_vector<float>({2, 2}, {1.f, 1.f, 1.f, 1.f});
  Tensor y = model.predict_on_batch(ones);  // [2, 2]
  y = model.predict_on_batch(ones);         // [4, 4]
  // [end snippet]
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{4.f, 4.f}));
  // A weight of the layer, but not a trainable one.
  EXPECT_EQ(my_sum.weights().size(), 1u);
  EXPECT_EQ(my_sum.non_trainable_weights().size(), 1u);
  EXPECT_TRUE(my_sum.trainable_weights().empty());
  EXPECT_EQ(my_sum.get_weights()[0].to_vector<float>(), (std::vector<float>{4.f, 4.f}));
}

TEST(ExtendingGuide, AddLossAddsALayersLossToTheModelsLoss) {
  // [snippet use_activity_regularization_layer]
  KerasTensor inputs = Input({3});
  KerasTensor hidden = layers::Dense(4)(inputs);
  KerasTensor outputs = make_layer<extending_guide::ActivityRegularizationLayer>(0.5)(hidden);
  Model model(inputs, outputs);
  // fit and evaluate minimize and report the mean squared error plus 0.5 * mean(hidden).
  model.compile({.optimizer = "sgd", .loss = "mse"});
  // [end snippet]
  const Tensor x = extending_ramp({8, 3});
  const Tensor y = ops::add(extending_ramp({8, 4}), 1.f);
  std::vector<Tensor> weights = model.get_weights();
  weights[1] = ops::add(Tensor({4}), 1.f);  // a bias of 1: the layer's loss is about 0.5, not lost in the tolerance
  model.set_weights(weights);
  const std::vector<float> predicted = model.predict(x).to_vector<float>(), target = y.to_vector<float>();
  double squared = 0, mean = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    squared += (predicted[i] - target[i]) * (predicted[i] - target[i]);
    mean += predicted[i];
  }
  const double n = static_cast<double>(predicted.size());
  ASSERT_GT(0.5 * mean / n, 0.1);
  EXPECT_NEAR(model.evaluate(x, y, {.batch_size = 8, .verbose = 0}).at("loss"), squared / n + 0.5 * mean / n, 1e-5);
  // A custom step's compute_loss adds it too (Keras's model.losses).
  KerasTensor in = Input({3});
  Model stepped = make_model<extending_guide::MyModel>(
      in, make_layer<extending_guide::ActivityRegularizationLayer>(0.5)(layers::Dense(4)(in)));
  stepped.compile({.optimizer = "sgd", .loss = "mse"});
  stepped.set_weights(model.get_weights());
  EXPECT_NEAR(stepped.evaluate(x, y, {.batch_size = 8, .verbose = 0}).at("loss"), squared / n + 0.5 * mean / n, 1e-5);
}

TEST(ExtendingGuide, CustomLayersMakePassOnAndUseMasks) {
  // [snippet use_masking_layers]
  KerasTensor inputs = Input({5}, {.dtype = DType::int32});  // token ids, 0 for padding
  Layer embedding = make_layer<extending_guide::CustomEmbedding>(10, 3, /*mask_zero=*/true);
  KerasTensor x = embedding(inputs);                       // makes the mask
  x = make_layer<extending_guide::MyActivation>()(x);       // passes it on
  KerasTensor outputs = make_layer<extending_guide::TemporalSoftmax>()(x);  // uses it
  Model model(inputs, outputs);
  // [end snippet]
  const std::vector<std::int32_t> ids{3, 1, 4, 0, 0, 2, 7, 1, 8, 0};
  const std::vector<float> out = model.predict(Tensor::from_vector<std::int32_t>({2, 5}, ids)).to_vector<float>();
  const std::vector<float> table = embedding.get_weights()[0].to_vector<float>();
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t d = 0; d < 3; ++d) {
      double sum = 0;
      for (std::size_t t = 0; t < 5; ++t) {
        const auto id = static_cast<std::size_t>(ids[b * 5 + t]);
        if (id != 0) sum += std::exp(std::max(0.f, table[id * 3 + d]));
      }
      for (std::size_t t = 0; t < 5; ++t) {
        const auto id = static_cast<std::size_t>(ids[b * 5 + t]);
        const double expected = id == 0 ? 0.0 : std::exp(std::max(0.f, table[id * 3 + d])) / sum;
        EXPECT_NEAR(out[(b * 5 + t) * 3 + d], expected, 1e-6) << "sample " << b << " step " << t << " feature " << d;
      }
    }
  }
}

TEST(ExtendingGuide, TheVariationalAutoEncoderTrainsOnItsReconstructionAndKLLosses) {
  std::vector<float> pixels(512 * 64);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>((i * 37 + i / 64) % 11) / 10.f;
  const Tensor x_train = Tensor::from_vector<float>({512, 64}, pixels);
  // [snippet use_vae]
  Model vae = make_model<extending_guide::VariationalAutoEncoder>(64, 32, 8);
  vae.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-3}), .loss = losses::MeanSquaredError()});
  History history = vae.fit(x_train, x_train, {.batch_size = 64, .epochs = 2, .verbose = 0});
  // [end snippet]
  const float first = history.history.at("loss").front();
  const std::vector<float> later = vae.fit(x_train, x_train, {.batch_size = 64, .epochs = 8, .verbose = 0}).history.at("loss");
  EXPECT_LT(later.back(), first);
  // The loss is the reconstruction's plus the encoder's KL term: with z_mean = 1 and
  // z_log_var = 0 the KL term is 0.5, and a decoder of zero weights outputs 0.5 whatever z is.
  auto& model = model_cast<extending_guide::VariationalAutoEncoder>(vae);
  auto& encoder = layer_cast<extending_guide::Encoder>(model.encoder);
  auto& decoder = layer_cast<extending_guide::Decoder>(model.decoder);
  encoder.dense_mean.set_weights({Tensor({32, 8}), ops::add(Tensor({8}), 1.f)});
  encoder.dense_log_var.set_weights({Tensor({32, 8}), Tensor({8})});
  decoder.dense_output.set_weights({Tensor({32, 64}), Tensor({64})});
  double squared = 0;
  for (float p : pixels) squared += (p - 0.5) * (p - 0.5);
  EXPECT_NEAR(vae.evaluate(x_train, x_train, {.batch_size = 512, .verbose = 0}).at("loss"),
              squared / static_cast<double>(pixels.size()) + 0.5, 1e-5);
}

// add_update takes an update of a weight, add_loss a float value; each error names the layer.
class MisusedHooks : public CustomLayer {
 public:
  explicit MisusedHooks(bool update) : CustomLayer("MisusedHooks", update ? "bad_update" : "bad_loss"), update(update) {}
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    if (update) {
      add_update(graph, ops::relu(inputs[0]));
    } else {
      add_loss(graph, ops::cast(inputs[0], DType::int32));
    }
    return inputs;
  }
  bool update;
};

TEST(ExtendingGuide, AddUpdateAndAddLossRefuseWhatIsNotAnUpdateOrAFloatLoss) {
  for (const bool update : {true, false}) {
    KerasTensor x = Input({2});
    std::string message;
    try {
      Model model(x, make_layer<MisusedHooks>(update)(x));
      model.predict(extending_ramp({1, 2}));
    } catch (const ValueError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(update ? "MisusedHooks 'bad_update': add_update" : "MisusedHooks 'bad_loss': add_loss takes a float32"),
              std::string::npos)
        << message;
  }
}

TEST(ExtendingGuide, CustomStepsRefuseWhatTheyCannotDo) {
  KerasTensor inputs = Input({32});
  Model model = make_model<MyModel>(inputs, layers::Dense(1)(inputs));
  const StepData data = step_data(64);
  EXPECT_THROW_WITH(model.fit(data.x, data.y, {.verbose = 0}), Error, "compile() before fit");
  // A GAN has no outputs for compile's metrics to measure, as its first step says (a model
  // with a call of its own, compiled before it was built, gets its outputs there).
  KerasTensor image = Input({64});
  Model d(image, layers::Dense(1)(image));
  KerasTensor latent = Input({4});
  Model g(latent, layers::Dense(64)(latent));
  Model gan = make_model<GAN>(d, g, 4);
  gan.compile({.metrics = {"mae"}});
  EXPECT_THROW_WITH(gan.fit(Dataset::from_tensors({Tensor::filled({8, 64}, 0.f)}).batch(8), {.verbose = 0}),
                    ValueError, "no outputs");
  // A Mean takes values, a metric of targets takes both.
  Graph graph;
  Output v = graph.placeholder({Shape{kUnknownDim}, DType::float32});
  metrics::Mean mean({.name = "m"});
  EXPECT_THROW_WITH(mean.build(v, v), ValueError, "Mean of values");
  metrics::MeanAbsoluteError mae;
  EXPECT_THROW_WITH(mae.impl().build_values(v, {}), ValueError, "y_true, y_pred");
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
  EXPECT_GE(snippets.size(), 18u);
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
