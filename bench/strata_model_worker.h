// Strata as an engine of the real-model benchmark: `strata_bench_models --worker
// --threads=N` speaks the line protocol of bench/model_worker.py (load, predict, quit)
// on stdin/stdout, in its own process like the other engines, so that each engine's
// memory and threads are its own.
#pragma once

namespace strata::bench {

// Serves requests until quit or end of input; returns the process's exit status.
// Call before anything writes to stdout: stdout becomes the protocol's, and what the
// library or the flags print goes to stderr.
int serve_strata_model_worker(int threads);

}  // namespace strata::bench
