// The variable-update CUDA kernels: one grid-stride kernel each, every element updated by
// the CPU kernel's expressions in the CPU kernel's order (core/cpu/kernels/update.cc,
// core/cpu/kernels/optimizer_update.cc). The learning rate and the step count are read
// from device memory by every thread.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/update_launch.h"

namespace strata::cuda {

namespace {

template <typename T>
__global__ void assign_kernel(T* var, const T* value, bool value_is_scalar, bool add, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const T x = value[value_is_scalar ? 0 : i];
    var[i] = add ? static_cast<T>(var[i] + x) : x;
  }
}

__global__ void sgd_kernel(float* w, float* m, const float* grad, const float* lr_in, std::int64_t n, SgdStep s) {
  const float lr = *lr_in;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float g = grad[i];
    if (!m) {
      w[i] -= g * lr;
    } else if (s.nesterov) {
      m[i] = m[i] * s.momentum - g * lr;
      w[i] += m[i] * s.momentum - g * lr;
    } else {
      m[i] = m[i] * s.momentum - g * lr;
      w[i] += m[i];
    }
  }
}

__global__ void adam_kernel(float* w, float* m, float* v, float* vhat, const float* grad, const float* lr_in,
                            const void* iterations, std::int64_t n, AdamStep s) {
  const std::int64_t count = s.iterations_are_int64 ? *static_cast<const std::int64_t*>(iterations)
                                                    : *static_cast<const std::int32_t*>(iterations);
  const float t = static_cast<float>(count + 1);
  const float b1_power = powf(s.beta_1, t), b2_power = powf(s.beta_2, t);
  const float alpha = *lr_in * sqrtf(1.f - b2_power) / (1.f - b1_power);
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float g = grad[i];
    m[i] += (g - m[i]) * s.one_minus_beta_1;
    v[i] += (g * g - v[i]) * s.one_minus_beta_2;
    float denom_v = v[i];
    if (vhat) {
      vhat[i] = fmaxf(vhat[i], v[i]);
      denom_v = vhat[i];
    }
    w[i] -= (m[i] * alpha) / (sqrtf(denom_v) + s.epsilon);
  }
}

__global__ void rmsprop_kernel(float* w, float* vel, float* mom, float* avg, const float* grad, const float* lr_in,
                               std::int64_t n, RmspropStep s) {
  const float lr = *lr_in;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float g = grad[i];
    vel[i] = s.rho * vel[i] + s.one_minus_rho * (g * g);
    float denom;
    if (avg) {
      avg[i] = s.rho * avg[i] + s.one_minus_rho * g;
      denom = vel[i] - avg[i] * avg[i] + s.epsilon;
    } else {
      denom = vel[i] + s.epsilon;
    }
    const float inc = (lr * g) / sqrtf(denom);
    if (mom) {
      mom[i] = s.momentum * mom[i] + inc;
      w[i] -= mom[i];
    } else {
      w[i] -= inc;
    }
  }
}

__global__ void adagrad_kernel(float* w, float* acc, const float* grad, const float* lr_in, std::int64_t n,
                               float epsilon) {
  const float lr = *lr_in;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float g = grad[i];
    acc[i] += g * g;
    w[i] -= (lr * g) / sqrtf(acc[i] + epsilon);
  }
}

}  // namespace

void launch_assign(ElementType type, void* var, const void* value, bool value_is_scalar, bool add, std::int64_t n,
                   CUstream_st* stream) {
  if (n == 0) return;
  switch (type) {
    case ElementType::float32:
      assign_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(var), static_cast<const float*>(value),
                                                            value_is_scalar, add, n);
      break;
    case ElementType::int32:
      assign_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<std::int32_t*>(var),
                                                            static_cast<const std::int32_t*>(value), value_is_scalar,
                                                            add, n);
      break;
    case ElementType::int64:
      assign_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<std::int64_t*>(var),
                                                            static_cast<const std::int64_t*>(value), value_is_scalar,
                                                            add, n);
      break;
  }
}

void launch_apply_sgd(float* w, float* m, const float* grad, const float* lr, std::int64_t n, SgdStep step,
                      CUstream_st* stream) {
  if (n == 0) return;
  sgd_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, m, grad, lr, n, step);
}

void launch_apply_adam(float* w, float* m, float* v, float* vhat, const float* grad, const float* lr,
                       const void* iterations, std::int64_t n, AdamStep step, CUstream_st* stream) {
  if (n == 0) return;
  adam_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, m, v, vhat, grad, lr, iterations, n, step);
}

void launch_apply_rmsprop(float* w, float* velocity, float* mom, float* avg, const float* grad, const float* lr,
                          std::int64_t n, RmspropStep step, CUstream_st* stream) {
  if (n == 0) return;
  rmsprop_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, velocity, mom, avg, grad, lr, n, step);
}

void launch_apply_adagrad(float* w, float* accumulator, const float* grad, const float* lr, std::int64_t n,
                          float epsilon, CUstream_st* stream) {
  if (n == 0) return;
  adagrad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(w, accumulator, grad, lr, n, epsilon);
}

}  // namespace strata::cuda
