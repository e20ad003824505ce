#include "core/dtype.h"

#include "core/error.h"

namespace strata {

std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::float32: return 4;
    case DType::int32: return 4;
    case DType::int64: return 8;
    case DType::string: return 16;  // a StringValue handle (core/string_pool.h)
  }
  return 0;
}

std::string to_string(DType dtype) {
  switch (dtype) {
    case DType::float32: return "float32";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::string: return "string";
  }
  return "unknown";
}

DType parse_dtype(const std::string& name) {
  if (name == "float32") return DType::float32;
  if (name == "int32") return DType::int32;
  if (name == "int64") return DType::int64;
  if (name == "string") return DType::string;
  throw ValueError("unsupported dtype '" + name + "': expected float32, int32, int64 or string");
}

}  // namespace strata
