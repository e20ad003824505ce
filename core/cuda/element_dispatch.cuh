// Calling a launch with a tensor's untyped device pointer cast to its element type
// (included by core/cuda/*.cu only): the launchers take labels and ids as
// (const void*, ElementType), and each kernel is a template on the element type.
#pragma once

#include <cstdint>
#include <utility>

#include "core/cuda/element_type.h"

namespace strata::cuda {

// launch(p) with `elements` as const float*, const std::int32_t* or const std::int64_t*.
template <typename Launch>
void with_elements(const void* elements, ElementType type, Launch&& launch) {
  switch (type) {
    case ElementType::float32: return std::forward<Launch>(launch)(static_cast<const float*>(elements));
    case ElementType::int32: return std::forward<Launch>(launch)(static_cast<const std::int32_t*>(elements));
    case ElementType::int64: return std::forward<Launch>(launch)(static_cast<const std::int64_t*>(elements));
  }
}

}  // namespace strata::cuda
