// Text about CUDA error codes, host-only (the codes are plain ints, no CUDA header): the names and
// usual fixes of capture errors, shared by `run`'s failure diagnosis (src/cuda) and `profile`'s
// capture trouble (src/profile). src/core/cuda_error_text.cpp.
#pragma once
#include <string>

namespace gp {

// The usual fix for a capture error (cudaError_t value); empty when there is no usual fix.
std::string capture_error_hint(int cuda_error, const std::string& api);
// "cudaErrorStreamCaptureUnsupported" for 900, ...; "cudaError <n>" for codes it does not know.
std::string cuda_error_name_of(int cuda_error);

}  // namespace gp
