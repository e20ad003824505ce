// The activation and preprocessing layer classes against real Keras 3:
// tests/data/layer_classes_golden.json (tests/reference/make_layer_class_goldens.py) holds,
// per case, Keras's config, inputs, weights, outputs and the gradients of
// sum(output * projection). Each layer is made from Keras's own config (so reading the
// config is checked too) and must match within 1e-5 absolute + 1e-5 relative.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <string>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/core/input_layer.h"
#include "layers/keras_class.h"

using namespace strata;
using nlohmann::ordered_json;

namespace layer_classes_golden_test {

namespace {

const ordered_json& goldens() { return strata::testing::golden_file("layer_classes_golden.json"); }

Tensor to_tensor(const ordered_json& j) { return strata::testing::golden_tensor(j); }

::testing::AssertionResult near(const Tensor& actual, const ordered_json& expected, const std::string& what) {
  return strata::testing::golden_near(actual, expected, what);
}

// Classes this suite holds Strata to; the golden file also has cases for classes not yet
// supported (Resizing, CenterCrop, LayerScale, ...), listed by PendingClassesAreNamed.
const std::set<std::string> kSupported{
    "ReLU",       "LeakyReLU",  "PReLU",           "ELU",   "Softmax",
    "Identity",   "Rescaling",  "Normalization",   "Activation", "Resizing",
    "CenterCrop", "LayerScale", "StochasticDepth", "Dense", "GlobalAveragePooling2D",
    "LayerNormalization", "Multiply", "Reshape"};

bool runnable(const ordered_json& c) {
  return !c.at("class_name").is_null() && kSupported.count(c.at("class_name").get<std::string>());
}

class LayerClassGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(LayerClassGolden, MatchesKeras) {
  const ordered_json* found = nullptr;
  for (const auto& c : goldens().at("cases"))
    if (c.at("name") == GetParam()) found = &c;
  ASSERT_NE(found, nullptr);
  const ordered_json& c = *found;
  Layer layer = io::layer_from_config(
      ordered_json{{"class_name", c.at("class_name")}, {"config", c.at("config")}}, {});

  std::vector<Tensor> xs;
  std::vector<KerasTensor> symbolic;
  for (const auto& in : c.at("inputs")) {
    xs.push_back(to_tensor(in));
    symbolic.push_back(Input(xs.back().shape().without_batch()));
  }
  // "input_roles" ["inputs", "mask"]: the second array is the call's mask argument
  // (Softmax()(x, mask=m)), which Strata's call takes as a tensor argument.
  CallArguments arguments;
  if (c.contains("input_roles") && c.at("input_roles").size() > 1 && c.at("input_roles")[1] == "mask") {
    arguments["mask"] = true;
  }
  layer.call_with(symbolic, arguments);
  layer.impl().current_arguments = arguments;
  std::vector<Tensor> weights;
  for (const auto& w : c.at("weights")) weights.push_back(to_tensor(w));
  layer.set_weights(weights);

  Graph g;
  std::vector<Output> feeds;
  for (const auto& x : xs)
    feeds.push_back(g.placeholder({x.shape().with_dim(0, kUnknownDim), DType::float32}));
  Output y = layer.impl().call(g, feeds)[0];
  const Tensor projection = to_tensor(c.at("projection"));
  Output proj = g.placeholder({projection.shape(), DType::float32}, "projection");
  Output loss = ops::reduce_sum(ops::mul(y, proj));
  std::vector<Output> wrt = feeds;
  for (const auto& v : layer.trainable_weights()) wrt.push_back(g.variable(v));
  std::vector<Output> fetches{y};
  for (const Output& grad : gradients(loss, wrt))
    fetches.push_back(grad.valid() ? grad : ops::zeros_like(wrt[fetches.size() - 1]));
  std::vector<Output> all_feeds = feeds;
  all_feeds.push_back(proj);
  Program program(g, all_feeds, fetches);
  std::vector<Tensor> run_feeds = xs;
  run_feeds.push_back(projection);
  const auto out = program.run(run_feeds);

  EXPECT_TRUE(near(out[0], c.at("output"), "output"));
  const auto& gx = c.at("input_grads");
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (!gx[i].is_null()) EXPECT_TRUE(near(out[1 + i], gx[i], "gradient of input " + std::to_string(i)));
  const auto& gw = c.at("weight_grads");
  ASSERT_EQ(gw.size(), layer.trainable_weights().size());
  for (std::size_t i = 0; i < gw.size(); ++i)
    EXPECT_TRUE(near(out[1 + xs.size() + i], gw[i], "gradient of " + layer.trainable_weights()[i].path()));
}

std::vector<std::string> runnable_cases() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases"))
    if (runnable(c)) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, LayerClassGolden, ::testing::ValuesIn(runnable_cases()),
                         [](const auto& info) { return strata::testing::test_name_of(info.param); });

}  // namespace

// Not a pass/fail of the math: keeps the list of golden cases Strata skips visible, and
// fails if a class this suite claims stops being registered.
TEST(LayerClassGoldens, PendingClassesAreNamed) {
  std::set<std::string> pending;
  for (const auto& c : goldens().at("cases")) {
    if (!runnable(c)) pending.insert(c.at("name").get<std::string>());
  }
  for (const auto& cls : kSupported) EXPECT_NE(layers::find_keras_class(cls), nullptr) << cls;
  std::string list;
  for (const auto& n : pending) list += " " + n;
  std::cout << "golden cases not run (" << pending.size() << "):" << list << "\n";
}

}  // namespace layer_classes_golden_test
