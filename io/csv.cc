#include "io/csv.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "core/error.h"

namespace strata::io {

namespace {

std::vector<std::string> split(const std::string& line, char delimiter) {
  std::vector<std::string> cells;
  std::string cell;
  for (char c : line) {
    if (c == delimiter) {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  std::ifstream in(path);
  if (!in) throw IOError("cannot open CSV file '" + path + "'");
  CsvTable table;
  std::string line;
  std::int64_t line_no = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    auto cells = split(line, options.delimiter);
    if (first && options.header) {
      for (auto& c : cells) table.columns.push_back(trim(c));
      first = false;
      continue;
    }
    if (first) {
      for (std::size_t i = 0; i < cells.size(); ++i) table.columns.push_back(std::to_string(i));
      first = false;
    }
    if (cells.size() != table.columns.size()) {
      throw IOError(path + ":" + std::to_string(line_no) + ": row has " + std::to_string(cells.size()) +
                    " cells, expected " + std::to_string(table.columns.size()) +
                    (options.header ? " (the header's column count)" : " (the first row's)"));
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string cell = trim(cells[c]);
      char* end = nullptr;
      errno = 0;
      float v = std::strtof(cell.c_str(), &end);
      if (cell.empty() || end != cell.c_str() + cell.size()) {
        throw IOError(path + ":" + std::to_string(line_no) + ":" + std::to_string(c + 1) + ": cell '" + (cell.size() > 64 ? cell.substr(0, 64) + "..." : cell) +
                      "' in column '" + table.columns[c] + "' is not a number");
      }
      table.values.push_back(v);
    }
    ++table.rows;
  }
  if (first) throw IOError("CSV file '" + path + "' is empty");
  return table;
}

std::size_t CsvTable::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return i;
  }
  std::string known;
  for (const auto& c : columns) known += (known.empty() ? "'" : ", '") + c + "'";
  throw ValueError("CSV has no column '" + name + "'; its columns are " + known);
}

Tensor CsvTable::select(const std::vector<std::string>& names) const {
  std::vector<std::size_t> idx;
  for (const auto& n : names) idx.push_back(index_of(n));
  Tensor out(Shape{rows, static_cast<std::int64_t>(idx.size())});
  float* dst = out.data<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < idx.size(); ++k) {
      *dst++ = values[static_cast<std::size_t>(r) * columns.size() + idx[k]];
    }
  }
  return out;
}

}  // namespace strata::io
