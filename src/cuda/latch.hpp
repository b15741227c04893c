// A stream latch for measuring device-side replay time with host submission hidden.
#pragma once
#include <cuda_runtime_api.h>

#include <atomic>

namespace gp {

class Latch {
 public:
  Latch();
  ~Latch();
  Latch(const Latch&) = delete;
  Latch& operator=(const Latch&) = delete;

  // Enqueue the latch kernel: the stream stalls until release() or the timeout.
  void hold(cudaStream_t stream, double timeout_seconds);
  void release();
  // After the stream synchronised: did the latch give up before release()? Then the batch
  // queued behind it was not fully pre-queued and its timings are discarded.
  bool timed_out() const;

 private:
  int* host_ = nullptr;    // [0] release flag, [1] timed-out flag; mapped pinned memory
  int* device_ = nullptr;
};

}  // namespace gp
