// Damaged and foreign files: every loader fails with an Error naming the file (and the
// path inside it), never a crash. The fuzz test runs each load in a forked child so a
// crash would be seen, counted and reported rather than take the suite down.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <functional>
#include <map>

#include "child_process.h"
#include "core/error.h"
#include "io/checkpoint.h"
#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/npy.h"
#include "io/saving.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::bad_files_test {
namespace {

const std::string kIris = testing::real_models_dir() + "/mlp_iris_k214.h5";

TEST(BadFiles, TruncatedForeignAndPointerFilesNameTheFile) {
  testing::ScratchDir dir;
  const std::string bytes = testing::read_bytes(kIris);
  testing::write_bytes(dir.file("cut.h5"), bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW_WITH(models::load_model(dir.file("cut.h5")), Error, "cut.h5");
  testing::write_bytes(dir.file("text.h5"), "hello, this is not a model\n");
  EXPECT_THROW_WITH(models::load_model(dir.file("text.h5")), IOError, "text.h5",
                    "neither an HDF5 file nor a ZIP");
  testing::write_bytes(
      dir.file("lfs.h5"),
      "version https://git-lfs.github.com/spec/v1\noid sha256:4028f0b9\nsize 210980\n");
  EXPECT_THROW_WITH(models::load_model(dir.file("lfs.h5")), ValueError, "lfs.h5", "Git LFS pointer",
                    "git lfs pull");
  testing::write_bytes(dir.file("empty.keras"), "");
  EXPECT_THROW_WITH(models::load_model(dir.file("empty.keras")), IOError, "empty.keras");
  EXPECT_THROW_WITH(models::load_model(dir.file("absent.h5")), IOError, "absent.h5");
  testing::write_bytes(dir.file("zip.keras"), std::string("PK\x03\x04", 4) + std::string(40, '\0'));
  EXPECT_THROW_WITH(models::load_model(dir.file("zip.keras")), IOError, "zip.keras");
}

// A full-model file written from parts, so that one part can be wrong.
void write_model_file(const std::string& path, const std::string& version, bool with_bias,
                      Shape kernel_shape) {
  io::h5::File f(path, io::h5::File::Mode::create);
  if (!version.empty()) f.write_string_attribute("keras_version", version);
  f.write_string_attribute("model_config",
                           R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "Dense", "config": {"name": "dense_1", "units": 2, "batch_input_shape": [null, 3]}}]}})");
  io::h5::Group mw = f.create_group("model_weights");
  mw.write_string_list_attribute("layer_names", {"dense_1"});
  io::h5::Group g = mw.create_group("dense_1");
  g.write_string_list_attribute("weight_names", {"dense_1/kernel:0", "dense_1/bias:0"});
  g.create_dataset("dense_1/kernel:0", Tensor::filled(kernel_shape, 1.0f));
  if (with_bias) g.create_dataset("dense_1/bias:0", Tensor::filled({2}, 0.5f));
  f.close();
}

TEST(BadFiles, Keras1MissingWeightAndWrongShapeAreNamed) {
  testing::ScratchDir dir;
  write_model_file(dir.file("good.h5"), "2.1.4", true, {3, 2});
  EXPECT_EQ(models::load_model(dir.file("good.h5")).count_params(), 8);
  write_model_file(dir.file("k1.h5"), "", true, {3, 2});
  EXPECT_THROW_WITH(models::load_model(dir.file("k1.h5")), ValueError, "k1.h5", "Keras 1");
  write_model_file(dir.file("nobias.h5"), "2.1.4", false, {3, 2});
  EXPECT_THROW_WITH(models::load_model(dir.file("nobias.h5")), Error, "nobias.h5",
                    "dense_1/bias:0");
  write_model_file(dir.file("shape.h5"), "2.1.4", true, {4, 2});
  EXPECT_THROW_WITH(models::load_model(dir.file("shape.h5")), ValueError, "shape.h5",
                    "dense_1/kernel:0", "(4, 2)", "(3, 2)");
  // Weights-only files are not models.
  Sequential m({Input({3}), layers::Dense(2)});
  m.save_weights(dir.file("w.h5"));
  EXPECT_THROW_WITH(models::load_model(dir.file("w.h5")), ValueError, "w.h5", "load_weights");
}

TEST(BadFiles, DamagedNpyFilesFailCleanly) {
  testing::ScratchDir dir;
  io::save_npy(dir.file("a.npy"), Tensor::filled({4, 5}, 2.0f));
  const std::string bytes = testing::read_bytes(dir.file("a.npy"));
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, std::size_t{20}, bytes.size() - 1}) {
    testing::write_bytes(dir.file("cut.npy"), bytes.substr(0, cut));
    EXPECT_THROW_WITH(io::load_npy(dir.file("cut.npy")), IOError, "cut.npy");
  }
}

// A ZIP directory sizes the output before inflating: a damaged size is refused, not
// allocated.
TEST(BadFiles, ZipMemberDeclaringMoreThanDeflateCanProduceIsRefused) {
  io::ZipWriter zip;
  zip.add("config.json", std::string(1000, 'x'));
  const std::string bytes = zip.finish();
  const std::size_t directory = bytes.find("PK\x01\x02");
  ASSERT_NE(directory, std::string::npos);
  std::string damaged = bytes;
  for (int i = 0; i < 4; ++i) damaged[directory + 24 + i] = static_cast<char>(0xf0 | i);
  io::ZipReader reader(damaged, "damaged.keras");
  EXPECT_THROW_WITH(reader.read("config.json"), IOError, "damaged.keras", "config.json",
                    "the directory declares", "(the archive is damaged)");
  EXPECT_EQ(io::ZipReader(bytes, "good.keras").read("config.json"), std::string(1000, 'x'));
}

// A Zip64 field damaged to put a member's local header at 2^64 - 1: the reader's bounds
// check must not wrap around (it once read the bytes before the archive's buffer).
TEST(BadFiles, ZipOffsetThatWrapsAroundIsPastTheEnd) {
  const std::string path =
      std::string(STRATA_TEST_DATA) + "/fuzz_regressions/fuzz_npz/local-header-offset-wraps.npz";
  io::ZipReader reader(testing::read_bytes(path), "wraps.npz");
  EXPECT_THROW_WITH(reader.read("a.npy"), IOError, "wraps.npz",
                    "a record at byte 18446744073709551615 runs past the end");
}

// A dataspace damaged to declare a gigabyte where the file stores 1237 floats: refused
// before the tensor is allocated from it.
TEST(BadFiles, DatasetDeclaringMoreThanTheFileStoresIsRefused) {
  testing::ScratchDir dir;
  {
    io::h5::File f(dir.file("w.h5"), io::h5::File::Mode::create);
    f.create_dataset("kernel", Tensor::filled({1237}, 0.5f));
    f.close();
  }
  std::string bytes = testing::read_bytes(dir.file("w.h5"));
  // Dataspace message, version 1: version, rank 1, flags (1: maximum sizes follow), 5
  // reserved bytes, then the size and the maximum size.
  std::string size(8, '\0');
  size[0] = static_cast<char>(1237 & 0xff);
  size[1] = static_cast<char>(1237 >> 8);
  const std::size_t at = bytes.find(std::string("\x01\x01\x01", 3) + std::string(5, '\0') + size + size);
  ASSERT_NE(at, std::string::npos) << "no version-1 dataspace of (1237,) found";
  bytes[at + 8 + 3] = 0x10;  // 1237 + 2^28 elements
  bytes[at + 16 + 3] = 0x10;
  testing::write_bytes(dir.file("damaged.h5"), bytes);
  io::h5::File f(dir.file("damaged.h5"), io::h5::File::Mode::read);
  EXPECT_THROW_WITH(f.open_dataset("kernel").read(DType::float32), IOError, "damaged.h5", "kernel",
                    "declares shape (268436693,)", "the file stores 4948 bytes");
}

// Writes `values` as a float32 dataset "kernel" chunked `chunk` elements at a time and
// deflated, as h5py does with `chunks=..., compression="gzip"` (Strata itself writes
// contiguous datasets, so the file is made with libhdf5 directly).
void write_chunked_kernel(const std::string& path, const std::vector<float>& values, hsize_t chunk) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t extent = values.size();
  const hid_t space = H5Screate_simple(1, &extent, nullptr);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(create, 1, &chunk);
  H5Pset_deflate(create, 6);
  const hid_t dataset = H5Dcreate2(file, "kernel", H5T_IEEE_F32LE, space, H5P_DEFAULT, create, H5P_DEFAULT);
  const herr_t written = H5Dwrite(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(dataset);
  H5Pclose(create);
  H5Sclose(space);
  H5Fclose(file);
  ASSERT_GE(file, 0);
  ASSERT_GE(written, 0);
}

// libhdf5 maps every chunk of a chunked dataset before reading it, about a kilobyte each:
// a million one-element chunks took over 3 GB under the fuzzer (a damaged layout message
// does the same to any file). Refused by count first; h5py's chunks still read.
TEST(BadFiles, DatasetSplitIntoTooManyChunksIsRefused) {
  testing::ScratchDir dir;
  std::vector<float> values(70000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97);
  write_chunked_kernel(dir.file("tiny_chunks.h5"), values, 1);
  io::h5::File tiny(dir.file("tiny_chunks.h5"), io::h5::File::Mode::read);
  EXPECT_THROW_WITH(tiny.open_dataset("kernel").read(DType::float32), IOError, "tiny_chunks.h5", "kernel",
                    "declares shape (70000,)", "more than 65553 chunks");

  write_chunked_kernel(dir.file("h5py_chunks.h5"), values, 2048);  // 8 KiB: h5py's smallest
  io::h5::File usual(dir.file("h5py_chunks.h5"), io::h5::File::Mode::read);
  EXPECT_EQ(usual.open_dataset("kernel").read(DType::float32).to_vector<float>(), values);
}

// A config damaged to declare 24 GB of weights in a file of a few kilobytes fails before
// anything that size is allocated (on an overcommitting system the allocation itself
// would succeed, and initializing it would exhaust memory).
TEST(BadFiles, ConfigDeclaringMoreWeightsThanTheFileCanHoldIsRefused) {
  testing::ScratchDir dir;
  {
    io::h5::File f(dir.file("huge.h5"), io::h5::File::Mode::create);
    f.write_string_attribute("keras_version", "2.4.0");
    f.write_string_attribute("model_config",
                             R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
        {"class_name": "Dense", "config": {"name": "d", "units": 2000000000, "batch_input_shape": [null, 3]}}]}})");
    io::h5::Group mw = f.create_group("model_weights");
    mw.write_string_list_attribute("layer_names", {"d"});
    f.close();
  }
  EXPECT_THROW_WITH(models::load_model(dir.file("huge.h5")), IOError, "huge.h5", "weight 'd/kernel'",
                    "(3, 2000000000)", "the config is damaged");
  // The budget belongs to the load: a model built afterwards on this thread is unbounded.
  EXPECT_EQ(Sequential({Input({3}), layers::Dense(1 << 20)}).count_params(), 4 * (1 << 20));
}

// Inputs that once crashed or hung a reader (tests/data/fuzz_regressions/<target>/: the
// fuzzers' findings and the damage campaign's, see docs/reliability.md), each read in a
// forked child with a time limit: each must fail with a strata::Error.
TEST(BadFiles, FuzzRegressionsFailCleanly) {
  const std::map<std::string, std::function<void(const std::string&)>> readers = {
      {"fuzz_keras_h5", [](const std::string& p) { models::load_model(p); }},
      {"fuzz_keras_zip", [](const std::string& p) { models::load_model(p); }},
      {"fuzz_npy", [](const std::string& p) { io::load_npy(p); }},
      {"fuzz_npz", [](const std::string& p) { io::load_npz(p); }},
      {"fuzz_model_json", [](const std::string& p) { models::model_from_json(testing::read_bytes(p)); }},
      {"fuzz_checkpoint",
       [](const std::string& p) {  // the fuzz target's model
         optimizers::Adam adam({.learning_rate = 0.01});
         Sequential m({Input({3}), layers::Dense(4, {.activation = "relu"}), layers::Dense(1)});
         m.compile({.optimizer = adam, .loss = "mse"});
         io::load_checkpoint(p, m, adam);
       }},
  };
  int checked = 0;
  for (const auto& target : std::filesystem::directory_iterator(std::string(STRATA_TEST_DATA) + "/fuzz_regressions")) {
    const std::string name = target.path().filename().string();
    auto reader = readers.find(name);
    ASSERT_NE(reader, readers.end()) << "no reader for the regressions of " << name << ": add it here";
    for (const auto& input : std::filesystem::directory_iterator(target.path())) {
      const std::string path = input.path().string();
      EXPECT_EQ(testing::run_in_child([&] { reader->second(path); }), testing::kStrataError) << path;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(BadFiles, TruncatedAndBitFlippedRealFilesNeverCrash) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  testing::ScratchDir dir;
  const std::vector<std::string> sources = {kIris, testing::golden_dir() + "/functional_mlp.keras",
                                            testing::golden_dir() + "/nested.h5",
                                            testing::real_models_dir() + "/conv1d_nids_tf214.h5"};
  int loaded = 0, failed_cleanly = 0;
  std::vector<std::string> bad;
  for (const auto& src : sources) {
    const std::string bytes = testing::read_bytes(src);
    const std::string ext = std::filesystem::path(src).extension().string();
    std::vector<std::string> variants;
    for (int i = 1; i <= 40; ++i)
      variants.push_back(bytes.substr(0, bytes.size() * static_cast<std::size_t>(i) / 41));
    std::uint64_t state = 12345;
    for (int i = 0; i < 60; ++i) {
      std::string v = bytes;
      for (int flips = 0; flips < 1 + i % 4; ++flips) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        v[(state >> 17) % v.size()] ^= static_cast<char>(1 << ((state >> 9) % 8));
      }
      variants.push_back(v);
    }
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const std::string path = dir.file("damaged_" + std::to_string(i) + ext);
      testing::write_bytes(path, variants[i]);
      const std::string outcome = testing::run_in_child([&] { models::load_model(path); });
      if (outcome == testing::kFinished)
        ++loaded;
      else if (outcome == testing::kStrataError)
        ++failed_cleanly;
      else
        bad.push_back(src + " variant " + std::to_string(i) + ": " + outcome);
      std::filesystem::remove(path);
    }
  }
  std::cout << "[ damaged files ] loaded " << loaded << ", failed cleanly " << failed_cleanly
            << ", bad " << bad.size() << "\n";
  for (const auto& b : bad) ADD_FAILURE() << b;
  EXPECT_GT(failed_cleanly, 0);
}

}  // namespace
}  // namespace strata::bad_files_test
