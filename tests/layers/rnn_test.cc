// Recurrent layers' behaviour beyond the Keras goldens: one op per sequence whatever its
// length, variable-length batches, fresh cells, stateful layers, dropout, wrappers, and
// clear errors for bad input.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "layers/core/dense.h"
#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "layers/recurrent/bidirectional.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/rnn.h"
#include "layers/recurrent/simple_rnn.h"
#include "layers/recurrent/time_distributed.h"
#include "losses/losses.h"
#include "models/model.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"

using namespace strata;

namespace rnn_test {

namespace {

Tensor random_tensor(Shape shape, std::uint64_t seed) {
  Tensor t(std::move(shape));
  Philox rng(seed, 1);
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = rng.uniform(static_cast<std::uint64_t>(i)) - 0.5f;
  return t;
}

Model lstm_model(std::int64_t timesteps) {
  auto in = Input({timesteps, 3});
  auto h = layers::LSTM(8, {.return_sequences = true})(in);
  auto out = layers::Dense(1)(layers::GRU(4)(h));
  Model m(in, out);
  m.compile({.optimizer = optimizers::Adam(), .loss = losses::MeanSquaredError()});
  return m;
}

int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes()) n += node.op == op;
  return n;
}

}  // namespace

TEST(LSTM, GraphSizeDoesNotGrowWithSequenceLength) {
  Model short_seq = lstm_model(5), long_seq = lstm_model(200);
  EXPECT_EQ(short_seq.graph().num_nodes(), long_seq.graph().num_nodes());
  EXPECT_EQ(count_op(long_seq.graph(), "rnn_sequence"), 2);  // one op per layer, not per step
}

TEST(LSTM, RunsBatchesOfAnyLengthWithoutRecompiling) {
  Model m = lstm_model(kUnknownDim);
  EXPECT_EQ(m.inputs()[0].shape(), (Shape{kUnknownDim, kUnknownDim, 3}));
  const int nodes = m.graph().num_nodes();
  for (std::int64_t T : {4, 11, 1}) {
    Tensor x = random_tensor({6, T, 3}, static_cast<std::uint64_t>(T));
    Tensor y = random_tensor({6, 1}, 7);
    m.fit(x, y, {.batch_size = 3, .epochs = 1, .verbose = 0});
    EXPECT_EQ(m.predict(x, {.verbose = 0}).shape(), (Shape{6, 1}));
  }
  EXPECT_EQ(m.graph().num_nodes(), nodes);
}

TEST(LSTM, StackedLayersHaveIndependentWeights) {
  clear_session();
  auto in = Input({5, 3});
  layers::LSTM a(4, {.return_sequences = true}), b(4, {.return_sequences = true}), c(4);
  Model m(in, c(b(a(in))));
  std::set<const void*> ids;
  std::set<std::string> paths;
  for (const auto& v : m.weights()) {
    ids.insert(v.id());
    paths.insert(v.path());
  }
  EXPECT_EQ(ids.size(), 9u);
  EXPECT_TRUE(paths.count("lstm/lstm_cell/kernel") && paths.count("lstm_1/lstm_cell/kernel") &&
              paths.count("lstm_2/lstm_cell/kernel"));
}

TEST(RNN, OneCellInstanceInTwoLayersThrowsAtDefinition) {
  layers::LSTMCell cell(4);
  layers::RNN first(cell);
  try {
    layers::RNN second(cell);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("create a new LSTMCell instance"), std::string::npos) << e.what();
  }
}

TEST(RNN, StackedCellsRunAsOneLayer) {
  clear_session();
  auto in = Input({6, 3});
  layers::RNN rnn(std::vector<Layer>{layers::SimpleRNNCell(5), layers::LSTMCell(4), layers::GRUCell(2)},
                  {.return_state = true});
  auto outs = rnn(std::vector<KerasTensor>{in});
  ASSERT_EQ(outs.size(), 5u);  // output, h1, h2, c2, h3
  EXPECT_EQ(outs[0].shape(), (Shape{kUnknownDim, 2}));
  EXPECT_EQ(outs[3].shape(), (Shape{kUnknownDim, 4}));
  EXPECT_EQ(rnn.weights().size(), 9u);
}

TEST(Bidirectional, BackwardLayerIsAFreshCopyWithKerasNames) {
  clear_session();
  auto in = Input({5, 3});
  layers::Bidirectional bi(layers::LSTM(4));
  auto out = bi(in);
  EXPECT_EQ(out.shape(), (Shape{kUnknownDim, 8}));
  auto w = bi.weights();
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[0].path(), "bidirectional/forward_lstm/lstm_cell/kernel");
  EXPECT_EQ(w[3].path(), "bidirectional/backward_lstm/lstm_cell/kernel");
  EXPECT_NE(w[0].id(), w[3].id());
  auto& impl = static_cast<layers::BidirectionalImpl&>(bi.impl());
  EXPECT_TRUE(impl.backward_layer->options.go_backwards);
  EXPECT_FALSE(impl.forward_layer->options.go_backwards);
}

TEST(LSTM, StatefulCarriesStatesAcrossBatchesUntilReset) {
  auto in = Input({4, 2}, {.batch_size = 2});
  layers::LSTM lstm(3, {.stateful = true});
  Model m(in, lstm(in));
  Tensor x = random_tensor({2, 4, 2}, 3);
  Tensor first = m.predict(x, {.verbose = 0});
  Tensor second = m.predict(x, {.verbose = 0});
  EXPECT_NE(first.item(0), second.item(0));
  lstm.reset_states();
  EXPECT_FLOAT_EQ(m.predict(x, {.verbose = 0}).item(0), first.item(0));
}

TEST(LSTM, DropoutActsInTrainingOnly) {
  auto in = Input({5, 3});
  layers::LSTM lstm(4, {.dropout = 0.5, .recurrent_dropout = 0.5, .seed = 3});
  Model m(in, lstm(in));
  m.compile({.optimizer = optimizers::SGD(), .loss = losses::MeanSquaredError()});
  Tensor x = random_tensor({2, 5, 3}, 4);
  Tensor a = m.predict(x, {.verbose = 0}), b = m.predict(x, {.verbose = 0});
  EXPECT_FLOAT_EQ(a.item(0), b.item(0));
  auto before = m.get_weights();
  m.fit(x, random_tensor({2, 4}, 5), {.batch_size = 2, .epochs = 2, .verbose = 0});
  EXPECT_NE(m.get_weights()[0].item(0), before[0].item(0));
}

TEST(TimeDistributed, AppliesDenseToEveryStepWithOneKernel) {
  clear_session();
  auto in = Input({4, 3});
  layers::Dense dense(2);
  layers::TimeDistributed td(dense);
  Model m(in, td(in));
  EXPECT_EQ(m.outputs()[0].shape(), (Shape{kUnknownDim, 4, 2}));
  EXPECT_EQ(td.weights()[0].path(), "time_distributed/dense/kernel");
  Tensor x = random_tensor({2, 4, 3}, 6);
  Tensor y = m.predict(x, {.verbose = 0});
  const float* k = dense.weights()[0].value().data<float>();
  float want = x.item(3 * 3) * k[0] + x.item(3 * 3 + 1) * k[2] + x.item(3 * 3 + 2) * k[4];  // step 3, unit 0
  EXPECT_NEAR(y.item(3 * 2), want, 1e-6f);
}

TEST(RepeatVector, RepeatsTheVectorAlongTime) {
  auto in = Input({3});
  Model m(in, layers::RepeatVector(4)(in));
  Tensor y = m.predict(Tensor::from_vector<float>({1, 3}, {1, 2, 3}), {.verbose = 0});
  EXPECT_EQ(y.shape(), (Shape{1, 4, 3}));
  EXPECT_FLOAT_EQ(y.item(3 * 3 + 2), 3.f);
}

// --- bad input --------------------------------------------------------------------------

TEST(LSTM, RejectsInputOfRankTwoNamingTheLayer) {
  clear_session();
  try {
    layers::LSTM(4)(Input({8}));
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("LSTM 'lstm'"), std::string::npos) << m;
    EXPECT_NE(m.find("rank 3"), std::string::npos) << m;
  }
}

TEST(LSTM, RejectsMismatchedInitialState) {
  clear_session();
  auto x = Input({5, 3});
  try {
    layers::LSTM(4)(std::vector<KerasTensor>{x, Input({4}), Input({7})});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("LSTM 'lstm'"), std::string::npos) << m;
    EXPECT_NE(m.find("initial_state 1"), std::string::npos) << m;
  }
  EXPECT_THROW(layers::LSTM(4)(std::vector<KerasTensor>{x, Input({4})}), ValueError);  // needs h and c
}

TEST(LSTM, StatefulWithoutFixedBatchSizeThrows) {
  clear_session();
  try {
    layers::LSTM(4, {.stateful = true})(Input({5, 3}));
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("LSTM 'lstm'"), std::string::npos) << m;
    EXPECT_NE(m.find("batch_size"), std::string::npos) << m;
  }
}

TEST(Embedding, OutOfRangeTokenIdThrowsNamingTheLayer) {
  clear_session();
  auto in = Input({3}, {.dtype = DType::int32});
  Model m(in, layers::LSTM(2)(layers::Embedding(10, 4)(in)));
  Tensor ids = Tensor::from_vector<std::int32_t>({1, 3}, {1, 12, 3});
  try {
    m.predict(ids, {.verbose = 0});
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Embedding 'embedding'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("token id 12"), std::string::npos) << msg;
  }
}

TEST(Bidirectional, RejectsLayersThatAreNotRecurrent) {
  EXPECT_THROW(layers::Bidirectional(layers::Dense(3)), ValueError);
  EXPECT_THROW(layers::Bidirectional(layers::LSTM(3), {.merge_mode = "max"}), ValueError);
}

TEST(LSTM, UnitForgetBiasStartsTheForgetGateBiasAtOne) {
  auto in = Input({5, 3});
  layers::LSTM with(2), without(2, {.unit_forget_bias = false});
  with(in);
  without(in);
  EXPECT_EQ(with.weights()[2].value().to_vector<float>(), (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(without.weights()[2].value().to_vector<float>(), std::vector<float>(8, 0.f));
}

TEST(LSTM, MaskedPaddingGivesTheSameOutputAsTheUnpaddedSequence) {
  auto in = Input({kUnknownDim}, {.dtype = DType::int32});
  layers::Embedding embedding(6, 3, {.mask_zero = true});
  layers::LSTM lstm(4);
  Model m(in, lstm(embedding(in)));
  Tensor padded = Tensor::from_vector<std::int32_t>({1, 5}, {3, 1, 4, 0, 0});
  Tensor plain = Tensor::from_vector<std::int32_t>({1, 3}, {3, 1, 4});
  Tensor a = m.predict(padded, {.verbose = 0}), b = m.predict(plain, {.verbose = 0});
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(a.item(i), b.item(i));
}

}  // namespace rnn_test
