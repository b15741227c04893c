// Gating classes (include/graphprof/compare/compare_classes.hpp; the table in docs/compare.md).
#include "graphprof/compare/compare_classes.hpp"

#include "graphprof/core/metric_catalog.hpp"

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
  // The metric catalogue's gating class decides; unknown metrics are informational.
  const MetricInfo* info = find_metric(metric);
  if (info == nullptr) return SeriesClass::kInfo;
  switch (gate_class(metric, mode_from_string(mode).value_or(Mode::kGraph))) {
    case GateClass::kDeviceStable: return waits_for_host ? SeriesClass::kHost : SeriesClass::kDevice;
    case GateClass::kHostSide:
    case GateClass::kOneOff: return SeriesClass::kHost;
    case GateClass::kInformational: break;
  }
  // A cross-check that is a time (the host clock over a GPU-pass batch) moves like host figures.
  return std::string(info->unit) == "ns" ? SeriesClass::kHost : SeriesClass::kInfo;
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
