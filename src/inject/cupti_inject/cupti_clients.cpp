// The application's refused CUPTI clients (cupti_clients.hpp).
#include "cupti_clients.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <string>

#include "inject_output.hpp"
#include "record_lines.hpp"

namespace gp::inject {

namespace {

using RefusalsFn = int (*)(int*, const char**);

}  // namespace

// Empty when the watch library is not loaded or saw no refusal.
std::string refused_subscribers_line() {
  const auto fn = reinterpret_cast<RefusalsFn>(dlsym(RTLD_DEFAULT, "graphprof_cupti_watch_refusals"));
  if (fn == nullptr) return {};
  int result = 0;
  const char* caller = nullptr;
  const int n = fn(&result, &caller);
  if (n <= 0) return {};
  const char* name = nullptr;
  if (cuptiGetResultString(static_cast<CUptiResult>(result), &name) != CUPTI_SUCCESS || name == nullptr) name = "CUPTI error";
  std::string line;
  records::write(line, records::CuptiRefusedLine{static_cast<std::size_t>(n), name, caller != nullptr ? caller : ""});
  return line;
}

}  // namespace gp::inject
