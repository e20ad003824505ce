// Op cases for the CTC ops (core/ops/ctc_ops.h), beyond their Keras goldens
// (tests/io/keras_ops_test.cc's ctc cases, tests/losses/ctc_loss_test.cc): ctc_loss against
// the sum over every path of the steps that collapses to the labels, enumerated one by one,
// with its gradient by finite differences; ctc_loss_logits_gradient against the same
// enumeration (softmax minus each class's share of the paths); ctc_greedy_decode by hand;
// ctc_beam_search_decode with a beam wide enough for every prefix against the labellings'
// probabilities enumerated the same way, and with a narrow one as a greedy search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
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

// Every labelling's probability over sample b's first `steps` steps (blank `blank`), by
// enumerating the paths: log P, highest first.
std::vector<std::pair<std::vector<std::int32_t>, double>> labellings(const Tensor& logits, std::int64_t b,
                                                                     std::int64_t steps, std::int32_t blank) {
  const std::int64_t T = logits.shape()[1], C = logits.shape()[2];
  std::map<std::vector<std::int32_t>, double> probability;
  std::int64_t paths = 1;
  for (std::int64_t t = 0; t < steps; ++t) paths *= C;
  for (std::int64_t code = 0; code < paths; ++code) {
    std::vector<std::int32_t> collapsed;
    double prob = 1.0;
    std::int32_t previous = -1;
    for (std::int64_t t = 0, rest = code; t < steps; ++t, rest /= C) {
      const auto c = static_cast<std::int32_t>(rest % C);
      double sum = 0.0;
      for (std::int64_t k = 0; k < C; ++k) sum += std::exp(logits.item((b * T + t) * C + k));
      prob *= std::exp(logits.item((b * T + t) * C + c)) / sum;
      if (c != blank && c != previous) collapsed.push_back(c);
      previous = c;
    }
    probability[collapsed] += prob;
  }
  std::vector<std::pair<std::vector<std::int32_t>, double>> ranked;
  for (const auto& [labels, p] : probability) ranked.push_back({labels, std::log(p)});
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return ranked;
}

void check_beam_search_decode() {
  // Two samples of 5 steps over 4 classes (the blank 1), the second 3 steps long: at most
  // 1 + 3 + 9 + 27 + 81 + 243 prefixes, so a beam of 400 keeps them all and the search is
  // exact: its best labellings are the enumeration's.
  const Tensor logits = uniform({2, 5, 4}, -2.f, 2.f, 79);
  const Tensor lengths = Tensor::from_vector<std::int32_t>({2}, {5, 3});
  const std::int64_t top_paths = 4;
  Graph g;
  const Output x = g.placeholder({logits.shape()}), n = g.placeholder({lengths.shape(), DType::int32});
  const ops::CtcDecoded d = ops::ctc_beam_search_decode(x, n, 400, top_paths, 1);
  EXPECT_EQ(d.labels.shape(), (Shape{top_paths, 2, 5}));
  Program p(g, {x, n}, {d.labels, d.scores});
  const auto out = p.run({logits, lengths});
  for (std::int64_t b = 0; b < 2; ++b) {
    const auto want = labellings(logits, b, b == 0 ? 5 : 3, 1);
    for (std::int64_t k = 0; k < top_paths; ++k) {
      std::vector<std::int32_t> got;
      for (std::int64_t t = 0; t < 5; ++t) {
        const std::int32_t v = out[0].data<std::int32_t>()[(k * 2 + b) * 5 + t];
        if (v >= 0) got.push_back(v);
      }
      EXPECT_EQ(got, want[static_cast<std::size_t>(k)].first) << "sample " << b << " path " << k;
      EXPECT_NEAR(out[1].item(b * top_paths + k), want[static_cast<std::size_t>(k)].second, 1e-5)
          << "sample " << b << " path " << k;
    }
  }
  // A beam of one follows the best prefix: its labelling is at most as likely as the best.
  {
    Graph g1;
    const Output x1 = g1.placeholder({logits.shape()}), n1 = g1.placeholder({lengths.shape(), DType::int32});
    const ops::CtcDecoded narrow = ops::ctc_beam_search_decode(x1, n1, 1, 1, 1);
    Program p1(g1, {x1, n1}, {narrow.scores});
    const Tensor scores = p1.run({logits, lengths})[0];
    for (std::int64_t b = 0; b < 2; ++b)
      EXPECT_LE(scores.item(b), labellings(logits, b, b == 0 ? 5 : 3, 1)[0].second + 1e-6);
  }
  // More paths than the beam holds: a sample of no steps has only the empty labelling.
  const Tensor none = Tensor::from_vector<std::int32_t>({2}, {5, 0});
  try {
    p.run({logits, none});
    ADD_FAILURE() << "four paths from a sample of no steps";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("fewer than top_paths 4"), std::string::npos) << e.what();
  }
  // A NaN logit, or a step of -inf logits only, is refused naming where.
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    Tensor broken = logits.clone();
    for (std::int64_t c = 0; c < (std::isnan(bad) ? 1 : 4); ++c) broken.data<float>()[(5 + 2) * 4 + c] = bad;  // sample 1, step 2
    try {
      p.run({broken, lengths});
      ADD_FAILURE() << "a broken logit was decoded";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("sample 1, step 2"), std::string::npos) << e.what();
    }
  }
  // top_paths above beam_width, when the op is made.
  Graph g2;
  const Output x2 = g2.placeholder({logits.shape()}), n2 = g2.placeholder({lengths.shape(), DType::int32});
  EXPECT_THROW(ops::ctc_beam_search_decode(x2, n2, 2, 3, 1), ValueError);
}

const RegisterOpCases ctc_cases({
    {"ctc_loss",
     OpCase{.gradient_checks = {{"two samples, repeats and a shorter sample",
                                 [](Graph& g, const std::vector<Output>& x) { return ctc_of(g, x[0], false); },
                                 {uniform({2, kSteps, kClasses}, -1.5f, 1.5f, 78)},
                                 enumerated_loss}}}},
    {"ctc_loss_logits_gradient", OpCase{.forward_check = check_gradient_op}},
    {"ctc_greedy_decode", OpCase{.forward_check = check_greedy_decode}},
    {"ctc_beam_search_decode", OpCase{.forward_check = check_beam_search_decode}},
});

}  // namespace
}  // namespace strata::testing::ctc_op_cases
