// The metric catalogue (see metric_catalog.hpp): the table below is the only place a metric's
// unit, label, gating class and description are written down.
#include "graphprof/core/metric_catalog.hpp"

#include "graphprof/core/error.hpp"

namespace gp {

const char* to_string(Direction d) {
  switch (d) {
    case Direction::kLowerIsBetter: return "lower_is_better";
    case Direction::kHigherIsBetter: return "higher_is_better";
    case Direction::kNone: return "none";
  }
  return "none";
}

Direction direction_from_string(const std::string& s) {
  if (s == "lower_is_better") return Direction::kLowerIsBetter;
  if (s == "higher_is_better") return Direction::kHigherIsBetter;
  if (s == "none") return Direction::kNone;
  throw input_error("unknown metric direction '" + s + "'");
}

const char* to_string(GateClass g) {
  switch (g) {
    case GateClass::kDeviceStable: return "device";
    case GateClass::kHostSide: return "host";
    case GateClass::kOneOff: return "one-off";
    case GateClass::kInformational: return "info";
  }
  return "info";
}

namespace {
constexpr Direction kLower = Direction::kLowerIsBetter;
constexpr const char* kOneOffText = "one-off cost (host clock, includes synchronisation where the step needs it)";
}  // namespace

const std::vector<MetricInfo>& metric_catalog() {
  using namespace metric_key;
  static const std::vector<MetricInfo> catalog = {
      {kGpuTimePerIter, "ns", "GPU time / iteration (events, back to back)", kLower, GateClass::kDeviceStable, true, true,
       "time of one iteration between CUDA events, iterations queued back to back"},
      {kGpuTimePerIterLatched, "ns", "GPU time / iteration (behind a latch)", kLower, GateClass::kDeviceStable, false, true,
       "device time of one iteration queued alone behind a latch, between two events, after an idle stream (host "
       "submission hidden; the repeat-launch method of NVIDIA's cudaGraphsPerfScaling)"},
      {kHostTimePerIterBatched, "ns", "host clock / iteration (cross-check)", kLower, GateClass::kInformational, false, false,
       "host clock over a whole GPU-pass batch (launches to event sync) divided by its iterations; "
       "cross-check of gpu_time_per_iter"},
      {kWallTimePerIter, "ns", "wall time / iteration (launch + sync)", kLower, GateClass::kHostSide, false, false,
       "host clock from the first launch call of one iteration to the end of cudaStreamSynchronize"},
      {kLaunchCpuPerCall, "ns", "launch call CPU time (back to back)", kLower, GateClass::kHostSide, false, false,
       "host time of one launch API call (cudaLaunchKernel etc. in eager, cudaGraphLaunch in graph modes), "
       "calls back to back"},
      {kLaunchCpuIsolated, "ns", "launch call CPU time (after sync)", kLower, GateClass::kHostSide, false, false,
       "host time of the first launch call of an iteration after a synchronize"},
      {kLaunchCpuPerIter, "ns", "CPU submit time / iteration", kLower, GateClass::kHostSide, false, false,
       "host time of all launch API calls of one iteration, back to back"},
      {kCaptureTime, "ns", "one-off: stream capture", kLower, GateClass::kOneOff, false, false, kOneOffText},
      {kBuildTime, "ns", "one-off: explicit build", kLower, GateClass::kOneOff, false, false, kOneOffText},
      {kInstantiateTime, "ns", "one-off: instantiate", kLower, GateClass::kOneOff, false, false, kOneOffText},
      {kUploadTime, "ns", "one-off: upload", kLower, GateClass::kOneOff, false, false, kOneOffText},
      {kUploadCallTime, "ns", "one-off: upload call (API only)", kLower, GateClass::kOneOff, false, false,
       "one-off cost: host time of the cudaGraphUpload call alone, without waiting for the upload to complete"},
      {kInstantiateTimeFirst, "ns", "one-off: first instantiate", kLower, GateClass::kOneOff, false, false,
       "one-off cost: the first instantiate of the repetition (instantiate_time: the later ones)"},
      {kUploadTimeFirst, "ns", "one-off: first upload", kLower, GateClass::kOneOff, false, false,
       "one-off cost: the first upload (+ sync) of the repetition (upload_time: the later ones)"},
      {kUploadCallTimeFirst, "ns", "one-off: first upload call", kLower, GateClass::kOneOff, false, false,
       "one-off cost: the first upload call of the repetition (upload_call_time: the later ones)"},
      {kFirstLaunchTime, "ns", "one-off: first launch (+sync)", kLower, GateClass::kOneOff, false, false, kOneOffText},
  };
  return catalog;
}

const MetricInfo* find_metric(std::string_view key) {
  for (const MetricInfo& m : metric_catalog())
    if (key == m.key) return &m;
  return nullptr;
}

int metric_order(std::string_view key) {
  const auto& c = metric_catalog();
  for (std::size_t i = 0; i < c.size(); ++i)
    if (key == c[i].key) return static_cast<int>(i);
  return 100;
}

std::string metric_label(std::string_view key) {
  const MetricInfo* m = find_metric(key);
  return m ? std::string(m->label) : std::string(key);
}

GateClass gate_class(std::string_view key, Mode mode) {
  const MetricInfo* m = find_metric(key);
  if (m == nullptr) return GateClass::kInformational;
  if (mode == Mode::kEager && m->host_bound_in_eager) return GateClass::kHostSide;
  return m->gate;
}

const std::vector<const char*>& one_off_setup_keys() {
  using namespace metric_key;
  static const std::vector<const char*> keys{kCaptureTime, kBuildTime, kInstantiateTime, kUploadTime};
  return keys;
}

}  // namespace gp
