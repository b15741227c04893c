// The versioned report: the contract between `run` (writes it), and `compare`, `analyze --report`,
// `render --report` and the reporters (read it). Plain data only; no CUDA types.
// docs/report-schema.md documents every field; bump kReportSchemaVersion when the JSON changes.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/mode.hpp"
#include "graphprof/core/report_sections.hpp"
#include "graphprof/core/run_settings.hpp"
#include "graphprof/core/stats.hpp"

namespace gp {

// Semantic version of the JSON layout: major changes break readers, minor ones add fields.
inline constexpr const char* kReportSchemaVersion = "1.13.0";
inline constexpr int kReportSchemaMajor = 1;

// One measured quantity of one (workload, mode), with every raw sample kept per repetition so
// that `compare` can do statistics across independent repetitions later.
struct Metric {
  std::string unit;  // "ns", "bytes", "count", "x"
  Direction direction = Direction::kLowerIsBetter;
  std::string description;
  std::vector<std::vector<double>> repetitions;  // raw samples; one inner vector per repetition
  Summary summary;          // over all repetitions pooled
  bool converged = true;    // the stopping rule met its CI target in every repetition
  std::vector<double> all_samples() const;
  void resummarize();       // recompute `summary` from `repetitions`
};

// Why a mode did not produce results, in terms a user can act on.
struct Failure {
  std::string api;      // the call that failed, e.g. "cudaStreamEndCapture"
  std::string error;    // the CUDA error name, e.g. "cudaErrorStreamCaptureInvalidated"
  std::string message;  // one line
  std::string hint;     // the usual fix, when known
};

enum class Status { kOk, kFailed, kUnsupported };
const char* to_string(Status s);
Status status_from_string(const std::string& s);

struct ModeResult {
  std::string workload;
  Mode mode = Mode::kEager;  // "eager" | "capture" | "graph" in JSON
  std::map<std::string, std::string> params;
  Status status = Status::kOk;
  std::string reason;  // for failed/unsupported: one line
  std::optional<Failure> failure;
  std::map<std::string, Metric> metrics;   // stable keys, see docs/report-schema.md
  std::map<std::string, double> derived;   // speedup_vs_eager, break_even_replays, ...
  std::string checksum;                    // hex digest of the output after the verify pass
  std::optional<bool> checksum_matches_eager;
  // What the runner and the trace pass write next to the metrics (graph dumps, trace summary);
  // see report_sections.hpp.
  Sections sections;
};

// The median of metric `key` of `r` / its derived figure `key`; NaN when the result has none.
double median_or_nan(const ModeResult& r, const std::string& key);
double derived_or_nan(const ModeResult& r, const std::string& key);

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long global_memory_bytes = 0;
  int clock_khz = 0;         // max SM clock (cudaDevAttrClockRate)
  int memory_clock_khz = 0;  // max memory clock
  int driver_version = 0;    // e.g. 13000
  int runtime_version = 0;
  int cupti_version = 0;     // 0 when CUPTI could not be queried
};

struct HostInfo {
  std::string hostname, os, kernel, cpu_model, compiler;
  int cpu_count = 0;
};

struct Environment {
  HostInfo host;
  std::optional<GpuInfo> gpu;
  // Host-speed probes taken at the start and end of a run (median ns): "cpu_loop_ns" (a fixed
  // CPU-only loop) and "cuda_api_ns" (cudaStreamQuery on an idle stream, the driver's host path).
  // Host-clock figures move with these between runs; compare uses them to tell a slower host
  // from a slower workload.
  std::map<std::string, double> probes;
};

struct Report {
  std::string schema_version = kReportSchemaVersion;
  std::string tool_version;
  std::string git_revision;
  std::string created_utc;
  std::vector<std::string> command_line;
  Environment environment;
  RunSettings settings;  // how it was measured (run_settings.hpp)
  std::vector<ModeResult> results;

  const ModeResult* find(const std::string& workload, Mode mode,
                         const std::map<std::string, std::string>& params) const;
};

nlohmann::json to_json(const Summary& s);
nlohmann::json to_json(const Metric& m);
nlohmann::json to_json(const ModeResult& r);
nlohmann::json to_json(const Report& r);

// Parse a report. `source` names the input in error messages. Throws gp::Error(kBadInput)
// with the source and the offending field when the document is malformed or of another major version.
Report report_from_json(const nlohmann::json& j, const std::string& source);
// Parse a JSON file; syntax errors come out as "FILE:LINE:COL: invalid JSON: ..." (kBadInput),
// so do numbers beyond double's range (1e400) and nesting deeper than kMaxJsonDepth.
nlohmann::json read_json_file(const std::string& path);
// The same for text already in memory; `path` names it in messages.
nlohmann::json parse_json_text(const std::string& text, const std::string& path);
inline constexpr int kMaxJsonDepth = 256;
// Read a report file; JSON syntax errors come out as "FILE:LINE:COL: message" (kBadInput).
Report read_report(const std::string& path);
// The report file's text: to_json(r), one-space indent, newline-terminated.
std::string report_json_text(const Report& r);
// Write report_json_text atomically (temporary file in the same folder, then rename).
void write_report(const Report& r, const std::string& path);

// Host facts (hostname, OS, CPU) gathered without any GPU call.
HostInfo collect_host_info();
// "2026-11-29T07:48:10Z"
std::string utc_timestamp_now();

}  // namespace gp
