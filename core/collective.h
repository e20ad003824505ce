// Collective: the communication a data-parallel train step's graph nodes call
// (all_reduce_start / all_reduce_wait, core/ops/collective_ops.h). core defines only this
// interface; distribution/ implements it over MPI (distribution/communicator.h), so the
// engine knows nothing of any transport. A Program is given one through
// RunOptions::collective; a collective op run without one throws.
#pragma once

#include <cstdint>

namespace strata {

class Collective {
 public:
  virtual ~Collective() = default;
  // Starts summing `count` floats at `data` over every process, in place, and returns
  // at once: the rest of the step runs while the sum travels. `data` must stay valid
  // and untouched until wait_all_reduce(data) returns.
  virtual void start_all_reduce(float* data, std::int64_t count) = 0;
  // Blocks until the all-reduce started on `data` has completed. Throws strata::Error
  // when it failed or did not complete in the communicator's time limit.
  virtual void wait_all_reduce(float* data) = 0;
};

}  // namespace strata
