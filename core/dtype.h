// Element types. float32 is the compute type; int32/int64 carry labels and indices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strata {

enum class DType { float32, int32, int64 };

std::size_t size_of(DType dtype);
std::string to_string(DType dtype);
// Parses Keras's dtype strings ("float32", "int32", "int64"); throws ValueError otherwise.
DType parse_dtype(const std::string& name);

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() { return DType::float32; }
template <>
constexpr DType dtype_of<std::int32_t>() { return DType::int32; }
template <>
constexpr DType dtype_of<std::int64_t>() { return DType::int64; }

}  // namespace strata
