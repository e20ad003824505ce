// Op cases for the recurrent and sequence op families (core/ops/rnn_ops.cc,
// core/ops/sequence_ops.cc): rnn_sequence passes the numerical gradient check for every
// cell, with masks, go_backwards, reversed outputs and training-mode dropout, so
// backpropagation through time (rnn_sequence_grad) is checked through it.
#include "core/ops.h"
#include "core/ops/rnn_ops.h"
#include "core/ops/sequence_ops.h"
#include "op_cases.h"

namespace strata::testing::rnn_op_cases_test {
namespace {

constexpr std::int64_t B = 2, T = 4, F = 3, H = 3;

// x, h0, c0, kernel, recurrent_kernel, bias [, mask]
std::vector<Tensor> rnn_inputs(const std::string& cell, bool reset_after, bool masked, std::uint64_t seed) {
  const std::int64_t G = cell == "lstm" ? 4 : cell == "gru" ? 3 : 1;
  std::vector<Tensor> in{uniform({B, T, F}, -1.f, 1.f, seed), uniform({B, H}, -0.5f, 0.5f, seed + 1),
                         uniform({B, H}, -0.5f, 0.5f, seed + 2), uniform({F, G * H}, -0.7f, 0.7f, seed + 3),
                         uniform({H, G * H}, -0.7f, 0.7f, seed + 4)};
  in.push_back(cell == "gru" && reset_after ? uniform({2, G * H}, -0.3f, 0.3f, seed + 5)
                                            : uniform({G * H}, -0.3f, 0.3f, seed + 5));
  if (masked) in.push_back(tensor<float>({B, T}, {1, 1, 0, 0, 1, 0, 1, 1}));
  return in;
}

GradCase rnn_case(const std::string& label, Attrs attrs, bool masked, std::uint64_t seed, bool training = false) {
  const std::string cell = attrs.get<std::string>("cell");
  attrs.set("activation", std::string("tanh"));
  if (!attrs.has("recurrent_activation")) attrs.set("recurrent_activation", std::string("sigmoid"));
  GradCase g{label,
             [attrs, masked](Graph&, const std::vector<Output>& in) {
               auto o = ops::rnn_sequence(in[0], in[1], in[2], in[3], in[4], in[5], masked ? in[6] : Output{}, attrs);
               // Every output contributes: the sequence (summed over time), last h and last c.
               return ops::add(ops::reduce_sum(o[0], {1}), ops::add(o[1], ops::mul(o[2], 0.5f)));
             },
             rnn_inputs(cell, attrs.get_or<bool>("reset_after", true), masked, seed)};
  if (masked) g.options.fixed_inputs = {6};
  g.options.training = training;
  return g;
}

Attrs cell_attrs(const std::string& cell) { return Attrs{{"cell", cell}}; }

std::map<std::string, OpCase> cases() {
  std::map<std::string, OpCase> t;
  Attrs back = cell_attrs("lstm");
  back.set("go_backwards", true);
  Attrs zero_rev = cell_attrs("lstm");
  zero_rev.set("go_backwards", true).set("reverse_output", true).set("zero_output_for_mask", true);
  Attrs gru_before = cell_attrs("gru");
  gru_before.set("reset_after", false).set("go_backwards", true);
  Attrs lstm_drop = cell_attrs("lstm");
  lstm_drop.set("dropout", 0.3).set("recurrent_dropout", 0.3).set("seed", std::int64_t{5});
  Attrs gru_drop = cell_attrs("gru");
  gru_drop.set("dropout", 0.3).set("recurrent_dropout", 0.3).set("seed", std::int64_t{6});
  Attrs gru_before_drop = gru_before;
  gru_before_drop.set("dropout", 0.2).set("recurrent_dropout", 0.4).set("seed", std::int64_t{7});
  Attrs simple_drop = cell_attrs("simple_rnn");
  simple_drop.set("recurrent_dropout", 0.5).set("seed", std::int64_t{8});
  Attrs stacked = cell_attrs("gru");
  stacked.set("go_backwards", true).set("input_in_processing_order", true);
  t["rnn_sequence"].gradient_checks = {
      rnn_case("lstm", cell_attrs("lstm"), false, 10),
      rnn_case("lstm, go_backwards, masked", back, true, 20),
      rnn_case("lstm, reversed output, zero_output_for_mask", zero_rev, true, 30),
      rnn_case("gru reset_after", cell_attrs("gru"), false, 40),
      rnn_case("gru reset_after, masked", cell_attrs("gru"), true, 45),
      rnn_case("gru reset_before, go_backwards, masked", gru_before, true, 50),
      rnn_case("gru, input already in processing order", stacked, true, 55),
      rnn_case("simple_rnn, masked", cell_attrs("simple_rnn"), true, 60),
      rnn_case("lstm, dropout in training", lstm_drop, false, 70, true),
      rnn_case("gru, dropout in training", gru_drop, true, 80, true),
      rnn_case("gru reset_before, dropout in training", gru_before_drop, false, 90, true),
      rnn_case("simple_rnn, recurrent dropout in training", simple_drop, false, 100, true),
  };
  t["rnn_sequence_grad"].forward_check = [] {
    // A linear SimpleRNN over one step: y = x·w + h0·u + b, so the gradients are plain.
    Attrs a{{"cell", std::string("simple_rnn")}, {"activation", std::string("linear")},
            {"recurrent_activation", std::string("sigmoid")}};
    Graph g;
    std::vector<Output> in;
    std::vector<Tensor> v{tensor<float>({1, 1, 1}, {2}), tensor<float>({1, 1}, {3}), tensor<float>({1, 1}, {0}),
                          tensor<float>({1, 1}, {5}), tensor<float>({1, 1}, {7}), tensor<float>({1}, {11})};
    for (const auto& t : v) in.push_back(g.placeholder({t.shape(), DType::float32}));
    auto o = ops::rnn_sequence(in[0], in[1], in[2], in[3], in[4], in[5], Output{}, a);
    EXPECT_EQ(o[0].graph->node(o[0].node).op, "rnn_sequence");
    Output dy = g.placeholder({Shape{1, 1, 1}, DType::float32});
    Output zeros = g.placeholder({Shape{1, 1}, DType::float32});
    auto d = g.add_node("rnn_sequence_grad", {in[0], in[1], in[2], in[3], in[4], in[5], o[3], dy, zeros, zeros}, a);
    std::vector<Output> feeds = in;
    feeds.push_back(dy);
    feeds.push_back(zeros);
    v.push_back(tensor<float>({1, 1, 1}, {1}));
    v.push_back(tensor<float>({1, 1}, {0}));
    Program p(g, feeds, {o[0], d[0], d[1], d[3], d[4], d[5]});
    auto r = p.run(v);
    EXPECT_FLOAT_EQ(r[0].item(), 2 * 5 + 3 * 7 + 11);
    EXPECT_FLOAT_EQ(r[1].item(), 5);   // dx = w
    EXPECT_FLOAT_EQ(r[2].item(), 7);   // dh0 = u
    EXPECT_FLOAT_EQ(r[3].item(), 2);   // dW = x
    EXPECT_FLOAT_EQ(r[4].item(), 3);   // dU = h0
    EXPECT_FLOAT_EQ(r[5].item(), 1);   // db
  };
  t["rnn_zero_state"].forward_check = [] {
    Tensor z = evaluate(unary([](Output x) { return ops::rnn_zero_state(x, 5); }), {uniform({3, 4, 2}, 0, 1, 1)});
    EXPECT_TRUE(tensors_near(z, Tensor(Shape{3, 5})));
  };
  t["concat_last"].gradient_checks = {
      {"(2,3,2) and (2,3,4)", binary([](Output a, Output b) { return ops::concat_last(a, b); }),
       {uniform({2, 3, 2}, -1, 1, 1), uniform({2, 3, 4}, -1, 1, 2)}}};
  t["split_last"].gradient_checks = {
      {"split then weighted sum", binary([](Output a, Output b) {
         auto parts = a.graph->add_node("split_last", {ops::concat_last(a, b), a, b});
         return ops::add(parts[0], ops::mul(parts[1], 2.f));
       }),
       {uniform({2, 3}, -1, 1, 3), uniform({2, 3}, -1, 1, 4)}}};
  auto ids = tensor<std::int32_t>({2, 3}, {0, 4, 2, 2, 2, 1});
  t["embedding_lookup"].gradient_checks = {
      {"ids (2,3) into a (5,4) table", [](Graph&, const std::vector<Output>& in) {
         return ops::embedding_lookup(in[0], in[1], "Embedding 'e'");
       },
       {uniform({5, 4}, -1, 1, 5), ids}}};
  t["embedding_lookup_grad"].gradient_checks = {
      {"scatter-add of (2,3,4) into (5,4)", [](Graph& g, const std::vector<Output>& in) {
         return g.add("embedding_lookup_grad", {in[0], in[1], in[2]}, Attrs{{"layer", std::string("e")}});
       },
       {uniform({2, 3, 4}, -1, 1, 6), ids, uniform({5, 4}, -1, 1, 7)}}};
  t["repeat_vector"].gradient_checks = {
      {"(2,3) three times", unary([](Output x) { return ops::repeat_vector(x, 3); }), {uniform({2, 3}, -1, 1, 8)}}};
  t["unfold_time"].gradient_checks = {
      {"(6,2) as (2,3,2)", binary([](Output y, Output like) { return ops::unfold_time(y, like); }),
       {uniform({6, 2}, -1, 1, 9), uniform({2, 3, 5}, -1, 1, 10)}}};
  return t;
}

const RegisterOpCases rnn_cases(cases());

}  // namespace
}  // namespace strata::testing::rnn_op_cases_test
