// dense_int8 (core/ops.h): Keras's int8 Dense product as one op, on the int8 GEMM of each
// CPU path (core/cpu/int8_gemm.h). Against Keras's arithmetic written out in graph ops
// (the rows quantized, multiplied as floats, scaled back: bit for bit while the float sums
// are exact, up to 1040 inputs) and against sums in int64 beyond, where only int32 is
// exact; rows of NaN or infinities give NaN as Keras's do; the kernel is packed again
// when it changes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/ops.h"
#include "core/program.h"
#include "core/rng.h"
#include "on_every_cpu_path.h"
#include "op_cases.h"

namespace strata {
namespace {

class DenseInt8 : public testing::OnEveryCpuPath {};

std::vector<float> dense_int8_values(std::int64_t n, std::uint64_t seed, float scale) {
  const Philox rng(seed, 0);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = scale * (2.f * rng.uniform(i) - 1.f);
  return v;
}

// A kernel of int8 values as float32 integers, every value in [-127, 127] used.
std::vector<float> dense_int8_kernel_values(std::int64_t n, std::uint64_t seed) {
  std::vector<float> v = dense_int8_values(n, seed, 127.f);
  for (float& e : v) e = std::nearbyint(e);
  if (!v.empty()) v[0] = -127.f;
  if (v.size() > 1) v[1] = 127.f;
  return v;
}

struct DenseInt8Case {
  std::int64_t rows, in, units;
};

// Keras's arithmetic in graph ops, as the int8 Dense layer computed it before the op.
Output keras_int8_dense(Output x, Output k, Output k_scale) {
  Output scale = ops::div(127.f, ops::add(ops::reduce_max(ops::abs(x), {-1}, true), 1e-7f));
  Output values = ops::clip(ops::round(ops::mul(x, scale)), -127.f, 127.f);
  return ops::div(ops::dense(values, k), ops::mul(k_scale, scale));
}

TEST_P(DenseInt8, IsKerasArithmeticBitForBitWhileFloatSumsAreExact) {
  for (const DenseInt8Case c : {DenseInt8Case{1, 8, 3}, DenseInt8Case{5, 64, 10}, DenseInt8Case{33, 257, 70},
                                DenseInt8Case{64, 1040, 33}, DenseInt8Case{2, 100, 1}}) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.in) + "x" + std::to_string(c.units));
    const Tensor x = Tensor::from_vector<float>({c.rows, c.in}, dense_int8_values(c.rows * c.in, 1, 3.f));
    const Tensor k = Tensor::from_vector<float>({c.in, c.units}, dense_int8_kernel_values(c.in * c.units, 2));
    const Tensor s = Tensor::from_vector<float>({c.units}, dense_int8_values(c.units, 3, 0.5f));
    Graph graph;
    const Output xs = graph.placeholder({x.shape(), x.dtype()}, "x");
    const Output ks = graph.placeholder({k.shape(), k.dtype()}, "k");
    const Output ss = graph.placeholder({s.shape(), s.dtype()}, "s");
    Program program(graph, {xs, ks, ss}, {ops::dense_int8(xs, ks, ss), keras_int8_dense(xs, ks, ss)});
    for (int run = 0; run < 2; ++run) {  // the second reads the kernel as packed by the first
      const std::vector<Tensor> out = program.run({x, k, s});
      ASSERT_EQ(out[0].shape(), (Shape{c.rows, c.units}));
      const std::vector<float> got = out[0].to_vector<float>(), want = out[1].to_vector<float>();
      for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "output " << i << ", run " << run;
    }
  }
}

// The bias and relu in the same pass give what the add and relu ops give after it (relu
// of NaN 0, as the op's).
TEST_P(DenseInt8, AddsTheBiasAndAppliesReluAsTheirOpsDo) {
  const std::int64_t rows = 13, in = 40, units = 45;  // whole and partial panels and tiles of every path
  std::vector<float> xv = dense_int8_values(rows * in, 11, 2.f);
  xv[static_cast<std::size_t>(4 * in)] = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::from_vector<float>({rows, in}, xv);
  const Tensor k = Tensor::from_vector<float>({in, units}, dense_int8_kernel_values(in * units, 12));
  const Tensor s = Tensor::from_vector<float>({units}, dense_int8_values(units, 13, 0.5f));
  const Tensor b = Tensor::from_vector<float>({units}, dense_int8_values(units, 14, 3.f));
  Graph graph;
  const Output xs = graph.placeholder({x.shape(), x.dtype()}, "x");
  const Output ks = graph.placeholder({k.shape(), k.dtype()}, "k");
  const Output ss = graph.placeholder({s.shape(), s.dtype()}, "s");
  const Output bs = graph.placeholder({b.shape(), b.dtype()}, "b");
  const Output plain = ops::dense_int8(xs, ks, ss);
  Program program(graph, {xs, ks, ss, bs},
                  {ops::dense_int8(xs, ks, ss, bs), ops::add(plain, bs), ops::dense_int8(xs, ks, ss, bs, "relu"),
                   ops::relu(ops::add(plain, bs))});
  const std::vector<Tensor> out = program.run({x, k, s, b});
  for (int pair = 0; pair < 2; ++pair) {
    const std::vector<float> got = out[2 * pair].to_vector<float>(), want = out[2 * pair + 1].to_vector<float>();
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << (pair ? "relu " : "bias ") << i;
      } else {
        EXPECT_EQ(got[i], want[i]) << (pair ? "relu " : "bias ") << i;
      }
    }
  }
}

// 4,000 inputs whose sums pass 2^25: float32 sums round there (the test shows it of a
// float sum in the same order), the int32 sums do not.
TEST_P(DenseInt8, SumsExactlyWhereFloatsWouldRound) {
  const std::int64_t rows = 3, in = 4000, units = 5;
  const std::vector<float> xv(static_cast<std::size_t>(rows * in), 1.f);  // each quantizes to 127
  std::vector<float> kv(static_cast<std::size_t>(in * units));
  for (std::int64_t i = 0; i < in; ++i) {
    for (std::int64_t j = 0; j < units; ++j) {
      kv[static_cast<std::size_t>(i * units + j)] = (i + j) % 7 == 0 ? -125.f : 127.f;
    }
  }
  const Tensor x = Tensor::from_vector<float>({rows, in}, xv);
  const Tensor k = Tensor::from_vector<float>({in, units}, kv);
  const Tensor s = Tensor::from_vector<float>({units}, std::vector<float>(units, 1.f));
  Graph graph;
  const Output xs = graph.placeholder({x.shape(), x.dtype()}, "x");
  const Output ks = graph.placeholder({k.shape(), k.dtype()}, "k");
  const Output ss = graph.placeholder({s.shape(), s.dtype()}, "s");
  Program program(graph, {xs, ks, ss}, {ops::dense_int8(xs, ks, ss)});
  const std::vector<float> got = program.run({x, k, s})[0].to_vector<float>();
  const float row_scale = 127.f / (1.f + 1e-7f);
  int float_sums_differ = 0;
  for (std::int64_t j = 0; j < units; ++j) {
    std::int64_t sum = 0;
    float float_sum = 0.f;
    for (std::int64_t i = 0; i < in; ++i) {
      const float term = 127.f * kv[static_cast<std::size_t>(i * units + j)];
      sum += static_cast<std::int64_t>(term);
      float_sum += term;
    }
    ASSERT_GT(sum, std::int64_t{1} << 25);
    const float want = static_cast<float>(sum) / (1.f * row_scale);
    float_sums_differ += float_sum / (1.f * row_scale) != want;
    for (std::int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(got[static_cast<std::size_t>(r * units + j)], want) << r << ", " << j;
    }
  }
  EXPECT_GT(float_sums_differ, 0) << "no column where float32 sums round: the test would not tell them apart";
}

TEST_P(DenseInt8, RowsOfNaNOrInfinityGiveNaNAndLeaveTheOthers) {
  const std::int64_t rows = 4, in = 16, units = 6;
  std::vector<float> xv = dense_int8_values(rows * in, 4, 2.f);
  xv[static_cast<std::size_t>(1 * in + 3)] = std::numeric_limits<float>::quiet_NaN();
  xv[static_cast<std::size_t>(2 * in + 5)] = std::numeric_limits<float>::infinity();
  const Tensor x = Tensor::from_vector<float>({rows, in}, xv);
  const Tensor k = Tensor::from_vector<float>({in, units}, dense_int8_kernel_values(in * units, 5));
  const Tensor s = Tensor::from_vector<float>({units}, dense_int8_values(units, 6, 0.5f));
  Graph graph;
  const Output xs = graph.placeholder({x.shape(), x.dtype()}, "x");
  const Output ks = graph.placeholder({k.shape(), k.dtype()}, "k");
  const Output ss = graph.placeholder({s.shape(), s.dtype()}, "s");
  Program program(graph, {xs, ks, ss}, {ops::dense_int8(xs, ks, ss), keras_int8_dense(xs, ks, ss)});
  const std::vector<Tensor> out = program.run({x, k, s});
  const std::vector<float> got = out[0].to_vector<float>(), want = out[1].to_vector<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < units; ++j) {
      const float g = got[static_cast<std::size_t>(r * units + j)];
      if (r == 1 || r == 2) {
        EXPECT_TRUE(std::isnan(g)) << r << ", " << j;
      } else {
        EXPECT_EQ(g, want[static_cast<std::size_t>(r * units + j)]) << r << ", " << j;
      }
    }
  }
}

// No inputs: every sum is 0, so the outputs are the bias (the rows' scales 127 / 1e-7).
TEST_P(DenseInt8, NoInputsGiveTheBias) {
  Graph graph;
  const Output xs = graph.placeholder({Shape{3, 0}, DType::float32}, "x");
  const Output ks = graph.placeholder({Shape{0, 2}, DType::float32}, "k");
  const Output ss = graph.placeholder({Shape{2}, DType::float32}, "s");
  const Output bs = graph.placeholder({Shape{2}, DType::float32}, "b");
  Program program(graph, {xs, ks, ss, bs}, {ops::dense_int8(xs, ks, ss, bs)});
  const Tensor y = program.run({Tensor(Shape{3, 0}), Tensor(Shape{0, 2}), Tensor::from_vector<float>({2}, {0.5f, 2.f}),
                                Tensor::from_vector<float>({2}, {1.5f, -3.f})})[0];
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1.5f, -3.f, 1.5f, -3.f, 1.5f, -3.f}));
}

TEST_P(DenseInt8, AChangedKernelIsPackedAgain) {
  const Tensor x = Tensor::from_vector<float>({4, 32}, dense_int8_values(4 * 32, 7, 1.f));
  const Tensor s = Tensor::from_vector<float>({8}, std::vector<float>(8, 0.25f));
  Graph graph;
  const Output xs = graph.placeholder({x.shape(), x.dtype()}, "x");
  const Output ks = graph.placeholder({Shape{32, 8}, DType::float32}, "k");
  const Output ss = graph.placeholder({s.shape(), s.dtype()}, "s");
  Program program(graph, {xs, ks, ss}, {ops::dense_int8(xs, ks, ss), keras_int8_dense(xs, ks, ss)});
  for (std::uint64_t seed : {8, 9, 8}) {
    const Tensor k = Tensor::from_vector<float>({32, 8}, dense_int8_kernel_values(32 * 8, seed));
    const std::vector<Tensor> out = program.run({x, k, s});
    EXPECT_EQ(out[0].to_vector<float>(), out[1].to_vector<float>()) << "kernel seed " << seed;
  }
}

// The op table's case (tests/core/op_gradients_test.cc): no gradient (not differentiable),
// its value by hand: x = (1, -2, 0.5) has scale 127 / (2 + 1e-7) = 63.5 (2 + 1e-7 is 2 in
// float32), so it quantizes to (64, -127, 32): 63.5 to the even 64, 31.75 to 32.
const testing::RegisterOpCases dense_int8_op_case({
    {"dense_int8", testing::OpCase{.forward_check = [] {
       Graph graph;
       const Output x = graph.placeholder({Shape{1, 3}, DType::float32}, "x");
       const Output k = graph.placeholder({Shape{3, 1}, DType::float32}, "k");
       const Output s = graph.placeholder({Shape{1}, DType::float32}, "s");
       Program program(graph, {x, k, s}, {ops::dense_int8(x, k, s)});
       const Tensor y = program.run({Tensor::from_vector<float>({1, 3}, {1.f, -2.f, 0.5f}),
                                     Tensor::from_vector<float>({3, 1}, {1.f, 2.f, 3.f}),
                                     Tensor::from_vector<float>({1}, {2.f})})[0];
       EXPECT_EQ(y.item(), static_cast<float>(64 * 1 - 127 * 2 + 32 * 3) / (2.f * 63.5f));
     }}},
});

INSTANTIATE_TEST_SUITE_P(CpuPaths, DenseInt8,
                         ::testing::Values(cpu::Isa::kPortable, cpu::Isa::kAvx2, cpu::Isa::kAvx512),
                         testing::cpu_path_name);

TEST(DenseInt8Shapes, WrongShapesAndTooDeepProductsAreRefusedWhenTheNodeIsAdded) {
  Graph graph;
  const Output x = graph.placeholder({Shape{kUnknownDim, 8}, DType::float32}, "x");
  const Output k = graph.placeholder({Shape{8, 4}, DType::float32}, "k");
  const Output scale = graph.placeholder({Shape{4}, DType::float32}, "scale");
  EXPECT_THROW(ops::dense_int8(x, k, graph.placeholder({Shape{5}, DType::float32}, "bad_scale")), ShapeError);
  EXPECT_THROW(ops::dense_int8(x, k, scale, graph.placeholder({Shape{3}, DType::float32}, "bad_bias")), ShapeError);
  EXPECT_THROW(ops::dense_int8(x, k, scale, {}, "gelu"), ValueError);
  EXPECT_THROW(ops::dense_int8(x, graph.placeholder({Shape{9, 4}, DType::float32}, "bad_k"),
                               graph.placeholder({Shape{4}, DType::float32}, "s")),
               ShapeError);
  const Output deep = graph.placeholder({Shape{kUnknownDim, ops::kDenseInt8MaxDepth + 1}, DType::float32}, "deep");
  EXPECT_THROW(ops::dense_int8(deep, graph.placeholder({Shape{ops::kDenseInt8MaxDepth + 1, 1}, DType::float32}, "dk"),
                               graph.placeholder({Shape{1}, DType::float32}, "ds")),
               ValueError);
}

}  // namespace
}  // namespace strata
