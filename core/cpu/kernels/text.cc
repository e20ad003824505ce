// The CPU kernel of text_vectorize (core/ops/text_ops.h): TextVectorization's rows of
// text to indices or encodings. It has no CUDA kernel by design: strings and the
// vocabulary live on the host (docs/gpu.md), as they do in Keras's TensorFlow ops.
#include <algorithm>
#include <limits>

#include "core/cpu/kernels/register.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/lookup_ops.h"
#include "core/text.h"

namespace strata::cpu {
namespace {

constexpr std::int64_t kNothing = std::numeric_limits<std::int64_t>::max();

// The index of one token (Keras's StringLookup with mask_token "" and one OOV index).
std::int64_t index_of(const IndexLookupTable& t, const std::string& token) {
  if (t.has_mask && token.empty()) return t.mask_output;
  auto it = t.text_index.find(token);
  return it != t.text_index.end() ? it->second : t.oov_start;
}

void text_vectorize_kernel(KernelContext& ctx) {
  const auto& a = ctx.node.attrs;
  const std::string& node = ctx.node.name;
  auto found = std::dynamic_pointer_cast<const IndexLookupTable>(
      find_lookup_table(a.get<std::int64_t>("table"), "text_vectorize", node));
  if (!found || !found->string_keys || found->num_oov != 1) {
    throw ValueError("text_vectorize '" + node + "': the table is not a string vocabulary with one OOV index");
  }
  const IndexLookupTable& t = *found;
  text::TextOptions options;
  options.standardize = text::parse_standardize(a.get<std::string>("standardize"));
  options.split = text::parse_split(a.get<std::string>("split"));
  options.ngrams = a.get<std::vector<std::int64_t>>("ngrams");
  const std::string& mode = a.get<std::string>("output_mode");
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  const StringValue* s = in.data<StringValue>();
  const std::int64_t n = in.size();

  // Elements per row, as the op's shape inference reads them: with a split each string is
  // a row; with split None the last axis is (a rank-1 input's strings are one-token rows),
  // except in "int" mode without ngrams or a sequence length, which keeps the shape.
  const bool same_shape = options.split == text::Split::none && mode == "int" && options.ngrams.empty() &&
                          a.get<std::int64_t>("sequence_length") < 0 && a.get<std::int64_t>("most_tokens") < 0;
  const std::int64_t per_row =
      options.split == text::Split::none && !same_shape && in.rank() > 1 ? in.shape().dims().back() : 1;
  const std::int64_t rows = per_row == 0 ? 0 : n / per_row;
  const std::int64_t width = out.rank() == 0 ? 1 : out.shape().dims().back();

  if (mode == "int") {
    std::int64_t* y = out.data<std::int64_t>();
    if (same_shape) {
      for (std::int64_t i = 0; i < n; ++i) y[i] = index_of(t, text::standardize(s[i].view(), options.standardize));
      return;
    }
    std::vector<std::string_view> elements;
    std::vector<std::vector<std::string>> tokens_of_row(static_cast<std::size_t>(rows));
    std::int64_t longest = 0;
    const std::int64_t most = a.get<std::int64_t>("most_tokens");
    for (std::int64_t r = 0; r < rows; ++r) {
      elements.clear();
      for (std::int64_t k = 0; k < per_row; ++k) elements.push_back(s[r * per_row + k].view());
      auto& tokens = tokens_of_row[static_cast<std::size_t>(r)];
      tokens = text::row_tokens(elements, options);
      if (most >= 0 && static_cast<std::int64_t>(tokens.size()) > most) tokens.resize(static_cast<std::size_t>(most));
      longest = std::max(longest, static_cast<std::int64_t>(tokens.size()));
    }
    std::int64_t length = width;
    if (a.get<std::int64_t>("sequence_length") < 0) {
      // Keras pads the rows of a batch to its longest (its ragged rows made dense): the
      // output, inferred with a None last dim, is sized here.
      std::vector<std::int64_t> dims = out.shape().dims();
      dims.back() = length = longest;
      out.reset(Shape(dims), DType::int64, out.device());
      y = out.data<std::int64_t>();
    }
    std::fill_n(y, out.size(), std::int64_t{0});
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto& tokens = tokens_of_row[static_cast<std::size_t>(r)];
      const auto count = std::min<std::int64_t>(length, static_cast<std::int64_t>(tokens.size()));
      for (std::int64_t j = 0; j < count; ++j) y[r * length + j] = index_of(t, tokens[static_cast<std::size_t>(j)]);
    }
    return;
  }
  const bool counts = mode != "multi_hot";
  const bool tf_idf = mode == "tf_idf";
  if (tf_idf && static_cast<std::int64_t>(t.idf_weights.size()) != width) {
    throw ValueError("text_vectorize '" + node + "': output_mode 'tf_idf' has " + std::to_string(t.idf_weights.size()) +
                     " idf weights for an output of " + std::to_string(width) +
                     " slots; give idf_weights with the vocabulary, or adapt the layer");
  }
  float* y = out.data<float>();
  std::fill_n(y, out.size(), 0.f);
  std::vector<std::string_view> elements;
  for (std::int64_t r = 0; r < rows; ++r) {
    elements.clear();
    for (std::int64_t k = 0; k < per_row; ++k) elements.push_back(s[r * per_row + k].view());
    for (const auto& token : text::row_tokens(elements, options)) {
      const std::int64_t v = index_of(t, token);
      if (v == kNothing || v < 0 || v >= width) continue;  // the mask token encodes to nothing
      float& slot = y[r * width + v];
      slot = counts ? slot + 1.f : 1.f;
    }
  }
  if (tf_idf) {
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t j = 0; j < width; ++j) y[r * width + j] *= t.idf_weights[static_cast<std::size_t>(j)];
    }
  }
}

}  // namespace

void register_text_kernels(OpRegistry& r) {
  r.add_kernel("text_vectorize", DeviceType::cpu, {.run = text_vectorize_kernel});
}

}  // namespace strata::cpu
