// The one vocabulary of measured quantities: every metric key graphprof writes, with its unit,
// the label the reporters print, its direction, how `compare` may gate on it, a description
// and its display order. Reporters, derived figures, trace and compare read it instead of
// repeating names; docs/report-schema.md lists the same table. Host-only.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "graphprof/core/mode.hpp"

namespace gp {

enum class Direction { kLowerIsBetter, kHigherIsBetter, kNone };
const char* to_string(Direction d);
Direction direction_from_string(const std::string& s);  // throws input_error on unknown text

// How far a change of the metric says something about the code under test.
enum class GateClass {
  kDeviceStable,   // device time with host submission out of the way: gates by default
  kHostSide,       // host clock around CUDA calls (launch cost, wall time): moves with the host's speed
  kOneOff,         // paid once per graph (capture, instantiate, ...): few samples, host clock
  kInformational,  // a cross-check, never a verdict of its own
};
const char* to_string(GateClass g);

// Stable metric keys (the JSON keys of results[].metrics).
namespace metric_key {
inline constexpr const char* kGpuTimePerIter = "gpu_time_per_iter";
inline constexpr const char* kGpuTimePerIterLatched = "gpu_time_per_iter_latched";
inline constexpr const char* kHostTimePerIterBatched = "host_time_per_iter_batched";
inline constexpr const char* kWallTimePerIter = "wall_time_per_iter";
inline constexpr const char* kLaunchCpuPerCall = "launch_cpu_per_call";
inline constexpr const char* kLaunchCpuIsolated = "launch_cpu_isolated";
inline constexpr const char* kLaunchCpuPerIter = "launch_cpu_per_iter";
inline constexpr const char* kCaptureTime = "capture_time";
inline constexpr const char* kBuildTime = "build_time";
inline constexpr const char* kInstantiateTime = "instantiate_time";
inline constexpr const char* kUploadTime = "upload_time";
inline constexpr const char* kUploadCallTime = "upload_call_time";
inline constexpr const char* kInstantiateTimeFirst = "instantiate_time_first";
inline constexpr const char* kUploadTimeFirst = "upload_time_first";
inline constexpr const char* kUploadCallTimeFirst = "upload_call_time_first";
inline constexpr const char* kFirstLaunchTime = "first_launch_time";
}  // namespace metric_key

struct MetricInfo {
  const char* key;
  const char* unit;         // "ns", "bytes", "count", "x"
  const char* label;        // what the console and Markdown tables print
  Direction direction;
  GateClass gate;
  // In eager mode back-to-back GPU time is bound by how fast the host launches, so it behaves
  // like a host-side figure there (see gate_class()).
  bool host_bound_in_eager;
  bool clock_sensitive;     // device time that scales with the SM clock
  const char* description;  // one line, also written into the report
};

// Every metric, in display order (per-iteration figures first, then one-off costs).
const std::vector<MetricInfo>& metric_catalog();
// The entry of `key`, or nullptr for keys the catalogue does not know (a newer report, a workload's own).
const MetricInfo* find_metric(std::string_view key);
// Display position of `key`; unknown keys sort after every known one.
int metric_order(std::string_view key);
// The label of `key`, or the key itself when unknown.
std::string metric_label(std::string_view key);
// The gating class of `key` measured in `mode`; unknown keys are informational.
GateClass gate_class(std::string_view key, Mode mode);
// Keys of the one-off costs that graph modes pay before their first replay (summed into
// derived.one_off_total_ns; first_launch_time is not part of it).
const std::vector<const char*>& one_off_setup_keys();

}  // namespace gp
