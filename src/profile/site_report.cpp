// Report fields of call sites and ledgers (site_report.hpp).
#include "site_report.hpp"

#include "graphprof/core/text_format.hpp"
#include "section_values.hpp"

namespace gp {

using nlohmann::json;
using section_values::opt;
using section_values::texts;

namespace {

ProfileCallCount counts_of(const UpdateCounts& c) {
  ProfileCallCount out;
  out.calls = c.calls;
  out.failures = c.failures;
  return out;
}

// What a site is apart from its line number (compare matches sites across edits by it); null
// where the file could not be read.
ProfileOptional<ProfileSource> source_of(const std::string& file, const std::string& function, const std::string& text) {
  if (text.empty()) return ProfileOptional<ProfileSource>::null();
  ProfileSource s;
  s.file = file;
  s.function = function;
  s.text = text;
  return s;
}

}  // namespace

ProfileOptional<ProfileSite> profile_site(const std::optional<SiteSummary>& s) {
  if (!s) return ProfileOptional<ProfileSite>::null();
  ProfileSite site;
  site.id = s->id;
  site.where = s->where;
  site.from = s->from;
  site.function_where = s->function_where;
  site.stack = texts(s->stack);
  site.frames.present = true;
  for (const auto& f : s->frames) {
    ProfileFrame frame;
    frame.module = f.module;
    frame.offset = strf("0x%llx", static_cast<unsigned long long>(f.offset));
    frame.function = f.function;
    frame.file = ProfileText::or_null(f.file);
    frame.line = f.line > 0 ? ProfileNumber(f.line) : ProfileNumber::null();
    frame.inlined = f.inlined;
    site.frames.push_back(std::move(frame));
  }
  site.source = source_of(s->source_file, s->source_function, s->source_text);
  return site;
}

namespace {

ProfileList<ProfileAllocSite> allocation_sites(const std::vector<AllocationSite>& sites) {
  ProfileList<ProfileAllocSite> out;
  out.present = true;
  for (const auto& a : sites) {
    ProfileAllocSite site;
    site.site = profile_site(a.site);
    if (a.python) {
      ProfilePythonStack& py = site.python.emplace();
      py.where = a.python->where;
      py.from = a.python->from;
      py.stack = texts(a.python->stack);
      py.source = source_of(a.python->source_file, a.python->source_function, a.python->source_text);
    } else {
      site.python = ProfileOptional<ProfilePythonStack>::null();
    }
    site.bytes = a.bytes;
    site.allocations = a.allocations;
    out.push_back(std::move(site));
  }
  return out;
}

}  // namespace

void add_graph_ledger(ProfileGraph& g, const GraphLedger& l) {
  g.capture_site = profile_site(l.capture_site);
  g.instantiate_site = profile_site(l.instantiate_site);
  ProfileGraphMemory& m = g.memory.emplace();
  m.capture_alloc_bytes = l.capture_alloc_bytes;
  m.capture_allocs = l.capture_allocs;
  m.capture_vmm_bytes = l.capture_vmm_bytes;
  m.before_capture_alloc_bytes = l.before_capture_alloc_bytes;
  m.before_capture_allocs = l.before_capture_allocs;
  m.before_capture_freed_bytes = l.before_capture_freed_bytes;
  m.before_capture_since = !l.capture_ns ? ProfileText::null() : ProfileText(l.before_capture_from_start ? "start" : "previous capture");
  m.capture_alloc_sites = allocation_sites(l.capture_alloc_sites);
  m.before_capture_alloc_sites = allocation_sites(l.before_capture_alloc_sites);
  m.memory_node_bytes = l.memory_node_bytes;
  m.memory_nodes = l.memory_nodes;
  m.capture_free_delta_bytes = opt(l.capture_free_delta);
  m.instantiate_free_delta_bytes = opt(l.instantiate_free_delta);
  m.upload_free_delta_bytes = opt(l.upload_free_delta);
  m.graph_pool_reserved_after_bytes = opt(l.graph_pool_reserved_after);
  m.reuses_memory = l.reuses_memory;
  ProfileGraphStartup& s = g.startup.emplace();
  s.capture_ns = opt(l.capture_ns);
  s.first_launch_ns = opt(l.first_launch_ns);
  s.created_after_first_step_ns =
      l.created_after_first_step_ns > 0 ? ProfileNumber(l.created_after_first_step_ns) : ProfileNumber::null();
  g.kernel_shapes = l.kernel_shapes;
}

void add_sites(ProfileProcess& j, const ProcessProfile& p) {
  const SiteProfile& s = p.sites;
  j.call_sites_recorded = s.sites_recorded;
  j.ledgers_recorded = s.ledgers_recorded;
  if (s.step.steps == 0) {
    j.step = ProfileOptional<ProfileStep>::null();
  } else {
    ProfileStep& step = j.step.emplace();
    step.from = s.step.from;
    step.exec = s.step.exec_id;
    step.graph = s.step.graph_id;
    step.other_graphs = s.step.other_graphs;
    step.steps = s.step.steps;
    step.span_ns = static_cast<double>(s.step.last_ns - s.step.first_ns);
    if (s.step.from == "nvtx range") step.range = s.step.range_name;
  }
  if (s.step.range_name.empty()) {
    j.step_range = ProfileOptional<ProfileStepRange>::null();
  } else {
    ProfileStepRange& r = j.step_range.emplace();
    r.name = s.step.range_name;
    r.used = s.step.range_missing.empty();
    r.ranges = s.step.range_missing.empty() ? s.step.steps : 0;
    r.missing = s.step.range_missing.empty() ? json(nullptr) : json(s.step.range_missing);
  }
  j.eager_sites.present = true;
  for (const auto& e : s.eager_sites) {
    ProfileEagerSite site;
    site.kernels.present = true;
    for (const auto& k : e.kernels) {
      ProfileNameCount n;
      n.name = k.name;
      n.count = k.count;
      site.kernels.push_back(std::move(n));
    }
    site.site = profile_site(e.site);
    site.stacks = e.stacks;
    site.kind = e.kind;
    site.api = e.api;
    site.calls = e.calls;
    site.taken = e.taken;
    site.calls_in_steps = e.calls_in_steps;
    site.per_step = opt(e.per_step);
    site.gpu_ns = e.gpu_ns;
    site.host_ns = e.host_ns;
    site.hint = e.hint;
    j.eager_sites.push_back(std::move(site));
  }
  ProfileProcessMemory& m = j.memory.emplace();
  m.capture_alloc_bytes = s.capture_alloc_bytes;
  m.capture_vmm_bytes = s.capture_vmm_bytes;
  m.memory_node_bytes = s.memory_node_bytes;
  m.graph_pool_reserved_high_bytes = opt(s.graph_pool_reserved_high);
  ProfileProcessStartup& st = j.startup.emplace();
  st.graph_making_ns = s.graph_making_ns;
  st.wall_ns = opt(s.wall_ns);
  st.graph_making_share = s.wall_ns && *s.wall_ns > 0 ? ProfileNumber(s.graph_making_ns / *s.wall_ns) : ProfileNumber::null();
  st.start_to_first_replay_ns = opt(s.start_to_first_replay_ns);
  st.cuda_to_first_replay_ns = opt(s.cuda_to_first_replay_ns);
  st.process_start_resolution_ns = s.process_start_resolution_ns;
  j.recaptures.present = true;
  for (const auto& r : s.recaptures) {
    ProfileRecapture rec;
    rec.site = profile_site(r.site);
    rec.graphs = section_values::numbers(r.graph_ids);
    rec.nodes = section_values::numbers(r.nodes);
    rec.shapes = r.shapes;
    rec.traced = r.traced;
    j.recaptures.push_back(std::move(rec));
  }
  j.late_graphs = json(s.late_graphs);
  if (const auto& py = s.python_frames) {
    ProfilePythonFrames& f = j.python_frames.emplace();
    f.mode = py->mode;
    f.held = py->held;
    f.taken = py->taken;
    f.wait_ns = py->wait_ns;
    f.slow = py->slow;
    f.stopped = py->stopped;
    f.can_take = py->can_take;
  } else {
    j.python_frames = ProfileOptional<ProfilePythonFrames>::null();
  }
  if (const auto& c = s.site_cost) {
    ProfileCallSiteCost& cost = j.call_site_cost.emplace();
    cost.calls = c->calls;
    cost.ns = c->ns;
    cost.new_sites = c->new_sites;
    cost.new_sites_ns = c->new_sites_ns;
    cost.full_unwinds = c->full_unwinds;
    cost.skipped = c->skipped;
    cost.sample_first = c->first;
    cost.sample_every = c->every;
    cost.sample_every_max = c->every_max;
    cost.named_off_thread = c->named;
    cost.naming_ns = c->named_ns;
  } else {
    j.call_site_cost = ProfileOptional<ProfileCallSiteCost>::null();
  }
  j.source_line_notes = texts(s.source_line_notes);
  j.exec_updates = counts_of(s.exec_updates);
  j.set_params = counts_of(s.set_params);
}

}  // namespace gp
