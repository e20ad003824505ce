// The string dtype's element and the pool its bytes live in.
//
// A string tensor (DType::string) holds StringValues: 16-byte, trivially copyable
// handles (pointer + length) into one process-wide intern pool. Because the element is
// plain bytes, every path that copies tensor bytes (slice_rows, gather_rows, concat,
// crop, clone, batching, the executor's buffers) works on strings unchanged, and a
// zero-initialized element is the empty string.
//
// The pool is append-only and deduplicating: interning a value already seen returns the
// same handle, so two StringValues are equal exactly when their handles are, and a
// handle stays valid for the life of the process. The cost: every distinct string value
// a process ever interns (data fed, vocabularies, CSV cells) stays in memory until it
// exits (string_pool_bytes() reports how much). It is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/dtype.h"

namespace strata {

struct StringValue {
  const char* data = nullptr;
  std::uint64_t size = 0;

  std::string_view view() const { return {data, static_cast<std::size_t>(size)}; }
  std::string str() const { return std::string(view()); }
  // Interned values are deduplicated, so equal handles mean equal strings and back.
  friend bool operator==(StringValue a, StringValue b) { return a.data == b.data && a.size == b.size; }
};

static_assert(sizeof(StringValue) == 16, "a string element is 16 bytes");
static_assert(std::is_trivially_copyable_v<StringValue>, "string elements are copied as bytes");

// The pooled handle for `value` (the all-zero handle for the empty string).
StringValue intern_string(std::string_view value);

// Bytes held by the pool's strings (not counting its index), and how many distinct
// values it holds.
std::size_t string_pool_bytes();
std::size_t string_pool_size();

}  // namespace strata
