// CPU kernels of the variable updates (core/ops/update_ops.cc): assign and assign_add write
// their first input, the variable, in place.
#include <cstdint>

#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

template <typename T, typename F>
void update(Tensor& var, const Tensor& value, F f) {
  T* pv = var.data<T>();
  const T* px = value.data<T>();
  const bool scalar = value.size() == 1;
  for (std::int64_t i = 0; i < var.size(); ++i) pv[i] = f(pv[i], px[scalar ? 0 : i]);
}

template <typename F>
void update_any(Tensor& var, const Tensor& value, F f) {
  if (var.dtype() != value.dtype()) throw ValueError("variable update: dtype mismatch");
  switch (var.dtype()) {
    case DType::float32: update<float>(var, value, f); break;
    case DType::int32: update<std::int32_t>(var, value, f); break;
    case DType::int64: update<std::int64_t>(var, value, f); break;
    case DType::string: throw ValueError("variable update: string variables are not updated by ops");
  }
}

void assign_kernel(KernelContext& ctx) {
  update_any(const_cast<Tensor&>(ctx.input(0)), ctx.input(1), [](auto, auto x) { return x; });
}

void assign_add_kernel(KernelContext& ctx) {
  update_any(const_cast<Tensor&>(ctx.input(0)), ctx.input(1), [](auto v, auto x) { return v + x; });
}

}  // namespace

void register_update_kernels(OpRegistry& r) {
  r.add_kernel("assign", DeviceType::cpu, {.run = assign_kernel});
  r.add_kernel("assign_add", DeviceType::cpu, {.run = assign_add_kernel});
}

}  // namespace strata::cpu
