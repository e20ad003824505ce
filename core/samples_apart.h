// Running a batch one sample at a time, the samples spread over the CPU's threads.
//
// A Program's kernels each split their work over the threads, and wait for one another at
// the end of every step. For a convolutional network at batch 32 that is the slower way:
// each step's activations for 32 images leave the caches before the next step reads them,
// and every step pays the threads' hand-off. Run one image at a time on each thread
// instead, the kernels' own splits running one after another on it, and an image's
// activations stay in that core's caches from step to step (MobileNetV2 at batch 32: about
// 1.2× the throughput; docs/performance.md, "Samples apart"). It is right only where each
// sample's outputs depend on that sample's inputs alone, which the Program cannot see:
// the caller decides (models/samples_apart.h).
#pragma once

#include <vector>

#include "core/program.h"
#include "core/tensor.h"

namespace strata {

// Whether run_samples_apart would split these feeds: a CPU Program that writes no
// variable, at least two threads, numeric host feeds sharing a batch (axis 0) of at least
// as many samples as threads. (The Program's feeds must take any batch size: the caller
// knows.)
bool can_run_samples_apart(const Program& program, const std::vector<Tensor>& feeds);

// program.run(feeds) computed one sample at a time: thread t takes samples t, t + threads,
// ..., each a run of a batch of one on that thread; where up to half the threads would
// have a sample more than the others, those samples run after instead, one at a time on
// every thread. The fetches are stacked along axis 0. Each sample's results are run() on
// that sample alone, bit for bit. The call holds the pool for the whole batch: another
// thread's runs meanwhile run their kernels on their own thread. Where
// can_run_samples_apart is false, or a fetch is not one row per sample (or not numeric), it
// is program.run(feeds).
std::vector<Tensor> run_samples_apart(const Program& program, const std::vector<Tensor>& feeds);

}  // namespace strata
