// A float32 tensor's device memory as floats, for the host side of CUDA kernels
// (core/cuda/*_kernels.cc), which hand raw pointers to the launchers.
#pragma once

#include "core/tensor.h"

namespace strata::cuda {

inline const float* floats(const Tensor& t) { return static_cast<const float*>(t.device_data()); }
inline float* floats(Tensor& t) { return static_cast<float*>(t.device_data()); }

}  // namespace strata::cuda
