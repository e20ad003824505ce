// Models using options Strata once refused, saved by real Keras 3
// (tests/reference/make_keras_options_goldens.py: tests/data/keras_options/): recurrent
// layers without bias (LSTM, GRU with reset_after both ways, Bidirectional SimpleRNN),
// UpSampling2D bilinear and bicubic (channels first too), Dot on rank 4 and 5 inputs with
// normalize. They load in both formats and predict what Keras predicted; saved again by
// Strata, they come back the same, and the recurrent layers' files hold no bias.
#include <gtest/gtest.h>

#include "io/hdf5.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "test_util.h"

namespace strata::keras_options_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/keras_options/";

class KerasOptionsFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(KerasOptionsFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

TEST_P(KerasOptionsFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keras3, KerasOptionsFiles,
                         ::testing::Values("recurrent_no_bias", "upsampling_interpolated", "dot_high_rank"));

// As in Keras's own files: each recurrent layer's cell (each direction's) keeps a kernel and
// a recurrent kernel and nothing else, in the .h5's weight_names and the .keras's vars.
TEST(KerasOptionsFiles, RecurrentLayersWithoutBiasSaveNoBias) {
  Model model = models::load_model(kDir + "recurrent_no_bias.keras");
  testing::ScratchDir dir;
  model.save(dir.file("m.h5"));
  model.save(dir.file("m.keras"));

  io::h5::File h5(dir.file("m.h5"), io::h5::File::Mode::read);
  auto weights = h5.open_group("model_weights");
  const std::vector<std::pair<std::string, std::size_t>> recurrent{
      {"lstm", 2}, {"gru_reset_before", 2}, {"gru_reset_after", 2}, {"bidirectional", 4}};
  for (const auto& [layer, count] : recurrent) {
    const auto names = weights.open_group(layer).read_string_list_attribute("weight_names");
    EXPECT_EQ(names.size(), count) << layer;
    for (const auto& n : names) EXPECT_EQ(n.find("bias"), std::string::npos) << n;
  }

  io::ZipReader zip(dir.file("m.keras"));
  testing::write_bytes(dir.file("w.h5"), zip.read("model.weights.h5"));
  io::h5::File w(dir.file("w.h5"), io::h5::File::Mode::read);
  // .keras keys layers by class ("gru", "gru_1"), not by name.
  for (const std::string cell : {"layers/lstm/cell/vars/", "layers/gru/cell/vars/", "layers/gru_1/cell/vars/",
                                 "layers/bidirectional/forward_layer/cell/vars/",
                                 "layers/bidirectional/backward_layer/cell/vars/"}) {
    EXPECT_TRUE(w.has_dataset(cell + "1")) << cell;
    EXPECT_FALSE(w.has_dataset(cell + "2")) << cell;
  }
}

}  // namespace
}  // namespace strata::keras_options_files_test
