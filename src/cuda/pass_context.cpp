// The shared context of the measurement passes and their error recovery (pass_context.hpp).
#include "pass_context.hpp"

#include <algorithm>
#include <chrono>

namespace gp {

PassContext::PassContext(const WorkloadEntry& entry, Mode mode, const Params& params)
    : workload_(entry.create()), stream_(), runner_(), ctx_(nullptr) {
  workload_->setup(params);
  stream_ = make_stream();
  runner_ = make_mode_runner(mode);
  ctx_ = LaunchContext(stream_.get());
}

void PassContext::reset() {
  workload_->reset(stream());
  synchronize();
}

void PassContext::iteration() {
  ctx_.set_iteration(iteration_++);
  runner_->launch(*workload_, ctx_);
}

void PassContext::synchronize() const { GP_CUDA_CHECK(cudaStreamSynchronize(stream())); }

IterationShape PassContext::time_one_iteration() {
  ctx_.reset_call_count();
  const auto t0 = std::chrono::steady_clock::now();
  iteration();
  synchronize();
  IterationShape s;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.calls_per_iter = std::max<std::size_t>(1, ctx_.calls());
  return s;
}

bool recover_from_cuda_error(const CudaError& e) {
  (void)cudaGetLastError();
  const cudaError_t after = cudaDeviceSynchronize();
  (void)cudaGetLastError();
  return is_sticky_error(e.cuda_code()) || is_sticky_error(after);
}

}  // namespace gp
