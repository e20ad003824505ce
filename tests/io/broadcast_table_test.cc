// Issue #38's table of Keras's broadcasting rules over ranks 1 to 5, against Keras 3.15.1
// (tests/reference/make_broadcast_table_goldens.py; the merge layers' rule has its own
// table, tests/layers/merge_broadcast_golden_test.cc): keras.ops binary operations, where
// and matmul by NumPy's rule (from the right, the batch axis included), constants of other
// ranks, EinsumDense equations of rank 2 to 5 with Keras's two ellipsis forms, and
// MultiHeadAttention's attention_mask of each rank Keras takes, size-1 axes broadcasting.
// Each case's model, saved by Keras, loads (.keras, and .h5 for the layers), has Keras's
// symbolic output shape, predicts Keras's output within 1e-5, loads back the same from
// Strata's own .keras file, and gives Keras's gradients of sum(output · projection) with
// respect to its inputs and weights. The shapes Keras refuses, Strata refuses too, with
// Keras's message.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/program.h"
#include "io/op_layer_config.h"
#include "layers/core/einsum_dense.h"
#include "layers/core/input_layer.h"
#include "models/model.h"
#include "tests/io/keras_test_util.h"
#include "tests/layers/golden_json.h"

namespace strata::broadcast_table_test {
namespace {

using nlohmann::ordered_json;
using testing::golden_file;
using testing::golden_near;
using testing::golden_tensor;

const ordered_json& table() { return golden_file("broadcast_table_golden.json"); }

const ordered_json& case_named(const std::string& name) {
  for (const auto& c : table().at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

std::string path_of(const ordered_json& c, const std::string& ext) {
  std::string file = std::string(STRATA_TEST_DATA) + "/../../" + c.at("file").get<std::string>();
  return file.substr(0, file.size() - std::string(".keras").size()) + ext;
}

std::vector<Tensor> inputs_of(const ordered_json& c) {
  std::vector<Tensor> xs;
  for (const auto& in : c.at("inputs")) xs.push_back(golden_tensor(in));
  return xs;
}

class BroadcastCase : public ::testing::TestWithParam<std::string> {};

TEST_P(BroadcastCase, PredictsAsKerasFromKerasFilesAndStratas) {
  const ordered_json& c = case_named(GetParam());
  if (c.value("refused", false)) {
    try {
      models::load_model(path_of(c, ".keras"), {.compile = false});
      FAIL() << "loaded";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("'attention_mask' given as a NumPy array, saved in the call, is not supported"),
                std::string::npos)
          << e.what();
    }
    return;
  }
  const std::vector<Tensor> xs = inputs_of(c);
  std::vector<std::string> files{path_of(c, ".keras")};
  if (c.at("h5").get<bool>()) files.push_back(path_of(c, ".h5"));
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    Model model = models::load_model(file, {.compile = false});
    // Keras's symbolic output shape (None where it does not know the size); where Keras
    // declares one shape and computes another, the one it computes, the batch unknown
    std::vector<std::int64_t> want;
    if (c.at("symbolic_agrees").get<bool>()) {
      for (const auto& d : c.at("symbolic_output_shape")) want.push_back(d.is_null() ? kUnknownDim : d.get<std::int64_t>());
    } else {
      want = c.at("output").at("shape").get<std::vector<std::int64_t>>();
      want[0] = kUnknownDim;
    }
    ASSERT_EQ(model.outputs().size(), 1u);
    EXPECT_EQ(model.outputs()[0].shape(), Shape(want));
    EXPECT_TRUE(golden_near(model.predict_on_batch(xs)[0], c.at("output"), GetParam()));
    testing::ScratchDir scratch;
    model.save(scratch.file("again.keras"));
    Model again = models::load_model(scratch.file("again.keras"), {.compile = false});
    EXPECT_TRUE(golden_near(again.predict_on_batch(xs)[0], c.at("output"), GetParam() + " saved by Strata"));
  }
}

TEST_P(BroadcastCase, GradientsAreKeras) {
  const ordered_json& c = case_named(GetParam());
  if (c.value("refused", false)) GTEST_SKIP() << "refused when loaded (the other test checks how)";
  const std::vector<Tensor> xs = inputs_of(c);
  Model model = models::load_model(path_of(c, ".keras"), {.compile = false});
  std::vector<bool> is_mask(xs.size(), false);
  for (const auto& m : c.at("masks")) is_mask.at(m.get<std::size_t>()) = true;

  Graph g;
  std::vector<Output> feeds, wrt;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    feeds.push_back(g.placeholder({xs[i].shape().with_dim(0, kUnknownDim), DType::float32}));
    if (!is_mask[i]) wrt.push_back(feeds.back());
  }
  const Output y = model.impl().call(g, feeds).at(0);
  const Tensor projection = golden_tensor(c.at("projection"));
  const Output p = g.placeholder({projection.shape(), DType::float32});
  const Output loss = ops::reduce_sum(ops::mul(y, p));
  const std::vector<Variable> weights = model.trainable_weights();
  ASSERT_EQ(weights.size(), c.at("weight_names").size());
  for (const Variable& w : weights) wrt.push_back(g.variable(w));
  std::vector<Output> fetches;
  for (const Output& grad : gradients(loss, wrt)) {
    fetches.push_back(grad.valid() ? grad : ops::zeros_like(wrt[fetches.size()]));
  }
  std::vector<Output> all_feeds = feeds;
  all_feeds.push_back(p);
  std::vector<Tensor> run_feeds = xs;
  run_feeds.push_back(projection);
  const auto out = Program(g, all_feeds, fetches).run(run_feeds);
  const auto& input_grads = c.at("input_grads");
  ASSERT_EQ(out.size(), input_grads.size() + weights.size());
  for (std::size_t i = 0; i < input_grads.size(); ++i) {
    EXPECT_TRUE(golden_near(out[i], input_grads[i], GetParam() + ": gradient of input " + std::to_string(i)));
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    EXPECT_TRUE(golden_near(out[input_grads.size() + i], c.at("weight_grads")[i],
                            GetParam() + ": gradient of " + c.at("weight_names")[i].get<std::string>()));
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : table().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, BroadcastCase, ::testing::ValuesIn(case_names()), [](const auto& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

// The table covers every rank from 1 to 5 for each family of rules.
TEST(BroadcastTable, CoversRanksOneToFiveForEachFamily) {
  for (const std::string family : {"ops_", "einsum_"}) {
    std::set<std::size_t> ranks;
    for (const auto& c : table().at("cases")) {
      const std::string name = c.at("name");
      if (name.rfind(family, 0) != 0) continue;
      for (const auto& in : c.at("inputs")) ranks.insert(in.at("shape").size());
      ranks.insert(c.at("output").at("shape").size());
    }
    for (std::size_t r = family == "ops_" ? 1 : 2; r <= 5; ++r) EXPECT_TRUE(ranks.count(r)) << family << " rank " << r;
  }
}

// The first sentence of Keras's message (Strata's may say more after it).
std::string first_sentence(const std::string& message) {
  const auto end = message.find(". ");
  return end == std::string::npos ? message : message.substr(0, end);
}

ordered_json keras_tensor(const std::string& layer, const std::vector<std::int64_t>& shape) {
  ordered_json dims = ordered_json::array({nullptr});
  for (auto d : shape) dims.push_back(d);
  return {{"class_name", "__keras_tensor__"},
          {"config", {{"shape", dims}, {"dtype", "float32"}, {"keras_history", {layer, 0, 0}}}}};
}

TEST(BroadcastTable, ShapesKerasRefusesAreRefused) {
  int checked = 0;
  for (const auto& e : table().at("errors")) {
    const std::string name = e.at("name");
    SCOPED_TRACE(name);
    const std::string keras_error = e.at("keras_error");
    std::string strata_error;
    try {
      if (name.rfind("ops_", 0) == 0) {
        const std::string op = e.at("operation");  // "add", "multiply", "matmul"
        std::string class_name = op;
        class_name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(class_name[0])));
        const auto shapes = e.at("shapes").get<std::vector<std::vector<std::int64_t>>>();
        const ordered_json entry = {
            {"module", "keras.src.ops.numpy"},
            {"class_name", class_name},
            {"config", {{"name", "op"}}},
            {"inbound_nodes", {{{"args", {keras_tensor("x0", shapes[0]), keras_tensor("x1", shapes[1])}},
                                {"kwargs", ordered_json::object()}}}}};
        Layer op_layer = io::op_layer_from_entry(entry, {});
        op_layer({Input(Shape(shapes[0])), Input(Shape(shapes[1]))});
      } else {
        const auto& out = e.at("output_shape");
        const Shape output_shape =
            out.is_array() ? Shape(out.get<std::vector<std::int64_t>>()) : Shape{out.get<std::int64_t>()};
        layers::EinsumDense layer(e.at("equation").get<std::string>(), output_shape);
        layer(Input(Shape(e.at("shape").get<std::vector<std::int64_t>>())));
      }
    } catch (const std::exception& ex) {
      strata_error = ex.what();
    }
    ASSERT_FALSE(strata_error.empty()) << "Strata accepted what Keras refuses: " << keras_error;
    if (name.rfind("einsum_", 0) == 0) {  // EinsumDense's messages are Keras's own
      EXPECT_NE(strata_error.find(first_sentence(keras_error)), std::string::npos)
          << "Strata: " << strata_error << "\nKeras: " << keras_error;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 5);
}

}  // namespace
}  // namespace strata::broadcast_table_test
