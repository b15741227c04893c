// Report fields of call sites and ledgers (site_report.hpp).
#include "site_report.hpp"

#include "graphprof/core/text_format.hpp"

namespace gp {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<std::uint64_t>& v) { return v ? json(*v) : json(nullptr); }

json counts_json(const UpdateCounts& c) { return json{{"calls", c.calls}, {"failures", c.failures}}; }

// What a site is apart from its line number (compare matches sites across edits by it); null
// where the file could not be read.
json source_json(const std::string& file, const std::string& function, const std::string& text) {
  return text.empty() ? json(nullptr) : json{{"file", file}, {"function", function}, {"text", text}};
}

}  // namespace

json site_json(const std::optional<SiteSummary>& s) {
  if (!s) return nullptr;
  json frames = json::array();
  for (const auto& f : s->frames)
    frames.push_back({{"module", f.module},
                      {"offset", strf("0x%llx", static_cast<unsigned long long>(f.offset))},
                      {"function", f.function},
                      {"file", f.file.empty() ? json(nullptr) : json(f.file)},
                      {"line", f.line > 0 ? json(f.line) : json(nullptr)},
                      {"inlined", f.inlined}});
  json j{{"id", s->id},       {"where", s->where}, {"from", s->from}, {"function_where", s->function_where},
         {"stack", s->stack}, {"frames", std::move(frames)}};
  j["source"] = source_json(s->source_file, s->source_function, s->source_text);
  return j;
}

namespace {

json allocation_sites_json(const std::vector<AllocationSite>& sites) {
  json out = json::array();
  for (const auto& a : sites)
    out.push_back({{"site", site_json(a.site)},
                   {"python", a.python ? json{{"where", a.python->where},
                                              {"from", a.python->from},
                                              {"stack", a.python->stack},
                                              {"source", source_json(a.python->source_file, a.python->source_function, a.python->source_text)}}
                                       : json(nullptr)},
                   {"bytes", a.bytes},
                   {"allocations", a.allocations}});
  return out;
}

}  // namespace

void add_graph_ledger_json(json& g, const GraphLedger& l) {
  g["capture_site"] = site_json(l.capture_site);
  g["instantiate_site"] = site_json(l.instantiate_site);
  g["memory"] = {{"capture_alloc_bytes", l.capture_alloc_bytes},
                 {"capture_allocs", l.capture_allocs},
                 {"capture_vmm_bytes", l.capture_vmm_bytes},
                 {"before_capture_alloc_bytes", l.before_capture_alloc_bytes},
                 {"before_capture_allocs", l.before_capture_allocs},
                 {"before_capture_freed_bytes", l.before_capture_freed_bytes},
                 {"before_capture_since", !l.capture_ns ? json(nullptr) : json(l.before_capture_from_start ? "start" : "previous capture")},
                 {"capture_alloc_sites", allocation_sites_json(l.capture_alloc_sites)},
                 {"before_capture_alloc_sites", allocation_sites_json(l.before_capture_alloc_sites)},
                 {"memory_node_bytes", l.memory_node_bytes},
                 {"memory_nodes", l.memory_nodes},
                 {"capture_free_delta_bytes", opt(l.capture_free_delta)},
                 {"instantiate_free_delta_bytes", opt(l.instantiate_free_delta)},
                 {"upload_free_delta_bytes", opt(l.upload_free_delta)},
                 {"graph_pool_reserved_after_bytes", opt(l.graph_pool_reserved_after)},
                 {"reuses_memory", l.reuses_memory}};
  g["startup"] = {{"capture_ns", opt(l.capture_ns)},
                  {"first_launch_ns", opt(l.first_launch_ns)},
                  {"created_after_first_step_ns", l.created_after_first_step_ns > 0 ? json(l.created_after_first_step_ns) : json(nullptr)}};
  g["kernel_shapes"] = l.kernel_shapes;
}

void add_sites_json(json& j, const ProcessProfile& p) {
  const SiteProfile& s = p.sites;
  j["call_sites_recorded"] = s.sites_recorded;
  j["ledgers_recorded"] = s.ledgers_recorded;
  j["step"] = s.step.steps == 0 ? json(nullptr)
                                : json{{"from", s.step.from}, {"exec", s.step.exec_id}, {"graph", s.step.graph_id},
                                       {"other_graphs", s.step.other_graphs},
                                       {"steps", s.step.steps}, {"span_ns", static_cast<double>(s.step.last_ns - s.step.first_ns)}};
  if (s.step.steps > 0 && s.step.from == "nvtx range") j["step"]["range"] = s.step.range_name;
  j["step_range"] = s.step.range_name.empty()
                        ? json(nullptr)
                        : json{{"name", s.step.range_name},
                               {"used", s.step.range_missing.empty()},
                               {"ranges", s.step.range_missing.empty() ? s.step.steps : 0},
                               {"missing", s.step.range_missing.empty() ? json(nullptr) : json(s.step.range_missing)}};
  json eager = json::array();
  for (const auto& e : s.eager_sites) {
    json kernels = json::array();
    for (const auto& k : e.kernels) kernels.push_back({{"name", k.name}, {"count", k.count}});
    eager.push_back({{"site", site_json(e.site)},
                     {"stacks", e.stacks},
                     {"kind", e.kind},
                     {"api", e.api},
                     {"calls", e.calls},
                     {"taken", e.taken},
                     {"calls_in_steps", e.calls_in_steps},
                     {"per_step", opt(e.per_step)},
                     {"gpu_ns", e.gpu_ns},
                     {"host_ns", e.host_ns},
                     {"kernels", std::move(kernels)},
                     {"hint", e.hint}});
  }
  j["eager_sites"] = std::move(eager);
  j["memory"] = {{"capture_alloc_bytes", s.capture_alloc_bytes},
                 {"capture_vmm_bytes", s.capture_vmm_bytes},
                 {"memory_node_bytes", s.memory_node_bytes},
                 {"graph_pool_reserved_high_bytes", opt(s.graph_pool_reserved_high)}};
  j["startup"] = {{"graph_making_ns", s.graph_making_ns},
                  {"wall_ns", opt(s.wall_ns)},
                  {"graph_making_share", s.wall_ns && *s.wall_ns > 0 ? json(s.graph_making_ns / *s.wall_ns) : json(nullptr)},
                  {"start_to_first_replay_ns", opt(s.start_to_first_replay_ns)},
                  {"cuda_to_first_replay_ns", opt(s.cuda_to_first_replay_ns)},
                  {"process_start_resolution_ns", s.process_start_resolution_ns}};
  json rec = json::array();
  for (const auto& r : s.recaptures)
    rec.push_back({{"site", site_json(r.site)}, {"graphs", r.graph_ids}, {"nodes", r.nodes}, {"shapes", r.shapes}, {"traced", r.traced}});
  j["recaptures"] = std::move(rec);
  j["late_graphs"] = s.late_graphs;
  if (const auto& py = s.python_frames)
    j["python_frames"] = {{"mode", py->mode}, {"held", py->held},   {"taken", py->taken},       {"wait_ns", py->wait_ns},
                          {"slow", py->slow}, {"stopped", py->stopped}, {"can_take", py->can_take}};
  else
    j["python_frames"] = nullptr;
  if (const auto& c = s.site_cost)
    j["call_site_cost"] = {{"calls", c->calls},         {"ns", c->ns},
                           {"new_sites", c->new_sites}, {"new_sites_ns", c->new_sites_ns},
                           {"full_unwinds", c->full_unwinds}, {"skipped", c->skipped},
                           {"sample_first", c->first},   {"sample_every", c->every},
                           {"sample_every_max", c->every_max},
                           {"named_off_thread", c->named}, {"naming_ns", c->named_ns}};
  else
    j["call_site_cost"] = nullptr;
  j["source_line_notes"] = s.source_line_notes;
  j["exec_updates"] = counts_json(s.exec_updates);
  j["set_params"] = counts_json(s.set_params);
}

}  // namespace gp
