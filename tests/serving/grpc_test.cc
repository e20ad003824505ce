// TensorFlow Serving's gRPC API: a C++ client (the generated stubs) over loopback against
// GrpcServer, checked against Keras's goldens and against the REST handler's answers for
// the same requests; every TensorProto encoding; TensorFlow Serving's error codes and
// messages; requests gRPC cannot parse or that are too large; and the strata-serve
// program serving both APIs. Built when CMake found gRPC (STRATA_WITH_GRPC).
#ifdef STRATA_WITH_GRPC

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "core/string_pool.h"
#include "serving/errors.h"
#include "serving/grpc_server.h"
#include "serving/rest_handler.h"
#include "serving/tensor_proto.h"
#include "tests/serving/grpc_test_util.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::grpc_test {
namespace {

using namespace strata::serving::testing;
namespace tfs = tensorflow::serving;

// A model served over gRPC on a loopback port, with the REST handler beside it on the same
// manager, and stubs for both services.
struct GrpcServed {
  ModelDir dir;
  std::unique_ptr<ModelRegistry> registry;
  std::unique_ptr<GrpcServer> server;
  std::unique_ptr<RestHandler> rest;
  std::unique_ptr<tfs::PredictionService::Stub> predict;
  std::unique_ptr<tfs::ModelService::Stub> models;
  std::shared_ptr<grpc::Channel> channel;

  explicit GrpcServed(const std::string& source, const std::string& file_name, GrpcServerOptions options = {}) {
    dir.add_file(1, source, file_name);
    registry = std::make_unique<ModelRegistry>(
        ModelManagerOptions{.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
    options.bind_address = "127.0.0.1";
    options.port = 0;
    server = std::make_unique<GrpcServer>(*registry, options);
    rest = std::make_unique<RestHandler>(*registry);
    channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()), grpc::InsecureChannelCredentials());
    predict = tfs::PredictionService::NewStub(channel);
    models = tfs::ModelService::NewStub(channel);
  }
  static GrpcServed golden_model(const std::string& name, const std::string& ext) {
    return GrpcServed(golden(name) + ext, "model" + ext);
  }

  grpc::Status call(const tfs::PredictRequest& request, tfs::PredictResponse* response) const {
    grpc::ClientContext context;
    return predict->Predict(&context, request, response);
  }
};

Tensor tensor_of(const tensorflow::TensorProto& proto, const Shape& shape) {
  EXPECT_EQ(proto.dtype(), tensorflow::DT_FLOAT);
  std::vector<std::int64_t> dims;
  for (const auto& d : proto.tensor_shape().dim()) dims.push_back(d.size());
  EXPECT_EQ(Shape(dims), shape);
  std::vector<float> values(proto.float_val().begin(), proto.float_val().end());
  EXPECT_EQ(static_cast<std::int64_t>(values.size()), shape.num_elements());
  values.resize(shape.num_elements());
  return Tensor::from_vector(shape, values);
}

void expect_identical(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()), 0) << what << ": gRPC and REST answers differ";
}

// The REST handler's columnar answer for `inputs` (named), as tensors of `shapes`.
std::vector<Tensor> rest_outputs(const RestHandler& rest, const json& inputs, const std::vector<Shape>& shapes,
                                 const std::vector<std::string>& names) {
  RestResponse r = rest.handle("POST", "/v1/models/m:predict", json{{"inputs", inputs}}.dump());
  EXPECT_EQ(r.status, 200) << r.body;
  json outs = json::parse(r.body)["outputs"];
  std::vector<Tensor> result;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    result.push_back(tensor_from_json(shapes.size() == 1 ? outs : outs[names[k]], shapes[k]));
  }
  return result;
}

class GrpcOneInputModel : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GrpcOneInputModel, PredictMatchesKerasAndRestInBothEncodings) {
  const auto& [name, ext] = GetParam();
  GrpcServed s = GrpcServed::golden_model(name, ext);
  const Tensor x = load_numbered(golden(name), "input")[0];
  const Tensor y = load_numbered(golden(name), "output")[0];
  const std::string input = s.registry->find("m")->latest()->signature().inputs[0].name;
  const std::string output = s.registry->find("m")->latest()->signature().outputs[0].name;
  const Tensor from_rest = rest_outputs(*s.rest, values_json(x), {y.shape()}, {output})[0];
  for (bool content : {true, false}) {
    tfs::PredictRequest request = request_for();
    (*request.mutable_inputs())[input] = float_proto(x, content);
    tfs::PredictResponse response;
    grpc::Status status = s.call(request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs().size(), 1u);
    const Tensor got = tensor_of(response.outputs().at(output), y.shape());
    expect_close(got, y, name + ext + (content ? " tensor_content" : " float_val"));
    expect_identical(got, from_rest, name + ext);
    EXPECT_EQ(response.model_spec().name(), "m");
    EXPECT_EQ(response.model_spec().version().value(), 1);
    EXPECT_EQ(response.model_spec().signature_name(), "serving_default");
  }
}

INSTANTIATE_TEST_SUITE_P(KerasGoldens, GrpcOneInputModel,
                         ::testing::Combine(::testing::Values("functional_mlp", "sequential_mlp", "cnn_bn_merge",
                                                              "nested", "conv1d_transpose_seq", "conv3d_block"),
                                            ::testing::Values(".keras", ".h5")));

TEST(GrpcPredict, MultiInputModelTakesNamedInputsAndFiltersOutputs) {
  for (const std::string ext : {".keras", ".h5"}) {
    GrpcServed s = GrpcServed::golden_model("multi_io_shared", ext);
    auto xs = load_numbered(golden("multi_io_shared"), "input");
    auto ys = load_numbered(golden("multi_io_shared"), "output");
    tfs::PredictRequest request = request_for();
    (*request.mutable_inputs())["a"] = float_proto(xs[0], true);
    (*request.mutable_inputs())["b"] = float_proto(xs[1], false);
    tfs::PredictResponse response;
    ASSERT_TRUE(s.call(request, &response).ok());
    ASSERT_EQ(response.outputs().size(), 2u);
    const Tensor reshape = tensor_of(response.outputs().at("reshape"), ys[0].shape());
    const Tensor shared = tensor_of(response.outputs().at("shared"), ys[1].shape());
    expect_close(reshape, ys[0], "reshape" + ext);
    expect_close(shared, ys[1], "shared" + ext);
    auto rest = rest_outputs(*s.rest, {{"a", values_json(xs[0])}, {"b", values_json(xs[1])}},
                             {ys[0].shape(), ys[1].shape()}, {"reshape", "shared"});
    expect_identical(reshape, rest[0], "reshape" + ext);
    expect_identical(shared, rest[1], "shared" + ext);

    request.add_output_filter("shared");
    tfs::PredictResponse filtered;
    ASSERT_TRUE(s.call(request, &filtered).ok());
    ASSERT_EQ(filtered.outputs().size(), 1u);
    expect_identical(tensor_of(filtered.outputs().at("shared"), ys[1].shape()), shared, "output_filter" + ext);
  }
}

TEST(GrpcPredict, StringInt64AndFloatInputsInEveryEncodingPredictLikeKeras) {
  // Keras's model with string, int64 and float inputs through its preprocessing layers
  // (tests/data/preprocessing/model_vocabulary.*): string_val, int64_val and float_val,
  // then the same values as tensor_content (TensorFlow's string-list encoding for strings).
  const std::string data = std::string(STRATA_TEST_DATA) + "/preprocessing/";
  const json g = json::parse(std::ifstream(data + "model_vocabulary.json"));
  GrpcServed s(data + "model_vocabulary.keras", "model.keras");
  const auto want = g["prediction"]["values"].get<std::vector<float>>();
  for (bool content : {false, true}) {
    const tfs::PredictRequest request = vocabulary_request(g, content);
    tfs::PredictResponse response;
    grpc::Status status = s.call(request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    const auto& out = response.outputs().begin()->second;
    ASSERT_EQ(out.float_val_size(), static_cast<int>(want.size()));
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(out.float_val(static_cast<int>(i)), want[i], 1e-5f + 1e-4f * std::fabs(want[i]))
          << (content ? "tensor_content " : "typed fields ") << i;
    }
  }
}

TEST(GrpcPredict, OneValueFillsTheShapeAsTensorFlowReadsIt) {
  // TensorFlow's FromProto: a field with fewer values than the shape repeats its last
  // value, so one value broadcasts; predicting it equals predicting the full tensor.
  GrpcServed s = GrpcServed::golden_model("functional_mlp", ".keras");
  const TensorInfo info = s.registry->find("m")->latest()->signature().inputs[0];
  const Shape shape({3, info.shape[1]});
  tfs::PredictRequest one = request_for(), full = request_for();
  tensorflow::TensorProto& p = (*one.mutable_inputs())[info.name];
  p.set_dtype(tensorflow::DT_FLOAT);
  set_shape(&p, shape);
  p.add_float_val(0.25f);
  (*full.mutable_inputs())[info.name] = float_proto(Tensor::filled(shape, 0.25f), true);
  tfs::PredictResponse a, b;
  ASSERT_TRUE(s.call(one, &a).ok());
  ASSERT_TRUE(s.call(full, &b).ok());
  EXPECT_EQ(a.outputs().begin()->second.SerializeAsString(), b.outputs().begin()->second.SerializeAsString());
}

// Limits the decoding tests do not reach.
constexpr TensorProtoLimits kRoomyLimits{.max_rows = 1 << 20, .max_bytes = 1 << 30};

TEST(TensorProto, DecodesAsTensorFlowsFromProto) {
  const TensorInfo f{"x", DType::float32, Shape{kUnknownDim, 3}};
  const TensorInfo i32{"ids", DType::int32, Shape{kUnknownDim, 2}};
  const TensorInfo s{"text", DType::string, Shape{kUnknownDim}};
  auto proto = [](tensorflow::DataType dtype, const Shape& shape) {
    tensorflow::TensorProto p;
    p.set_dtype(dtype);
    set_shape(&p, shape);
    return p;
  };
  // Fewer values: the last one repeats; none: zeros; more: the extra ones are not read.
  auto p = proto(tensorflow::DT_FLOAT, Shape{2, 3});
  p.add_float_val(1);
  p.add_float_val(2);
  EXPECT_EQ(tensor_from_proto(p, f, 0, kRoomyLimits).to_vector<float>(), (std::vector<float>{1, 2, 2, 2, 2, 2}));
  p.clear_float_val();
  EXPECT_EQ(tensor_from_proto(p, f, 0, kRoomyLimits).to_vector<float>(), std::vector<float>(6, 0.0f));
  for (int k = 0; k < 8; ++k) p.add_float_val(static_cast<float>(k));
  EXPECT_EQ(tensor_from_proto(p, f, 0, kRoomyLimits).to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  // int_val for DT_INT32, and tensor_content over the typed field when both are set.
  auto q = proto(tensorflow::DT_INT32, Shape{1, 2});
  q.add_int_val(-7);
  EXPECT_EQ(tensor_from_proto(q, i32, 0, kRoomyLimits).to_vector<std::int32_t>(), (std::vector<std::int32_t>{-7, -7}));
  const std::int32_t raw[2] = {5, 6};
  q.set_tensor_content(std::string(reinterpret_cast<const char*>(raw), sizeof raw));
  EXPECT_EQ(tensor_from_proto(q, i32, 0, kRoomyLimits).to_vector<std::int32_t>(), (std::vector<std::int32_t>{5, 6}));
  // Strings: string_val (the last repeats) and the string-list encoding of tensor_content.
  auto t = proto(tensorflow::DT_STRING, Shape{3});
  t.add_string_val("ab");
  t.add_string_val(std::string("c\0d", 3));
  EXPECT_EQ(tensor_from_proto(t, s, 0, kRoomyLimits).to_strings(),
            (std::vector<std::string>{"ab", std::string("c\0d", 3), std::string("c\0d", 3)}));
  t.set_tensor_content(std::string("\x02\x00\x01" "abc", 6));
  EXPECT_EQ(tensor_from_proto(t, s, 0, kRoomyLimits).to_strings(), (std::vector<std::string>{"ab", "", "c"}));
  // Outputs are written as AsProtoField writes them.
  tensorflow::TensorProto out;
  tensor_to_proto(Tensor::from_strings(Shape{2}, {"x", ""}), &out);
  EXPECT_EQ(out.dtype(), tensorflow::DT_STRING);
  ASSERT_EQ(out.string_val_size(), 2);
  EXPECT_EQ(out.string_val(0), "x");
  EXPECT_EQ(out.string_val(1), "");
}

// The message of what decoding `p` as `info` throws ("" when it does not).
std::string decode_error(const tensorflow::TensorProto& p, const TensorInfo& info) {
  try {
    tensor_from_proto(p, info, 0, kRoomyLimits);
  } catch (const ServingError& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

TEST(TensorProto, BadTensorsAreInvalidArgumentsSayingWhat) {
  const TensorInfo f{"x", DType::float32, Shape{kUnknownDim, 3}};
  const TensorInfo s{"text", DType::string, Shape{kUnknownDim}};
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_FLOAT);
  set_shape(&p, Shape{2, 3});
  auto with = [&](auto change) {
    tensorflow::TensorProto q = p;
    change(q);
    return decode_error(q, f);
  };
  EXPECT_EQ(with([](auto&) {}), "");
  EXPECT_NE(with([](auto& q) { q.set_tensor_content(std::string(20, '\0')); }).find("tensor parsing error: x"),
            std::string::npos);
  EXPECT_NE(with([](auto& q) { q.mutable_tensor_shape()->mutable_dim(0)->set_size(-1); }).find("is negative"),
            std::string::npos);
  EXPECT_NE(with([](auto& q) { q.set_dtype(tensorflow::DT_INVALID); }).find("tensor parsing error: x"),
            std::string::npos);
  EXPECT_NE(with([](auto& q) { q.set_dtype(static_cast<tensorflow::DataType>(99)); }).find("tensor parsing error"),
            std::string::npos);
  EXPECT_NE(with([](auto& q) { q.set_dtype(tensorflow::DT_DOUBLE); })
                .find("Expects arg[0] to be float but double is provided (input 'x')"),
            std::string::npos);
  EXPECT_NE(with([](auto& q) {
              q.set_dtype(tensorflow::DT_HALF);
              q.add_half_val(0x3c00);
            }).find("to be float but half is provided"),
            std::string::npos);
  EXPECT_NE(with([](auto& q) { q.set_dtype(tensorflow::DT_BOOL); }).find("but bool is provided"), std::string::npos);
  EXPECT_NE(with([](auto& q) { q.mutable_tensor_shape()->mutable_dim(1)->set_size(4); })
                .find("input 'x' expects shape (None, 3), got (2, 4)"),
            std::string::npos);
  EXPECT_NE(with([](auto& q) { q.clear_tensor_shape(); }).find("expects shape (None, 3), got ()"), std::string::npos);
  EXPECT_NE(with([](auto& q) { q.mutable_tensor_shape()->mutable_dim(0)->set_size(0); }).find("has no rows"),
            std::string::npos);
  // Dimensions whose product overflows: refused before anything is allocated.
  EXPECT_NE(with([](auto& q) {
              q.mutable_tensor_shape()->mutable_dim(0)->set_size(std::int64_t{1} << 40);
              q.mutable_tensor_shape()->mutable_dim(1)->set_size(std::int64_t{1} << 40);
            }).find("more than 2^63 elements"),
            std::string::npos);
  // One value filling a shape whose unknown inner dimension is huge: 2^40 floats from a
  // request of a few bytes, past what a request may carry (the rows alone are within limits).
  const TensorInfo wide{"x", DType::float32, Shape{kUnknownDim, kUnknownDim}};
  tensorflow::TensorProto w;
  w.set_dtype(tensorflow::DT_FLOAT);
  set_shape(&w, Shape{1, std::int64_t{1} << 40});
  w.add_float_val(1);
  try {
    tensor_from_proto(w, wide, 0, {.max_rows = 10, .max_bytes = 1 << 20});
    ADD_FAILURE() << "a 4 TiB input was decoded";
  } catch (const ServingError& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("--grpc_max_receive_message_bytes"), std::string::npos) << e.what();
  }
  tensorflow::TensorProto t;
  t.set_dtype(tensorflow::DT_STRING);
  set_shape(&t, Shape{2});
  t.set_tensor_content(std::string("\x02\x01" "abcd", 6));  // two bytes too many
  EXPECT_NE(decode_error(t, s).find("string-list encoding"), std::string::npos);
  t.set_tensor_content(std::string("\x02\x09" "abc", 5));  // too few
  EXPECT_NE(decode_error(t, s).find("string-list encoding"), std::string::npos);
  t.set_tensor_content(std::string("\xff\xff\xff\xff\xff\xff", 6));  // a varint that never ends
  EXPECT_NE(decode_error(t, s).find("string-list encoding"), std::string::npos);
}

void expect_status(const grpc::Status& status, grpc::StatusCode code, const std::string& contains) {
  EXPECT_EQ(status.error_code(), code) << status.error_message();
  EXPECT_NE(status.error_message().find(contains), std::string::npos)
      << "'" << status.error_message() << "' does not contain '" << contains << "'";
}

TEST(GrpcPredict, BadRequestsGetTensorFlowServingsCodesAndMessages) {
  GrpcServed s = GrpcServed::golden_model("multi_io_shared", ".keras");
  auto xs = load_numbered(golden("multi_io_shared"), "input");
  tfs::PredictRequest good = request_for();
  (*good.mutable_inputs())["a"] = float_proto(xs[0], true);
  (*good.mutable_inputs())["b"] = float_proto(xs[1], true);
  auto predict = [&](auto change) {
    tfs::PredictRequest r = good;
    change(r);
    tfs::PredictResponse response;
    return s.call(r, &response);
  };
  EXPECT_TRUE(predict([](auto&) {}).ok());
  expect_status(predict([](auto& r) { r.mutable_model_spec()->set_name("other"); }), grpc::StatusCode::NOT_FOUND,
                "Servable not found for request: Latest(other)");
  expect_status(predict([](auto& r) { r.mutable_model_spec()->mutable_version()->set_value(7); }),
                grpc::StatusCode::NOT_FOUND, "Servable not found for request: Specific(m, 7)");
  expect_status(predict([](auto& r) { r.mutable_model_spec()->set_version_label("stable"); }),
                grpc::StatusCode::INVALID_ARGUMENT, "Unrecognized servable version label: stable");
  expect_status(predict([](auto& r) { r.mutable_model_spec()->set_signature_name("serve"); }),
                grpc::StatusCode::FAILED_PRECONDITION, "Serving signature key \"serve\" not found.");
  expect_status(predict([](auto& r) { r.mutable_inputs()->erase("b"); }), grpc::StatusCode::INVALID_ARGUMENT,
                "input size does not match signature: 1!=2 len({a}) != len({a,b}). Sent extra: {}. Missing but "
                "required: {b}.");
  expect_status(predict([](auto& r) {
                  (*r.mutable_inputs())["c"] = r.inputs().at("b");
                  r.mutable_inputs()->erase("b");
                }),
                grpc::StatusCode::INVALID_ARGUMENT,
                "input tensor alias not found in signature: c. Inputs expected to be in the set {a,b}.");
  expect_status(predict([](auto& r) { (*r.mutable_inputs())["a"].set_dtype(tensorflow::DT_INT32); }),
                grpc::StatusCode::INVALID_ARGUMENT, "Expects arg[0] to be float but int32 is provided");
  // tensor_content sized for float32 but read as int64: TensorFlow can't parse it, and says so first.
  expect_status(predict([](auto& r) { (*r.mutable_inputs())["a"].set_dtype(tensorflow::DT_INT64); }),
                grpc::StatusCode::INVALID_ARGUMENT, "tensor parsing error: a");
  expect_status(predict([](auto& r) { (*r.mutable_inputs())["b"].set_tensor_content("xyz"); }),
                grpc::StatusCode::INVALID_ARGUMENT, "tensor parsing error: b");
  expect_status(predict([&](auto& r) {
                  Tensor fewer_rows = Tensor::filled(Shape({1, xs[1].shape()[1]}), 1.0f);
                  (*r.mutable_inputs())["b"] = float_proto(fewer_rows, true);
                }),
                grpc::StatusCode::INVALID_ARGUMENT, "input 'b' has 1 rows but input 'a' has");
  expect_status(predict([](auto& r) { r.add_output_filter("nope"); }), grpc::StatusCode::INVALID_ARGUMENT,
                "output tensor alias not found in signature: nope Outputs expected to be in the set {reshape,shared}.");
  expect_status(predict([](auto& r) {
                  r.add_output_filter("shared");
                  r.add_output_filter("shared");
                }),
                grpc::StatusCode::INVALID_ARGUMENT, "duplicate output tensor alias: shared");
  // The server still answers after all of them.
  EXPECT_TRUE(predict([](auto&) {}).ok());
}

TEST(GrpcPredict, MoreRowsThanTheLimitIsInvalidArgumentNamingTheFlag) {
  GrpcServerOptions options;
  options.service.max_rows_per_request = 4;
  GrpcServed s(golden("functional_mlp") + ".keras", "model.keras", options);
  const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  tfs::PredictRequest request = request_for();
  (*request.mutable_inputs())[s.registry->find("m")->latest()->signature().inputs[0].name] = float_proto(x, true);
  tfs::PredictResponse response;
  expect_status(s.call(request, &response), grpc::StatusCode::INVALID_ARGUMENT,
                "the request has " + std::to_string(x.shape()[0]) + " examples, more than the limit of 4 "
                "(--max_rows_per_request)");
  // A few values fill a shape of any size (TensorFlow's rule): 2^40 rows from one float_val
  // is refused before anything is allocated (it was 16 TiB asked of the allocator).
  tfs::PredictRequest huge = request_for();
  tensorflow::TensorProto& p = (*huge.mutable_inputs())[s.registry->find("m")->latest()->signature().inputs[0].name];
  p.set_dtype(tensorflow::DT_FLOAT);
  set_shape(&p, Shape{1ll << 40, 4});
  p.add_float_val(1);
  expect_status(s.call(huge, &response), grpc::StatusCode::INVALID_ARGUMENT,
                "the request has 1099511627776 examples, more than the limit of 4 (--max_rows_per_request)");
}

TEST(GrpcPredict, UnparsableAndOversizedMessagesAreRefusedAndTheServerGoesOn) {
  GrpcServerOptions options;
  options.max_receive_message_bytes = 4096;
  GrpcServed s(golden("functional_mlp") + ".keras", "model.keras", options);
  grpc::GenericStub generic(s.channel);
  auto raw_call = [&](const std::string& bytes) { return raw_predict(generic, bytes); };
  // Field 1 (model_spec) as a length-delimited field 100 bytes long, with 3 bytes after it.
  // gRPC answers INTERNAL for a request it can't parse, before the service sees it.
  EXPECT_EQ(raw_call(std::string("\x0a\x64" "abc", 5)).error_code(), grpc::StatusCode::INTERNAL);
  // A wire type that does not exist (7).
  EXPECT_EQ(raw_call(std::string("\x0f\x01", 2)).error_code(), grpc::StatusCode::INTERNAL);
  // Over --grpc_max_receive_message_bytes: refused by gRPC before it is parsed.
  tfs::PredictRequest big = request_for();
  tensorflow::TensorProto& p = (*big.mutable_inputs())[s.registry->find("m")->latest()->signature().inputs[0].name];
  p.set_dtype(tensorflow::DT_FLOAT);
  p.set_tensor_content(std::string(8192, '\0'));
  tfs::PredictResponse response;
  expect_status(s.call(big, &response), grpc::StatusCode::RESOURCE_EXHAUSTED, "");
  // An empty message is a request with no model name: not found, as TensorFlow Serving says.
  expect_status(s.call(tfs::PredictRequest(), &response), grpc::StatusCode::NOT_FOUND,
                "Servable not found for request: Latest()");
  // And it still answers a good request.
  const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  tfs::PredictRequest good = request_for();
  (*good.mutable_inputs())[s.registry->find("m")->latest()->signature().inputs[0].name] = float_proto(x, true);
  EXPECT_TRUE(s.call(good, &response).ok());
}

TEST(GrpcMetadata, SignatureDefMapDescribesInputsAndOutputs) {
  GrpcServed s = GrpcServed::golden_model("multi_io_shared", ".keras");
  tfs::GetModelMetadataRequest request;
  request.mutable_model_spec()->set_name("m");
  request.add_metadata_field("signature_def");
  tfs::GetModelMetadataResponse response;
  {
    grpc::ClientContext context;
    grpc::Status status = s.predict->GetModelMetadata(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  EXPECT_EQ(response.model_spec().name(), "m");
  EXPECT_EQ(response.model_spec().version().value(), 1);
  const google::protobuf::Any& any = response.metadata().at("signature_def");
  EXPECT_EQ(any.type_url(), "type.googleapis.com/tensorflow.serving.SignatureDefMap");
  tfs::SignatureDefMap map;
  ASSERT_TRUE(any.UnpackTo(&map));
  const tensorflow::SignatureDef& def = map.signature_def().at("serving_default");
  EXPECT_EQ(def.method_name(), "tensorflow/serving/predict");
  const Signature& sig = s.registry->find("m")->latest()->signature();
  ASSERT_EQ(def.inputs().size(), sig.inputs.size());
  for (const auto& input : sig.inputs) {
    const tensorflow::TensorInfo& info = def.inputs().at(input.name);
    EXPECT_EQ(info.dtype(), tensorflow::DT_FLOAT);
    EXPECT_EQ(info.name(), "serving_default_" + input.name + ":0");
    ASSERT_EQ(info.tensor_shape().dim_size(), input.shape.rank());
    EXPECT_EQ(info.tensor_shape().dim(0).size(), -1);
    for (int d = 1; d < input.shape.rank(); ++d) EXPECT_EQ(info.tensor_shape().dim(d).size(), input.shape[d]);
  }
  EXPECT_EQ(def.outputs().at("shared").name(), "StatefulPartitionedCall:1");

  auto metadata_error = [&](auto change) {
    tfs::GetModelMetadataRequest r = request;
    change(r);
    grpc::ClientContext context;
    tfs::GetModelMetadataResponse ignored;
    return s.predict->GetModelMetadata(&context, r, &ignored);
  };
  expect_status(metadata_error([](auto& r) { r.clear_metadata_field(); }), grpc::StatusCode::INVALID_ARGUMENT,
                "GetModelMetadataRequest must specify at least one metadata_field");
  expect_status(metadata_error([](auto& r) { r.add_metadata_field("saved_model"); }),
                grpc::StatusCode::INVALID_ARGUMENT, "Metadata field saved_model is not supported");
  expect_status(metadata_error([](auto& r) { r.clear_model_spec(); }), grpc::StatusCode::INVALID_ARGUMENT,
                "Missing ModelSpec");
  expect_status(metadata_error([](auto& r) { r.mutable_model_spec()->set_name("other"); }),
                grpc::StatusCode::NOT_FOUND, "Servable not found for request: Latest(other)");
}

TEST(GrpcModelStatus, ListsVersionsAsRestDoes) {
  GrpcServed s = GrpcServed::golden_model("functional_mlp", ".h5");
  tfs::GetModelStatusRequest request;
  request.mutable_model_spec()->set_name("m");
  tfs::GetModelStatusResponse response;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(s.models->GetModelStatus(&context, request, &response).ok());
  }
  ASSERT_EQ(response.model_version_status_size(), 1);
  EXPECT_EQ(response.model_version_status(0).version(), 1);
  EXPECT_EQ(response.model_version_status(0).state(), tfs::ModelVersionStatus::AVAILABLE);
  EXPECT_EQ(response.model_version_status(0).status().error_code(), tensorflow::error::OK);
  auto status_error = [&](auto change) {
    tfs::GetModelStatusRequest r = request;
    change(r);
    grpc::ClientContext context;
    tfs::GetModelStatusResponse ignored;
    return s.models->GetModelStatus(&context, r, &ignored);
  };
  expect_status(status_error([](auto& r) { r.mutable_model_spec()->set_name("other"); }),
                grpc::StatusCode::NOT_FOUND, "Could not find any versions of model other");
  expect_status(status_error([](auto& r) { r.mutable_model_spec()->mutable_version()->set_value(3); }),
                grpc::StatusCode::NOT_FOUND, "Could not find version 3 of model m");
  expect_status(status_error([](auto& r) { r.clear_model_spec(); }), grpc::StatusCode::INVALID_ARGUMENT,
                "Missing ModelSpec");
}

TEST(GrpcServer, APortInUseIsAnIOErrorSayingWhere) {
  GrpcServed s = GrpcServed::golden_model("functional_mlp", ".keras");
  EXPECT_THROW(GrpcServer(*s.registry, GrpcServerOptions{.bind_address = "127.0.0.1", .port = s.server->port()}),
               IOError);
}

TEST(StrataServe, TheProgramServesGrpcAndRestAndStopsOnSigterm) {
#ifndef STRATA_TOOLS_DIR
  GTEST_SKIP() << "strata-serve is not built (STRATA_BUILD_TOOLS=OFF)";
#else
  ModelDir dir;
  dir.add_version(2, "functional_mlp", ".keras");
  ServeProgram serve(std::string(STRATA_TOOLS_DIR) + "/strata-serve",
                     {"--port=0", "--grpc_bind=127.0.0.1", "--rest_api_port=0", "--rest_api_bind=127.0.0.1",
                      "--model_name=mlp", "--model_base_path=" + dir.path()});
  const std::string flags_line = serve.line(), rest_line = serve.line(), grpc_line = serve.line();
  EXPECT_TRUE(flags_line.starts_with("flags: port=0")) << flags_line;
  // "strata-serve: serving model 'mlp' version 2 at http://127.0.0.1:PORT/v1/models/mlp"
  // "strata-serve: gRPC API at 127.0.0.1:PORT"
  ASSERT_GT(port_after(rest_line, "http://127.0.0.1:"), 0) << rest_line;
  const int grpc_port = port_after(grpc_line, "gRPC API at 127.0.0.1:");
  ASSERT_GT(grpc_port, 0) << grpc_line;
  EXPECT_NE(rest_line.find("version 2"), std::string::npos) << rest_line;
  {
    auto stub = tfs::PredictionService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(grpc_port), grpc::InsecureChannelCredentials()));
    const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
    const Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
    tfs::PredictRequest request = request_for("mlp");
    (*request.mutable_inputs())["x"] = float_proto(x, true);
    tfs::PredictResponse response;
    grpc::ClientContext context;
    grpc::Status status = stub->Predict(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    expect_close(tensor_of(response.outputs().begin()->second, y.shape()), y, "strata-serve over gRPC");
    EXPECT_EQ(response.model_spec().version().value(), 2);
  }
  const int status = serve.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
#endif
}

}  // namespace
}  // namespace strata::serving::grpc_test

#endif  // STRATA_WITH_GRPC
