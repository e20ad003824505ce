// String data from files: NumPy 'U' / 'S' arrays (.npy, written by np.save in
// tests/reference/make_preprocessing_goldens.py) and CSV text columns, as string tensors,
// and back to .npy.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/string_pool.h"
#include "io/csv.h"
#include "io/npy.h"
#include "test_util.h"

using namespace strata;

namespace string_data_test {

using json = nlohmann::json;

namespace {
const std::string kDir = std::string(STRATA_TEST_DATA) + "/preprocessing/";

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}
}  // namespace

TEST(NpyStrings, ReadsNumpyUnicodeArraysAsStringTensors) {
  const json g = json::parse(std::ifstream(kDir + "strings_npy.json"));
  const Tensor t = io::load_npy(kDir + "strings_U.npy");
  EXPECT_EQ(t.dtype(), DType::string);
  EXPECT_EQ(t.shape().dims(), g["U"]["shape"].get<std::vector<std::int64_t>>());
  EXPECT_EQ(t.to_strings(), g["U"]["values"].get<std::vector<std::string>>());
}

TEST(NpyStrings, ReadsNumpyBytesArraysKeepingInnerNuls) {
  const json g = json::parse(std::ifstream(kDir + "strings_npy.json"));
  const Tensor t = io::load_npy(kDir + "strings_S.npy");
  std::vector<std::string> want;
  for (const auto& h : g["S_hex"]) want.push_back(from_hex(h.get<std::string>()));
  EXPECT_EQ(t.to_strings(), want);
}

TEST(NpyStrings, WritesUnicodeThatReadsBack) {
  strata::testing::ScratchDir dir;
  const Tensor t = Tensor::from_strings({2, 2}, {"", "日本", "plain", "héllo"});
  io::save_npy(dir.file("s.npy"), t);
  const Tensor back = io::load_npy(dir.file("s.npy"));
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_EQ(back.to_strings(), t.to_strings());
  EXPECT_NE(io::npy_to_bytes(t).find("'descr': '<U5'"), std::string::npos);  // 5 code points: "plain", "héllo"
  const Tensor bytes = Tensor::from_strings({1}, {std::string("\xff", 1)});
  EXPECT_EQ(io::npy_from_bytes(io::npy_to_bytes(bytes), "bytes").to_strings(), bytes.to_strings());
}

// Arrays of no elements have no data bytes: an element size bigger than the (empty) data
// is not damage there, as it is for the strings of a shape that has some.
TEST(NpyStrings, ArraysWithoutElementsReadBackWithTheirShape) {
  const Tensor empty(Shape{0, 3}, DType::string);
  const Tensor back = io::npy_from_bytes(io::npy_to_bytes(empty), "empty");
  EXPECT_EQ(back.dtype(), DType::string);
  EXPECT_EQ(back.shape(), empty.shape());
  // np.save(f, np.array([], dtype="U5")) writes this header and no data.
  std::string header = "{'descr': '<U5', 'fortran_order': False, 'shape': (0,), }";
  header += std::string(64 - (10 + header.size() + 1) % 64, ' ') + "\n";
  const std::string numpy_bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) +
                                  static_cast<char>(header.size() >> 8) + header;
  EXPECT_EQ(io::npy_from_bytes(numpy_bytes, "numpy's").shape(), Shape{0});
  // With an element, the same header needs its 20 bytes.
  std::string one = numpy_bytes;
  one.replace(one.find("(0,)"), 4, "(1,)");
  EXPECT_THROW(io::npy_from_bytes(one, "one"), IOError);
}

TEST(CsvStrings, ReadsTextColumnsAsStrings) {
  const io::CsvTable t = io::read_csv(kDir + "cities.csv", {.string_columns = {"city", "note"}});
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.select_strings({"city"}).to_strings(), (std::vector<std::string>{"paris", "東京", "lima"}));
  EXPECT_EQ(t.select_strings({"note", "city"}).to_strings(),
            (std::vector<std::string>{"says \"hi\", twice", "paris", "", "東京", "  kept  ", "lima"}));
  EXPECT_EQ(t.select({"code", "amount"}).to_vector<float>(), (std::vector<float>{10, 1.5f, 20, -2, 30, 0.25f}));
  EXPECT_THROW(t.select({"city"}), ValueError);
  EXPECT_THROW(t.select_strings({"code"}), ValueError);
  EXPECT_THROW(io::read_csv(kDir + "cities.csv"), IOError);  // text read as numbers
  EXPECT_THROW(io::read_csv(kDir + "cities.csv", {.string_columns = {"nope"}}), ValueError);
}

TEST(Csv, SkipRowsSkipsLinesBeforeTheHeader) {
  // scikit-learn's CSV files open with a line of counts before the header.
  const std::string path = ::testing::TempDir() + "/skip_rows.csv";
  {
    std::ofstream out(path);
    out << "2,2,,\nA,B\n1,2\n3,4\n";
  }
  const io::CsvTable t = io::read_csv(path, {.skip_rows = 1});
  EXPECT_EQ(t.columns, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(t.select({"B", "A"}).to_vector<float>(), (std::vector<float>{2, 1, 4, 3}));
  EXPECT_THROW(io::read_csv(path), IOError);  // the counts line taken as the header: rows disagree
  EXPECT_THROW(io::read_csv(path, {.skip_rows = -1}), ValueError);
}

}  // namespace string_data_test
