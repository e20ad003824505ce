// BatchNormalization's batch renormalization (Keras 3.15's renorm, renorm_clipping,
// renorm_momentum) against real Keras: tests/data/batch_norm_renorm_golden.json
// (tests/reference/make_batch_norm_renorm_goldens.py). One training step per case, the
// corrections r and d unclipped, clipped on every side or one, with and without gamma and
// beta, over a masked sequence: the training output, the gradients to the input, gamma and
// beta (r and d held constant), the five statistics after the step, and the inference
// that follows, within 1e-5. Then the weights Keras creates, in its order and with its
// initial values, and Keras's checks of the clipping.
#include <gtest/gtest.h>

#include <cmath>

#include "batch_norm_step_golden.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/core/input_layer.h"
#include "layers/normalization/batch_normalization.h"
#include "models/model.h"
#include "../io/test_util.h"

namespace strata::batch_norm_renorm_test {
namespace {

using layers::NumberMap;

const std::string kGoldens = "batch_norm_renorm_golden.json";

class BatchNormRenormGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(BatchNormRenormGolden, OneTrainingStepMatchesKeras) {
  testing::expect_batch_norm_step_matches_keras(testing::golden_case(kGoldens, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Keras3, BatchNormRenormGolden, ::testing::ValuesIn(testing::golden_case_names(kGoldens)),
                         [](const auto& info) { return testing::test_name_of(info.param); });

// Keras's seven weights, in its order; the deviations start at the square root of the
// variance initializer's values, renorm_mean at the mean initializer's.
TEST(BatchNormRenorm, WeightsAreKerasSevenWithTheirInitialValues) {
  layers::BatchNormalization bn({.moving_mean_initializer = initializers::Constant(0.5),
                                 .moving_variance_initializer = initializers::Constant(4.0),
                                 .renorm = true,
                                 .name = "bn"});
  bn(Input({3}));
  std::vector<std::string> names;
  for (const Variable& w : bn.weights()) names.push_back(w.path());
  EXPECT_EQ(names, (std::vector<std::string>{"bn/gamma", "bn/beta", "bn/moving_mean", "bn/moving_variance",
                                             "bn/moving_stddev", "bn/renorm_mean", "bn/renorm_stddev"}));
  const auto w = bn.get_weights();
  for (std::int64_t i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(w[3].item(i), 4.f);
    EXPECT_FLOAT_EQ(w[4].item(i), 2.f);
    EXPECT_FLOAT_EQ(w[5].item(i), 0.5f);
    EXPECT_FLOAT_EQ(w[6].item(i), 2.f);
  }
  EXPECT_EQ(bn.trainable_weights().size(), 2u);
  // Without renorm, the four of before.
  layers::BatchNormalization plain;
  plain(Input({3}));
  EXPECT_EQ(plain.weights().size(), 4u);
}

TEST(BatchNormRenorm, TheClippingIsCheckedAsKerasChecksIt) {
  using Options = layers::BatchNormalizationOptions;
  EXPECT_THROW_WITH(layers::BatchNormalization(Options{.renorm = true, .renorm_clipping = NumberMap{{"rmaxx", 2.0}}}),
                    ValueError, "invalid key 'rmaxx'", "rmax, rmin, dmax");
  EXPECT_THROW_WITH(
      layers::BatchNormalization(Options{.renorm = true, .renorm_clipping = NumberMap{{"rmax", 0.5}, {"rmin", 2.0}}}),
      ValueError, "rmax should be greater than rmin");
  EXPECT_THROW_WITH(layers::BatchNormalization(Options{.renorm = true, .renorm_clipping = NumberMap{{"dmax", -1.0}}}),
                    ValueError, "dmax should be non-negative");
  // Unchecked without renorm, as Keras.
  EXPECT_NO_THROW(layers::BatchNormalization(Options{.renorm_clipping = NumberMap{{"other", 1.0}}}));
}

// Keras writes an unset clipping as {} once renorm is on (null otherwise), and reads it back.
TEST(BatchNormRenorm, ConfigIsWrittenAsKerasWritesIt) {
  const nlohmann::json on = io::layer_config(layers::BatchNormalization({.renorm = true, .renorm_momentum = 0.5}));
  EXPECT_EQ(on["renorm"], true);
  EXPECT_EQ(on["renorm_clipping"], nlohmann::json::object());
  EXPECT_EQ(on["renorm_momentum"], 0.5);
  const nlohmann::json clipped =
      io::layer_config(layers::BatchNormalization({.renorm = true, .renorm_clipping = NumberMap{{"dmax", 3.0}}}));
  EXPECT_EQ(clipped["renorm_clipping"], nlohmann::json::parse(R"({"dmax": 3.0})"));
  Layer again = io::layer_from_config({{"class_name", "BatchNormalization"}, {"config", clipped}}, {});
  const auto& options = dynamic_cast<const layers::BatchNormalizationImpl&>(again.impl()).options;
  EXPECT_TRUE(options.renorm);
  EXPECT_EQ(options.renorm_clipping, (NumberMap{{"dmax", 3.0}}));
  EXPECT_THROW_WITH(io::layer_from_config({{"class_name", "BatchNormalization"},
                                           {"config", {{"name", "b"}, {"renorm_clipping", {{"rmax", "big"}}}}}},
                                          {}),
                    ValueError, "'b'", "renorm_clipping", "a dict of numbers");
}

}  // namespace
}  // namespace strata::batch_norm_renorm_test
