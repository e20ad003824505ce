#include "io/idx.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "io/datasets.h"
#include "tests/scoped_env.h"
#include "tests/io/test_util.h"

namespace strata::idx_test {
namespace {

using io::read_idx;
using io::read_idx_header;
using io::read_idx_images;
using io::read_idx_labels;
using io::write_idx_uint8;
using testing::ScratchDir;

void gzip_file(const std::string& from, const std::string& to) {
  const std::string bytes = testing::read_bytes(from);
  gzFile out = gzopen(to.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(out);
}

std::vector<std::uint8_t> ramp(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>((i * 7) % 256);
  return v;
}

TEST(Idx, ReadsImagesAsRawFloat32) {
  ScratchDir dir;
  const auto values = ramp(3 * 4 * 5);
  write_idx_uint8(dir.file("images-idx3-ubyte"), {3, 4, 5}, values);
  Tensor x = read_idx_images(dir.file("images-idx3-ubyte"));
  EXPECT_EQ(x.shape(), (Shape{3, 4, 5}));
  EXPECT_EQ(x.dtype(), DType::float32);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(x.item(i), values[i]);
  EXPECT_EQ(x.item(36), 252.0f);  // no scaling to [0, 1]
}

TEST(Idx, ReadsLabelsAsInt64) {
  ScratchDir dir;
  write_idx_uint8(dir.file("labels-idx1-ubyte"), {6}, {0, 1, 9, 3, 255, 7});
  Tensor y = read_idx_labels(dir.file("labels-idx1-ubyte"));
  EXPECT_EQ(y.shape(), (Shape{6}));
  EXPECT_EQ(y.dtype(), DType::int64);
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 9, 3, 255, 7}));
}

TEST(Idx, ReadsGzipCompressedFilesByContent) {
  ScratchDir dir;
  const auto values = ramp(2 * 28 * 28);
  write_idx_uint8(dir.file("plain"), {2, 28, 28}, values);
  gzip_file(dir.file("plain"), dir.file("images.gz"));
  gzip_file(dir.file("plain"), dir.file("no_gz_suffix"));
  for (const char* name : {"images.gz", "no_gz_suffix"}) {
    Tensor x = read_idx_images(dir.file(name));
    EXPECT_EQ(x.shape(), (Shape{2, 28, 28}));
    EXPECT_EQ(x.item(100), values[100]);
    EXPECT_EQ(x.item(2 * 28 * 28 - 1), values.back());
  }
  EXPECT_EQ(read_idx_header(dir.file("images.gz")).dims, (std::vector<std::int64_t>{2, 28, 28}));
}

TEST(Idx, MissingFileIsIOErrorNamingIt) {
  EXPECT_THROW_WITH(read_idx_images("/nonexistent/train-images-idx3-ubyte.gz"), IOError,
                    "/nonexistent/train-images-idx3-ubyte.gz", "does not exist");
}

TEST(Idx, BadMagicIsIOErrorWithExpectedAndFound) {
  ScratchDir dir;
  testing::write_bytes(dir.file("bad"), std::string("PK\x03\x04 not an idx file", 20));
  EXPECT_THROW_WITH(read_idx(dir.file("bad"), DType::float32), IOError, dir.file("bad"),
                    "bad magic", "expected 00 00", "found 0x50 0x4b 0x03 0x04");
  testing::write_bytes(dir.file("badtype"), std::string("\x00\x00\x07\x01\x00\x00\x00\x01x", 9));
  EXPECT_THROW_WITH(read_idx(dir.file("badtype"), DType::float32), IOError, "found 0x00 0x00 0x07");
}

TEST(Idx, TruncatedFilesAreIOErrors) {
  ScratchDir dir;
  write_idx_uint8(dir.file("full"), {10, 3, 3}, ramp(90));
  const std::string bytes = testing::read_bytes(dir.file("full"));
  // Cut inside the data, inside the dimensions, and inside the magic.
  testing::write_bytes(dir.file("cut_data"), bytes.substr(0, bytes.size() - 5));
  EXPECT_THROW_WITH(read_idx_images(dir.file("cut_data")), IOError, "truncated", "(10, 3, 3)",
                    "need 90 data bytes", "found 85");
  testing::write_bytes(dir.file("cut_dims"), bytes.substr(0, 9));
  EXPECT_THROW_WITH(read_idx_images(dir.file("cut_dims")), IOError, "truncated", "3 dimensions");
  testing::write_bytes(dir.file("cut_magic"), bytes.substr(0, 2));
  EXPECT_THROW_WITH(read_idx_images(dir.file("cut_magic")), IOError, "truncated", "magic");
  // A gzip stream cut short.
  gzip_file(dir.file("full"), dir.file("full.gz"));
  const std::string gz = testing::read_bytes(dir.file("full.gz"));
  testing::write_bytes(dir.file("cut.gz"), gz.substr(0, gz.size() / 2));
  EXPECT_THROW(read_idx_images(dir.file("cut.gz")), IOError);
}

// A damaged header may declare 2^48 bytes in a 16-byte file: reading reports the
// truncation without first trying to allocate what the header claims.
TEST(Idx, HugeDeclaredDimensionsAreATruncationNotAnAllocation) {
  ScratchDir dir;
  const std::string huge = {0, 0, 0x08, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2, 3};
  testing::write_bytes(dir.file("huge"), huge);
  EXPECT_THROW_WITH(read_idx_images(dir.file("huge")), IOError, "truncated",
                    "(65536, 65536, 65536)", "need 281474976710656 data bytes", "found 3");
}

TEST(Idx, TrailingBytesAreIOError) {
  ScratchDir dir;
  write_idx_uint8(dir.file("full"), {4}, {1, 2, 3, 4});
  testing::write_bytes(dir.file("long"), testing::read_bytes(dir.file("full")) + "xyz");
  EXPECT_THROW_WITH(read_idx_labels(dir.file("long")), IOError, "data past");
}

TEST(Idx, RankIsChecked) {
  ScratchDir dir;
  write_idx_uint8(dir.file("labels"), {4}, {1, 2, 3, 4});
  write_idx_uint8(dir.file("images"), {1, 2, 2}, {1, 2, 3, 4});
  EXPECT_THROW_WITH(read_idx_images(dir.file("labels")), IOError, "rank >= 2", "(4,)");
  EXPECT_THROW_WITH(read_idx_labels(dir.file("images")), IOError, "rank 1", "(1, 2, 2)");
}

// ---- datasets::fashion_mnist

void write_fake_fashion_mnist(const std::string& dir, int n_train, int n_test) {
  std::filesystem::create_directories(dir);
  auto images = [](int n) { return ramp(static_cast<std::size_t>(n) * 28 * 28); };
  auto labels = [](int n) {
    std::vector<std::uint8_t> y(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i % 10);
    return y;
  };
  write_idx_uint8(dir + "/train-images-idx3-ubyte", {n_train, 28, 28}, images(n_train));
  write_idx_uint8(dir + "/train-labels-idx1-ubyte", {n_train}, labels(n_train));
  write_idx_uint8(dir + "/t10k-images-idx3-ubyte", {n_test, 28, 28}, images(n_test));
  write_idx_uint8(dir + "/t10k-labels-idx1-ubyte", {n_test}, labels(n_test));
}

TEST(FashionMnist, LoadsFromGivenDirectoryOrItsSubdirectory) {
  ScratchDir dir;
  write_fake_fashion_mnist(dir.file("fashion-mnist"), 12, 5);
  for (const std::string& where : {dir.path().string(), dir.file("fashion-mnist")}) {
    auto [x_train, y_train, x_test, y_test] = datasets::fashion_mnist::load_data(where);
    EXPECT_EQ(x_train.shape(), (Shape{12, 28, 28}));
    EXPECT_EQ(y_train.shape(), (Shape{12}));
    EXPECT_EQ(x_test.shape(), (Shape{5, 28, 28}));
    EXPECT_EQ(y_test.dtype(), DType::int64);
    EXPECT_EQ(y_train.item(11), 1.0f);
  }
}

TEST(FashionMnist, HonoursStrataDataDir) {
  ScratchDir dir;
  write_fake_fashion_mnist(dir.file("fashion-mnist"), 3, 2);
  const datasets::TrainTestData data = [&] {
    testing::ScopedEnv data_dir("STRATA_DATA_DIR", dir.path().c_str());
    return datasets::fashion_mnist::load_data();
  }();
  EXPECT_EQ(data.x_train.shape(), (Shape{3, 28, 28}));
  EXPECT_EQ(data.x_test.shape(), (Shape{2, 28, 28}));
}

TEST(FashionMnist, MissingDataSaysWhatToInstall) {
  ScratchDir dir;
  EXPECT_THROW_WITH(datasets::fashion_mnist::load_data(dir.path().string()), IOError,
                    dir.path().string(), "dataset-fashion-mnist", "STRATA_DATA_DIR",
                    "train-images-idx3-ubyte.gz");
}

// The real files from Debian's dataset-fashion-mnist, when installed.
TEST(FashionMnist, RealDebianFiles) {
  const std::string dir = datasets::fashion_mnist::kDefaultDir;
  if (!std::filesystem::exists(dir + "/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist not installed";
  }
  EXPECT_EQ(read_idx_header(dir + "/train-images-idx3-ubyte.gz").dims,
            (std::vector<std::int64_t>{60000, 28, 28}));
  EXPECT_EQ(read_idx_header(dir + "/t10k-images-idx3-ubyte.gz").dims,
            (std::vector<std::int64_t>{10000, 28, 28}));
  EXPECT_EQ(read_idx_header(dir + "/train-images-idx3-ubyte.gz").type_code, 0x08);
  auto data = datasets::fashion_mnist::load_data(dir);
  EXPECT_EQ(data.x_train.shape(), (Shape{60000, 28, 28}));
  EXPECT_EQ(data.y_train.shape(), (Shape{60000}));
  EXPECT_EQ(data.x_test.shape(), (Shape{10000, 28, 28}));
  EXPECT_EQ(data.y_test.shape(), (Shape{10000}));
  for (const Tensor* y : {&data.y_train, &data.y_test}) {
    std::vector<std::int64_t> counts(10, 0);
    for (std::int64_t label : y->values<std::int64_t>()) {
      ASSERT_GE(label, 0);
      ASSERT_LE(label, 9);
      ++counts[static_cast<std::size_t>(label)];
    }
    for (std::int64_t c : counts) EXPECT_EQ(c, y->size() / 10);  // balanced classes
  }
  float lo = 255, hi = 0;
  for (float v : data.x_test.values<float>()) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 255.0f);
}

// The committed excerpt of Fashion-MNIST's test set (the first three images, raw, and
// their labels, gzip-compressed) that also seeds tests/fuzz/fuzz_idx.
TEST(Idx, CommittedFashionMnistExcerptReads) {
  const std::string dir = std::string(STRATA_TEST_DATA) + "/idx/";
  const Tensor images = read_idx_images(dir + "t10k-images-first3-idx3-ubyte");
  EXPECT_EQ(images.shape(), (Shape{3, 28, 28}));
  float max = 0;
  for (float v : images.values<float>()) max = std::max(max, v);
  EXPECT_EQ(max, 255.f);
  const Tensor labels = read_idx_labels(dir + "t10k-labels-first3-idx1-ubyte.gz");
  EXPECT_EQ(labels.to_string(), "Tensor(shape=(3,), dtype=int64, values=[9, 2, 1])");
}

}  // namespace
}  // namespace strata::idx_test
