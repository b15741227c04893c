// Checked CUDA runtime calls. GP_CUDA_CHECK throws gp::CudaError naming the API, the CUDA error
// and the place; runners turn it into a recorded failure, main() into an exit code.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "graphprof/core/error.hpp"

namespace gp {

class CudaError : public Error {
 public:
  CudaError(cudaError_t code, std::string api, const char* file, int line);
  cudaError_t cuda_code() const noexcept { return cuda_code_; }
  const std::string& api() const noexcept { return api_; }
  const char* error_name() const noexcept;

 private:
  cudaError_t cuda_code_;
  std::string api_;
};

// True for the errors that mean "there is no usable GPU or driver here".
bool is_environment_error(cudaError_t e);
// Errors after which the CUDA context is unusable: every later call in the process returns them
// (an illegal address or instruction in a kernel, a launch failure, an assert, ECC).
bool is_sticky_error(cudaError_t e);

// Extracts "cudaFoo" from an expression text such as "cudaFoo(a, b)".
std::string api_name_of(const char* expression);

// Report-only variant for destructors: never throws.
void cuda_check_noexcept(cudaError_t e, const char* expression, const char* file, int line) noexcept;

}  // namespace gp

#define GP_CUDA_CHECK(expr)                                                                 \
  do {                                                                                      \
    const cudaError_t gp_cuda_err_ = (expr);                                                \
    if (gp_cuda_err_ != cudaSuccess)                                                        \
      throw ::gp::CudaError(gp_cuda_err_, ::gp::api_name_of(#expr), __FILE__, __LINE__);    \
  } while (0)

#define GP_CUDA_CHECK_NOEXCEPT(expr) ::gp::cuda_check_noexcept((expr), #expr, __FILE__, __LINE__)
