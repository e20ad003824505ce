// Dataset's file sources (io/dataset_files.cc): .npy/.npz, CSV and IDX files, and the
// errors for bad files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "data/dataset.h"
#include "io/csv.h"
#include "io/idx.h"

using namespace strata;

namespace dataset_files_test {

namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& name) { return std::string(STRATA_TEST_DATA) + "/dataset/" + name; }

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("strata_dataset_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST(DatasetFiles, ReadsNumpyFiles) {
  Dataset d = Dataset::from_npy(fixture("x.npy"), fixture("y_int32.npy")).batch(6);
  auto e = d.iterate()->next();
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)[0].shape(), (Shape{6, 4}));
  EXPECT_EQ((*e)[0].item(5), 1.25f);
  EXPECT_EQ((*e)[1].dtype(), DType::int64);
  EXPECT_EQ((*e)[1].item(4), 1.f);
  auto f64 = Dataset::from_npy(fixture("x_f64.npy")).batch(6).iterate()->next();
  EXPECT_EQ((*f64)[0].item(23), 5.75f);
  for (const auto& [file, xk, yk] : {std::tuple{"xy.npz", "x", "y"}, std::tuple{"xy_compressed.npz", "features", "labels"}}) {
    SCOPED_TRACE(file);
    auto z = Dataset::from_npz(fixture(file), xk, yk).batch(6).iterate()->next();
    ASSERT_TRUE(z);
    EXPECT_EQ((*z)[0].item(23), 5.75f);
    EXPECT_EQ((*z)[1].item(5), 2.f);
  }
  try {
    Dataset::from_npz(fixture("xy.npz"), "nope");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("it holds 'x', 'y'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Dataset::from_npy(fixture("README.md")), IOError);
}

TEST(DatasetFiles, ReadsCsvWithColumnSelectionAndLabel) {
  std::string path = write_temp("ok.csv", "a,b,label,c\n1,2,0,3\n4,5,1,6\n\n7,8,1,9\r\n");
  auto e = Dataset::from_csv(path, {.label_column = "label"}).batch(3).iterate()->next();
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)[0].shape(), (Shape{3, 3}));
  EXPECT_EQ((*e)[0].item(3), 4.f);  // a, b, c of row 2
  EXPECT_EQ((*e)[0].item(5), 6.f);
  EXPECT_EQ((*e)[1].shape(), (Shape{3}));
  auto sel = Dataset::from_csv(path, {.columns = {"c", "a"}}).batch(3).iterate()->next();
  EXPECT_EQ((*sel)[0].item(0), 3.f);
  EXPECT_EQ((*sel)[0].item(1), 1.f);
  EXPECT_THROW(Dataset::from_csv(path, {.columns = {"zz"}}), ValueError);
  fs::remove(path);
}

// The committed CSV files that also seed tests/fuzz/fuzz_csv.
TEST(DatasetFiles, CommittedCsvFilesRead) {
  const std::string dir = std::string(STRATA_TEST_DATA) + "/csv/";
  const io::CsvTable iris = io::read_csv(dir + "iris_head.csv");
  EXPECT_EQ(iris.rows, 7);
  EXPECT_EQ(iris.columns.size(), 5u);
  const Tensor selected = iris.select({"petal_length", "species"});
  EXPECT_EQ(selected.shape(), (Shape{7, 2}));
  const std::vector<float> expected = {1.4f, 0, 1.4f, 0, 1.3f, 0, 4.7f, 1, 4.5f, 1, 6.f, 2, 5.1f, 2};
  EXPECT_EQ(std::vector<float>(selected.values<float>().begin(), selected.values<float>().end()),
            expected);
  const io::CsvTable plain = io::read_csv(dir + "no_header_crlf.csv", {.header = false});
  EXPECT_EQ(plain.rows, 3);
  EXPECT_EQ(plain.columns, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(plain.values, (std::vector<float>{1.5f, -2, 0.03f, 4, 5.25f, 6, 7, 8, 9}));
}

TEST(DatasetFiles, CsvErrorsNameTheLineAndColumn) {
  std::string ragged = write_temp("ragged.csv", "a,b\n1,2\n3\n");
  try {
    io::read_csv(ragged);
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find(ragged + ":3: row has 1 cells, expected 2"), std::string::npos) << e.what();
  }
  std::string text = write_temp("text.csv", "a,b\n1,2\n3,abc\n");
  try {
    io::read_csv(text);
    FAIL();
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find(text + ":3:2: cell 'abc' in column 'b' is not a number"), std::string::npos)
        << e.what();
  }
  fs::remove(ragged);
  fs::remove(text);
}

TEST(DatasetFiles, ReadsIdx) {
  std::string images = write_temp("img.idx", ""), labels = write_temp("lab.idx", "");
  io::write_idx_uint8(images, {3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  io::write_idx_uint8(labels, {3}, {7, 8, 9});
  auto e = Dataset::from_idx(images, labels).batch(3).iterate()->next();
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)[0].shape(), (Shape{3, 2, 2}));
  EXPECT_EQ((*e)[0].item(11), 11.f);
  EXPECT_EQ((*e)[1].item(2), 9.f);
  fs::remove(images);
  fs::remove(labels);
}

}  // namespace dataset_files_test
