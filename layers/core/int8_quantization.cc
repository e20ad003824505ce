#include "layers/core/int8_quantization.h"

#include "core/ops.h"

namespace strata::layers {

Int8Rows quantize_rows_int8(Output x) {
  // Keras: backend.epsilon() (1e-7) and the value range (-127, 127) of AbsMaxQuantizer.
  Output scale = ops::div(127.f, ops::add(ops::reduce_max(ops::abs(x), {-1}, true), 1e-7f));
  Output values = ops::clip(ops::round(ops::mul(x, scale)), -127.f, 127.f);
  return {values, scale};
}

}  // namespace strata::layers
