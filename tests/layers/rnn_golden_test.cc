// Recurrent layers against real Keras 3: outputs and gradients (inputs and weights) for
// every case in tests/data/rnn_golden.json (written by tests/reference/make_rnn_goldens.py).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"
#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "layers/recurrent/bidirectional.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/rnn.h"
#include "layers/recurrent/simple_rnn.h"
#include "models/model.h"

using namespace strata;

namespace rnn_golden_test {

using json = nlohmann::json;

namespace {

json load_goldens() {
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/rnn_golden.json");
  return json::parse(f);
}

Tensor to_tensor(const json& a, DType dtype = DType::float32) {
  std::vector<std::int64_t> dims = a["shape"].get<std::vector<std::int64_t>>();
  std::vector<float> v = a["data"].get<std::vector<float>>();
  if (dtype == DType::int32) {
    std::vector<std::int32_t> iv(v.begin(), v.end());
    return Tensor::from_vector<std::int32_t>(Shape(dims), iv);
  }
  return Tensor::from_vector<float>(Shape(dims), v);
}

Layer make_rnn(const json& s) {
  const std::string type = s["type"];
  const std::int64_t units = s["units"];
  const bool rs = s.value("return_sequences", false), st = s.value("return_state", false),
             gb = s.value("go_backwards", false);
  const std::string ra = s.value("recurrent_activation", std::string("sigmoid"));
  if (type == "LSTM") {
    return layers::LSTM(units, {.recurrent_activation = ra, .return_sequences = rs, .return_state = st,
                                .go_backwards = gb});
  }
  if (type == "GRU") {
    return layers::GRU(units, {.recurrent_activation = ra, .return_sequences = rs, .return_state = st,
                               .go_backwards = gb, .reset_after = s.value("reset_after", true)});
  }
  if (type == "SimpleRNN") {
    return layers::SimpleRNN(units, {.activation = s.value("activation", std::string("tanh")),
                                     .return_sequences = rs, .return_state = st, .go_backwards = gb});
  }
  return layers::RNN(std::vector<Layer>{layers::LSTMCell(units), layers::GRUCell(units)},
                     {.return_sequences = rs, .return_state = st, .go_backwards = gb});
}

Model build(const json& s, std::int64_t T, std::int64_t F) {
  std::vector<KerasTensor> ins;
  KerasTensor x;
  if (s.value("embedding", false)) {
    ins.push_back(Input({T}, {.dtype = DType::int32}));
    x = layers::Embedding(7, F, {.mask_zero = true})(ins[0]);
  } else {
    ins.push_back(Input({T, F}));
    x = s.value("masking", false) ? layers::Masking(0.0)(ins[0]) : ins[0];
  }
  std::vector<KerasTensor> outs;
  if (s.value("bidirectional", false)) {
    outs = layers::Bidirectional(make_rnn(s), {.merge_mode = s.value("merge_mode", std::string("concat"))})(
        std::vector<KerasTensor>{x});
  } else if (s.value("initial_state", false)) {
    std::vector<KerasTensor> call_ins{x};
    for (int k = 0; k < (s["type"] == "LSTM" ? 2 : 1); ++k) {
      ins.push_back(Input({s["units"].get<std::int64_t>()}));
      call_ins.push_back(ins.back());
    }
    outs = make_rnn(s)(call_ins);
  } else {
    outs = make_rnn(s)(std::vector<KerasTensor>{x});
  }
  return Model(ins, outs);
}

void expect_close(const Tensor& got, const json& want, const std::string& what) {
  Tensor w = to_tensor(want);
  ASSERT_EQ(got.shape(), w.shape()) << what;
  float worst = 0.f;
  std::int64_t at = -1;
  for (std::int64_t i = 0; i < w.size(); ++i) {
    float a = got.data<float>()[i], b = w.data<float>()[i];
    float excess = std::abs(a - b) - (1e-5f + 1e-5f * std::abs(b));
    if (excess > worst) worst = excess, at = i;
  }
  EXPECT_LE(worst, 0.f) << what << ": element " << at << " is " << got.data<float>()[at] << ", Keras has "
                        << w.data<float>()[at];
}

class RnnGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RnnGolden, MatchesKerasOutputsAndGradients) {
  static const json goldens = load_goldens();
  const json* found = nullptr;
  for (const auto& c : goldens["cases"]) {
    if (c["name"] == GetParam()) found = &c;
  }
  ASSERT_NE(found, nullptr);
  const json& c = *found;
  clear_session();
  const auto& in0 = c["inputs"][0]["shape"];
  const std::int64_t T = in0[1];
  const std::int64_t F = c["spec"].value("embedding", false) ? 3 : in0[2].get<std::int64_t>();
  Model model = build(c["spec"], T, F);

  // Weights by Keras path: the names must agree too.
  auto vars = model.weights();
  ASSERT_EQ(vars.size(), c["weights"].size());
  for (std::size_t i = 0; i < vars.size(); ++i) {
    EXPECT_EQ(vars[i].path(), c["weights"][i]["path"].get<std::string>());
    vars[i].assign(to_tensor(c["weights"][i]));
  }

  Graph g;
  std::vector<Output> feeds, xs;
  std::vector<Tensor> values;
  for (const auto& in : c["inputs"]) {
    DType dt = in["dtype"] == "int32" ? DType::int32 : DType::float32;
    Tensor t = to_tensor(in, dt);
    Output p = g.placeholder({t.shape().with_dim(0, kUnknownDim), dt});
    feeds.push_back(p);
    values.push_back(t);
    if (dt == DType::float32) xs.push_back(p);
  }
  std::vector<Output> outs = model.model().call(g, feeds);
  ASSERT_EQ(outs.size(), c["outputs"].size());
  Output loss;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    Tensor proj = to_tensor(c["projections"][i]);
    Output p = g.placeholder({proj.shape(), DType::float32}, "projection");
    feeds.push_back(p);
    values.push_back(proj);
    Output term = ops::reduce_sum(ops::mul(outs[i], p));
    loss = loss.valid() ? ops::add(loss, term) : term;
  }
  std::vector<Output> wrt = xs;
  for (const auto& v : model.trainable_weights()) wrt.push_back(g.variable(v));
  std::vector<Output> grads = gradients(loss, wrt);
  std::vector<Output> fetches = outs;
  fetches.insert(fetches.end(), grads.begin(), grads.end());
  Program program(g, feeds, fetches);
  std::vector<Tensor> got = program.run(values);
  for (std::size_t i = 0; i < outs.size(); ++i) expect_close(got[i], c["outputs"][i], "output " + std::to_string(i));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    expect_close(got[outs.size() + i], c["grad_inputs"][i], "d/d input " + std::to_string(i));
  }
  for (std::size_t i = 0; i < c["grad_weights"].size(); ++i) {
    expect_close(got[outs.size() + xs.size() + i], c["grad_weights"][i],
                 "d/d " + c["grad_weights"][i]["path"].get<std::string>());
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  const json goldens = load_goldens();
  for (const auto& c : goldens["cases"]) names.push_back(c["name"].get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras, RnnGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

}  // namespace

}  // namespace rnn_golden_test
