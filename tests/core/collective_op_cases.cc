// Op cases for the data-parallel all-reduce (core/ops/collective_ops.cc). Neither op is
// differentiable; the forward checks run them against a Collective that plays the other
// processes: this process's gradient, scaled by its sample count, plus theirs, over the
// summed count — and a process with no samples adds zeros, never 0 * NaN. Without a
// Collective the step says what is missing.
#include <gtest/gtest.h>

#include "core/collective.h"
#include "core/ops.h"
#include "core/ops/collective_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::collective_op_cases {
namespace {

// The other processes: `others` samples whose gradients were all `other_value`, added
// when a sum completes.
class SimulatedPeers : public Collective {
 public:
  SimulatedPeers(float others, float other_value) : others_(others), other_value_(other_value) {}
  void start_all_reduce(float* data, std::int64_t count) override {
    pending_ = data;
    count_ = count;
  }
  void wait_all_reduce(float* data) override {
    ASSERT_EQ(data, pending_) << "waited for another buffer than was started";
    for (std::int64_t i = 0; i + 1 < count_; ++i) data[i] += others_ * other_value_;
    data[count_ - 1] += others_;
    ++completed;
  }
  int completed = 0;

 private:
  float others_, other_value_;
  float* pending_ = nullptr;
  std::int64_t count_ = 0;
};

// The column sums of x (a gradient-like value of shape (2,)) reduced over every process.
void check_all_reduce(const Tensor& x, float others, float other_value, const std::vector<float>& expected) {
  Graph g;
  Output batch = g.placeholder({Shape{kUnknownDim, 2}, DType::float32}, "x");
  Output grad = ops::reduce_sum(batch, {0});
  // 0/0 per element for an empty batch: the NaN a mean over no samples gives.
  if (x.shape()[0] == 0) grad = ops::div(grad, ops::reduce_sum(ops::fill_like(batch, 0.f)));
  Output scalar = ops::reduce_sum(grad);
  auto reduced = ops::all_reduce_wait(ops::all_reduce_start(batch, {grad, scalar}), {grad, scalar});
  Program p(g, {batch}, {reduced[0], reduced[1]});
  SimulatedPeers peers(others, other_value);
  auto out = p.run({x}, {.collective = &peers});
  EXPECT_EQ(peers.completed, 1);
  ASSERT_EQ(out[0].shape(), Shape{2});
  ASSERT_EQ(out[1].shape(), Shape{});
  EXPECT_FLOAT_EQ(out[0].item(0), expected[0]);
  EXPECT_FLOAT_EQ(out[0].item(1), expected[1]);
  EXPECT_FLOAT_EQ(out[1].item(), expected[2]);
  EXPECT_THROW(p.run({x}), Error);
}

void forward_check() {
  // This process: 3 samples, column sums (3, 6), total 9; the others: 5 samples at 1.
  Tensor x(Shape{3, 2});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i % 2 + 1);
  check_all_reduce(x, 5, 1.f, {(3.f * 3.f + 5.f) / 8.f, (3.f * 6.f + 5.f) / 8.f, (3.f * 9.f + 5.f) / 8.f});
  check_all_reduce(Tensor(Shape{0, 2}), 4, 2.f, {2.f, 2.f, 2.f});
}

const RegisterOpCases collective_cases({
    {"all_reduce_start", OpCase{.forward_check = forward_check}},
    {"all_reduce_wait", OpCase{.forward_check = forward_check}},
});

}  // namespace
}  // namespace strata::testing::collective_op_cases
