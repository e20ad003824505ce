// What an execution state asks of a device beside the CPU while it runs a plan there: a
// place its kernels enqueue work (a CUDA stream and its library handles), feeds copied in
// on it, waiting for it, and a run recorded once to be replayed (a CUDA graph). The
// device's backend makes one for each state (DeviceBackend::new_run), so the engine
// drives a device only through this interface and never includes the device's headers;
// the device's kernels find it in KernelContext::device_run and cast it to their own
// (core/cuda/run_context.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace strata {

// A recorded run (core/cuda/graph.h for CUDA), replayed on the run it was recorded on.
class DeviceGraph {
 public:
  virtual ~DeviceGraph() = default;
  // Enqueues one replay; throws strata::Error when the device fails.
  virtual void launch() = 0;
};

class DeviceRun {
 public:
  virtual ~DeviceRun() = default;
  // Enqueues a copy of `bytes` into this device's memory at `dst`, from host memory or,
  // when src_on_device, a device's memory. The run's later work sees it.
  virtual void copy_in(void* dst, const void* src, std::size_t bytes, bool src_on_device) = 0;
  // Waits for every kernel enqueued so far; throws strata::Error when one failed, and the
  // CPU kernel's ValueError when one reported bad input.
  virtual void synchronize() = 0;
  // The step and sample offset kernels that read them on the device see (dropout):
  // written before a replay, since a recorded run would otherwise repeat the recorded ones.
  virtual void set_run_scalars(std::int64_t step, std::int64_t sample_offset) = 0;
  // How many launches so far check their input on the device. Such a check stops an
  // eager run before its updates to report bad input; a replay could not.
  virtual std::int64_t checking_launches() const = 0;
  // Records what `enqueue` enqueues on this run, running none of it, into a graph that
  // replays it. Throws strata::Error when the device cannot record it, having run nothing.
  virtual std::unique_ptr<DeviceGraph> record(const std::function<void()>& enqueue) = 0;
};

}  // namespace strata
