#include "io/csv.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "core/error.h"

namespace strata::io {

namespace {

// Cells of a line; a cell in double quotes may hold the delimiter, and "" is a quote.
// Quoted cells come back without their quotes, marked in `quoted`.
std::vector<std::string> split(const std::string& line, char delimiter, std::vector<bool>& quoted) {
  std::vector<std::string> cells;
  quoted.clear();
  std::string cell;
  bool in_quotes = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        cell += c;
      }
    } else if (c == '"' && cell.find_first_not_of(" \t") == std::string::npos) {
      cell.clear();
      in_quotes = was_quoted = true;
    } else if (c == delimiter) {
      cells.push_back(cell);
      quoted.push_back(was_quoted);
      cell.clear();
      was_quoted = false;
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  quoted.push_back(was_quoted);
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
  std::vector<bool> is_text;
  if (options.skip_rows < 0) throw ValueError("read_csv: skip_rows must be >= 0, got " + std::to_string(options.skip_rows));
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no <= options.skip_rows) continue;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    std::vector<bool> quoted;
    auto cells = split(line, options.delimiter, quoted);
    if (first) {
      if (options.header) {
        for (auto& c : cells) table.columns.push_back(trim(c));
      } else {
        for (std::size_t i = 0; i < cells.size(); ++i) table.columns.push_back(std::to_string(i));
      }
      is_text.assign(table.columns.size(), false);
      for (const auto& name : options.string_columns) is_text[table.index_of(name)] = true;
      for (std::size_t i = 0; i < is_text.size(); ++i) {
        if (is_text[i]) table.string_columns.push_back(table.columns[i]);
      }
      first = false;
      if (options.header) continue;
    }
    if (cells.size() != table.columns.size()) {
      throw IOError(path + ":" + std::to_string(line_no) + ": row has " + std::to_string(cells.size()) +
                    " cells, expected " + std::to_string(table.columns.size()) +
                    (options.header ? " (the header's column count)" : " (the first row's)"));
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (is_text[c]) {
        table.texts.push_back(quoted[c] ? cells[c] : trim(cells[c]));
        table.values.push_back(0.f);
        continue;
      }
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
  for (const auto& n : names) {
    for (const auto& t : string_columns) {
      if (t == n) throw ValueError("CSV column '" + n + "' holds text; select it with select_strings");
    }
    idx.push_back(index_of(n));
  }
  Tensor out(Shape{rows, static_cast<std::int64_t>(idx.size())});
  float* dst = out.data<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < idx.size(); ++k) {
      *dst++ = values[static_cast<std::size_t>(r) * columns.size() + idx[k]];
    }
  }
  return out;
}

Tensor CsvTable::select_strings(const std::vector<std::string>& names) const {
  std::vector<std::size_t> idx;
  for (const auto& n : names) {
    std::size_t k = 0;
    while (k < string_columns.size() && string_columns[k] != n) ++k;
    if (k == string_columns.size()) {
      index_of(n);  // throws for a column the file lacks
      throw ValueError("CSV column '" + n + "' was read as numbers; name it in CsvOptions::string_columns");
    }
    idx.push_back(k);
  }
  std::vector<std::string> cells;
  cells.reserve(static_cast<std::size_t>(rows) * idx.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::size_t k : idx) cells.push_back(texts[static_cast<std::size_t>(r) * string_columns.size() + k]);
  }
  return Tensor::from_strings(Shape{rows, static_cast<std::int64_t>(idx.size())}, cells);
}

}  // namespace strata::io
