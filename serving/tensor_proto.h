// TensorFlow's TensorProto <-> Strata tensors, for strata-serve's gRPC API.
//
// Reading follows TensorFlow's Tensor::FromProto, which TensorFlow Serving's Predict uses:
// the values are the elements' bytes in tensor_content when it is not empty (little-endian,
// row-major; for DT_STRING, TensorFlow's string-list encoding: every element's length as a
// varint, then the bytes), else the field of the dtype (float_val for DT_FLOAT, int_val for
// DT_INT32, int64_val for DT_INT64, string_val for DT_STRING). A field with fewer values
// than the shape holds is filled up with its last value (one value for a whole tensor
// broadcasts), none gives zeros (empty strings), and values past the shape's count are
// ignored, all as TensorFlow does. tensor_content of the wrong size, a negative dimension
// or an unknown dtype is TensorFlow Serving's INVALID_ARGUMENT "tensor parsing error:
// ALIAS". The dtype must then be the signature input's (as TensorFlow's "Expects arg[0] to
// be float but double is provided") and the shape must match it (batch dimension free);
// every error is a ServingError with code INVALID_ARGUMENT naming the input. Shapes are
// checked before anything is allocated, so a request cannot ask for more memory than the
// limits say (TensorProtoLimits).
//
// Writing follows TensorFlow's Tensor::AsProtoField, as TensorFlow Serving writes Predict
// outputs: dtype, shape, and the values in the dtype's *_val field.
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "serving/proto/tensorflow.pb.h"
#include "serving/signature.h"

namespace strata::serving {

// TensorFlow's DataType for a Strata dtype, and TensorFlow's short name for a DataType
// ("float", "double", "int32", "string", "half", ...; as its error messages print them).
tensorflow::DataType tf_data_type(DType dtype);
std::string tf_short_dtype_name(int data_type);

// What one decoded input may hold: a few values in a *_val field fill a shape of any size.
struct TensorProtoLimits {
  std::int64_t max_rows;  // --max_rows_per_request
  std::size_t max_bytes;  // --grpc_max_receive_message_bytes: what the request could carry in tensor_content
};

// `proto` as the value of input `info`, the signature's argument `index` (for messages).
// Past `limits` is INVALID_ARGUMENT, before anything is allocated.
Tensor tensor_from_proto(const tensorflow::TensorProto& proto, const TensorInfo& info, std::size_t index,
                         const TensorProtoLimits& limits);

void tensor_to_proto(const Tensor& tensor, tensorflow::TensorProto* proto);

// A signature's TensorInfo as a SignatureDef's TensorInfo (dtype, shape with -1 for the
// unknown batch dimension, and the graph tensor's name).
void tensor_info_to_proto(const TensorInfo& info, const std::string& tensor_name, tensorflow::TensorInfo* proto);

}  // namespace strata::serving
