// MaxPooling1D/2D, AveragePooling1D/2D <-> Keras config: pool_size, strides (null means
// pool_size), padding, data_format. Keras 2 writes tuples as lists (1-D: [2]).
#include "io/layer_configs/spatial_args.h"
#include "layers/pooling.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::Pooling2DImpl&>(impl);
  // 1-D pooling runs as 2-D with a unit row: its amounts are the second of each pair.
  const bool one_d = l.spatial_rank == 1;
  return json{
      {"pool_size", one_d ? json::array({l.pool_size.second}) : sp::pair_to_json(l.pool_size)},
      {"padding", l.padding},
      {"strides", one_d ? json::array({l.strides.second}) : sp::pair_to_json(l.strides)},
      {"data_format", sp::data_format_to_config(l.data_format)}};
}

// Keras 2 and 3 write the same keys; 1-D amounts may be ints or one-element lists.
template <typename Pool, int Rank>
LayerConfigEntry entry(const char* cls) {
  auto from = [cls](const json& c, const ConfigContext&) -> Layer {
    const std::string where = describe(cls, c);
    const bool has_strides = c.contains("strides") && !c["strides"].is_null();
    const std::string padding = sp::padding(c, where, {"valid", "same"});
    const std::string data_format = sp::data_format(c, where);
    const std::string name = c.value("name", "");
    if constexpr (Rank == 1) {
      std::optional<std::int64_t> strides;
      if (has_strides) strides = sp::single(c, "strides", where, 1);
      return Pool(sp::single(c, "pool_size", where, 2),
                  layers::Pooling1DOptions{strides, padding, data_format, name});
    } else {
      std::optional<layers::IntPair> strides;
      if (has_strides) strides = sp::pair(c, "strides", where, 1);
      return Pool(sp::pair(c, "pool_size", where, 2),
                  layers::Pooling2DOptions{strides, padding, data_format, name});
    }
  };
  return {cls, "keras.layers", to_config, from, nullptr};
}

const bool registered = [] {
  register_layer_config(entry<layers::MaxPooling1D, 1>("MaxPooling1D"));
  register_layer_config(entry<layers::MaxPooling2D, 2>("MaxPooling2D"));
  register_layer_config(entry<layers::AveragePooling1D, 1>("AveragePooling1D"));
  register_layer_config(entry<layers::AveragePooling2D, 2>("AveragePooling2D"));
  return true;
}();

}  // namespace
}  // namespace strata::io
