// Global pooling: GlobalMaxPooling1D/2D/3D, GlobalAveragePooling1D/2D/3D reduce every spatial
// axis; keepdims keeps them as size 1.
#pragma once

#include <string>

#include "layers/call_tensors.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct GlobalPoolingOptions {  // Keras signature order
  std::string data_format;
  bool keepdims = false;  // absent (tf.keras < 2.6) means false
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = GlobalPoolingOptions;
    return std::tuple{keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("keepdims", &O::keepdims)};
  }
};

class GlobalPoolingImpl : public LayerImpl, public TakesTensorArguments {
 public:
  GlobalPoolingImpl(std::string class_name, bool max, int spatial_rank, GlobalPoolingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }
  // GlobalAveragePooling1D averages over the steps its mask keeps, as Keras does: the mask
  // passed with the call (Keras's call(inputs, mask), where Keras 3 files record an
  // Embedding's mask), else its input's (Embedding with mask_zero, Masking); the other
  // global poolings ignore masks and take none with the call, as in Keras. The output
  // carries no mask.
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<std::string> call_argument_names() const override;
  std::vector<TensorArgument> tensor_arguments() const override;
  bool takes_mask() const { return !max && spatial_rank == 1; }
  bool max;
  int spatial_rank;
  GlobalPoolingOptions options;
};

class GlobalMaxPooling1D : public Layer {
 public:
  explicit GlobalMaxPooling1D(GlobalPoolingOptions options = {});
};
class GlobalMaxPooling2D : public Layer {
 public:
  explicit GlobalMaxPooling2D(GlobalPoolingOptions options = {});
};
class GlobalMaxPooling3D : public Layer {
 public:
  explicit GlobalMaxPooling3D(GlobalPoolingOptions options = {});
};
class GlobalAveragePooling1D : public Layer {
 public:
  explicit GlobalAveragePooling1D(GlobalPoolingOptions options = {});
};
class GlobalAveragePooling2D : public Layer {
 public:
  explicit GlobalAveragePooling2D(GlobalPoolingOptions options = {});
};
class GlobalAveragePooling3D : public Layer {
 public:
  explicit GlobalAveragePooling3D(GlobalPoolingOptions options = {});
};

}  // namespace strata::layers
