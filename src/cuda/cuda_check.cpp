// CudaError and the checked-call helpers.
#include "graphprof/cuda/cuda_check.hpp"

#include <cctype>
#include <cstdio>

namespace gp {

namespace {
ExitCode exit_code_for(cudaError_t e) { return is_environment_error(e) ? ExitCode::kEnvironment : ExitCode::kInternal; }

std::string describe(cudaError_t code, const std::string& api, const char* file, int line) {
  return api + " failed: " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ") at " + file + ":" +
         std::to_string(line);
}
}  // namespace

CudaError::CudaError(cudaError_t code, std::string api, const char* file, int line)
    : Error(exit_code_for(code), describe(code, api, file, line)), cuda_code_(code), api_(std::move(api)) {}

const char* CudaError::error_name() const noexcept { return cudaGetErrorName(cuda_code_); }

bool is_environment_error(cudaError_t e) {
  return e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || e == cudaErrorStubLibrary ||
         e == cudaErrorDevicesUnavailable || e == cudaErrorSystemDriverMismatch ||
         e == cudaErrorCompatNotSupportedOnDevice || e == cudaErrorInitializationError;
}

bool is_sticky_error(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

std::string api_name_of(const char* expression) {
  std::string s(expression);
  std::size_t end = 0;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_' || s[end] == ':')) ++end;
  return s.substr(0, end);
}

void cuda_check_noexcept(cudaError_t e, const char* expression, const char* file, int line) noexcept {
  // After a sticky error every cleanup call fails the same way; the suite reports the error once.
  if (e != cudaSuccess && !is_sticky_error(e))
    std::fprintf(stderr, "graphprof: warning: %s failed during cleanup: %s at %s:%d\n", expression, cudaGetErrorName(e),
                 file, line);
}

}  // namespace gp
