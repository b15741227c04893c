// CUPTI version query. (The tracing session lives beside this file; both are the only TUs
// that include cupti.h.)
#include "graphprof/cuda/cupti_info.hpp"

#include <cupti.h>

namespace gp {

int cupti_version() noexcept {
  uint32_t v = 0;
  if (cuptiGetVersion(&v) != CUPTI_SUCCESS) return 0;
  return static_cast<int>(v);
}

}  // namespace gp
