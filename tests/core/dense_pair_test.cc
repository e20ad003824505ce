// Two Dense layers in a row at batch 1 run as one kernel on the CPU (core/cpu/dense_pair.h):
// the same answers as the layers one by one, on any free or busy pool, and the executor
// runs the pair for a batch-1 prediction and the layers one by one otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <tuple>
#include <vector>

#include "core/cpu/dense_pair.h"
#include "core/cpu/gemv.h"
#include "core/cpu/parallel.h"
#include "core/ops.h"
#include "core/program.h"
#include "core/variable.h"
#include "core_test_util.h"
#include "strata.h"
#include "thread_count.h"

using namespace strata;
using namespace strata::testing;

namespace dense_pair_test {

namespace {

// act(x · kernel + bias) in double precision.
std::vector<double> reference_layer(const std::vector<double>& x, const Tensor& kernel, const Tensor* bias,
                                    bool relu) {
  const std::int64_t in = kernel.shape()[0], units = kernel.shape()[1];
  std::vector<double> y(static_cast<std::size_t>(units));
  for (std::int64_t j = 0; j < units; ++j) {
    double sum = bias ? bias->data<float>()[j] : 0.0;
    for (std::int64_t k = 0; k < in; ++k) sum += x[static_cast<std::size_t>(k)] * kernel.data<float>()[k * units + j];
    y[static_cast<std::size_t>(j)] = relu ? std::max(sum, 0.0) : sum;
  }
  return y;
}

double largest_relative_error(const float* got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t j = 0; j < want.size(); ++j) worst = std::max(worst, std::abs(got[j] - want[j]) / (1 + std::abs(want[j])));
  return worst;
}

struct PairShape {
  std::int64_t inputs, hidden, units;
  bool bias, relu_first, relu_second;
};

// Two random Dense layers of a shape and an input row for them; the layers point into
// the tensors, whose storage stays put when the struct moves.
struct RandomPair {
  explicit RandomPair(const PairShape& s)
      : x(uniform({1, s.inputs}, -2, 2, 1)),
        k1(uniform({s.inputs, s.hidden}, -0.2f, 0.2f, 2)),
        b1(uniform({s.hidden}, -0.5f, 0.5f, 3)),
        k2(uniform({s.hidden, s.units}, -0.2f, 0.2f, 4)),
        b2(uniform({s.units}, -0.5f, 0.5f, 5)),
        first{.kernel = k1.data<float>(), .bias = s.bias ? b1.data<float>() : nullptr, .relu = s.relu_first,
              .inputs = s.inputs, .units = s.hidden},
        second{.kernel = k2.data<float>(), .bias = s.bias ? b2.data<float>() : nullptr, .relu = s.relu_second,
               .inputs = s.hidden, .units = s.units} {}
  Tensor x, k1, b1, k2, b2;
  cpu::DenseRowLayer first, second;
};

}  // namespace

TEST(DensePair, ComputesBothLayersOfOneRowOnTwoThreads) {
  if (!cpu::gemv_available()) GTEST_SKIP() << "this build has no AVX-512 matrix-vector kernel, which the pair runs on";
  ThreadCount two(2);
  // The MLP's layers, hidden sizes that are not whole registers, a narrow and a wide
  // second layer, with and without bias and relu.
  for (const PairShape& s : {PairShape{784, 256, 256, true, true, true}, PairShape{784, 256, 10, true, true, false},
                             PairShape{37, 100, 300, true, false, true}, PairShape{600, 64, 33, false, true, false},
                             PairShape{129, 1000, 7, true, true, true}}) {
    SCOPED_TRACE(::testing::Message() << s.inputs << "-" << s.hidden << "-" << s.units);
    const RandomPair pair(s);
    const auto& [x, k1, b1, k2, b2, first, second] = pair;
    std::vector<float> hidden(static_cast<std::size_t>(s.hidden)), out(static_cast<std::size_t>(s.units));
    ASSERT_TRUE(cpu::dense_pair_row(first, second, x.data<float>(), hidden.data(), out.data()));

    const std::vector<double> x_row(x.data<float>(), x.data<float>() + s.inputs);
    const std::vector<double> want_hidden = reference_layer(x_row, k1, s.bias ? &b1 : nullptr, s.relu_first);
    const std::vector<double> want_out = reference_layer(want_hidden, k2, s.bias ? &b2 : nullptr, s.relu_second);
    EXPECT_LT(largest_relative_error(hidden.data(), want_hidden), 1e-5);
    EXPECT_LT(largest_relative_error(out.data(), want_out), 1e-5);
  }
}

TEST(DensePair, DeclinesWhereSplittingDoesNotPay) {
  const Tensor x = uniform({1, 784}, -2, 2, 1), k1 = uniform({784, 256}, -1, 1, 2), k2 = uniform({256, 10}, -1, 1, 3);
  const cpu::DenseRowLayer first{.kernel = k1.data<float>(), .inputs = 784, .units = 256};
  const cpu::DenseRowLayer second{.kernel = k2.data<float>(), .inputs = 256, .units = 10};
  std::vector<float> hidden(256, -7.f), out(10, -7.f);
  {
    ThreadCount one(1);
    EXPECT_FALSE(cpu::dense_pair_row(first, second, x.data<float>(), hidden.data(), out.data()));
  }
  ThreadCount two(2);
  const Tensor small = uniform({8, 16}, -1, 1, 4), small2 = uniform({16, 4}, -1, 1, 5);
  EXPECT_FALSE(cpu::dense_pair_row({.kernel = small.data<float>(), .inputs = 8, .units = 16},
                                   {.kernel = small2.data<float>(), .inputs = 16, .units = 4}, x.data<float>(),
                                   hidden.data(), out.data()))
      << "128 + 64 multiply-adds cost less than a hand-off";
  EXPECT_TRUE(std::all_of(hidden.begin(), hidden.end(), [](float v) { return v == -7.f; })) << "declined: untouched";
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == -7.f; }));
}

// The executor pairs the MLP's first two Dense steps: a batch-1 prediction equals the
// same sample's row of a larger batch (whose layers run one by one) and every node's
// kernel is counted once a run; runs on eight threads at once, which find the pool busy
// and run their pairs' tasks one after another, get the same bits as a lone run.
TEST(DensePair, AProgramRunsABatchOnePredictionThroughThePair) {
  ThreadCount two(2);
  Variable w1("w1", uniform({784, 256}, -0.1f, 0.1f, 1)), b1("b1", uniform({256}, -0.1f, 0.1f, 2));
  Variable w2("w2", uniform({256, 256}, -0.1f, 0.1f, 3)), b2("b2", uniform({256}, -0.1f, 0.1f, 4));
  Variable w3("w3", uniform({256, 10}, -0.1f, 0.1f, 5)), b3("b3", uniform({10}, -0.1f, 0.1f, 6));
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 784}}, "x");
  Output h1 = ops::dense(x, g.variable(w1), g.variable(b1), "relu");
  Output h2 = ops::dense(h1, g.variable(w2), g.variable(b2), "relu");
  Output y = ops::dense(h2, g.variable(w3), g.variable(b3), "");
  Program p(g, {x}, {y});
  EXPECT_EQ(p.num_paired_steps(), 1) << "the first two Dense steps pair; the third has no partner left";

  const Tensor batch = uniform({5, 784}, -2, 2, 7);
  Tensor one(Shape{1, 784});
  std::memcpy(one.data<float>(), batch.data<float>() + 2 * 784, 784 * sizeof(float));
  const Tensor rows = p.run({batch})[0];
  const Tensor single = p.run({one})[0];
  ASSERT_EQ(single.shape(), (Shape{1, 10}));
  for (int j = 0; j < 10; ++j) EXPECT_NEAR(single.data<float>()[j], rows.data<float>()[2 * 10 + j], 1e-5) << j;
  for (const Output& node : {h1, h2, y}) EXPECT_EQ(p.executions(node.node), 2) << "node " << node.node;

  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      std::vector<Tensor> results;
      for (int i = 0; i < 200; ++i) {
        p.run_into({one}, results);
        if (std::memcmp(results[0].data<float>(), single.data<float>(), 10 * sizeof(float)) != 0) mismatches.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0) << "of 1600 concurrent batch-1 runs";
}

// The first layer's kernel packed per thread (what a prediction on steady weights reads)
// gives the same bits as the kernel read in place: each column sums the same products in
// the same order.
TEST(DensePair, APackedFirstLayerGivesTheSameBitsAsTheKernelInPlace) {
  if (!cpu::gemv_available()) GTEST_SKIP() << "this build has no AVX-512 matrix-vector kernel, which the pair runs on";
  for (const int threads : {2, 3}) {
    ThreadCount count(threads);
    for (const PairShape& s : {PairShape{784, 256, 10, true, true, false}, PairShape{129, 1000, 7, true, true, true},
                               PairShape{37, 100, 300, false, false, true}}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads, " << s.inputs << "-" << s.hidden << "-" << s.units);
      const RandomPair pair(s);
      const auto& [x, first, second] = std::tie(pair.x, pair.first, pair.second);
      const cpu::DensePairSplit split = cpu::dense_pair_split(first, second, threads);
      ASSERT_TRUE(split);
      Tensor packed(Shape{s.inputs, s.hidden});
      const std::int64_t packs = cpu::dense_pair_packs();
      cpu::pack_dense_pair_first(first, split, packed.data<float>());
      EXPECT_EQ(cpu::dense_pair_packs(), packs + 1);

      std::vector<float> hidden(static_cast<std::size_t>(s.hidden)), out(static_cast<std::size_t>(s.units));
      std::vector<float> hidden_packed(hidden.size()), out_packed(out.size());
      cpu::dense_pair_run(split, first, nullptr, second, x.data<float>(), hidden.data(), out.data());
      cpu::dense_pair_run(split, first, packed.data<float>(), second, x.data<float>(), hidden_packed.data(),
                          out_packed.data());
      EXPECT_EQ(std::memcmp(hidden.data(), hidden_packed.data(), hidden.size() * sizeof(float)), 0);
      EXPECT_EQ(std::memcmp(out.data(), out_packed.data(), out.size() * sizeof(float)), 0);
    }
  }
}

namespace {

// The bench's MLP as a Program over variables a test can write.
struct Mlp {
  Variable w1{"w1", uniform({784, 256}, -0.1f, 0.1f, 1)}, b1{"b1", uniform({256}, -0.1f, 0.1f, 2)};
  Variable w2{"w2", uniform({256, 256}, -0.1f, 0.1f, 3)}, b2{"b2", uniform({256}, -0.1f, 0.1f, 4)};
  Variable w3{"w3", uniform({256, 10}, -0.1f, 0.1f, 5)}, b3{"b3", uniform({10}, -0.1f, 0.1f, 6)};
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 784}}, "x");
  Output y = ops::dense(ops::dense(ops::dense(x, g.variable(w1), g.variable(b1), "relu"), g.variable(w2),
                                   g.variable(b2), "relu"),
                        g.variable(w3), g.variable(b3), "");
  // A train step's stand-in: an update op that writes w1.
  Output update = ops::assign_add(g.variable(w1), ops::mul(g.variable(w1), 0.5f));
  Tensor one = uniform({1, 784}, -2, 2, 7);

  // A prediction by a Program of its own, whose first runs read the kernel in place.
  std::vector<float> fresh_prediction() { return Program(g, {x}, {y}).run({one})[0].to_vector<float>(); }
};

}  // namespace

// A Program's batch-1 predictions pack the first kernel once its weights have stayed the
// same for a while, and read the packed copy from then on, with the same bits.
TEST(DensePair, PredictionsOnSteadyWeightsPackTheFirstKernelOnce) {
  if (!cpu::gemv_available()) GTEST_SKIP() << "this build has no AVX-512 matrix-vector kernel, which the pair runs on";
  ThreadCount two(2);
  Mlp m;
  Program p(m.g, {m.x}, {m.y});
  const std::int64_t packs = cpu::dense_pair_packs();
  const std::vector<float> first = p.run({m.one})[0].to_vector<float>();
  int differing = 0;
  for (int i = 0; i < 300; ++i) differing += p.run({m.one})[0].to_vector<float>() != first;
  EXPECT_EQ(cpu::dense_pair_packs(), packs + 1) << "one pack for 300 predictions on the same weights";
  EXPECT_EQ(differing, 0);
}

// Every way a weight is written reaches the next prediction, packed copy or not: an
// assignment, a write through the variable's tensor, and an update op in a train step.
TEST(DensePair, APredictionAfterTheWeightsChangeReadsTheNewWeights) {
  if (!cpu::gemv_available()) GTEST_SKIP() << "this build has no AVX-512 matrix-vector kernel, which the pair runs on";
  ThreadCount two(2);
  Mlp m;
  Program predict(m.g, {m.x}, {m.y});
  Program train(m.g, {}, {}, {m.update});
  auto settle = [&] {  // enough predictions to pack whatever the threshold has grown to
    const std::int64_t packs = cpu::dense_pair_packs();
    for (int i = 0; i < 5000 && cpu::dense_pair_packs() == packs; ++i) predict.run({m.one});
    return cpu::dense_pair_packs() > packs;
  };
  ASSERT_TRUE(settle());
  std::vector<float> before = predict.run({m.one})[0].to_vector<float>();

  const std::vector<std::pair<const char*, std::function<void()>>> writes{
      {"Variable::assign", [&] { m.w1.assign(uniform({784, 256}, -0.1f, 0.1f, 11)); }},
      {"a write through value().data()", [&] { m.w1.value().data<float>()[5 * 256 + 200] = 3.f; }},
      {"a train step's update op", [&] { train.run({}); }}};
  for (const auto& [how, write] : writes) {
    SCOPED_TRACE(how);
    write();
    const std::vector<float> after = predict.run({m.one})[0].to_vector<float>();
    EXPECT_NE(after, before) << "the weights changed";
    EXPECT_EQ(after, m.fresh_prediction()) << "as a Program that never packed computes it";
    ASSERT_TRUE(settle());
    EXPECT_EQ(predict.run({m.one})[0].to_vector<float>(), after) << "packed anew";
    before = after;
  }
}

// Weights that change every few predictions (a model trained between them) stop being
// packed: each copy dropped before it paid for itself doubles the runs a state waits.
TEST(DensePair, WeightsChangingBetweenShortRunsOfPredictionsStopBeingPacked) {
  if (!cpu::gemv_available()) GTEST_SKIP() << "this build has no AVX-512 matrix-vector kernel, which the pair runs on";
  ThreadCount two(2);
  Mlp m;
  Program p(m.g, {m.x}, {m.y});
  const std::int64_t packs = cpu::dense_pair_packs();
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 40; ++i) p.run({m.one});
    m.b1.value().data<float>()[0] += 0.f;  // a write, as far as anyone can tell
    m.w1.value().data<float>()[0] += 0.f;
  }
  EXPECT_LE(cpu::dense_pair_packs() - packs, 2) << "40 rounds of 40 predictions";
}

// Through the Model API: batch-1 predictions on steady weights pack once (nothing on the
// way marks the weights written), and a train step between them does mark them, so the
// predictions after it pack anew.
TEST(DensePair, ModelPredictionsPackOnceAndAgainAfterATrainStep) {
  if (!cpu::gemv_available()) GTEST_SKIP() << "this build has no AVX-512 matrix-vector kernel, which the pair runs on";
  ThreadCount two(2);
  KerasTensor input = layers::Input(Shape{784});
  Model m = Sequential({input, layers::Dense(256, {.activation = "relu"}), layers::Dense(256, {.activation = "relu"}),
                        layers::Dense(10)});
  m.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy", .device = "cpu"});
  const Tensor one = uniform({1, 784}, -2, 2, 7);
  Tensor labels(Shape{1}, DType::int64);
  const std::int64_t packs = cpu::dense_pair_packs();
  const Tensor before = m.predict_on_batch(one);
  for (int i = 0; i < 300; ++i) m.predict_on_batch(one);
  EXPECT_EQ(cpu::dense_pair_packs(), packs + 1);
  m.train_on_batch(one, labels);
  const Tensor after = m.predict_on_batch(one);
  EXPECT_NE(std::memcmp(before.raw_data(), after.raw_data(), 10 * sizeof(float)), 0) << "the train step moved the weights";
  for (int i = 0; i < 300; ++i) {
    const Tensor again = m.predict_on_batch(one);
    ASSERT_EQ(std::memcmp(again.raw_data(), after.raw_data(), 10 * sizeof(float)), 0) << "prediction " << i;
  }
  EXPECT_EQ(cpu::dense_pair_packs(), packs + 2);
}

// Only a Dense step whose output the next computing step reads as its first input pairs:
// an op between them, or a second layer fed by something else, leaves both unpaired.
TEST(DensePair, AProgramPairsOnlyDenseStepsThatFeedEachOther) {
  Variable w1("w1", uniform({8, 8}, -1, 1, 1)), w2("w2", uniform({8, 8}, -1, 1, 2));
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 8}}, "x");
  Output h = ops::dense(x, g.variable(w1), Output{}, "");
  Output through_tanh = ops::dense(ops::tanh(h), g.variable(w2), Output{}, "");
  Output side_by_side = ops::dense(x, g.variable(w2), Output{}, "");
  Output chained = ops::dense(h, g.variable(w2), Output{}, "");
  EXPECT_EQ(Program(g, {x}, {through_tanh}).num_paired_steps(), 0);
  EXPECT_EQ(Program(g, {x}, {h, side_by_side}).num_paired_steps(), 0);
  EXPECT_EQ(Program(g, {x}, {chained}).num_paired_steps(), 1);
}

}  // namespace dense_pair_test
