// Keras's CTC loss (losses/ctc_loss.h) and the ctc_loss op under it, against real Keras 3.15.1
// (tests/data/keras_ops_ctc_golden.json's "loss_class", tests/reference/make_keras_ops_ctc_goldens.py):
// keras.losses.CTC per reduction with its gradient, and three SGD steps of a model compiled
// with loss="ctc"; labellings no alignment gives (tests/data/ctc_unreachable_golden.json). Beyond
// Keras: the op's gradient against finite differences, and bad lengths and labels as errors naming
// the sample.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/autodiff.h"
#include "core/check_gradients.h"
#include "core/ops.h"
#include "core/ops/ctc_ops.h"
#include "core/program.h"
#include "losses/ctc_loss.h"
#include "strata.h"
#include "tests/layers/golden_json.h"

using namespace strata;

namespace ctc_loss_test {

namespace {

const nlohmann::ordered_json& golden() { return strata::testing::golden_file("keras_ops_ctc_golden.json").at("loss_class"); }

Tensor ints(Shape shape, std::vector<std::int32_t> v) { return Tensor::from_vector(std::move(shape), v); }
Tensor floats(Shape shape, std::vector<float> v) { return Tensor::from_vector(std::move(shape), v); }

// The ctc_loss op's losses and logits' gradient for these inputs.
std::vector<Tensor> run_ctc(const Tensor& labels, const Tensor& logits, const Tensor& label_length,
                            const Tensor& logit_length, std::int64_t blank = 0) {
  Graph g;
  const Output l = g.placeholder({labels.shape(), labels.dtype()});
  const Output x = g.placeholder({logits.shape(), DType::float32});
  const Output ll = g.placeholder({label_length.shape(), label_length.dtype()});
  const Output xl = g.placeholder({logit_length.shape(), logit_length.dtype()});
  const Output loss = ops::ctc_loss(l, x, ll, xl, blank);
  const Output grad = gradients(ops::reduce_sum(loss), {x})[0];
  Program p(g, {l, x, ll, xl}, {loss, grad});
  return p.run({labels, logits, label_length, logit_length});
}

}  // namespace

TEST(CTCLoss, IsKerasCTCInEveryReduction) {
  const auto& c = golden();
  const Tensor y_true = strata::testing::golden_tensor(c.at("y_true")), y_pred = strata::testing::golden_tensor(c.at("y_pred"));
  for (const auto& [reduction, expected] : c.at("reductions").items()) {
    Graph g;
    const Output t = g.placeholder({y_true.shape().with_dim(0, kUnknownDim), y_true.dtype()});
    const Output p = g.placeholder({y_pred.shape().with_dim(0, kUnknownDim), DType::float32});
    const Output loss = losses::CTC({.reduction = reduction})(ops::cast(t, DType::float32), p);
    std::vector<Output> fetches{loss};
    if (reduction == "sum_over_batch_size") fetches.push_back(gradients(loss, {p})[0]);
    Program program(g, {t, p}, fetches);
    const auto out = program.run({y_true, y_pred});
    EXPECT_TRUE(strata::testing::golden_near(out[0], expected, "CTC " + reduction));
    if (out.size() > 1) EXPECT_TRUE(strata::testing::golden_near(out[1], c.at("gradient"), "CTC's gradient"));
  }
}

TEST(CTCLoss, TrainsAsKerasTrainsWithLossCtc) {
  const auto& c = golden().at("training");
  auto in = Input({6, 3});
  layers::Dense dense(4, {.name = "logits"});
  Model model(in, dense(in));
  dense.set_weights({strata::testing::golden_tensor(c.at("kernel")), strata::testing::golden_tensor(c.at("bias"))});
  model.compile({.optimizer = optimizers::SGD({.learning_rate = c.at("learning_rate").get<double>()}), .loss = "ctc"});
  const Tensor x = strata::testing::golden_tensor(c.at("x")), labels = strata::testing::golden_tensor(c.at("labels"));
  for (std::size_t step = 0; step < 3; ++step) {
    const float loss = model.train_on_batch(x, labels).at("loss");
    const float keras = c.at("losses")[step].get<float>();
    EXPECT_NEAR(loss, keras, 1e-5 + 1e-5 * std::fabs(keras)) << "step " << step;
  }
  EXPECT_TRUE(strata::testing::golden_near(dense.weights()[0].value(), c.at("kernel_after"), "kernel after three steps"));
}

TEST(CTCLoss, GradientMatchesFiniteDifferences) {
  const Tensor labels = ints({2, 3}, {1, 2, 1, 2, 2, 0});
  const Tensor label_length = ints({2}, {3, 2}), logit_length = ints({2}, {7, 5});
  Tensor logits(Shape{2, 7, 3});
  for (std::int64_t i = 0; i < logits.size(); ++i) logits.data<float>()[i] = std::sin(0.7f * static_cast<float>(i));
  const auto out = run_ctc(labels, logits, label_length, logit_length);
  const double h = 1e-2;
  for (std::int64_t i = 0; i < logits.size(); ++i) {
    Tensor up = logits.clone(), down = logits.clone();
    up.data<float>()[i] += static_cast<float>(h);
    down.data<float>()[i] -= static_cast<float>(h);
    const auto a = run_ctc(labels, up, label_length, logit_length), b = run_ctc(labels, down, label_length, logit_length);
    const double numeric = ((a[0].item(0) + a[0].item(1)) - (b[0].item(0) + b[0].item(1))) / (2 * h);
    EXPECT_NEAR(out[1].item(i), numeric, 2e-3) << "logit " << i;
  }
  // Past its logit_length a sample's logits get no gradient.
  for (std::int64_t t = 5; t < 7; ++t)
    for (std::int64_t k = 0; k < 3; ++k) EXPECT_EQ(out[1].item((7 + t) * 3 + k), 0.f);
}

// Labellings no alignment gives (and one too unlikely to beat the paths that stop short),
// the row's padding, blanks moved, against Keras (tests/data/ctc_unreachable_golden.json,
// tests/reference/make_ctc_unreachable_goldens.py): TensorFlow weighs the states a path may
// not begin or end in log(1e-307), so such losses are finite, about 707, with a gradient. Keras
// computes it in float32, where sums near -707 keep about four digits of the posteriors: the
// gradient is held to 1e-5 of TensorFlow's own functions run in float64 ("gradient_float64"),
// and to 1e-4 of Keras's float32 one.
TEST(CTCLoss, AnUnreachableLabellingIsKerasFiniteLoss) {
  const auto& cases = strata::testing::golden_file("ctc_unreachable_golden.json").at("cases");
  ASSERT_GE(cases.size(), 9u);
  for (const auto& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    // The whole numbers read as float32, which the op takes as it takes int32.
    const auto in = [&](const char* key) { return strata::testing::golden_tensor(c.at(key)); };
    const auto out = run_ctc(in("labels"), in("logits"), in("label_length"), in("logit_length"),
                             c.at("mask_index").get<std::int64_t>());
    EXPECT_TRUE(strata::testing::golden_near(out[0], c.at("loss"), name + " loss"));
    EXPECT_TRUE(strata::testing::golden_near(out[1], c.at("gradient_float64"), name + " gradient"));
    const Tensor keras = strata::testing::golden_tensor(c.at("gradient"));
    for (std::int64_t i = 0; i < keras.size(); ++i) EXPECT_NEAR(out[1].item(i), keras.item(i), 1e-4) << i;
  }
}

// Past label_length a float row's labels are cast as Keras casts them to int32 (truncated,
// NaN to the int32 x86 gives it), not checked: NaN or 3.7 there is no error, and the loss is
// that of the same row in int32.
TEST(CTCLoss, PaddingIsCastAsKerasCastsItNotChecked) {
  Tensor logits(Shape{1, 2, 4});
  for (std::int64_t i = 0; i < logits.size(); ++i) logits.data<float>()[i] = std::cos(1.3f * static_cast<float>(i));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto as_floats = run_ctc(floats({1, 4}, {2, 2, 3.7f, nan}), logits, ints({1}, {2}), ints({1}, {2}));
  const auto as_ints = run_ctc(ints({1, 4}, {2, 2, 3, std::numeric_limits<std::int32_t>::min()}), logits,
                               ints({1}, {2}), ints({1}, {2}));
  EXPECT_EQ(as_floats[0].item(0), as_ints[0].item(0));
  for (std::int64_t i = 0; i < logits.size(); ++i) EXPECT_EQ(as_floats[1].item(i), as_ints[1].item(i)) << i;
}

TEST(CTCLoss, BadLengthsAndLabelsAreErrorsNamingTheSample) {
  const Tensor logits(Shape{2, 4, 3});
  const auto error_of = [&](const Tensor& labels, const Tensor& label_length, const Tensor& logit_length) {
    try {
      run_ctc(labels, logits, label_length, logit_length);
    } catch (const ValueError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const Tensor labels = ints({2, 2}, {1, 2, 2, 0});
  EXPECT_NE(error_of(labels, ints({2}, {2, 1}), ints({2}, {4, 5})).find("logit_length of sample 1 is 5"),
            std::string::npos);
  EXPECT_NE(error_of(labels, ints({2}, {3, 1}), ints({2}, {4, 4})).find("label_length of sample 0 is 3"),
            std::string::npos);
  EXPECT_NE(error_of(labels, ints({2}, {2, 2}), ints({2}, {4, 4})).find("the blank class"), std::string::npos);
  EXPECT_NE(error_of(ints({2, 2}, {1, 7, 2, 0}), ints({2}, {2, 1}), ints({2}, {4, 4})).find("not one of the 3"),
            std::string::npos);
}

TEST(CTCLoss, ResolvesByKerasNames) {
  EXPECT_EQ(losses::get("ctc").name(), "ctc");
  EXPECT_EQ(losses::get("CTC").name(), "ctc");
  // Its targets are label sequences of their own length.
  const TensorSpec spec = losses::get("ctc").target_spec({Shape{kUnknownDim, 9, 5}, DType::float32});
  EXPECT_EQ(spec.shape, Shape({kUnknownDim, kUnknownDim}));
}

}  // namespace ctc_loss_test
