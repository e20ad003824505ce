// The progress bar and per-epoch lines look like Keras's.
#include <gtest/gtest.h>

#include <sstream>

#include "models/progress_bar.h"
#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace progress_bar_test {

TEST(ProgressBar, FormatsValuesLikeKeras) {
  EXPECT_EQ(ProgressBar::format_value(0.51234f), "0.5123");
  EXPECT_EQ(ProgressBar::format_value(0.0f), "0.0000");
  EXPECT_EQ(ProgressBar::format_value(0.00012345f), "1.2345e-04");
  EXPECT_EQ(ProgressBar::format_value(12.5f), "12.5000");
}

TEST(ProgressBar, FinalLineShowsStepsBarTimeAndLogs) {
  std::ostringstream out;
  ProgressBar bar(1875, 1, out);
  bar.update(100, {{"loss", 0.7f}});  // not a terminal: nothing is drawn mid-epoch
  bar.finish({{"accuracy", 0.8123f}, {"loss", 0.5321f}});
  std::string line = out.str();
  EXPECT_EQ(line.rfind("1875/1875 ", 0), 0u) << line;
  EXPECT_NE(line.find("\u2501\u2501\u2501"), std::string::npos) << line;
  EXPECT_NE(line.find("/step - accuracy: 0.8123 - loss: 0.5321"), std::string::npos) << line;
  EXPECT_EQ(line.back(), '\n');
}

TEST(ProgressBar, VerboseTwoIsOneLinePerEpoch) {
  std::ostringstream out;
  ProgressBar bar(20, 2, out);
  bar.finish({{"loss", 1.0f}});
  std::string line = out.str();
  EXPECT_EQ(line.rfind("20/20 - ", 0), 0u) << line;
  EXPECT_EQ(line.find("\u2501"), std::string::npos) << line;
  EXPECT_NE(line.find(" - loss: 1.0000"), std::string::npos) << line;
}

TEST(ProgressBar, FitPrintsEpochHeadersAndValidationLogs) {
  auto in = Input({4});
  Model m(in, layers::Dense(3, {.activation = "softmax"})(in));
  m.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  auto [x, y] = test_data::blobs(40);
  ::testing::internal::CaptureStdout();
  m.fit(x, y, {.batch_size = 10, .epochs = 2, .verbose = 2, .validation_split = 0.25});
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("Epoch 1/2\n3/3 - "), std::string::npos) << out;
  EXPECT_NE(out.find("Epoch 2/2\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" - val_accuracy: "), std::string::npos) << out;
  EXPECT_NE(out.find(" - val_loss: "), std::string::npos) << out;

  ::testing::internal::CaptureStdout();
  m.fit(x, y, {.batch_size = 10, .epochs = 1, .verbose = 0});
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
}

}  // namespace progress_bar_test
