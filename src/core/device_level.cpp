// The device level and the two device methods' agreement (graphprof/device_level.hpp).
#include "graphprof/core/device_level.hpp"

#include <algorithm>
#include <cmath>

#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

std::string device_methods_note(const ModeResult& r) {
  if (r.mode == Mode::kEager || r.status != Status::kOk || !r.sections.graph || r.sections.graph->nodes < 10) return {};
  const double b2b = median_or_nan(r, metric_key::kGpuTimePerIter);
  const double latched = median_or_nan(r, metric_key::kGpuTimePerIterLatched);
  if (!(b2b > 0) || !std::isfinite(latched)) return {};
  const double ratio = latched / b2b;
  if (std::fabs(ratio - 1) <= kDeviceMethodsTolerance) return {};
  const std::string diff = strf("latched %+.0f %% against back to back", 100 * (ratio - 1));
  if (!r.sections.device_probe) return diff + " (no device probe to say why)";
  const DeviceProbeSection& p = *r.sections.device_probe;
  // The probe's readings where each pass ran: back to back before the GPU pass, latched before and
  // after the latched pass.
  double b2b_at_gpu = p.ns_per_kernel, lat_before = kNoValue, lat_after = kNoValue, b2b_after_gpu = kNoValue;
  for (const DeviceProbePoint& pt : p.points) {
    if (pt.at == "before GPU pass") b2b_at_gpu = pt.reading.back_to_back_ns;
    if (pt.at == "before latched pass") {
      lat_before = pt.reading.latched_ns;
      b2b_after_gpu = pt.reading.back_to_back_ns;
    }
    if (pt.at == "after latched pass") lat_after = pt.reading.latched_ns;
  }
  const double lat_level = std::fmax(lat_before, lat_after);  // fmax ignores a NaN side
  if (std::isfinite(lat_level) && b2b_at_gpu > 0 && lat_level > b2b_at_gpu * (1 + kDeviceLevelStep))
    return diff + strf(": the latched pass ran at a slower device level than the GPU pass (probe, ns per kernel: "
                       "back to back %.0f before the GPU pass, latched %.0f / %.0f before / after the latched pass)",
                       b2b_at_gpu, lat_before, lat_after);
  if (std::isfinite(b2b_after_gpu) && b2b_at_gpu > 0 &&
      std::fabs(b2b_after_gpu / b2b_at_gpu - 1) > kDeviceLevelStep)
    return diff + strf(": the device level changed during the GPU pass (probe back to back %.0f before, %.0f after, "
                       "ns per kernel)", b2b_at_gpu, b2b_after_gpu);
  // A graph with several roots or sinks: a replay that follows the previous replay (the GPU pass)
  // costs up to about 1 µs more per root or sink than one replay after an idle stream (the latched
  // pass); measured on the H200 for chains of 10 kernels side by side (docs/findings.md, Parity).
  const GraphDumpSection& g = *r.sections.graph;
  const int joins = std::max(g.roots, g.sinks);
  const double extra_ns = b2b - latched;
  if (ratio < 1 && joins > 1 && extra_ns <= kReplayAfterReplayNsPerJoin * joins)
    return diff + strf(": the graph has %d roots and %d sinks; a replay that follows the previous one (GPU pass, "
                       "back to back) costs %.1f µs more than one replay after an idle stream (latched, the method of "
                       "NVIDIA's cudaGraphsPerfScaling); both are right, for a replay loop and for one replay",
                       g.roots, g.sinks, extra_ns / 1000);
  if (ratio < 1)
    return diff + ": back-to-back replays waited for the host's launch calls (the iteration is launch-bound)";
  return diff + ": the probe read the same device level for both passes; not explained by the level";
}

std::string device_level_cell(const ModeResult& r) {
  if (!r.sections.device_probe) return "-";
  const DeviceProbeSection& p = *r.sections.device_probe;
  const auto pair = [](double b2b, double latched) {
    return (std::isfinite(b2b) ? strf("%.0f", b2b) : std::string("-")) + "/" +
           (std::isfinite(latched) ? strf("%.0f", latched) : std::string("-"));
  };
  if (!std::isfinite(p.ns_per_kernel) && !std::isfinite(p.latched_ns_per_kernel)) return "-";
  std::string s = pair(p.ns_per_kernel, p.latched_ns_per_kernel);
  const auto moved = [](double a, double b) {
    return std::isfinite(a) && std::isfinite(b) && a > 0 && std::fabs(b / a - 1) > kDeviceLevelStep;
  };
  // The highest reading of each method at any point, so a switch between the passes shows too.
  double b2b_hi = p.ns_per_kernel_after, lat_hi = p.latched_ns_per_kernel_after;
  for (const DeviceProbePoint& pt : p.points) {
    if (std::isfinite(pt.reading.back_to_back_ns) && !(pt.reading.back_to_back_ns <= b2b_hi)) b2b_hi = pt.reading.back_to_back_ns;
    if (std::isfinite(pt.reading.latched_ns) && !(pt.reading.latched_ns <= lat_hi)) lat_hi = pt.reading.latched_ns;
  }
  if (moved(p.ns_per_kernel, b2b_hi) || moved(p.latched_ns_per_kernel, lat_hi)) s += " → " + pair(b2b_hi, lat_hi);
  return s;
}

std::string latch_description(const Report& report) {
  if (!report.settings.latch) return "a latch";
  return *report.settings.latch == "kernel" ? "a polling latch kernel" : "a stream wait";
}

}  // namespace gp
