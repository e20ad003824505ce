#include "layers/preprocessing/category_encoding.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/one_hot.h"

namespace strata::layers {

CategoryEncodingImpl::CategoryEncodingImpl(std::int64_t num_tokens_, CategoryEncodingOptions options_)
    : LayerImpl("CategoryEncoding", options_.name), num_tokens(num_tokens_), options(std::move(options_)) {
  if (options.output_mode == "binary") options.output_mode = "multi_hot";  // Keras's old name
  const auto& m = options.output_mode;
  if (m != "one_hot" && m != "multi_hot" && m != "count") {
    throw ValueError("CategoryEncoding '" + name + "': output_mode must be 'one_hot', 'multi_hot' or 'count', got '" +
                     m + "'");
  }
  if (num_tokens < 1) {
    throw ValueError("CategoryEncoding '" + name + "': num_tokens must be >= 1, got " + std::to_string(num_tokens));
  }
}

std::vector<Output> CategoryEncodingImpl::call(Graph&, const std::vector<Output>& inputs) {
  Output ids = inputs[0];
  if (ids.dtype() == DType::string) {
    throw ValueError("CategoryEncoding '" + name + "' expects integer ids, got strings (use StringLookup first)");
  }
  if (ids.dtype() == DType::float32) ids = ops::cast(ids, DType::int64);
  return {ops::categorical_encode(ids, num_tokens, options.output_mode)};
}

CategoryEncoding::CategoryEncoding(std::int64_t num_tokens, CategoryEncodingOptions options)
    : Layer(std::make_shared<CategoryEncodingImpl>(num_tokens, std::move(options))) {}

namespace {
const bool category_encoding_registered = register_keras_class(
    describe_layer<CategoryEncoding>("CategoryEncoding", &CategoryEncodingImpl::options,
                                     keras_field("num_tokens", &CategoryEncodingImpl::num_tokens).at_least(1)));
}  // namespace

}  // namespace strata::layers
