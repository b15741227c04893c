// Whether the interposer or CUPTI observes the process (observe_choice.hpp).
#include "observe_choice.hpp"

namespace gp::inject {

ObserveChoice choose_observer(const ObserveFacts& f) {
  ObserveChoice c;
  if (!f.asked) return c;
  if (f.level != 0 && f.level != -1) {
    c.why_not = "interposition observes --trace none and --overhead's plain runs only";
    return c;
  }
  if (!f.interposer_loaded) {
    c.why_not = "the interposer library is not loaded in this process";
    return c;
  }
  if (f.interposer_ready && f.shared_runtime_caller) {
    c.interpose = true;
    c.at = "runtime";
    return c;
  }
  const std::string why_runtime =
      !f.interposer_ready ? "the process calls no shared CUDA runtime (libcudart.so): its runtime is statically linked (nvcc's "
                            "default), or it calls the driver directly"
                          : "CUDA was not initialised through the shared runtime (a statically linked runtime, or the driver API "
                            "directly)";
  if (f.driver_lookups) {
    c.interpose = true;
    c.at = "driver";
    c.why_at = why_runtime;
    return c;
  }
  c.why_not = why_runtime + ": interposition would not see the calls (the interposer answers the driver's look-ups on x86-64 only)";
  return c;
}

}  // namespace gp::inject
