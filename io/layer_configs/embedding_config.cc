// Embedding and Masking <-> Keras config. Embedding: input_dim, output_dim,
// embeddings_initializer, mask_zero; Keras 2's input_length only fixed the input shape
// (the InputLayer or batch_input_shape says it too) and is ignored. Masking: mask_value.
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/embedding.h"

namespace strata::io {
namespace {

json embedding_to_config(const LayerImpl& impl) {
  const auto& e = static_cast<const layers::EmbeddingImpl&>(impl);
  return json{{"input_dim", e.input_dim},
              {"output_dim", e.output_dim},
              {"embeddings_initializer", initializer_to_config(e.options.embeddings_initializer)},
              {"embeddings_regularizer", nullptr},
              {"activity_regularizer", nullptr},
              {"embeddings_constraint", nullptr},
              {"mask_zero", e.options.mask_zero}};
}

Layer embedding_from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("Embedding", c);
  layers::EmbeddingOptions o;
  o.name = c.value("name", "");
  if (c.contains("embeddings_initializer"))
    o.embeddings_initializer = initializer_from_config(c["embeddings_initializer"], where);
  if (c.contains("mask_zero")) {
    if (!c["mask_zero"].is_boolean())
      throw ValueError(where + ": 'mask_zero' must be true or false, got " + c["mask_zero"].dump());
    o.mask_zero = c["mask_zero"].get<bool>();
  }
  if (c.contains("lora_rank") && !c["lora_rank"].is_null())
    throw NotImplementedError(where + ": LoRA-enabled embeddings (lora_rank) are not supported");
  return layers::Embedding(positive_int(c, "input_dim", where),
                           positive_int(c, "output_dim", where), o);
}

json masking_to_config(const LayerImpl& impl) {
  return json{{"mask_value", static_cast<const layers::MaskingImpl&>(impl).options.mask_value}};
}

Layer masking_from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("Masking", c);
  layers::MaskingOptions o;
  o.name = c.value("name", "");
  if (c.contains("mask_value")) {
    if (!c["mask_value"].is_number())
      throw ValueError(where + ": 'mask_value' must be a number, got " + c["mask_value"].dump());
    o.mask_value = c["mask_value"].get<double>();
  }
  return layers::Masking(o);
}

const bool registered = [] {
  register_layer_config(
      {"Embedding", "keras.layers", embedding_to_config, embedding_from_config, nullptr});
  register_layer_config(
      {"Masking", "keras.layers", masking_to_config, masking_from_config, nullptr});
  return true;
}();

}  // namespace
}  // namespace strata::io
