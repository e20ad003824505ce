// Launchers of the variable-update CUDA kernels (core/cuda/update.cu): assign, assign_add
// and the fused optimizer steps, called by core/cuda/update_kernels.cc. Plain pointers and
// sizes only. The learning rate and the step count are read on the device, where the
// optimizer's variables live, so a step needs no copy from the host. Each enqueues on
// `stream` and returns at once; n == 0 launches nothing.
#pragma once

#include <cstdint>

#include "core/cuda/element_type.h"

struct CUstream_st;

namespace strata::cuda {

// var[i] = value[i] (or value[0] when value_is_scalar), or var[i] += ... when add.
void launch_assign(ElementType type, void* var, const void* value, bool value_is_scalar, bool add, std::int64_t n,
                   CUstream_st* stream);

struct SgdStep {
  float momentum = 0.f;
  bool nesterov = false;
};
// m is null without momentum.
void launch_apply_sgd(float* w, float* m, const float* grad, const float* lr, std::int64_t n, SgdStep step,
                      CUstream_st* stream);

// The CPU kernel's constants, rounded to float as it rounds them (1 - beta in double).
struct AdamStep {
  float beta_1 = 0.9f, beta_2 = 0.999f, one_minus_beta_1 = 0.1f, one_minus_beta_2 = 0.001f, epsilon = 1e-7f;
  bool iterations_are_int64 = true;  // else int32
};
// vhat is null without amsgrad; `iterations` is the step count before this step.
void launch_apply_adam(float* w, float* m, float* v, float* vhat, const float* grad, const float* lr,
                       const void* iterations, std::int64_t n, AdamStep step, CUstream_st* stream);

struct RmspropStep {
  float rho = 0.9f, one_minus_rho = 0.1f, momentum = 0.f, epsilon = 1e-7f;
};
// mom is null without momentum, avg without centered.
void launch_apply_rmsprop(float* w, float* velocity, float* mom, float* avg, const float* grad, const float* lr,
                          std::int64_t n, RmspropStep step, CUstream_st* stream);

void launch_apply_adagrad(float* w, float* accumulator, const float* grad, const float* lr, std::int64_t n,
                          float epsilon, CUstream_st* stream);

}  // namespace strata::cuda
