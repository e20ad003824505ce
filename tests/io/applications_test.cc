// keras.applications models saved by Keras 3 (.keras and legacy .h5) and by tf.keras (.h5),
// loaded by Strata and compared with the prediction of the Keras that saved them (issue #13,
// point 5). Goldens: tests/reference/make_applications_goldens.py.
//
//   Committed/...  tests/data/applications: every application at reduced width and depth
//                  (the same layer classes, op layers and config shapes as the real ones).
//   Full/...       the real constructors at full width on small inputs; not committed
//                  (about 2 GB). Runs when STRATA_APPLICATIONS_DIR names the directory the
//                  script wrote with --full, and is skipped otherwise. See docs/applications.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <ostream>
#include <filesystem>
#include <string>
#include <vector>

#include "io/npy.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "models/model.h"

namespace strata::applications_test {
namespace {

const std::vector<std::string> kApplications = {
    "MobileNet",      "MobileNetV2",      "MobileNetV3Small", "MobileNetV3Large", "ResNet50",
    "ResNet50V2",     "DenseNet121",      "EfficientNetB0",   "EfficientNetV2B0", "Xception",
    "InceptionV3",    "VGG16",            "NASNetMobile",     "ConvNeXtTiny"};

// The three files of each application: (file suffix, golden base suffix, test-name suffix).
struct Format {
  std::string ext, golden, label;
};
const std::vector<Format> kFormats = {{".keras", "", "keras3_zip"},
                                      {".h5", "", "keras3_h5"},
                                      {".tf.h5", ".tf", "tf_keras_h5"}};

struct Case {
  std::string model;
  Format format;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const auto& m : kApplications)
    for (const auto& f : kFormats) cases.push_back({m, f});
  return cases;
}

// How gtest prints a case (instead of its bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.model << c.format.ext; }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.model + "_" + info.param.format.label;
}

// Largest |ours - keras| / (|keras| + 1e-6), for the log.
double max_relative(const Tensor& ours, const Tensor& keras) {
  auto a = ours.to_vector<float>();
  auto b = keras.to_vector<float>();
  double worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    worst = std::max(worst, std::fabs(double(a[i]) - b[i]) / (std::fabs(double(b[i])) + 1e-6));
  return worst;
}

void check_application(const std::string& dir, const Case& c) {
  const std::string path = dir + "/" + c.model + c.format.ext;
  const std::string golden = dir + "/" + c.model + c.format.golden;
  SCOPED_TRACE(path);
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing";
  const Tensor x = io::load_npy(dir + "/" + c.model + ".input0.npy");  // one for the 3 files
  const Tensor y = io::load_npy(golden + ".output0.npy");
  Tensor out;
  try {
    Model model = models::load_model(path);
    out = model.predict(x);
  } catch (const std::exception& e) {  // the message names the missing class or the problem
    FAIL() << c.model << c.format.ext << ": " << e.what();
  }
  std::cout << "[ applications ] " << c.model << c.format.ext << ": max relative difference "
            << max_relative(out, y) << "\n";
  // 1e-4 relative, with Keras's goldens as reference (plus 1e-5 absolute for values near 0).
  testing::expect_close(out, y, c.model + c.format.ext, 1e-5f, 1e-4f);
}

class CommittedApplications : public ::testing::TestWithParam<Case> {};

TEST_P(CommittedApplications, LoadsAndPredictsWhatKerasPredicts) {
  check_application(std::string(STRATA_TEST_DATA) + "/applications", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Committed, CommittedApplications, ::testing::ValuesIn(all_cases()),
                         case_name);

class FullApplications : public ::testing::TestWithParam<Case> {};

TEST_P(FullApplications, LoadsAndPredictsWhatKerasPredicts) {
  const char* dir = std::getenv("STRATA_APPLICATIONS_DIR");
  if (!dir || !*dir) {
    GTEST_SKIP() << "STRATA_APPLICATIONS_DIR is not set: the full-width keras.applications "
                    "files are not committed (about 2 GB). Generate them with "
                    "`KERAS_BACKEND=tensorflow python3 tests/reference/"
                    "make_applications_goldens.py --full build/applications_full` and run with "
                    "STRATA_APPLICATIONS_DIR=$PWD/build/applications_full (docs/applications.md).";
  }
  const Case& c = GetParam();
  if (!std::filesystem::exists(std::string(dir) + "/" + c.model + c.format.ext)) {
    GTEST_SKIP() << dir << "/" << c.model << c.format.ext
                 << " does not exist (the script was run with --only other models?)";
  }
  check_application(dir, c);
}

INSTANTIATE_TEST_SUITE_P(Full, FullApplications, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace strata::applications_test
