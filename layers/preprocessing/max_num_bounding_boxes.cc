#include "layers/preprocessing/max_num_bounding_boxes.h"

#include "core/ops.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

MaxNumBoundingBoxesImpl::MaxNumBoundingBoxesImpl(std::int64_t max_number_, MaxNumBoundingBoxesOptions o)
    : LayerImpl("MaxNumBoundingBoxes", o.name), max_number(max_number_), options(std::move(o)) {
  is_channels_first(options.data_format);  // validates
  // Keras's returns its input tensor itself, in training and inference, so the input's
  // mask stays on it (though its supports_masking is False).
  supports_masking = true;
}

std::vector<Output> MaxNumBoundingBoxesImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {ops::identity(inputs[0])};
}

MaxNumBoundingBoxes::MaxNumBoundingBoxes(std::int64_t max_number, MaxNumBoundingBoxesOptions options)
    : Layer(std::make_shared<MaxNumBoundingBoxesImpl>(max_number, std::move(options))) {}

namespace {
const bool max_num_bounding_boxes_registered = register_keras_class(describe_layer<MaxNumBoundingBoxes>(
    "MaxNumBoundingBoxes", &MaxNumBoundingBoxesImpl::options,
    keras_field("max_number", &MaxNumBoundingBoxesImpl::max_number)));
}  // namespace

}  // namespace strata::layers
