// The FLOP counts the suite converts throughputs with (Workload::train_flops_per_sample,
// predict_flops_per_sample in bench/workload.cc), against each model's products counted
// by hand: 2 flops per multiply-add forward; to train, backward adds 1x forward for a
// product on the input data and 2x for every other.
#include <gtest/gtest.h>

#include "bench/workload.h"

namespace strata::bench {
namespace {

TEST(WorkloadFlops, DenseIsTheIssuesFourUnitsSquaredToTrain) {
  const Workload w = make_workload("dense4096", 2, false);
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2.0 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 4.0 * 4096 * 4096);
}

TEST(WorkloadFlops, MlpCountsItsThreeDenseLayers) {
  const Workload w = make_workload("mlp", 2, false);
  const double first = 784.0 * 256, second = 256.0 * 256, third = 256.0 * 10;
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2 * (first + second + third));
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 2 * (2 * first + 3 * second + 3 * third));
}

TEST(WorkloadFlops, CnnCountsValidConvolutionsAfterFlooredPooling) {
  const Workload w = make_workload("cnn", 2, false);
  const double conv1 = 26.0 * 26 * 32 * 3 * 3 * 1;   // 28x28x1 -> 26x26x32
  const double conv2 = 11.0 * 11 * 64 * 3 * 3 * 32;  // pooled 13x13x32 -> 11x11x64
  const double dense = 5.0 * 5 * 64 * 10;            // pooled 5x5x64, flattened
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2 * (conv1 + conv2 + dense));
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 2 * (2 * conv1 + 3 * conv2 + 3 * dense));
}

TEST(WorkloadFlops, LstmCountsFourGatesInputAndRecurrentProductsEveryStep) {
  const Workload w = make_workload("lstm", 2, false);  // LSTM(128) on 50 x 32
  const double input = 50.0 * 32 * 4 * 128, recurrent = 50.0 * 128 * 4 * 128, dense = 128.0 * 10;
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2 * (input + recurrent + dense));
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 2 * (2 * input + 3 * recurrent + 3 * dense));
}

TEST(WorkloadFlops, BidirectionalLstmRunsTwoDirections) {
  const Workload w = make_workload("bilstm", 2, false);  // 2 x LSTM(64) on 50 x 32
  const double input = 2 * 50.0 * 32 * 4 * 64, recurrent = 2 * 50.0 * 64 * 4 * 64, dense = 128.0 * 10;
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2 * (input + recurrent + dense));
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 2 * (2 * input + 3 * recurrent + 3 * dense));
}

TEST(WorkloadFlops, TransformerCountsProjectionsAndBothAttentionProducts) {
  const Workload w = make_workload("transformer", 2, false);  // 4 heads of 16 on 64 x 64
  const double qkv = 3 * 64.0 * 64 * 64;       // on the data
  const double scores = 4 * 64.0 * 64 * 16;    // Q·Kᵀ, per head
  const double weighted = 4 * 64.0 * 64 * 16;  // softmax · V, per head
  const double output = 64.0 * 64 * 64, dense = 64.0 * 10;
  const double rest = scores + weighted + output + dense;
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2 * (qkv + rest));
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 2 * (2 * qkv + 3 * rest));
}

}  // namespace
}  // namespace strata::bench
