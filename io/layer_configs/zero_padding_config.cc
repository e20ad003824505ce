// ZeroPadding1D/2D and Cropping1D/2D <-> Keras config. 1-D: `padding` / `cropping` an int
// or (before, after). 2-D: an int, (rows, cols) symmetric amounts, or
// ((top, bottom), (left, right)), the form Keras writes; plus data_format.
#include "io/layer_configs/spatial_args.h"
#include "layers/cropping.h"
#include "layers/zero_padding.h"

namespace strata::io {
namespace {

namespace sp = spatial;
using layers::IntPair;
using layers::Padding2D;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::SpatialPadImpl&>(impl);
  const char* key = l.remove ? "cropping" : "padding";
  if (l.spatial_rank == 1) return json{{key, sp::pair_to_json(l.amounts.cols)}};
  return json{
      {key, json::array({sp::pair_to_json(l.amounts.rows), sp::pair_to_json(l.amounts.cols)})},
      {"data_format", sp::data_format_to_config(l.data_format)}};
}

IntPair amounts_1d(const json& c, const char* key, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return 1;
  auto v =
      c[key].is_array() ? sp::ints(c[key], 2, key, where, 0) : sp::ints(c[key], 1, key, where, 0);
  return v.size() == 2 ? IntPair(v[0], v[1]) : IntPair(v[0]);
}

Padding2D amounts_2d(const json& c, const char* key, const std::string& where,
                     std::int64_t fallback) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  const json& v = c[key];
  if (v.is_array() && v.size() == 2 && v[0].is_array()) {
    auto rows = sp::ints(v[0], 2, key, where, 0), cols = sp::ints(v[1], 2, key, where, 0);
    return Padding2D(IntPair(rows[0], rows[1]), IntPair(cols[0], cols[1]));
  }
  auto sym = sp::ints(v, 2, key, where, 0);
  return Padding2D(IntPair(sym[0]), IntPair(sym[1]));
}

// The 1-D layers have no channels_first variant here.
void channels_last_only(const json& c, const std::string& where) {
  if (!sp::data_format(c, where).empty())
    throw NotImplementedError(where + ": data_format 'channels_first' is not supported for 1-D");
}

Layer zero_padding_1d(const json& c, const ConfigContext&) {
  const std::string where = describe("ZeroPadding1D", c);
  channels_last_only(c, where);
  return layers::ZeroPadding1D(amounts_1d(c, "padding", where),
                               {.data_format = "", .name = c.value("name", "")});
}
Layer zero_padding_2d(const json& c, const ConfigContext&) {
  const std::string where = describe("ZeroPadding2D", c);
  return layers::ZeroPadding2D(
      amounts_2d(c, "padding", where, 1),
      {.data_format = sp::data_format(c, where), .name = c.value("name", "")});
}
Layer cropping_1d(const json& c, const ConfigContext&) {
  const std::string where = describe("Cropping1D", c);
  channels_last_only(c, where);
  return layers::Cropping1D(amounts_1d(c, "cropping", where),
                            {.data_format = "", .name = c.value("name", "")});
}
Layer cropping_2d(const json& c, const ConfigContext&) {
  const std::string where = describe("Cropping2D", c);
  return layers::Cropping2D(
      amounts_2d(c, "cropping", where, 0),
      {.data_format = sp::data_format(c, where), .name = c.value("name", "")});
}

const bool registered = [] {
  register_layer_config({"ZeroPadding1D", "keras.layers", to_config, zero_padding_1d, nullptr});
  register_layer_config({"ZeroPadding2D", "keras.layers", to_config, zero_padding_2d, nullptr});
  register_layer_config({"Cropping1D", "keras.layers", to_config, cropping_1d, nullptr});
  register_layer_config({"Cropping2D", "keras.layers", to_config, cropping_2d, nullptr});
  return true;
}();

}  // namespace
}  // namespace strata::io
