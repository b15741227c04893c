// Chrome trace-event output of the trace passes (see chrome_trace.hpp and docs/tracing.md).
// Layout: one process for the host (its threads carry CUDA API calls and NVTX ranges) and one
// process per GPU (one thread per stream). Flow arrows connect a launch call to the first GPU
// work with its correlation id; a graph launch gets one arrow, to its first node.
#include "graphprof/core/json_text.hpp"
#include "graphprof/report/chrome_trace.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/graph/graph_model.hpp"

#ifdef GRAPHPROF_HAVE_ZLIB
#include <zlib.h>
#endif

namespace gp {

using nlohmann::json;

namespace {

// GPU "processes" get ids far above any real Linux pid (pid_max is at most 2^22).
constexpr std::int64_t kGpuPidBase = std::int64_t{1} << 30;

std::string dims(const std::array<int, 3>& d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

#ifdef GRAPHPROF_HAVE_ZLIB
// gzip format (RFC 1952) in memory, as `gzip -6` writes it.
std::string gzip(const std::string& data, const std::string& path) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw internal_error("zlib: deflateInit2 failed while writing " + path);
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const std::size_t written = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw internal_error("zlib: deflate failed while writing " + path);
  out.resize(written);
  return out;
}
#endif

}  // namespace

void ChromeTraceBuilder::name_process(std::int64_t pid, const std::string& name, int sort_index) {
  if (std::find(named_processes_.begin(), named_processes_.end(), pid) != named_processes_.end()) return;
  named_processes_.push_back(pid);
  add_event({"M", "process_name", "", 0, std::nullopt, pid, 0, std::nullopt, json{{"name", name}}});
  add_event({"M", "process_sort_index", "", 0, std::nullopt, pid, 0, std::nullopt, json{{"sort_index", sort_index}}});
}

void ChromeTraceBuilder::name_thread(std::int64_t pid, std::int64_t tid, const std::string& name) {
  const auto key = std::make_pair(pid, tid);
  if (std::find(named_threads_.begin(), named_threads_.end(), key) != named_threads_.end()) return;
  named_threads_.push_back(key);
  add_event({"M", "thread_name", "", 0, std::nullopt, pid, tid, std::nullopt, json{{"name", name}}});
}

void ChromeTraceBuilder::add(const std::string& label, const TraceData& data, const NodeJoin* join) {
  const std::size_t first_event = events_.size();
  // The host process and its busiest thread (where graphprof itself runs).
  std::int64_t host_pid = 0;
  std::map<std::uint32_t, std::size_t> per_thread;
  for (const auto& a : data.api) {
    if (host_pid == 0) host_pid = a.process_id;
    ++per_thread[a.thread_id];
  }
  for (const auto& m : data.markers)
    if (host_pid == 0) host_pid = m.process_id;
  if (host_pid == 0) host_pid = 1;
  std::int64_t main_tid = 0;
  std::size_t most = 0;
  for (const auto& [tid, n] : per_thread)
    if (n > most) main_tid = tid, most = n;
  name_process(host_pid, "graphprof (host)", 0);
  if (main_tid != 0) name_thread(host_pid, main_tid, "graphprof main thread");

  if (data.end_ns > data.begin_ns)
    add_event({"X", "trace pass: " + label, "graphprof", data.begin_ns, data.end_ns - data.begin_ns, host_pid, main_tid,
               std::nullopt, json{{"level", to_string(data.level)}, {"dropped_records", data.dropped_records}}});

  for (const auto& a : data.api) {
    json args{{"correlation", a.correlation_id}, {"cbid", a.cbid}};
    if (a.return_value != 0) args["return_value"] = a.return_value;
    add_event({"X", a.name, "cuda_api", a.start_ns, a.end_ns >= a.start_ns ? a.end_ns - a.start_ns : 0, a.process_id,
               a.thread_id, std::nullopt, std::move(args)});
  }

  // NVTX: a range is a start and an end record with the same id.
  std::unordered_map<std::uint32_t, const MarkerRecord*> open;
  for (const auto& m : data.markers)
    if (m.kind == MarkerRecord::Kind::kStart) open[m.id] = &m;
  for (const auto& m : data.markers) {
    if (m.kind == MarkerRecord::Kind::kInstant) {
      add_event({"i", m.name.empty() ? "(marker)" : m.name, "nvtx", m.timestamp_ns, std::nullopt, m.process_id,
                 m.thread_id, std::nullopt, json{{"domain", m.domain}, {"s", "t"}}});
    } else if (m.kind == MarkerRecord::Kind::kEnd) {
      auto it = open.find(m.id);
      if (it == open.end() || it->second->timestamp_ns > m.timestamp_ns) continue;
      const MarkerRecord& s = *it->second;
      add_event({"X", s.name.empty() ? "(range)" : s.name, "nvtx", s.timestamp_ns, m.timestamp_ns - s.timestamp_ns,
                 s.process_id, s.thread_id, std::nullopt, json{{"domain", s.domain}}});
      open.erase(it);
    }
  }

  // GPU work, and the first GPU record of each correlation id for the flow arrows.
  std::unordered_map<std::uint32_t, std::pair<std::uint64_t, std::pair<std::int64_t, std::int64_t>>> first_gpu;
  auto note_first = [&](std::uint32_t corr, std::uint64_t ts, std::int64_t pid, std::int64_t tid) {
    if (corr == 0) return;
    auto it = first_gpu.find(corr);
    if (it == first_gpu.end() || ts < it->second.first) first_gpu[corr] = {ts, {pid, tid}};
  };
  std::unordered_map<std::string, std::string> short_names;
  for (const GpuOp& op : gpu_ops(data)) {
    const std::int64_t pid = kGpuPidBase + op.device_id;
    name_process(pid, "GPU " + std::to_string(op.device_id), 1 + static_cast<int>(op.device_id));
    name_thread(pid, op.stream_id, "stream " + std::to_string(op.stream_id));
    json args{{"correlation", op.correlation_id}};
    std::string name = op.name;
    if (op.kernel) {
      auto it = short_names.find(op.name);
      if (it == short_names.end()) it = short_names.emplace(op.name, short_kernel_name(op.name)).first;
      name = it->second;
      args["kernel"] = demangle_kernel_name(op.name);
      args["grid"] = dims(op.kernel->grid);
      args["block"] = dims(op.kernel->block);
    }
    if (op.graph_id != 0) {
      args["graph_exec_id"] = op.graph_id;
      args["graph_node_id"] = op.graph_node_id;
      if (join != nullptr)
        if (auto ref = join->find(op.graph_node_id)) {
          args["dot_node"] = ref->dot_name();
          args["graph_id"] = ref->graph_id;
          args["node_index"] = ref->index;
        }
    }
    add_event({"X", name, op.kind, op.start_ns, op.end_ns >= op.start_ns ? op.end_ns - op.start_ns : 0, pid,
               op.stream_id, std::nullopt, std::move(args)});
    note_first(op.correlation_id, op.start_ns, pid, op.stream_id);
  }
  for (const auto& g : data.graph_traces) {
    const std::int64_t pid = kGpuPidBase + g.device_id;
    name_process(pid, "GPU " + std::to_string(g.device_id), 1 + static_cast<int>(g.device_id));
    name_thread(pid, g.stream_id, "stream " + std::to_string(g.stream_id));
    add_event({"X", "graph exec " + std::to_string(g.graph_id), "graph", g.start_ns,
               g.end_ns >= g.start_ns ? g.end_ns - g.start_ns : 0, pid, g.stream_id, std::nullopt,
               json{{"correlation", g.correlation_id}, {"graph_exec_id", g.graph_id}}});
    note_first(g.correlation_id, g.start_ns, pid, g.stream_id);
  }

  for (const auto& a : data.api) {
    auto it = first_gpu.find(a.correlation_id);
    if (a.correlation_id == 0 || it == first_gpu.end()) continue;
    const std::uint64_t id = next_flow_id_++;
    add_event({"s", "launch", "launch", a.start_ns, std::nullopt, a.process_id, a.thread_id, id, nullptr});
    add_event({"f", "launch", "launch", std::max(it->second.first, a.start_ns), std::nullopt, it->second.second.first,
               it->second.second.second, id, nullptr});
    first_gpu.erase(it);  // one arrow per correlation id
  }
  cap_session(first_event, label, host_pid, main_tid);
}

// Keeps the session's earliest max_events_per_session_ events (metadata always), drops both
// ends of a flow when either end is cut, and marks the cut on the timeline.
void ChromeTraceBuilder::cap_session(std::size_t first, const std::string& label, std::int64_t pid, std::int64_t tid) {
  std::vector<std::uint64_t> starts;
  for (std::size_t i = first; i < events_.size(); ++i)
    if (events_[i].ph != "M") starts.push_back(events_[i].ts_ns);
  if (max_events_per_session_ == 0 || starts.size() <= max_events_per_session_) return;
  std::nth_element(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(max_events_per_session_), starts.end());
  const std::uint64_t cutoff = starts[max_events_per_session_];
  std::set<std::uint64_t> cut_flows;
  for (std::size_t i = first; i < events_.size(); ++i)
    if (events_[i].id && events_[i].ts_ns >= cutoff) cut_flows.insert(*events_[i].id);
  const std::size_t total = starts.size();
  auto keep_end = std::remove_if(events_.begin() + static_cast<std::ptrdiff_t>(first), events_.end(), [&](const Event& e) {
    if (e.ph == "M") return false;
    return e.ts_ns >= cutoff || (e.id && cut_flows.count(*e.id) > 0);
  });
  events_.erase(keep_end, events_.end());
  std::size_t kept = 0;
  for (std::size_t i = first; i < events_.size(); ++i) kept += events_[i].ph != "M";
  const std::string note = "trace cut here: " + std::to_string(kept) + " of " + std::to_string(total) +
                           " events of " + label + " kept (--trace-events all keeps every event)";
  add_event({"i", note, "graphprof", cutoff, std::nullopt, pid, tid, std::nullopt, json{{"kept_events", kept}, {"events", total}}});
  truncations_.push_back({label, kept, total});
}

json ChromeTraceBuilder::to_json() const {
  std::uint64_t base = std::numeric_limits<std::uint64_t>::max();
  for (const auto& e : events_)
    if (e.ph != "M") base = std::min(base, e.ts_ns);
  if (base == std::numeric_limits<std::uint64_t>::max()) base = 0;
  json events = json::array();
  for (const auto& e : events_) {
    json j{{"ph", e.ph}, {"pid", e.pid}, {"tid", e.tid}};
    j["name"] = e.name;
    if (!e.cat.empty()) j["cat"] = e.cat;
    j["ts"] = e.ph == "M" ? 0.0 : static_cast<double>(e.ts_ns - base) / 1000.0;
    if (e.dur_ns) j["dur"] = static_cast<double>(*e.dur_ns) / 1000.0;
    if (e.id) j["id"] = *e.id;
    if (e.ph == "f") j["bp"] = "e";  // bind to the slice that encloses the arrow's end
    if (e.ph == "i") j["s"] = "t";
    if (!e.args.is_null()) j["args"] = e.args;
    events.push_back(std::move(j));
  }
  json other{{"tool", "graphprof"},
             {"clock", "CUPTI timestamps (ns); ts = microseconds since the earliest event"},
             {"base_ns", base}};
  if (!truncations_.empty()) {
    json cut = json::array();
    for (const auto& t : truncations_) cut.push_back(json{{"session", t.label}, {"kept_events", t.kept}, {"events", t.total}});
    other["truncated_sessions"] = std::move(cut);
    other["note"] = "each trace pass keeps its earliest " + std::to_string(max_events_per_session_) +
                    " events; graphprof run --trace-events all keeps every event";
  }
  return json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(other)}};
}

bool ChromeTraceBuilder::can_compress() {
#ifdef GRAPHPROF_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

void ChromeTraceBuilder::write(const std::string& path) const {
  if (!ends_with(path, ".gz")) {
    write_file_atomic(path, json_text(to_json()));
    return;
  }
#ifdef GRAPHPROF_HAVE_ZLIB
  write_file_atomic(path, gzip(json_text(to_json()), path));
#else
  throw environment_error("--trace-out " + path + ": this graphprof was built without zlib; write .json instead");
#endif
}

std::vector<std::string> validate_chrome_trace(const json& doc) {
  std::vector<std::string> problems;
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    problems.push_back("the document has no \"traceEvents\" array");
    return problems;
  }
  struct Flow {
    int starts = 0, finishes = 0;
    double start_ts = 0, finish_ts = 0;
  };
  std::map<std::pair<std::string, std::string>, Flow> flows;
  std::map<std::pair<std::int64_t, std::int64_t>, int> open_b;
  const json& events = doc["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    const std::string at = "event " + std::to_string(i);
    if (!e.is_object()) {
      problems.push_back(at + ": not an object");
      continue;
    }
    const bool ph_ok = e.contains("ph") && e["ph"].is_string();
    if (!ph_ok) problems.push_back(at + ": no string \"ph\"");
    if (!e.contains("ts") || !e["ts"].is_number()) problems.push_back(at + ": no numeric \"ts\"");
    else if (e["ts"].get<double>() < 0) problems.push_back(at + ": negative \"ts\"");
    if (!e.contains("pid") || !e["pid"].is_number_integer()) problems.push_back(at + ": no integer \"pid\"");
    if (!e.contains("tid") || !e["tid"].is_number_integer()) problems.push_back(at + ": no integer \"tid\"");
    if (!ph_ok) continue;
    const std::string ph = e["ph"];
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number()) problems.push_back(at + ": complete event without numeric \"dur\"");
      else if (e["dur"].get<double>() < 0) problems.push_back(at + ": negative \"dur\"");
    } else if (ph == "s" || ph == "f") {
      if (!e.contains("id")) {
        problems.push_back(at + ": flow event without \"id\"");
        continue;
      }
      const std::string cat = e.value("cat", "");
      Flow& f = flows[{cat, e["id"].dump()}];
      const double ts = e.contains("ts") && e["ts"].is_number() ? e["ts"].get<double>() : 0.0;
      if (ph == "s") ++f.starts, f.start_ts = ts;
      else ++f.finishes, f.finish_ts = ts;
    } else if (ph == "B" || ph == "E") {
      if (e.contains("pid") && e.contains("tid") && e["pid"].is_number_integer() && e["tid"].is_number_integer()) {
        int& depth = open_b[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}];
        depth += ph == "B" ? 1 : -1;
        if (depth < 0) {
          problems.push_back(at + ": \"E\" without a matching \"B\"");
          depth = 0;
        }
      }
    }
  }
  for (const auto& [key, f] : flows) {
    const std::string what = "flow cat=" + key.first + " id=" + key.second;
    if (f.starts != 1 || f.finishes != 1)
      problems.push_back(what + ": " + std::to_string(f.starts) + " start(s) and " + std::to_string(f.finishes) +
                         " finish(es), expected one of each");
    else if (f.finish_ts < f.start_ts)
      problems.push_back(what + ": finishes before it starts");
  }
  for (const auto& [key, depth] : open_b)
    if (depth != 0)
      problems.push_back("pid " + std::to_string(key.first) + " tid " + std::to_string(key.second) + ": " +
                         std::to_string(depth) + " \"B\" event(s) never ended");
  return problems;
}

}  // namespace gp
