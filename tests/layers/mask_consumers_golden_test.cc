// Softmax and BatchNormalization consume masks as Keras 3.15 does, against real Keras:
// tests/data/mask_consumers_golden.json (tests/reference/make_mask_consumer_goldens.py).
// Softmax: the input's mask or one passed with the call, broadcast from the right (the
// attention-style (batch, 1, S), a (T, S) without batch), float values kept above 0.5,
// rows hidden entirely zeroed, one axis or several; outputs and gradients within 1e-5.
// BatchNormalization: one training step with the masked moments (the outputs, the moving
// statistics after it, the gradients with respect to the input, gamma and beta) and the
// inference that follows, within 1e-5. Masks Keras refuses are refused with its reasons,
// and both layers pass the mask they used on.
#include <gtest/gtest.h>

#include "core/autodiff.h"
#include "core/device.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/program.h"
#include "batch_norm_step_golden.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layer_golden_case.h"
#include "layers/activations/softmax.h"
#include "layers/core/dense.h"
#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "layers/normalization/batch_normalization.h"
#include "models/model.h"
#include "../io/test_util.h"

namespace strata::mask_consumers_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("mask_consumers_golden.json"); }

std::vector<std::string> case_names(const std::string& section) {
  std::vector<std::string> names;
  for (const auto& c : goldens().at(section)) names.push_back(c.at("name").get<std::string>());
  return names;
}

const ordered_json& find_case(const std::string& section, const std::string& name) {
  for (const auto& c : goldens().at(section)) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no golden case " + name);
}

class SoftmaxMaskGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(SoftmaxMaskGolden, MatchesKeras) { testing::expect_matches_keras_case(find_case("softmax", GetParam())); }

INSTANTIATE_TEST_SUITE_P(Keras3, SoftmaxMaskGolden, ::testing::ValuesIn(case_names("softmax")),
                         [](const auto& info) { return testing::test_name_of(info.param); });

// One training step of the case's BatchNormalization, as the generator ran it in Keras:
// called with training on the input (its mask attached and/or passed), the gradients of
// sum(output · projection), the moving statistics after the step's update; then an
// inference run on the same input.
class BatchNormMaskGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchNormMaskGolden, OneTrainingStepMatchesKeras) {
  testing::expect_batch_norm_step_matches_keras(find_case("batch_norm", GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Keras3, BatchNormMaskGolden, ::testing::ValuesIn(case_names("batch_norm")),
                         [](const auto& info) { return testing::test_name_of(info.param); });

// A BatchNormalization step without a mask and with one that keeps everything agree (up to
// Keras's 1e-7 in the denominator): the masked moments are the batch's moments.
TEST(BatchNormalizationMasks, AMaskThatKeepsEverythingGivesTheUnmaskedStep) {
  auto run = [](bool masked) {
    layers::BatchNormalization bn({.momentum = 0.5});
    bn(Input({3, 2}));
    Graph g;
    const Output x = g.placeholder({Shape{kUnknownDim, 3, 2}, DType::float32});
    const Output keep = g.placeholder({Shape{kUnknownDim, 3}, DType::float32});
    const Output y = masked ? bn.impl().call_masked(g, {x}, {keep})[0] : bn.impl().call(g, {x})[0];
    Program step(g, {x, keep}, {y}, g.updates(true));
    std::vector<float> values(24);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i * 7) % 11) - 4.f;
    auto out = step.run({Tensor::from_vector<float>({4, 3, 2}, values), Tensor::filled({4, 3}, 1.f)},
                        {.training = true});
    return std::vector<Tensor>{out[0], bn.get_weights()[2], bn.get_weights()[3]};
  };
  const auto plain = run(false), masked = run(true);
  for (std::size_t t = 0; t < plain.size(); ++t) {
    for (std::int64_t i = 0; i < plain[t].size(); ++i) EXPECT_NEAR(masked[t].item(i), plain[t].item(i), 1e-5) << t;
  }
}

// The masked training step is composed, not fused: every op of it (forward, gradients of
// any order autodiff emitted here, the moving statistics' updates) has a CUDA kernel in a
// build with CUDA, so compiling it for a GPU never leaves a step to the CPU (a Program
// refuses an op without a kernel on its device by name). Masked Softmax likewise.
TEST(MaskConsumers, EveryOpOfTheMaskedTrainingStepHasACudaKernel) {
  if (!built_with_cuda()) GTEST_SKIP() << "Strata was built without CUDA";
  layers::BatchNormalization bn;
  layers::Softmax softmax;
  bn(Input({3, 4}));
  softmax(Input({3, 4}));
  Graph g;
  const Output x = g.placeholder({Shape{kUnknownDim, 3, 4}, DType::float32});
  const Output keep = g.placeholder({Shape{kUnknownDim, 3}, DType::float32});
  const Output given = g.placeholder({Shape{kUnknownDim, 1, 4}, DType::float32});
  const Output y = bn.impl().call_masked(g, {x}, {keep})[0];
  softmax.impl().current_arguments = {{"mask", true}};
  const Output p = softmax.impl().call_masked(g, {y, given}, {keep, Output{}})[0];
  std::vector<Output> wrt{x};
  for (const Variable& v : bn.trainable_weights()) wrt.push_back(g.variable(v));
  const std::vector<Output> first = gradients(ops::reduce_sum(ops::square(p)), wrt);
  gradients(ops::reduce_sum(ops::square(first[0])), wrt);  // second order too
  int checked = 0;
  for (const Node& node : g.nodes()) {
    if (node.def->fed) continue;
    EXPECT_NE(node.def->kernel(DeviceType::cuda), nullptr) << "op '" << node.op << "' (node '" << node.name << "')";
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

// Keras's Softmax broadcasts the mask from the right: an Embedding's (batch, steps) mask
// in front of (batch, steps, features) does not fit; Keras raises at its call, Strata when
// the model is compiled for predict. A mask passed with the call is checked at once.
TEST(SoftmaxMasks, AMaskThatDoesNotBroadcastIsKerassValueError) {
  auto ids = Input({5}, {.dtype = DType::int32});
  auto h = layers::Dense(4)(layers::Embedding(7, 3, {.mask_zero = true})(ids));
  Model model(ids, layers::Softmax({.name = "softmax"})(h));
  EXPECT_THROW_WITH(model.predict(Tensor::from_vector<std::int32_t>({1, 5}, {1, 2, 0, 0, 3}), {.verbose = 0}),
                    ValueError, "Softmax 'softmax'", "broadcastable", "inputs.shape=(None, 5, 4)",
                    "mask.shape=(None, 5)");

  auto scores = Input({3, 5});
  layers::Softmax softmax({.name = "s"});
  EXPECT_THROW_WITH(softmax(scores, {.mask = Input({3, 4})}), ValueError, "Softmax 's'", "(None, 3, 5)",
                    "(None, 3, 4)");
  EXPECT_THROW_WITH(softmax(scores, {.mask = Input({1, 3, 5})}), ValueError, "(None, 1, 3, 5)");
  EXPECT_NO_THROW(softmax(scores, {.mask = Input({1, 5})}));
  EXPECT_NO_THROW(softmax(scores, {.mask = Input({3, 1})}));
}

TEST(BatchNormalizationMasks, AMaskOfTheInputsRankIsKerassValueError) {
  auto x = Input({3, 4});
  layers::BatchNormalization bn({.name = "bn"});
  EXPECT_THROW_WITH(bn(x, {.mask = Input({3, 4})}), ValueError, "BatchNormalization 'bn'",
                    "one dimension less than the inputs", "mask.shape=(None, 3, 4)", "inputs.shape=(None, 3, 4)");
  EXPECT_NO_THROW(bn(x, {.mask = Input({3})}));
}

// Both layers pass on the mask they used (Keras's previous_mask): the one given with the
// call as it is, else the input's.
TEST(MaskConsumers, TheMaskUsedPassesOn) {
  for (Layer layer : {Layer(layers::Softmax()), Layer(layers::BatchNormalization())}) {
    layer(Input({3, 4}));
    Graph g;
    const Output x = g.placeholder({Shape{kUnknownDim, 3, 4}, DType::float32});
    const Output input_mask = g.placeholder({Shape{kUnknownDim, 3}, DType::float32});
    const Output given = g.placeholder({Shape{kUnknownDim, 3}, DType::float32});
    LayerImpl& impl = layer.impl();
    impl.current_arguments = {};
    EXPECT_TRUE(impl.compute_mask(g, {x}, {Output{}}).empty()) << layer.class_name();
    auto passed = impl.compute_mask(g, {x}, {input_mask});
    ASSERT_EQ(passed.size(), 1u) << layer.class_name();
    EXPECT_EQ(passed[0], input_mask) << layer.class_name();
    impl.current_arguments = {{"mask", true}};
    passed = impl.compute_mask(g, {x, given}, {input_mask, Output{}});
    ASSERT_EQ(passed.size(), 1u) << layer.class_name();
    EXPECT_EQ(passed[0], given) << layer.class_name() << ": the mask given with the call";
  }
}

}  // namespace
}  // namespace strata::mask_consumers_golden_test
