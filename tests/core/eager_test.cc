// Eager ops (core/eager.h): ops:: on concrete Tensors through the registered kernels,
// as keras.ops on arrays. Values written out here, as NumPy gives them.
#include "core/eager.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core_test_util.h"
#include "op_cases.h"

namespace strata::eager_test {
namespace {

using testing::tensor;
using testing::tensors_near;

TEST(Eager, ArithmeticBroadcastsAsNumPy) {
  const Tensor x = tensor<float>({2, 3}, {0, 51, 102, 153, 204, 255});
  EXPECT_TRUE(tensors_near(x / 255.f, tensor<float>({2, 3}, {0, 0.2f, 0.4f, 0.6f, 0.8f, 1})));
  const Tensor row = tensor<float>({3}, {1, 2, 3});
  EXPECT_TRUE(tensors_near(x - row, tensor<float>({2, 3}, {-1, 49, 99, 152, 202, 252})));
  EXPECT_TRUE(tensors_near(2.f * row + 1.f, tensor<float>({3}, {3, 5, 7})));
  EXPECT_TRUE(tensors_near(1.f / row, tensor<float>({3}, {1, 0.5f, 1.f / 3})));
  EXPECT_TRUE(tensors_near(-row, tensor<float>({3}, {-1, -2, -3})));
  EXPECT_TRUE(tensors_near(ops::maximum(row, tensor<float>({1}, {2})), tensor<float>({3}, {2, 2, 3})));
  EXPECT_TRUE(tensors_near(ops::clip(row, 1.5f, 2.5f), tensor<float>({3}, {1.5f, 2, 2.5f})));
  EXPECT_THROW(x + tensor<float>({2}, {1, 2}), ShapeError);
}

TEST(Eager, ComparisonsAreZeroOrOne) {
  const Tensor a = tensor<float>({4}, {1, 2, 3, 4});
  EXPECT_TRUE(tensors_near(ops::greater(a, 2.f), tensor<float>({4}, {0, 0, 1, 1})));
  EXPECT_TRUE(tensors_near(ops::less_equal(a, tensor<float>({4}, {1, 1, 4, 4})), tensor<float>({4}, {1, 0, 1, 1})));
  EXPECT_TRUE(tensors_near(ops::where(ops::equal(a, 3.f), a, ops::neg(a)), tensor<float>({4}, {-1, -2, 3, -4})));
  EXPECT_TRUE(tensors_near(ops::not_equal(a, 2.f), tensor<float>({4}, {1, 0, 1, 1})));
  EXPECT_TRUE(tensors_near(ops::greater_equal(a, 2.f), tensor<float>({4}, {0, 1, 1, 1})));
  EXPECT_TRUE(tensors_near(ops::less_equal(a, 2.f), tensor<float>({4}, {1, 1, 0, 0})));
}

TEST(Eager, MaximumAndMinimumWithAScalarClamp) {
  const Tensor x = tensor<float>({4}, {-2, -0.5f, 0.5f, 3});
  EXPECT_TRUE(tensors_near(ops::maximum(x, 0.f), tensor<float>({4}, {0, 0, 0.5f, 3})));
  EXPECT_TRUE(tensors_near(ops::minimum(x, 1.f), tensor<float>({4}, {-2, -0.5f, 0.5f, 1})));
}

TEST(Eager, ReductionsMeanAndPopulationStd) {
  const Tensor x = tensor<float>({2, 2}, {1, 2, 3, 6});
  EXPECT_TRUE(tensors_near(ops::mean(x), tensor<float>({}, {3})));
  EXPECT_TRUE(tensors_near(ops::mean(x, {0}), tensor<float>({2}, {2, 4})));
  EXPECT_TRUE(tensors_near(ops::std(x, {0}), tensor<float>({2}, {1, 2})));
  EXPECT_TRUE(tensors_near(ops::std(x, {1}, true), tensor<float>({2, 1}, {0.5f, 1.5f})));
  EXPECT_TRUE(tensors_near(ops::sum(x, {1}), tensor<float>({2}, {3, 9})));
  EXPECT_TRUE(tensors_near(ops::max(x, {0}), tensor<float>({2}, {3, 6})));
  EXPECT_TRUE(tensors_near(ops::argmax(tensor<float>({2, 3}, {0, 5, 1, 7, 2, 3})),
                           tensor<std::int64_t>({2}, {1, 0})));
  // Standardizing as the tutorials do: every column then has mean 0 and std 1.
  const Tensor z = (x - ops::mean(x, {0}, true)) / ops::std(x, {0}, true);
  EXPECT_TRUE(tensors_near(z, tensor<float>({2, 2}, {-1, -1, 1, 1})));
}

TEST(Eager, ShapesSlicingAndJoiningKeepEveryDtype) {
  const Tensor labels = tensor<std::int64_t>({5}, {4, 0, 2, 9, 1});
  EXPECT_TRUE(tensors_near(ops::slice(labels, {1}, {3}), tensor<std::int64_t>({3}, {0, 2, 9})));
  EXPECT_TRUE(tensors_near(ops::slice(labels, {3}, {-1}), tensor<std::int64_t>({2}, {9, 1})));
  EXPECT_TRUE(tensors_near(ops::concatenate({labels, tensor<std::int64_t>({1}, {7})}),
                           tensor<std::int64_t>({6}, {4, 0, 2, 9, 1, 7})));
  const Tensor x = tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(tensors_near(ops::slice(x, {0, 1}, {2, 2}), tensor<float>({2, 2}, {2, 3, 5, 6})));
  EXPECT_TRUE(tensors_near(ops::transpose(x, {1, 0}), tensor<float>({3, 2}, {1, 4, 2, 5, 3, 6})));
  EXPECT_EQ(ops::reshape(x, {-1}).shape(), (Shape{6}));
  EXPECT_EQ(ops::expand_dims(labels, -1).shape(), (Shape{5, 1}));
  EXPECT_TRUE(tensors_near(ops::cast(labels, DType::float32), tensor<float>({5}, {4, 0, 2, 9, 1})));
  EXPECT_THROW(ops::slice(x, {1, 0}, {2, 3}), ShapeError);
  EXPECT_THROW(ops::slice(x, {0}, {1}), ValueError);
  EXPECT_THROW(ops::concatenate({labels, x}), ValueError);
}

// keras.ops.one_hot: float rows; an index out of range is a row of zeros, as in Keras.
void one_hot_values() {
  EXPECT_TRUE(tensors_near(ops::one_hot(tensor<std::int64_t>({3}, {2, 0, 5}), 3),
                           tensor<float>({3, 3}, {0, 0, 1, 1, 0, 0, 0, 0, 0})));
  EXPECT_TRUE(tensors_near(ops::one_hot(tensor<std::int32_t>({2}, {1, 0}), 2), tensor<float>({2, 2}, {0, 1, 1, 0})));
  EXPECT_TRUE(tensors_near(ops::one_hot(tensor<float>({2, 1}, {1, -1}), 2), tensor<float>({2, 1, 2}, {0, 1, 0, 0})));
  EXPECT_THROW(ops::one_hot(tensor<std::int64_t>({1}, {0}), 0), ValueError);
}

TEST(Eager, OneHotOfIntegerAndWholeFloatLabels) { one_hot_values(); }

// The op table's entry for one_hot (no gradient: labels are not differentiated).
const testing::RegisterOpCases one_hot_case({{"one_hot", testing::OpCase{{}, one_hot_values}}});

}  // namespace
}  // namespace strata::eager_test
