// NumPy .npy/.npz: files written by NumPy (tests/reference/make_npy_cases.py) read, and
// what we write read back (and by NumPy: the tools' outputs are checked in roundtrip_keras.py).
#include "io/npy.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "io/zip.h"
#include "test_util.h"

namespace strata::npy_test {
namespace {

std::string npy(const std::string& name) { return std::string(STRATA_TEST_DATA) + "/npy/" + name; }

TEST(Npy, ReadsWhatNumPyWrites) {
  Tensor a = io::load_npy(npy("f32_2x3x4.npy"));
  EXPECT_EQ(a.shape(), (Shape{2, 3, 4}));
  EXPECT_FLOAT_EQ(a.data<float>()[23], 23.0f / 8);
  Tensor d = io::load_npy(npy("f64_5.npy"));
  EXPECT_EQ(d.dtype(), DType::float32);
  EXPECT_FLOAT_EQ(d.data<float>()[0], -1.0f);
  EXPECT_EQ(io::load_npy(npy("i64_3.npy")).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, -2, 3}));
  EXPECT_EQ(io::load_npy(npy("u8_2x2.npy")).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 255, 7, 8}));
  EXPECT_EQ(io::load_npy(npy("bool_3.npy")).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 0, 1}));
  Tensor s = io::load_npy(npy("scalar.npy"));
  EXPECT_EQ(s.rank(), 0);
  EXPECT_FLOAT_EQ(s.item(), 2.5f);
  EXPECT_THROW_WITH(io::load_npy(npy("fortran.npy")), NotImplementedError, "Fortran");
  EXPECT_THROW_WITH(io::load_npy(npy("big_endian.npy")), NotImplementedError, ">f4");
}

TEST(Npy, ReadsStoredAndCompressedNpz) {
  auto stored = io::load_npz(npy("stored.npz"));
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].first, "x");
  EXPECT_EQ(stored[1].second.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3}));
  auto compressed = io::load_npz(npy("compressed.npz"));
  ASSERT_EQ(compressed.size(), 2u);
  EXPECT_EQ(compressed[1].first, "second");
  EXPECT_EQ(compressed[1].second.shape(), (Shape{100, 10}));
  EXPECT_FLOAT_EQ(compressed[1].second.data<float>()[999], 1.0f);
}

TEST(Npy, WritesAndReadsBack) {
  testing::ScratchDir dir;
  for (const Shape& shape : {Shape{}, Shape{7}, Shape{3, 4}, Shape{2, 1, 5}}) {
    Tensor t(shape);
    auto v = t.values<float>();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f;
    io::save_npy(dir.file("t.npy"), t);
    Tensor back = io::load_npy(dir.file("t.npy"));
    EXPECT_EQ(back.shape(), shape);
    EXPECT_EQ(back.to_vector<float>(), t.to_vector<float>());
    EXPECT_EQ(testing::read_bytes(dir.file("t.npy")).find("\n") % 64, 63u);  // header padded to 64
  }
  Tensor i64 = Tensor::from_vector<std::int64_t>({2}, {5, -6});
  io::save_npz(dir.file("a.npz"), {{"a", Tensor::filled({2, 2}, 1.5f)}, {"b", i64}}, true);
  auto back = io::load_npz(dir.file("a.npz"));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].second.to_vector<std::int64_t>(), (std::vector<std::int64_t>{5, -6}));
  io::ZipReader zip(dir.file("a.npz"));
  EXPECT_EQ(zip.names(), (std::vector<std::string>{"a.npy", "b.npy"}));
}

}  // namespace
}  // namespace strata::npy_test
