// Requests for the gRPC tests: the generated messages built from Keras's goldens, and raw
// bytes sent as a request.
#pragma once

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "serving/proto/tensorflow_serving.grpc.pb.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::testing {

inline tensorflow::serving::PredictRequest request_for(const std::string& model = "m") {
  tensorflow::serving::PredictRequest request;
  request.mutable_model_spec()->set_name(model);
  return request;
}

inline void set_shape(tensorflow::TensorProto* proto, const Shape& shape) {
  for (std::int64_t d : shape.dims()) proto->mutable_tensor_shape()->add_dim()->set_size(d);
}

// A float tensor as a TensorProto, in tensor_content (as tf.make_tensor_proto writes
// NumPy arrays) or float_val (as clients that fill the fields write it).
inline tensorflow::TensorProto float_proto(const Tensor& t, bool content) {
  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_FLOAT);
  set_shape(&proto, t.shape());
  if (content) {
    proto.set_tensor_content(std::string(static_cast<const char*>(t.raw_data()), t.nbytes()));
  } else {
    for (std::int64_t i = 0; i < t.size(); ++i) proto.add_float_val(t.data<float>()[i]);
  }
  return proto;
}

// Keras's model with string, int64 and float inputs (tests/data/preprocessing/
// model_vocabulary.*): the inputs of its golden `g` in the typed fields (string_val,
// int64_val, float_val), or as tensor_content (TensorFlow's string-list encoding for strings).
inline tensorflow::serving::PredictRequest vocabulary_request(const json& g, bool content) {
  tensorflow::serving::PredictRequest request = request_for();
  for (const char* name : {"city", "code", "tags", "amount"}) {
    const json& t = g["inputs"][name];
    tensorflow::TensorProto& proto = (*request.mutable_inputs())[name];
    for (const auto& d : t["shape"]) proto.mutable_tensor_shape()->add_dim()->set_size(d.get<std::int64_t>());
    const std::string dtype = t["dtype"];
    std::string bytes;
    if (dtype == "string") {
      proto.set_dtype(tensorflow::DT_STRING);
      std::string lengths, values;
      for (const auto& v : t["values"]) {
        const std::string text = v.get<std::string>();
        if (!content) proto.add_string_val(text);
        for (std::uint64_t n = text.size(); ; n >>= 7) {  // varint
          lengths += static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
          if (n < 0x80) break;
        }
        values += text;
      }
      bytes = lengths + values;
    } else if (dtype == "int64") {
      proto.set_dtype(tensorflow::DT_INT64);
      for (const auto& v : t["values"]) {
        const std::int64_t i = v.get<std::int64_t>();
        if (!content) proto.add_int64_val(i);
        bytes.append(reinterpret_cast<const char*>(&i), sizeof i);
      }
    } else {
      proto.set_dtype(tensorflow::DT_FLOAT);
      for (const auto& v : t["values"]) {
        const float f = v.get<float>();
        if (!content) proto.add_float_val(f);
        bytes.append(reinterpret_cast<const char*>(&f), sizeof f);
      }
    }
    if (content) proto.set_tensor_content(bytes);
  }
  return request;
}

// A Predict call with these exact bytes as its request message, which no generated stub
// sends; `response` gets the answer parsed when the call is OK.
inline grpc::Status raw_predict(grpc::GenericStub& stub, const std::string& bytes,
                                tensorflow::serving::PredictResponse* response = nullptr) {
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::Status status;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  stub.UnaryCall(&context, "/tensorflow.serving.PredictionService/Predict", grpc::StubOptions(), &request, &reply,
                 [&](grpc::Status st) {
                   std::lock_guard lock(mu);
                   status = st;
                   done = true;
                   cv.notify_all();
                 });
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return done; });
  if (status.ok() && response) {
    std::vector<grpc::Slice> slices;
    EXPECT_TRUE(reply.Dump(&slices).ok());
    std::string out;
    for (const auto& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
    EXPECT_TRUE(response->ParseFromString(out));
  }
  return status;
}

}  // namespace strata::serving::testing
