// Element types. float32 is the compute type; int32/int64 carry labels and indices, and
// the integer ops compute in them (core/ops/integer_ops.h: bitwise, shifts, gcd, lcm);
// string carries text for the preprocessing layers (StringLookup, Hashing). A string
// element is a StringValue (core/string_pool.h): a 16-byte handle into the process-wide
// intern pool, so string tensors copy, slice and batch like any other dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strata {

enum class DType { float32, int32, int64, string };

struct StringValue;  // core/string_pool.h

std::size_t size_of(DType dtype);
std::string to_string(DType dtype);
// Parses Keras's dtype strings ("float32", "int32", "int64", "string"); throws ValueError
// otherwise.
DType parse_dtype(const std::string& name);

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() { return DType::float32; }
template <>
constexpr DType dtype_of<std::int32_t>() { return DType::int32; }
template <>
constexpr DType dtype_of<std::int64_t>() { return DType::int64; }
template <>
constexpr DType dtype_of<StringValue>() { return DType::string; }

// True for the dtypes arithmetic is defined on (every dtype but string).
constexpr bool is_numeric(DType dtype) { return dtype != DType::string; }

}  // namespace strata
