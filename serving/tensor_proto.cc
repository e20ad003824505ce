#include "serving/tensor_proto.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "core/string_pool.h"
#include "serving/errors.h"

namespace strata::serving {

tensorflow::DataType tf_data_type(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return tensorflow::DT_FLOAT;
    case DType::int32:
      return tensorflow::DT_INT32;
    case DType::int64:
      return tensorflow::DT_INT64;
    case DType::string:
      return tensorflow::DT_STRING;
  }
  return tensorflow::DT_INVALID;
}

std::string tf_short_dtype_name(int data_type) {
  static const char* const kNames[] = {"<invalid>", "float", "double", "int32", "uint8", "int16", "int8", "string",
                                       "complex64", "int64", "bool", "qint8", "quint8", "qint32", "bfloat16",
                                       "qint16", "quint16", "uint16", "complex128", "half", "resource", "variant",
                                       "uint32", "uint64"};
  if (data_type >= 0 && data_type < static_cast<int>(std::size(kNames))) return kNames[data_type];
  return "unknown dtype " + std::to_string(data_type);
}

namespace {

// Bytes per element of the fixed-size dtypes a tensor_content may hold; 0 for DT_STRING
// (its own encoding) and for values that are no dtype (DT_INVALID, out of the enum).
std::size_t content_element_bytes(int data_type) {
  switch (data_type) {
    case tensorflow::DT_FLOAT: case tensorflow::DT_INT32: case tensorflow::DT_UINT32: case tensorflow::DT_QINT32:
      return 4;
    case tensorflow::DT_DOUBLE: case tensorflow::DT_INT64: case tensorflow::DT_UINT64: case tensorflow::DT_COMPLEX64:
      return 8;
    case tensorflow::DT_UINT8: case tensorflow::DT_INT8: case tensorflow::DT_BOOL: case tensorflow::DT_QINT8:
    case tensorflow::DT_QUINT8:
      return 1;
    case tensorflow::DT_INT16: case tensorflow::DT_UINT16: case tensorflow::DT_HALF: case tensorflow::DT_BFLOAT16:
    case tensorflow::DT_QINT16: case tensorflow::DT_QUINT16:
      return 2;
    case tensorflow::DT_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

// TensorFlow's string-list encoding of a DT_STRING tensor_content: n varint32 lengths,
// then the n strings' bytes back to back, nothing after. False when `content` is not that.
bool decode_string_list(std::string_view content, std::int64_t n, std::vector<std::string_view>& out) {
  std::vector<std::uint64_t> sizes;
  sizes.reserve(static_cast<std::size_t>(std::min<std::int64_t>(n, static_cast<std::int64_t>(content.size()))));
  std::size_t pos = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t size = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= content.size() || shift > 28) return false;
      const auto byte = static_cast<unsigned char>(content[pos++]);
      size |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
    }
    sizes.push_back(size);
  }
  for (std::uint64_t size : sizes) {
    if (size > content.size() - pos) return false;
    out.push_back(content.substr(pos, size));
    pos += size;
  }
  return pos == content.size();
}

// Copies `count` values of a repeated field into `dst` (n elements) by TensorFlow's rule:
// short fields repeat their last value, an empty one gives zeros, extra values are unread.
template <typename Dst, typename Field>
void fill_from_field(Dst* dst, std::int64_t n, const Field& field) {
  const auto count = static_cast<std::int64_t>(field.size());
  if (count == 0) return;  // the tensor is zero-initialized
  const std::int64_t copied = std::min(count, n);
  for (std::int64_t i = 0; i < copied; ++i) dst[i] = static_cast<Dst>(field.Get(static_cast<int>(i)));
  std::fill(dst + copied, dst + n, dst[copied - 1]);
}

std::string dims_string(const std::vector<std::int64_t>& dims) { return Shape(dims).to_string(); }

}  // namespace

Tensor tensor_from_proto(const tensorflow::TensorProto& proto, const TensorInfo& info, std::size_t index,
                         const TensorProtoLimits& limits) {
  const std::string parse_error = "tensor parsing error: " + info.name;
  // The shape, as TensorFlow's TensorShape::IsValid checks it.
  const auto& shape_proto = proto.tensor_shape();
  if (shape_proto.unknown_rank() && shape_proto.dim_size() > 0) {
    throw invalid_argument(parse_error + " (the shape has dimensions and unknown_rank set)");
  }
  std::vector<std::int64_t> dims;
  std::int64_t n = 1;
  for (const auto& d : shape_proto.dim()) {
    if (d.size() < 0) throw invalid_argument(parse_error + " (dimension " + std::to_string(d.size()) + " is negative)");
    if (d.size() > 0 && n > std::numeric_limits<std::int64_t>::max() / d.size()) {
      throw invalid_argument(parse_error + " (the shape has more than 2^63 elements)");
    }
    n *= d.size();
    dims.push_back(d.size());
  }
  const int data_type = proto.dtype();
  if (data_type == tensorflow::DT_INVALID || !tensorflow::DataType_IsValid(data_type)) {
    throw invalid_argument(parse_error + " (dtype " + tf_short_dtype_name(data_type) + ")");
  }
  const std::string& content = proto.tensor_content();
  if (n > 0 && !content.empty() && data_type != tensorflow::DT_STRING) {
    const std::size_t bytes = content_element_bytes(data_type);
    if (bytes == 0 || content.size() / bytes != static_cast<std::uint64_t>(n) || content.size() % bytes != 0) {
      throw invalid_argument(parse_error + " (tensor_content has " + std::to_string(content.size()) +
                             " bytes; shape " + dims_string(dims) + " of " + tf_short_dtype_name(data_type) +
                             " needs " + std::to_string(bytes) + " per element)");
    }
  }
  // What the signature takes.
  if (data_type != tf_data_type(info.dtype)) {
    throw invalid_argument("Expects arg[" + std::to_string(index) + "] to be " +
                           tf_short_dtype_name(tf_data_type(info.dtype)) + " but " + tf_short_dtype_name(data_type) +
                           " is provided (input '" + info.name + "')");
  }
  const auto& want = info.shape.dims();
  bool fits = dims.size() == want.size();
  for (std::size_t d = 0; fits && d < dims.size(); ++d) fits = want[d] == kUnknownDim || want[d] == dims[d];
  if (!fits) {
    throw invalid_argument("input '" + info.name + "' expects shape " + info.shape.to_string() + ", got " +
                           dims_string(dims) + " from the request");
  }
  if (dims.empty() || dims[0] == 0) throw invalid_argument("input '" + info.name + "' has no rows");
  if (dims[0] > limits.max_rows) throw too_many_rows(dims[0], limits.max_rows);
  if (static_cast<std::uint64_t>(n) > limits.max_bytes / size_of(info.dtype)) {
    throw invalid_argument("input '" + info.name + "' of shape " + dims_string(dims) + " would take more than " +
                           std::to_string(limits.max_bytes) +
                           " bytes, the most a request may carry (--grpc_max_receive_message_bytes)");
  }

  Tensor t{Shape(dims), info.dtype};  // zero-initialized
  if (info.dtype == DType::string) {
    auto* out = t.data<StringValue>();
    if (!content.empty()) {
      std::vector<std::string_view> values;
      if (!decode_string_list(content, n, values)) {
        throw invalid_argument(parse_error + " (tensor_content is not " + std::to_string(n) +
                               " strings in TensorFlow's string-list encoding)");
      }
      for (std::int64_t i = 0; i < n; ++i) out[i] = intern_string(values[static_cast<std::size_t>(i)]);
    } else if (proto.string_val_size() > 0) {
      const std::int64_t copied = std::min<std::int64_t>(proto.string_val_size(), n);
      for (std::int64_t i = 0; i < copied; ++i) out[i] = intern_string(proto.string_val(static_cast<int>(i)));
      std::fill(out + copied, out + n, out[copied - 1]);
    }
    return t;
  }
  if (!content.empty()) {
    std::memcpy(t.raw_data(), content.data(), content.size());  // x86-64 and aarch64 are little-endian
  } else if (info.dtype == DType::float32) {
    fill_from_field(t.data<float>(), n, proto.float_val());
  } else if (info.dtype == DType::int32) {
    fill_from_field(t.data<std::int32_t>(), n, proto.int_val());
  } else {
    fill_from_field(t.data<std::int64_t>(), n, proto.int64_val());
  }
  return t;
}

void tensor_to_proto(const Tensor& tensor, tensorflow::TensorProto* proto) {
  proto->set_dtype(tf_data_type(tensor.dtype()));
  auto* shape = proto->mutable_tensor_shape();
  for (std::int64_t d : tensor.shape().dims()) shape->add_dim()->set_size(d);
  const auto n = static_cast<int>(tensor.size());
  switch (tensor.dtype()) {
    case DType::float32:
      proto->mutable_float_val()->Add(tensor.data<float>(), tensor.data<float>() + n);
      break;
    case DType::int32:
      proto->mutable_int_val()->Add(tensor.data<std::int32_t>(), tensor.data<std::int32_t>() + n);
      break;
    case DType::int64: {
      const auto* p = tensor.data<std::int64_t>();
      auto* field = proto->mutable_int64_val();
      field->Reserve(n);
      for (int i = 0; i < n; ++i) field->Add(p[i]);  // int64_t and protobuf's int64 may be distinct types
      break;
    }
    case DType::string: {
      const auto* p = tensor.data<StringValue>();
      for (int i = 0; i < n; ++i) proto->add_string_val(p[i].data ? std::string(p[i].view()) : std::string());
      break;
    }
  }
}

void tensor_info_to_proto(const TensorInfo& info, const std::string& tensor_name, tensorflow::TensorInfo* proto) {
  proto->set_name(tensor_name);
  proto->set_dtype(tf_data_type(info.dtype));
  auto* shape = proto->mutable_tensor_shape();
  for (std::int64_t d : info.shape.dims()) shape->add_dim()->set_size(d);
}

}  // namespace strata::serving
