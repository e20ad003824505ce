// String values in TensorFlow Serving's REST API: plain JSON strings and {"b64": "..."}
// values for DT_STRING inputs (decoded as TensorFlow Serving decodes them), and string
// outputs written as JSON strings, or as {"b64": ...} for outputs named "*_bytes".
#include <cmath>
#include <fstream>

#include "serving/base64.h"
#include "serving/errors.h"
#include "serving/rest_handler.h"
#include "serving/tensor_json.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::string_values_test {
namespace {

using namespace strata::serving::testing;

TEST(Base64, RoundTripsEveryLengthAndRefusesWhatIsNotBase64) {
  std::string bytes;
  for (int n = 0; n < 40; ++n) {
    EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes) << n;
    bytes += static_cast<char>(n * 37 + 200);
  }
  EXPECT_EQ(base64_encode("hello"), "aGVsbG8=");
  EXPECT_EQ(base64_decode("aGVsbG8="), "hello");
  EXPECT_EQ(base64_decode("aGVsbG8"), "hello");  // padding is optional
  EXPECT_EQ(base64_decode(""), "");
  for (const char* bad : {"aGVsbG8*", "a", "aGVsbG9=", "aGV sbG8=", "aGVsbG8==="}) {
    EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
  }
}

std::string b64(const std::string& s) { return base64_encode(s); }

TEST(RestStrings, B64ValuesPredictAsThePlainStrings) {
  // Keras's Input(string) -> TextVectorization -> Dense (tests/data/text_vectorization):
  // the same texts as {"b64": ...} give the same predictions as plain JSON strings.
  const std::string dir = std::string(STRATA_TEST_DATA) + "/text_vectorization/";
  const json g = json::parse(std::ifstream(dir + "models.json"))["tf_idf"];
  ModelDir models;
  models.add_file(1, dir + "model_tf_idf.keras", "model.keras");
  ModelRegistry registry(
      ModelManagerOptions{.name = "m", .base_path = models.path(), .file_system_poll_wait_seconds = 0, .batching = {}});
  RestHandler handler(registry);
  json plain = json::array(), encoded = json::array();
  for (const auto& text : g["input"]["values"]) {
    plain.push_back(json::array({text}));
    encoded.push_back(json::array({{{"b64", b64(text.get<std::string>())}}}));
  }
  RestResponse a = handler.handle("POST", "/v1/models/m:predict", json{{"instances", plain}}.dump());
  RestResponse b = handler.handle("POST", "/v1/models/m:predict", json{{"instances", encoded}}.dump());
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_EQ(b.status, 200) << b.body;
  EXPECT_EQ(a.body, b.body);
  const json out = json::parse(b.body)["predictions"];
  const auto want = g["prediction"]["values"].get<std::vector<float>>();
  const std::size_t cols = g["prediction"]["shape"][1].get<std::size_t>();
  ASSERT_EQ(out.size() * cols, want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(out[i / cols][i % cols].get<float>(), want[i], 1e-5f + 1e-4f * std::fabs(want[i])) << i;
  }
  // Columnar too, and bad base64 is a 400 naming where it was.
  RestResponse c = handler.handle("POST", "/v1/models/m:predict", json{{"inputs", encoded}}.dump());
  ASSERT_EQ(c.status, 200) << c.body;
  encoded[1][0]["b64"] = "not base64!";
  RestResponse bad = handler.handle("POST", "/v1/models/m:predict", json{{"instances", encoded}}.dump());
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("Unable to base64 decode"), std::string::npos) << bad.body;
  EXPECT_NE(bad.body.find("at instance 1[0]"), std::string::npos) << bad.body;
}

TEST(RestStrings, AB64ObjectIsAValueNotNamedInputs) {
  // One string per example: each instance is a string or a {"b64": ...} object, which is
  // the value itself (TF Serving's rule), not an object keyed by input name.
  const Signature sig{{{"text", DType::string, Shape{kUnknownDim}}}, {{"y", DType::float32, Shape{kUnknownDim, 1}}}};
  const std::string binary("\x00\xff\x80z", 4);
  PredictRequest r =
      parse_predict_request(json::parse(R"({"instances": [{"b64": ")" + b64(binary) + R"("}, "plain"]})"), sig);
  EXPECT_EQ(r.inputs[0].to_strings(), (std::vector<std::string>{binary, "plain"}));
  PredictRequest named = parse_predict_request(json::parse(R"({"instances": [{"text": {"b64": "YQ=="}}]})"), sig);
  EXPECT_EQ(named.inputs[0].to_strings(), (std::vector<std::string>{"a"}));
  // A number where a string goes still says what it expected.
  try {
    parse_predict_request(json::parse(R"({"instances": [3]})"), sig);
    ADD_FAILURE() << "no error";
  } catch (const ServingError& e) {
    EXPECT_NE(std::string(e.what()).find("expected a string or {\"b64\": ...}, got a number"), std::string::npos)
        << e.what();
  }
}

TEST(RestStrings, BytesOutputsAreB64AndOthersAreValidJsonStrings) {
  const Signature sig{{{"x", DType::float32, Shape{kUnknownDim, 1}}},
                      {{"label", DType::string, Shape{kUnknownDim}}, {"image_bytes", DType::string, Shape{kUnknownDim}}}};
  const std::string binary("\x89PNG\xff", 5);
  const std::vector<Tensor> outputs{Tensor::from_strings(Shape{2}, {"cat", binary}),
                                    Tensor::from_strings(Shape{2}, {binary, ""})};
  const json rows = json::parse(predict_response_json(RequestFormat::kRow, outputs, sig));
  EXPECT_EQ(rows["predictions"][0]["label"], "cat");
  EXPECT_EQ(rows["predictions"][0]["image_bytes"]["b64"], b64(binary));
  EXPECT_EQ(rows["predictions"][1]["image_bytes"]["b64"], "");
  // Not UTF-8 in an output not named *_bytes: replaced, and the body is still JSON.
  EXPECT_EQ(rows["predictions"][1]["label"], "\xef\xbf\xbdPNG\xef\xbf\xbd");
  const json columns = json::parse(predict_response_json(RequestFormat::kColumnar, outputs, sig));
  EXPECT_EQ(columns["outputs"]["image_bytes"][0]["b64"], b64(binary));
}

}  // namespace
}  // namespace strata::serving::string_values_test
