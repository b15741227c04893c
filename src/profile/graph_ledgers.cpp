// The memory and start-up ledger of each graph, re-captures and late instantiations
// (site_analysis.hpp; docs/profile.md "Memory ledger", "Start-up ledger").
//
// A stream-captured graph's capture is the interval from its cudaStreamBeginCapture call's start
// to its cudaStreamEndCapture call's end (the capture_begin line that precedes the capture_end
// line which returned the graph, on the same stream). Memory "of" a graph is what was allocated in
// that interval on the capturing thread: that is what the graph added, so graphs that share a pool
// are charged their marginal cost and the sum over graphs is what all of them added. Beside it, what
// the capturing thread allocated before the capture, since its previous capture ended (the warm-up
// run of CUDA-graph trees allocates the graph's pool memory then): not added to the graph's figures.
#include <algorithm>
#include <map>
#include <set>

#include "site_analysis.hpp"

namespace gp {

namespace {

constexpr int kDeviceMemory = 3;  // CUPTI_ACTIVITY_MEMORY_KIND_DEVICE

double span(std::uint64_t a, std::uint64_t b) { return b >= a ? static_cast<double>(b - a) : 0.0; }

struct Capture {
  std::uint32_t begin_co = 0, end_co = 0;
};

// Allocations grouped by the `where` of their call's Python and native sites, most bytes first.
class AllocationSites {
 public:
  void add(const std::optional<AllocationSite>& site, std::uint64_t bytes) {
    if (!site) return;
    auto [it, fresh] = index_.emplace((site->python ? site->python->where : std::string()) + "\n" + site->site.where, sites_.size());
    if (fresh) sites_.push_back(*site);
    sites_[it->second].bytes += bytes;
    ++sites_[it->second].allocations;
  }
  std::vector<AllocationSite> sorted() && {
    std::stable_sort(sites_.begin(), sites_.end(), [](const AllocationSite& a, const AllocationSite& b) { return a.bytes > b.bytes; });
    return std::move(sites_);
  }

 private:
  std::vector<AllocationSite> sites_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

void fill_ledgers(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out) {
  SiteProfile& sp = out.sites;
  const SiteRecords& r = p.sites;
  std::unordered_map<std::uint32_t, const CallSiteRecord*> site_by_id;
  for (const auto& s : r.sites) site_by_id[s.id] = &s;
  auto site_of = [&](std::uint32_t co) -> std::optional<SiteSummary> {
    auto s = r.site_of_call.find(co);
    if (co == 0 || s == r.site_of_call.end()) return std::nullopt;
    auto rec = site_by_id.find(s->second);
    if (rec == site_by_id.end()) return std::nullopt;
    return summarize_site(*rec->second);
  };
  // An allocation's site: its native frames, and its Python stack where it has one (read at the
  // allocation, or that of a later call inside the same call from Python: an `ap` line).
  auto allocation_site_of = [&](std::uint32_t co) -> std::optional<AllocationSite> {
    auto s = r.site_of_call.find(co);
    if (co == 0 || s == r.site_of_call.end()) return std::nullopt;
    auto rec = site_by_id.find(s->second);
    if (rec == site_by_id.end()) return std::nullopt;
    CallSiteRecord native = *rec->second;
    const CallSiteRecord* python = nullptr;
    const char* from = "held";
    if (!native.python.empty()) {
      python = rec->second;
    } else if (auto ap = r.python_of_allocation.find(co); ap != r.python_of_allocation.end()) {
      auto later = site_by_id.find(ap->second.site);
      if (later != site_by_id.end() && !later->second->python.empty()) python = later->second, from = "same call";
    }
    native.python.clear();
    AllocationSite site{summarize_site(native), std::nullopt, 0, 0};
    if (python != nullptr) {
      CallSiteRecord frames;
      frames.python = python->python;
      SiteSummary named = summarize_site(frames);
      site.python = AllocationPython{named.where, from, std::move(named.stack), named.source_file, named.source_function, named.source_text};
    }
    return site;
  };
  auto api = [&](std::uint32_t co) -> const ApiRecord* {
    auto a = in.api_by_correlation.find(co);
    return co != 0 && a != in.api_by_correlation.end() ? a->second : nullptr;
  };
  std::map<std::pair<std::string, std::uint32_t>, const MemorySample*> sample;
  for (const auto& m : r.memory_samples) {
    sample[{m.at, m.correlation_id}] = &m;
    sp.graph_pool_reserved_high = std::max(sp.graph_pool_reserved_high.value_or(0), m.graph_reserved_high);
  }
  auto free_delta = [&](const char* before, const char* after, std::uint32_t co) -> std::optional<double> {
    auto b = sample.find({before, co}), a = sample.find({after, co});
    if (b == sample.end() || a == sample.end()) return std::nullopt;
    return static_cast<double>(b->second->free) - static_cast<double>(a->second->free);
  };

  // The capture that made each graph.
  std::map<std::uint32_t, Capture> capture_of_graph;
  {
    std::map<std::uint32_t, std::uint32_t> open;  // stream -> correlation of its last BeginCapture
    for (const auto& c : p.captures) {
      if (c.begin) {
        open[c.stream_id] = c.correlation_id;
      } else if (c.return_value == 0 && c.graph_id != 0) {
        capture_of_graph[c.graph_id] = Capture{open.count(c.stream_id) ? open[c.stream_id] : 0, c.correlation_id};
      }
    }
  }
  std::map<std::uint32_t, const MemoryNodesRecord*> nodes_of_exec;
  for (const auto& m : r.memory_nodes) nodes_of_exec[m.exec_id] = &m;
  // Kernel signatures (name and grid) per exec.
  std::map<std::uint32_t, std::set<std::string>> signatures;
  for (const auto& k : p.trace.kernels)
    if (k.graph_id != 0)
      signatures[k.graph_id].insert(k.name + "@" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," +
                                    std::to_string(k.grid[2]));

  // The end of each successful capture, per thread, sorted: where "before its capture" begins.
  std::map<std::uint32_t, std::vector<std::uint64_t>> capture_ends_of_thread;
  for (const auto& [graph, c] : capture_of_graph) {
    const ApiRecord* end = api(c.end_co);
    if (end != nullptr) capture_ends_of_thread[end->thread_id].push_back(end->end_ns);
  }
  for (auto& [thread, ends] : capture_ends_of_thread) std::sort(ends.begin(), ends.end());

  bool earlier_allocated = false;  // an earlier capture allocated memory a later one can reuse
  sp.graphs.clear();
  for (const auto& g : out.graphs) {
    GraphLedger l;
    l.instantiate_site = site_of(g.exec.correlation_id);
    l.first_launch_ns = g.calls.first_call_ns;
    l.kernel_shapes = signatures.count(g.exec.exec_id) ? signatures[g.exec.exec_id].size() : 0;
    if (auto c = capture_of_graph.find(g.exec.graph_id); c != capture_of_graph.end()) {
      l.capture_site = site_of(c->second.begin_co);
      const ApiRecord* begin = api(c->second.begin_co);
      const ApiRecord* end = api(c->second.end_co);
      if (begin != nullptr && end != nullptr && end->end_ns >= begin->start_ns) {
        l.capture_ns = span(begin->start_ns, end->end_ns);
        AllocationSites in_capture, before;
        for (const auto& m : r.memory_ops) {
          if (m.op != 1 || m.memory_kind != kDeviceMemory || m.ts < begin->start_ns || m.ts > end->end_ns) continue;
          const ApiRecord* by = api(m.correlation_id);
          if (by != nullptr && by->thread_id != begin->thread_id) continue;  // another thread's allocation
          l.capture_alloc_bytes += m.bytes;
          ++l.capture_allocs;
          in_capture.add(allocation_site_of(m.correlation_id), m.bytes);
        }
        for (const auto& v : r.vmm_creates) {
          const ApiRecord* by = api(v.correlation_id);
          const std::uint64_t at = by != nullptr ? by->start_ns : v.ts;
          if (at < begin->start_ns || at > end->end_ns) continue;
          if (by != nullptr && by->thread_id != begin->thread_id) continue;
          l.capture_vmm_bytes += v.bytes;
          in_capture.add(allocation_site_of(v.correlation_id), v.bytes);
        }
        // Before its capture: since the previous capture on its thread ended.
        std::uint64_t since = 0;
        if (auto t = capture_ends_of_thread.find(begin->thread_id); t != capture_ends_of_thread.end()) {
          auto it = std::lower_bound(t->second.begin(), t->second.end(), begin->start_ns);
          if (it != t->second.begin()) since = *std::prev(it);
        }
        l.before_capture_from_start = since == 0;
        for (const auto& m : r.memory_ops) {
          if ((m.op != 1 && m.op != 2) || m.memory_kind != kDeviceMemory || m.ts < since || m.ts >= begin->start_ns) continue;
          const ApiRecord* by = api(m.correlation_id);
          if (by != nullptr && by->thread_id != begin->thread_id) continue;
          // A graph launch's allocation is the graph-memory pool's (another graph's memory nodes).
          if (by != nullptr && by->name.find("GraphLaunch") != std::string::npos) continue;
          if (m.op == 2) {
            l.before_capture_freed_bytes += m.bytes;
            continue;
          }
          l.before_capture_alloc_bytes += m.bytes;
          ++l.before_capture_allocs;
          before.add(allocation_site_of(m.correlation_id), m.bytes);
        }
        l.capture_alloc_sites = std::move(in_capture).sorted();
        l.before_capture_alloc_sites = std::move(before).sorted();
      }
      l.capture_free_delta = free_delta("capture_begin", "capture_end", c->second.begin_co);
      if (!l.capture_free_delta) {
        auto b = sample.find({"capture_begin", c->second.begin_co}), e = sample.find({"capture_end", c->second.end_co});
        if (b != sample.end() && e != sample.end())
          l.capture_free_delta = static_cast<double>(b->second->free) - static_cast<double>(e->second->free);
      }
    }
    if (auto m = nodes_of_exec.find(g.exec.exec_id); m != nodes_of_exec.end()) {
      l.memory_node_bytes = m->second->bytes;
      l.memory_nodes = m->second->allocs;
    }
    l.instantiate_free_delta = free_delta("instantiate_begin", "instantiate_end", g.exec.correlation_id);
    if (auto s = sample.find({"instantiate_end", g.exec.correlation_id}); s != sample.end())
      l.graph_pool_reserved_after = s->second->graph_reserved;
    for (const auto& u : p.uploads)
      if (u.exec_id == g.exec.exec_id)
        if (auto d = free_delta("upload_begin", "upload_end", u.correlation_id)) {
          l.upload_free_delta = l.upload_free_delta.value_or(0) + *d;
          if (auto s = sample.find({"upload_end", u.correlation_id}); s != sample.end())
            l.graph_pool_reserved_after = s->second->graph_reserved;
        }
    const bool own = l.capture_alloc_bytes + l.capture_vmm_bytes + l.memory_node_bytes > 0;
    l.reuses_memory = g.made_by == "stream capture" && !own && g.exec.nodes > 0 && earlier_allocated;
    earlier_allocated = earlier_allocated || l.capture_alloc_bytes + l.capture_vmm_bytes > 0;  // a pool's segments
    if (sp.step.steps > 0 && g.exec.created_ns > sp.step.first_ns) {
      l.created_after_first_step_ns = g.exec.created_ns - sp.step.first_ns;
      sp.late_graphs.push_back(g.exec.graph_id);
    }
    sp.capture_alloc_bytes += l.capture_alloc_bytes;
    sp.capture_vmm_bytes += l.capture_vmm_bytes;
    sp.memory_node_bytes += l.memory_node_bytes;
    sp.graph_making_ns += l.capture_ns.value_or(0) + g.instantiate_ns.value_or(0) + g.upload_ns.value_or(0);
    sp.graphs.push_back(std::move(l));
  }

  // Graphs captured from one site (capture_site_key), in the order of their first capture.
  std::vector<std::pair<SiteSummary, std::vector<std::size_t>>> by_site;  // indexes into out.graphs
  std::map<std::string, std::size_t> group_of_where;
  for (std::size_t i = 0; i < out.graphs.size(); ++i) {
    auto c = capture_of_graph.find(out.graphs[i].exec.graph_id);
    if (c == capture_of_graph.end()) continue;
    auto s = r.site_of_call.find(c->second.begin_co);
    if (s == r.site_of_call.end() || !site_by_id.count(s->second)) continue;
    SiteSummary site = summarize_site(*site_by_id[s->second]);
    auto [g, fresh] = group_of_where.emplace(capture_site_key(site), by_site.size());
    if (fresh) by_site.emplace_back(std::move(site), std::vector<std::size_t>{});
    by_site[g->second].second.push_back(i);
  }
  for (const auto& [site, graphs] : by_site) {
    if (graphs.size() < 2) continue;
    Recapture rc;
    rc.site = site;
    std::set<std::set<std::string>> shapes;
    for (std::size_t i : graphs) {
      rc.graph_ids.push_back(out.graphs[i].exec.graph_id);
      rc.nodes.push_back(out.graphs[i].exec.nodes);
      const std::set<std::string>& sig = signatures[out.graphs[i].exec.exec_id];
      if (sig.empty()) continue;
      ++rc.traced;
      shapes.insert(sig);
    }
    rc.shapes = shapes.size();
    sp.recaptures.push_back(std::move(rc));
  }

  // Process start-up.
  std::uint64_t first_launch = 0;
  for (const auto& [exec, calls] : in.launches_of_exec)
    if (!calls.empty() && (first_launch == 0 || calls.front()->start_ns < first_launch)) first_launch = calls.front()->start_ns;
  std::uint64_t last = p.begin_ns + static_cast<std::uint64_t>(out.cuda_wall_ns);
  if (r.process_start_ns != 0 && r.process_start_ns <= p.begin_ns) {
    sp.wall_ns = span(r.process_start_ns, last);
    if (first_launch != 0) sp.start_to_first_replay_ns = span(r.process_start_ns, first_launch);
  } else if (out.cuda_wall_ns > 0) {
    sp.wall_ns = out.cuda_wall_ns;
  }
  if (first_launch != 0 && p.begin_ns != 0) sp.cuda_to_first_replay_ns = span(p.begin_ns, first_launch);
}

}  // namespace gp
