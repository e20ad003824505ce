// Training under Keras's mixed-precision policies (issue #39): the gradients of a layer
// under mixed_bfloat16 / mixed_float16 are that dtype's values, as Keras's TensorFlow
// backend computes them (core/ops/elementwise.cc: the rounding ops' gradients), and a
// mixed_float16 model trains through Keras's LossScaleOptimizer
// (optimizers/loss_scale_optimizer.h), which compile adds as Keras's does. Checked against
// Keras's own training: tests/data/mixed_precision_training/
// (tests/reference/make_mixed_precision_training_goldens.py) holds compiled models before
// and after one train_on_batch per batch, with the batches and the losses.
//
// With STRATA_LOSS_SCALE_RESAVE_DIR set, the LossScaleOptimizer file Strata saves stays
// there for tests/reference/check_loss_scale_resaved.py to load in Keras.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/error.h"
#include "core/precision_rounding.h"
#include "io/hdf5.h"
#include "io/npy.h"
#include "io/saving.h"
#include "io/zip.h"
#include "strata.h"

namespace strata::mixed_precision_training_test {
namespace {

const std::string kData = std::string(STRATA_TEST_DATA) + "/mixed_precision_training/";

struct Restore {
  ~Restore() { set_dtype_policy("float32"); }
};

// Trains `model` with one train_on_batch per `batch` rows of the case's data; returns the
// losses. `after_step` sees the model after each step.
std::vector<float> train_like_keras(Model& model, const std::string& name, std::int64_t batch,
                                    const std::function<void(int)>& after_step = {}) {
  const Tensor x = io::load_npy(kData + name + ".x.npy");
  const Tensor y = io::load_npy(kData + name + ".y.npy");
  std::vector<float> losses;
  for (std::int64_t begin = 0, step = 0; begin < x.shape()[0]; begin += batch, ++step) {
    losses.push_back(model.train_on_batch(x.slice_rows(begin, begin + batch), y.slice_rows(begin, begin + batch))
                         .at("loss"));
    if (after_step) after_step(static_cast<int>(step));
  }
  return losses;
}

// The largest difference between two models' weights, over the largest weight.
double weight_distance(const Model& a, const Model& b) {
  const auto wa = a.weights(), wb = b.weights();
  EXPECT_EQ(wa.size(), wb.size());
  double largest = 0, difference = 0;
  for (std::size_t i = 0; i < std::min(wa.size(), wb.size()); ++i) {
    const auto va = wa[i].value().to_vector<float>(), vb = wb[i].value().to_vector<float>();
    EXPECT_EQ(va.size(), vb.size()) << wa[i].path();
    for (std::size_t j = 0; j < std::min(va.size(), vb.size()); ++j) {
      largest = std::max(largest, std::fabs(double(vb[j])));
      difference = std::max(difference, std::fabs(double(va[j]) - double(vb[j])));
    }
  }
  return difference / largest;
}

// An MLP (8 → 16 relu → 16 relu → 3) made under `policy`, compiled with SGD and trained
// one step on zeros (its train graph built).
Model mlp_after_one_step(const std::string& policy) {
  set_dtype_policy(policy);
  const KerasTensor in = Input({8});
  const KerasTensor h1 = layers::Dense(16, {.activation = "relu"})(in);
  const KerasTensor h2 = layers::Dense(16, {.activation = "relu"})(h1);
  Model model(in, layers::Dense(3)(h2));
  set_dtype_policy("float32");
  model.compile({.optimizer = optimizers::SGD(), .loss = "mse"});
  model.train_on_batch(Tensor(Shape{4, 8}), Tensor(Shape{4, 3}));
  return model;
}

}  // namespace

TEST(MixedPrecisionTraining, GradientsOfABfloat16LayerAreBfloat16Values) {
  // SGD with rate 1 from a zero kernel leaves -gradient in the kernel, exactly.
  Restore restore;
  const auto kernel_after_one_step = [](const std::string& policy) {
    set_dtype_policy(policy);
    const KerasTensor in = Input({6});
    const layers::Dense dense(3, {.use_bias = false, .kernel_initializer = "zeros"});
    Model model(in, dense(in));
    set_dtype_policy("float32");
    model.compile({.optimizer = optimizers::SGD({.learning_rate = 1.0}), .loss = "mse"});
    Tensor x(Shape{4, 6}), y(Shape{4, 3});
    for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = 0.37f * float(i % 11) - 1.1f;
    for (std::int64_t i = 0; i < y.size(); ++i) y.data<float>()[i] = 0.1f * float(i) + 0.013f;
    model.train_on_batch(x, y);
    return dense.impl().weights[0].value().to_vector<float>();
  };
  int unrounded_in_float32 = 0;
  for (float v : kernel_after_one_step("float32")) unrounded_in_float32 += v != round_to_bfloat16(v);
  EXPECT_GT(unrounded_in_float32, 0) << "the float32 gradients are bfloat16 values already: the test shows nothing";
  int nonzero = 0;
  for (float v : kernel_after_one_step("mixed_bfloat16")) {
    EXPECT_EQ(v, round_to_bfloat16(v)) << "a gradient of a mixed_bfloat16 Dense is not a bfloat16 value";
    nonzero += v != 0.f;
  }
  EXPECT_GT(nonzero, 0);
}

TEST(MixedPrecisionTraining, ProductsOfBfloat16ValuesAreMarkedForTheBfloat16Gemm) {
  // Every product of a mixed_bfloat16 MLP's train step, forward and backward, multiplies
  // two bfloat16 values (a rounding op's output, or relu's gradient of one): each is marked
  // for the bfloat16 GEMM (core/ops/matmul.cc); a float32 model's are not.
  Restore restore;
  const auto marked_products = [](const std::string& policy) {
    const Model model = mlp_after_one_step(policy);
    int marked = 0, products = 0;
    for (const Node& node : model.graph().nodes()) {
      if (node.op != "dense" && node.op != "matmul") continue;
      ++products;
      const std::string* operands = node.attrs.find<std::string>("operands");
      marked += operands && *operands == "bfloat16";
    }
    return std::pair{marked, products};
  };
  const auto [marked, products] = marked_products("mixed_bfloat16");
  EXPECT_GE(products, 8);  // three forward, three kernel gradients, two input gradients
  EXPECT_EQ(marked, products);
  EXPECT_EQ(marked_products("float32").first, 0);
  // EinsumDense's products too, on a sequence (each op rounded) as on matrices (fused).
  set_dtype_policy("mixed_bfloat16");
  const KerasTensor seq = Input({5, 8});
  const KerasTensor projected = layers::EinsumDense("abc,cd->abd", Shape{5, 16}, {.bias_axes = "d"})(seq);
  Model einsum(seq, layers::EinsumDense("ab,bc->ac", Shape{3})(layers::Flatten()(projected)));
  set_dtype_policy("float32");
  einsum.compile({.optimizer = optimizers::SGD(), .loss = "mse"});
  einsum.train_on_batch(Tensor(Shape{4, 5, 8}), Tensor(Shape{4, 3}));
  int einsum_marked = 0, einsum_products = 0;
  for (const Node& node : einsum.graph().nodes()) {
    if (node.op != "matmul" && node.op != "batch_matmul" && node.op != "dense") continue;
    ++einsum_products;
    const std::string* operands = node.attrs.find<std::string>("operands");
    einsum_marked += operands && *operands == "bfloat16";
  }
  EXPECT_GE(einsum_products, 5);
  EXPECT_EQ(einsum_marked, einsum_products);
}

TEST(MixedPrecisionTraining, ProductsRoundTheirOwnResultsInTheTrainStep) {
  // In a mixed_bfloat16 MLP's train step every product's result that is rounded is rounded
  // by the product's kernel (output_rounding, core/graph.h): the forward Dense layers, the
  // kernels' gradients (rounded as the kernels' rounding ops' gradients round them) and
  // the inputs' gradients (rounded after the previous layer's relu mask): no rounding op
  // reads a product back. The rounding ops left round operands and sums.
  Restore restore;
  const Model model = mlp_after_one_step("mixed_bfloat16");
  const Graph& graph = model.graph();
  int rounding_products = 0, rounding_ops = 0;
  for (const Node& node : graph.nodes()) {
    if (node.op == "dense" || node.op == "matmul") {
      rounding_products += output_rounding_of(node) == ComputePrecision::bfloat16;
    }
    if (node.op != "round_to_bfloat16") continue;
    ++rounding_ops;
    const std::string& read = graph.node(node.inputs.at(0).node).op;
    EXPECT_NE(read, "matmul") << node.name << " rounds a product's result";
    EXPECT_NE(read, "dense") << node.name << " rounds a product's result";
    EXPECT_NE(read, "relu_grad") << node.name << " rounds a relu gradient of an unrounded product";
  }
  EXPECT_GE(rounding_products, 8);  // three forward, three kernel gradients, two input gradients
  EXPECT_GT(rounding_ops, 0);
}

TEST(MixedPrecisionTraining, MixedBfloat16TrainsAsKerasTrains) {
  // Keras's six SGD steps (momentum 0.9) under mixed_bfloat16 against Strata's from the same
  // file and batches: the losses and the weights within a few bfloat16 units. Not closer
  // than float32 training (printed for docs/precision.md): TensorFlow's CPU kernels round
  // some partial sums (BiasAddGrad's, row by row) where Strata sums in float32, and six
  // bfloat16 steps amplify any one-unit difference. On every CPU path this machine runs,
  // whose products (the bfloat16 GEMM or the float one) sum in different orders.
  const Model keras_trained = models::load_model(kData + "mixed_bfloat16_mlp.trained.keras", {.compile = false});
  const auto keras_losses = io::load_npy(kData + "mixed_bfloat16_mlp.losses.npy").to_vector<float>();
  for (cpu::Isa isa : cpu::supported_isas()) {
    cpu::ScopedKernelIsa path(isa);
    Model model = models::load_model(kData + "mixed_bfloat16_mlp.keras");
    ASSERT_TRUE(model.compiled());
    EXPECT_EQ(model.optimizer().class_name(), "SGD");
    const std::vector<float> losses = train_like_keras(model, "mixed_bfloat16_mlp", 16);
    ASSERT_EQ(losses.size(), keras_losses.size());
    for (std::size_t i = 0; i < losses.size(); ++i) {
      EXPECT_NEAR(losses[i], keras_losses[i], 4 * 0x1p-8 * keras_losses[i]) << cpu::isa_name(isa) << " step " << i;
    }
    const double ours = weight_distance(model, keras_trained);
    std::printf("mixed_bfloat16 on %s after six steps, max |w - Keras's| / max |Keras's|: %.3g\n", cpu::isa_name(isa),
                ours);
    EXPECT_LT(ours, 4 * 0x1p-8) << cpu::isa_name(isa);
  }
  const Model keras_float32 = models::load_model(kData + "float32_reference.trained.keras", {.compile = false});
  std::printf("Keras's float32 training from the same weights: %.3g\n", weight_distance(keras_float32, keras_trained));
}

TEST(MixedPrecisionTraining, MixedFloat16TrainsThroughTheLossScaleOptimizerAsKerasDoes) {
  // A model made under mixed_float16 is compiled with its SGD wrapped in a
  // LossScaleOptimizer (Keras's compile); loaded under float32, as Keras loads it, it is
  // not: the global policy is the model's.
  Restore restore;
  set_dtype_policy("mixed_float16");
  Model model = models::load_model(kData + "mixed_float16_mlp.keras");
  set_dtype_policy("float32");
  ASSERT_TRUE(optimizers::is_loss_scale_optimizer(model.optimizer())) << model.optimizer().class_name();
  const auto scaled = optimizers::LossScaleOptimizer::from(model.optimizer());
  EXPECT_EQ(scaled.name(), "loss_scale_optimizer");
  EXPECT_EQ(scaled.inner_optimizer().class_name(), "SGD");
  EXPECT_EQ(scaled.dynamic_scale(), 32768.f);
  const std::vector<float> losses = train_like_keras(model, "mixed_float16_mlp", 16);
  const auto keras_losses = io::load_npy(kData + "mixed_float16_mlp.losses.npy").to_vector<float>();
  ASSERT_EQ(losses.size(), keras_losses.size());
  for (std::size_t i = 0; i < losses.size(); ++i) EXPECT_NEAR(losses[i], keras_losses[i], 4 * 0x1p-11 * keras_losses[i]) << i;
  EXPECT_EQ(scaled.step_counter(), 6);
  EXPECT_EQ(model.optimizer().iterations(), 6);
  const Model keras_trained = models::load_model(kData + "mixed_float16_mlp.trained.keras", {.compile = false});
  EXPECT_LT(weight_distance(model, keras_trained), 4 * 0x1p-11);

  Model unwrapped = models::load_model(kData + "mixed_float16_mlp.keras");
  EXPECT_EQ(unwrapped.optimizer().class_name(), "SGD");
}

TEST(MixedPrecisionTraining, DynamicLossScaleSkipsAndGrowsAsKerasDoes) {
  // LossScaleOptimizer(Adam, initial_scale 2^20, dynamic_growth_steps 2), from the file's
  // compile_config: the first steps' float16 gradients overflow and are skipped (the
  // scale halves, Adam's iterations and slots stay), later the scale doubles after two
  // finite steps. Keras's scale and Adam's iterations after each of 24 steps, exactly.
  Model model = models::load_model(kData + "mixed_float16_dynamic_scale.keras");
  ASSERT_TRUE(optimizers::is_loss_scale_optimizer(model.optimizer()));
  const auto scaled = optimizers::LossScaleOptimizer::from(model.optimizer());
  EXPECT_EQ(scaled.options().dynamic_growth_steps, 2);
  EXPECT_EQ(scaled.inner_optimizer().class_name(), "Adam");
  const Tensor keras_trajectory = io::load_npy(kData + "mixed_float16_dynamic_scale.loss_scale.npy");
  const auto expected = keras_trajectory.to_vector<float>();
  // The file exercises both: skipped steps and a growing scale.
  int skipped = 0, grown = 0;
  for (std::size_t step = 0; step < expected.size() / 2; ++step) {
    const double scale_before = step == 0 ? 1048576.0 : expected[2 * step - 2];
    const double iterations_before = step == 0 ? 0.0 : expected[2 * step - 1];
    skipped += expected[2 * step + 1] == iterations_before;
    grown += expected[2 * step] > scale_before;
  }
  EXPECT_GE(skipped, 3);
  EXPECT_GE(grown, 3);
  const std::vector<float> losses = train_like_keras(model, "mixed_float16_dynamic_scale", 8, [&](int step) {
    EXPECT_EQ(double(scaled.dynamic_scale()), expected[2 * step]) << "step " << step;
    EXPECT_EQ(double(model.optimizer().iterations()), expected[2 * step + 1]) << "step " << step;
  });
  const auto keras_losses = io::load_npy(kData + "mixed_float16_dynamic_scale.losses.npy").to_vector<float>();
  for (std::size_t i = 0; i < losses.size(); ++i) EXPECT_NEAR(losses[i], keras_losses[i], 8 * 0x1p-11 * keras_losses[i]) << i;
  const Model keras_trained = models::load_model(kData + "mixed_float16_dynamic_scale.trained.keras", {.compile = false});
  EXPECT_LT(weight_distance(model, keras_trained), 8 * 0x1p-11);
}

TEST(MixedPrecisionTraining, LossScaleOptimizerStateSavesAndLoadsAsKerasWritesIt) {
  Restore restore;
  set_dtype_policy("mixed_float16");
  Model model = models::load_model(kData + "mixed_float16_dynamic_scale.keras");
  set_dtype_policy("float32");
  train_like_keras(model, "mixed_float16_dynamic_scale", 8);
  const auto scaled = optimizers::LossScaleOptimizer::from(model.optimizer());
  // With STRATA_LOSS_SCALE_RESAVE_DIR set the file stays there, for
  // tests/reference/check_loss_scale_resaved.py to load in Keras.
  const char* keep = std::getenv("STRATA_LOSS_SCALE_RESAVE_DIR");
  const std::filesystem::path dir = keep ? std::filesystem::path(keep) : std::filesystem::temp_directory_path();
  const std::string path = (dir / "mixed_float16_dynamic_scale.strata.keras").string();
  models::save_model(model, path);
  {
    // Keras's layout: the compile_config's optimizer is the LossScaleOptimizer it was
    // given, with its inner Adam; optimizer/vars its four and Adam's, and Adam's again
    // under optimizer/inner_optimizer/vars.
    io::ZipReader zip(path);
    const auto config = nlohmann::json::parse(zip.read("config.json"));
    const auto& optimizer = config["compile_config"]["optimizer"];
    EXPECT_EQ(optimizer["class_name"], "LossScaleOptimizer");
    EXPECT_EQ(optimizer["config"]["inner_optimizer"]["class_name"], "Adam");
    EXPECT_EQ(optimizer["config"]["initial_scale"], 1048576.0);
    EXPECT_EQ(optimizer["config"]["dynamic_growth_steps"], 2);
    const std::string weights = (std::filesystem::temp_directory_path() / "strata_lso_resaved.weights.h5").string();
    {
      std::ofstream out(weights, std::ios::binary);
      const std::string bytes = zip.read("model.weights.h5");
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const io::h5::File file(weights, io::h5::File::Mode::read);
    EXPECT_EQ(file.open_group("optimizer/vars").children().size(), 4u + 2u + 2u * 6u);
    EXPECT_EQ(file.open_group("optimizer/inner_optimizer/vars").children().size(), 2u + 2u * 6u);
    EXPECT_EQ(file.open_group("optimizer/vars").open_dataset("3").read(DType::float32).item(), scaled.dynamic_scale());
    std::filesystem::remove(weights);
  }
  Model again = models::load_model(path);
  if (!keep) std::filesystem::remove(path);
  const auto reloaded = optimizers::LossScaleOptimizer::from(again.optimizer());
  EXPECT_EQ(reloaded.dynamic_scale(), scaled.dynamic_scale());
  EXPECT_EQ(reloaded.step_counter(), scaled.step_counter());
  EXPECT_EQ(again.optimizer().iterations(), model.optimizer().iterations());
  // Keras's own trained file reads the same way.
  Model keras_trained = models::load_model(kData + "mixed_float16_dynamic_scale.trained.keras");
  const auto keras_state = optimizers::LossScaleOptimizer::from(keras_trained.optimizer());
  const auto trajectory = io::load_npy(kData + "mixed_float16_dynamic_scale.loss_scale.npy").to_vector<float>();
  EXPECT_EQ(double(keras_state.dynamic_scale()), trajectory[trajectory.size() - 2]);
  EXPECT_EQ(double(keras_trained.optimizer().iterations()), trajectory.back());
}

TEST(MixedPrecisionTraining, LossScaleOptimizerSkipsStepsWhoseGradientsAreNotFinite) {
  // A float32 model with a scale so large that loss · scale overflows float32: the step is
  // skipped (weights, Adam's slots and iterations untouched) and the scale halves, until
  // the gradients are finite.
  const KerasTensor in = Input({3});
  const layers::Dense dense(2);
  Model model(in, dense(in));
  const optimizers::LossScaleOptimizer scaled(optimizers::Adam({.learning_rate = 0.01}),
                                              {.initial_scale = 1e38, .dynamic_growth_steps = 1000});
  model.compile({.optimizer = scaled, .loss = "mse", .auto_scale_loss = false});
  Tensor x(Shape{4, 3}), y(Shape{4, 2});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = float(i % 5) - 2.f;
  for (std::int64_t i = 0; i < y.size(); ++i) y.data<float>()[i] = 100.f * float(i + 1);
  const auto before = dense.impl().weights[0].value().to_vector<float>();
  model.train_on_batch(x, y);
  EXPECT_EQ(dense.impl().weights[0].value().to_vector<float>(), before) << "a step of infinite gradients was applied";
  EXPECT_EQ(model.optimizer().iterations(), 0);
  EXPECT_EQ(scaled.dynamic_scale(), 5e37f);
  EXPECT_EQ(scaled.step_counter(), 0);
  for (int i = 0; i < 200 && model.optimizer().iterations() == 0; ++i) model.train_on_batch(x, y);
  EXPECT_EQ(model.optimizer().iterations(), 1);
  EXPECT_NE(dense.impl().weights[0].value().to_vector<float>(), before);
  EXPECT_EQ(scaled.step_counter(), 1);
  EXPECT_TRUE(std::isfinite(scaled.dynamic_scale()));
}

TEST(MixedPrecisionTraining, PurePoliciesAndFloat8TrainingAreRefusedNamingTheLayer) {
  Model pure = models::load_model(std::string(STRATA_TEST_DATA) + "/quantized/bfloat16_mlp.keras");
  pure.compile({.optimizer = optimizers::SGD(), .loss = "mse"});
  const Tensor features = io::load_npy(std::string(STRATA_TEST_DATA) + "/quantized/bfloat16_mlp.input0.npy");
  const Tensor targets = pure.predict(features);
  EXPECT_NO_THROW(pure.evaluate(features, targets, {.verbose = 0}));
  try {
    pure.fit(features, targets, {.epochs = 1, .verbose = 0});
    ADD_FAILURE() << "a bfloat16 model trained";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("'bfloat16'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pure.train_on_batch(features, targets), NotImplementedError);
}

TEST(MixedPrecisionTraining, LossScaleOptimizerRejectsBadOptions) {
  EXPECT_THROW(optimizers::LossScaleOptimizer(optimizers::SGD(), {.initial_scale = 0}), ValueError);
  EXPECT_THROW(optimizers::LossScaleOptimizer(optimizers::SGD(), {.dynamic_growth_steps = 0}), ValueError);
  const optimizers::Optimizer wrapped = optimizers::LossScaleOptimizer(optimizers::SGD());
  EXPECT_THROW(optimizers::LossScaleOptimizer{wrapped}, ValueError);
  EXPECT_THROW(optimizers::LossScaleOptimizer{optimizers::Optimizer{}}, ValueError);
}

}  // namespace strata::mixed_precision_training_test
