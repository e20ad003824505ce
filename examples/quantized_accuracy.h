// Post-training quantization at the end of a tutorial, as Keras's guide does it: the
// trained model quantized in place (model.quantize("int8"): its Dense layers' kernels per
// column, their inputs per row on every call) and evaluated on the same test set again,
// beside float32's accuracy (docs/precision.md quotes both, and Keras's own).
#pragma once

#include <strata/strata.h>

#include <cstdio>
#include <string>

namespace strata::examples {

// Returns the quantized model's test accuracy.
inline double report_quantized_accuracy(Model& model, const std::string& mode, const Tensor& x_test,
                                        const Tensor& y_test, double float_accuracy) {
  model.quantize(mode);
  const double accuracy = model.evaluate(x_test, y_test, {.verbose = 0}).at("accuracy");
  std::printf("%s test accuracy: %.4f  (float32 %.4f: %+.2f points)\n", mode.c_str(), accuracy, float_accuracy,
              100.0 * (accuracy - float_accuracy));
  return accuracy;
}

}  // namespace strata::examples
