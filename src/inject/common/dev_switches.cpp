// The developer switches of the injection library (dev_switches.hpp).
#include "dev_switches.hpp"

namespace gp::inject {

DevSwitches DevSwitches::parse(const char* list) {
  DevSwitches s;
  if (list == nullptr) return s;
  std::string all = list;
  std::size_t pos = 0;
  while (pos <= all.size()) {
    std::size_t comma = all.find(',', pos);
    if (comma == std::string::npos) comma = all.size();
    const std::string name = all.substr(pos, comma - pos);
    pos = comma + 1;
    if (name.empty()) continue;
    bool* flag = name == "cupti"         ? &s.cupti
                 : name == "resource_cb" ? &s.resource_cb
                 : name == "runtime_cb"  ? &s.runtime_cb
                 : name == "launch_cb"   ? &s.launch_cb
                 : name == "state_cb"    ? &s.state_cb
                 : name == "probe"       ? &s.probe
                 : name == "runtime"     ? &s.runtime
                 : name == "driver"      ? &s.driver
                 : name == "gpu"         ? &s.gpu
                 : name == "write"       ? &s.write
                 : name == "api_filter"  ? &s.api_filter
                                         : nullptr;
    if (flag != nullptr) {
      *flag = false;
    } else {
      if (!s.unknown.empty()) s.unknown += ',';
      s.unknown += name;
    }
  }
  return s;
}

}  // namespace gp::inject
