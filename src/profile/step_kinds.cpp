// Steps by kind: which graphs each step launched (or none), what the eager steps cost, which
// launch configurations fell back, the framework's own reasons joined to the code they name, and a
// capture plan (graphprof/core/step_kinds.hpp; docs/profile.md "Steps by kind").
//
// A step is cut where the loop itself marks it: an NVTX range (--step-range), or the synchronising
// call the loop makes once per step (a serving loop reads its result back each step: `.item()` is a
// cudaStreamSynchronize), found as the call that lies between nearly every two launches of the
// step's graphs, once in most of them. A step without a graph launch is an eager step; without
// such a call eager steps cannot be told apart from the work around graph steps, and are not.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>

#include "graphprof/core/kernel_names.hpp"
#include "graphprof/core/stats.hpp"
#include "graphprof/core/text_format.hpp"
#include "api_kinds.hpp"
#include "site_analysis.hpp"

namespace gp {

namespace {

double span_ns(std::uint64_t a, std::uint64_t b) { return b > a ? static_cast<double>(b - a) : 0.0; }

double median_of(std::vector<double> v) { return v.empty() ? 0.0 : median(v); }

// A step: (start, end] on the host clock, the graphs it launched and its eager launch calls.
struct Step {
  std::uint64_t start = 0, end = 0;
  std::set<std::uint32_t> graphs;
  std::vector<std::uint32_t> eager;  // correlation ids of its eager kernel launch calls
  std::size_t kind = 0;
  // A graph was instantiated in it, or it launched none and the next step instantiated one: the
  // warm-up run before a capture (CUDA-graph trees run a new size eagerly once, then record it).
  bool made_graph = false, warms_up = false;
  bool startup() const { return graphs.empty() && (made_graph || warms_up); }
};

struct Call {
  std::uint64_t start = 0, end = 0;
  std::uint32_t thread = 0, co = 0, graph = 0;  // graph: the graph id a graph launch ran
};

// The synchronising call the loop makes once per step: of the API names (on the step's thread)
// found between two consecutive launches of the step's graphs in at least 90 % of the gaps, the
// one with the fewest calls, unless its counts in the gaps have a common divisor above 1 (a call
// made k times a step is found k, 2k, ... times in a gap). "" when none is.
std::string find_delimiter(const std::vector<Call>& step_launches, const std::vector<const ApiRecord*>& syncs) {
  if (step_launches.size() < 3) return {};
  std::map<std::string, std::vector<std::uint64_t>> starts;  // name -> sorted starts
  for (const ApiRecord* a : syncs) starts[a->name].push_back(a->start_ns);
  std::string best;
  std::size_t fewest = 0;
  for (auto& [name, s] : starts) {
    std::sort(s.begin(), s.end());
    std::size_t with = 0, divisor = 0, calls = 0;
    for (std::size_t i = 0; i + 1 < step_launches.size(); ++i) {
      const auto lo = std::lower_bound(s.begin(), s.end(), step_launches[i].end);
      const auto hi = std::lower_bound(s.begin(), s.end(), step_launches[i + 1].start);
      const auto n = static_cast<std::size_t>(hi - lo);
      with += n > 0;
      divisor = std::gcd(divisor, n);
      calls += n;
    }
    const std::size_t gaps = step_launches.size() - 1;
    if (with * 10 < gaps * 9 || divisor != 1) continue;
    if (best.empty() || calls < fewest) best = name, fewest = calls;
  }
  return best;
}

// The Python frames of a call site, "file.py:LINE in fn" (base name), the application's only.
std::vector<std::string> app_frames(const CallSiteRecord& s) {
  std::vector<std::string> out;
  for (const auto& f : s.python) {
    if (library_python(f.file)) continue;
    const std::size_t slash = f.file.rfind('/');
    out.push_back((slash == std::string::npos ? f.file : f.file.substr(slash + 1)) + ":" + std::to_string(f.line) + " in " + f.function);
  }
  return out;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The kernels of one launch configuration: "name@gx,gy,gz", the re-capture table's signature.
std::string shape_of(const KernelRecord& k) {
  return k.name + "@" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," + std::to_string(k.grid[2]);
}
std::string name_of_shape(const std::string& s) { return s.substr(0, s.rfind('@')); }
double volume_of_shape(const std::string& s) {
  int x = 0, y = 0, z = 0;
  std::sscanf(s.c_str() + s.rfind('@') + 1, "%d,%d,%d", &x, &y, &z);
  return static_cast<double>(x) * y * z;
}
std::string shape_text(const std::string& s) { return short_kernel_name(name_of_shape(s)) + " grid " + s.substr(s.rfind('@') + 1); }

using Shapes = std::set<std::string>;

struct Verdict {
  std::string verdict;
  std::uint32_t graph = 0;
  std::vector<std::string> example;
};

// One eager step's kernels held against the captured graphs'.
Verdict judge(const Shapes& step, const std::map<std::uint32_t, Shapes>& graphs) {
  Verdict v;
  std::size_t best = 0;
  for (const auto& [g, shapes] : graphs)
    if (!shapes.empty() && shapes.size() > best && std::includes(step.begin(), step.end(), shapes.begin(), shapes.end()))
      v.graph = g, best = shapes.size();
  if (v.graph != 0) {
    v.verdict = "matches_graph";
    return v;
  }
  // The nearest graph: the most kernel names in common.
  std::set<std::string> names;
  for (const auto& s : step) names.insert(name_of_shape(s));
  std::size_t common = 0;
  for (const auto& [g, shapes] : graphs) {
    std::set<std::string> mine;
    for (const auto& s : shapes) mine.insert(name_of_shape(s));
    std::size_t n = 0;
    for (const auto& x : mine) n += names.count(x);
    if (n > common) v.graph = g, common = n;
  }
  v.verdict = "unlike_graphs";
  if (v.graph == 0) return v;
  // Larger: every kernel the two share by name that runs with another grid runs with a larger one
  // in the eager step, and at least one does.
  std::map<std::string, double> graph_volume;
  std::map<std::string, std::string> graph_grid;  // a kernel name -> its largest grid in the graph
  for (const auto& s : graphs.at(v.graph))
    if (volume_of_shape(s) >= graph_volume[name_of_shape(s)]) {
      graph_volume[name_of_shape(s)] = volume_of_shape(s);
      graph_grid[name_of_shape(s)] = s.substr(s.rfind('@') + 1);
    }
  std::size_t larger = 0, smaller = 0;
  for (const auto& s : step) {
    if (graphs.at(v.graph).count(s)) continue;
    auto it = graph_volume.find(name_of_shape(s));
    if (it == graph_volume.end()) continue;
    const double vol = volume_of_shape(s);
    if (vol > it->second) ++larger;
    else if (vol < it->second) ++smaller;
    if (v.example.size() < 3)
      v.example.push_back(shape_text(s) + " (graph_" + std::to_string(v.graph) + ": " + graph_grid[name_of_shape(s)] + ")");
  }
  if (larger > 0 && smaller == 0) v.verdict = "larger_than_graphs";
  return v;
}

// The steps, cut as the top of this file says, with what each launched.
std::vector<Step> cut_steps(const ProcessRecords& p, const ProcessProfile& out, const std::vector<Call>& launches,
                            const std::vector<Call>& step_launches, const std::vector<const ApiRecord*>& eager,
                            const std::vector<const ApiRecord*>& syncs, std::uint32_t thread, StepKinds& sk) {
  const StepDefinition& def = out.sites.step;
  std::vector<Step> steps;
  if (def.from == "nvtx range") {
    sk.from = "nvtx range";
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges = p.sites.step_ranges.ranges;
    std::sort(ranges.begin(), ranges.end());
    for (const auto& [a, b] : ranges) steps.push_back(Step{a, b, {}, {}, 0});
  } else if (!step_launches.empty()) {
    sk.delimiter = find_delimiter(step_launches, syncs);
    if (!sk.delimiter.empty()) {
      sk.from = "sync";
      std::vector<const ApiRecord*> d;
      for (const ApiRecord* a : syncs)
        if (a->name == sk.delimiter) d.push_back(a);
      // Where the loop can begin: after the last graph made before its first step launch.
      std::uint64_t lo = p.begin_ns;
      for (const auto& g : out.graphs)
        if (g.exec.created_ns < step_launches.front().start) lo = std::max(lo, g.exec.created_ns);
      auto eager_on_thread = [&](std::uint64_t a, std::uint64_t b) {
        auto it = std::upper_bound(eager.begin(), eager.end(), a, [](std::uint64_t t, const ApiRecord* x) { return t < x->start_ns; });
        for (; it != eager.end() && (*it)->start_ns <= b; ++it)
          if ((*it)->thread_id == thread) return true;
        return false;
      };
      auto start_of = [&](std::size_t k) { return k == 0 ? lo : std::max(lo, d[k - 1]->end_ns); };
      // The steps of the graph launches: from the delimiter after the first launch to the one after the last.
      std::size_t first = d.size(), last = d.size();
      for (std::size_t k = 0; k < d.size(); ++k) {
        if (first == d.size() && d[k]->start_ns > step_launches.front().end) first = k;
        if (d[k]->start_ns > step_launches.back().end) {
          last = k;
          break;
        }
      }
      if (first < d.size() && last < d.size()) {
        // Eager steps before the first graph step and after the last: while each holds eager work.
        while (first > 0 && d[first - 1]->start_ns > lo && eager_on_thread(start_of(first - 1), d[first - 1]->start_ns)) --first;
        while (last + 1 < d.size() && eager_on_thread(d[last]->end_ns, d[last + 1]->start_ns)) ++last;
        for (std::size_t k = first; k <= last; ++k) steps.push_back(Step{start_of(k), d[k]->end_ns, {}, {}, 0});
        // The first step has no delimiter before it: it begins at its first launch call (graph or eager).
        if (!steps.empty() && (first == 0 || d[first - 1]->end_ns <= lo)) {
          std::uint64_t begin = steps.front().end;
          for (const Call& c : step_launches)
            if (c.start > steps.front().start) {
              begin = std::min(begin, c.start);
              break;
            }
          for (const ApiRecord* a : eager)
            if (a->start_ns > steps.front().start && a->thread_id == thread) {
              begin = std::min(begin, a->start_ns);
              break;
            }
          steps.front().start = begin - 1;
        }
      }
    }
    if (steps.empty()) {
      sk.from = "graph launch";
      sk.notes.push_back("no call marks every step (such as a synchronisation each step, or --step-range NAME): eager steps "
                         "cannot be told apart, and each step is one launch of the step's graphs");
      // One launch of the step's graphs each: what else ran between them is not a step's.
      for (std::size_t i = 0; i < step_launches.size(); ++i)
        steps.push_back(Step{i == 0 ? step_launches[i].start - 1 : step_launches[i - 1].end, step_launches[i].end,
                             {step_launches[i].graph}, {}, 0});
    }
  }

  // What each step launched.
  for (Step& s : steps) {
    auto lo = std::upper_bound(launches.begin(), launches.end(), s.start, [](std::uint64_t t, const Call& c) { return t < c.start; });
    for (auto it = lo; it != launches.end() && it->start <= s.end && sk.from != "graph launch"; ++it)
      if (it->graph != 0) s.graphs.insert(it->graph);
    auto e = std::upper_bound(eager.begin(), eager.end(), s.start, [](std::uint64_t t, const ApiRecord* x) { return t < x->start_ns; });
    for (; e != eager.end() && (*e)->start_ns <= s.end; ++e) s.eager.push_back((*e)->correlation_id);
    for (const auto& g : out.graphs) s.made_graph = s.made_graph || (g.exec.created_ns > s.start && g.exec.created_ns <= s.end);
  }
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) steps[i].warms_up = steps[i + 1].made_graph;
  return steps;
}

// Where eager steps differ from graph steps in the application's code: the Python frames of the
// sampled calls of eager steps that no sampled call of a graph step has, the outermost of those
// at least half of them share; without one, the commonest site of their calls.
std::string eager_where_of(const SiteRecords& r, const std::vector<Step>& steps) {
  std::string where;
  std::unordered_map<std::uint32_t, const CallSiteRecord*> site_by_id;
  for (const auto& s : r.sites) site_by_id[s.id] = &s;
  auto site_of = [&](std::uint32_t co) -> const CallSiteRecord* {
    const auto it = r.site_of_call.find(co);
    if (it == r.site_of_call.end()) return nullptr;
    const auto s = site_by_id.find(it->second);
    return s == site_by_id.end() ? nullptr : s->second;
  };
  std::map<std::string, std::size_t> in_eager, depth;
  std::set<std::string> in_graph;
  std::size_t eager_calls = 0;
  std::map<std::uint32_t, std::size_t> eager_sites;
  for (const Step& s : steps)
    for (std::uint32_t co : s.eager) {
      const CallSiteRecord* site = site_of(co);
      if (site == nullptr) continue;
      const std::vector<std::string> frames = app_frames(*site);
      if (s.startup()) continue;
      if (s.graphs.empty()) {
        ++eager_calls;
        ++eager_sites[site->id];
        for (std::size_t i = 0; i < frames.size(); ++i) {
          ++in_eager[frames[i]];
          depth[frames[i]] = std::max(depth[frames[i]], i);
        }
      } else {
        in_graph.insert(frames.begin(), frames.end());
      }
    }
  std::size_t deepest = 0;
  for (const auto& [frame, n] : in_eager)
    if (n * 2 >= eager_calls && !in_graph.count(frame) && (where.empty() || depth[frame] > deepest))
      where = frame, deepest = depth[frame];
  if (where.empty() && !eager_sites.empty()) {  // no Python frame tells them apart: the commonest site
    const auto top = std::max_element(eager_sites.begin(), eager_sites.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    where = summarize_site(*site_by_id[top->first]).where;
  }
  return where;
}

// A frame's function against the one a log names: Python 3.11+ frames carry the qualified name
// ("main.<locals>.update_cache"), PyTorch's log the plain one ("update_cache").
bool same_function(const std::string& frame, const std::string& logged) {
  if (logged.empty()) return false;
  return frame == logged || (frame.size() > logged.size() && frame.compare(frame.size() - logged.size(), logged.size(), logged) == 0 &&
                             frame[frame.size() - logged.size() - 1] == '.');
}

// The framework's reasons, joined to the sampled calls whose Python stack runs the code they name.
void join_reasons(const ProcessRecords& p, const SiteInputs& in, const std::vector<Step>& steps,
                  const std::unordered_map<std::uint32_t, double>& eager_gpu, StepKinds& sk) {
  const SiteRecords& r = p.sites;
  std::unordered_map<std::uint32_t, const CallSiteRecord*> site_by_id;
  for (const auto& s : r.sites) site_by_id[s.id] = &s;
  std::map<std::tuple<std::string, std::string, std::string, int, std::string>, std::size_t> seen;
  for (const FrameworkLogEntry& e : p.framework_log) {
    auto [it, fresh] = seen.try_emplace({e.kind, e.reason, e.file, e.line, e.function}, sk.reasons.size());
    if (fresh) sk.reasons.push_back(FrameworkReason{e.kind, e.reason, e.file, e.line, e.function, 0, {}, 0, std::nullopt, 0, 0});
    ++sk.reasons[it->second].count;
  }
  for (FrameworkReason& fr : sk.reasons) {
    if (fr.file.empty()) continue;
    const std::string file = base_name(fr.file);
    std::set<std::uint32_t> matched;
    std::set<std::string> wheres;
    // The code it names: a frame at that file and line; else (the framework ran its own code for a
    // compiled function, so its lines are not on the stack) a frame in that function; else the
    // call of it, the line of the site ("out = update_cache(cache, h)").
    for (int pass = 0; pass < 3 && matched.empty(); ++pass)
      for (const auto& s : r.sites) {
        bool hit = false;
        for (const auto& f : s.python)
          hit = hit || (base_name(f.file) == file && (pass == 0 ? f.line == fr.line : pass == 1 && same_function(f.function, fr.function)));
        if (pass == 2 && !fr.function.empty() && !s.python.empty()) {
          const SiteSummary summary = summarize_site(s);
          hit = summary.from == "python" && summary.source_file == file && summary.source_text.find(fr.function + "(") != std::string::npos;
        }
        if (hit) matched.insert(s.id);
      }
    std::set<std::size_t> in_steps;
    double calls_in_steps = 0;
    for (const auto& [co, site] : r.site_of_call) {
      if (!matched.count(site) || in.captured_calls.count(co)) continue;
      const auto w = r.weight_of_call.find(co);
      const double weight = w == r.weight_of_call.end() ? 1.0 : w->second;
      const auto a = in.api_by_correlation.find(co);
      if (a == in.api_by_correlation.end() || api_kinds::is_graph_launch(*a->second)) continue;
      fr.host_ns += weight * span_ns(a->second->start_ns, a->second->end_ns);
      if (auto g = eager_gpu.find(co); g != eager_gpu.end()) fr.gpu_ns += weight * g->second;
      wheres.insert(summarize_site(*site_by_id.at(site)).where);
      const std::uint64_t t = a->second->start_ns;
      auto st = std::lower_bound(steps.begin(), steps.end(), t, [](const Step& s, std::uint64_t x) { return s.end < x; });
      if (st != steps.end() && t > st->start) {
        in_steps.insert(static_cast<std::size_t>(st - steps.begin()));
        calls_in_steps += weight;
      }
    }
    fr.sites.assign(wheres.begin(), wheres.end());
    fr.steps = in_steps.size();
    if (!steps.empty() && !matched.empty()) fr.calls_per_step = calls_in_steps / static_cast<double>(steps.size());
  }
}

// The capture plan: what each graph earns, what a capture of each group of eager steps would.
void make_plan(const ProcessProfile& out, const std::set<std::uint32_t>& step_graphs, std::size_t n_steps, StepKinds& sk) {
  std::map<std::uint32_t, std::size_t> index_of_graph;
  for (std::size_t i = 0; i < out.graphs.size(); ++i) index_of_graph[out.graphs[i].exec.graph_id] = i;
  std::vector<double> startups;
  for (std::size_t i = 0; i < out.graphs.size(); ++i) {
    const GraphProfile& g = out.graphs[i];
    PlanGraph pg;
    pg.graph = g.exec.graph_id;
    pg.launches = g.launches;
    if (!n_steps == 0) pg.per_1000_steps = 1000.0 * static_cast<double>(g.launches) / static_cast<double>(n_steps);
    if (i < out.sites.graphs.size()) {
      const GraphLedger& l = out.sites.graphs[i];
      if (l.capture_ns || g.instantiate_ns) pg.startup_ns = l.capture_ns.value_or(0) + g.instantiate_ns.value_or(0) + g.upload_ns.value_or(0);
      if (out.sites.ledgers_recorded)
        pg.memory_bytes = static_cast<double>(l.capture_alloc_bytes + l.capture_vmm_bytes + l.memory_node_bytes);
      pg.shares_pool = l.reuses_memory;
    }
    if (pg.startup_ns) startups.push_back(*pg.startup_ns);
    pg.verdict = g.launches == 0                                                             ? "never launched"
                 : static_cast<double>(g.launches) < std::max(2.0, 0.01 * static_cast<double>(n_steps)) ? "launched rarely"
                                                                                              : "earns its keep";
    sk.plan_graphs.push_back(std::move(pg));
  }
  const std::optional<double> startup = startups.empty() ? std::nullopt : std::optional<double>(median_of(startups));
  for (std::size_t c = 0; c < sk.clusters.size(); ++c) {
    const EagerCluster& cl = sk.clusters[c];
    PlanCluster pc;
    pc.cluster = c;
    pc.steps = cl.steps;
    std::uint32_t nearest = cl.graph;
    if (nearest == 0)  // no shapes to tell: the step's graph that holds the most memory
      for (const PlanGraph& g : sk.plan_graphs)
        if (step_graphs.count(g.graph) && g.memory_bytes &&
            (nearest == 0 || *g.memory_bytes > sk.plan_graphs[index_of_graph[nearest]].memory_bytes.value_or(0)))
          nearest = g.graph;
    for (const PlanGraph& g : sk.plan_graphs)
      if (g.graph == nearest) pc.memory_bytes = g.memory_bytes;
    pc.startup_ns = startup;
    const double share = n_steps == 0 ? 0 : static_cast<double>(cl.steps) / static_cast<double>(n_steps);
    if (cl.extra_host_ns && *cl.extra_host_ns > 0) {
      pc.saving_per_1000_steps_ns = 1000.0 * share * *cl.extra_host_ns;
      if (startup && share > 0) pc.pays_back_steps = *startup / (share * *cl.extra_host_ns);
    }
    pc.verdict = cl.verdict == "matches_graph"                               ? "fix the dispatch"
                 : cl.verdict == "varies"                                     ? "pad to a bucket"
                 : !pc.saving_per_1000_steps_ns                               ? "not worth a capture"
                                                                              : "capture";
    sk.plan_clusters.push_back(std::move(pc));
  }
  sk.padding = "not measured: the records do not say which allocation a copy wrote or how much of it the launch used";
}

}  // namespace

void analyze_step_kinds(const ProcessRecords& p, const SiteInputs& in, ProcessProfile& out) {
  StepKinds sk;
  std::map<std::uint32_t, std::uint32_t> graph_of_exec;
  std::map<std::uint32_t, std::size_t> index_of_graph;  // graph id -> index into out.graphs
  for (std::size_t i = 0; i < out.graphs.size(); ++i) {
    graph_of_exec[out.graphs[i].exec.exec_id] = out.graphs[i].exec.graph_id;
    index_of_graph[out.graphs[i].exec.graph_id] = i;
  }
  std::vector<Call> launches;
  for (const auto& [exec, calls] : in.launches_of_exec)
    for (const ApiRecord* a : calls)
      launches.push_back(Call{a->start_ns, a->end_ns, a->thread_id, a->correlation_id, graph_of_exec.count(exec) ? graph_of_exec[exec] : 0});
  std::sort(launches.begin(), launches.end(), [](const Call& a, const Call& b) { return a.start < b.start; });

  const StepDefinition& def = out.sites.step;
  // The step's graphs: the most-launched one and the others captured at its site.
  std::set<std::uint32_t> step_graphs;
  if (def.graph_id != 0) {
    step_graphs.insert(def.graph_id);
    const auto i = index_of_graph.find(def.graph_id);
    if (i != index_of_graph.end() && i->second < out.sites.graphs.size() && out.sites.graphs[i->second].capture_site) {
      const std::string key = capture_site_key(*out.sites.graphs[i->second].capture_site);
      for (std::size_t g = 0; g < out.graphs.size() && g < out.sites.graphs.size(); ++g)
        if (out.sites.graphs[g].capture_site && capture_site_key(*out.sites.graphs[g].capture_site) == key)
          step_graphs.insert(out.graphs[g].exec.graph_id);
    }
  }
  std::uint32_t thread = 0;
  {
    std::map<std::uint32_t, std::size_t> by_thread;
    for (const Call& c : launches)
      if (step_graphs.count(c.graph)) ++by_thread[c.thread];
    std::size_t most = 0;
    for (const auto& [t, n] : by_thread)
      if (n > most) thread = t, most = n;
  }
  std::vector<Call> step_launches;
  for (const Call& c : launches)
    if (step_graphs.count(c.graph) && c.thread == thread) step_launches.push_back(c);

  // Eager kernel launch calls (outside captures), all threads, and the step thread's syncs.
  std::vector<const ApiRecord*> eager, syncs;
  for (const ApiRecord& a : p.trace.api) {
    if (in.captured_calls.count(a.correlation_id)) continue;
    if (api_kinds::is_kernel_launch(a)) eager.push_back(&a);
    else if (api_kinds::is_sync(a) && a.thread_id == thread) syncs.push_back(&a);
  }
  auto by_start = [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; };
  std::sort(eager.begin(), eager.end(), by_start);
  std::sort(syncs.begin(), syncs.end(), by_start);

  std::vector<Step> steps = cut_steps(p, out, launches, step_launches, eager, syncs, thread, sk);
  sk.steps = steps.size();

  // GPU time: each graph's per launch (median of its timed launches), eager kernels' by launch call.
  std::map<std::uint32_t, double> graph_gpu;
  for (const auto& g : out.graphs)
    if (!g.gpu_span_ns.empty()) graph_gpu[g.exec.graph_id] = median_of(g.gpu_span_ns);
  std::unordered_map<std::uint32_t, double> eager_gpu;
  std::unordered_map<std::uint32_t, std::vector<const KernelRecord*>> eager_kernels;
  for (const auto& k : p.trace.kernels)
    if (k.graph_id == 0) {
      eager_gpu[k.correlation_id] += span_ns(k.start_ns, k.end_ns);
      eager_kernels[k.correlation_id].push_back(&k);
    }
  const bool eager_timed = p.trace_level >= 2 && out.kernel_switches_off == 0 && !p.trace.kernels.empty();

  // Kinds, most steps first; steps that made a graph and launched none are start-up.
  using KindKey = std::pair<std::set<std::uint32_t>, bool>;
  std::map<KindKey, std::vector<std::size_t>> of_kind;
  for (std::size_t i = 0; i < steps.size(); ++i) of_kind[{steps[i].graphs, steps[i].startup()}].push_back(i);
  std::vector<std::pair<KindKey, std::vector<std::size_t>>> kinds(of_kind.begin(), of_kind.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<double> host_of(steps.size()), gpu_graph_of(steps.size(), NAN), gpu_eager_of(steps.size(), NAN);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    host_of[i] = span_ns(s.start, s.end);
    sk.loop_ns += host_of[i];
    double g = 0;
    for (std::uint32_t id : s.graphs) g += graph_gpu.count(id) ? graph_gpu[id] : NAN;
    gpu_graph_of[i] = g;
    if (eager_timed) {
      double e = 0;
      for (std::uint32_t co : s.eager) e += eager_gpu.count(co) ? eager_gpu[co] : 0.0;
      gpu_eager_of[i] = e;
    }
  }
  auto median_over = [](const std::vector<double>& of, const std::vector<std::size_t>& idx) -> std::optional<double> {
    std::vector<double> v;
    for (std::size_t i : idx) {
      if (!std::isfinite(of[i])) return std::nullopt;
      v.push_back(of[i]);
    }
    if (v.empty()) return std::nullopt;
    return median_of(v);
  };
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    StepKind x;
    x.graphs.assign(kinds[k].first.first.begin(), kinds[k].first.first.end());
    x.startup = kinds[k].first.second;
    x.steps = kinds[k].second.size();
    std::vector<double> host;
    double launches_sum = 0;
    for (std::size_t i : kinds[k].second) {
      host.push_back(host_of[i]);
      x.host_ns_total += host_of[i];
      launches_sum += static_cast<double>(steps[i].eager.size());
      steps[i].kind = k;
    }
    x.host_ns_median = median_of(host);
    x.eager_launches = launches_sum / static_cast<double>(x.steps);
    if (!x.graphs.empty()) x.graph_gpu_ns = median_over(gpu_graph_of, kinds[k].second);
    x.eager_gpu_ns = median_over(gpu_eager_of, kinds[k].second);
    sk.kinds.push_back(std::move(x));
  }
  for (const Step& s : steps) {
    if (!sk.strip.empty() && sk.strip.back().first == s.kind) ++sk.strip.back().second;
    else sk.strip.emplace_back(s.kind, 1);
  }

  sk.eager_where = eager_where_of(p.sites, steps);

  // Which shapes fell back: each eager step's kernels (name and grid) against the graphs'.
  std::vector<std::size_t> eager_idx, graph_idx;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (!steps[i].startup()) (steps[i].graphs.empty() ? eager_idx : graph_idx).push_back(i);
  auto extra = [&](const std::vector<double>& of, const std::vector<std::size_t>& mine, const std::vector<std::size_t>& ref) -> std::optional<double> {
    const auto a = median_over(of, mine), b = median_over(of, ref);
    if (!a || !b) return std::nullopt;
    return *a - *b;
  };
  // A step's GPU time: its graphs' and its eager kernels' (an eager step's graph part is 0).
  std::vector<double> gpu_total(steps.size(), NAN);
  for (std::size_t i = 0; i < steps.size(); ++i) gpu_total[i] = gpu_graph_of[i] + gpu_eager_of[i];
  sk.graph_step_host_ns = median_over(host_of, graph_idx);
  sk.graph_step_gpu_ns = median_over(gpu_total, graph_idx);
  if (!eager_idx.empty()) {
    std::map<std::uint32_t, Shapes> graph_shapes;
    for (const auto& k : p.trace.kernels)
      if (k.graph_id != 0 && graph_of_exec.count(k.graph_id)) graph_shapes[graph_of_exec[k.graph_id]].insert(shape_of(k));
    double largest_volume = -1;
    std::uint32_t largest = 0;
    for (const auto& [g, shapes] : graph_shapes) {
      double v = 0;
      for (const auto& s : shapes) v += volume_of_shape(s);
      if (v > largest_volume) largest = g, largest_volume = v;
    }
    struct Group {
      Verdict v;
      std::vector<std::size_t> steps;
      std::set<Shapes> shapes;
    };
    std::vector<Group> groups;
    const bool shapes_recorded = eager_timed && !graph_shapes.empty();
    for (std::size_t i : eager_idx) {
      Verdict v;
      Shapes shapes;
      if (shapes_recorded) {
        for (std::uint32_t co : steps[i].eager)
          if (auto it = eager_kernels.find(co); it != eager_kernels.end())
            for (const KernelRecord* k : it->second) shapes.insert(shape_of(*k));
        v = judge(shapes, graph_shapes);
      } else {
        v.verdict = "not_recorded";
      }
      auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.v.verdict == v.verdict && x.v.graph == v.graph; });
      if (g == groups.end()) groups.push_back(Group{v, {}, {}}), g = std::prev(groups.end());
      g->steps.push_back(i);
      g->shapes.insert(shapes);
      for (const auto& e : v.example)
        if (g->v.example.size() < 3 && std::find(g->v.example.begin(), g->v.example.end(), e) == g->v.example.end()) g->v.example.push_back(e);
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.steps.size() > b.steps.size(); });
    for (const Group& g : groups) {
      EagerCluster c;
      c.verdict = g.v.verdict;
      c.graph = g.v.graph;
      c.largest = c.graph != 0 && c.graph == largest;
      c.steps = g.steps.size();
      c.shapes = g.v.verdict == "not_recorded" ? 0 : g.shapes.size();
      if (c.verdict != "matches_graph" && c.shapes >= 3 && c.shapes * 10 >= c.steps * 8) c.verdict = "varies";
      c.example = g.v.example;
      c.first_step = g.steps.front();
      std::vector<double> host;
      for (std::size_t i : g.steps) host.push_back(host_of[i]);
      c.host_ns_per_step = median_of(host);
      // Held against the graph steps of the graph it matches or is nearest to, else every graph step.
      std::vector<std::size_t> ref;
      for (std::size_t i : graph_idx)
        if (c.graph != 0 && steps[i].graphs.count(c.graph)) ref.push_back(i);
      if (ref.empty()) ref = graph_idx;
      c.extra_host_ns = extra(host_of, g.steps, ref);
      c.gpu_ns_per_step = median_over(gpu_eager_of, g.steps);
      c.extra_gpu_ns = extra(gpu_total, g.steps, ref);
      sk.clusters.push_back(std::move(c));
    }
    if (!shapes_recorded)
      sk.notes.push_back("the eager steps' kernel shapes (name and grid) need kernel records: --trace node");
  }

  join_reasons(p, in, steps, eager_gpu, sk);
  make_plan(out, step_graphs, steps.size(), sk);

  if (sk.steps == 0 && sk.reasons.empty()) return;
  out.step_kinds = std::move(sk);
}

}  // namespace gp
