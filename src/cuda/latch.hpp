// A stream latch for measuring device-side replay time with host submission hidden.
#pragma once
#include <cuda_runtime_api.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace gp {

// How the stream is held. kWaitValue (the default): a stream memory operation
// (cuStreamWaitValue32) on a host-mapped flag, with no kernel on the device; a host thread
// releases it at the timeout. kKernel: a one-thread kernel polling the flag (the method of NVIDIA's
// cudaGraphsPerfScaling sample), used where the driver refuses the stream wait, or with
// GRAPHPROF_LATCH=kernel. On the H200 the kernel latch, repeated, switches the CUDA context to the
// slower device level for the rest of the process; the stream wait did not (docs/findings.md).
enum class LatchKind { kKernel, kWaitValue };
LatchKind latch_kind();                 // GRAPHPROF_LATCH, else wait-value where the driver has it
const char* to_string(LatchKind kind);  // "kernel", "wait-value"

class Latch {
 public:
  explicit Latch(LatchKind kind = latch_kind());
  ~Latch();
  Latch(const Latch&) = delete;
  Latch& operator=(const Latch&) = delete;

  // Enqueue the latch: the stream stalls until release() or the timeout.
  void hold(cudaStream_t stream, double timeout_seconds);
  void release();
  // After the stream synchronised: did the latch give up before release()? Then the batch
  // queued behind it was not fully pre-queued and its timings are discarded.
  bool timed_out() const;
  LatchKind kind() const { return kind_; }

 private:
  void stop_watchdog();

  LatchKind kind_;
  int* host_ = nullptr;    // [0] release flag, [1] timed-out flag; mapped pinned memory
  int* device_ = nullptr;
  // kWaitValue: the thread that releases the stream at the timeout.
  std::thread watchdog_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

}  // namespace gp
