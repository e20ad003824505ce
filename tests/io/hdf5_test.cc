#include "io/hdf5.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "core/precision_rounding.h"
#include "tests/io/test_util.h"

namespace strata::hdf5_test {
namespace {

using io::h5::File;
using io::h5::StringEncoding;
using testing::ScratchDir;

const std::string kKerasModels = std::string(STRATA_SHARED_DIR) + "/keras-models";

TEST(Hdf5, StringAttributesRoundTrip) {
  ScratchDir dir;
  {
    File f(dir.file("a.h5"), File::Mode::create);
    f.write_string_attribute("backend", "tensorflow", StringEncoding::ascii);
    f.write_string_attribute("note", "naïve ünïcode");
    f.write_string_list_attribute("layer_names", {"dense", "dense_1", "a_much_longer_name"});
    auto g = f.create_group("layer/inner");
    g.write_string_list_attribute("weight_names", {});
    f.write_string_list_attribute("one_fixed", {"x"});
    f.close();
  }
  File f(dir.file("a.h5"), File::Mode::read);
  EXPECT_EQ(f.read_string_attribute("backend"), "tensorflow");
  EXPECT_EQ(f.read_string_attribute("note"), "naïve ünïcode");
  EXPECT_EQ(f.read_string_list_attribute("layer_names"),
            (std::vector<std::string>{"dense", "dense_1", "a_much_longer_name"}));
  auto g = f.open_group("layer/inner");
  EXPECT_EQ(g.path(), "/layer/inner");
  EXPECT_TRUE(g.read_string_list_attribute("weight_names").empty());
  EXPECT_EQ(f.read_string_attribute("one_fixed"), "x");  // fixed-length, one element
  EXPECT_THROW_WITH(f.read_string_attribute("layer_names"), ValueError, "one string", "found 3");
  EXPECT_TRUE(f.has_group("layer"));
  EXPECT_FALSE(f.has_dataset("layer"));
  EXPECT_FALSE(f.exists("layer/missing/deeper"));
  EXPECT_EQ(f.children(), (std::vector<std::string>{"layer"}));
}

TEST(Hdf5, LongStringListsAreChunkedLikeKeras) {
  ScratchDir dir;
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) names.push_back("layer_with_a_long_name_" + std::to_string(i));
  {
    File f(dir.file("big.h5"), File::Mode::create);
    f.write_string_list_attribute("layer_names", names);
  }
  File f(dir.file("big.h5"), File::Mode::read);
  EXPECT_FALSE(f.has_attribute("layer_names"));
  EXPECT_TRUE(f.has_attribute("layer_names0"));
  EXPECT_TRUE(f.has_attribute("layer_names1"));
  EXPECT_EQ(f.read_string_list_attribute("layer_names"), names);
}

TEST(Hdf5, DatasetsRoundTripWithNestedNames) {
  ScratchDir dir;
  Tensor kernel = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor counter = Tensor::from_vector<std::int64_t>({}, {42});
  {
    File f(dir.file("d.h5"), File::Mode::create);
    auto g = f.create_group("dense");
    g.create_dataset("dense/kernel:0", kernel);
    f.create_dataset("iteration", counter);
  }
  File f(dir.file("d.h5"), File::Mode::read);
  EXPECT_TRUE(f.has_group("dense/dense"));
  auto ds = f.open_group("dense").open_dataset("dense/kernel:0");
  EXPECT_EQ(ds.path(), "/dense/dense/kernel:0");
  EXPECT_EQ(ds.shape(), (Shape{2, 3}));
  EXPECT_EQ(ds.type_name(), "float32");
  EXPECT_EQ(ds.read(DType::float32).to_vector<float>(), kernel.to_vector<float>());
  auto it = f.open_dataset("iteration");
  EXPECT_EQ(it.shape(), Shape{});
  EXPECT_EQ(it.read(DType::int64).item(), 42.0f);
  EXPECT_THROW_WITH(ds.read(DType::int64), ValueError, "float32", "int64", "/dense/dense/kernel:0");
}

TEST(Hdf5, ErrorsNameTheFileAndPath) {
  ScratchDir dir;
  EXPECT_THROW_WITH(File(dir.file("missing.h5"), File::Mode::read), IOError, "missing.h5",
                    "does not exist");
  testing::write_bytes(dir.file("text.h5"), "this is not hdf5");
  EXPECT_THROW_WITH(File(dir.file("text.h5"), File::Mode::read), IOError, "text.h5",
                    "HDF5 signature");
  {
    File f(dir.file("ok.h5"), File::Mode::create);
    f.create_group("a");
  }
  File f(dir.file("ok.h5"), File::Mode::read);
  EXPECT_THROW_WITH(f.open_group("a/b"), IOError, "ok.h5", "'/a/b'", "no such group");
  EXPECT_THROW_WITH(f.open_dataset("a"), IOError, "'/a'", "expected a dataset");
  EXPECT_THROW_WITH(f.read_string_attribute("nope"), IOError, "ok.h5", "no attribute 'nope'");
  EXPECT_THROW_WITH(File(dir.file("ok.h5"), File::Mode::create), IOError, "ok.h5", "cannot create");
}

TEST(Hdf5, TruncatedFileIsIOError) {
  ScratchDir dir;
  {
    File f(dir.file("full.h5"), File::Mode::create);
    f.create_dataset("w", Tensor::filled({100, 100}, 1.0f));
  }
  const std::string bytes = testing::read_bytes(dir.file("full.h5"));
  for (std::size_t keep :
       {bytes.size() - 100, bytes.size() / 2, std::size_t{600}, std::size_t{10}}) {
    testing::write_bytes(dir.file("cut.h5"), bytes.substr(0, keep));
    EXPECT_THROW(
        {
          File f(dir.file("cut.h5"), File::Mode::read);
          f.open_dataset("w").read(DType::float32);
        },
        IOError)
        << "kept " << keep << " of " << bytes.size() << " bytes";
  }
}

// Files written by h5py for real Keras: `layer_names` as a fixed-length array (Keras 2.3)
// and a variable-length one (tf.keras 2.14); variable-length scalars; empty float64
// arrays for weightless layers.
TEST(Hdf5, ReadsAttributesOfRealKerasFiles) {
  if (!std::filesystem::exists(kKerasModels)) GTEST_SKIP() << "no " << kKerasModels;
  {
    File f(kKerasModels + "/cnn_mnist_k231.h5", File::Mode::read);
    EXPECT_EQ(f.read_string_attribute("keras_version"), "2.3.1");
    EXPECT_EQ(f.read_string_attribute("backend"), "tensorflow");
    auto mw = f.open_group("model_weights");
    auto names = mw.read_string_list_attribute("layer_names");
    ASSERT_EQ(names.size(), 8u);
    EXPECT_EQ(names[0], "conv2d_1");
    EXPECT_EQ(names[7], "dense_2");
    EXPECT_TRUE(mw.open_group("flatten_1").read_string_list_attribute("weight_names").empty());
    EXPECT_EQ(mw.open_group("dense_2").read_string_list_attribute("weight_names"),
              (std::vector<std::string>{"dense_2/kernel:0", "dense_2/bias:0"}));
  }
  {
    File f(kKerasModels + "/conv1d_nids_tf214.h5", File::Mode::read);
    EXPECT_EQ(f.read_string_attribute("keras_version"), "2.14.0");
    EXPECT_NE(f.read_string_attribute("model_config").find("\"class_name\""), std::string::npos);
    auto mw = f.open_group("model_weights");
    // Sequential's model.layers leaves out its InputLayer.
    EXPECT_EQ(mw.read_string_list_attribute("layer_names"),
              (std::vector<std::string>{"conv1d", "flatten", "dense", "dense_1"}));
    auto ds = mw.open_group("dense").open_dataset("dense/kernel:0");
    EXPECT_EQ(ds.shape(), (Shape{128, 64}));
  }
}

// tests/io/data/h5py_cases.h5, written by h5py (make_h5py_cases.py beside it).
TEST(Hdf5, ReadsWhatH5pyWrites) {
  // (Not __FILE__: a compiler cache with a base directory makes it relative.)
  const std::string path = std::string(STRATA_TEST_DATA) + "/../io/data/h5py_cases.h5";
  File f(path, File::Mode::read);
  EXPECT_EQ(f.read_string_attribute("vlen_str"), "tensorflow");
  EXPECT_EQ(f.read_string_attribute("vlen_bytes"), "2.15.0");
  EXPECT_EQ(f.read_string_attribute("fixed_scalar"), "2.2.4");
  EXPECT_EQ(f.read_string_list_attribute("fixed_list"),
            (std::vector<std::string>{"dense", "dense_1"}));
  EXPECT_EQ(f.read_string_list_attribute("vlen_list"),
            (std::vector<std::string>{"conv1d", "flatten", "dense"}));
  EXPECT_TRUE(f.read_string_list_attribute("empty_list").empty());
  const auto big = f.read_string_list_attribute("big");
  ASSERT_EQ(big.size(), 200u);
  EXPECT_EQ(big[0], "layer_00000");
  EXPECT_EQ(big[199], "layer_00199");
  EXPECT_THROW_WITH(f.read_string_attribute("number"), ValueError, "'number'", "float64");

  EXPECT_EQ(f.open_dataset("f64").type_name(), "float64");
  EXPECT_EQ(f.open_dataset("f64").read(DType::float32).to_vector<float>(),
            (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1, 1.25f}));
  EXPECT_EQ(f.open_dataset("f16").type_name(), "float16");
  EXPECT_EQ(f.open_dataset("f16").read(DType::float32).to_vector<float>(),
            (std::vector<float>{0.5f, -2.0f, 1024.0f}));
  EXPECT_EQ(f.open_dataset("i32").read(DType::int64).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, -2, 3}));
  EXPECT_EQ(f.open_dataset("u8").read(DType::float32).to_vector<float>(),
            (std::vector<float>{0, 255}));
  EXPECT_EQ(f.open_dataset("scalar_i64").shape(), Shape{});
  EXPECT_EQ(f.open_dataset("scalar_i64").read(DType::int64).item(), 7.0f);
  // 16-bit words marked bfloat16 (h5py's attribute, as ml_dtypes' bfloat16 arrays have it)
  // read as the bfloat16 values those bits are: float32's top 16 bits.
  EXPECT_EQ(f.open_dataset("bf16").read(DType::float32).to_vector<float>(),
            (std::vector<float>{bfloat16_value(1), bfloat16_value(2)}));
  EXPECT_THROW_WITH(f.open_dataset("bf16").read(DType::int64), ValueError, "bfloat16", "'/bf16'");
  EXPECT_THROW_WITH(f.open_dataset("strings").read(DType::float32), ValueError, "'/strings'",
                    "string");
}

}  // namespace
}  // namespace strata::hdf5_test
