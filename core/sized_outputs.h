// The node attribute by which an op's builder says that its kernels size an output dim
// its shape inference leaves None even for fed shapes (a size that depends on the data:
// text_vectorize's rows padded to a batch's longest). The execution state starts such an
// output with that dim 0 and the kernel resets it; for any other node a None dim there is
// a ShapeError (core/execution_state.cc), as a kernel would write into an empty buffer.
#pragma once

namespace strata {

inline constexpr const char* kSizesOutputsAttr = "sizes_outputs";

}  // namespace strata
