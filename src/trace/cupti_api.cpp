// Loading CUPTI with dlopen on first use (see cupti_api.hpp).
#include "cupti_api.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <string>
#include <vector>

#include "graphprof/trace/cupti_session.hpp"

namespace gp {

namespace {

std::string& cupti_library_choice() {
  static std::string path;
  return path;
}

#ifndef GRAPHPROF_CUPTI_SONAME
#define GRAPHPROF_CUPTI_SONAME "libcupti.so"
#endif
#ifndef GRAPHPROF_CUPTI_LIBRARY
#define GRAPHPROF_CUPTI_LIBRARY ""
#endif

CuptiApi load_cupti() {
  CuptiApi api;
  // By soname first (LD_LIBRARY_PATH, the loader cache), then the toolkit's copy found at build time.
  std::vector<std::string> candidates;
  if (!cupti_library_choice().empty()) candidates.push_back(cupti_library_choice());
  else candidates = {GRAPHPROF_CUPTI_SONAME, GRAPHPROF_CUPTI_LIBRARY};
  std::string errors;
  for (const auto& c : candidates) {
    if (c.empty()) continue;
    api.handle = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.handle != nullptr) break;
    const char* e = ::dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e != nullptr ? e : c + ": cannot be loaded");
  }
  if (api.handle == nullptr) {
    api.error = errors.empty() ? "no CUPTI library to load" : errors;
    return api;
  }
  std::string missing;
#define GP_CUPTI_RESOLVE(f)                                                          \
  api.f = reinterpret_cast<decltype(api.f)>(::dlsym(api.handle, #f));                \
  if (api.f == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(#f);
  GP_CUPTI_FUNCTIONS(GP_CUPTI_RESOLVE)
#undef GP_CUPTI_RESOLVE
  if (!missing.empty()) {
    ::dlclose(api.handle);
    api = CuptiApi{};
    api.error = "the CUPTI library lacks " + missing + " (CUPTI older than this build's CUDA " +
                std::to_string(CUDART_VERSION / 1000) + "?)";
  }
  return api;
}

}  // namespace

const CuptiApi& cupti() {
  static const CuptiApi api = load_cupti();
  return api;
}

void use_cupti_library_for_testing(const std::string& path) { cupti_library_choice() = path; }

std::string cupti_unavailable_reason() {
  const CuptiApi& api = cupti();
  return api.loaded() ? std::string() : "CUPTI is not available: " + api.error;
}

int cupti_version() noexcept {
  uint32_t v = 0;
  if (!cupti().loaded() || cupti().cuptiGetVersion(&v) != CUPTI_SUCCESS) return 0;
  return static_cast<int>(v);
}

}  // namespace gp
