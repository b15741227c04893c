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

// fill_ledgers, step by step: the records indexed once, then each graph's ledger, the re-captures
// and the process's start-up.
class LedgerBuilder {
 public:
  LedgerBuilder(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out)
      : p_(p), r_(p.sites), in_(in), out_(out), sp_(out.sites) {
    for (const auto& s : r_.sites) site_by_id_[s.id] = &s;
    for (const auto& m : r_.memory_samples) {
      sample_[{m.at, m.correlation_id}] = &m;
      sp_.graph_pool_reserved_high = std::max(sp_.graph_pool_reserved_high.value_or(0), m.graph_reserved_high);
    }
    find_captures();
    for (const auto& m : r_.memory_nodes) nodes_of_exec_[m.exec_id] = &m;
    // Kernel signatures (name and grid) per exec.
    for (const auto& k : p_.trace.kernels)
      if (k.graph_id != 0)
        signatures_[k.graph_id].insert(k.name + "@" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," +
                                       std::to_string(k.grid[2]));
  }

  void fill() {
    bool earlier_allocated = false;  // an earlier capture allocated memory a later one can reuse
    sp_.graphs.clear();
    for (const auto& g : out_.graphs) {
      GraphLedger l = ledger_of(g);
      const bool own = l.capture_alloc_bytes + l.capture_vmm_bytes + l.memory_node_bytes > 0;
      l.reuses_memory = g.made_by == "stream capture" && !own && g.exec.nodes > 0 && earlier_allocated;
      earlier_allocated = earlier_allocated || l.capture_alloc_bytes + l.capture_vmm_bytes > 0;  // a pool's segments
      if (sp_.step.steps > 0 && g.exec.created_ns > sp_.step.first_ns) {
        l.created_after_first_step_ns = g.exec.created_ns - sp_.step.first_ns;
        sp_.late_graphs.push_back(g.exec.graph_id);
      }
      sp_.capture_alloc_bytes += l.capture_alloc_bytes;
      sp_.capture_vmm_bytes += l.capture_vmm_bytes;
      sp_.memory_node_bytes += l.memory_node_bytes;
      sp_.graph_making_ns += l.capture_ns.value_or(0) + g.instantiate_ns.value_or(0) + g.upload_ns.value_or(0);
      sp_.graphs.push_back(std::move(l));
    }
    find_recaptures();
    process_startup();
  }

 private:
  // The capture that made each graph; the end of each successful capture, per thread, sorted:
  // where "before its capture" begins.
  void find_captures() {
    std::map<std::uint32_t, std::uint32_t> open;  // stream -> correlation of its last BeginCapture
    for (const auto& c : p_.captures) {
      if (c.begin) {
        open[c.stream_id] = c.correlation_id;
      } else if (c.return_value == 0 && c.graph_id != 0) {
        capture_of_graph_[c.graph_id] = Capture{open.count(c.stream_id) ? open[c.stream_id] : 0, c.correlation_id};
      }
    }
    for (const auto& [graph, c] : capture_of_graph_) {
      const ApiRecord* end = api(c.end_co);
      if (end != nullptr) capture_ends_of_thread_[end->thread_id].push_back(end->end_ns);
    }
    for (auto& [thread, ends] : capture_ends_of_thread_) std::sort(ends.begin(), ends.end());
  }

  std::optional<SiteSummary> site_of(std::uint32_t co) const {
    auto s = r_.site_of_call.find(co);
    if (co == 0 || s == r_.site_of_call.end()) return std::nullopt;
    auto rec = site_by_id_.find(s->second);
    if (rec == site_by_id_.end()) return std::nullopt;
    return summarize_site(*rec->second);
  }

  // An allocation's site: its native frames, and its Python stack where it has one (read at the
  // allocation, or that of a later call inside the same call from Python: an `ap` line).
  std::optional<AllocationSite> allocation_site_of(std::uint32_t co) const {
    auto s = r_.site_of_call.find(co);
    if (co == 0 || s == r_.site_of_call.end()) return std::nullopt;
    auto rec = site_by_id_.find(s->second);
    if (rec == site_by_id_.end()) return std::nullopt;
    CallSiteRecord native = *rec->second;
    const CallSiteRecord* python = nullptr;
    const char* from = "held";
    if (!native.python.empty()) {
      python = rec->second;
    } else if (auto ap = r_.python_of_allocation.find(co); ap != r_.python_of_allocation.end()) {
      auto later = site_by_id_.find(ap->second.site);
      if (later != site_by_id_.end() && !later->second->python.empty()) python = later->second, from = "same call";
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
  }

  const ApiRecord* api(std::uint32_t co) const {
    auto a = in_.api_by_correlation.find(co);
    return co != 0 && a != in_.api_by_correlation.end() ? a->second : nullptr;
  }

  std::optional<double> free_delta(const char* before, const char* after, std::uint32_t co) const {
    auto b = sample_.find({before, co}), a = sample_.find({after, co});
    if (b == sample_.end() || a == sample_.end()) return std::nullopt;
    return static_cast<double>(b->second->free) - static_cast<double>(a->second->free);
  }

  // One graph's ledger, but for what depends on the graphs before it.
  GraphLedger ledger_of(const GraphProfile& g) {
    GraphLedger l;
    l.instantiate_site = site_of(g.exec.correlation_id);
    l.first_launch_ns = g.calls.first_call_ns;
    l.kernel_shapes = signatures_.count(g.exec.exec_id) ? signatures_[g.exec.exec_id].size() : 0;
    if (auto c = capture_of_graph_.find(g.exec.graph_id); c != capture_of_graph_.end()) {
      l.capture_site = site_of(c->second.begin_co);
      const ApiRecord* begin = api(c->second.begin_co);
      const ApiRecord* end = api(c->second.end_co);
      if (begin != nullptr && end != nullptr && end->end_ns >= begin->start_ns) {
        l.capture_ns = span(begin->start_ns, end->end_ns);
        capture_memory(l, *begin, *end);
        before_capture_memory(l, *begin);
      }
      l.capture_free_delta = free_delta("capture_begin", "capture_end", c->second.begin_co);
      if (!l.capture_free_delta) {
        auto b = sample_.find({"capture_begin", c->second.begin_co}), e = sample_.find({"capture_end", c->second.end_co});
        if (b != sample_.end() && e != sample_.end())
          l.capture_free_delta = static_cast<double>(b->second->free) - static_cast<double>(e->second->free);
      }
    }
    if (auto m = nodes_of_exec_.find(g.exec.exec_id); m != nodes_of_exec_.end()) {
      l.memory_node_bytes = m->second->bytes;
      l.memory_nodes = m->second->allocs;
    }
    l.instantiate_free_delta = free_delta("instantiate_begin", "instantiate_end", g.exec.correlation_id);
    if (auto s = sample_.find({"instantiate_end", g.exec.correlation_id}); s != sample_.end())
      l.graph_pool_reserved_after = s->second->graph_reserved;
    for (const auto& u : p_.uploads)
      if (u.exec_id == g.exec.exec_id)
        if (auto d = free_delta("upload_begin", "upload_end", u.correlation_id)) {
          l.upload_free_delta = l.upload_free_delta.value_or(0) + *d;
          if (auto s = sample_.find({"upload_end", u.correlation_id}); s != sample_.end())
            l.graph_pool_reserved_after = s->second->graph_reserved;
        }
    return l;
  }

  // What the capturing thread allocated during the capture (device memory and VMM).
  void capture_memory(GraphLedger& l, const ApiRecord& begin, const ApiRecord& end) const {
    AllocationSites in_capture;
    for (const auto& m : r_.memory_ops) {
      if (m.op != 1 || m.memory_kind != kDeviceMemory || m.ts < begin.start_ns || m.ts > end.end_ns) continue;
      const ApiRecord* by = api(m.correlation_id);
      if (by != nullptr && by->thread_id != begin.thread_id) continue;  // another thread's allocation
      l.capture_alloc_bytes += m.bytes;
      ++l.capture_allocs;
      in_capture.add(allocation_site_of(m.correlation_id), m.bytes);
    }
    for (const auto& v : r_.vmm_creates) {
      const ApiRecord* by = api(v.correlation_id);
      const std::uint64_t at = by != nullptr ? by->start_ns : v.ts;
      if (at < begin.start_ns || at > end.end_ns) continue;
      if (by != nullptr && by->thread_id != begin.thread_id) continue;
      l.capture_vmm_bytes += v.bytes;
      in_capture.add(allocation_site_of(v.correlation_id), v.bytes);
    }
    l.capture_alloc_sites = std::move(in_capture).sorted();
  }

  // Before its capture: since the previous capture on its thread ended.
  void before_capture_memory(GraphLedger& l, const ApiRecord& begin) const {
    AllocationSites before;
    std::uint64_t since = 0;
    if (auto t = capture_ends_of_thread_.find(begin.thread_id); t != capture_ends_of_thread_.end()) {
      auto it = std::lower_bound(t->second.begin(), t->second.end(), begin.start_ns);
      if (it != t->second.begin()) since = *std::prev(it);
    }
    l.before_capture_from_start = since == 0;
    for (const auto& m : r_.memory_ops) {
      if ((m.op != 1 && m.op != 2) || m.memory_kind != kDeviceMemory || m.ts < since || m.ts >= begin.start_ns) continue;
      const ApiRecord* by = api(m.correlation_id);
      if (by != nullptr && by->thread_id != begin.thread_id) continue;
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
    l.before_capture_alloc_sites = std::move(before).sorted();
  }

  // Graphs captured from one site (capture_site_key), in the order of their first capture.
  void find_recaptures() {
    std::vector<std::pair<SiteSummary, std::vector<std::size_t>>> by_site;  // indexes into out_.graphs
    std::map<std::string, std::size_t> group_of_where;
    for (std::size_t i = 0; i < out_.graphs.size(); ++i) {
      auto c = capture_of_graph_.find(out_.graphs[i].exec.graph_id);
      if (c == capture_of_graph_.end()) continue;
      auto s = r_.site_of_call.find(c->second.begin_co);
      if (s == r_.site_of_call.end() || !site_by_id_.count(s->second)) continue;
      SiteSummary site = summarize_site(*site_by_id_[s->second]);
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
        rc.graph_ids.push_back(out_.graphs[i].exec.graph_id);
        rc.nodes.push_back(out_.graphs[i].exec.nodes);
        const std::set<std::string>& sig = signatures_[out_.graphs[i].exec.exec_id];
        if (sig.empty()) continue;
        ++rc.traced;
        shapes.insert(sig);
      }
      rc.shapes = shapes.size();
      sp_.recaptures.push_back(std::move(rc));
    }
  }

  // Process start-up.
  void process_startup() {
    std::uint64_t first_launch = 0;
    for (const auto& [exec, calls] : in_.launches_of_exec)
      if (!calls.empty() && (first_launch == 0 || calls.front()->start_ns < first_launch)) first_launch = calls.front()->start_ns;
    std::uint64_t last = p_.begin_ns + static_cast<std::uint64_t>(out_.cuda_wall_ns);
    if (r_.process_start_ns != 0 && r_.process_start_ns <= p_.begin_ns) {
      sp_.wall_ns = span(r_.process_start_ns, last);
      if (first_launch != 0) sp_.start_to_first_replay_ns = span(r_.process_start_ns, first_launch);
    } else if (out_.cuda_wall_ns > 0) {
      sp_.wall_ns = out_.cuda_wall_ns;
    }
    if (first_launch != 0 && p_.begin_ns != 0) sp_.cuda_to_first_replay_ns = span(p_.begin_ns, first_launch);
  }

  const ProcessRecords& p_;
  const SiteRecords& r_;
  const SiteInputs& in_;
  ProcessProfile& out_;
  SiteProfile& sp_;
  std::unordered_map<std::uint32_t, const CallSiteRecord*> site_by_id_;
  std::map<std::pair<std::string, std::uint32_t>, const MemorySample*> sample_;
  std::map<std::uint32_t, Capture> capture_of_graph_;
  std::map<std::uint32_t, std::vector<std::uint64_t>> capture_ends_of_thread_;
  std::map<std::uint32_t, const MemoryNodesRecord*> nodes_of_exec_;
  std::map<std::uint32_t, std::set<std::string>> signatures_;  // exec -> its kernels' name and grid
};

}  // namespace

void fill_ledgers(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out) { LedgerBuilder(p, in, out).fill(); }

}  // namespace gp
