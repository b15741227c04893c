// TraceData <-> JSON. The form is lossless so that records captured on a GPU host can be
// committed as fixtures and replayed through the join and the statistics on any CPU.
#include "graphprof/trace/trace_records.hpp"

#include <tuple>

#include "graphprof/core/error.hpp"

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

std::optional<TraceLevel> parse_trace_level(const std::string& s) {
  TraceLevel l;
  if (!trace_level_from_string(s, l)) return std::nullopt;
  return l;
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

// One field of a record's JSON form: its key and its member. A field read with a default may be
// missing (the member keeps its default). A member of GpuSpan serves every record built on it.
template <typename R, typename T>
struct Field {
  const char* key;
  T R::*member;
  bool has_default;
};

template <typename R, typename T>
constexpr Field<R, T> field(const char* key, T R::*member) {
  return {key, member, false};
}

template <typename R, typename T>
constexpr Field<R, T> field_with_default(const char* key, T R::*member) {
  return {key, member, true};
}

// Each record's fields, written and read from these lists only.
constexpr auto kSpanFields =
    std::make_tuple(field("start", &GpuSpan::start_ns), field("end", &GpuSpan::end_ns), field("device", &GpuSpan::device_id),
                    field("context", &GpuSpan::context_id), field("stream", &GpuSpan::stream_id),
                    field("correlation", &GpuSpan::correlation_id), field("graph_id", &GpuSpan::graph_id));
constexpr auto kActivityFields =
    std::tuple_cat(kSpanFields, std::make_tuple(field("graph_node_id", &GpuActivity::graph_node_id)));
constexpr auto kKernelFields = std::tuple_cat(
    std::make_tuple(field("name", &KernelRecord::name)), kActivityFields,
    std::make_tuple(field("grid", &KernelRecord::grid), field("block", &KernelRecord::block),
                    field("shared_bytes", &KernelRecord::shared_bytes), field("registers", &KernelRecord::registers_per_thread)));
constexpr auto kMemcpyFields = std::tuple_cat(
    std::make_tuple(field("copy_kind", &MemcpyRecord::copy_kind), field("bytes", &MemcpyRecord::bytes)), kActivityFields);
constexpr auto kMemsetFields = std::tuple_cat(
    std::make_tuple(field("value", &MemsetRecord::value), field("bytes", &MemsetRecord::bytes)), kActivityFields);
constexpr auto kApiFields = std::make_tuple(
    field("name", &ApiRecord::name), field("cbid", &ApiRecord::cbid), field("start", &ApiRecord::start_ns),
    field("end", &ApiRecord::end_ns), field("pid", &ApiRecord::process_id), field("tid", &ApiRecord::thread_id),
    field("correlation", &ApiRecord::correlation_id), field_with_default("return_value", &ApiRecord::return_value));
// The marker's kind is an enum, written and read by name beside these.
constexpr auto kMarkerFields = std::make_tuple(
    field("timestamp", &MarkerRecord::timestamp_ns), field("id", &MarkerRecord::id),
    field_with_default("name", &MarkerRecord::name), field_with_default("domain", &MarkerRecord::domain),
    field("pid", &MarkerRecord::process_id), field("tid", &MarkerRecord::thread_id));
constexpr auto kNodeMappingFields = std::make_tuple(field("exec_node_id", &NodeMapping::exec_node_id),
                                                    field("original_node_id", &NodeMapping::original_node_id));
constexpr auto kNodeCreatedFields = std::make_tuple(field("node_id", &NodeCreated::node_id));
constexpr auto kExecMappingFields = std::make_tuple(field("exec_id", &ExecMapping::exec_id),
                                                    field("original_graph_id", &ExecMapping::original_graph_id));
constexpr auto kWindowFields =
    std::make_tuple(field("begin", &IterationWindow::begin_ns), field("end", &IterationWindow::end_ns));

template <typename R, typename Fields>
json write_record(const R& r, const Fields& fields) {
  json j = json::object();
  std::apply([&](const auto&... f) { ((j[f.key] = r.*(f.member)), ...); }, fields);
  return j;
}

template <typename R, typename Fields>
void write_records(json& j, const char* key, const std::vector<R>& records, const Fields& fields) {
  json& out = j[key] = json::array();
  for (const auto& r : records) out.push_back(write_record(r, fields));
}

template <typename R, typename Base, typename T>
void read_field(const Reader& in, R& r, const Field<Base, T>& f) {
  T& member = r.*(f.member);
  member = f.has_default ? in.get_or<T>(f.key, member) : in.get<T>(f.key);
}

template <typename R, typename Fields>
R read_record(const Reader& in, const Fields& fields) {
  R r;
  std::apply([&](const auto&... f) { (read_field(in, r, f), ...); }, fields);
  return r;
}

// The records of array `key` (missing: none); `finish` completes each one (default: nothing).
template <typename R, typename Fields, typename Finish>
std::vector<R> read_records(const json& j, const char* key, const std::string& source, const Fields& fields,
                            Finish&& finish) {
  std::vector<R> out;
  const json& arr = array_field(j, key, source);
  out.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const Reader in(arr[i], source + ": " + key + "[" + std::to_string(i) + "]");
    out.push_back(read_record<R>(in, fields));
    finish(in, out.back());
  }
  return out;
}

template <typename R, typename Fields>
std::vector<R> read_records(const json& j, const char* key, const std::string& source, const Fields& fields) {
  return read_records<R>(j, key, source, fields, [](const Reader&, R&) {});
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
  write_records(j, "kernels", d.kernels, kKernelFields);
  write_records(j, "memcpys", d.memcpys, kMemcpyFields);
  write_records(j, "memsets", d.memsets, kMemsetFields);
  write_records(j, "api", d.api, kApiFields);
  write_records(j, "markers", d.markers, kMarkerFields);
  for (std::size_t i = 0; i < d.markers.size(); ++i) j["markers"][i]["kind"] = marker_kind_name(d.markers[i].kind);
  write_records(j, "graph_traces", d.graph_traces, kSpanFields);
  write_records(j, "node_mappings", d.node_mappings, kNodeMappingFields);
  write_records(j, "nodes_created", d.nodes_created, kNodeCreatedFields);
  write_records(j, "exec_mappings", d.exec_mappings, kExecMappingFields);
  write_records(j, "windows", d.windows, kWindowFields);
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
  d.kernels = read_records<KernelRecord>(j, "kernels", source, kKernelFields);
  d.memcpys = read_records<MemcpyRecord>(j, "memcpys", source, kMemcpyFields);
  d.memsets = read_records<MemsetRecord>(j, "memsets", source, kMemsetFields);
  d.api = read_records<ApiRecord>(j, "api", source, kApiFields);
  d.markers = read_records<MarkerRecord>(j, "markers", source, kMarkerFields, [&source](const Reader& in, MarkerRecord& m) {
    const std::string kind = in.get<std::string>("kind");
    if (kind == "instant") m.kind = MarkerRecord::Kind::kInstant;
    else if (kind == "start") m.kind = MarkerRecord::Kind::kStart;
    else if (kind == "end") m.kind = MarkerRecord::Kind::kEnd;
    else throw input_error(source + ": marker kind '" + kind + "' is not instant, start or end");
  });
  d.graph_traces = read_records<GraphTraceRecord>(j, "graph_traces", source, kSpanFields);
  d.node_mappings = read_records<NodeMapping>(j, "node_mappings", source, kNodeMappingFields);
  d.nodes_created = read_records<NodeCreated>(j, "nodes_created", source, kNodeCreatedFields);
  d.exec_mappings = read_records<ExecMapping>(j, "exec_mappings", source, kExecMappingFields);
  d.windows = read_records<IterationWindow>(j, "windows", source, kWindowFields);
  return d;
}

}  // namespace gp
