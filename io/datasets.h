// Built-in datasets, like keras.datasets: load_data() returns the train and test splits.
// Strata downloads nothing: the data comes from Debian's dataset packages (or a copy of
// their files in a directory you name).
#pragma once

#include <string>

#include "core/tensor.h"

namespace strata::datasets {

// What load_data() returns; supports `auto [x_train, y_train, x_test, y_test] = ...`.
struct TrainTestData {
  Tensor x_train;
  Tensor y_train;
  Tensor x_test;
  Tensor y_test;
};

namespace fashion_mnist {

// The directory Debian's `dataset-fashion-mnist` package installs.
inline constexpr const char* kDefaultDir = "/usr/share/datasets/fashion-mnist";

// Fashion-MNIST: x float32 (60000, 28, 28) / (10000, 28, 28) with raw pixel values 0..255
// (scale them yourself, as with Keras), y int64 (60000,) / (10000,) with classes 0..9.
// Looks in `data_dir` if given, else in $STRATA_DATA_DIR, else kDefaultDir; a directory
// is used if it holds the four files (`train-images-idx3-ubyte[.gz]`, ...) itself or in a
// `fashion-mnist/` subdirectory. Throws IOError saying what to install when missing.
TrainTestData load_data(const std::string& data_dir = "");

// The directory load_data() would read (same rules), or throws its IOError.
std::string find_data_dir(const std::string& data_dir = "");

}  // namespace fashion_mnist
}  // namespace strata::datasets
