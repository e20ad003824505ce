// Op cases for the integer and bit-level ops (core/ops/integer_ops.h): each op's values by
// hand on int32 and int64 (bitcast's bytes between float32, int32 and int64), TensorFlow's rules at the edges (shifts negative or past the bits, a left shift
// wrapping, an arithmetic right shift, gcd and lcm of zeros, negatives and INT_MIN, lcm's
// product wrapping), broadcasting and every CPU path of the broadcasting walk; and their
// definition-time refusals (float inputs, two dtypes) and missing gradients.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops/integer_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::integer_op_cases {
namespace {

constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMin64 = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();

// The output of `op` on a and b, element by element as int64, after checking its dtype.
template <typename T>
std::vector<std::int64_t> run(const Builder2& op, Shape sa, std::vector<T> a, Shape sb, std::vector<T> b,
                              Shape expected_shape) {
  const Tensor y = evaluate(binary(op), {Tensor::from_vector<T>(std::move(sa), a), Tensor::from_vector<T>(std::move(sb), b)});
  EXPECT_EQ(y.dtype(), dtype_of<T>());
  EXPECT_EQ(y.shape(), expected_shape);
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < y.size(); ++i) out.push_back(static_cast<std::int64_t>(y.data<T>()[i]));
  return out;
}

template <typename T>
std::vector<std::int64_t> same_shape(const Builder2& op, std::vector<T> a, std::vector<T> b) {
  const Shape s{static_cast<std::int64_t>(a.size())};
  return run<T>(op, s, std::move(a), s, std::move(b), s);
}

using V = std::vector<std::int64_t>;

const RegisterOpCases integer_cases({
    {"bitwise_and",
     OpCase{.forward_check = [] {
       EXPECT_EQ(same_shape<std::int32_t>(ops::bitwise_and, {12, -1, kMin32, -6}, {10, kMax32, -1, 7}),
                 (V{8, kMax32, kMin32, 2}));
       EXPECT_EQ(same_shape<std::int64_t>(ops::bitwise_and, {kMin64, -1, 1LL << 40}, {-1, kMax64, (1LL << 40) | 5}),
                 (V{kMin64, kMax64, 1LL << 40}));
       // a scalar on either side, a bias row, a column, and both broadcast (the strided walk)
       EXPECT_EQ(run<std::int32_t>(ops::bitwise_and, {2, 3}, {1, 2, 3, 4, 5, 6}, {}, {6}, {2, 3}), (V{0, 2, 2, 4, 4, 6}));
       EXPECT_EQ(run<std::int32_t>(ops::bitwise_and, {}, {3}, {4}, {1, 2, 3, 4}, {4}), (V{1, 2, 3, 0}));
       EXPECT_EQ(run<std::int32_t>(ops::bitwise_and, {2, 3}, {7, 7, 7, 5, 5, 5}, {3}, {1, 2, 4}, {2, 3}),
                 (V{1, 2, 4, 1, 0, 4}));
       EXPECT_EQ(run<std::int32_t>(ops::bitwise_and, {2, 1}, {3, 12}, {2, 3}, {1, 2, 4, 4, 8, 16}, {2, 3}),
                 (V{1, 2, 0, 4, 8, 0}));
       EXPECT_EQ(run<std::int64_t>(ops::bitwise_and, {2, 1}, {3, 12}, {1, 3}, {1, 4, 8}, {2, 3}), (V{1, 0, 0, 0, 4, 8}));
     }}},
    {"bitwise_or",
     OpCase{.forward_check = [] {
       EXPECT_EQ(same_shape<std::int32_t>(ops::bitwise_or, {12, 0, kMin32, -6}, {10, kMax32, kMax32, 1}),
                 (V{14, kMax32, -1, -5}));
       EXPECT_EQ(same_shape<std::int64_t>(ops::bitwise_or, {kMin64, 1LL << 40}, {kMax64, 1}), (V{-1, (1LL << 40) | 1}));
     }}},
    {"bitwise_xor",
     OpCase{.forward_check = [] {
       EXPECT_EQ(same_shape<std::int32_t>(ops::bitwise_xor, {12, -1, kMin32}, {10, kMax32, -1}), (V{6, kMin32, kMax32}));
       EXPECT_EQ(same_shape<std::int64_t>(ops::bitwise_xor, {kMin64, 5}, {-1, 3}), (V{kMax64, 6}));
     }}},
    {"bitwise_not",
     OpCase{.forward_check = [] {
       const Tensor y = evaluate(unary(ops::bitwise_not), {Tensor::from_vector<std::int32_t>({4}, {0, -1, kMin32, 5})});
       ASSERT_EQ(y.dtype(), DType::int32);
       EXPECT_EQ((std::vector<std::int32_t>(y.data<std::int32_t>(), y.data<std::int32_t>() + 4)),
                 (std::vector<std::int32_t>{-1, 0, kMax32, -6}));
       const Tensor z = evaluate(unary(ops::bitwise_not), {Tensor::from_vector<std::int64_t>({2}, {kMax64, 1LL << 40})});
       ASSERT_EQ(z.dtype(), DType::int64);
       EXPECT_EQ(z.data<std::int64_t>()[0], kMin64);
       EXPECT_EQ(z.data<std::int64_t>()[1], -(1LL << 40) - 1);
     }}},
    {"left_shift",
     OpCase{.forward_check = [] {
       // by 0, 1, bits - 1, bits (clamped to bits - 1), far past, negative (clamped to 0): wrapping
       EXPECT_EQ(same_shape<std::int32_t>(ops::left_shift, {1, 3, 1, 1, -8, 7, kMax32}, {0, 1, 31, 32, 100, -1, 1}),
                 (V{1, 6, kMin32, kMin32, 0, 7, -2}));
       EXPECT_EQ(same_shape<std::int64_t>(ops::left_shift, {1, 1, 3, 5}, {40, 64, 63, -7}),
                 (V{1LL << 40, kMin64, kMin64, 5}));
     }}},
    {"right_shift",
     OpCase{.forward_check = [] {
       // arithmetic: negatives keep their sign, to -1 past the bits
       EXPECT_EQ(same_shape<std::int32_t>(ops::right_shift, {16, -16, kMin32, -1, kMax32, 5}, {2, 2, 31, 40, 32, -3}),
                 (V{4, -4, -1, -1, 0, 5}));
       EXPECT_EQ(same_shape<std::int64_t>(ops::right_shift, {1LL << 40, kMin64, kMax64}, {38, 63, 64}), (V{4, -1, 0}));
     }}},
    {"gcd",
     OpCase{.forward_check = [] {
       // non-negative, 0 only for (0, 0), |INT_MIN| wrapping as Keras's (gcd(1, INT_MIN) is -1)
       EXPECT_EQ(same_shape<std::int32_t>(ops::gcd, {12, -12, 0, 0, 7, kMin32, 1, kMin32, kMax32},
                                          {18, 18, 5, 0, -21, kMin32, kMin32, 6, 3}),
                 (V{6, 6, 5, 0, 7, kMin32, -1, 2, 1}));
       EXPECT_EQ(same_shape<std::int64_t>(ops::gcd, {1LL << 40, kMin64, -35}, {1LL << 20, kMin64, 0}),
                 (V{1LL << 20, kMin64, 35}));
       EXPECT_EQ(run<std::int32_t>(ops::gcd, {2, 1}, {12, 18}, {3}, {4, 6, 9}, {2, 3}), (V{4, 6, 3, 2, 6, 9}));
     }}},
    {"lcm",
     OpCase{.forward_check = [] {
       // 0 with a 0, non-negative, the product wrapping (100000 · 99999 mod 2^32)
       EXPECT_EQ(same_shape<std::int32_t>(ops::lcm, {12, -12, 0, 0, 7, 100000, kMax32, 1, kMin32},
                                          {18, 18, 5, 0, -21, 99999, 3, kMin32, 6}),
                 (V{36, 36, 0, 0, 21, 1409965408, 2147483645, kMin32, kMin32}));
       EXPECT_EQ(same_shape<std::int64_t>(ops::lcm, {100000, kMax64, 1LL << 40}, {99999, 3, 6}),
                 (V{9999900000LL, kMax64 - 2, 3LL << 40}));
     }}},
    {"bitcast",
     OpCase{.forward_check = [] {
       const GraphBuilder as_int32 = [](Graph&, const std::vector<Output>& x) { return ops::bitcast(x[0], DType::int32); };
       const GraphBuilder as_int64 = [](Graph&, const std::vector<Output>& x) { return ops::bitcast(x[0], DType::int64); };
       const GraphBuilder as_float = [](Graph&, const std::vector<Output>& x) { return ops::bitcast(x[0], DType::float32); };
       // float32's bits (1.0 is 0x3F800000, -2.5 is 0xC0200000), and back
       const Tensor bits = evaluate(as_int32, {Tensor::from_vector<float>({2}, {1.0f, -2.5f})});
       ASSERT_EQ(bits.dtype(), DType::int32);
       EXPECT_EQ(bits.data<std::int32_t>()[0], 0x3F800000);
       EXPECT_EQ(bits.data<std::int32_t>()[1], static_cast<std::int32_t>(0xC0200000u));
       const Tensor back = evaluate(as_float, {bits});
       EXPECT_EQ(back.data<float>()[1], -2.5f);
       // int64 to int32: the last axis doubled, the low word first; and back, halved
       const Tensor halves = evaluate(as_int32, {Tensor::from_vector<std::int64_t>({1, 2}, {(7LL << 32) | 5, -1})});
       EXPECT_EQ(halves.shape(), (Shape{1, 4}));
       EXPECT_EQ((std::vector<std::int32_t>(halves.data<std::int32_t>(), halves.data<std::int32_t>() + 4)),
                 (std::vector<std::int32_t>{5, 7, -1, -1}));
       const Tensor whole = evaluate(as_int64, {halves});
       EXPECT_EQ(whole.shape(), (Shape{1, 2}));
       EXPECT_EQ(whole.data<std::int64_t>()[0], (7LL << 32) | 5);
       EXPECT_EQ(whole.data<std::int64_t>()[1], -1);
       Graph g;
       EXPECT_THROW(ops::bitcast(g.placeholder({Shape{2, 3}, DType::int32}), DType::int64), ShapeError);  // odd
       EXPECT_THROW(ops::bitcast(g.placeholder({Shape{}, DType::int64}), DType::int32), ShapeError);  // a scalar
     },
            .no_gradient_check = "its gradient is none from an integer input and refused by name through a float "
                                 "one, as TensorFlow has none for Bitcast (IntegerOps.BitcastHasNoGradient)"}},
});

TEST(IntegerOps, FloatInputsAndTwoDtypesAreRefusedWhenDefined) {
  Graph g;
  const Output f = g.placeholder({Shape{3}, DType::float32});
  const Output i32 = g.placeholder({Shape{3}, DType::int32});
  const Output i64 = g.placeholder({Shape{3}, DType::int64});
  try {
    ops::gcd(i32, f);
    FAIL() << "gcd took a float32 input";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("gcd: input 1 has dtype float32, expected int32 or int64"), std::string::npos)
        << e.what();
  }
  try {
    ops::left_shift(i32, i64);
    FAIL() << "left_shift took int32 and int64";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("left_shift: inputs of dtypes int32 and int64 differ"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ops::bitwise_not(f), ValueError);
  try {
    ops::bitwise_and(g.placeholder({Shape{3}, DType::int32}), g.placeholder({Shape{4}, DType::int32}));
    FAIL() << "(3) and (4) broadcast";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("bitwise_and"), std::string::npos) << e.what();
  }
}

// No gradient flows through an integer op, as in TensorFlow (where a float reaches one
// through a cast, the cast has none either): differentiating around one gives only the
// float path's gradient.
// bitcast has no gradient either: none from an integer input, refused by name through a
// float one (TensorFlow registers none for Bitcast).
TEST(IntegerOps, BitcastHasNoGradient) {
  Graph g;
  const Output x = g.placeholder({Shape{3}, DType::float32});
  const Output from_ints = ops::bitcast(ops::bitcast(x, DType::int32), DType::float32);
  EXPECT_FALSE(gradients(ops::reduce_sum(from_ints), {x})[0].valid());
  try {
    gradients(ops::reduce_sum(ops::bitcast(x, DType::float32)), {x});
    FAIL() << "bitcast's gradient was built";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("bitcast (keras.ops.view)"), std::string::npos) << e.what();
  }
}

TEST(IntegerOps, HaveNoGradient) {
  for (const char* name : {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "left_shift", "right_shift",
                           "gcd", "lcm"}) {
    EXPECT_FALSE(OpRegistry::global().get(name).differentiable) << name;
  }
  Graph g;
  const Output x = g.placeholder({Shape{3}, DType::float32});
  const Output masked = ops::cast(ops::bitwise_and(ops::cast(x, DType::int32), ops::cast(x, DType::int32)),
                                  DType::float32);
  const Output y = ops::reduce_sum(ops::add(masked, ops::mul(x, 2.0f)));
  EXPECT_FALSE(gradients(ops::reduce_sum(masked), {x})[0].valid());
  const Output dx = gradients(y, {x})[0];
  ASSERT_TRUE(dx.valid());
  const Tensor grad = Program(g, {x}, {dx}).run({Tensor::from_vector<float>({3}, {1.5f, -2.f, 7.f})})[0];
  EXPECT_TRUE(tensors_near(grad, Tensor::from_vector<float>({3}, {2.f, 2.f, 2.f}), 0.f));
}

}  // namespace
}  // namespace strata::testing::integer_op_cases
