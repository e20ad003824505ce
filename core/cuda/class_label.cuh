// The class a label names, on the device (included by core/cuda/*.cu only): the rule of
// the CPU kernels of pick, unpick and one_hot. A label names class c when it is a whole
// number c in [0, classes); float labels must be whole numbers (2.0, not 2.5).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace strata::cuda {

// The class `label` names, or -1 when it names none.
__device__ inline std::int64_t class_of(float label, std::int64_t classes) {
  if (!(label >= 0.f) || label != floorf(label) || static_cast<double>(label) >= static_cast<double>(classes)) {
    return -1;
  }
  return static_cast<std::int64_t>(label);
}
__device__ inline std::int64_t class_of(std::int32_t label, std::int64_t classes) {
  return label >= 0 && label < classes ? label : -1;
}
__device__ inline std::int64_t class_of(std::int64_t label, std::int64_t classes) {
  return label >= 0 && label < classes ? label : -1;
}

}  // namespace strata::cuda
