// Emulated bfloat16 (and float16) products round their results in their own kernels (the
// node's output_rounding, core/graph.h; docs/precision.md): conv2d on every convolution
// path (Winograd, the direct kernel, im2col and the GEMM, a pointwise product, a depthwise
// convolution), dense and matmul on the bfloat16 GEMM and the float one, give the same
// values as the rounding op that followed them (compared at tolerance 0), on every CPU path this machine runs; and a
// rounding Conv2D's training gradient, where a max pooling follows, is the one fused pass
// of pool, relu and bias gradients, with the values the separate ops gave.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "core/autodiff.h"
#include "core/cpu/bf16_gemm.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/pool_ops.h"
#include "core/precision_rounding.h"
#include "core/program.h"
#include "core_test_util.h"
#include "on_every_cpu_path.h"
#include "thread_count.h"

using namespace strata;

namespace output_rounding_test {

namespace {

using strata::testing::tensors_near;
using strata::testing::uniform;

struct Case {
  const char* path;
  Shape x, kernel;
  ops::Conv2DParams params;
};

// One geometry per convolution path of the CPU kernel (core/cpu/kernels/conv.cc).
std::vector<Case> cases() {
  return {
      {"winograd (3x3, 16 channels in and out)", Shape{2, 9, 10, 16}, Shape{3, 3, 16, 24}, {}},
      {"direct (one input channel)", Shape{2, 12, 11, 1}, Shape{3, 3, 1, 32}, {}},
      {"im2col and the GEMM (5x5, stride 2)", Shape{2, 11, 13, 8}, Shape{5, 5, 8, 20}, {.strides = {2, 2}}},
      {"pointwise product", Shape{2, 7, 7, 24}, Shape{1, 1, 24, 40}, {}},
      {"depthwise", Shape{1, 9, 9, 32}, Shape{3, 3, 1, 32}, {.pads = {1, 1, 1, 1}, .groups = 32}},
  };
}

Tensor rounded_to_bfloat16(Tensor t) {
  float* v = t.data<float>();
  for (std::int64_t i = 0; i < t.size(); ++i) v[i] = round_to_bfloat16(v[i]);
  return t;
}

}  // namespace

class OutputRounding : public strata::testing::OnEveryCpuPath {};

TEST_P(OutputRounding, AConvolutionRoundsItsOutputAsTheRoundingOpAfterItDid) {
  for (const ComputePrecision precision : {ComputePrecision::bfloat16, ComputePrecision::float16}) {
    for (const Case& c : cases()) {
      const std::int64_t channels = c.kernel.dims().back();
      const Tensor x = uniform(c.x, -2.f, 2.f, 1), kernel = uniform(c.kernel, -0.5f, 0.5f, 2),
                   bias = uniform(Shape{channels}, -0.3f, 0.3f, 3);
      Graph graph;
      const Output xs = graph.placeholder({c.x}, "x"), ks = graph.placeholder({c.kernel}, "k"),
                   bs = graph.placeholder({Shape{channels}}, "b");
      const Output rounded_inside = ops::conv2d_bias_activation(xs, ks, bs, "relu", c.params, precision);
      const Output unrounded = ops::conv2d_bias_activation(xs, ks, bs, "relu", c.params);
      const Output rounded_after = precision == ComputePrecision::bfloat16 ? ops::round_to_bfloat16(unrounded)
                                                                            : ops::round_to_float16(unrounded);
      EXPECT_TRUE(graph.holds_values_of(rounded_inside, precision));
      EXPECT_EQ(graph.rounded(rounded_inside, precision), rounded_inside) << "a rounding op was added after it";
      Program program(graph, {xs, ks, bs}, {rounded_inside, rounded_after, unrounded});
      // Three runs: the weights unchanged, the later ones take the prepacked kernels.
      std::vector<Tensor> out;
      for (int run = 0; run < 3; ++run) {
        out = program.run({x, kernel, bias});
        EXPECT_TRUE(tensors_near(out[0], out[1], 0.f))
            << c.path << (precision == ComputePrecision::bfloat16 ? ", bfloat16" : ", float16") << ", run " << run;
      }
      // The rounding changed something: the test would see a kernel that skipped it.
      EXPECT_FALSE(tensors_near(out[0], out[2], 0.f))
          << c.path << ": the convolution's values were all rounded already";
    }
  }
}

TEST_P(OutputRounding, ARoundingConvolutionsGradientThroughMaxPoolingIsOneFusedPass) {
  // y = maxpool(relu(conv(x, k) + b)), with the upstream gradient bfloat16 values (as a
  // mixed_bfloat16 model's are): the conv rounding its own output gives the pooling its
  // input directly, so its gradient is max_pool2d_relu_grad (pool, relu and bias in one
  // pass) with no rounding op after it (non-overlapping windows route bfloat16 values).
  // Against the conv followed by the rounding op: the same forward bits, the same kernel
  // and input gradients, the bias gradient summed in another order.
  const Shape x_shape{4, 10, 10, 16}, k_shape{3, 3, 16, 24};
  const Tensor x = uniform(x_shape, -2.f, 2.f, 4), kernel = uniform(k_shape, -0.5f, 0.5f, 5),
               bias = uniform(Shape{24}, -0.3f, 0.3f, 6), upstream = uniform(Shape{4, 4, 4, 24}, -1.f, 1.f, 7);
  const ops::Pool2DParams pool{{2, 2}, {2, 2}, {0, 0, 0, 0}};
  const auto run = [&](bool rounded_inside, bool rounded_upstream, int* rounding_ops, int* fused_gradients) {
    Graph graph;
    const Output xs = graph.placeholder({x_shape}, "x"), ks = graph.placeholder({k_shape}, "k"),
                 bs = graph.placeholder({Shape{24}}, "b"), ups = graph.placeholder({Shape{4, 4, 4, 24}}, "dy");
    const Output y = rounded_inside
                         ? ops::conv2d_bias_activation(xs, ks, bs, "relu", {}, ComputePrecision::bfloat16)
                         : ops::round_to_bfloat16(ops::conv2d_bias_activation(xs, ks, bs, "relu", {}));
    const Output pooled = ops::max_pool2d(y, pool);
    const Output dy = rounded_upstream ? ops::round_to_bfloat16(ups) : ups;
    const std::vector<Output> grads = gradients(pooled, {xs, ks, bs}, dy);
    const int nodes_before_program = graph.num_nodes();
    Program program(graph, {xs, ks, bs, ups}, {pooled, grads[0], grads[1], grads[2]});
    EXPECT_EQ(graph.num_nodes(), nodes_before_program);
    *rounding_ops = 0, *fused_gradients = 0;
    for (const Node& node : graph.nodes()) {
      *rounding_ops += node.op == "round_to_bfloat16";
      *fused_gradients += node.op == "max_pool2d_relu_grad";
    }
    return program.run({x, kernel, bias, upstream});
  };
  int rounding_ops = 0, fused = 0, reference_rounding_ops = 0, reference_fused = 0;
  const auto inside = run(true, true, &rounding_ops, &fused);
  const auto reference = run(false, true, &reference_rounding_ops, &reference_fused);
  EXPECT_EQ(rounding_ops, 1) << "only the upstream gradient's: none after the conv or after its gradients";
  EXPECT_EQ(fused, 1);
  EXPECT_EQ(reference_fused, 0) << "the rounding op between conv and pooling kept the fusion out";
  EXPECT_TRUE(tensors_near(inside[0], reference[0], 0.f)) << "forward";
  EXPECT_TRUE(tensors_near(inside[1], reference[1], 0.f)) << "input gradient";
  EXPECT_TRUE(tensors_near(inside[2], reference[2], 0.f)) << "kernel gradient";
  EXPECT_TRUE(tensors_near(inside[3], reference[3], 1e-4f)) << "bias gradient";
  // An upstream gradient of float32 values (a float32 layer after the pooling): the fused
  // pass's dz is rounded by an op after it, and the bias gradient is summed from the rounded
  // values (the fused pass's own sum is of the unrounded ones). Against dz built op by op.
  int unrounded_ops = 0, unrounded_fused = 0;
  (void)run(true, false, &unrounded_ops, &unrounded_fused);
  EXPECT_EQ(unrounded_fused, 1);
  EXPECT_EQ(unrounded_ops, 1) << "one rounding, of the fused pass's gradient";
  Graph graph;
  const Output xs = graph.placeholder({x_shape}, "x"), ks = graph.placeholder({k_shape}, "k"),
               bs = graph.placeholder({Shape{24}}, "b"), ups = graph.placeholder({Shape{4, 4, 4, 24}}, "dy");
  const Output y = ops::conv2d_bias_activation(xs, ks, bs, "relu", {}, ComputePrecision::bfloat16);
  const std::vector<Output> grads = gradients(ops::max_pool2d(y, pool), {xs, ks, bs}, ups);
  const Output dz = ops::round_to_bfloat16(ops::relu_grad(ops::max_pool2d_grad(y, ups, pool), y));
  const Output dk = ops::conv2d_backprop_filter(xs, dz, {3, 3}, {});
  const Output db = ops::reduce_sum(dz, {0, 1, 2});
  Program program(graph, {xs, ks, bs, ups}, {grads[1], grads[2], dk, db});
  const auto got = program.run({x, kernel, bias, upstream});
  EXPECT_TRUE(tensors_near(got[0], got[2], 0.f)) << "kernel gradient";
  EXPECT_TRUE(tensors_near(got[1], got[3], 1e-5f)) << "bias gradient: not the sum of the rounded dz";
}

TEST_P(OutputRounding, ProductsRoundTheirOutputAsTheRoundingOpAfterThemDid) {
  // matmul in each transpose and dense with bias and relu, built under a bfloat16
  // PrecisionScope (operands rounded, so marked for the bfloat16 GEMM where the CPU has
  // one: the rows >= 2 cases) or as the fused Dense's op; then a batch-1 dense (the
  // matrix-vector kernel) and two batch-1 denses back to back (which the float32 program
  // runs as one pair kernel: not when they round).
  const Tensor a = uniform(Shape{40, 70}, -2.f, 2.f, 11), b = uniform(Shape{70, 36}, -1.f, 1.f, 12),
               at = uniform(Shape{70, 40}, -2.f, 2.f, 13), bt = uniform(Shape{36, 70}, -1.f, 1.f, 14),
               bias = uniform(Shape{36}, -0.5f, 0.5f, 15);
  const Tensor big_a = uniform(Shape{128, 256}, -2.f, 2.f, 16), big_b = uniform(Shape{256, 256}, -1.f, 1.f, 17);
  if (cpu::bf16_path() != cpu::Bf16Path::kAvx512Bf16) {
    std::cout << "note: this CPU path has no bfloat16 GEMM: the marked products run the float GEMM\n";
  }
  Graph graph;
  const Output as = graph.placeholder({a.shape()}, "a"), bs = graph.placeholder({b.shape()}, "b"),
               ats = graph.placeholder({at.shape()}, "at"), bts = graph.placeholder({bt.shape()}, "bt"),
               biases = graph.placeholder({bias.shape()}, "bias");
  std::vector<Output> inside, after;
  const auto r = [](Output x) { return ops::round_to_bfloat16(x); };
  {
    PrecisionScope bfloat16(graph, ComputePrecision::bfloat16);
    inside = {ops::matmul(as, bs), ops::matmul(ats, bs, true, false), ops::matmul(as, bts, false, true),
              ops::matmul(ats, bts, true, true)};
  }
  after = {r(ops::matmul(r(as), r(bs))), r(ops::matmul(r(ats), r(bs), true, false)),
           r(ops::matmul(r(as), r(bts), false, true)), r(ops::matmul(r(ats), r(bts), true, true))};
  inside.push_back(ops::dense(r(as), r(bs), r(biases), "relu", ComputePrecision::bfloat16));
  after.push_back(r(ops::dense(r(as), r(bs), r(biases), "relu")));
  const Output row = ops::crop(as, {0, 0}, {39, 0});  // the first row
  inside.push_back(ops::dense(r(row), r(bs), r(biases), "relu", ComputePrecision::bfloat16));
  after.push_back(r(ops::dense(r(row), r(bs), r(biases), "relu")));
  // Products large enough to be split over the threads (above 4 Mflop).
  const Output wide = graph.placeholder({big_a.shape()}, "wide"), square = graph.placeholder({big_b.shape()}, "square");
  {
    PrecisionScope bfloat16(graph, ComputePrecision::bfloat16);
    inside.push_back(ops::matmul(wide, square));
  }
  after.push_back(r(ops::matmul(r(wide), r(square))));
  inside.push_back(ops::dense(r(wide), r(square), Output{}, "relu", ComputePrecision::bfloat16));
  after.push_back(r(ops::dense(r(wide), r(square), Output{}, "relu")));
  for (const Output& y : inside) {
    EXPECT_EQ(output_rounding_of(graph.node(y.node)), ComputePrecision::bfloat16) << graph.node(y.node).name;
    EXPECT_TRUE(graph.holds_values_of(y, ComputePrecision::bfloat16));
  }
  std::vector<Output> fetches = inside;
  fetches.insert(fetches.end(), after.begin(), after.end());
  Program program(graph, {as, bs, ats, bts, biases, wide, square}, fetches);
  const char* names[] = {"matmul", "matmul, A transposed", "matmul, B transposed", "matmul, both transposed",
                         "dense", "dense of one row", "matmul split over threads", "dense split over threads"};
  for (int run = 0; run < 3; ++run) {  // the later runs with the kernels packed once
    const auto out = program.run({a, b, at, bt, bias, big_a, big_b});
    for (std::size_t i = 0; i < inside.size(); ++i) {
      EXPECT_TRUE(tensors_near(out[i], out[inside.size() + i], 0.f))
          << names[i] << ", run " << run;
    }
  }
}

TEST_P(OutputRounding, TwoRoundingDenseLayersAtBatchOneRunOneByOne) {
  // A float32 pair of batch-1 Dense layers runs as one kernel; a rounding pair must round
  // both outputs (the pair kernel would not): the same bits as each rounded by its op.
  // The pair splits its products over two threads or more.
  strata::testing::ThreadCount two_threads(2);
  const Tensor x = rounded_to_bfloat16(uniform(Shape{1, 512}, -1.f, 1.f, 21)),
               k1 = rounded_to_bfloat16(uniform(Shape{512, 512}, -0.1f, 0.1f, 22)),
               k2 = rounded_to_bfloat16(uniform(Shape{512, 256}, -0.1f, 0.1f, 23));
  const auto run = [&](bool rounding_inside) {
    Graph graph;
    const Output xs = graph.placeholder({x.shape()}, "x"), k1s = graph.placeholder({k1.shape()}, "k1"),
                 k2s = graph.placeholder({k2.shape()}, "k2");
    const auto r = [](Output v) { return ops::round_to_bfloat16(v); };
    // The operands fed as they are (bfloat16 values already): the program pairs two
    // products only when they are adjacent steps and the second's output takes no buffer
    // the first reads (an operand's rounding op's would be free for it).
    Output y;
    if (rounding_inside) {
      const Output h = ops::dense(xs, k1s, Output{}, "relu", ComputePrecision::bfloat16);
      y = ops::dense(h, k2s, Output{}, "", ComputePrecision::bfloat16);
    } else {
      const Output h = r(ops::dense(xs, k1s, Output{}, "relu"));
      y = r(ops::dense(h, k2s));
    }
    Program program(graph, {xs, k1s, k2s}, {y});
    return program.run({x, k1, k2})[0];
  };
  EXPECT_TRUE(tensors_near(run(true), run(false), 0.f));
}

INSTANTIATE_TEST_SUITE_P(CpuPaths, OutputRounding,
                         ::testing::Values(cpu::Isa::kPortable, cpu::Isa::kAvx2, cpu::Isa::kAvx512),
                         strata::testing::cpu_path_name);

}  // namespace output_rounding_test
