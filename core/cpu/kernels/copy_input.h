// The CPU kernel of the ops that only relabel their input (identity, stop_gradient, the
// reshapes, split_axis, merge_axes, expand_dims): output = input 0, copied.
#pragma once

#include "core/op_registry.h"

namespace strata::cpu {

void copy_input_kernel(KernelContext& ctx);

}  // namespace strata::cpu
