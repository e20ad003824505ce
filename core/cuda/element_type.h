// The numeric element types the CUDA launchers take (core/cuda/*_launch.h): plain, so that
// nvcc sees no engine header. Host code maps a tensor's DType with element_type().
#pragma once

#ifndef __CUDACC__
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#endif

namespace strata::cuda {

enum class ElementType { float32, int32, int64 };

#ifndef __CUDACC__
// Strings live on the host only: a CUDA kernel never sees one (`what` names the op).
inline ElementType element_type(DType dtype, const std::string& what) {
  switch (dtype) {
    case DType::float32: return ElementType::float32;
    case DType::int32: return ElementType::int32;
    case DType::int64: return ElementType::int64;
    case DType::string: break;
  }
  throw ValueError(what + ": string tensors stay on the CPU");
}
#endif

}  // namespace strata::cuda
