// A CUDA event owned by a handle (built only with STRATA_WITH_CUDA), without timing:
// recorded on one stream, waited for by another stream or polled by the host.
#pragma once

struct CUevent_st;   // cudaEvent_t is CUevent_st* (driver_types.h)
struct CUstream_st;

namespace strata::cuda {

class Event {
 public:
  // Throws strata::Error when CUDA cannot create it.
  explicit Event(int device);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Marks the point `stream` has reached: the event completes when the work enqueued
  // there so far has run.
  void record(CUstream_st* stream);
  // Makes the work enqueued on `stream` from now on wait until the event has completed.
  void make_wait(CUstream_st* stream) const;
  // Whether the work recorded has run; throws strata::Error when some of it failed.
  bool completed() const;

 private:
  int device_;
  CUevent_st* event_ = nullptr;
};

}  // namespace strata::cuda
