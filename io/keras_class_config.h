// The io side of layers/keras_class.h: a layer class's description turned into the
// registry's to_config / from_config, mapping each FieldSpec to and from Keras JSON.
#pragma once

#include <memory>
#include <vector>

#include "io/layer_config.h"
#include "layers/keras_class.h"

namespace strata::io {

LayerConfigEntry config_entry_for(const layers::KerasClass& description);

// For a unit still written by hand around a described options struct (the generic RNN
// around RNNOptions): the fields' keys from their values (those of role `value`, in order),
// and a source reading them from a config whose refused keys were checked.
json fields_to_config(const std::vector<layers::FieldSpec>& fields,
                      const std::vector<layers::ConfigValue>& values);
std::unique_ptr<layers::ConfigSource> config_source(const std::string& class_name,
                                                    const std::vector<layers::FieldSpec>& fields,
                                                    const json& config, const ConfigContext& ctx);

}  // namespace strata::io
