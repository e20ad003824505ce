// keras.ops.rearrange (issue #38): einops' notation as Keras 3.15 reads it
// (keras/src/ops/einops.py), a reshape into the input's elementary axes, a transpose into the
// output's order and a reshape into its groups, so it runs wherever those do and
// differentiates. Keras's reading, which this follows: the pattern is "input -> output",
// each side axis names (letters, digits, '_') and groups of them in parentheses; a group of
// the input is split with the call's keyword lengths, its one axis without a length getting
// the group's size divided by the others'; an ungrouped axis takes the input's size whatever
// length is given for it. What Keras's reading skips or fails on later (an ellipsis, an
// anonymous axis, an axis missing from either side, two axes of a group without lengths) is
// refused here when the model is defined, naming the pattern.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// One side of the pattern: its axes, each a group of one or more names (an ungrouped name is
// a group of one that is not `grouped`).
struct PatternSide {
  std::vector<std::vector<std::string>> axes;
  std::vector<bool> grouped;
};

[[noreturn]] void bad_pattern(C c, const std::string& pattern, const std::string& why) {
  throw ValueError(c.where + ": pattern '" + pattern + "': " + why);
}

bool is_name_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }

PatternSide read_side(C c, const std::string& pattern, const std::string& side) {
  PatternSide out;
  std::size_t i = 0;
  auto read_name = [&] {
    const std::size_t start = i;
    while (i < side.size() && is_name_char(side[i])) ++i;
    return side.substr(start, i - start);
  };
  while (i < side.size()) {
    const char ch = side[i];
    if (std::isspace(static_cast<unsigned char>(ch))) {
      ++i;
    } else if (is_name_char(ch)) {
      out.axes.push_back({read_name()});
      out.grouped.push_back(false);
    } else if (ch == '(') {
      ++i;
      std::vector<std::string> group;
      while (i < side.size() && side[i] != ')') {
        if (std::isspace(static_cast<unsigned char>(side[i]))) {
          ++i;
        } else if (is_name_char(side[i])) {
          group.push_back(read_name());
        } else {
          bad_pattern(c, pattern, std::string("'") + side[i] + "' in a group (only axis names are)");
        }
      }
      if (i == side.size()) bad_pattern(c, pattern, "a group is not closed");
      ++i;
      if (group.empty()) bad_pattern(c, pattern, "an empty group '()'");
      out.axes.push_back(group);
      out.grouped.push_back(true);
    } else {
      bad_pattern(c, pattern, std::string("'") + ch +
                                  "' is not read by Keras's rearrange (axis names and groups of them in "
                                  "parentheses are; no ellipsis, no anonymous axes)");
    }
  }
  return out;
}

std::vector<std::string> names_of(const PatternSide& side) {
  std::vector<std::string> names;
  for (const auto& group : side.axes) names.insert(names.end(), group.begin(), group.end());
  return names;
}

// The product of sizes, unknown where one is.
std::int64_t product_of_sizes(const std::vector<std::int64_t>& sizes) {
  std::int64_t p = 1;
  for (std::int64_t s : sizes) {
    if (s == kUnknownDim) return kUnknownDim;
    p *= s;
  }
  return p;
}

Output rearrange(C c) {
  const Output x = c.arg(0);
  const std::string& pattern = c.text_argument(1);
  const std::size_t arrow = pattern.find("->");
  if (arrow == std::string::npos || pattern.find("->", arrow + 2) != std::string::npos)
    bad_pattern(c, pattern, "needs one '->' between the input's axes and the output's");
  const PatternSide in = read_side(c, pattern, pattern.substr(0, arrow));
  const PatternSide out = read_side(c, pattern, pattern.substr(arrow + 2));
  const Shape& shape = x.shape();
  if (static_cast<int>(in.axes.size()) != shape.rank())
    bad_pattern(c, pattern, "names " + std::to_string(in.axes.size()) + " axes for an input " + shape.to_string());
  const std::vector<std::string> in_names = names_of(in), out_names = names_of(out);
  if (std::set<std::string>(in_names.begin(), in_names.end()).size() != in_names.size())
    bad_pattern(c, pattern, "an axis named twice in the input");
  if (std::set<std::string>(out_names.begin(), out_names.end()) !=
      std::set<std::string>(in_names.begin(), in_names.end()))
    bad_pattern(c, pattern, "the output must name each of the input's axes once");
  if (out_names.size() != in_names.size()) bad_pattern(c, pattern, "an axis named twice in the output");

  auto given_length = [&](const std::string& name) -> std::optional<std::int64_t> {
    auto it = c.kwargs.find(name);
    if (it == c.kwargs.end()) return std::nullopt;
    const auto* v = std::get_if<std::int64_t>(&it->second);
    if (v == nullptr || *v <= 0)
      bad_pattern(c, pattern, "the length of '" + name + "' must be a positive integer" +
                                  (v ? ", got " + std::to_string(*v) : std::string()));
    return *v;
  };
  std::map<std::string, std::int64_t> size;  // kUnknownDim where the input's is
  for (std::size_t a = 0; a < in.axes.size(); ++a) {
    const std::int64_t dim = shape.dims()[a];
    if (!in.grouped[a]) {
      size[in.axes[a][0]] = dim;
      continue;
    }
    std::int64_t known = 1;
    std::optional<std::string> inferred;
    for (const std::string& name : in.axes[a]) {
      if (auto length = given_length(name)) {
        size[name] = *length;
        if (__builtin_mul_overflow(known, *length, &known))
          bad_pattern(c, pattern, "the lengths given overflow a 64-bit size");
      } else if (!inferred) {
        inferred = name;
      } else {
        bad_pattern(c, pattern, "axes '" + *inferred + "' and '" + name +
                                    "' of one group have no length: give all but one of a group's");
      }
    }
    if (inferred) {
      if (dim != kUnknownDim && dim % known != 0)
        bad_pattern(c, pattern, "axis " + std::to_string(a) + " of " + shape.to_string() + " does not divide by " +
                                    std::to_string(known));
      size[*inferred] = dim == kUnknownDim ? kUnknownDim : dim / known;
    } else if (dim != kUnknownDim && dim != known) {
      bad_pattern(c, pattern, "the lengths given multiply to " + std::to_string(known) + ", not axis " +
                                  std::to_string(a) + "'s " + std::to_string(dim) + " in " + shape.to_string());
    }
  }
  std::vector<std::int64_t> elementary;
  for (const std::string& name : in_names) elementary.push_back(size.at(name));
  if (std::count(elementary.begin(), elementary.end(), kUnknownDim) > 1)
    bad_pattern(c, pattern, "more than one axis of unknown size in " + shape.to_string());

  Output y = x;
  if (elementary != shape.dims()) y = ops::reshape(y, elementary);  // an unknown size is reshape's -1
  std::vector<std::int64_t> order;
  for (const std::string& name : out_names)
    order.push_back(std::find(in_names.begin(), in_names.end(), name) - in_names.begin());
  bool moved = false;
  for (std::size_t i = 0; i < order.size(); ++i) moved = moved || order[i] != static_cast<std::int64_t>(i);
  if (moved) y = ops::transpose(y, order);
  std::vector<std::int64_t> grouped_sizes;
  for (const auto& group : out.axes) {
    std::vector<std::int64_t> sizes;
    for (const std::string& name : group) sizes.push_back(size.at(name));
    grouped_sizes.push_back(product_of_sizes(sizes));
  }
  return grouped_sizes == y.shape().dims() ? y : ops::reshape(y, grouped_sizes);
}

}  // namespace

const std::map<std::string, OpFn>& einops_ops() {
  static const std::map<std::string, OpFn> t = {{"Rearrange", rearrange}};
  return t;
}

}  // namespace strata::layers::op_detail
