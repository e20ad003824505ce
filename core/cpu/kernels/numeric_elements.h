// Reading the elements of the numeric tensors the CPU kernels take as data (float32, int32,
// int64): an element as a whole number (indices, lengths, labels), and a call with the C++
// type of a tensor's elements, for kernels written once as templates.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/tensor.h"

namespace strata::cpu {

// Element i of an int32, int64 or float32 tensor holding whole numbers; a float that is not
// one (or beyond 1e9) is a ValueError naming `where` and `what`.
inline std::int64_t whole_number(const Tensor& t, std::int64_t i, const std::string& where, const char* what) {
  switch (t.dtype()) {
    case DType::int32: return t.data<std::int32_t>()[i];
    case DType::int64: return t.data<std::int64_t>()[i];
    default: {
      const float v = t.data<float>()[i];
      if (!(std::floor(v) == v) || std::fabs(v) > 1e9f)
        throw ValueError(where + ": " + what + " must hold whole numbers, got " + std::to_string(v));
      return static_cast<std::int64_t>(v);
    }
  }
}

// f(T{}) with T the element type of a float32, int32 or int64 tensor (its shape inference
// has ruled out the others).
template <typename F>
decltype(auto) with_numeric_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::int32: return f(std::int32_t{});
    case DType::int64: return f(std::int64_t{});
    default: return f(float{});
  }
}

}  // namespace strata::cpu
