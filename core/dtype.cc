#include "core/dtype.h"

#include "core/error.h"

namespace strata {

std::size_t size_of(DType dtype) {
  switch (dtype) {
    case DType::float32: return 4;
    case DType::int32: return 4;
    case DType::int64: return 8;
  }
  return 0;
}

std::string to_string(DType dtype) {
  switch (dtype) {
    case DType::float32: return "float32";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
  }
  return "unknown";
}

DType parse_dtype(const std::string& name) {
  if (name == "float32") return DType::float32;
  if (name == "int32") return DType::int32;
  if (name == "int64") return DType::int64;
  throw ValueError("unsupported dtype '" + name + "': expected float32, int32 or int64");
}

}  // namespace strata
