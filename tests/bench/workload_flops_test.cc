// The FLOP counts the suite converts throughputs with (Workload::train_flops_per_sample,
// predict_flops_per_sample in bench/workload.cc), against each model's products counted
// by hand: 2 flops per multiply-add forward; to train, backward adds 1x forward for a
// product on the input data and 2x for every other.
#include <gtest/gtest.h>

#include "bench/workload.h"

namespace strata::bench::workload_flops_test {
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

TEST(WorkloadFlops, ResNet20CountsItsConvolutionsAsThePublished41MillionMultiplyAdds) {
  const Workload w = make_workload("resnet20", 2, false);  // 32x32x3
  const double stem = 32.0 * 32 * 16 * 3 * 3 * 3;          // on the data
  const double full = 2359296;  // every 3x3 conv whose input has its output's channels, at every stage
  const double stride2 = 16.0 * 16 * 32 * 3 * 3 * 16 + 8.0 * 8 * 64 * 3 * 3 * 32;  // the stages' first convs
  const double projections = 16.0 * 16 * 32 * 16 + 8.0 * 8 * 64 * 32;              // 1x1, stride 2
  const double rest = 16 * full + stride2 + projections + 64.0 * 10;
  EXPECT_DOUBLE_EQ(stem + rest, 40813184);  // ~41M, as the ResNet paper's CIFAR models count
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2 * (stem + rest));
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 2 * (2 * stem + 3 * rest));
}

TEST(WorkloadFlops, MobileNetSmallCountsExpansionsDepthwiseConvsAndProjections) {
  const Workload w = make_workload("mobilenet_small", 2, false);  // 32x32x3
  const double stem = 32.0 * 32 * 16 * 3 * 3 * 3;
  const double blocks[] = {
      32.0 * 32 * 16 * 9 + 32.0 * 32 * 16 * 16,                             // (1, 16, 1): no expansion
      32.0 * 32 * 96 * 16 + 16.0 * 16 * 96 * 9 + 16.0 * 16 * 24 * 96,       // (6, 24, 2)
      16.0 * 16 * 144 * 24 + 16.0 * 16 * 144 * 9 + 16.0 * 16 * 24 * 144,    // (6, 24, 1)
      16.0 * 16 * 144 * 24 + 8.0 * 8 * 144 * 9 + 8.0 * 8 * 32 * 144,        // (6, 32, 2)
      8.0 * 8 * 192 * 32 + 8.0 * 8 * 192 * 9 + 8.0 * 8 * 32 * 192,          // (6, 32, 1)
      8.0 * 8 * 192 * 32 + 4.0 * 4 * 192 * 9 + 4.0 * 4 * 64 * 192};         // (6, 64, 2)
  double rest = 4.0 * 4 * 128 * 64 + 128.0 * 10;  // the 1x1 head conv, the Dense
  for (double b : blocks) rest += b;
  EXPECT_DOUBLE_EQ(w.predict_flops_per_sample(), 2 * (stem + rest));
  EXPECT_DOUBLE_EQ(w.train_flops_per_sample(), 2 * (2 * stem + 3 * rest));
}

}  // namespace
}  // namespace strata::bench::workload_flops_test
