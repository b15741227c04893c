// TraceData <-> JSON. The form is lossless so that records captured on a GPU host can be
// committed as fixtures and replayed through the join and the statistics on any CPU.
#include "graphprof/trace_records.hpp"

#include "graphprof/error.hpp"

namespace gp {

using nlohmann::json;

const char* to_string(TraceLevel l) {
  switch (l) {
    case TraceLevel::kNone: return "none";
    case TraceLevel::kGraph: return "graph";
    case TraceLevel::kNode: return "node";
  }
  return "none";
}

bool trace_level_from_string(const std::string& s, TraceLevel& out) {
  if (s == "none") out = TraceLevel::kNone;
  else if (s == "graph") out = TraceLevel::kGraph;
  else if (s == "node") out = TraceLevel::kNode;
  else return false;
  return true;
}

namespace {

const char* marker_kind_name(MarkerRecord::Kind k) {
  switch (k) {
    case MarkerRecord::Kind::kInstant: return "instant";
    case MarkerRecord::Kind::kStart: return "start";
    case MarkerRecord::Kind::kEnd: return "end";
  }
  return "instant";
}

// Reads fields of one JSON object and names the offending field when one is missing or of the
// wrong type, so a broken fixture points at itself.
class Reader {
 public:
  Reader(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {
    if (!obj_.is_object()) throw input_error(where_ + ": expected a JSON object");
  }
  template <typename T>
  T get(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end()) throw input_error(where_ + ": missing field '" + key + "'");
    try {
      return it->template get<T>();
    } catch (const json::exception&) {
      throw input_error(where_ + ": field '" + key + "' has the wrong type");
    }
  }
  template <typename T>
  T get_or(const char* key, T fallback) const {
    return obj_.contains(key) ? get<T>(key) : fallback;
  }

 private:
  const json& obj_;
  std::string where_;
};

const json& array_field(const json& j, const char* key, const std::string& source) {
  static const json empty = json::array();
  auto it = j.find(key);
  if (it == j.end()) return empty;
  if (!it->is_array()) throw input_error(source + ": field '" + key + "' must be an array");
  return *it;
}

template <typename T, typename F>
std::vector<T> read_array(const json& j, const char* key, const std::string& source, F&& one) {
  std::vector<T> out;
  const json& arr = array_field(j, key, source);
  out.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i)
    out.push_back(one(Reader(arr[i], source + ": " + key + "[" + std::to_string(i) + "]")));
  return out;
}

// The fields of GpuSpan and GpuActivity, written and read in one place.
json span_json(const GpuSpan& r) {
  return {{"start", r.start_ns},   {"end", r.end_ns},
          {"device", r.device_id},  {"context", r.context_id},
          {"stream", r.stream_id},  {"correlation", r.correlation_id},
          {"graph_id", r.graph_id}};
}

json activity_json(const GpuActivity& r) {
  json j = span_json(r);
  j["graph_node_id"] = r.graph_node_id;
  return j;
}

void read_span(const Reader& r, GpuSpan& x) {
  x.start_ns = r.get<std::uint64_t>("start");
  x.end_ns = r.get<std::uint64_t>("end");
  x.device_id = r.get<std::uint32_t>("device");
  x.context_id = r.get<std::uint32_t>("context");
  x.stream_id = r.get<std::uint32_t>("stream");
  x.correlation_id = r.get<std::uint32_t>("correlation");
  x.graph_id = r.get<std::uint32_t>("graph_id");
}

void read_activity(const Reader& r, GpuActivity& x) {
  read_span(r, x);
  x.graph_node_id = r.get<std::uint64_t>("graph_node_id");
}

}  // namespace

json to_json(const TraceData& d) {
  json j;
  j["format"] = "graphprof-trace-records";
  j["version"] = 1;
  j["level"] = to_string(d.level);
  j["begin_ns"] = d.begin_ns;
  j["end_ns"] = d.end_ns;
  j["dropped_records"] = d.dropped_records;
  j["other_records"] = d.other_records;
  j["buffers"] = d.buffers;
  j["largest_buffer_bytes"] = d.largest_buffer_bytes;
  json& k = j["kernels"] = json::array();
  for (const auto& r : d.kernels) {
    json x = activity_json(r);
    x.update({{"name", r.name}, {"grid", r.grid}, {"block", r.block}, {"shared_bytes", r.shared_bytes},
              {"registers", r.registers_per_thread}});
    k.push_back(std::move(x));
  }
  json& mc = j["memcpys"] = json::array();
  for (const auto& r : d.memcpys) {
    json x = activity_json(r);
    x.update({{"copy_kind", r.copy_kind}, {"bytes", r.bytes}});
    mc.push_back(std::move(x));
  }
  json& ms = j["memsets"] = json::array();
  for (const auto& r : d.memsets) {
    json x = activity_json(r);
    x.update({{"value", r.value}, {"bytes", r.bytes}});
    ms.push_back(std::move(x));
  }
  json& a = j["api"] = json::array();
  for (const auto& r : d.api)
    a.push_back({{"name", r.name}, {"cbid", r.cbid}, {"start", r.start_ns}, {"end", r.end_ns},
                 {"pid", r.process_id}, {"tid", r.thread_id}, {"correlation", r.correlation_id},
                 {"return_value", r.return_value}});
  json& m = j["markers"] = json::array();
  for (const auto& r : d.markers)
    m.push_back({{"kind", marker_kind_name(r.kind)}, {"timestamp", r.timestamp_ns}, {"id", r.id}, {"name", r.name},
                 {"domain", r.domain}, {"pid", r.process_id}, {"tid", r.thread_id}});
  json& g = j["graph_traces"] = json::array();
  for (const auto& r : d.graph_traces) g.push_back(span_json(r));
  json& nm = j["node_mappings"] = json::array();
  for (const auto& r : d.node_mappings) nm.push_back({{"exec_node_id", r.exec_node_id}, {"original_node_id", r.original_node_id}});
  json& nc = j["nodes_created"] = json::array();
  for (const auto& r : d.nodes_created) nc.push_back({{"node_id", r.node_id}});
  json& em = j["exec_mappings"] = json::array();
  for (const auto& r : d.exec_mappings) em.push_back({{"exec_id", r.exec_id}, {"original_graph_id", r.original_graph_id}});
  json& w = j["windows"] = json::array();
  for (const auto& r : d.windows) w.push_back({{"begin", r.begin_ns}, {"end", r.end_ns}});
  return j;
}

TraceData trace_data_from_json(const json& j, const std::string& source) {
  Reader top(j, source);
  if (top.get_or<std::string>("format", "") != "graphprof-trace-records")
    throw input_error(source + ": not a graphprof trace-records document (field 'format')");
  if (top.get<int>("version") != 1)
    throw input_error(source + ": trace-records version " + std::to_string(top.get<int>("version")) +
                      " is not supported (expected 1)");
  TraceData d;
  if (!trace_level_from_string(top.get<std::string>("level"), d.level))
    throw input_error(source + ": field 'level' must be none, graph or node");
  d.begin_ns = top.get<std::uint64_t>("begin_ns");
  d.end_ns = top.get<std::uint64_t>("end_ns");
  d.dropped_records = top.get_or<std::size_t>("dropped_records", 0);
  d.other_records = top.get_or<std::size_t>("other_records", 0);
  d.buffers = top.get_or<std::size_t>("buffers", 0);
  d.largest_buffer_bytes = top.get_or<std::size_t>("largest_buffer_bytes", 0);
  d.kernels = read_array<KernelRecord>(j, "kernels", source, [](const Reader& r) {
    KernelRecord k;
    k.name = r.get<std::string>("name");
    read_activity(r, k);
    k.grid = r.get<std::array<int, 3>>("grid");
    k.block = r.get<std::array<int, 3>>("block");
    k.shared_bytes = r.get<int>("shared_bytes");
    k.registers_per_thread = r.get<int>("registers");
    return k;
  });
  d.memcpys = read_array<MemcpyRecord>(j, "memcpys", source, [](const Reader& r) {
    MemcpyRecord m;
    m.copy_kind = r.get<std::string>("copy_kind");
    m.bytes = r.get<std::uint64_t>("bytes");
    read_activity(r, m);
    return m;
  });
  d.memsets = read_array<MemsetRecord>(j, "memsets", source, [](const Reader& r) {
    MemsetRecord m;
    m.value = r.get<std::uint32_t>("value");
    m.bytes = r.get<std::uint64_t>("bytes");
    read_activity(r, m);
    return m;
  });
  d.api = read_array<ApiRecord>(j, "api", source, [](const Reader& r) {
    ApiRecord a;
    a.name = r.get<std::string>("name");
    a.cbid = r.get<std::uint32_t>("cbid");
    a.start_ns = r.get<std::uint64_t>("start");
    a.end_ns = r.get<std::uint64_t>("end");
    a.process_id = r.get<std::uint32_t>("pid");
    a.thread_id = r.get<std::uint32_t>("tid");
    a.correlation_id = r.get<std::uint32_t>("correlation");
    a.return_value = r.get_or<std::uint32_t>("return_value", 0);
    return a;
  });
  d.markers = read_array<MarkerRecord>(j, "markers", source, [&source](const Reader& r) {
    MarkerRecord m;
    const std::string kind = r.get<std::string>("kind");
    if (kind == "instant") m.kind = MarkerRecord::Kind::kInstant;
    else if (kind == "start") m.kind = MarkerRecord::Kind::kStart;
    else if (kind == "end") m.kind = MarkerRecord::Kind::kEnd;
    else throw input_error(source + ": marker kind '" + kind + "' is not instant, start or end");
    m.timestamp_ns = r.get<std::uint64_t>("timestamp");
    m.id = r.get<std::uint32_t>("id");
    m.name = r.get_or<std::string>("name", "");
    m.domain = r.get_or<std::string>("domain", "");
    m.process_id = r.get<std::uint32_t>("pid");
    m.thread_id = r.get<std::uint32_t>("tid");
    return m;
  });
  d.graph_traces = read_array<GraphTraceRecord>(j, "graph_traces", source, [](const Reader& r) {
    GraphTraceRecord g;
    read_span(r, g);
    return g;
  });
  d.node_mappings = read_array<NodeMapping>(j, "node_mappings", source, [](const Reader& r) {
    return NodeMapping{r.get<std::uint64_t>("exec_node_id"), r.get<std::uint64_t>("original_node_id")};
  });
  d.nodes_created = read_array<NodeCreated>(j, "nodes_created", source,
                                            [](const Reader& r) { return NodeCreated{r.get<std::uint64_t>("node_id")}; });
  d.exec_mappings = read_array<ExecMapping>(j, "exec_mappings", source, [](const Reader& r) {
    return ExecMapping{r.get<std::uint32_t>("exec_id"), r.get<std::uint32_t>("original_graph_id")};
  });
  d.windows = read_array<IterationWindow>(j, "windows", source, [](const Reader& r) {
    return IterationWindow{r.get<std::uint64_t>("begin"), r.get<std::uint64_t>("end")};
  });
  return d;
}

}  // namespace gp
