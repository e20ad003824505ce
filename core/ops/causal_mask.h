// causal_mask: which keys each query may attend to when it must not see the future, as
// Keras's use_causal_mask builds it: for scores (..., Tq, Tv), a (Tq, Tv) tensor of 1 where
// query i may see key j (i >= j) and 0 elsewhere. Computed from the scores' shape when the
// program runs, so sequences of any length share one graph.
#pragma once

#include "core/graph.h"

namespace strata::ops {

Output causal_mask(Output scores);

}  // namespace strata::ops
