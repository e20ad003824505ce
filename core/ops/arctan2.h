// arctan2(y, x): the angle of (x, y), as tf.math.atan2 gives it (keras.ops.arctan2 and the
// STFTSpectrogram's "angle" mode), composed of elementwise ops: atan(y / x), moved by ±π where
// x < 0, where |x| >= |y|, and sign(y)·π/2 − atan(x / y) elsewhere; 0 where both are 0. Its
// gradients are the composition's, x / (x² + y²) and −y / (x² + y²), finite everywhere but
// the origin (the y axis included).
#pragma once

#include "core/graph.h"

namespace strata::ops {

Output arctan2(Output y, Output x);

}  // namespace strata::ops
