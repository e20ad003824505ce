// A table of cells, printed aligned for a terminal or as Markdown: the benchmark
// reports' (bench/report.cc, bench/models_report.cc) one way of laying out results.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace strata::bench {

// One number as a cell, through a printf pattern ("%.1f").
inline std::string fmt(const char* pattern, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), pattern, value);
  return buf;
}

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;

  // Columns padded to their widest cell, two spaces apart, no trailing blanks.
  std::string text() const {
    std::vector<std::size_t> width(headers.size());
    for (std::size_t c = 0; c < headers.size(); ++c) {
      width[c] = headers[c].size();
      for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
    }
    auto line = [&](const std::vector<std::string>& cells) {
      std::string out;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        out += cells[c] + std::string(width[c] - cells[c].size() + (c + 1 < cells.size() ? 2 : 0), ' ');
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      return out + "\n";
    };
    std::string out = line(headers);
    for (const auto& row : rows) out += line(row);
    return out;
  }

  std::string markdown() const {
    auto line = [](const std::vector<std::string>& cells) {
      std::string out = "|";
      for (const std::string& c : cells) out += " " + c + " |";
      return out + "\n";
    };
    std::string out = line(headers) + "|";
    for (std::size_t c = 0; c < headers.size(); ++c) out += "---|";
    out += "\n";
    for (const auto& row : rows) out += line(row);
    return out;
  }
};

}  // namespace strata::bench
