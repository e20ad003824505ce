// TensorFlow Serving's gRPC methods over a ModelRegistry: PredictionService (Predict,
// GetModelMetadata) and ModelService (GetModelStatus), with the messages of
// serving/proto/tensorflow_serving.proto, as calls GrpcServer puts on the wire. They find servables, statuses and
// signatures where the REST handler does (serving/servable_lookup.h) and predict through the same Servable (and its
// batcher), so both APIs give the same answers and the same errors.
//
// Every error is a gRPC status with TensorFlow Serving's code and message: NOT_FOUND
// "Servable not found for request: Latest(NAME)", FAILED_PRECONDITION "Serving signature
// key \"KEY\" not found.", INVALID_ARGUMENT for inputs that do not fit the signature (see
// serving/tensor_proto.h) and for an unknown output_filter. Nothing a request holds can
// make a method throw; a request gRPC cannot parse is refused by gRPC before it gets here.
#pragma once

#include <cstdint>

#include <grpcpp/grpcpp.h>

#include "serving/model_registry.h"
#include "serving/proto/tensorflow_serving.grpc.pb.h"

namespace strata::serving {

struct GrpcServiceOptions {
  // --max_rows_per_request, as for REST: a Predict with more examples is INVALID_ARGUMENT.
  std::int64_t max_rows_per_request = 65536;
  // The most bytes one input may take once decoded: a few values in a *_val field fill a
  // shape of any size, so a request is held to what it could carry as tensor_content.
  // GrpcServer sets it to --grpc_max_receive_message_bytes.
  std::size_t max_input_bytes = 64u << 20;
};

// The answers of PredictionService's methods. GrpcServer (serving/grpc_server.h) calls
// them from gRPC's callback services: predict() on its own threads, the others inline.
class PredictionServiceImpl {
 public:
  explicit PredictionServiceImpl(const ModelRegistry& models, GrpcServiceOptions options = {})
      : models_(models), options_(options) {}

  grpc::Status predict(const tensorflow::serving::PredictRequest& request,
                       tensorflow::serving::PredictResponse* response) const;
  grpc::Status model_metadata(const tensorflow::serving::GetModelMetadataRequest& request,
                              tensorflow::serving::GetModelMetadataResponse* response) const;

 private:
  grpc::Status answer_predict(const tensorflow::serving::PredictRequest& request,
                              tensorflow::serving::PredictResponse* response) const;

  const ModelRegistry& models_;
  GrpcServiceOptions options_;
};

// The answer of ModelService's GetModelStatus.
class ModelServiceImpl {
 public:
  explicit ModelServiceImpl(const ModelRegistry& models) : models_(models) {}

  grpc::Status model_status(const tensorflow::serving::GetModelStatusRequest& request,
                            tensorflow::serving::GetModelStatusResponse* response) const;

 private:
  const ModelRegistry& models_;
};

}  // namespace strata::serving
