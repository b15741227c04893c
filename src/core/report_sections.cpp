// Report sections <-> JSON (see report_sections.hpp and docs/report-schema.md). Reading is
// strict about types (a wrong type names its JSON path) and lenient about absence (old reports
// lack newer fields); unknown keys of results[].sections are kept as they are.
#include "graphprof/core/report_sections.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <initializer_list>

#include "graphprof/core/error.hpp"
#include "report_limits.hpp"

namespace gp {

using nlohmann::json;

namespace {

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json stats_json(const std::optional<TraceStats>& d) {
  if (!d) return nullptr;
  return json{{"count", d->count}, {"median_ns", num(d->median_ns)}, {"p10_ns", num(d->p10_ns)}, {"p90_ns", num(d->p90_ns)}};
}

// Typed field access with the JSON path in every message.
struct In {
  const json& j;
  std::string where;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw input_error(where + "." + key + ": " + what);
  }
  const json* find(const char* key) const {
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  }
  std::string str(const char* key) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return {};
    if (!v->is_string()) fail(key, "expected a string");
    return v->get<std::string>();
  }
  double number(const char* key) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return kNoValue;
    if (!v->is_number()) fail(key, "expected a number");
    const double d = v->get<double>();
    // Finite but absurd figures (1e300 ns) are refused here, so no table or chart downstream
    // works in proportion to one.
    if (!(std::fabs(d) <= detail::kMaxReportMagnitude))
      fail(key, "value " + v->dump() + " is out of range (figures in a report are at most 1e18 in magnitude)");
    return d;
  }
  // A time or a rate of runs: >= 0 (or absent/null: kNoValue).
  double non_negative(const char* key) const {
    const double d = number(key);
    if (d < 0) fail(key, "value " + find(key)->dump() + " is out of range (a time cannot be negative)");
    return d;
  }
  template <class T>
  T count(const char* key) const {
    const double v = number(key);
    if (std::isnan(v)) return T{};
    // Beyond T's range the cast would be undefined (1e20 into chain_kernels' int), and a fraction
    // (2.5 records) would be truncated without a word: both are refused as bad input.
    if (v < 0 || !(v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0) || v != std::floor(v))
      fail(key, "expected a count (a whole number >= 0 and at most " + std::to_string(std::numeric_limits<T>::max()) +
                    "), got " + find(key)->dump());
    return static_cast<T>(v);
  }
  In object(const char* key) const {
    const json* v = find(key);
    static const json empty = json::object();
    if (v == nullptr || v->is_null()) return In{empty, where + "." + key};
    if (!v->is_object()) fail(key, "expected an object");
    return In{*v, where + "." + key};
  }
  bool flag(const char* key) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return false;
    if (!v->is_boolean()) fail(key, "expected true or false");
    return v->get<bool>();
  }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return out;
    if (!v->is_array()) fail(key, "expected an array");
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) fail(key + std::string("[") + std::to_string(i) + "]", "expected a string");
      out.push_back((*v)[i].get<std::string>());
    }
    return out;
  }
  bool has(const char* key) const {
    const json* v = find(key);
    return v != nullptr && !v->is_null();
  }
  template <class F>
  void each(const char* key, F&& f) const {
    const json* v = find(key);
    if (v == nullptr || v->is_null()) return;
    if (!v->is_array()) fail(key, "expected an array");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const std::string w = where + "." + key + "[" + std::to_string(i) + "]";
      if (!(*v)[i].is_object()) throw input_error(w + ": expected an object");
      f(In{(*v)[i], w});
    }
  }
};

std::optional<TraceStats> stats_from(const In& in, const char* key) {
  if (!in.has(key)) return std::nullopt;
  const In s = in.object(key);
  return TraceStats{s.count<std::size_t>("count"), s.number("median_ns"), s.number("p10_ns"), s.number("p90_ns")};
}

TraceNodeTime node_from(const In& n) {
  TraceNodeTime t;
  t.graph_id = n.count<std::uint32_t>("graph_id");
  t.node_index = n.count<std::uint32_t>("node_index");
  t.dot_name = n.str("dot_name");
  if (t.dot_name.empty()) {
    if (!n.has("graph_id") || !n.has("node_index")) throw input_error(n.where + ": missing 'dot_name'");
    t.dot_name = "graph_" + std::to_string(t.graph_id) + "_node_" + std::to_string(t.node_index);
  }
  // null means "seen, never timed"; absent means the writer is broken.
  if (n.find("median_ns") == nullptr) throw input_error(n.where + ": missing 'median_ns'");
  t.kind = n.str("kind");
  t.name = n.str("name");
  t.mangled_name = n.str("mangled_name");
  t.count = n.count<std::size_t>("count");
  t.median_ns = n.non_negative("median_ns");
  t.p10_ns = n.non_negative("p10_ns");
  t.p90_ns = n.non_negative("p90_ns");
  t.mean_ns = n.non_negative("mean_ns");
  t.gap_before_median_ns = n.number("gap_before_median_ns");  // overlapping work: may be negative
  t.runs_per_replay = n.non_negative("runs_per_replay");
  t.per_replay_median_ns = n.non_negative("per_replay_median_ns");
  return t;
}

// The fields of `j` not in `known`, kept so a round trip loses nothing.
json unknown_fields(const json& j, std::initializer_list<const char*> known) {
  json out = json::object();
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; })) out[it.key()] = *it;
  return out;
}

json ci_pair(double lo, double hi) { return json::array({num(lo), num(hi)}); }

void spread_from(const In& p, const char* side, TraceSpread& s) {
  const std::string k = side;
  s.median_ns = p.number((k + "_gpu_time_per_iter_ns").c_str());
  s.p10_ns = p.number((k + "_p10_ns").c_str());
  s.p90_ns = p.number((k + "_p90_ns").c_str());
  s.n = p.count<std::size_t>((k + "_n").c_str());
  const json* ci = p.find((k + "_ci_ns").c_str());
  if (ci != nullptr && ci->is_array() && ci->size() == 2) {
    s.ci_low_ns = (*ci)[0].is_number() ? (*ci)[0].get<double>() : kNoValue;
    s.ci_high_ns = (*ci)[1].is_number() ? (*ci)[1].get<double>() : kNoValue;
  }
}

void spread_to(json& p, const char* side, const TraceSpread& s) {
  const std::string k = side;
  p[k + "_gpu_time_per_iter_ns"] = num(s.median_ns);
  p[k + "_p10_ns"] = num(s.p10_ns);
  p[k + "_p90_ns"] = num(s.p90_ns);
  p[k + "_ci_ns"] = ci_pair(s.ci_low_ns, s.ci_high_ns);
  p[k + "_n"] = s.n;
}

RanksSection ranks_from(const In& in) {
  RanksSection r;
  r.count = in.count<std::size_t>("count");
  const In medians = in.object("median_per_rank");
  for (auto it = medians.j.begin(); it != medians.j.end(); ++it) {
    std::vector<double>& per = r.median_per_rank[it.key()];
    if (!it->is_array()) medians.fail(it.key(), "expected an array");
    for (const json& v : *it) {
      if (!v.is_null() && !v.is_number()) medians.fail(it.key(), "expected numbers");
      per.push_back(v.is_number() ? v.get<double>() : kNoValue);
    }
  }
  const In slowest = in.object("slowest_rank");
  for (auto it = slowest.j.begin(); it != slowest.j.end(); ++it) r.slowest_rank[it.key()] = slowest.str(it.key().c_str());
  r.same_output_on_every_rank = in.flag("same_output_on_every_rank");
  r.extra = unknown_fields(in.j, {"count", "median_per_rank", "slowest_rank", "same_output_on_every_rank"});
  return r;
}

TraceSection trace_from(const In& in) {
  TraceSection t;
  t.status = in.str("status");
  t.reason = in.str("reason");
  t.level = in.str("level");
  t.dot_warning = in.str("dot_warning");
  t.extra = unknown_fields(in.j, {"status", "reason", "level", "dot_warning", "replays", "gpu_records",
                                  "unattributed_records", "unassigned_records", "graph_span_median_ns", "graph_span",
                                  "iteration_span_median_ns", "iteration_span", "api_per_call", "join", "nodes",
                                  "kernels", "api", "dropped_records", "attempts", "cupti_buffers", "perturbation",
                                  "launch_api_check"});
  t.has_records = in.has("replays");
  if (!t.has_records) return t;
  t.replays = in.count<std::size_t>("replays");
  t.gpu_records = in.count<std::size_t>("gpu_records");
  t.unattributed_records = in.count<std::size_t>("unattributed_records");
  t.unassigned_records = in.count<std::size_t>("unassigned_records");
  t.graph_span = stats_from(in, "graph_span");
  t.iteration_span = stats_from(in, "iteration_span");
  t.api_per_call = stats_from(in, "api_per_call");
  const In j = in.object("join");
  t.join = TraceJoinInfo{j.str("dot_status"), j.count<std::uint32_t>("traced_graph_id"),
                         j.count<std::uint32_t>("dot_graph_id"), j.count<std::size_t>("dot_name_mismatches")};
  in.each("nodes", [&](const In& n) { t.nodes.push_back(node_from(n)); });
  in.each("kernels", [&](const In& k) {
    t.kernels.push_back({k.str("kind"), k.str("name"), k.count<std::size_t>("count"), k.number("median_ns"),
                         k.number("p10_ns"), k.number("p90_ns"), k.number("per_iter_ns")});
  });
  in.each("api", [&](const In& a) {
    t.api.push_back({a.str("name"), a.count<std::size_t>("count"), a.number("median_ns"), a.number("p10_ns"),
                     a.number("p90_ns"), a.number("calls_per_iter")});
  });
  t.dropped_records = in.count<std::uint64_t>("dropped_records");
  t.attempts = in.count<int>("attempts");
  const In b = in.object("cupti_buffers");
  t.cupti_buffer_count = b.count<std::size_t>("count");
  t.cupti_buffer_largest_bytes = b.count<std::size_t>("largest_bytes");
  const In p = in.object("perturbation");
  spread_from(p, "traced", t.perturbation.traced);
  if (p.has("untraced_gpu_time_per_iter_ns")) spread_from(p, "untraced", t.perturbation.untraced.emplace());
  t.perturbation.ratio = p.number("ratio");
  const json* rr = p.find("ratio_range");
  if (rr != nullptr && rr->is_array() && rr->size() == 2 && (*rr)[0].is_number() && (*rr)[1].is_number())
    t.perturbation.ratio_range = std::make_pair((*rr)[0].get<double>(), (*rr)[1].get<double>());
  const In c = in.object("launch_api_check");
  t.launch_api_check = LaunchApiCheck{c.number("cupti_per_call_median_ns"), c.number("host_clock_per_call_median_ns"),
                                      c.number("ratio")};
  return t;
}

}  // namespace

json to_json(const GraphDumpSection& g) {
  json j = g.extra.is_object() ? g.extra : json::object();
  j["nodes"] = g.nodes;
  j["edges"] = g.edges;
  if (g.roots > 0) j["roots"] = g.roots;
  if (g.sinks > 0) j["sinks"] = g.sinks;
  if (!g.dot.empty()) j["dot"] = g.dot;
  if (!g.dot_verbose.empty()) j["dot_verbose"] = g.dot_verbose;
  if (!g.dot_error.empty()) j["dot_error"] = g.dot_error;
  return j;
}

json to_json(const TraceSection& t) {
  json j = t.extra.is_object() ? t.extra : json::object();
  j["status"] = t.status;
  j["reason"] = t.reason;
  j["level"] = t.level;
  if (!t.dot_warning.empty()) j["dot_warning"] = t.dot_warning;
  if (!t.has_records) return j;
  j["replays"] = t.replays;
  j["gpu_records"] = t.gpu_records;
  j["unattributed_records"] = t.unattributed_records;
  j["unassigned_records"] = t.unassigned_records;
  j["graph_span_median_ns"] = t.graph_span ? num(t.graph_span->median_ns) : json(nullptr);
  j["graph_span"] = stats_json(t.graph_span);
  j["iteration_span_median_ns"] = t.iteration_span ? num(t.iteration_span->median_ns) : json(nullptr);
  j["iteration_span"] = stats_json(t.iteration_span);
  j["api_per_call"] = stats_json(t.api_per_call);
  j["join"] = {{"dot_status", t.join.dot_status},
               {"traced_graph_id", t.join.traced_graph_id},
               {"dot_graph_id", t.join.dot_graph_id},
               {"dot_name_mismatches", t.join.dot_name_mismatches}};
  json& nodes = j["nodes"] = json::array();
  for (const auto& n : t.nodes) {
    json& node = nodes.emplace_back(json{{"dot_name", n.dot_name},
                                         {"graph_id", n.graph_id},
                                         {"node_index", n.node_index},
                                         {"kind", n.kind},
                                         {"name", n.name},
                                         {"mangled_name", n.mangled_name},
                                         {"count", n.count},
                                         {"median_ns", num(n.median_ns)},
                                         {"p10_ns", num(n.p10_ns)},
                                         {"p90_ns", num(n.p90_ns)},
                                         {"mean_ns", num(n.mean_ns)},
                                         {"gap_before_median_ns", num(n.gap_before_median_ns)}});
    // Only where known: profile results and older reports have no replay structure to count.
    if (std::isfinite(n.runs_per_replay)) node["runs_per_replay"] = n.runs_per_replay;
    if (std::isfinite(n.per_replay_median_ns)) node["per_replay_median_ns"] = n.per_replay_median_ns;
  }
  json& kernels = j["kernels"] = json::array();
  for (const auto& k : t.kernels)
    kernels.push_back({{"kind", k.kind},
                       {"name", k.name},
                       {"count", k.count},
                       {"median_ns", num(k.median_ns)},
                       {"p10_ns", num(k.p10_ns)},
                       {"p90_ns", num(k.p90_ns)},
                       {"per_iter_ns", num(k.per_iter_ns)}});
  json& api = j["api"] = json::array();
  for (const auto& a : t.api)
    api.push_back({{"name", a.name},
                   {"count", a.count},
                   {"median_ns", num(a.median_ns)},
                   {"p10_ns", num(a.p10_ns)},
                   {"p90_ns", num(a.p90_ns)},
                   {"calls_per_iter", num(a.calls_per_iter)}});
  j["dropped_records"] = t.dropped_records;
  j["attempts"] = t.attempts;
  j["cupti_buffers"] = {{"count", t.cupti_buffer_count}, {"largest_bytes", t.cupti_buffer_largest_bytes}};
  json p;
  spread_to(p, "traced", t.perturbation.traced);
  if (t.perturbation.untraced) spread_to(p, "untraced", *t.perturbation.untraced);
  else p["untraced_gpu_time_per_iter_ns"] = nullptr;
  p["ratio"] = num(t.perturbation.ratio);
  if (t.perturbation.ratio_range)
    p["ratio_range"] = json::array({t.perturbation.ratio_range->first, t.perturbation.ratio_range->second});
  j["perturbation"] = std::move(p);
  j["launch_api_check"] = {{"cupti_per_call_median_ns", num(t.launch_api_check.cupti_per_call_median_ns)},
                           {"host_clock_per_call_median_ns", num(t.launch_api_check.host_clock_per_call_median_ns)},
                           {"ratio", num(t.launch_api_check.ratio)}};
  return j;
}

// Only the fields that were taken, as the runner has always written them.
json to_json(const DeviceProbeSection& p) {
  json j = p.extra.is_object() ? p.extra : json::object();
  j["chain_kernels"] = p.chain_kernels;
  if (std::isfinite(p.ns_per_kernel)) j["ns_per_kernel"] = p.ns_per_kernel;
  if (std::isfinite(p.ns_per_kernel_after)) j["ns_per_kernel_after"] = p.ns_per_kernel_after;
  if (std::isfinite(p.latched_ns_per_kernel)) j["latched_ns_per_kernel"] = p.latched_ns_per_kernel;
  if (std::isfinite(p.latched_ns_per_kernel_after)) j["latched_ns_per_kernel_after"] = p.latched_ns_per_kernel_after;
  if (!p.error.empty()) j["error"] = p.error;
  if (!p.points.empty()) {
    json& all = j["points"] = json::array();
    for (const DeviceProbePoint& pt : p.points)
      all.push_back({{"at", pt.at}, {"back_to_back_ns", num(pt.reading.back_to_back_ns)},
                     {"latched_ns", num(pt.reading.latched_ns)}});
  }
  if (!p.processes.empty()) {
    json& all = j["processes"] = json::array();
    for (const DeviceProbeLevel& l : p.processes) {
      json& one = all.emplace_back(json::object());
      one["ns_per_kernel"] = num(l.ns_per_kernel);
      one["ns_per_kernel_after"] = num(l.ns_per_kernel_after);
      if (std::isfinite(l.latched_ns_per_kernel)) one["latched_ns_per_kernel"] = l.latched_ns_per_kernel;
      if (std::isfinite(l.latched_ns_per_kernel_after)) one["latched_ns_per_kernel_after"] = l.latched_ns_per_kernel_after;
      if (!l.error.empty()) one["error"] = l.error;
    }
  }
  return j;
}

json to_json(const BudgetSection& b) {
  json j = b.extra.is_object() ? b.extra : json::object();
  if (std::isfinite(b.iteration_seconds)) j["iteration_seconds"] = b.iteration_seconds;
  if (!b.passes_cut_short.empty()) j["passes_cut_short"] = b.passes_cut_short;
  return j;
}

json to_json(const PluginSection& p) {
  json j = p.extra.is_object() ? p.extra : json::object();
  j["library"] = p.library;
  j["name"] = p.name;
  j["version"] = p.version;
  j["file_fnv1a64"] = p.file_fnv1a64;
  j["api_version"] = p.api_version;
  return j;
}

json to_json(const RanksSection& r) {
  json j = r.extra.is_object() ? r.extra : json::object();
  j["count"] = r.count;
  json medians = json::object();
  for (const auto& [key, per] : r.median_per_rank) {
    json& all = medians[key] = json::array();
    for (double v : per) all.push_back(num(v));
  }
  j["median_per_rank"] = std::move(medians);
  j["slowest_rank"] = r.slowest_rank;
  j["same_output_on_every_rank"] = r.same_output_on_every_rank;
  return j;
}

json to_json(const Sections& s) {
  json j = s.other.is_object() ? s.other : json::object();
  if (s.graph) j["graph"] = to_json(*s.graph);
  if (s.trace) j["trace"] = to_json(*s.trace);
  if (s.device_probe) j["device_probe"] = to_json(*s.device_probe);
  if (!s.workload.empty()) {
    json w = json::object();
    for (const auto& [k, v] : s.workload) w[k] = num(v);
    j["workload"] = std::move(w);
  }
  if (!s.latched.empty()) j["latched"] = s.latched;
  if (s.budget) j["budget"] = to_json(*s.budget);
  if (s.plugin) j["plugin"] = to_json(*s.plugin);
  if (s.ranks) j["ranks"] = to_json(*s.ranks);
  if (s.cuda_context_lost) j["cuda_context_lost"] = true;
  if (s.cut_by_time_limit) j["cut_by_time_limit"] = true;
  if (s.profile) j["profile"] = to_json(*s.profile);
  return j;
}

Sections sections_from_json(const json& j, const std::string& where) {
  Sections s;
  if (j.is_null()) return s;
  if (!j.is_object()) throw input_error(where + ": expected an object");
  const In in{j, where};
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (key == "graph") {
      const In g = in.object("graph");
      s.graph = GraphDumpSection{g.str("dot"), g.str("dot_verbose"), g.str("dot_error"), g.count<int>("nodes"),
                                 g.count<int>("edges"),
                                 unknown_fields(g.j, {"dot", "dot_verbose", "dot_error", "nodes", "edges", "roots", "sinks"}),
                                 g.count<int>("roots"), g.count<int>("sinks")};
    } else if (key == "trace") {
      s.trace = trace_from(in.object("trace"));
    } else if (key == "device_probe") {
      const In p = in.object("device_probe");
      s.device_probe.emplace();
      s.device_probe->chain_kernels = p.count<int>("chain_kernels");
      s.device_probe->ns_per_kernel = p.non_negative("ns_per_kernel");
      s.device_probe->ns_per_kernel_after = p.non_negative("ns_per_kernel_after");
      s.device_probe->error = p.str("error");
      s.device_probe->extra = unknown_fields(p.j, {"chain_kernels", "ns_per_kernel", "ns_per_kernel_after", "error",
                                                   "processes", "latched_ns_per_kernel", "latched_ns_per_kernel_after",
                                                   "points"});
      s.device_probe->latched_ns_per_kernel = p.non_negative("latched_ns_per_kernel");
      s.device_probe->latched_ns_per_kernel_after = p.non_negative("latched_ns_per_kernel_after");
      p.each("points", [&](const In& pt) {
        s.device_probe->points.push_back({pt.str("at"), {pt.number("back_to_back_ns"), pt.number("latched_ns")}});
      });
      p.each("processes", [&](const In& l) {
        s.device_probe->processes.push_back({l.non_negative("ns_per_kernel"), l.non_negative("ns_per_kernel_after"), l.str("error"),
                                             l.non_negative("latched_ns_per_kernel"), l.non_negative("latched_ns_per_kernel_after")});
      });
    } else if (key == "workload") {
      const In w = in.object("workload");
      for (auto f = w.j.begin(); f != w.j.end(); ++f) s.workload[f.key()] = w.number(f.key().c_str());
    } else if (key == "latched") {
      s.latched = in.str("latched");
    } else if (key == "budget") {
      const In b = in.object("budget");
      BudgetSection& budget = s.budget.emplace();
      budget.iteration_seconds = b.non_negative("iteration_seconds");
      budget.passes_cut_short = b.strings("passes_cut_short");
      budget.extra = unknown_fields(b.j, {"iteration_seconds", "passes_cut_short"});
    } else if (key == "plugin") {
      const In p = in.object("plugin");
      s.plugin = PluginSection{p.str("library"), p.str("name"), p.str("version"), p.str("file_fnv1a64"),
                               p.str("api_version"),
                               unknown_fields(p.j, {"library", "name", "version", "file_fnv1a64", "api_version"})};
    } else if (key == "ranks") {
      s.ranks = ranks_from(in.object("ranks"));
    } else if (key == "cuda_context_lost") {
      s.cuda_context_lost = in.flag("cuda_context_lost");
    } else if (key == "cut_by_time_limit") {
      s.cut_by_time_limit = in.flag("cut_by_time_limit");
    } else if (key == "profile") {
      if (!it->is_null() && !it->is_object()) in.fail("profile", "expected an object");
      if (it->is_object()) s.profile = profile_section_from_json(*it);
    } else {
      s.other[key] = *it;
    }
  }
  return s;
}

}  // namespace gp
