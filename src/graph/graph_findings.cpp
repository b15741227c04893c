// The findings of a graph analysis: each one a rule over the analysed structure (and the node
// times, when given) with its evidence, advice and the nodes it names. docs/graphs.md explains
// every finding and threshold.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>

#include "graph_analyzer.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp::analysis {

namespace {

// Thresholds of the findings. docs/graphs.md explains each one; change both together.
constexpr std::size_t kChainMin = 8;              // kernels in a row before a chain is worth a finding
constexpr std::uint64_t kTinyThreads = 32768;     // grid x block threads: under a quarter of one H200 wave
constexpr double kTinyKernelNs = 10'000;          // measured median below which a kernel is tiny
constexpr double kTinyShare = 0.75;               // share of tiny kernels that makes a chain tiny
constexpr std::uint64_t kSmallCopyBytes = 64 * 1024;
constexpr std::size_t kManySmallCopies = 8;
constexpr std::size_t kLargeGraphInfo = 1000;     // nodes: instantiation becomes noticeable
constexpr std::size_t kLargeGraphWarn = 10000;    // nodes: instantiation dominates short runs
constexpr double kInstantiateReplays = 10;        // instantiate costs more than this many replays
constexpr std::size_t kWideFanout = 16;
constexpr std::size_t kHopperConcurrentKernels = 128;  // resident grids per device, cc 7.0-9.0
constexpr std::size_t kManyEmpty = 8;
constexpr double kDominantShare = 0.5;
constexpr std::size_t kStraightLineMin = 4;

// A finding with its name, weight and headline; the caller adds evidence, advice and nodes.
Finding finding(const char* id, const char* severity, const char* title) {
  Finding f;
  f.id = id;
  f.severity = severity;
  f.title = title;
  return f;
}

std::vector<std::string> names_of(const GraphModel& m, const std::vector<std::size_t>& idx, std::size_t limit) {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < idx.size() && i < limit; ++i) v.push_back(m.nodes[idx[i]].dot_name);
  return v;
}

}  // namespace

std::string Analyzer::kernel_size_text(const GraphNode& n) const {
  if (!n.launch) return "size unknown";
  return strf("%llu blocks x %llu threads", static_cast<unsigned long long>(n.launch->grid.volume()),
              static_cast<unsigned long long>(n.launch->block.volume()));
}

void Analyzer::chains() {
  struct Run {
    std::vector<std::size_t> nodes;
    std::size_t tiny = 0, unknown = 0;  // kernels known to be tiny; kernels of unknown size
    double time_ns = 0;
    bool timed = true;
  };
  std::vector<Run> runs;
  auto is_kernel = [&](std::size_t i) { return m.nodes[i].kind == NodeKind::kKernel; };
  auto links = [&](std::size_t a, std::size_t b) {  // a -> b is an inner link of a linear run
    return t.out[a].size() == 1 && t.out[a][0] == b && t.in[b].size() == 1;
  };
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (!is_kernel(i)) continue;
    if (t.in[i].size() == 1 && is_kernel(t.in[i][0]) && links(t.in[i][0], i)) continue;  // not a start
    Run r;
    r.nodes.push_back(i);
    while (t.out[r.nodes.back()].size() == 1) {
      const std::size_t nx = t.out[r.nodes.back()][0];
      if (!is_kernel(nx) || !links(r.nodes.back(), nx)) break;
      r.nodes.push_back(nx);
    }
    if (r.nodes.size() < kChainMin) continue;
    for (std::size_t k : r.nodes) {
      const NodeTime* nt = time_of(k);
      if (nt != nullptr) {
        r.time_ns += nt->median_ns;
        if (nt->median_ns <= kTinyKernelNs) ++r.tiny;
      } else {
        r.timed = false;
        const GraphNode& n = m.nodes[k];
        if (!n.launch) ++r.unknown;
        else if (n.launch->grid.volume() * n.launch->block.volume() <= kTinyThreads) ++r.tiny;
      }
    }
    runs.push_back(std::move(r));
  }
  std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.nodes.size() > b.nodes.size(); });

  // A chain counts as tiny when most of its kernels are: one big kernel in a decode step does
  // not hide the gaps of the hundred small ones around it.
  std::vector<const Run*> tiny, unknown;
  for (const Run& r : runs) {
    const double n = static_cast<double>(r.nodes.size());
    if (r.tiny >= kChainMin && static_cast<double>(r.tiny) >= kTinyShare * n) tiny.push_back(&r);
    else if (static_cast<double>(r.unknown) >= kTinyShare * n) unknown.push_back(&r);
  }
  auto describe = [&](const Run& r) {
    const GraphNode& a = m.nodes[r.nodes.front()];
    const GraphNode& b = m.nodes[r.nodes.back()];
    std::string s = strf("%zu kernels in a row, %s ... %s", r.nodes.size(), a.dot_name.c_str(), b.dot_name.c_str());
    std::set<std::string> names;
    for (std::size_t k : r.nodes) names.insert(m.nodes[k].short_name);
    if (names.size() == 1) s += " (all " + *names.begin() + ")";
    else s += strf(" (%zu different kernels)", names.size());
    if (r.tiny < r.nodes.size() && r.unknown == 0) s += strf(", %zu of them small", r.tiny);
    if (r.timed && times != nullptr)
      s += ", " + format_ns(r.time_ns) + " of measured kernel time, " + format_ns(r.time_ns / static_cast<double>(r.nodes.size())) + " each";
    else if (a.launch)
      s += ", e.g. " + kernel_size_text(a);
    return s;
  };
  if (!tiny.empty()) {
    Finding f = finding("tiny_kernel_chain", "warning", "Long chains of tiny kernels");
    f.evidence = strf("%zu chain%s of >= %zu small kernels. ", tiny.size(), tiny.size() == 1 ? "" : "s", kChainMin);
    for (std::size_t k = 0; k < tiny.size() && k < 3; ++k) f.evidence += (k ? "; " : "") + describe(*tiny[k]);
    f.evidence += strf(". Small = under %s threads per launch", group_digits(kTinyThreads).c_str()) +
                  (times != nullptr ? strf(" or under %s measured", format_ns(kTinyKernelNs).c_str()) : std::string()) + ".";
    f.advice = "A graph removes the CPU cost of each launch, not the GPU's: every kernel in a chain still waits "
               "for the previous one to drain and then ramps up, a cost per link that tiny kernels cannot hide "
               "(the per-node gaps of --report show it). Fuse neighbouring kernels, give each launch more work (more elements per thread, "
               "batching), or run independent chains side by side.";
    f.nodes = {m.nodes[tiny[0]->nodes.front()].dot_name, m.nodes[tiny[0]->nodes.back()].dot_name};
    add(std::move(f));
  }
  if (!unknown.empty()) {
    Finding f = finding("long_kernel_chain", "info", "Long chains of kernels (sizes unknown)");
    f.evidence = strf("%zu chain%s of >= %zu kernels. ", unknown.size(), unknown.size() == 1 ? "" : "s", kChainMin);
    for (std::size_t k = 0; k < unknown.size() && k < 3; ++k) f.evidence += (k ? "; " : "") + describe(*unknown[k]);
    f.evidence += ". The dump has no launch configurations.";
    f.advice = "Dump with the verbose flag (cudaGraphDebugDotFlagsVerbose; graphprof run writes *_verbose.dot) "
               "or pass --report with per-node times to tell whether these kernels are tiny; chains of tiny "
               "kernels are bound by the per-kernel gap, not by the work.";
    f.nodes = {m.nodes[unknown[0]->nodes.front()].dot_name, m.nodes[unknown[0]->nodes.back()].dot_name};
    add(std::move(f));
  }
}

std::size_t Analyzer::reach(std::size_t start, bool forward) const {
  std::vector<char> seen(m.nodes.size(), 0);
  std::vector<std::size_t> stack{start};
  std::size_t count = 0;
  seen[start] = 1;
  while (!stack.empty()) {
    const std::size_t v = stack.back();
    stack.pop_back();
    for (std::size_t w : forward ? t.out[v] : t.in[v])
      if (!seen[w]) {
        seen[w] = 1;
        ++count;
        stack.push_back(w);
      }
  }
  return count;
}

void Analyzer::host_nodes() {
  std::vector<std::size_t> inner, edge;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.nodes[i].kind != NodeKind::kHost) continue;
    (!t.in[i].empty() && !t.out[i].empty() ? inner : edge).push_back(i);
  }
  if (!inner.empty()) {
    Finding f = finding("host_node_serializes", "warning", "Host nodes stall the GPU in the middle of the graph");
    f.evidence = strf("%zu host node%s with GPU work on both sides", inner.size(), inner.size() == 1 ? "" : "s");
    for (std::size_t k = 0; k < inner.size() && k < 3; ++k) {
      const std::size_t i = inner[k];
      const std::size_t before = reach(i, false), after = reach(i, true);
      f.evidence += strf("%s%s waits for %zu node%s and holds back %zu", k ? "; " : ": ", m.nodes[i].dot_name.c_str(),
                         before, before == 1 ? "" : "s", after);
    }
    f.evidence += ".";
    f.advice = "A host node runs on a driver thread after everything before it has finished on the GPU, and "
               "nothing after it can start until it returns: the GPU idles for a full device-to-host-to-device "
               "round trip every replay. Move the callback out of the graph (before or after the launch), or "
               "replace it with a kernel or a memcpy node when it only moves data.";
    f.nodes = names_of(m, inner, 5);
    add(std::move(f));
  }
  if (!edge.empty()) {
    Finding f = finding("host_node", "info", "Host nodes at the start or end of the graph");
    f.evidence = strf("%zu host node%s at a root or leaf: %s", edge.size(), edge.size() == 1 ? "" : "s",
                      m.nodes[edge[0]].dot_name.c_str());
    f.advice = "A host node at the end delays the graph's completion by a CPU round trip; at the start it "
               "delays the first kernel. Cheap when the graph is long, noticeable when it is short.";
    f.nodes = names_of(m, edge, 5);
    add(std::move(f));
  }
}

void Analyzer::copies() {
  std::vector<std::size_t> small;
  std::uint64_t total = 0;
  std::vector<std::uint64_t> sizes;
  std::map<std::string, std::size_t> by_dir;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const GraphNode& n = m.nodes[i];
    if (n.kind != NodeKind::kMemcpy || !n.bytes || *n.bytes >= kSmallCopyBytes) continue;
    small.push_back(i);
    total += *n.bytes;
    sizes.push_back(*n.bytes);
    ++by_dir[n.copy_direction.empty() ? "unknown" : n.copy_direction];
  }
  if (small.size() < kManySmallCopies) return;
  std::sort(sizes.begin(), sizes.end());
  Finding f = finding("many_small_copies", "warning", "Many small copies");
  f.evidence = strf("%zu memcpy nodes under %s each (%s in all, median %s;", small.size(),
                    format_bytes(kSmallCopyBytes).c_str(), format_bytes(total).c_str(),
                    format_bytes(sizes[sizes.size() / 2]).c_str());
  for (const auto& [d, c] : by_dir) f.evidence += strf(" %s %zu", d.c_str(), c);
  f.evidence += ").";
  f.advice = "Every copy node is a separate DMA operation with a fixed cost of microseconds, which dwarfs the "
             "transfer time of a few KiB. Pack the buffers into one contiguous staging buffer and copy once, or "
             "let a kernel gather the data.";
  f.nodes = names_of(m, small, 5);
  add(std::move(f));
}

void Analyzer::size() {
  const std::size_t n = m.nodes.size();
  std::optional<double> ratio;
  if (times != nullptr && times->instantiate_ns && times->gpu_time_per_iter_ns && *times->gpu_time_per_iter_ns > 0)
    ratio = *times->instantiate_ns / *times->gpu_time_per_iter_ns;
  const bool slow_measured = ratio && *ratio >= kInstantiateReplays;
  if (n < kLargeGraphInfo && !slow_measured) return;
  // A small graph whose instantiation is slow next to its replay is not a large graph: the title says
  // what was measured.
  const bool large = n >= kLargeGraphInfo;
  Finding f = finding("large_graph_instantiation", (n >= kLargeGraphWarn || slow_measured) ? "warning" : "info",
                      "Large graph: instantiation is expensive");
  if (!large) f.title = strf("Instantiation costs as much as %.0f replays", ratio.value_or(0));
  f.evidence = strf("%s nodes and %s edges", group_digits(n).c_str(), group_digits(m.edges.size()).c_str());
  if (times != nullptr && times->instantiate_ns) {
    f.evidence += "; instantiation took " + format_ns(*times->instantiate_ns);
    if (ratio) f.evidence += strf(", as much as %.0f replays of the graph (%s each)", *ratio,
                                  format_ns(*times->gpu_time_per_iter_ns).c_str());
  }
  f.evidence += ".";
  f.advice = large ? "cudaGraphInstantiate walks and uploads every node, so its cost grows with the node count and is "
                     "paid again on every re-instantiation. Instantiate once and replay many times; change parameters "
                     "with cudaGraphExecUpdate or the per-node setters instead of re-instantiating; fuse kernels to cut "
                     "the node count."
                   : "Instantiation is paid once per graph and again on every re-instantiation: it pays back only "
                     "over many replays. Instantiate once and replay many times; change parameters with "
                     "cudaGraphExecUpdate or the per-node setters instead of re-instantiating.";
  add(std::move(f));
}

void Analyzer::fanout() {
  std::size_t widest = 0, widest_node = 0;
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (t.out[i].size() > widest) {
      widest = t.out[i].size();
      widest_node = i;
    }
  const bool wide_roots = out.roots >= kWideFanout;
  if (!wide_roots && widest < kWideFanout) return;
  Finding f = finding("wide_fanout", "warning", wide_roots ? "Wide fan-out at the root" : "Wide fan-out");
  if (wide_roots) f.evidence = strf("%zu root nodes start at once", out.roots);
  if (widest >= kWideFanout)
    f.evidence += strf("%s%s fans out to %zu nodes", wide_roots ? "; " : "", m.nodes[widest_node].dot_name.c_str(), widest);
  f.evidence += strf("; the widest level holds %zu nodes.", out.max_parallelism);
  f.advice = strf("Launch cost grows with width: the launch has to make every branch ready at once, and each "
                  "branch needs its own hardware queue slot; a GPU runs at most %zu kernels concurrently "
                  "(compute capability 7.0-9.0), so extra width only queues. When the branches are small, merge "
                  "them into fewer kernels with more blocks each.",
                  kHopperConcurrentKernels);
  f.nodes = {m.nodes[widest_node].dot_name};
  add(std::move(f));
}

void Analyzer::memsets() {
  std::vector<std::size_t> next_to_kernel;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.nodes[i].kind != NodeKind::kMemset) continue;
    bool adjacent = false;
    for (std::size_t w : t.out[i]) adjacent = adjacent || m.nodes[w].kind == NodeKind::kKernel;
    for (std::size_t w : t.in[i]) adjacent = adjacent || m.nodes[w].kind == NodeKind::kKernel;
    if (adjacent) next_to_kernel.push_back(i);
  }
  if (next_to_kernel.empty()) return;
  Finding f = finding("memset_next_to_kernel", next_to_kernel.size() >= 4 ? "warning" : "info",
                      "Memsets right next to kernels");
  f.evidence = strf("%zu memset node%s directly before or after a kernel, e.g. %s", next_to_kernel.size(),
                    next_to_kernel.size() == 1 ? "" : "s", m.nodes[next_to_kernel[0]].dot_name.c_str());
  const GraphNode& s = m.nodes[next_to_kernel[0]];
  if (s.bytes) f.evidence += " (" + format_bytes(*s.bytes) + ")";
  f.evidence += ".";
  f.advice = "A memset node is one more step on the GPU timeline with its own dependency wait. When a kernel "
             "consumes (or produces) the buffer anyway, clearing it inside that kernel removes the node; a "
             "buffer that only needs clearing once can be cleared outside the graph.";
  f.nodes = names_of(m, next_to_kernel, 5);
  add(std::move(f));
}

void Analyzer::empties() {
  std::vector<std::size_t> empty;
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].kind == NodeKind::kEmpty) empty.push_back(i);
  if (empty.size() < kManyEmpty) return;
  Finding f = finding("many_empty_nodes", "info", "Many empty nodes");
  f.evidence = strf("%zu empty nodes (%.0f%% of the graph).", empty.size(),
                    100.0 * static_cast<double>(empty.size()) / static_cast<double>(m.nodes.size()));
  f.advice = "Empty nodes only carry dependencies (stream capture adds them for joins and event waits). Each "
             "is one more scheduling step; building the graph explicitly, or joining streams once instead of "
             "per step, removes most of them.";
  f.nodes = names_of(m, empty, 5);
  add(std::move(f));
}

void Analyzer::straight_line() {
  if (out.max_parallelism != 1 || out.depth < kStraightLineMin) return;
  Finding f = finding("straight_line", "info", "The graph is a single chain");
  f.evidence = strf("Every level holds one node; the top-level graph is a chain of %zu nodes.", out.depth);
  f.advice = "Nothing in this graph can overlap, so the graph saves CPU launch overhead only; GPU time is the "
             "sum of the nodes plus one dependency gap per edge. Independent work (another stream's kernels) "
             "can be captured as a parallel branch to fill the gaps.";
  add(std::move(f));
}

void Analyzer::timing() {
  if (times == nullptr || !out.timed_critical_path) return;
  const CriticalPath& cp = *out.timed_critical_path;
  if (out.timed_nodes == 0) {
    Finding f = finding("no_node_times", "info", "No per-node times matched this dump");
    f.evidence = "None of the " + group_digits(times->by_node.size()) + " timed nodes of " + times->origin +
                 " has a name of this dump.";
    f.advice = "Pick the right result with --workload and --mode, or re-run so that the dump and the trace come "
               "from the same run.";
    add(std::move(f));
    return;
  }
  double total = 0;
  for (const auto& k : out.kernels) total += k.time_ns;
  if (total > 0) {
    const KernelGroup* top_k = &out.kernels[0];
    for (const auto& k : out.kernels)
      if (k.time_ns > top_k->time_ns) top_k = &k;
    const double share = top_k->time_ns / total;
    if (share >= kDominantShare && out.kernels.size() > 1) {
      Finding f = finding("dominant_kernel", "info", "One kernel dominates");
      f.evidence = strf("%s takes %.0f%% of the measured kernel time (%s of %s over %zu node%s).",
                        top_k->short_name.c_str(), 100 * share, format_ns(top_k->time_ns).c_str(),
                        format_ns(total).c_str(), top_k->count, top_k->count == 1 ? "" : "s");
      f.advice = "Graph-level changes (fewer nodes, more overlap) cannot win more than the other kernels' share; "
                 "tune this kernel first.";
      add(std::move(f));
    }
  }
  if (cp.time_ns > 0 && cp.serial_time_ns >= 1.5 * cp.time_ns) {
    Finding f = finding("parallel_work", "info", "Work overlaps along branches");
    f.evidence = strf("The measured critical path is %s of %s of node time (%.1fx available overlap), %zu nodes long.",
                      format_ns(cp.time_ns).c_str(), format_ns(cp.serial_time_ns).c_str(),
                      cp.serial_time_ns / cp.time_ns, cp.nodes.size());
    f.advice = "Only nodes on the critical path set the graph's duration; speeding up the others helps only "
               "until another path becomes critical.";
    f.nodes = names_of(m, cp.nodes, 5);
    add(std::move(f));
  }
}

}  // namespace gp::analysis
