// CPU kernels of the source ops (core/ops/sources.cc): placeholder and variable (fed, never
// computed), scalar constant, fill_like, and the identity-like ops and cast.
#include <algorithm>
#include <cstdint>

#include "core/cpu/kernels/copy_input.h"
#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

namespace {

void fed_kernel(KernelContext& ctx) {
  throw Error("node '" + ctx.node.name + "' (" + ctx.node.op + ") must be fed, not computed");
}

template <typename From, typename To>
void cast_values(const Tensor& in, Tensor& out) {
  const From* src = in.data<From>();
  To* dst = out.data<To>();
  for (std::int64_t i = 0; i < in.size(); ++i) dst[i] = static_cast<To>(src[i]);
}

template <typename From>
void cast_from(const Tensor& in, Tensor& out) {
  switch (out.dtype()) {
    case DType::float32: cast_values<From, float>(in, out); break;
    case DType::int32: cast_values<From, std::int32_t>(in, out); break;
    case DType::int64: cast_values<From, std::int64_t>(in, out); break;
    case DType::string: throw ValueError("cast: numbers do not cast to strings");  // refused by inference
  }
}

void constant_kernel(KernelContext& ctx) {
  *ctx.output(0).data<float>() = static_cast<float>(ctx.node.attrs.get<double>("value"));
}

void fill_like_kernel(KernelContext& ctx) {
  float v = static_cast<float>(ctx.node.attrs.get<double>("value"));
  std::fill_n(ctx.output(0).data<float>(), ctx.output(0).size(), v);
}

void cast_kernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  switch (in.dtype()) {
    case DType::float32: cast_from<float>(in, ctx.output(0)); break;
    case DType::int32: cast_from<std::int32_t>(in, ctx.output(0)); break;
    case DType::int64: cast_from<std::int64_t>(in, ctx.output(0)); break;
    case DType::string: throw ValueError("cast: strings do not cast to numbers");  // refused when defined
  }
}

}  // namespace

void register_source_kernels(OpRegistry& r) {
  r.add_kernel("placeholder", DeviceType::cpu, {.run = fed_kernel});
  r.add_kernel("variable", DeviceType::cpu, {.run = fed_kernel});
  r.add_kernel("constant", DeviceType::cpu, {.run = constant_kernel});
  r.add_kernel("fill_like", DeviceType::cpu, {.run = fill_like_kernel});
  r.add_kernel("identity", DeviceType::cpu, {.run = copy_input_kernel});
  r.add_kernel("stop_gradient", DeviceType::cpu, {.run = copy_input_kernel});
  r.add_kernel("cast", DeviceType::cpu, {.run = cast_kernel});
}

}  // namespace strata::cpu
