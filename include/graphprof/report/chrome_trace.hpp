// The Chrome trace-event file of `graphprof run --trace-out FILE.json`, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: host threads with their CUDA API calls and NVTX
// ranges, one track per GPU stream with kernels named by their short names, graph/node ids in
// the args, and flow arrows from each launch call to the first GPU work it caused.
// Host-only; built from plain TraceData.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graphprof/trace/trace_analysis.hpp"
#include "graphprof/trace/trace_records.hpp"

namespace gp {

// Events kept per trace session (one workload and mode) unless asked for all: a default-suite
// trace then stays small enough for a browser (about 5 MB gzip-compressed instead of 191 MB of
// JSON with 910k events). The earliest events are kept, so each pass shows its first iterations.
inline constexpr std::size_t kDefaultTraceEventsPerSession = 10000;

class ChromeTraceBuilder {
 public:
  // max_events_per_session: 0 keeps every event.
  explicit ChromeTraceBuilder(std::size_t max_events_per_session = kDefaultTraceEventsPerSession)
      : max_events_per_session_(max_events_per_session) {}

  // Adds one trace session. `label` names it on the timeline ("chain capture"); `join` names the
  // DOT node of each graph record (may be nullptr).
  void add(const std::string& label, const TraceData& data, const NodeJoin* join);

  bool empty() const { return events_.empty(); }
  // The whole document: {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}.
  // Timestamps are microseconds since the earliest event.
  nlohmann::json to_json() const;
  // Writes to_json() atomically, gzip-compressed when the path ends in ".gz" (Perfetto opens
  // .json.gz); throws gp::Error(kBadInput) naming the path when it cannot, kEnvironment when a
  // .gz is asked for and this build has no zlib.
  void write(const std::string& path) const;
  // Whether this build can write .gz (it was built with zlib).
  static bool can_compress();
  // Sessions whose events were cut at the cap, for the run's console note.
  std::size_t truncated_sessions() const { return truncations_.size(); }

 private:
  struct Event {
    std::string ph, name, cat;
    std::uint64_t ts_ns = 0;
    std::optional<std::uint64_t> dur_ns;
    std::int64_t pid = 0, tid = 0;
    std::optional<std::uint64_t> id;  // flows
    nlohmann::json args;              // null when none
  };
  void add_event(Event e) { events_.push_back(std::move(e)); }
  void name_process(std::int64_t pid, const std::string& name, int sort_index);
  void name_thread(std::int64_t pid, std::int64_t tid, const std::string& name);

  struct Truncation {
    std::string label;
    std::size_t kept = 0, total = 0;
  };
  void cap_session(std::size_t first, const std::string& label, std::int64_t pid, std::int64_t tid);

  std::size_t max_events_per_session_;
  std::vector<Truncation> truncations_;
  std::vector<Event> events_;
  std::vector<std::pair<std::int64_t, std::int64_t>> named_threads_;
  std::vector<std::int64_t> named_processes_;
  std::uint64_t next_flow_id_ = 1;
};

// Problems with a trace-event document, one line each; empty when it is well formed:
// a "traceEvents" array; every event an object with a string "ph", a numeric "ts" >= 0 and integer
// "pid" and "tid"; "X" events with a numeric "dur" >= 0; every flow start ("s") paired with exactly
// one finish ("f") of the same cat and id, not earlier than the start; B/E balanced per thread.
std::vector<std::string> validate_chrome_trace(const nlohmann::json& doc);

}  // namespace gp
