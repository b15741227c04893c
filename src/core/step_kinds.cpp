// The step kinds, eager clusters, framework reasons and capture plan in the report (step_kinds.hpp).
#include "graphprof/core/step_kinds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "graphprof/core/error.hpp"

namespace gp {

using nlohmann::json;

std::string StepKind::name() const {
  if (startup) return "start-up (warm-up, capture)";
  if (graphs.empty()) return "eager (no graph)";
  std::string s;
  for (std::uint32_t g : graphs) s += (s.empty() ? "graph_" : "+graph_") + std::to_string(g);
  return s;
}

std::optional<double> StepKind::gpu_ns() const {
  if (graphs.empty()) return eager_gpu_ns;
  if (!graph_gpu_ns) return std::nullopt;
  if (eager_gpu_ns) return *graph_gpu_ns + *eager_gpu_ns;
  return eager_launches > 0 ? std::nullopt : graph_gpu_ns;
}

std::size_t StepKinds::eager_steps() const {
  const StepKind* k = eager_kind();
  return k == nullptr ? 0 : k->steps;
}

const StepKind* StepKinds::eager_kind() const {
  for (const StepKind& k : kinds)
    if (k.eager()) return &k;
  return nullptr;
}

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// A strict reader: a field that is absent takes its default, one of the wrong type is bad input.
struct In {
  const json& j;
  std::string where;
  [[noreturn]] void fail(const char* key, const char* what) const {
    throw input_error(where + "." + key + ": expected " + what);
  }
  const json* find(const char* key) const {
    if (!j.is_object()) throw input_error(where + ": expected an object");
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  double num(const char* key, double dflt = 0) const {
    const json* v = find(key);
    if (v == nullptr) return dflt;
    if (!v->is_number()) fail(key, "a number");
    const double d = v->get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 1e18) fail(key, "a number of at most 1e18 in magnitude");
    return d;
  }
  std::optional<double> opt_num(const char* key) const {
    if (find(key) == nullptr) return std::nullopt;
    return num(key);
  }
  std::size_t count(const char* key) const {
    const double d = num(key);
    if (d < 0 || d != std::floor(d)) fail(key, "a whole number >= 0");
    return static_cast<std::size_t>(d);
  }
  std::uint32_t id(const char* key) const {
    const std::size_t n = count(key);
    if (n > std::numeric_limits<std::uint32_t>::max()) fail(key, "a graph id");
    return static_cast<std::uint32_t>(n);
  }
  std::string str(const char* key) const {
    const json* v = find(key);
    if (v == nullptr) return {};
    if (!v->is_string()) fail(key, "a string");
    return v->get<std::string>();
  }
  bool flag(const char* key) const {
    const json* v = find(key);
    if (v == nullptr) return false;
    if (!v->is_boolean()) fail(key, "true or false");
    return v->get<bool>();
  }
  const json& list(const char* key) const {
    static const json empty = json::array();
    const json* v = find(key);
    if (v == nullptr) return empty;
    if (!v->is_array()) fail(key, "a list");
    return *v;
  }
  In at(const char* key, std::size_t i) const { return In{list(key)[i], where + "." + key + "[" + std::to_string(i) + "]"}; }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    const json& l = list(key);
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (!l[i].is_string()) fail(key, "a list of strings");
      out.push_back(l[i].get<std::string>());
    }
    return out;
  }
};

}  // namespace

json to_json(const StepKinds& s) {
  json kinds = json::array();
  for (const StepKind& k : s.kinds)
    kinds.push_back({{"kind", k.name()}, {"graphs", k.graphs}, {"steps", k.steps}, {"host_ns_median", k.host_ns_median},
                     {"host_ns_total", k.host_ns_total}, {"graph_gpu_ns", opt(k.graph_gpu_ns)}, {"eager_gpu_ns", opt(k.eager_gpu_ns)},
                     {"gpu_ns", opt(k.gpu_ns())}, {"eager_launches", k.eager_launches}});
  // Written only where there is one: the reports before it had none.
  for (std::size_t i = 0; i < s.kinds.size(); ++i)
    if (s.kinds[i].startup) kinds[i]["startup"] = true;
  json strip = json::array();
  for (const auto& [kind, n] : s.strip) strip.push_back(json::array({kind, n}));
  json clusters = json::array();
  for (const EagerCluster& c : s.clusters)
    clusters.push_back({{"verdict", c.verdict}, {"graph", c.graph == 0 ? json(nullptr) : json(c.graph)}, {"largest", c.largest},
                        {"steps", c.steps}, {"shapes", c.shapes}, {"host_ns_per_step", c.host_ns_per_step},
                        {"extra_host_ns", opt(c.extra_host_ns)}, {"gpu_ns_per_step", opt(c.gpu_ns_per_step)},
                        {"extra_gpu_ns", opt(c.extra_gpu_ns)}, {"example", c.example}, {"first_step", c.first_step}});
  json reasons = json::array();
  for (const FrameworkReason& r : s.reasons)
    reasons.push_back({{"kind", r.kind}, {"reason", r.reason}, {"file", r.file}, {"line", r.line}, {"function", r.function},
                       {"count", r.count}, {"sites", r.sites}, {"steps", r.steps}, {"calls_per_step", opt(r.calls_per_step)},
                       {"gpu_ns", r.gpu_ns}, {"host_ns", r.host_ns}});
  json graphs = json::array();
  for (const PlanGraph& g : s.plan_graphs)
    graphs.push_back({{"graph", g.graph}, {"launches", g.launches}, {"per_1000_steps", g.per_1000_steps},
                      {"startup_ns", opt(g.startup_ns)}, {"memory_bytes", opt(g.memory_bytes)}, {"shares_pool", g.shares_pool}, {"verdict", g.verdict}});
  json plan_clusters = json::array();
  for (const PlanCluster& c : s.plan_clusters)
    plan_clusters.push_back({{"cluster", c.cluster}, {"steps", c.steps}, {"saving_per_1000_steps_ns", opt(c.saving_per_1000_steps_ns)},
                             {"memory_bytes", opt(c.memory_bytes)}, {"startup_ns", opt(c.startup_ns)},
                             {"pays_back_steps", opt(c.pays_back_steps)}, {"verdict", c.verdict}});
  return json{{"from", s.from},
              {"delimiter", s.delimiter.empty() ? json(nullptr) : json(s.delimiter)},
              {"steps", s.steps},
              {"eager_steps", s.eager_steps()},
              {"loop_ns", s.loop_ns},
              {"kinds", std::move(kinds)},
              {"graph_step_host_ns", opt(s.graph_step_host_ns)},
              {"graph_step_gpu_ns", opt(s.graph_step_gpu_ns)},
              {"eager_where", s.eager_where.empty() ? json(nullptr) : json(s.eager_where)},
              {"strip", std::move(strip)},
              {"clusters", std::move(clusters)},
              {"reasons", std::move(reasons)},
              {"plan", {{"graphs", std::move(graphs)}, {"clusters", std::move(plan_clusters)},
                        {"padding", s.padding.empty() ? json(nullptr) : json(s.padding)}}},
              {"notes", s.notes}};
}

StepKinds step_kinds_from_json(const json& j, const std::string& where) {
  const In in{j, where};
  StepKinds s;
  s.from = in.str("from");
  s.delimiter = in.str("delimiter");
  s.steps = in.count("steps");
  s.loop_ns = in.num("loop_ns");
  for (std::size_t i = 0; i < in.list("kinds").size(); ++i) {
    const In k = in.at("kinds", i);
    StepKind x;
    for (std::size_t g = 0; g < k.list("graphs").size(); ++g) {
      const json& v = k.list("graphs")[g];
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) k.fail("graphs", "graph ids");
      x.graphs.push_back(v.get<std::uint32_t>());
    }
    x.steps = k.count("steps");
    x.host_ns_median = k.num("host_ns_median");
    x.host_ns_total = k.num("host_ns_total");
    x.graph_gpu_ns = k.opt_num("graph_gpu_ns");
    x.eager_gpu_ns = k.opt_num("eager_gpu_ns");
    x.eager_launches = k.num("eager_launches");
    x.startup = k.flag("startup");
    s.kinds.push_back(std::move(x));
  }
  s.graph_step_host_ns = in.opt_num("graph_step_host_ns");
  s.graph_step_gpu_ns = in.opt_num("graph_step_gpu_ns");
  s.eager_where = in.str("eager_where");
  for (std::size_t i = 0; i < in.list("strip").size(); ++i) {
    const json& r = in.list("strip")[i];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() || !r[1].is_number_unsigned() ||
        r[0].get<std::size_t>() >= s.kinds.size())
      in.fail("strip", "pairs [kind index, steps]");
    s.strip.emplace_back(r[0].get<std::size_t>(), r[1].get<std::size_t>());
  }
  for (std::size_t i = 0; i < in.list("clusters").size(); ++i) {
    const In c = in.at("clusters", i);
    EagerCluster x;
    x.verdict = c.str("verdict");
    x.graph = c.id("graph");
    x.largest = c.flag("largest");
    x.steps = c.count("steps");
    x.shapes = c.count("shapes");
    x.host_ns_per_step = c.num("host_ns_per_step");
    x.extra_host_ns = c.opt_num("extra_host_ns");
    x.gpu_ns_per_step = c.opt_num("gpu_ns_per_step");
    x.extra_gpu_ns = c.opt_num("extra_gpu_ns");
    x.example = c.strings("example");
    x.first_step = c.count("first_step");
    s.clusters.push_back(std::move(x));
  }
  for (std::size_t i = 0; i < in.list("reasons").size(); ++i) {
    const In r = in.at("reasons", i);
    FrameworkReason x;
    x.kind = r.str("kind");
    x.reason = r.str("reason");
    x.file = r.str("file");
    x.line = static_cast<int>(std::min<std::size_t>(r.count("line"), 1u << 30));
    x.function = r.str("function");
    x.count = r.count("count");
    x.sites = r.strings("sites");
    x.steps = r.count("steps");
    x.calls_per_step = r.opt_num("calls_per_step");
    x.gpu_ns = r.num("gpu_ns");
    x.host_ns = r.num("host_ns");
    s.reasons.push_back(std::move(x));
  }
  if (const json* plan = in.find("plan")) {
    const In p{*plan, where + ".plan"};
    for (std::size_t i = 0; i < p.list("graphs").size(); ++i) {
      const In g = p.at("graphs", i);
      PlanGraph x;
      x.graph = g.id("graph");
      x.launches = g.count("launches");
      x.per_1000_steps = g.num("per_1000_steps");
      x.startup_ns = g.opt_num("startup_ns");
      x.memory_bytes = g.opt_num("memory_bytes");
      x.shares_pool = g.flag("shares_pool");
      x.verdict = g.str("verdict");
      s.plan_graphs.push_back(std::move(x));
    }
    for (std::size_t i = 0; i < p.list("clusters").size(); ++i) {
      const In c = p.at("clusters", i);
      PlanCluster x;
      x.cluster = c.count("cluster");
      if (x.cluster >= s.clusters.size()) c.fail("cluster", "the index of a cluster");
      x.steps = c.count("steps");
      x.saving_per_1000_steps_ns = c.opt_num("saving_per_1000_steps_ns");
      x.memory_bytes = c.opt_num("memory_bytes");
      x.startup_ns = c.opt_num("startup_ns");
      x.pays_back_steps = c.opt_num("pays_back_steps");
      x.verdict = c.str("verdict");
      s.plan_clusters.push_back(std::move(x));
    }
    s.padding = p.str("padding");
  }
  s.notes = in.strings("notes");
  return s;
}

json to_json(const FrameworkLogs& f) {
  return json{{"asked", f.asked},
              {"torch_logs", f.torch_logs.empty() ? json(nullptr) : json(f.torch_logs)},
              {"file", f.file.empty() ? json(nullptr) : json(f.file)},
              {"not_asked", f.not_asked.empty() ? json(nullptr) : json(f.not_asked)},
              {"lines", f.lines},
              {"reasons", f.reasons}};
}

FrameworkLogs framework_logs_from_json(const json& j, const std::string& where) {
  const In in{j, where};
  FrameworkLogs f;
  f.asked = in.flag("asked");
  f.torch_logs = in.str("torch_logs");
  f.file = in.str("file");
  f.not_asked = in.str("not_asked");
  f.lines = in.count("lines");
  f.reasons = in.count("reasons");
  return f;
}

}  // namespace gp
