// Host side of the variable-update CUDA kernels: the CPU kernels' checks and attributes,
// then one launch (core/cuda/update.cu).
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/update_kernels.h"

#include <string>

#include "core/cuda/check.h"
#include "core/cuda/run_context.h"
#include "core/cuda/update_launch.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

// Variables and slots are updated in place: the inputs of a stateful op are its state.
float* mutable_floats(KernelContext& ctx, int i) { return cuda::floats(const_cast<Tensor&>(ctx.input(i))); }
const float* floats(KernelContext& ctx, int i) { return cuda::floats(ctx.input(i)); }

void check_sizes(const KernelContext& ctx, int inputs) {
  for (int i = 1; i < inputs; ++i) {
    if (ctx.input(i).size() != ctx.input(0).size()) {
      throw ShapeError(ctx.node.name + ": input " + std::to_string(i) + " of shape " +
                       ctx.input(i).shape().to_string() + " does not match variable of shape " +
                       ctx.input(0).shape().to_string());
    }
  }
}

void check_float32(const KernelContext& ctx, int inputs) {
  for (int i = 0; i < inputs; ++i) {
    if (ctx.input(i).dtype() != DType::float32) {
      throw ValueError(ctx.node.name + ": input " + std::to_string(i) + " must be float32, got " +
                       to_string(ctx.input(i).dtype()));
    }
  }
}

void assign_or_add(KernelContext& ctx, bool add) {
  CUstream_st* stream = run_context(ctx).stream().get();
  Tensor& var = const_cast<Tensor&>(ctx.input(0));
  const Tensor& value = ctx.input(1);
  if (var.dtype() != value.dtype()) throw ValueError("variable update: dtype mismatch");
  const ElementType type = element_type(var.dtype(), ctx.node.name);
  const bool scalar = value.size() == 1;
  if (!scalar && value.size() != var.size()) {
    throw ShapeError(ctx.node.name + ": value of shape " + value.shape().to_string() +
                     " does not match variable of shape " + var.shape().to_string());
  }
  launch_assign(type, var.device_data(), value.device_data(), scalar, add, var.size(), stream);
  check_launch(ctx);
}

}  // namespace

void assign(KernelContext& ctx) { assign_or_add(ctx, false); }
void assign_add(KernelContext& ctx) { assign_or_add(ctx, true); }

void apply_sgd(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Attrs& a = ctx.node.attrs;
  const bool has_m = a.get<double>("momentum") != 0.0;
  const int gi = has_m ? 2 : 1;
  check_sizes(ctx, gi + 1);
  check_float32(ctx, gi + 2);
  const SgdStep step{static_cast<float>(a.get<double>("momentum")), a.get<bool>("nesterov")};
  launch_apply_sgd(mutable_floats(ctx, 0), has_m ? mutable_floats(ctx, 1) : nullptr, floats(ctx, gi),
                   floats(ctx, gi + 1), ctx.input(0).size(), step, stream);
  check_launch(ctx);
}

void apply_adam(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Attrs& a = ctx.node.attrs;
  const bool amsgrad = a.get<bool>("amsgrad");
  const int gi = amsgrad ? 4 : 3;
  check_sizes(ctx, gi + 1);
  check_float32(ctx, gi + 2);
  const Tensor& iterations = ctx.input(gi + 2);
  if (iterations.dtype() != DType::int64 && iterations.dtype() != DType::int32) {
    throw ValueError(ctx.node.name + ": iterations must be an integer scalar");
  }
  const double beta_1 = a.get<double>("beta_1"), beta_2 = a.get<double>("beta_2");
  const AdamStep step{static_cast<float>(beta_1), static_cast<float>(beta_2), static_cast<float>(1.0 - beta_1),
                      static_cast<float>(1.0 - beta_2), static_cast<float>(a.get<double>("epsilon")),
                      iterations.dtype() == DType::int64};
  launch_apply_adam(mutable_floats(ctx, 0), mutable_floats(ctx, 1), mutable_floats(ctx, 2),
                    amsgrad ? mutable_floats(ctx, 3) : nullptr, floats(ctx, gi), floats(ctx, gi + 1),
                    iterations.device_data(), ctx.input(0).size(), step, stream);
  check_launch(ctx);
}

void apply_rmsprop(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Attrs& a = ctx.node.attrs;
  const double momentum = a.get<double>("momentum");
  const bool has_mom = momentum > 0.0, centered = a.get<bool>("centered");
  const int gi = 2 + (has_mom ? 1 : 0) + (centered ? 1 : 0);
  check_sizes(ctx, gi + 1);
  check_float32(ctx, gi + 2);
  const double rho = a.get<double>("rho");
  const RmspropStep step{static_cast<float>(rho), static_cast<float>(1.0 - rho), static_cast<float>(momentum),
                         static_cast<float>(a.get<double>("epsilon"))};
  launch_apply_rmsprop(mutable_floats(ctx, 0), mutable_floats(ctx, 1), has_mom ? mutable_floats(ctx, 2) : nullptr,
                       centered ? mutable_floats(ctx, has_mom ? 3 : 2) : nullptr, floats(ctx, gi), floats(ctx, gi + 1),
                       ctx.input(0).size(), step, stream);
  check_launch(ctx);
}

void apply_adagrad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  check_sizes(ctx, 3);
  check_float32(ctx, 4);
  launch_apply_adagrad(mutable_floats(ctx, 0), mutable_floats(ctx, 1), floats(ctx, 2), floats(ctx, 3),
                       ctx.input(0).size(), static_cast<float>(ctx.node.attrs.get<double>("epsilon")), stream);
  check_launch(ctx);
}

void register_update_kernels(OpRegistry& r) {
  add_kernel(r, "assign", assign);
  add_kernel(r, "assign_add", assign_add);
  add_kernel(r, "apply_sgd", apply_sgd);
  add_kernel(r, "apply_adam", apply_adam);
  add_kernel(r, "apply_rmsprop", apply_rmsprop);
  add_kernel(r, "apply_adagrad", apply_adagrad);
}

}  // namespace strata::cuda
