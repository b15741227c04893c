// Accessors of a report's profile section (profile_fields.hpp).
#include "graphprof/core/profile_fields.hpp"

#include <algorithm>
#include <cmath>

namespace gp::profile_fields {

using nlohmann::json;

const ModeResult* app_result(const Report& r) {
  for (const ModeResult& m : r.results)
    if (m.mode == Mode::kApp && m.params.empty() && m.sections.has_profile()) return &m;
  return nullptr;
}

const json* section(const Report& r) {
  const ModeResult* app = app_result(r);
  return app == nullptr ? nullptr : &app->sections.profile;
}

std::vector<const json*> runs(const json& profile) {
  std::vector<const json*> out;
  for (const auto& r : items(profile, "runs"))
    if (r.is_object()) out.push_back(&r);
  if (out.empty()) out.push_back(&profile);
  return out;
}

std::string graph_site(const json& g) {
  for (const char* key : {"capture_site", "instantiate_site"}) {
    const auto it = g.is_object() ? g.find(key) : g.end();
    if (it == g.end()) continue;
    if (it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
    const std::string where = text(*it, "where");
    if (!where.empty()) return where;
  }
  return {};
}

double graph_memory_bytes(const json& g) {
  const auto it = g.is_object() ? g.find("memory") : g.end();
  if (it == g.end() || !it->is_object()) return std::nan("");
  double sum = 0;
  bool any = false;
  for (const char* key : {"capture_alloc_bytes", "capture_vmm_bytes", "memory_node_bytes"}) {
    const double v = number(*it, key);
    if (std::isfinite(v)) sum += v, any = true;
  }
  return any ? sum : std::nan("");
}

double graph_making_ns(const json& g) {
  const double capture = number(field(g, "startup"), "capture_ns", 0);
  return capture + number(g, "instantiate_ns", 0) + number(g, "upload_ns", 0);
}

Steps steps(const json& p) {
  Steps s;
  const auto it = p.is_object() ? p.find("step") : p.end();
  if (it != p.end() && it->is_object() && number(*it, "steps", 0) > 0) {
    s.count = number(*it, "steps", 0);
    s.from = text(*it, "from");
    s.exec = number(*it, "exec", -1);
    return s;
  }
  const json* top = nullptr;
  for (const auto& g : items(p, "graphs"))
    if (top == nullptr || number(g, "launches", 0) > number(*top, "launches", 0)) top = &g;
  if (top == nullptr || number(*top, "launches", 0) <= 0) return s;
  s.count = number(*top, "launches", 0);
  s.exec = number(*top, "exec", -1);
  s.from = "one launch of the most-launched graph";
  return s;
}

std::size_t late_graphs(const json& p) {
  if (p.is_object() && p.contains("late_graphs")) {
    const json& late = p.at("late_graphs");
    if (late.is_number_unsigned()) return late.get<std::size_t>();
    if (late.is_array()) return late.size();
  }
  double first_replay = INFINITY;
  for (const auto& g : items(p, "graphs")) first_replay = std::min(first_replay, number(g, "first_launch_at_ns", INFINITY));
  std::size_t n = 0;
  for (const auto& g : items(p, "graphs"))
    if (number(g, "created_at_ns", -1) > first_replay) ++n;
  return n;
}

double RunTotals::coverage() const {
  const double all = graph_kernel_ns + eager_kernel_ns;
  return all > 0 ? graph_kernel_ns / all : std::nan("");
}

RunTotals run_totals(const json& run) {
  RunTotals t;
  // Launches of graphs with and without a GPU time (the default level times each graph's launches
  // from its second on: a graph launched once, a warm-up, has none).
  double timed_launches = 0, untimed_launches = 0;
  bool every_steady = true, any_steady = false, steady_kernels = true;
  for (const auto& p : items(run, "processes")) {
    const json& c = field(p, "coverage");
    t.graph_kernel_ns += number(c, "graph_kernel_ns", 0);
    t.eager_kernel_ns += number(c, "eager_kernel_ns", 0);
    t.graph_kernels += number(c, "graph_kernels", 0);
    t.eager_kernels += number(c, "eager_kernels", 0);
    t.kernel_records = t.kernel_records || field(c, "kernel_time_in_graphs").is_number();
    t.graph_launches += number(c, "graph_launches", 0);
    t.eager_launches += number(c, "eager_launches", 0);
    if (const json& s = field(c, "steady"); s.is_object()) {
      any_steady = true;
      t.steady_graph_kernel_ns += number(s, "graph_kernel_ns", 0);
      t.steady_eager_kernel_ns += number(s, "eager_kernel_ns", 0);
      t.steady_node_runs += number(s, "graph_node_runs", 0);
      t.steady_eager_launches += number(s, "eager_launches", 0);
      steady_kernels = steady_kernels && field(s, "kernel_time_in_graphs").is_number();
    } else if (number(c, "graph_launches", 0) > 0) {
      every_steady = false;
    }
    for (const auto& s : items(p, "syncs")) t.syncs += number(s, "count", 0);
    t.steps += steps(p).count;
    t.step_span_ns += number(field(p, "step"), "span_ns", 0);
    for (const auto& g : items(p, "graphs")) {
      const double launches = number(g, "launches", 0);
      if (!(launches > 0)) continue;
      const double per_launch = number(field(g, "gpu_span"), "median_ns");
      if (std::isfinite(per_launch)) {
        t.graph_gpu_ns += launches * per_launch;
        timed_launches += launches;
      } else {
        untimed_launches += launches;
      }
      t.graph_node_runs += launches * number(g, "nodes", 0);
    }
    t.graphs += static_cast<double>(items(p, "graphs").size());
    t.capture_failures += static_cast<double>(items(p, "capture_trouble").size());
    t.late_graphs += static_cast<double>(late_graphs(p));
  }
  // Graphs without a GPU time that make up at most 5 % of the graph launches are left out of the
  // graphs' GPU time; more, and it is unknown.
  if (untimed_launches > 0.05 * (timed_launches + untimed_launches)) t.graph_gpu_ns = NAN;
  t.steady = any_steady && every_steady;
  t.steady_kernel_records = t.steady && steady_kernels;
  return t;
}

}  // namespace gp::profile_fields
