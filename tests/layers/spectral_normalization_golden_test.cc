// SpectralNormalization against real Keras 3: tests/data/spectral_normalization_golden.json
// (tests/reference/make_spectral_normalization_goldens.py): wrapping Dense (one and three
// power iterations), Conv2D and Embedding, and a Dense whose kernel is all zeros. One call
// in training: the output, the gradients, and the weights it assigns (u and kernel / σ);
// then inference on the assigned weights. All within 1e-5.
#include <gtest/gtest.h>

#include <map>

#include "../io/test_util.h"
#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/normalization/spectral_normalization.h"
#include "layers/reshaping/flatten.h"

namespace strata::spectral_normalization_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("spectral_normalization_golden.json"); }

class SpectralNormalizationGolden : public ::testing::TestWithParam<std::string> {};

const ordered_json& golden_case(const std::string& name) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

TEST_P(SpectralNormalizationGolden, TrainingAssignsAndInferenceReadsWhatKerasDoes) {
  const ordered_json& c = golden_case(GetParam());
  Layer layer = io::layer_from_config(ordered_json{{"class_name", c.at("class_name")}, {"config", c.at("config")}}, {});
  const Tensor x = testing::golden_tensor(c.at("inputs")[0]);
  layer(Input(x.shape().without_batch()));
  // Keras's order (kernel, vector_u, bias) is not Strata's (own weights first): by name.
  std::map<std::string, std::size_t> keras_index;
  for (std::size_t i = 0; i < c.at("weight_names").size(); ++i) keras_index[c.at("weight_names")[i]] = i;
  ASSERT_EQ(layer.weights().size(), keras_index.size());
  for (const auto& v : layer.weights()) {
    ASSERT_TRUE(keras_index.count(v.path())) << v.path();
    Variable(v).assign(testing::golden_tensor(c.at("weights")[keras_index[v.path()]]));
  }

  Graph g;
  const Output feed = g.placeholder({x.shape().with_dim(0, kUnknownDim), DType::float32});
  const Tensor projection = testing::golden_tensor(c.at("projections")[0]);
  const Output proj = g.placeholder({projection.shape(), DType::float32});
  LayerImpl& impl = layer.impl();
  impl.current_call = 0;
  const Output y = impl.call(g, {feed})[0];
  const Output loss = ops::reduce_sum(ops::mul(y, proj));
  std::vector<Output> wrt{feed};
  for (const auto& v : layer.trainable_weights()) wrt.push_back(g.variable(v));
  std::vector<Output> fetches{y};
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    const Output grad = gradients(loss, {wrt[i]})[0];
    fetches.push_back(grad.valid() ? grad : ops::zeros_like(wrt[i]));
  }
  Program training(g, {feed, proj}, fetches, g.updates(true));
  Program inference(g, {feed}, {y}, g.updates(false));
  const auto out = training.run({x, projection}, {.training = true});

  EXPECT_TRUE(testing::golden_near(out[0], c.at("outputs")[0], "training output"));
  EXPECT_TRUE(testing::golden_near(out[1], c.at("input_grads")[0], "gradient of the input"));
  ASSERT_EQ(c.at("trainable_names").size(), layer.trainable_weights().size());
  for (std::size_t i = 0; i < layer.trainable_weights().size(); ++i) {
    const std::string path = layer.trainable_weights()[i].path();
    std::size_t k = 0;
    while (c.at("trainable_names")[k] != path) ++k;
    const auto& expected = c.at("weight_grads")[k];
    if (expected.is_null()) continue;  // Keras gives the wrapped Embedding none (the generator says why)
    EXPECT_TRUE(testing::golden_near(out[2 + i], expected, "gradient of " + path));
  }
  for (const auto& v : layer.weights()) {
    EXPECT_TRUE(testing::golden_near(v.value(), c.at("weights_after")[keras_index[v.path()]], v.path() + " after"));
  }
  EXPECT_TRUE(testing::golden_near(inference.run({x})[0], c.at("inference_output"), "inference output"));
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, SpectralNormalizationGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(SpectralNormalization, WeightsAreKerassAndRefusalsNameTheProblem) {
  layers::SpectralNormalization sn(layers::Dense(3, {.name = "dense"}), {.name = "sn"});
  sn(Input({4}));
  std::vector<std::string> paths;
  for (const auto& v : sn.weights()) paths.push_back(v.path() + (v.trainable() ? "" : " (frozen)"));
  EXPECT_EQ(paths, (std::vector<std::string>{"sn/vector_u (frozen)", "sn/dense/kernel", "sn/dense/bias"}));
  EXPECT_EQ(sn.weights()[0].value().shape(), (Shape{1, 3}));
  EXPECT_THROW_WITH(layers::SpectralNormalization(layers::Dense(3), {.power_iterations = 0}), ValueError,
                    "`power_iterations` should be greater than zero");
  const layers::SpectralNormalization no_kernel{layers::Flatten()};
  EXPECT_THROW_WITH(no_kernel(Input({4, 2})), ValueError, "Flatten object has no attribute 'kernel' nor 'embeddings'");
}

}  // namespace
}  // namespace strata::spectral_normalization_golden_test
