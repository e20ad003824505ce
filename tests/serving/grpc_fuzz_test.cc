// Thousands of mutated Predict requests over gRPC, from a fixed seed, at the server's
// request decoding: the wire bytes of valid requests with bits flipped, bytes changed to
// varint and tag bytes, truncated, spliced and repeated; and valid messages with their
// fields changed (dtypes, shapes with negative, zero and huge dimensions, values of the
// wrong field, tensor_content of every length, strings as TensorFlow's string lists,
// unknown inputs, output filters and versions). Every answer must be a status TensorFlow
// Serving uses, never UNKNOWN (an escaped exception), RESOURCE_EXHAUSTED (no request here
// comes near the 1 MiB message limit, so that would be an allocation that failed) or a
// crash, and a valid request in between must still get Keras's answer. Built when CMake found gRPC.
#ifdef STRATA_WITH_GRPC

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <random>

#include "serving/grpc_server.h"
#include "tests/serving/grpc_test_util.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::grpc_fuzz_test {
namespace {

using namespace strata::serving::testing;
namespace tfs = tensorflow::serving;

class ProtoMutator {
 public:
  explicit ProtoMutator(std::uint32_t seed) : rng_(seed) {}

  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  // Bytes of a request: half the time a valid one with its fields changed, else its wire
  // bytes mutated.
  std::string mutate(const std::vector<tfs::PredictRequest>& seeds) {
    tfs::PredictRequest request = seeds[pick(seeds.size())];
    if (pick(2) == 0) {
      for (std::size_t r = 0, rounds = 1 + pick(3); r < rounds; ++r) change_field(request);
      return request.SerializeAsString();
    }
    std::string bytes = request.SerializeAsString();
    for (std::size_t r = 0, rounds = 1 + pick(3); r < rounds; ++r) mutate_bytes(bytes, seeds);
    return bytes;
  }

 private:
  void mutate_bytes(std::string& s, const std::vector<tfs::PredictRequest>& seeds) {
    switch (pick(6)) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << pick(8));
        break;
      case 1: {  // a byte becomes a varint continuation, an extreme, or a field tag
        static const std::string kBytes("\x00\x01\x7f\x80\xff\x08\x0a\x10\x12\x1a\x22\x2a\x32\x3a\x42\x52", 16);
        if (!s.empty()) s[pick(s.size())] = kBytes[pick(kBytes.size())];
        break;
      }
      case 2:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      case 3: {  // splice: a prefix of this one, a suffix of another
        const std::string other = seeds[pick(seeds.size())].SerializeAsString();
        s = s.substr(0, pick(s.size() + 1)) + other.substr(pick(other.size() + 1));
        break;
      }
      case 4: {  // repeat a piece
        if (s.empty()) break;
        const std::size_t a = pick(s.size()), n = 1 + pick(std::min<std::size_t>(40, s.size() - a));
        s.insert(a, s.substr(a, n));
        break;
      }
      default: {  // delete a piece
        if (s.empty()) break;
        s.erase(pick(s.size()), 1 + pick(20));
        break;
      }
    }
  }

  std::int64_t odd_number() {
    static const std::int64_t kNumbers[] = {-1, 0, 1, 2, 3, 4, 7, 65536, 65537, 1ll << 31, 1ll << 40, -(1ll << 62),
                                            (1ll << 62), std::numeric_limits<std::int64_t>::max()};
    return kNumbers[pick(std::size(kNumbers))];
  }

  void change_field(tfs::PredictRequest& request) {
    if (request.inputs().empty() || pick(10) == 0) {
      (*request.mutable_inputs())[pick(2) ? "x" : std::string(pick(4), 'q')].set_dtype(tensorflow::DT_FLOAT);
    }
    auto it = request.mutable_inputs()->begin();
    std::advance(it, static_cast<std::ptrdiff_t>(pick(request.inputs().size())));
    tensorflow::TensorProto& t = it->second;
    switch (pick(10)) {
      case 0:  // any dtype number, those TensorFlow has and some it has not
        t.set_dtype(static_cast<tensorflow::DataType>(static_cast<int>(pick(32)) - 2));
        break;
      case 1: {  // a dimension changed, added or removed
        auto* shape = t.mutable_tensor_shape();
        if (shape->dim_size() > 0 && pick(3) == 0) shape->mutable_dim()->RemoveLast();
        else if (shape->dim_size() == 0 || pick(3) == 0) shape->add_dim()->set_size(odd_number());
        else shape->mutable_dim(static_cast<int>(pick(shape->dim_size())))->set_size(odd_number());
        break;
      }
      case 2:  // unknown rank
        t.mutable_tensor_shape()->set_unknown_rank(pick(2) == 0);
        break;
      case 3:  // tensor_content of any length
        t.set_tensor_content(std::string(pick(3) == 0 ? pick(4096) : pick(64), static_cast<char>(pick(256))));
        break;
      case 4:  // values in a field of another dtype
        for (std::size_t i = 0, n = pick(20); i < n; ++i) {
          switch (pick(5)) {
            case 0: t.add_float_val(static_cast<float>(odd_number())); break;
            case 1: t.add_int_val(static_cast<int>(odd_number())); break;
            case 2: t.add_int64_val(odd_number()); break;
            case 3: t.add_string_val(std::string(pick(10), 's')); break;
            default: t.add_double_val(std::numeric_limits<double>::quiet_NaN()); break;
          }
        }
        break;
      case 5: {  // strings as TensorFlow's string list, with lengths that may lie
        t.set_dtype(tensorflow::DT_STRING);
        std::string list;
        for (std::size_t i = 0, n = pick(6); i < n; ++i) list += static_cast<char>(pick(256));
        t.set_tensor_content(list + std::string(pick(20), 'z'));
        break;
      }
      case 6:  // values cleared
        t.clear_float_val();
        t.clear_tensor_content();
        break;
      case 7:  // an output filter, of names that exist or not
        request.add_output_filter(pick(2) ? "dense_1" : std::string(pick(5), 'o'));
        break;
      case 8:  // a version, a label, or a signature
        switch (pick(3)) {
          case 0: request.mutable_model_spec()->mutable_version()->set_value(odd_number()); break;
          case 1: request.mutable_model_spec()->set_version_label(std::string(pick(6), 'l')); break;
          default: request.mutable_model_spec()->set_signature_name(pick(2) ? "serving_default" : "other"); break;
        }
        break;
      default:  // the input renamed
        (*request.mutable_inputs())[std::string(1 + pick(3), 'r')] = t;
        break;
    }
  }

  std::mt19937 rng_;
};

// Serves `model_file` as "m" and sends it `iterations` mutations of `seeds`; `check_answer`
// checks a valid request's answer (seeds[0]) every 250 mutations.
void fuzz(const std::string& model_file, const std::vector<tfs::PredictRequest>& seeds, std::uint32_t seed,
          const std::function<void(const tfs::PredictResponse&, const std::string& when)>& check_answer) {
  ModelDir dir;
  dir.add_file(1, model_file, "model.keras");
  ModelRegistry registry({.name = "m", .base_path = dir.path(), .file_system_poll_wait_seconds = 0});
  GrpcServer server(registry, {.bind_address = "127.0.0.1", .port = 0, .max_receive_message_bytes = 1 << 20,
                               .service = {.max_rows_per_request = 4096}});
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  const Signature& sig = registry.find("m")->latest()->signature();

  ProtoMutator mutator(seed);
  std::map<grpc::StatusCode, int> counts;
  constexpr int kIterations = 4000;
  for (int it = 0; it < kIterations; ++it) {
    const std::string bytes = mutator.mutate(seeds);
    tfs::PredictResponse response;
    const grpc::Status status = raw_predict(stub, bytes, &response);
    ++counts[status.error_code()];
    using C = grpc::StatusCode;
    const C code = status.error_code();
    ASSERT_TRUE(code == C::OK || code == C::INVALID_ARGUMENT || code == C::NOT_FOUND ||
                code == C::FAILED_PRECONDITION || code == C::INTERNAL)
        << "status " << code << " (" << status.error_message() << ") after " << it << " mutations";
    if (code == C::INTERNAL) {
      // INTERNAL is gRPC's answer to bytes it cannot parse as the message, and nothing else.
      tfs::PredictRequest parsed;
      ASSERT_FALSE(parsed.ParseFromString(bytes)) << "a parsable request got INTERNAL: " << status.error_message()
                                                  << "\n" << parsed.DebugString().substr(0, 2000);
    }
    if (code == C::OK) {  // an answer of the signature's outputs, with as many values as the shape says
      ASSERT_LE(response.outputs().size(), sig.outputs.size());
      for (const auto& [name, out] : response.outputs()) {
        std::int64_t n = 1;
        for (const auto& d : out.tensor_shape().dim()) n *= d.size();
        ASSERT_EQ(out.float_val_size() + out.int64_val_size() + out.int_val_size() + out.string_val_size(), n) << name;
      }
    }
    if (it % 250 == 0) {  // still answering right
      tfs::PredictResponse good;
      const grpc::Status ok = raw_predict(stub, seeds[0].SerializeAsString(), &good);
      ASSERT_TRUE(ok.ok()) << ok.error_message();
      check_answer(good, "after " + std::to_string(it) + " mutations");
    }
  }
  std::cout << model_file.substr(model_file.rfind('/') + 1) << ": " << kIterations
            << " mutated requests over gRPC, answers by status code:";
  for (const auto& [code, n] : counts) std::cout << " " << code << "=" << n;
  std::cout << std::endl;
  // The mutations reached every side: valid requests, refused ones, unparsable ones.
  EXPECT_GT(counts[grpc::StatusCode::OK], kIterations / 100);
  EXPECT_GT(counts[grpc::StatusCode::INVALID_ARGUMENT], kIterations / 10);
  EXPECT_GT(counts[grpc::StatusCode::INTERNAL], kIterations / 20);
}

TEST(GrpcFuzz, MutatedPredictRequestsGetTensorFlowServingsStatusesAndTheServerGoesOn) {
  const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  const Tensor y = load_numbered(golden("functional_mlp"), "output")[0];
  std::vector<tfs::PredictRequest> seeds;
  for (bool content : {true, false}) {
    tfs::PredictRequest r = request_for();
    (*r.mutable_inputs())["x"] = float_proto(x, content);
    seeds.push_back(r);
    r.mutable_model_spec()->mutable_version()->set_value(1);
    r.mutable_model_spec()->set_signature_name("serving_default");
    seeds.push_back(r);
  }
  fuzz(golden("functional_mlp") + ".keras", seeds, 7, [&](const tfs::PredictResponse& answer, const std::string& when) {
    const auto& out = answer.outputs().begin()->second;
    std::vector<float> values(out.float_val().begin(), out.float_val().end());
    ASSERT_EQ(static_cast<std::int64_t>(values.size()), y.size());
    expect_close(Tensor::from_vector(y.shape(), values), y, when);
  });
}

TEST(GrpcFuzz, MutatedStringInt64AndFloatInputs) {
  // Strings in string_val and as TensorFlow's string list in tensor_content (varint
  // lengths a mutation can make lie), int64 and float inputs.
  const std::string data = std::string(STRATA_TEST_DATA) + "/preprocessing/";
  const json g = json::parse(std::ifstream(data + "model_vocabulary.json"));
  const auto want = g["prediction"]["values"].get<std::vector<float>>();
  fuzz(data + "model_vocabulary.keras", {vocabulary_request(g, true), vocabulary_request(g, false)}, 11,
       [&](const tfs::PredictResponse& answer, const std::string& when) {
         const auto& out = answer.outputs().begin()->second;
         ASSERT_EQ(out.float_val_size(), static_cast<int>(want.size())) << when;
         for (std::size_t i = 0; i < want.size(); ++i) {
           EXPECT_NEAR(out.float_val(static_cast<int>(i)), want[i], 1e-5f + 1e-4f * std::fabs(want[i])) << when;
         }
       });
}

}  // namespace
}  // namespace strata::serving::grpc_fuzz_test

#endif  // STRATA_WITH_GRPC
