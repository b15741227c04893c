// Gating classes (include/graphprof/compare_classes.hpp; the table in docs/compare.md).
#include "graphprof/compare_classes.hpp"

namespace gp {

const char* to_string(SeriesClass c) {
  switch (c) {
    case SeriesClass::kDevice: return "device";
    case SeriesClass::kHost: return "host";
    case SeriesClass::kInfo: return "info";
  }
  return "info";
}

SeriesClass series_class(const std::string& metric, const std::string& mode, bool waits_for_host) {
  const bool time_of_device = metric == "gpu_time_per_iter_latched" || (metric == "gpu_time_per_iter" && mode != "eager");
  if (time_of_device) return waits_for_host ? SeriesClass::kHost : SeriesClass::kDevice;
  static const char* const host[] = {"gpu_time_per_iter",   "host_time_per_iter_batched", "wall_time_per_iter",
                                     "launch_cpu_per_call", "launch_cpu_isolated",        "launch_cpu_per_iter",
                                     "capture_time",        "build_time",                 "instantiate_time",
                                     "upload_time",         "first_launch_time"};
  for (const char* h : host)
    if (metric == h) return SeriesClass::kHost;
  return SeriesClass::kInfo;
}

double class_between_run_sd(SeriesClass c, const std::string& mode) {
  switch (c) {
    case SeriesClass::kDevice: return mode == "eager" ? 0.04 : 0.02;
    case SeriesClass::kHost: return 0.30;
    case SeriesClass::kInfo: return 0.30;
  }
  return 0.30;
}

}  // namespace gp
