// The io side of layers/keras_class.h: a described layer class's Keras JSON, both ways,
// mapping each FieldSpec to and from its key (io/layer_config.cc calls these for every
// class registered without hand-written JSON).
#pragma once

#include <memory>
#include <vector>

#include "io/layer_config.h"
#include "layers/keras_class.h"

namespace strata::io {

// The class's keys of a layer (the registry adds name, trainable and dtype).
// The config keys every layer class has, read by io/layer_config.cc rather than by the
// class: name, trainable, dtype, the batch shapes, activity_regularizer.
bool read_for_every_layer(const std::string& key);

json described_to_config(const layers::KerasClass& description, const LayerImpl& layer);
// An unbuilt layer from a normalized config.
Layer described_from_config(const layers::KerasClass& description, const json& config, const ConfigContext& ctx);
// Where a Keras 3 file keeps the layer's variables (nested layers' groups expanded).
std::vector<VarGroup> described_var_groups(const layers::KerasClass& description, const LayerImpl& layer);

// For a unit still written by hand around a described options struct (the generic RNN
// around RNNOptions): the fields' keys from their values (those of role `value`, in order),
// and a source reading them from a config whose refused keys were checked.
json fields_to_config(const std::vector<layers::FieldSpec>& fields,
                      const std::vector<layers::ConfigValue>& values);
std::unique_ptr<layers::ConfigSource> config_source(const std::string& class_name,
                                                    const std::vector<layers::FieldSpec>& fields,
                                                    const json& config, const ConfigContext& ctx);

}  // namespace strata::io
