// The command-line tools: strata-predict on a Keras-saved model matches Keras's
// predictions; strata-inspect describes supported and unsupported files.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

#include "io/npy.h"
#include "keras_test_util.h"
#include "test_util.h"

#ifdef STRATA_TOOLS_DIR
namespace strata::tools_test {
namespace {

struct ToolRun {
  int status;
  std::string output;
};

ToolRun run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  int status = ::pclose(pipe);
  return {WEXITSTATUS(status), out};
}

const std::string kPredict = std::string(STRATA_TOOLS_DIR) + "/strata-predict";
const std::string kInspect = std::string(STRATA_TOOLS_DIR) + "/strata-inspect";

TEST(Tools, PredictMatchesKeras) {
  testing::ScratchDir dir;
  const std::string base = testing::golden_dir() + "/functional_mlp";
  ToolRun r = run(kPredict + " " + base + ".keras " + base + ".input0.npy -o " +
                  dir.file("out.npy") + " --batch-size 2");
  ASSERT_EQ(r.status, 0) << r.output;
  testing::expect_close(io::load_npy(dir.file("out.npy")), io::load_npy(base + ".output0.npy"),
                        "strata-predict");
  // Several inputs come in an .npz, several outputs go to one.
  const std::string multi = testing::golden_dir() + "/multi_io_shared";
  io::save_npz(dir.file("in.npz"), {{"a", io::load_npy(multi + ".input0.npy")},
                                    {"b", io::load_npy(multi + ".input1.npy")}});
  r = run(kPredict + " " + multi + ".h5 " + dir.file("in.npz") + " -o " + dir.file("out.npz"));
  ASSERT_EQ(r.status, 0) << r.output;
  auto outs = io::load_npz(dir.file("out.npz"));
  ASSERT_EQ(outs.size(), 2u);
  testing::expect_close(outs[1].second, io::load_npy(multi + ".output1.npy"), "output 1");
}

TEST(Tools, PredictReportsErrorsWithoutCrashing) {
  ToolRun r = run(kPredict + " /nonexistent.h5 /nonexistent.npy");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/nonexistent.h5"), std::string::npos) << r.output;
  r = run(kPredict + " only-one-arg");
  EXPECT_EQ(r.status, 2);
  r = run(kPredict + " a b --batch-size 0");
  EXPECT_EQ(r.status, 2);
}

TEST(Tools, InspectShowsVersionSummaryAndWeights) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  ToolRun r = run(kInspect + " " + testing::real_models_dir() + "/mlp_iris_k214.h5");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* part : {"keras_version: 2.1.4", "backend:       tensorflow", "dense_1/kernel",
                           "(4, 20)", "Total params"}) {
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
  }
  r = run(kInspect + " " + testing::real_models_dir() + "/lstm_stacked_k341_zip.keras");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* part : {"keras3-zip", "3.4.1", "2024-08-17@03:19:00", "lstm_1 (LSTM)"}) {
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
  }
}

TEST(Tools, InspectSaysWhichLayerClassesAreSupported) {
  // A Keras 3 layer class Strata lacks (Lambda, whose Python code it cannot run) is named as
  // such, beside those it has.
  ToolRun r = run(kInspect + " " + std::string(STRATA_TEST_DATA) + "/unsupported/lambda.keras");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* part : {"layer classes: 4, 1 not supported", "supported      Dense", "supported      Flatten",
                           "NOT SUPPORTED  Lambda", "Strata cannot build this model yet"}) {
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
  }
  r = run(kInspect + " " + std::string(STRATA_TEST_DATA) + "/applications/MobileNetV3Small.tf.h5");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* part : {"all supported", "supported      TFOpLambda math.multiply", "supported      Rescaling"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
}

}  // namespace
}  // namespace strata::tools_test
#endif
