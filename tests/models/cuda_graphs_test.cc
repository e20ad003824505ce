// CUDA graphs (docs/gpu.md, "CUDA graphs"): a training step with settled shapes is
// captured once and replayed, and replaying changes no bit. Two copies of a model with
// the same weights train side by side on cuda:0, one with graphs on and one with them
// off (set_cuda_graphs before each of its calls: the switch is read at every run), and
// must give equal losses and weights, bit for bit — a replay runs the eager run's
// kernels with its arguments. Every test here skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/cuda_graph_policy.h"
#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace cuda_graphs_test {

namespace {

constexpr const char* kNoGpu = "no CUDA device on this machine (or Strata built without CUDA)";

Model mlp_with_dropout() {
  auto in = Input({4});
  auto h = layers::Dense(16, {.activation = "relu"})(in);
  h = layers::Dropout(0.25, {.seed = 7})(h);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

Model cnn_with_dropout() {
  auto in = Input({8, 8, 1});
  auto h = layers::Conv2D(4, {3, 3}, {.activation = "relu"})(in);
  h = layers::MaxPooling2D({2, 2})(h);
  h = layers::Dropout(0.2, {.seed = 5})(layers::Flatten()(h));
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

// Two models from `make` with the same weights, compiled alike for cuda:0.
std::pair<Model, Model> twin_gpu_models(Model (*make)(), const char* optimizer) {
  Model with_graphs = make(), without = make();
  without.set_weights(with_graphs.get_weights());
  for (Model* m : {&with_graphs, &without}) {
    m->compile({.optimizer = optimizers::get(optimizer), .loss = "sparse_categorical_crossentropy",
                .metrics = {"accuracy"}, .device = "cuda:0"});
  }
  return {with_graphs, without};
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_weights(const Model& a, const Model& b, const std::string& label) {
  const std::vector<Tensor> wa = a.get_weights(), wb = b.get_weights();
  ASSERT_EQ(wa.size(), wb.size());
  for (std::size_t i = 0; i < wa.size(); ++i) {
    ASSERT_EQ(wa[i].nbytes(), wb[i].nbytes());
    EXPECT_EQ(std::memcmp(wa[i].raw_data(), wb[i].raw_data(), wa[i].nbytes()), 0) << label << ", weight " << i;
  }
}

// 20 train_on_batch steps of each twin, graphs on for the first and off for the second:
// equal losses and accuracies at every step, then equal weights; returns what the first
// model's graphs did.
CudaGraphCounts train_twins(Model& with_graphs, Model& without, const Tensor& x, const Tensor& y,
                            const std::string& label) {
  const ScopedCudaGraphs restore;
  reset_cuda_graph_counts();
  for (int step = 0; step < 20; ++step) {
    set_cuda_graphs(true);
    const std::map<std::string, float> on = with_graphs.train_on_batch(x, y);
    set_cuda_graphs(false);
    const std::map<std::string, float> off = without.train_on_batch(x, y);
    EXPECT_TRUE(same_bits(on.at("loss"), off.at("loss")))
        << label << ", step " << step << ": " << on.at("loss") << " with graphs, " << off.at("loss") << " without";
    EXPECT_TRUE(same_bits(on.at("accuracy"), off.at("accuracy"))) << label << ", step " << step;
  }
  expect_same_weights(with_graphs, without, label);
  return cuda_graph_counts();
}

}  // namespace

// An MLP with Dropout: the dropout kernel reads the step on the device, so each replay
// draws its own step's mask (a stale mask would change the loss at once). The train
// step is captured once, on its third run, and replayed by the 18 runs from there (the
// capturing run launches its graph too).
TEST(CudaGraphs, AnMlpWithDropoutTrainsBitForBitAsWithoutGraphsReplayingAfterOneCapture) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [x, y] = test_data::blobs(32);
    auto [with_graphs, without] = twin_gpu_models(mlp_with_dropout, optimizer);
    const CudaGraphCounts counts = train_twins(with_graphs, without, x, y, optimizer);
    EXPECT_EQ(counts.captures, 1) << optimizer;
    EXPECT_EQ(counts.replays, 18) << optimizer;
    EXPECT_EQ(counts.refusals, 0) << optimizer;
    EXPECT_EQ(with_graphs.optimizer().iterations(), 20) << optimizer;
  }
}

// A CNN with Dropout: cuDNN's convolutions and their gradients inside the captured graph.
TEST(CudaGraphs, ACnnWithDropoutTrainsBitForBitAsWithoutGraphsReplayingAfterOneCapture) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  if (!built_with_cudnn()) GTEST_SKIP() << "Strata was built without cuDNN, on which conv2d's CUDA kernel is written";
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [features, labels] = test_data::blobs(32, 64);
    const Tensor images = features.reshaped({32, 8, 8, 1});
    auto [with_graphs, without] = twin_gpu_models(cnn_with_dropout, optimizer);
    const CudaGraphCounts counts = train_twins(with_graphs, without, images, labels, optimizer);
    EXPECT_EQ(counts.captures, 1) << optimizer << " (a refusal means cuDNN's calls could not be captured)";
    EXPECT_EQ(counts.replays, 18) << optimizer;
    EXPECT_EQ(counts.refusals, 0) << optimizer;
  }
}

// fit with a smaller last batch in each epoch: the full batches are captured and
// replayed, the last one runs eagerly (another shape), and the next epoch's full
// batches warm up and capture again — never replaying a graph of another shape. The
// epoch losses and the weights equal those of the same fit without graphs, bit for bit.
TEST(CudaGraphs, ASmallerLastBatchReplaysNothingStale) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const ScopedCudaGraphs restore;
  auto [x, y] = test_data::blobs(60);  // 7 batches of 8, then one of 4
  auto [with_graphs, without] = twin_gpu_models(mlp_with_dropout, "adam");
  const FitOptions options{.batch_size = 8, .epochs = 3, .verbose = 0, .shuffle = false};
  reset_cuda_graph_counts();
  set_cuda_graphs(true);
  const History on = with_graphs.fit(x, y, options);
  const CudaGraphCounts counts = cuda_graph_counts();
  set_cuda_graphs(false);
  const History off = without.fit(x, y, options);
  ASSERT_EQ(on.history.at("loss").size(), 3u);
  for (std::size_t epoch = 0; epoch < 3; ++epoch) {
    EXPECT_TRUE(same_bits(on.history.at("loss")[epoch], off.history.at("loss")[epoch]))
        << "epoch " << epoch << ": " << on.history.at("loss")[epoch] << " with graphs, "
        << off.history.at("loss")[epoch] << " without";
  }
  expect_same_weights(with_graphs, without, "fit");
  // Per epoch: batches 1-2 eager, 3 captured, 3-7 replayed (5), the batch of 4 eager.
  EXPECT_EQ(counts.captures, 3);
  EXPECT_EQ(counts.replays, 15);
  EXPECT_EQ(counts.refusals, 0);
}

// A variable assigned anew from the host between steps (set_weights) is read at its
// new value by the next step, graph or not.
TEST(CudaGraphs, WeightsSetBetweenReplaysAreReadByTheNextStep) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  const ScopedCudaGraphs restore;
  auto [x, y] = test_data::blobs(32);
  auto [with_graphs, without] = twin_gpu_models(mlp_with_dropout, "sgd");
  for (int step = 0; step < 5; ++step) {
    set_cuda_graphs(true);
    with_graphs.train_on_batch(x, y);
    set_cuda_graphs(false);
    without.train_on_batch(x, y);
  }
  Model fresh = mlp_with_dropout();
  with_graphs.set_weights(fresh.get_weights());
  without.set_weights(fresh.get_weights());
  for (int step = 0; step < 5; ++step) {
    set_cuda_graphs(true);
    const float on = with_graphs.train_on_batch(x, y).at("loss");
    set_cuda_graphs(false);
    const float off = without.train_on_batch(x, y).at("loss");
    EXPECT_TRUE(same_bits(on, off)) << "step " << step << " after set_weights: " << on << " with graphs, " << off;
  }
  expect_same_weights(with_graphs, without, "after set_weights");
}

namespace {

Model lstm_with_dropout() {
  auto in = Input({6, 4});
  auto h = layers::LSTM(8, {.dropout = 0.2, .recurrent_dropout = 0.25, .seed = 11})(in);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

// The recurrent layers cuDNN's RNN takes (core/cuda/cudnn_rnn.h): an LSTM returning its
// sequence into a Bidirectional GRU, no dropout.
Model lstm_into_bidirectional_gru() {
  auto in = Input({6, 4});
  auto h = layers::LSTM(8, {.return_sequences = true})(in);
  h = layers::Bidirectional(layers::GRU(5))(h);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

Model embedding_classifier() {
  auto in = Input({12}, {.dtype = DType::int32});
  auto h = layers::GlobalAveragePooling1D()(layers::Embedding(50, 8)(in));
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

}  // namespace

// cuDNN's RNN calls (forward, backward data and weights, on a reserve space the run
// context keeps per node) inside the captured graph: an LSTM and a Bidirectional GRU
// without dropout train as without graphs, bit for bit, after one capture.
TEST(CudaGraphs, CudnnRecurrentLayersTrainBitForBitAsWithoutGraphsReplayingAfterOneCapture) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  if (!built_with_cudnn()) GTEST_SKIP() << "Strata was built without cuDNN, whose RNN these layers run on";
  auto [features, labels] = test_data::blobs(16, 24);
  const Tensor sequences = features.reshaped({16, 6, 4});
  auto [with_graphs, without] = twin_gpu_models(lstm_into_bidirectional_gru, "adam");
  const CudaGraphCounts counts = train_twins(with_graphs, without, sequences, labels, "lstm into bigru");
  EXPECT_EQ(counts.captures, 1) << "a refusal means cuDNN's RNN calls could not be captured";
  EXPECT_EQ(counts.replays, 18);
  EXPECT_EQ(counts.refusals, 0);
}

// What a graph cannot replay faithfully runs eagerly, for good, and says so (a refusal):
// an LSTM with dropout, whose kernels take the masks' step on the host, and an embedding,
// whose bad-id check must stop the step before its updates. Their losses are those
// without graphs, bit for bit.
TEST(CudaGraphs, ModelsAGraphCannotReplayRunEagerly) {
  if (!has_cuda_device()) GTEST_SKIP() << kNoGpu;
  {
    auto [features, labels] = test_data::blobs(16, 24);
    const Tensor sequences = features.reshaped({16, 6, 4});
    auto [with_graphs, without] = twin_gpu_models(lstm_with_dropout, "adam");
    const CudaGraphCounts counts = train_twins(with_graphs, without, sequences, labels, "lstm with dropout");
    EXPECT_EQ(counts.captures, 0);
    EXPECT_EQ(counts.replays, 0);
    EXPECT_EQ(counts.refusals, 1);
  }
  {
    std::vector<std::int32_t> ids(16 * 12);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>((i * 7 + i / 5) % 50);
    auto [unused, labels] = test_data::blobs(16);
    auto [with_graphs, without] = twin_gpu_models(embedding_classifier, "sgd");
    const CudaGraphCounts counts =
        train_twins(with_graphs, without, Tensor::from_vector(Shape{16, 12}, ids), labels, "embedding");
    EXPECT_EQ(counts.captures, 0);
    EXPECT_EQ(counts.refusals, 1);
  }
}

}  // namespace cuda_graphs_test
