// The array CUDA kernels (core/cuda/array_kernels.cc) move elements as the strided copies
// that core/cuda/array_plan.h describes. Walked here on the host as core/cuda/array.cu
// walks them on a GPU (a plain copy where a plan is one contiguous run, a zeroed output
// first for pad), those copies must give the CPU kernels' outputs bit for bit, for every
// op and dtype the CUDA kernels take. This runs in every build, GPU or not; the CUDA
// kernels themselves are compared with the CPU's in cuda_kernels_test.cc where there is a
// GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda/array_plan.h"
#include "core/op_registry.h"
#include "core_test_util.h"

using namespace strata;

namespace cuda_array_plan_test {

namespace {

using Dims = std::vector<std::int64_t>;

// Bytes no case's element has (a float of about 3.4e38, an int32 of 2139062143): what
// an output holds where no copy wrote.
constexpr unsigned char kUnwrittenByte = 0x7f;

// core/cuda/array.cu's walk on the host: element i of the box (row-major over its dims)
// read at in_offset + sum(i[d] * in_strides[d]), written at out_offset + sum(i[d] *
// out_strides[d]); or, for a contiguous plan, the plain copy array_kernels.cc enqueues.
void walk(const cuda::CopyPlan& plan, const Tensor& in, Tensor& out) {
  if (plan.empty()) return;
  const std::size_t element = size_of(in.dtype());
  const auto* from = static_cast<const char*>(in.raw_data());
  auto* to = static_cast<char*>(out.raw_data());
  if (plan.contiguous()) {
    std::memcpy(to + plan.out_offset() * element, from + plan.in_offset() * element, plan.count() * element);
    return;
  }
  const cuda::StridedCopy c = plan.copy();
  for (std::int64_t i = 0; i < plan.count(); ++i) {
    std::int64_t rest = i, read = c.in_offset, write = c.out_offset;
    for (int d = c.rank - 1; d >= 0; --d) {
      const std::int64_t at = rest % c.dims[d];
      rest /= c.dims[d];
      read += at * c.in_strides[d];
      write += at * c.out_strides[d];
    }
    std::memcpy(to + write * element, from + read * element, element);
  }
}

Node node_for(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const OpDef& def = OpRegistry::global().get(op);
  std::vector<TensorSpec> specs;
  for (const Tensor& t : inputs) specs.push_back({t.shape(), t.dtype()});
  Node node;
  node.op = op;
  node.name = "cuda_array_plan_test/" + op;
  node.attrs = attrs;
  node.outputs = def.infer(InferContext{op, specs, attrs});
  node.def = &def;
  return node;
}

Tensor unwritten_output(const Node& node) {
  Tensor out(node.outputs[0].shape, node.outputs[0].dtype);
  std::memset(out.raw_data(), kUnwrittenByte, out.nbytes());
  return out;
}

Tensor on_cpu(const Node& node, const std::vector<Tensor>& inputs) {
  Tensor out = unwritten_output(node);
  KernelContext ctx{node, {}, {&out}};
  for (const Tensor& t : inputs) ctx.inputs.push_back(&t);
  node.def->on(DeviceType::cpu)->run(ctx);
  return out;
}

// What the op's CUDA kernel writes: its plans, made as array_kernels.cc makes them,
// walked on the host.
Tensor through_plans(const Node& node, const std::vector<Tensor>& inputs) {
  Tensor out = unwritten_output(node);
  const Tensor& x = inputs.at(0);
  const Attrs& a = node.attrs;
  if (node.op == "broadcast_like") {
    walk(cuda::plan_broadcast(node, x.shape(), out.shape()), x, out);
  } else if (node.op == "transpose") {
    walk(cuda::plan_transpose(node, x.shape(), out.shape(), a.get<Dims>("perm")), x, out);
  } else if (node.op == "pad") {
    std::memset(out.raw_data(), 0, out.nbytes());
    walk(cuda::plan_pad(node, x.shape(), out.shape(), a.get<Dims>("before")), x, out);
  } else if (node.op == "crop") {
    walk(cuda::plan_crop(node, x.shape(), out.shape(), a.get<Dims>("before")), x, out);
  } else {  // concat
    const int axis = out.shape().normalize_axis(static_cast<int>(a.get<std::int64_t>("axis")));
    std::int64_t slab_start = 0;
    for (const Tensor& input : inputs) {
      walk(cuda::plan_concat_input(node, input.shape(), out.shape(), axis, slab_start), input, out);
      slab_start += input.shape().dims()[static_cast<std::size_t>(axis)];
    }
  }
  return out;
}

// Whole numbers in [-50, 50] as `dtype` (floats keep their fractions).
Tensor numbers(const Shape& shape, DType dtype, std::uint64_t seed) {
  const Tensor values = strata::testing::uniform(shape, -50, 50, seed);
  if (dtype == DType::float32) return values;
  Tensor out(shape, dtype);
  for (std::int64_t i = 0; i < values.size(); ++i) {
    const auto whole = static_cast<std::int64_t>(values.item(i));
    if (dtype == DType::int64) out.data<std::int64_t>()[i] = whole;
    else out.data<std::int32_t>()[i] = static_cast<std::int32_t>(whole);
  }
  return out;
}

::testing::AssertionResult same_bytes(const Tensor& actual, const Tensor& expected) {
  if (actual.shape() != expected.shape() || actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "shape " << actual.shape().to_string() << ", expected "
                                         << expected.shape().to_string();
  }
  const std::size_t element = size_of(actual.dtype());
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    if (std::memcmp(static_cast<const char*>(actual.raw_data()) + i * element,
                    static_cast<const char*>(expected.raw_data()) + i * element, element) != 0) {
      return ::testing::AssertionFailure() << "element " << i << " is " << actual.item(i) << ", the CPU gives "
                                           << expected.item(i);
    }
  }
  return ::testing::AssertionSuccess();
}

struct PlanCase {
  std::string op;
  std::string label;
  std::vector<Shape> shapes;  // the inputs'
  Attrs attrs;
  bool every_dtype;  // crop and concat move labels too; the rest take float32 only
};

Attrs box(Dims before, Dims after) { return Attrs{{"before", std::move(before)}, {"after", std::move(after)}}; }

std::vector<PlanCase> plan_cases() {
  const auto perm = [](Dims p) { return Attrs{{"perm", std::move(p)}}; };
  const auto axis = [](std::int64_t a) { return Attrs{{"axis", a}}; };
  return {
      {"broadcast_like", "bias row", {{10}, {32, 10}}, {}, false},
      {"broadcast_like", "kept row", {{1, 10}, {32, 10}}, {}, false},
      {"broadcast_like", "column", {{3, 1}, {3, 5}}, {}, false},
      {"broadcast_like", "scalar", {{}, {4, 5}}, {}, false},
      {"broadcast_like", "middle dim", {{4, 1, 6}, {4, 5, 6}}, {}, false},
      {"broadcast_like", "3-D from 2-D", {{3, 1}, {2, 3, 4}}, {}, false},
      {"broadcast_like", "nothing to broadcast", {{4, 5}, {4, 5}}, {}, false},
      {"broadcast_like", "no rows", {{5}, {0, 5}}, {}, false},
      {"transpose", "matrix", {{37, 19}}, perm({1, 0}), false},
      {"transpose", "heads first", {{2, 5, 4, 8}}, perm({0, 2, 1, 3}), false},
      {"transpose", "NHWC to NCHW", {{2, 6, 7, 3}}, perm({0, 3, 1, 2}), false},
      {"transpose", "a dim of 1 between", {{4, 1, 6}}, perm({2, 1, 0}), false},
      {"transpose", "identity", {{3, 4, 5}}, perm({0, 1, 2}), false},
      {"transpose", "rows of pairs swapped", {{6, 2, 3}}, perm({0, 2, 1}), false},
      {"transpose", "8 dims reversed", {{2, 2, 2, 2, 2, 2, 2, 3}}, perm({7, 6, 5, 4, 3, 2, 1, 0}), false},
      {"transpose", "9 dims, the last two kept in order", {{2, 2, 2, 2, 2, 2, 2, 3, 5}},
       perm({6, 5, 4, 3, 2, 1, 0, 7, 8}), false},
      {"transpose", "scalar", {{}}, perm({}), false},
      {"transpose", "no rows", {{0, 3}}, perm({1, 0}), false},
      {"pad", "rows only", {{10, 7}}, box({2, 0}, {3, 0}), false},
      {"pad", "every axis", {{9, 8}}, box({1, 2}, {3, 1}), false},
      {"pad", "an image's height and width", {{2, 9, 10, 3}}, box({0, 1, 2, 0}, {0, 2, 1, 0}), false},
      {"pad", "nothing", {{5, 6}}, box({0, 0}, {0, 0}), false},
      {"pad", "scalar", {{}}, box({}, {}), false},
      {"pad", "an empty input: zeros only", {{0, 5}}, box({1, 0}, {2, 1}), false},
      {"crop", "rows only", {{10, 7}}, box({2, 0}, {3, 0}), true},
      {"crop", "every axis", {{9, 8}}, box({1, 2}, {3, 1}), true},
      {"crop", "an image's height and width", {{2, 9, 10, 3}}, box({0, 1, 2, 0}, {0, 2, 1, 0}), true},
      {"crop", "nothing", {{5, 6}}, box({0, 0}, {0, 0}), true},
      {"crop", "scalar", {{}}, box({}, {}), true},
      {"crop", "everything", {{4, 5}}, box({2, 0}, {2, 0}), true},
      {"concat", "rows", {{3, 5}, {4, 5}}, axis(0), true},
      {"concat", "last axis, three inputs", {{6, 2}, {6, 3}, {6, 1}}, axis(1), true},
      {"concat", "middle axis", {{2, 3, 4}, {2, 5, 4}}, axis(-2), true},
      {"concat", "an input with nothing along the axis", {{4, 0}, {4, 3}, {4, 2}}, axis(1), true},
      {"concat", "one input", {{7, 3}}, axis(0), true},
  };
}

std::vector<DType> dtypes_of(const PlanCase& c) {
  if (!c.every_dtype) return {DType::float32};
  return {DType::float32, DType::int32, DType::int64};
}

}  // namespace

TEST(CudaArrayPlan, WalkedOnTheHostThePlansGiveTheCpuKernelsOutputs) {
  std::uint64_t seed = 1;
  for (const PlanCase& c : plan_cases()) {
    for (DType dtype : dtypes_of(c)) {
      std::vector<Tensor> inputs;
      for (const Shape& s : c.shapes) inputs.push_back(numbers(s, dtype, seed++));
      const Node node = node_for(c.op, inputs, c.attrs);
      EXPECT_TRUE(same_bytes(through_plans(node, inputs), on_cpu(node, inputs)))
          << c.op << " (" << c.label << "), " << to_string(dtype);
    }
  }
}

// Dims that continue each other in both tensors merge, so the common copies are plain
// ones or walk few dims.
TEST(CudaArrayPlan, ContiguousDimsMergeIntoPlainCopiesOrFewDims) {
  const Node node = node_for("crop", {Tensor(Shape{10, 7})}, box({2, 0}, {3, 0}));
  const cuda::CopyPlan rows = cuda::plan_crop(node, {10, 7}, {5, 7}, {2, 0});
  EXPECT_TRUE(rows.contiguous());
  EXPECT_EQ(rows.in_offset(), 14);
  EXPECT_EQ(rows.count(), 35);
  EXPECT_TRUE(cuda::plan_concat_input(node, {4, 5}, {7, 5}, 0, 3).contiguous());
  EXPECT_TRUE(cuda::plan_transpose(node, {3, 4, 5}, {3, 4, 5}, {0, 1, 2}).contiguous());
  EXPECT_TRUE(cuda::plan_broadcast(node, {7}, {1, 7}).contiguous());
  EXPECT_EQ(cuda::plan_broadcast(node, {10}, {32, 10}).rank(), 2);       // rows of a bias
  EXPECT_EQ(cuda::plan_broadcast(node, {}, {4, 5, 6}).rank(), 1);         // one value everywhere
  EXPECT_EQ(cuda::plan_pad(node, {2, 9, 10, 3}, {2, 12, 13, 3}, {0, 1, 2, 0}).rank(), 3);  // the channels merge
  EXPECT_EQ(cuda::plan_transpose(node, {2, 5, 4, 8}, {2, 4, 5, 8}, {0, 2, 1, 3}).rank(), 4);
  EXPECT_TRUE(cuda::plan_crop(node, {4, 5}, {0, 5}, {2, 0}).empty());
}

// A copy that still walks more than kMaxLaunchRank dims after merging is refused before
// anything is enqueued, naming the op, the node and the shape (the CPU kernel would run it).
TEST(CudaArrayPlan, MoreStridedDimsThanTheKernelWalksIsAClearError) {
  const Shape nine_dims{2, 2, 2, 2, 2, 2, 2, 2, 3};
  const Attrs attrs{{"perm", Dims{8, 7, 6, 5, 4, 3, 2, 1, 0}}};
  const Node node = node_for("transpose", {Tensor(nine_dims)}, attrs);
  const std::string msg = strata::testing::message_of(
      [&] { (void)cuda::plan_transpose(node, nine_dims, node.outputs[0].shape, attrs.get<Dims>("perm")); });
  EXPECT_NE(msg.find("op 'transpose' (node 'cuda_array_plan_test/transpose')"), std::string::npos) << msg;
  EXPECT_NE(msg.find(nine_dims.to_string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than 8 strided dims"), std::string::npos) << msg;
  EXPECT_THROW((void)cuda::plan_transpose(node, nine_dims, node.outputs[0].shape, attrs.get<Dims>("perm")), ShapeError);
}

}  // namespace cuda_array_plan_test
