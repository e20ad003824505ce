// CSV files of numbers (io/csv.cc): a header line of column names (optional), then one
// row of numeric cells per line. Empty lines are skipped; "\r\n" line ends are fine.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace strata::io {

struct CsvOptions {
  bool header = true;
  char delimiter = ',';
};

struct CsvTable {
  std::vector<std::string> columns;  // from the header, else "0", "1", ...
  std::int64_t rows = 0;
  std::vector<float> values;         // row-major, rows × columns.size()
  // The columns named (in that order) as a (rows, names.size()) float32 tensor; throws
  // ValueError naming an unknown column and listing the known ones.
  Tensor select(const std::vector<std::string>& names) const;
  std::size_t index_of(const std::string& name) const;
};

// Throws IOError "file:line:column: ..." for a row with a different number of cells than
// the first row (or the header) and for a cell that is not a number.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

}  // namespace strata::io
