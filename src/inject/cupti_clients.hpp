// The application's own CUPTI clients that CUPTI refused while graphprof held it, as the preloaded
// watch library saw them (src/inject/cupti_watch.cpp). Included only by graphprof_inject.cpp.
//
// Line written at the end (format at the top of src/profile/profile_records.cpp):
//   cupti_refused {n, r, caller}   n cuptiSubscribe calls of the application refused; the first one's
//                                  result and calling module
#pragma once
#include <cupti.h>
#include <dlfcn.h>

#include <string>

#include "inject_output.hpp"

namespace gp::inject {

using RefusalsFn = int (*)(int*, const char**);

// Empty when the watch library is not loaded or saw no refusal.
inline std::string refused_subscribers_line() {
  const auto fn = reinterpret_cast<RefusalsFn>(dlsym(RTLD_DEFAULT, "graphprof_cupti_watch_refusals"));
  if (fn == nullptr) return {};
  int result = 0;
  const char* caller = nullptr;
  const int n = fn(&result, &caller);
  if (n <= 0) return {};
  const char* name = nullptr;
  if (cuptiGetResultString(static_cast<CUptiResult>(result), &name) != CUPTI_SUCCESS || name == nullptr) name = "CUPTI error";
  std::string line = "{\"t\":\"cupti_refused\",\"n\":" + std::to_string(n) + ",\"r\":";
  append_json_string(line, name);
  line += ",\"caller\":";
  append_json_string(line, caller != nullptr ? caller : "");
  line += "}\n";
  return line;
}

}  // namespace gp::inject
