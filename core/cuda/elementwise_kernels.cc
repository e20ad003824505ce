// Host side of the elementwise CUDA kernels: reads shapes off the KernelContext, picks
// the launch (core/cuda/elementwise.cu; the integer ops' core/cuda/integer.cu) and checks it.
#include "core/cuda/elementwise_kernels.h"

#include <cuda_runtime_api.h>

#include <string>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/elementwise_launch.h"
#include "core/cuda/integer_launch.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cuda {

static_assert(kMaxLaunchRank >= ops::kMaxRank, "a launch index must hold every rank a Shape may have");

namespace {

BroadcastIndex broadcast_index(const Shape& a, const Shape& b, const Shape& out) {
  const ops::Strides sa = ops::broadcast_strides(a, out);
  const ops::Strides sb = ops::broadcast_strides(b, out);
  BroadcastIndex index;
  index.rank = out.rank();
  for (int d = 0; d < out.rank(); ++d) {
    index.dims[d] = out.dims()[static_cast<std::size_t>(d)];
    index.a_strides[d] = sa[static_cast<std::size_t>(d)];
    index.b_strides[d] = sb[static_cast<std::size_t>(d)];
  }
  return index;
}

}  // namespace

void binary(KernelContext& ctx, BinaryOp op) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const std::int64_t n = out.size();
  if (n == 0) return;
  // An operand with as many elements as the output has its layout: broadcasting only
  // repeats elements. One with a single element is read at index 0.
  const bool a_flat = a.size() == n || a.size() == 1, b_flat = b.size() == n || b.size() == 1;
  if (a_flat && b_flat) {
    launch_binary(op, floats(a), a.size() == n, floats(b), b.size() == n, floats(out), n, stream);
  } else {
    const BroadcastIndex index = broadcast_index(a.shape(), b.shape(), out.shape());
    launch_binary_broadcast(op, floats(a), floats(b), floats(out), n, index, stream);
  }
  check_launch(ctx);
}

void unary(KernelContext& ctx, UnaryOp op) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const std::int64_t n = ctx.output(0).size();
  if (n == 0) return;
  launch_unary(op, floats(ctx.input(0)), floats(ctx.output(0)), n, stream);
  check_launch(ctx);
}

void select(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const std::int64_t n = ctx.output(0).size();
  if (n == 0) return;
  launch_select(floats(ctx.input(0)), floats(ctx.input(1)), floats(ctx.input(2)), floats(ctx.output(0)), n, stream);
  check_launch(ctx);
}

// --- the integer ops (core/ops/integer_ops.h): int32 or int64, core/cuda/integer.cu ------
namespace {

using integer_math::IntegerOp;

void integer_binary(KernelContext& ctx, IntegerOp op) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const std::int64_t n = out.size();
  if (n == 0) return;
  const ElementType type = element_type(out.dtype(), ctx.node.name);
  // As the elementwise kernels: an operand of the output's size has its layout, one of a
  // single element is read at index 0; anything else goes through the strided index.
  const bool a_flat = a.size() == n || a.size() == 1, b_flat = b.size() == n || b.size() == 1;
  if (a_flat && b_flat) {
    launch_integer_binary(op, type, a.device_data(), a.size() == n, b.device_data(), b.size() == n, out.device_data(),
                          n, stream);
  } else {
    launch_integer_binary_broadcast(op, type, a.device_data(), b.device_data(), out.device_data(), n,
                                    broadcast_index(a.shape(), b.shape(), out.shape()), stream);
  }
  check_launch(ctx);
}

void bitwise_not(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const std::int64_t n = ctx.output(0).size();
  if (n == 0) return;
  launch_bitwise_not(element_type(ctx.output(0).dtype(), ctx.node.name), ctx.input(0).device_data(),
                     ctx.output(0).device_data(), n, stream);
  check_launch(ctx);
}

// The same bytes, relabelled (checked anyway: a wrong size would write past a device buffer).
void bitcast(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (in.nbytes() != out.nbytes())
    throw ShapeError("CUDA kernel of op 'bitcast' (node '" + ctx.node.name + "'): " + std::to_string(in.nbytes()) +
                     " bytes in, " + std::to_string(out.nbytes()) + " out");
  if (in.nbytes() == 0) return;
  check(cudaMemcpyAsync(out.device_data(), in.device_data(), in.nbytes(), cudaMemcpyDeviceToDevice, stream), ctx,
        "cudaMemcpyAsync");
}

void register_integer_kernels_into(OpRegistry& r) {
  const std::pair<const char*, IntegerOp> binary_ops[] = {
      {"bitwise_and", IntegerOp::bitwise_and}, {"bitwise_or", IntegerOp::bitwise_or},
      {"bitwise_xor", IntegerOp::bitwise_xor}, {"left_shift", IntegerOp::left_shift},
      {"right_shift", IntegerOp::right_shift}, {"gcd", IntegerOp::gcd},
      {"lcm", IntegerOp::lcm}};
  for (const auto& entry : binary_ops) {
    const IntegerOp op = entry.second;  // a copy to capture (clang before 16 cannot capture a binding)
    add_kernel(r, entry.first, [op](KernelContext& c) { integer_binary(c, op); });
  }
  add_kernel(r, "bitwise_not", bitwise_not);
  add_kernel(r, "bitcast", bitcast);
}

}  // namespace

void register_elementwise_kernels(OpRegistry& r) {
  add_kernel(r, "select", select);
  const std::pair<const char*, BinaryOp> binary_ops[] = {
      {"add", BinaryOp::add},         {"sub", BinaryOp::sub},
      {"mul", BinaryOp::mul},         {"div", BinaryOp::div},
      {"maximum", BinaryOp::maximum}, {"minimum", BinaryOp::minimum},
      {"equal", BinaryOp::equal},     {"not_equal", BinaryOp::not_equal},
      {"greater", BinaryOp::greater}, {"greater_equal", BinaryOp::greater_equal},
      {"less", BinaryOp::less},       {"less_equal", BinaryOp::less_equal},
      {"relu_grad", BinaryOp::relu_grad}};
  for (const auto& entry : binary_ops) {
    const BinaryOp op = entry.second;  // a copy to capture (clang before 16 cannot capture a binding)
    add_kernel(r, entry.first, [op](KernelContext& c) { binary(c, op); });
  }
  const std::pair<const char*, UnaryOp> unary_ops[] = {
      {"neg", UnaryOp::neg},         {"exp", UnaryOp::exp},   {"log", UnaryOp::log},
      {"sqrt", UnaryOp::sqrt},       {"square", UnaryOp::square}, {"abs", UnaryOp::abs},
      {"sign", UnaryOp::sign},       {"tanh", UnaryOp::tanh}, {"sigmoid", UnaryOp::sigmoid},
      {"silu", UnaryOp::silu},       {"gelu", UnaryOp::gelu},       {"relu", UnaryOp::relu},   {"relu6", UnaryOp::relu6},
      {"erf", UnaryOp::erf},
      {"softplus", UnaryOp::softplus},
      {"sin", UnaryOp::sin},         {"cos", UnaryOp::cos},     {"tan", UnaryOp::tan},
      {"asin", UnaryOp::asin},       {"acos", UnaryOp::acos},   {"atan", UnaryOp::atan},
      {"sinh", UnaryOp::sinh},       {"cosh", UnaryOp::cosh},   {"asinh", UnaryOp::asinh},
      {"acosh", UnaryOp::acosh},     {"atanh", UnaryOp::atanh}, {"log1p", UnaryOp::log1p},
      {"expm1", UnaryOp::expm1},     {"floor", UnaryOp::floor}, {"ceil", UnaryOp::ceil},
      {"round", UnaryOp::round},     {"trunc", UnaryOp::trunc},
      {"round_to_bfloat16", UnaryOp::round_to_bfloat16}, {"round_to_float16", UnaryOp::round_to_float16},
      {"round_to_float8_e4m3fn", UnaryOp::round_to_float8_e4m3fn}};
  for (const auto& entry : unary_ops) {
    const UnaryOp op = entry.second;
    add_kernel(r, entry.first, [op](KernelContext& c) { unary(c, op); });
  }
  register_integer_kernels_into(r);
}

}  // namespace strata::cuda
