// Integer and bit-level ops: bitwise and, or, xor and not, shifts, gcd and lcm on int32 or int64 tensors
// (keras.ops.bitwise_and ... gcd, lcm), NumPy-broadcasting, computed in the operands' own
// integer dtype as TensorFlow computes them (core/integer_math.h). Both operands have one
// dtype (cast first: Keras promotes int32 with int64 to int64); a float32 operand is
// refused when the graph is defined. They have no gradient, as in TensorFlow: a gradient
// asked through them is none, like the comparisons'.
#pragma once

#include "core/graph.h"

namespace strata::ops {

Output bitwise_and(Output a, Output b);
Output bitwise_or(Output a, Output b);
Output bitwise_xor(Output a, Output b);
Output bitwise_not(Output x);  // ~x
// a << b and a >> b (arithmetic) with b clamped to [0, bits − 1], as TensorFlow's.
Output left_shift(Output a, Output b);
Output right_shift(Output a, Output b);
// Keras's gcd and lcm (non-negative, but where |INT_MIN| wraps); lcm's products wrap.
Output gcd(Output a, Output b);
Output lcm(Output a, Output b);

// x's bytes read as `dtype` (keras.ops.view, tf.bitcast; float32, int32, int64): the same
// shape between types of one size, the last axis doubled from int64 to a 4-byte type and
// halved (it must be even) from one to int64. No gradient through a float input (refused by
// name, as TensorFlow has none for Bitcast), none from an integer one.
Output bitcast(Output x, DType dtype);

}  // namespace strata::ops
