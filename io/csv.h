// CSV files (io/csv.cc): a header line of column names (optional), then one row of cells
// per line. Cells are numbers, except in the columns named in `string_columns`, which
// are kept as text (string tensors, for StringLookup / Hashing). A cell may be quoted
// ("a, b"; "" is a quote inside one). Empty lines are skipped; "\r\n" line ends are fine.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace strata::io {

struct CsvOptions {
  bool header = true;
  char delimiter = ',';
  std::int64_t skip_rows = 0;  // lines skipped before the header (NumPy's skiprows), e.g. a title
  std::vector<std::string> string_columns;  // names (or "0", "1", ... without a header)
};

struct CsvTable {
  std::vector<std::string> columns;  // from the header, else "0", "1", ...
  std::int64_t rows = 0;
  std::vector<float> values;         // row-major, rows × columns.size() (0 in string columns)
  std::vector<std::string> string_columns;  // the text columns, in file order
  std::vector<std::string> texts;           // row-major, rows × string_columns.size()
  // The columns named (in that order) as a (rows, names.size()) float32 tensor; throws
  // ValueError naming an unknown column and listing the known ones, or a text column.
  Tensor select(const std::vector<std::string>& names) const;
  // Text columns as a (rows, names.size()) string tensor.
  Tensor select_strings(const std::vector<std::string>& names) const;
  std::size_t index_of(const std::string& name) const;
};

// Throws IOError "file:line:column: ..." for a row with a different number of cells than
// the first row (or the header) and for a cell that is not a number.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

}  // namespace strata::io
