// The io side of layers/keras_class.h: a layer class's description turned into the
// registry's to_config / from_config, mapping each FieldSpec to and from Keras JSON.
#pragma once

#include "io/layer_config.h"
#include "layers/keras_class.h"

namespace strata::io {

LayerConfigEntry config_entry_for(const layers::KerasClass& description);

}  // namespace strata::io
