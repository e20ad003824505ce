// The fortunes the text tutorials read (fortune_transformer, fortune_text_classification):
// three collections of Debian's `fortunes` package, one fortune per text.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <strata/strata.h>

namespace strata::examples {

inline const std::vector<std::string> kFortuneCollections = {"computers", "politics", "science"};

// The fortunes of one collection file: the lines between lines holding a single '%',
// joined by newlines.
inline std::vector<std::string> read_fortunes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IOError("cannot read '" + path + "': install Debian's `fortunes` package");
  std::vector<std::string> fortunes;
  std::string line, current;
  while (std::getline(in, line)) {
    if (line == "%") {
      if (!current.empty()) fortunes.push_back(current);
      current.clear();
    } else {
      current += current.empty() ? line : "\n" + line;
    }
  }
  if (!current.empty()) fortunes.push_back(current);
  return fortunes;
}

}  // namespace strata::examples
