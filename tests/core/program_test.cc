// Program: what runs is exactly what the fetches need, merged, ordered with updates
// last, in buffers reused by liveness; the graph is frozen once compiled.
#include <gtest/gtest.h>

#include <cmath>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"
#include "core/variable.h"
#include "core_test_util.h"

using namespace strata;
using namespace strata::testing;

namespace program_test {

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

template <typename E, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

}  // namespace

TEST(Program, NeverRunsAnUnusedBranch) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output used = ops::tanh(x);
  Output unused_a = ops::exp(x);
  Output unused_b = ops::matmul(unused_a, g.placeholder({Shape{3, 3}}, "never_fed"));
  Output fetched = ops::mul(used, 2.0f);
  // The unused branch even reads a placeholder that is not fed: compiling still works.
  Program p(g, {x}, {fetched});
  for (int run = 0; run < 4; ++run) p.run({uniform({2, 3}, -1, 1, 1)});
  EXPECT_EQ(p.executions(unused_a.node), 0);
  EXPECT_EQ(p.executions(unused_b.node), 0);
  EXPECT_EQ(p.executions(used.node), 4);
  EXPECT_EQ(p.executions(fetched.node), 4);
  for (int id : p.execution_order()) {
    EXPECT_NE(id, unused_a.node);
    EXPECT_NE(id, unused_b.node);
  }
}

TEST(Program, MergesCommonSubexpressions) {
  Graph g;
  Output x = g.placeholder({Shape{4}}, "x");
  // Two identical expressions, built separately: x*x + exp(x), each with its own constant 2.
  Output first = ops::mul(ops::add(ops::mul(x, x), ops::exp(x)), 2.0f);
  Output second = ops::mul(ops::add(ops::mul(x, x), ops::exp(x)), 2.0f);
  Output y = ops::add(first, second);
  // Naively 12 steps: x; mul, exp, add, const, mul for each copy; the final add.
  Program p(g, {x}, {y});
  EXPECT_EQ(p.num_steps(), 7) << "x, mul, exp, add, const, mul, add";
  EXPECT_EQ(p.executions(second.node), 0);
  Tensor xv = tensor<float>({4}, {-1, 0, 0.5f, 2});
  Tensor out = p.run({xv})[0];
  EXPECT_EQ(p.executions(first.node), 1);
  Tensor expected = xv.clone();
  for (auto& v : expected.values<float>()) v = 4 * (v * v + std::exp(v));
  EXPECT_TRUE(tensors_near(out, expected));
}

TEST(Program, FetchingAMergedNodeReturnsTheSharedValue) {
  Graph g;
  Output x = g.placeholder({Shape{2}}, "x");
  Output a = ops::square(x);
  Output b = ops::square(x);
  Program p(g, {x}, {a, b});
  EXPECT_EQ(p.num_steps(), 2);
  auto out = p.run({tensor<float>({2}, {3, -2})});
  EXPECT_TRUE(tensors_near(out[0], tensor<float>({2}, {9, 4})));
  EXPECT_TRUE(tensors_near(out[1], tensor<float>({2}, {9, 4})));
}

TEST(Program, NeverMergesRandomOrStatefulNodes) {
  Graph g;
  Output x = g.placeholder({Shape{1000}}, "x");
  Output d1 = ops::dropout(x, 0.5f, 3, 4);
  Output d2 = ops::dropout(x, 0.5f, 3, 4);
  Variable v("v", Tensor({1000}));
  Output u1 = ops::assign_add(g.variable(v), x);
  Output u2 = ops::assign_add(g.variable(v), x);
  Program p(g, {x}, {d1, d2}, {u1, u2});
  p.run({Tensor::filled({1000}, 1.f)}, {.training = true});
  EXPECT_EQ(p.executions(d1.node), 1);
  EXPECT_EQ(p.executions(d2.node), 1);
  EXPECT_EQ(p.executions(u1.node), 1);
  EXPECT_EQ(p.executions(u2.node), 1);
  EXPECT_TRUE(tensors_near(v.value(), Tensor::filled({1000}, 2.f))) << "both updates ran";
}

TEST(Program, LivenessPlanReusesBuffersAlongAChain) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 8}}, "x");
  Output h = x;
  const int length = 10;
  for (int i = 0; i < length; ++i) h = i % 2 ? ops::tanh(h) : ops::neg(h);
  Program p(g, {x}, {h});
  EXPECT_LE(p.num_buffers(), 2) << "a chain needs its current input and output only";
  EXPECT_LT(p.num_buffers(), length);
  Tensor xv = uniform({3, 8}, -1, 1, 2);
  Tensor expected = xv.clone();
  for (auto& v : expected.values<float>()) {
    for (int i = 0; i < length; ++i) v = i % 2 ? std::tanh(v) : -v;
  }
  EXPECT_TRUE(tensors_near(p.run({xv})[0], expected));
}

TEST(Program, LivenessKeepsValuesThatAreReadLater) {
  // exp(x) is read only by the last node, after three other values came and went.
  Graph g;
  Output x = g.placeholder({Shape{5}}, "x");
  Output early = ops::exp(x);
  Output chain = ops::square(ops::neg(ops::tanh(x)));
  Output y = ops::add(early, chain);
  Program p(g, {x}, {y, chain});
  Tensor xv = uniform({5}, -1, 1, 3);
  auto out = p.run({xv});
  Tensor expected = xv.clone();
  for (auto& v : expected.values<float>()) v = std::exp(v) + std::tanh(v) * std::tanh(v);
  EXPECT_TRUE(tensors_near(out[0], expected));
  EXPECT_LT(p.num_buffers(), 5);
}

// A kernel learns which of its outputs a later step reads or the run fetches
// (KernelContext::output_read), so it may skip the rest: the recurrent kernels' workspace
// in an inference program.
TEST(Program, TellsAKernelWhichOfItsOutputsAreRead) {
  static std::vector<bool> seen;
  if (!OpRegistry::global().contains("test_three_outputs")) {
    OpRegistry::global().add(OpDef{.name = "test_three_outputs",
                                   .infer = [](const InferContext& ctx) { return std::vector(3, ctx.inputs[0]); },
                                   .differentiable = false});
    OpRegistry::global().add_kernel("test_three_outputs", DeviceType::cpu, {.run = [](KernelContext& ctx) {
      seen = {ctx.output_read(0), ctx.output_read(1), ctx.output_read(2)};
      for (int i = 0; i < 3; ++i) ctx.output(i).copy_from(ctx.input(0));
    }});
  }
  Graph g;
  Output x = g.placeholder({Shape{4}}, "x");
  const std::vector<Output> three = g.add_node("test_three_outputs", {x});
  // Output 0 read by a later step, 1 fetched, 2 neither.
  Program p(g, {x}, {ops::exp(three[0]), three[1]});
  p.run({uniform({4}, -1, 1, 5)});
  EXPECT_EQ(seen, (std::vector<bool>{true, true, false}));
}

TEST(Program, ReturnsTensorsThatLaterRunsDoNotOverwrite) {
  Graph g;
  Output x = g.placeholder({Shape{3}}, "x");
  Program p(g, {x}, {ops::mul(x, 2.0f)});
  Tensor first = p.run({tensor<float>({3}, {1, 2, 3})})[0];
  Tensor second = p.run({tensor<float>({3}, {7, 8, 9})})[0];
  EXPECT_TRUE(tensors_near(first, tensor<float>({3}, {2, 4, 6})));
  EXPECT_TRUE(tensors_near(second, tensor<float>({3}, {14, 16, 18})));
}

TEST(Program, FinalizesTheGraph) {
  Graph g;
  Output x = g.placeholder({Shape{3}}, "x");
  Output y = ops::exp(x);
  EXPECT_FALSE(g.finalized());
  Program p(g, {x}, {y});
  EXPECT_TRUE(g.finalized());
  const int nodes = g.num_nodes();
  std::string message = message_of<Error>([&] { ops::tanh(y); });
  EXPECT_TRUE(contains(message, "compile")) << message;
  EXPECT_THROW(g.placeholder({Shape{3}}, "late"), Error);
  EXPECT_THROW(ops::constant(g, 1.f), Error);
  EXPECT_EQ(g.num_nodes(), nodes);
  // Compiling another program from the frozen graph adds no node either.
  Program again(g, {x}, {y});
  EXPECT_EQ(g.num_nodes(), nodes);
}

TEST(Program, RunsAnyBatchSize) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output w = g.placeholder({Shape{3, 2}}, "w");
  Output logits = ops::matmul(ops::reshape(x, {-1, 3}), w);
  Output probs = ops::softmax(logits);
  Output mean = ops::reduce_mean(logits, {0});
  Program p(g, {x, w}, {probs, mean});
  Tensor wv = uniform({3, 2}, -1, 1, 4);
  for (std::int64_t batch : {1, 3, 7, 3, 1}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Tensor xv = uniform({batch, 3}, -1, 1, static_cast<std::uint64_t>(batch));
    auto out = p.run({xv, wv});
    ASSERT_EQ(out[0].shape(), (Shape{batch, 2}));
    ASSERT_EQ(out[1].shape(), (Shape{2}));
    for (std::int64_t i = 0; i < batch; ++i) {
      float z[2];
      for (int j = 0; j < 2; ++j) {
        z[j] = 0;
        for (int k = 0; k < 3; ++k) z[j] += xv.item(i * 3 + k) * wv.item(k * 2 + j);
      }
      float p0 = 1.f / (1.f + std::exp(z[1] - z[0]));
      EXPECT_NEAR(out[0].item(i * 2), p0, 1e-5f);
      EXPECT_NEAR(out[0].item(i * 2 + 1), 1 - p0, 1e-5f);
    }
  }
}

TEST(Program, RejectsAFeedOfTheWrongDtypeNamingThePlaceholder) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "features");
  Program p(g, {x}, {ops::exp(x)});
  std::string message = message_of<ValueError>([&] { p.run({Tensor({2, 3}, DType::int64)}); });
  EXPECT_TRUE(contains(message, "features")) << message;
  EXPECT_TRUE(contains(message, "float32") && contains(message, "int64")) << message;
}

TEST(Program, RejectsAFeedOfTheWrongShapeNamingThePlaceholder) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "features");
  Program p(g, {x}, {ops::exp(x)});
  std::string message = message_of<ShapeError>([&] { p.run({Tensor({2, 4})}); });
  EXPECT_TRUE(contains(message, "features")) << message;
  EXPECT_TRUE(contains(message, "(None, 3)") && contains(message, "(2, 4)")) << message;
  EXPECT_THROW(p.run({Tensor({6})}), ShapeError) << "wrong rank";
  EXPECT_THROW(p.run({}), ValueError) << "wrong number of feeds";
}

TEST(Program, RejectsANeededPlaceholderThatIsNotFedAtCompile) {
  Graph g;
  Output x = g.placeholder({Shape{3}}, "x");
  Output labels = g.placeholder({Shape{3}}, "labels");
  Output y = ops::sub(x, labels);
  std::string message = message_of<ValueError>([&] { Program p(g, {x}, {y}); });
  EXPECT_TRUE(contains(message, "labels")) << message;
}

TEST(Program, RejectsFeedsThatAreNotPlaceholders) {
  Graph g;
  Output x = g.placeholder({Shape{3}}, "x");
  Output y = ops::exp(x);
  EXPECT_THROW(Program(g, {y}, {ops::tanh(y)}), ValueError);
}

TEST(Program, RunsUpdatesAfterEveryReadOfTheStep) {
  Variable v("counter", tensor<float>({2}, {1, 2}));
  Graph g;
  Output read = g.variable(v);
  Output delta = g.placeholder({Shape{2}}, "delta");
  // The update is created before the nodes that read v: it must still run after them.
  Output update = ops::assign_add(read, delta);
  Output doubled = ops::mul(read, 2.0f);
  Program p(g, {delta}, {read, doubled}, {update});
  auto order = p.execution_order();
  EXPECT_EQ(order.back(), update.node);
  auto out = p.run({tensor<float>({2}, {10, 20})});
  EXPECT_TRUE(tensors_near(out[0], tensor<float>({2}, {1, 2}))) << "the step returns the value it read";
  EXPECT_TRUE(tensors_near(out[1], tensor<float>({2}, {2, 4})));
  EXPECT_TRUE(tensors_near(v.value(), tensor<float>({2}, {11, 22}))) << "and v holds the new value after";
  out = p.run({tensor<float>({2}, {10, 20})});
  EXPECT_TRUE(tensors_near(out[0], tensor<float>({2}, {11, 22})));
  EXPECT_TRUE(tensors_near(v.value(), tensor<float>({2}, {21, 42})));
}

TEST(Program, RunsUpdatesInCreationOrder) {
  Variable v("v", tensor<float>({1}, {5}));
  Graph g;
  Output read = g.variable(v);
  Output set = ops::assign(read, ops::fill_like(read, 1.f));
  Output bump = ops::assign_add(read, ops::mul(read, 10.f));  // reads v before any update: 50
  Program p(g, {}, {}, {bump, set});
  p.run({});
  EXPECT_TRUE(tensors_near(v.value(), tensor<float>({1}, {51}))) << "assign 1, then add 10 * old value";
}

TEST(Program, RejectsFetchingAnUpdate) {
  Variable v("v", tensor<float>({1}, {5}));
  Graph g;
  Output update = ops::assign_add(g.variable(v), g.variable(v));
  std::string message = message_of<ValueError>([&] { Program p(g, {}, {update}); });
  EXPECT_TRUE(contains(message, "target")) << message;
}

TEST(Program, ThousandRunsAddNoNodes) {
  Variable w("w", uniform({4, 2}, -1, 1, 5));
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 4}}, "x");
  Output kernel = g.variable(w);
  Output loss = ops::reduce_mean(ops::square(ops::matmul(x, kernel)));
  Output grad = gradients(loss, {kernel})[0];
  Output step = ops::assign_add(kernel, ops::mul(grad, -0.01f));
  Program p(g, {x}, {loss}, {step});
  const int nodes = g.num_nodes();
  Tensor xv = uniform({8, 4}, -1, 1, 6);
  float first = p.run({xv})[0].item();
  float last = first;
  for (int i = 1; i < 1000; ++i) last = p.run({xv}, {.step = i})[0].item();
  EXPECT_EQ(g.num_nodes(), nodes);
  EXPECT_EQ(p.executions(step.node), 1000);
  EXPECT_LT(last, first) << "gradient descent on a quadratic decreases it";
}

TEST(Program, RecoversAfterAKernelError) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output labels = g.placeholder({Shape{kUnknownDim}, DType::int64}, "labels");
  Program p(g, {x, labels}, {ops::pick(ops::exp(x), labels)});
  Tensor xv = tensor<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_THROW(p.run({xv, tensor<std::int64_t>({2}, {0, 3})}), ValueError);
  EXPECT_THROW(p.run({Tensor(), tensor<std::int64_t>({2}, {0, 1})}), ValueError) << "an undefined feed";
  Tensor out = p.run({xv, tensor<std::int64_t>({2}, {2, 0})})[0];
  EXPECT_TRUE(tensors_near(out, tensor<float>({2}, {std::exp(2.f), std::exp(3.f)})));
}

TEST(Program, PassesTrainingModeAndStepToKernels) {
  Graph g;
  Output x = g.placeholder({Shape{256}}, "x");
  Program p(g, {x}, {ops::dropout(x, 0.5f, 1, 2)});
  Tensor ones = Tensor::filled({256}, 1.f);
  EXPECT_TRUE(tensors_near(p.run({ones})[0], ones)) << "inference by default";
  Tensor a = p.run({ones}, {.training = true, .step = 0})[0];
  Tensor b = p.run({ones}, {.training = true, .step = 1})[0];
  EXPECT_FALSE(tensors_near(a, b)) << "another step, another mask";
  EXPECT_TRUE(tensors_near(a, p.run({ones}, {.training = true, .step = 0})[0]));
}

// Random graphs of elementwise ops, checked against the same arithmetic done directly:
// whatever CSE merges and the buffer plan reuses, every fetch keeps its value.
TEST(Program, RandomGraphsComputeWhatTheyDescribe) {
  Philox rng(2024, 1);
  std::uint64_t draw = 0;
  auto pick_index = [&](std::size_t n) {
    return std::min(n - 1, static_cast<std::size_t>(rng.uniform(draw++) * static_cast<float>(n)));
  };
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Graph g;
    std::vector<Output> nodes;
    std::vector<std::vector<float>> values;
    std::vector<Output> feeds;
    std::vector<Tensor> feed_values;
    for (int i = 0; i < 3; ++i) {
      feeds.push_back(g.placeholder({Shape{2, 3}}, "x"));
      feed_values.push_back(uniform({2, 3}, -1, 1, static_cast<std::uint64_t>(trial * 3 + i)));
      nodes.push_back(feeds.back());
      values.push_back(feed_values.back().to_vector<float>());
    }
    for (int i = 0; i < 25; ++i) {
      std::size_t a = pick_index(nodes.size()), b = pick_index(nodes.size());
      std::vector<float> va = values[a], vb = values[b], out(6);
      Output node;
      switch (pick_index(5)) {
        case 0: node = ops::add(nodes[a], nodes[b]); for (int k = 0; k < 6; ++k) out[k] = va[k] + vb[k]; break;
        case 1: node = ops::mul(nodes[a], nodes[b]); for (int k = 0; k < 6; ++k) out[k] = va[k] * vb[k]; break;
        case 2: node = ops::sub(nodes[a], nodes[b]); for (int k = 0; k < 6; ++k) out[k] = va[k] - vb[k]; break;
        case 3: node = ops::tanh(nodes[a]); for (int k = 0; k < 6; ++k) out[k] = std::tanh(va[k]); break;
        default: node = ops::neg(nodes[a]); for (int k = 0; k < 6; ++k) out[k] = -va[k]; break;
      }
      nodes.push_back(node);
      values.push_back(out);
    }
    std::vector<Output> fetches;
    std::vector<std::size_t> fetched;
    for (int f = 0; f < 4; ++f) {
      fetched.push_back(3 + pick_index(nodes.size() - 3));
      fetches.push_back(nodes[fetched.back()]);
    }
    Program p(g, feeds, fetches);
    for (int run = 0; run < 2; ++run) {
      auto out = p.run(feed_values);
      for (std::size_t f = 0; f < fetches.size(); ++f) {
        EXPECT_TRUE(tensors_near(out[f], tensor<float>({2, 3}, values[fetched[f]]), 1e-5f)) << "fetch " << f;
      }
    }
    EXPECT_LE(p.num_buffers(), p.num_steps());
  }
}

TEST(Program, UpdatesReadVariablesAsLeftByEarlierUpdates) {
  // Computed values see the variables from before the step; an update taking a variable
  // directly as an input sees the updates created before it, in creation order.
  Variable a("a", tensor<float>({1}, {1}));
  Variable from_value("from_value", tensor<float>({1}, {5}));
  Variable direct("direct", tensor<float>({1}, {5}));
  Graph g;
  Output read_a = g.variable(a);
  Output a_times_one = ops::mul(read_a, 1.f);
  Output set_a = ops::assign(read_a, ops::constant(g, 0.f));
  Output add_value = ops::assign_add(g.variable(from_value), a_times_one);
  Output add_direct = ops::assign_add(g.variable(direct), read_a);
  Program p(g, {}, {}, {add_direct, add_value, set_a});
  p.run({});
  EXPECT_EQ(a.value().item(), 0.f);
  EXPECT_EQ(from_value.value().item(), 6.f) << "a * 1 was computed before any update";
  EXPECT_EQ(direct.value().item(), 5.f) << "the direct input saw the assign created before it";
}

TEST(Program, RunsUpdatesAddedUnderARunIfScopeOnlyWhereTheConditionHolds) {
  // The LossScaleOptimizer's skipped step: the updates added in the scope run only where
  // the scalar is nonzero; those outside it, and every computation, run either way.
  Variable gated("gated", tensor<float>({2}, {1, 2}));
  Variable counted("counted", tensor<float>({1}, {0}));
  Graph g;
  Output condition = g.placeholder({Shape{}}, "condition");
  Output read = g.variable(gated);
  Output doubled = ops::mul(read, 2.f);
  Output gated_update;
  {
    RunIfScope scope(g, ops::equal(condition, ops::constant(g, 1.f)));
    gated_update = ops::assign(read, doubled);
  }
  EXPECT_FALSE(g.run_if().valid()) << "the scope restores the graph's condition";
  Output always = ops::assign_add(g.variable(counted), ops::fill_like(g.variable(counted), 1.f));
  // A condition must be a scalar computed by a stateless node.
  EXPECT_THROW(RunIfScope(g, g.placeholder({Shape{2}}, "two")), ValueError);
  EXPECT_THROW(RunIfScope(g, always), ValueError);
  Program p(g, {condition}, {doubled}, {gated_update, always});
  auto out = p.run({Tensor::scalar(0.f)});
  EXPECT_TRUE(tensors_near(out[0], tensor<float>({2}, {2, 4})));
  EXPECT_TRUE(tensors_near(gated.value(), tensor<float>({2}, {1, 2}))) << "skipped where the condition is 0";
  EXPECT_EQ(counted.value().item(), 1.f);
  EXPECT_EQ(p.executions(gated_update.node), 0);
  p.run({Tensor::scalar(1.f)});
  EXPECT_TRUE(tensors_near(gated.value(), tensor<float>({2}, {2, 4})));
  EXPECT_EQ(counted.value().item(), 2.f);
  EXPECT_EQ(p.executions(gated_update.node), 1);
}

}  // namespace program_test
