#include "core/ops/text_ops.h"

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"
#include "core/sized_outputs.h"
#include "core/text.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> infer_text_vectorize(const InferContext& ctx) {
  expect_inputs(ctx, 1);
  const TensorSpec& in = ctx.inputs[0];
  if (in.dtype != DType::string) {
    throw ValueError("text_vectorize: expects string inputs, got " + to_string(in.dtype));
  }
  const text::Split split = text::parse_split(ctx.attrs.get<std::string>("split"));
  text::parse_standardize(ctx.attrs.get<std::string>("standardize"));
  const auto& mode = ctx.attrs.get<std::string>("output_mode");
  const auto length = ctx.attrs.get<std::int64_t>("sequence_length");
  const auto depth = ctx.attrs.get<std::int64_t>("depth");
  const bool has_ngrams = !ctx.attrs.get<std::vector<std::int64_t>>("ngrams").empty();
  const bool cut = ctx.attrs.get<std::int64_t>("most_tokens") >= 0;
  std::vector<std::int64_t> dims = in.shape.dims();
  if (dims.empty()) throw ValueError("text_vectorize: expects a batch of strings, got a scalar");
  if (split != text::Split::none) {
    if (dims.size() > 1) {
      if (dims.back() != 1) {
        throw ValueError("text_vectorize: to split strings the input must have rank 1 or a last dimension of 1, got " +
                         in.shape.to_string());
      }
      dims.pop_back();
    }
  } else if (mode != "int" || length >= 0 || has_ngrams || cut) {
    // split None: the last axis is a row; a rank-1 input's strings are one-token rows
    // (Keras expands them), except in "int" mode, where there is nothing to expand.
    if (dims.size() == 1) {
      if (mode == "int") {
        throw ValueError("text_vectorize: with split None, ngrams or output_sequence_length need inputs of rank 2 "
                         "or more (the last axis is the row of tokens), got " + in.shape.to_string());
      }
    } else {
      dims.pop_back();
    }
  } else {
    return {{in.shape, DType::int64}};  // one index per string, the input's shape
  }
  if (mode == "int") {
    // Without a sequence length each run's rows are padded to its longest: a size known
    // only once the kernel has read the strings (None here; the kernel sizes its output).
    dims.push_back(length < 0 ? kUnknownDim : length);
    return {{Shape(dims), DType::int64}};
  }
  if (mode != "multi_hot" && mode != "count" && mode != "tf_idf") {
    throw ValueError("text_vectorize: output_mode must be 'int', 'multi_hot', 'count' or 'tf_idf', got '" + mode + "'");
  }
  if (depth < 1) throw ValueError("text_vectorize: depth must be positive, got " + std::to_string(depth));
  dims.push_back(depth);
  return {{Shape(dims), DType::float32}};
}

}  // namespace

void register_text_ops(OpRegistry& r) {
  r.add({.name = "text_vectorize", .infer = infer_text_vectorize, .differentiable = false, .takes_strings = true});
}

Output text_vectorize(Output strings, const TableHandle& table, const TextVectorizeOptions& o) {
  for (std::int64_t w : o.ngrams) {
    if (w < 1) throw ValueError("text_vectorize: ngram widths must be positive, got " + std::to_string(w));
  }
  return strings.graph->add("text_vectorize", {strings},
                            Attrs{{"table", table.id()},
                                  {"standardize", o.standardize},
                                  {"split", o.split},
                                  {"ngrams", o.ngrams},
                                  {"output_mode", o.output_mode},
                                  {"sequence_length", o.sequence_length},
                                  {"most_tokens", o.most_tokens},
                                  {"depth", o.depth},
                                  // "int" rows without a sequence length: the kernel pads
                                  // them to the run's longest (its output's None last dim)
                                  {kSizesOutputsAttr, o.output_mode == "int" && o.sequence_length < 0}});
}

}  // namespace strata::ops
