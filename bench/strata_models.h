// A workload's model (bench/workload.h) written with Strata's public API, uncompiled: the
// model strata_bench times against libtorch and Keras, and strata_bench_distributed
// times across processes.
#pragma once

#include <strata/strata.h>

#include "bench/workload.h"

namespace strata::bench {

Model build_strata_model(const Workload& w);

}  // namespace strata::bench
