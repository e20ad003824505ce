#include "serving/batching_parameters.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.h"

namespace strata::serving {

BatchingParameters parse_batching_parameters(const std::string& text, BatchingParameters p) {
  // Entries: NAME { value: N } (wrapped scalars), or NAME: VALUE; '#' starts a comment.
  static const std::regex entry(R"(\s*([A-Za-z_]+)\s*(?:\{\s*value\s*:\s*([^\s}]+)\s*\}|:\s*(\S+))\s*)");
  static const std::set<std::string> ignored = {"allowed_batch_sizes", "pad_variable_length_inputs", "thread_pool_name",
                                                "enable_large_batch_splitting", "max_execution_batch_size"};
  std::string body;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) body += line.substr(0, line.find('#')) + "\n";
  auto number = [](const std::string& name, const std::string& v) {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size()) {
      throw ValueError("batching parameters: " + name + " needs an integer, got '" + v + "'");
    }
    return n;
  };
  auto it = body.cbegin();
  std::smatch m;
  while (std::regex_search(it, body.cend(), m, entry, std::regex_constants::match_continuous)) {
    const std::string name = m[1], value = m[2].matched ? m[2].str() : m[3].str();
    if (name == "max_batch_size") {
      p.max_batch_size = number(name, value);
    } else if (name == "batch_timeout_micros") {
      p.batch_timeout_micros = number(name, value);
    } else if (name == "num_batch_threads") {
      p.num_batch_threads = static_cast<int>(number(name, value));
    } else if (name == "max_enqueued_batches") {
      p.max_enqueued_batches = number(name, value);
    } else if (!ignored.count(name)) {
      throw ValueError("batching parameters: unknown field '" + name + "'");
    }
    it = m[0].second;
  }
  if (std::any_of(it, body.cend(), [](char c) { return !std::isspace(static_cast<unsigned char>(c)); })) {
    throw ValueError("batching parameters: can't read '" + std::string(it, std::min(it + 40, body.cend())) + "'");
  }
  return p;
}

}  // namespace strata::serving
