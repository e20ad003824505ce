// Op cases for the CTC ops (core/ops/ctc_ops.h), beyond their Keras goldens
// (tests/io/keras_ops_test.cc's ctc cases, tests/losses/ctc_loss_test.cc): ctc_loss against
// the sum over every path of the steps that collapses to the labels, enumerated one by one,
// with its gradient by finite differences; ctc_loss_logits_gradient against the same
// enumeration (softmax minus each class's share of the paths); ctc_greedy_decode by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/ops.h"
#include "core/ops/ctc_ops.h"
#include "core/variable.h"
#include "op_cases.h"

namespace strata::testing::ctc_op_cases {
namespace {

// The labels and lengths of the cases: two samples over T = 4 steps of C = 3 classes, the
// blank 0; the first labelled "1 1" over all four steps, the second "2" over its first three.
constexpr std::int64_t kSteps = 4, kClasses = 3;
const std::vector<std::int32_t> kLabels = {1, 1, 2, 0}, kLabelLength = {2, 1}, kLogitLength = {4, 3};

Output int_constant(Graph& g, const std::string& name, Shape shape, const std::vector<std::int32_t>& v) {
  return g.variable(Variable(name, Tensor::from_vector<std::int32_t>(std::move(shape), v), false));
}

Output ctc_of(Graph& g, Output logits, bool gradient) {
  const Output labels = int_constant(g, "labels", Shape{2, 2}, kLabels);
  const Output label_length = int_constant(g, "label_length", Shape{2}, kLabelLength);
  const Output logit_length = int_constant(g, "logit_length", Shape{2}, kLogitLength);
  return gradient ? ops::ctc_loss_logits_gradient(labels, logits, label_length, logit_length, 0)
                  : ops::ctc_loss(labels, logits, label_length, logit_length, 0);
}

// Every path of a sample's steps, its probability under the softmax, and whether it
// collapses (repeats merged, blanks dropped) to the sample's labels.
struct Enumerated {
  double likelihood = 0.0;
  std::vector<double> occupancy;  // (steps, classes): Σ P(path) over the collapsing paths with that class there
};

Enumerated enumerate(const Tensor& logits, std::int64_t b) {
  const std::int64_t T = kLogitLength[static_cast<std::size_t>(b)];
  std::vector<double> p(static_cast<std::size_t>(T * kClasses));
  for (std::int64_t t = 0; t < T; ++t) {
    double sum = 0.0;
    for (std::int64_t c = 0; c < kClasses; ++c) sum += std::exp(logits.item((b * kSteps + t) * kClasses + c));
    for (std::int64_t c = 0; c < kClasses; ++c)
      p[static_cast<std::size_t>(t * kClasses + c)] = std::exp(logits.item((b * kSteps + t) * kClasses + c)) / sum;
  }
  std::vector<std::int32_t> want(kLabels.begin() + b * 2, kLabels.begin() + b * 2 + kLabelLength[static_cast<std::size_t>(b)]);
  Enumerated out;
  out.occupancy.assign(static_cast<std::size_t>(T * kClasses), 0.0);
  std::int64_t paths = 1;
  for (std::int64_t t = 0; t < T; ++t) paths *= kClasses;
  for (std::int64_t code = 0; code < paths; ++code) {
    std::vector<std::int32_t> path, collapsed;
    double prob = 1.0;
    for (std::int64_t t = 0, rest = code; t < T; ++t, rest /= kClasses) {
      path.push_back(static_cast<std::int32_t>(rest % kClasses));
      prob *= p[static_cast<std::size_t>(t * kClasses + path.back())];
    }
    for (std::size_t t = 0; t < path.size(); ++t)
      if (path[t] != 0 && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    if (collapsed != want) continue;
    out.likelihood += prob;
    for (std::int64_t t = 0; t < T; ++t) out.occupancy[static_cast<std::size_t>(t * kClasses + path[static_cast<std::size_t>(t)])] += prob;
  }
  return out;
}

Tensor enumerated_loss(const std::vector<Tensor>& x) {
  Tensor y(Shape{2});
  for (std::int64_t b = 0; b < 2; ++b) y.data<float>()[b] = static_cast<float>(-std::log(enumerate(x[0], b).likelihood));
  return y;
}

void check_gradient_op() {
  const Tensor logits = uniform({2, kSteps, kClasses}, -1.5f, 1.5f, 77);
  const Tensor grad = evaluate([](Graph& g, const std::vector<Output>& x) { return ctc_of(g, x[0], true); }, {logits});
  for (std::int64_t b = 0; b < 2; ++b) {
    const Enumerated e = enumerate(logits, b);
    for (std::int64_t t = 0; t < kSteps; ++t) {
      double sum = 0.0;
      for (std::int64_t c = 0; c < kClasses; ++c) sum += std::exp(logits.item((b * kSteps + t) * kClasses + c));
      for (std::int64_t c = 0; c < kClasses; ++c) {
        const std::int64_t i = (b * kSteps + t) * kClasses + c;
        const double want = t < kLogitLength[static_cast<std::size_t>(b)]
                                ? std::exp(logits.item(i)) / sum -
                                      e.occupancy[static_cast<std::size_t>(t * kClasses + c)] / e.likelihood
                                : 0.0;  // past the sample's steps
        EXPECT_NEAR(grad.item(i), want, 1e-5) << "sample " << b << " step " << t << " class " << c;
      }
    }
  }
}

void check_greedy_decode() {
  // Sample 0 picks 1 1 0 2 0 (a tie between the blank and 2 at step 4: the first, the blank,
  // as TensorFlow's); sample 1 has two steps, picking 2 2.
  const Tensor logits = Tensor::from_vector<float>({2, 5, 3}, {0, 3, 1,  0, 2, 1,  5, 1, 1,  0, 0, 4,  2, 1, 2,
                                                                 1, 0, 3,  0, 1, 2,  9, 0, 0,  9, 0, 0,  9, 0, 0});
  const Tensor lengths = Tensor::from_vector<std::int32_t>({2}, {5, 2});
  for (const bool merge : {true, false}) {
    Graph g;
    const Output x = g.placeholder({logits.shape()}), n = g.placeholder({lengths.shape(), DType::int32});
    const ops::CtcDecoded d = ops::ctc_greedy_decode(x, n, merge, 0);
    Program p(g, {x, n}, {d.labels, d.scores});
    const auto out = p.run({logits, lengths});
    const std::vector<std::int32_t> want = merge ? std::vector<std::int32_t>{1, 2, -1, -1, -1, 2, -1, -1, -1, -1}
                                                 : std::vector<std::int32_t>{1, 1, 2, -1, -1, 2, 2, -1, -1, -1};
    EXPECT_EQ(out[0].to_vector<std::int32_t>(), want) << "merge_repeated " << merge;
    EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{-(3.f + 2 + 5 + 4 + 2), -(3.f + 2)}));
  }
}

const RegisterOpCases ctc_cases({
    {"ctc_loss",
     OpCase{.gradient_checks = {{"two samples, repeats and a shorter sample",
                                 [](Graph& g, const std::vector<Output>& x) { return ctc_of(g, x[0], false); },
                                 {uniform({2, kSteps, kClasses}, -1.5f, 1.5f, 78)},
                                 enumerated_loss}}}},
    {"ctc_loss_logits_gradient", OpCase{.forward_check = check_gradient_op}},
    {"ctc_greedy_decode", OpCase{.forward_check = check_greedy_decode}},
});

}  // namespace
}  // namespace strata::testing::ctc_op_cases
