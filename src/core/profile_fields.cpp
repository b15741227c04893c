// Figures derived from the typed profile section (profile_fields.hpp).
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

double RunTotals::coverage() const {
  const double all = graph_kernel_ns + eager_kernel_ns;
  return all > 0 ? graph_kernel_ns / all : std::nan("");
}

}  // namespace gp::profile_fields

namespace gp::profile_fields {

const ProfileSection* typed_section(const Report& r) {
  const ModeResult* app = app_result(r);
  return app == nullptr ? nullptr : &*app->sections.profile;
}

ProfileSite site_of(const std::optional<ProfileSite>& site, const json& extra, const char* key) {
  if (site) return *site;
  ProfileSite s;
  const auto it = extra.find(key);
  if (it != extra.end() && it->is_string()) s.where = it->get<std::string>();
  return s;
}

std::vector<const ProfileAppRun*> runs(const ProfileSection& profile) {
  std::vector<const ProfileAppRun*> out;
  for (const auto& r : profile.runs) out.push_back(&r);
  if (out.empty()) out.push_back(&profile);
  return out;
}

std::string graph_site(const ProfileGraph& g) {
  // Older reports wrote the site as a string (kept in `extra`).
  for (const auto* site : {&g.capture_site, &g.instantiate_site}) {
    const char* key = site == &g.capture_site ? "capture_site" : "instantiate_site";
    const auto it = g.extra.find(key);
    if (it != g.extra.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
    if (*site && !(*site)->where.empty()) return (*site)->where;
  }
  return {};
}

double graph_memory_bytes(const ProfileGraph& g) {
  if (!g.memory) return std::nan("");
  double sum = 0;
  bool any = false;
  for (const ProfileNumber* v : {&g.memory->capture_alloc_bytes, &g.memory->capture_vmm_bytes, &g.memory->memory_node_bytes})
    if (std::isfinite(v->value())) sum += *v, any = true;
  return any ? sum : std::nan("");
}

double graph_making_ns(const ProfileGraph& g) {
  const double capture = g.startup ? g.startup->capture_ns.value_or(0) : 0;
  return capture + g.instantiate_ns.value_or(0) + g.upload_ns.value_or(0);
}

Steps steps(const ProfileProcess& p) {
  Steps s;
  if (p.step && p.step->steps.value_or(0) > 0) {
    s.count = p.step->steps.value_or(0);
    s.from = p.step->from;
    s.exec = p.step->exec.value_or(-1);
    return s;
  }
  const ProfileGraph* top = nullptr;
  for (const auto& g : p.graphs)
    if (top == nullptr || g.launches.value_or(0) > top->launches.value_or(0)) top = &g;
  if (top == nullptr || top->launches.value_or(0) <= 0) return s;
  s.count = top->launches.value_or(0);
  s.exec = top->exec.value_or(-1);
  s.from = "one launch of the most-launched graph";
  return s;
}

std::size_t late_graphs(const ProfileProcess& p) {
  if (p.late_graphs) {
    const json& late = *p.late_graphs;
    if (late.is_number_unsigned()) return late.get<std::size_t>();
    if (late.is_array()) return late.size();
  }
  double first_replay = INFINITY;
  for (const auto& g : p.graphs) first_replay = std::min(first_replay, g.first_launch_at_ns.value_or(INFINITY));
  std::size_t n = 0;
  for (const auto& g : p.graphs)
    if (g.created_at_ns.value_or(-1) > first_replay) ++n;
  return n;
}

RunTotals run_totals(const ProfileAppRun& run) {
  RunTotals t;
  double timed_launches = 0, untimed_launches = 0;
  bool every_steady = true, any_steady = false, steady_kernels = true;
  for (const auto& p : run.processes) {
    const ProfileCoverage c = p.coverage.value_or(ProfileCoverage{});
    t.graph_kernel_ns += c.graph_kernel_ns.value_or(0);
    t.eager_kernel_ns += c.eager_kernel_ns.value_or(0);
    t.graph_kernels += c.graph_kernels.value_or(0);
    t.eager_kernels += c.eager_kernels.value_or(0);
    t.kernel_records = t.kernel_records || c.kernel_time_in_graphs.is_number();
    t.graph_launches += c.graph_launches.value_or(0);
    t.eager_launches += c.eager_launches.value_or(0);
    if (const auto& s = c.steady) {
      any_steady = true;
      t.steady_graph_kernel_ns += s->graph_kernel_ns.value_or(0);
      t.steady_eager_kernel_ns += s->eager_kernel_ns.value_or(0);
      t.steady_node_runs += s->graph_node_runs.value_or(0);
      t.steady_eager_launches += s->eager_launches.value_or(0);
      steady_kernels = steady_kernels && s->kernel_time_in_graphs.is_number();
    } else if (c.graph_launches.value_or(0) > 0) {
      every_steady = false;
    }
    for (const auto& s : p.syncs) t.syncs += s.count.value_or(0);
    t.steps += steps(p).count;
    t.step_span_ns += p.step ? p.step->span_ns.value_or(0) : 0;
    for (const auto& g : p.graphs) {
      const double launches = g.launches.value_or(0);
      if (!(launches > 0)) continue;
      const double per_launch = g.gpu_span ? g.gpu_span->median_ns.value() : NAN;
      if (std::isfinite(per_launch)) {
        t.graph_gpu_ns += launches * per_launch;
        timed_launches += launches;
      } else {
        untimed_launches += launches;
      }
      t.graph_node_runs += launches * g.nodes.value_or(0);
    }
    t.graphs += static_cast<double>(p.graphs.size());
    t.capture_failures += static_cast<double>(p.capture_trouble.size());
    t.late_graphs += static_cast<double>(late_graphs(p));
  }
  if (untimed_launches > 0.05 * (timed_launches + untimed_launches)) t.graph_gpu_ns = NAN;
  t.steady = any_steady && every_steady;
  t.steady_kernel_records = t.steady && steady_kernels;
  return t;
}

}  // namespace gp::profile_fields
